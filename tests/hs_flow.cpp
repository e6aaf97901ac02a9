// hs_flow: Horn-Schunck and CLG end to end through the C API, on the CPU path the suite runs
// (reference, or NEON under OFLOW_FORCE_BACKEND=neon), against the known flow of core/synth.hpp.
//
//  - EPE table: HS and CLG, Jacobi and red-black SOR, on the seven synthetic cases and two
//    exposure changes (gain 1.3 + offset 20; gain 0.7 - offset 15) at 96x72, the library's
//    defaults but the schedule (levels auto, warps 3, iterations 150, epsilon 0.002) and
//    alpha. Each row has a bound (what the implementation achieves, about 30 % margin) and the
//    no-runaway invariant (max |flow| <= max |true flow| + 2 px). TV-L1 at the same schedule
//    is printed beside it for scale, not asserted.
//  - one fixed point: Jacobi and SOR run to convergence (epsilon 0, many iterations) on one
//    level give the same flow within 1e-3 px (measured: 6e-7; the solvers differ in path, not in
//    equations);
//  - CLG with rho = 0 gives HS's flow within 1e-3 px (HS's closed form and the 2x2 solve by
//    Cramer's rule differ only in rounding), with either solver;
//  - thread count does not change a bit (1 vs 3 threads);
//  - bad parameters are refused with a message naming the field; backend CUDA is
//    OF_ERR_UNSUPPORTED (no CUDA path yet), backend AUTO runs a CPU path;
//  - of_info reports the algorithm and the iterations run.
#include "test_util.hpp"

#include <algorithm>
#include <cmath>

using namespace oftest;
using oflow::synth::Case;

namespace {

const uint32_t kW = 96, kH = 72;

of_config hs_cfg(of_algorithm algo, of_solver solver, uint32_t w = kW, uint32_t h = kH) {
    of_config c;
    of_config_init(&c, algo);
    c.max_width = w;
    c.max_height = h;
    c.format = OF_PIXEL_F32;
    c.backend = OF_BACKEND_REFERENCE;
    c.warps = 3;
    c.iterations = 150;
    c.epsilon = 0.002f;
    c.hs.solver = solver;
    return c;
}

bool run(const of_config& cfg, const Pair& p, std::vector<float>* uv, of_info* info, const char* what) {
    of_context* ctx = create_or_report(cfg, what);
    CHECK_MSG(ctx != nullptr, "%s: create", what);
    if (!ctx) return false;
    const FramePair fp = frames_of(p, OF_PIXEL_F32);
    FlowBuf f = make_flow(p.w, p.h);
    const of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &f.f);
    CHECK_MSG(s == OF_OK, "%s: process: %s (%s)", what, st(s), of_last_error(ctx));
    if (info) {
        std::memset(info, 0, sizeof *info);
        info->struct_size = sizeof *info;
        of_get_info(ctx, info);
    }
    of_destroy(ctx);
    if (s != OF_OK) return false;
    *uv = f.extract();
    CHECK_MSG(all_finite(*uv), "%s: non-finite flow", what);
    return true;
}

// Mean endpoint error, and the largest flow magnitude vs the largest true one.
struct Err {
    double epe, max_flow, max_gt;
};
Err err_of(const std::vector<float>& uv, const Pair& p) {
    Err e{0, 0, 0};
    const size_t n = static_cast<size_t>(p.w) * p.h;
    for (size_t i = 0; i < n; ++i) {
        const double u = uv[i], v = uv[n + i];
        e.epe += std::hypot(u - p.gu[i], v - p.gv[i]);
        e.max_flow = std::max(e.max_flow, std::hypot(u, v));
        e.max_gt = std::max(e.max_gt, std::hypot(static_cast<double>(p.gu[i]), static_cast<double>(p.gv[i])));
    }
    e.epe /= static_cast<double>(n);
    return e;
}

double max_diff(const std::vector<float>& a, const std::vector<float>& b) {
    double d = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) d = std::max(d, std::fabs(static_cast<double>(a[i]) - b[i]));
    return d;
}

struct Row {
    const char* name;
    Case c;
    oflow::synth::Exposure e;
};

const Row kRows[] = {
    {"translation", Case::Translation, {}},       {"rotation-zoom", Case::RotationZoom, {}},
    {"smooth-field", Case::SmoothField, {}},      {"occlusion", Case::Occlusion, {}},
    {"noise-gain", Case::NoiseGain, {}},          {"fine-texture", Case::FineTexture, {}},
    {"camera-motion", Case::CameraMotion, {}},    {"gain1.3+20", Case::SmoothField, {1.3, 20.0, 0.0}},
    {"gain0.7-15", Case::SmoothField, {0.7, -15.0, 0.0}},
};
const int kRowCount = sizeof kRows / sizeof kRows[0];

// Bounds on the mean EPE per row, per configuration (HS Jacobi, HS SOR, CLG Jacobi, CLG SOR):
// the measured value plus 30 % (x86-64, gcc 11, reference path, 2026-11-23, the defaults of then),
// kept under today's defaults (census + init dis, one solve) where they hold; fine-texture's
// bounds are today's measurement + 30 % (HS jacobi / sor 0.0727 / 0.0745, CLG 0.0581 / 0.0584:
// census's tolerance costs the fine texture's sub-pixel accuracy 0.015-0.03 px; every other row
// is better or within its bound, e.g. translation 0.0199 / 0.0235 / 0.0186 / 0.0206):
//   case           HS jac  HS sor  CLG jac CLG sor  (TV-L1 at the same schedule)
//   translation    0.0534  0.0500  0.0464  0.0476   0.0171
//   rotation-zoom  0.1043  0.0915  0.0839  0.0777   0.1182
//   smooth-field   0.0530  0.0480  0.0419  0.0417   0.0875
//   occlusion      0.2344  0.2377  0.2293  0.2303   0.4123
//   noise-gain     0.0584  0.0630  0.0498  0.0547   0.0153
//   fine-texture   0.0526  0.0463  0.0443  0.0415   0.0755
//   camera-motion  0.0561  0.0503  0.0489  0.0489   0.0579
//   gain1.3+20     0.0650  0.0629  0.0494  0.0501   0.1025
//   gain0.7-15     0.0747  0.0766  0.0518  0.0545   0.0983
const double kBound[4][kRowCount] = {
    {0.070, 0.136, 0.069, 0.305, 0.076, 0.095, 0.073, 0.085, 0.098},
    {0.065, 0.119, 0.063, 0.310, 0.082, 0.097, 0.066, 0.082, 0.100},
    {0.061, 0.110, 0.055, 0.299, 0.065, 0.076, 0.064, 0.065, 0.068},
    {0.062, 0.102, 0.055, 0.300, 0.072, 0.076, 0.064, 0.066, 0.071},
};

void test_epe_table() {
    struct Conf {
        const char* name;
        of_algorithm a;
        of_solver s;
    };
    const Conf confs[4] = {{"HS jacobi", OF_ALGO_HS, OF_SOLVER_JACOBI},
                           {"HS sor", OF_ALGO_HS, OF_SOLVER_RED_BLACK_SOR},
                           {"CLG jacobi", OF_ALGO_CLG, OF_SOLVER_JACOBI},
                           {"CLG sor", OF_ALGO_CLG, OF_SOLVER_RED_BLACK_SOR}};
    std::printf("EPE, %ux%u F32, levels auto, warps 3, iterations <= 150, epsilon 0.002, defaults otherwise\n", kW, kH);
    std::printf("%-14s", "case");
    for (const Conf& c : confs) std::printf(" %11s %6s", c.name, "iters");
    std::printf(" %8s %8s\n", "TV-L1", "EPE 0");
    for (int r = 0; r < kRowCount; ++r) {
        const Row& row = kRows[r];
        const Pair p = synth_pair_exposed(row.c, oflow::synth::Texture::Default, row.e, kW, kH, 1);
        std::printf("%-14s", row.name);
        for (int k = 0; k < 4; ++k) {
            char what[96];
            std::snprintf(what, sizeof what, "%s %s", confs[k].name, row.name);
            std::vector<float> uv;
            of_info info;
            if (!run(hs_cfg(confs[k].a, confs[k].s), p, &uv, &info, what)) {
                std::printf(" %11s %6s", "FAIL", "-");
                continue;
            }
            const Err e = err_of(uv, p);
            std::printf(" %11.4f %6llu", e.epe, static_cast<unsigned long long>(info.last_iterations));
            CHECK_MSG(e.epe <= kBound[k][r], "%s: EPE %.4f > bound %.3f", what, e.epe, kBound[k][r]);
            CHECK_MSG(e.max_flow <= e.max_gt + 2.0, "%s: max |flow| %.2f > max true %.2f + 2", what, e.max_flow, e.max_gt);
            CHECK_MSG(info.algorithm == confs[k].a && info.last_iterations > 0, "%s: info algorithm %d, %llu iterations",
                      what, static_cast<int>(info.algorithm), static_cast<unsigned long long>(info.last_iterations));
        }
        of_config t = tvl1_config(kW, kH);
        t.format = OF_PIXEL_F32;
        t.backend = OF_BACKEND_REFERENCE;
        t.warps = 3;
        t.iterations = 150;
        t.epsilon = 0.002f;
        std::vector<float> uv;
        const double tv = run(t, p, &uv, nullptr, "tvl1") ? err_of(uv, p).epe : -1.0;
        std::printf(" %8.4f %8.4f\n", tv, err_of(std::vector<float>(2 * static_cast<size_t>(kW) * kH, 0.0f), p).epe);
    }
}

// Jacobi and SOR at convergence on one level; CLG rho = 0 against HS.
void test_fixed_point() {
    const Pair p = synth_pair(Case::SmoothField, 48, 36, 3);
    std::vector<float> fl[2][2]; // [algo HS, CLG rho 0][solver]
    const of_algorithm algos[2] = {OF_ALGO_HS, OF_ALGO_CLG};
    const of_solver solvers[2] = {OF_SOLVER_JACOBI, OF_SOLVER_RED_BLACK_SOR};
    for (int a = 0; a < 2; ++a)
        for (int s = 0; s < 2; ++s) {
            of_config c = hs_cfg(algos[a], solvers[s], 48, 36);
            c.levels = 1;
            c.warps = 1;
            c.epsilon = 0.0f;
            c.iterations = s == 0 ? 6000 : 2000;
            c.median_size = 0;
            c.hs.rho = 0.0f;
            c.hs.alpha = 8.0f;
            c.hs.omega = 1.5f;
            char what[64];
            std::snprintf(what, sizeof what, "fixed point %s %s", a ? "CLG" : "HS", s ? "sor" : "jacobi");
            run(c, p, &fl[a][s], nullptr, what);
        }
    const double js = max_diff(fl[0][0], fl[0][1]), cj = max_diff(fl[0][0], fl[1][0]), cs = max_diff(fl[0][1], fl[1][1]);
    std::printf("\none level, 48x36, alpha 8: |HS jacobi - HS sor| %.2e, |HS - CLG rho 0| jacobi %.2e, sor %.2e px\n", js,
                cj, cs);
    CHECK_MSG(js <= 1e-3, "Jacobi and SOR at convergence differ by %.3g px (> 1e-3)", js);
    CHECK_MSG(cj <= 1e-3 && cs <= 1e-3, "CLG rho 0 differs from HS by %.3g (Jacobi), %.3g (SOR) px (> 1e-3)", cj, cs);
}

void test_threads() {
    const Pair p = synth_pair(Case::RotationZoom, 80, 60, 2);
    const of_algorithm algos[2] = {OF_ALGO_HS, OF_ALGO_CLG};
    const of_solver solvers[2] = {OF_SOLVER_JACOBI, OF_SOLVER_RED_BLACK_SOR};
    for (of_algorithm a : algos)
        for (of_solver s : solvers) {
            std::vector<float> one, three;
            of_config c = hs_cfg(a, s, 80, 60);
            c.iterations = 40;
            c.epsilon = 0.0f;
            run(c, p, &one, nullptr, "threads 1");
            c.threads = 3;
            run(c, p, &three, nullptr, "threads 3");
            char what[64];
            std::snprintf(what, sizeof what, "%s %s: 1 vs 3 threads", a == OF_ALGO_HS ? "HS" : "CLG",
                          s == OF_SOLVER_JACOBI ? "jacobi" : "sor");
            CHECK_MSG(same_bits(one, three, what), "%s: flows differ", what);
        }
}

// The flow must not depend on what the arena held before: every plane a solver reads is written
// first. A caller arena filled with zeros and one filled with 0xFF bytes (NaN), at odd and even
// sizes whose pyramids have odd level widths (the SOR split layout's last black slot of an odd
// row lies outside the full plane's width: it was read before being zeroed, 2026-11-24).
void test_arena_contents() {
    const uint32_t sizes[][2] = {{97, 61}, {98, 61}};
    for (const auto& sz : sizes) {
        const Pair p = synth_pair(Case::SmoothField, sz[0], sz[1], 4);
        for (of_algorithm a : {OF_ALGO_HS, OF_ALGO_CLG})
            for (of_solver sv : {OF_SOLVER_JACOBI, OF_SOLVER_RED_BLACK_SOR}) {
                of_config c = hs_cfg(a, sv, sz[0], sz[1]);
                c.iterations = 20;
                c.epsilon = 0.0f;
                c.threads = 1;
                oftest::CallerArena arena(&c);
                std::vector<float> flow[2];
                for (int fill = 0; fill < 2; ++fill) {
                    arena.fill(fill ? 0xFF : 0x00);
                    char what[96];
                    std::snprintf(what, sizeof what, "%s %s %ux%u arena of 0x%s", a == OF_ALGO_HS ? "HS" : "CLG",
                                  sv == OF_SOLVER_JACOBI ? "jacobi" : "sor", sz[0], sz[1], fill ? "FF" : "00");
                    run(c, p, &flow[fill], nullptr, what);
                }
                char what[96];
                std::snprintf(what, sizeof what, "%s %s %ux%u: zeroed vs NaN-filled arena", a == OF_ALGO_HS ? "HS" : "CLG",
                              sv == OF_SOLVER_JACOBI ? "jacobi" : "sor", sz[0], sz[1]);
                CHECK_MSG(same_bits(flow[0], flow[1], what), "%s: flows differ", what);
            }
    }
}

void test_refusals() {
    struct Bad {
        const char* what;
        of_algorithm a;
        void (*set)(of_config*);
        of_status want;
        const char* field;
    };
    const Bad bad[] = {
        {"alpha 0", OF_ALGO_HS, [](of_config* c) { c->hs.alpha = 0.0f; }, OF_ERR_INVALID_ARGUMENT, "hs.alpha"},
        {"alpha NaN", OF_ALGO_CLG, [](of_config* c) { c->hs.alpha = std::nanf(""); }, OF_ERR_INVALID_ARGUMENT, "hs.alpha"},
        {"alpha 1e4", OF_ALGO_HS, [](of_config* c) { c->hs.alpha = 1e4f; }, OF_ERR_INVALID_ARGUMENT, "hs.alpha"},
        {"HS with rho", OF_ALGO_HS, [](of_config* c) { c->hs.rho = 1.0f; }, OF_ERR_INVALID_ARGUMENT, "hs.rho"},
        {"CLG rho -1", OF_ALGO_CLG, [](of_config* c) { c->hs.rho = -1.0f; }, OF_ERR_INVALID_ARGUMENT, "hs.rho"},
        {"CLG rho 11", OF_ALGO_CLG, [](of_config* c) { c->hs.rho = 11.0f; }, OF_ERR_INVALID_ARGUMENT, "hs.rho"},
        {"solver 7", OF_ALGO_HS, [](of_config* c) { set_raw(c->hs.solver, 7); }, OF_ERR_INVALID_ARGUMENT, "hs.solver"},
        {"omega 2", OF_ALGO_HS, [](of_config* c) { c->hs.omega = 2.0f; }, OF_ERR_INVALID_ARGUMENT, "hs.omega"},
        {"omega 0", OF_ALGO_CLG, [](of_config* c) { c->hs.omega = 0.0f; }, OF_ERR_INVALID_ARGUMENT, "hs.omega"},
    };
    for (const Bad& b : bad) {
        of_config c = hs_cfg(b.a, OF_SOLVER_JACOBI);
        b.set(&c);
        of_context* ctx = nullptr;
        const of_status s = of_create(&c, &ctx);
        CHECK_MSG(s == b.want && ctx == nullptr, "%s: got %s, want %s", b.what, st(s), st(b.want));
        CHECK_MSG(std::strstr(of_last_error(nullptr), b.field) != nullptr, "%s: message '%s' does not name %s", b.what,
                  of_last_error(nullptr), b.field);
        of_destroy(ctx);
    }
    // Backend CUDA: HS and CLG answer as TV-L1 does on this machine (OF_OK with a GPU and a CUDA
    // build, else OF_ERR_BACKEND_UNAVAILABLE naming why); AUTO runs wherever TV-L1's AUTO would.
    if (!backend_forced()) {
        for (of_algorithm a : {OF_ALGO_HS, OF_ALGO_CLG}) {
            of_config tv = oftest::tvl1_config(160, 120), hs = hs_cfg(a, OF_SOLVER_RED_BLACK_SOR);
            tv.backend = hs.backend = OF_BACKEND_CUDA;
            of_context *t = nullptr, *h = nullptr;
            const of_status st_tv = of_create(&tv, &t), st_hs = of_create(&hs, &h);
            CHECK_MSG(st_hs == st_tv, "algorithm %d backend CUDA: %s, TV-L1 %s (%s)", a, st(st_hs), st(st_tv),
                      of_last_error(nullptr));
            CHECK(st_hs == OF_OK || st_hs == OF_ERR_BACKEND_UNAVAILABLE);
            if (h) {
                of_info info;
                info.struct_size = sizeof info;
                CHECK(of_get_info(h, &info) == OF_OK && info.backend == OF_BACKEND_CUDA);
            }
            of_destroy(t);
            of_destroy(h);
        }
    }
    of_config c = hs_cfg(OF_ALGO_CLG, OF_SOLVER_JACOBI);
    c.backend = OF_BACKEND_AUTO;
    of_context* ctx = nullptr;
    const of_status s = of_create(&c, &ctx);
    CHECK_MSG(s == OF_OK, "CLG backend AUTO: %s (%s)", st(s), of_last_error(nullptr));
    of_destroy(ctx);
}

} // namespace

int main() {
    test_refusals();
    test_fixed_point();
    test_threads();
    test_arena_contents();
    test_epe_table();
    return oftest::finish("hs_flow");
}
