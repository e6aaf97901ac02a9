// dis_flow: Dense Inverse Search end to end through the C API, on the CPU path the suite runs
// (reference, or NEON under OFLOW_FORCE_BACKEND=neon), against the known flow of core/synth.hpp.
//
//  - EPE table: the seven synthetic cases (translation, rotation-zoom, smooth field, occlusion,
//    a gain + offset + noise exposure change, fine texture, camera motion) at 128x96 with DIS's
//    defaults (MEDIUM, robust LEVEL_NORM), and three of them under ULTRAFAST and FAST; bounds
//    are the measured values plus about 30 % (reference path), and no runaway (max |flow| <= max
//    |true flow| + 2 px). The large-motion x exposure cells are robust_matrix --algo dis's.
//  - of_dis_preset: each preset's values (OpenCV's), only cfg->dis changes, refusals (NULL,
//    struct_size, unknown preset) with a message;
//  - of_config_init(OF_ALGO_DIS): MEDIUM, warps 1, no median, LEVEL_NORM, no texture rule;
//  - of_info: the steps per patch, and 0 steps on the levels finer than finest_level;
//  - the validity output: confidence in [0, 1], the mask exactly confidence >= min_confidence,
//    and the flow the same with or without it;
//  - 1 vs 3 threads bit-identical; a caller arena of zeros and one of 0xFF bytes bit-identical
//    at odd sizes (every plane read is written first);
//  - a flat pair: zero flow, finite; a frame smaller than a patch runs;
//  - bad parameters refused with a message naming the field; backend CUDA gets what TV-L1 gets
//    on this machine where DIS has a CUDA path, OF_ERR_UNSUPPORTED where it has none.
// Under OFLOW_FORCE_BACKEND=cuda it skips (77): DIS's CUDA path has its own test (tests/gpu).
#include "test_util.hpp"

#include "core/algorithm.hpp"
#include "core/dis_kernels.hpp" // kDisMaxIterations

#include <algorithm>
#include <cmath>
#include <limits>

// raw_calls.c: calls with out-of-range enum arguments, made from C.
extern "C" of_status oftest_dis_preset_raw(of_config* cfg, int preset);

using namespace oftest;
using oflow::synth::Case;

namespace {

const uint32_t kW = 128, kH = 96;

of_config dis_cfg(uint32_t w = kW, uint32_t h = kH) {
    of_config c;
    of_config_init(&c, OF_ALGO_DIS);
    c.max_width = w;
    c.max_height = h;
    c.format = OF_PIXEL_F32;
    c.backend = OF_BACKEND_REFERENCE;
    return c;
}

struct Out {
    std::vector<float> uv;           // u plane then v plane
    std::vector<unsigned char> mask; // 255 valid
    std::vector<float> conf;         // with want_conf
    of_info info;
};

bool run(const of_config& cfg, const Pair& p, Out* o, const char* what, bool want_conf = false) {
    of_context* ctx = create_or_report(cfg, what);
    CHECK_MSG(ctx != nullptr, "%s: create", what);
    if (!ctx) return false;
    const FramePair fp = frames_of(p, OF_PIXEL_F32);
    FlowBuf f = make_flow(p.w, p.h);
    const size_t n = static_cast<size_t>(p.w) * p.h;
    o->mask.assign(n, 7);
    f.f.valid_format = OF_VALID_MASK_U8;
    f.f.valid = o->mask.data();
    f.f.valid_stride = p.w;
    of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &f.f);
    CHECK_MSG(s == OF_OK, "%s: process: %s (%s)", what, st(s), of_last_error(ctx));
    if (s == OF_OK) o->uv = f.extract();
    if (s == OF_OK && want_conf) {
        FlowBuf g = make_flow(p.w, p.h);
        o->conf.assign(n, -1.0f);
        g.f.valid_format = OF_VALID_CONFIDENCE_F32;
        g.f.valid = o->conf.data();
        g.f.valid_stride = p.w * sizeof(float);
        s = of_process(ctx, &fp.prev.img, &fp.next.img, &g.f);
        CHECK_MSG(s == OF_OK, "%s: process (confidence): %s (%s)", what, st(s), of_last_error(ctx));
        CHECK(s != OF_OK || same_bits(g.extract(), o->uv, "flow with the confidence plane vs with the mask"));
    }
    std::memset(&o->info, 0, sizeof o->info);
    o->info.struct_size = sizeof o->info;
    of_get_info(ctx, &o->info);
    of_destroy(ctx);
    if (s != OF_OK) return false;
    CHECK_MSG(all_finite(o->uv), "%s: non-finite flow", what);
    return true;
}

struct Err {
    double all, max_flow, max_gt;
};
Err err_of(const Out& o, const Pair& p) {
    Err e{0, 0, 0};
    const size_t n = static_cast<size_t>(p.w) * p.h;
    for (size_t i = 0; i < n; ++i) {
        const double u = o.uv[i], v = o.uv[n + i];
        e.all += std::hypot(u - p.gu[i], v - p.gv[i]);
        e.max_flow = std::max(e.max_flow, std::hypot(u, v));
        e.max_gt = std::max(e.max_gt, std::hypot(static_cast<double>(p.gu[i]), static_cast<double>(p.gv[i])));
    }
    e.all /= static_cast<double>(n);
    return e;
}

// Bounds on the mean EPE over all pixels, 128x96, seed 1, F32 frames: measured + about 30 %
// (x86-64, gcc 12, reference path, 2026-11-27).
struct Row {
    Case c;
    of_dis_preset_id preset;
    double bound;
};
//   case / preset          EPE      (measured)
//   translation/medium     0.0757
//   rotation-zoom/medium   0.1319
//   smooth-field/medium    0.0885
//   occlusion/medium       0.2594
//   noise-gain/medium      0.0600
//   fine-texture/medium    0.1172
//   camera-motion/medium   0.0766
//   rotation-zoom/fast     0.3599   (finest level 2: the flow is upsampled x4)
//   noise-gain/fast        0.1326
//   camera-motion/fast     0.1774
//   rotation-zoom/ultrafast 0.4643
//   noise-gain/ultrafast   0.0958
//   camera-motion/ultrafast 0.1992
const Row kRows[] = {
    {Case::Translation, OF_DIS_MEDIUM, 0.098},     {Case::RotationZoom, OF_DIS_MEDIUM, 0.171},
    {Case::SmoothField, OF_DIS_MEDIUM, 0.115},     {Case::Occlusion, OF_DIS_MEDIUM, 0.337},
    {Case::NoiseGain, OF_DIS_MEDIUM, 0.078},       {Case::FineTexture, OF_DIS_MEDIUM, 0.152},
    {Case::CameraMotion, OF_DIS_MEDIUM, 0.100},    {Case::RotationZoom, OF_DIS_FAST, 0.468},
    {Case::NoiseGain, OF_DIS_FAST, 0.172},         {Case::CameraMotion, OF_DIS_FAST, 0.231},
    {Case::RotationZoom, OF_DIS_ULTRAFAST, 0.604}, {Case::NoiseGain, OF_DIS_ULTRAFAST, 0.125},
    {Case::CameraMotion, OF_DIS_ULTRAFAST, 0.259},
};
const char* preset_name(of_dis_preset_id p) {
    return p == OF_DIS_ULTRAFAST ? "ultrafast" : p == OF_DIS_FAST ? "fast" : "medium";
}

void test_epe_table() {
    std::printf("DIS, %ux%u F32, defaults but the preset: EPE, steps\n", kW, kH);
    for (const Row& r : kRows) {
        const Pair p = synth_pair(r.c, kW, kH, 1);
        char name[64];
        std::snprintf(name, sizeof name, "%s/%s", oflow::synth::case_name(r.c), preset_name(r.preset));
        of_config c = dis_cfg();
        CHECK(of_dis_preset(&c, r.preset) == OF_OK);
        Out o;
        if (!run(c, p, &o, name)) continue;
        const Err e = err_of(o, p);
        std::printf("%-26s %.4f  (bound %.3f)  %llu steps\n", name, e.all, r.bound,
                    static_cast<unsigned long long>(o.info.last_iterations));
        CHECK_MSG(e.all <= r.bound, "%s: EPE %.4f > bound %.3f", name, e.all, r.bound);
        CHECK_MSG(e.max_flow <= e.max_gt + 2.0, "%s: max |flow| %.2f > max true %.2f + 2", name, e.max_flow, e.max_gt);
        CHECK_MSG(o.info.algorithm == OF_ALGO_DIS && o.info.warps == 1 && o.info.iterations == c.dis.iterations,
                  "%s: info algorithm %d, warps %u, iterations %u", name, static_cast<int>(o.info.algorithm), o.info.warps,
                  o.info.iterations);
    }
}

// ---- the presets and the defaults ----------------------------------------------------------
void test_presets() {
    struct Want {
        of_dis_preset_id id;
        uint32_t finest, patch, stride, iterations, refine;
    };
    const Want want[] = {{OF_DIS_ULTRAFAST, 2, 8, 4, 12, 0}, {OF_DIS_FAST, 2, 8, 4, 16, 5}, {OF_DIS_MEDIUM, 1, 8, 3, 25, 5}};
    for (const Want& w : want) {
        of_config c = dis_cfg();
        std::memset(&c.dis, 0x5A, sizeof c.dis);
        of_config before = c;
        CHECK(of_dis_preset(&c, w.id) == OF_OK);
        CHECK_MSG(c.dis.finest_level == w.finest && c.dis.patch_size == w.patch && c.dis.patch_stride == w.stride &&
                      c.dis.iterations == w.iterations && c.dis.refine_iterations == w.refine &&
                      c.dis.refine_alpha == 300.0f && c.dis.refine_delta == 5.0f && c.dis.refine_gamma == 10.0f,
                  "preset %s: %u %u %u %u %u", preset_name(w.id), c.dis.finest_level, c.dis.patch_size, c.dis.patch_stride,
                  c.dis.iterations, c.dis.refine_iterations);
        // Nothing but cfg->dis changes.
        before.dis = c.dis;
        CHECK_MSG(std::memcmp(&before, &c, sizeof c) == 0, "preset %s changed a field outside dis", preset_name(w.id));
    }
    CHECK(of_dis_preset(nullptr, OF_DIS_MEDIUM) == OF_ERR_NULL_POINTER && std::strlen(of_last_error(nullptr)) > 0);
    of_config c = dis_cfg();
    c.struct_size = 12;
    CHECK(of_dis_preset(&c, OF_DIS_MEDIUM) == OF_ERR_STRUCT_SIZE);
    c = dis_cfg();
    const of_config keep = c;
    for (int bad : {3, -1, 0x7fffffff}) { // passed from C (tests/raw_calls.c): legal there, not in C++
        CHECK_MSG(oftest_dis_preset_raw(&c, bad) == OF_ERR_INVALID_ARGUMENT && std::strstr(of_last_error(nullptr), "preset"),
                  "preset %d: '%s'", bad, of_last_error(nullptr));
        CHECK(std::memcmp(&keep, &c, sizeof c) == 0);
    }
    // of_config_init: MEDIUM, warps 1, no median, LEVEL_NORM, no texture rule.
    of_config d;
    CHECK(of_config_init(&d, OF_ALGO_DIS) == OF_OK);
    of_config m = d;
    CHECK(of_dis_preset(&m, OF_DIS_MEDIUM) == OF_OK && std::memcmp(&m, &d, sizeof d) == 0);
    CHECK(d.warps == 1 && d.median_size == 0 && d.robust == OF_ROBUST_LEVEL_NORM && d.min_texture == 0.0f);
}

// of_info: the steps per patch on the levels DIS solves, 0 on the finer ones.
void test_info_levels() {
    of_config c = dis_cfg(320, 240);
    CHECK(of_dis_preset(&c, OF_DIS_FAST) == OF_OK); // finest level 2
    of_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    CHECK(of_explain(&c, &info) == OF_OK);
    CHECK(info.iterations == 16 && info.levels >= 3);
    for (uint32_t l = 0; l < info.levels; ++l)
        CHECK_MSG(info.level_iterations[l] == (l >= 2 ? 16u : 0u), "level %u: %u steps", l, info.level_iterations[l]);
}

// ---- validity, determinism, small and flat frames -----------------------------------------------
void test_validity() {
    const Pair p = synth_pair(Case::Occlusion, kW, kH, 1);
    Out o;
    if (!run(dis_cfg(), p, &o, "occlusion, confidence", true)) return;
    bool range = true, mask = true;
    for (size_t i = 0; i < o.conf.size(); ++i) {
        range = range && o.conf[i] >= 0.0f && o.conf[i] <= 1.0f;
        mask = mask && (o.mask[i] == 255) == (o.conf[i] >= 0.5f);
    }
    CHECK_MSG(range && mask, "confidence in [0, 1]: %d, mask = confidence >= 0.5: %d", range, mask);
}

void test_threads() {
    const Pair p = synth_pair(Case::RotationZoom, 97, 61, 1);
    Out one, three;
    of_config c = dis_cfg(97, 61);
    run(c, p, &one, "threads 1");
    c.threads = 3;
    run(c, p, &three, "threads 3");
    CHECK_MSG(same_bits(one.uv, three.uv, "DIS 1 vs 3 threads") && one.mask == three.mask, "1 vs 3 threads differ");
}

void test_arena_contents() {
    const uint32_t sizes[][2] = {{97, 61}, {98, 61}};
    for (const auto& sz : sizes) {
        const Pair p = synth_pair(Case::SmoothField, sz[0], sz[1], 1);
        of_config c = dis_cfg(sz[0], sz[1]);
        oftest::CallerArena arena(&c);
        Out o[2];
        for (int fill = 0; fill < 2; ++fill) {
            arena.fill(fill ? 0xFF : 0x00);
            run(c, p, &o[fill], fill ? "arena 0xFF" : "arena 0x00");
        }
        char what[96];
        std::snprintf(what, sizeof what, "DIS %ux%u: zeroed vs NaN-filled arena", sz[0], sz[1]);
        CHECK_MSG(same_bits(o[0].uv, o[1].uv, what) && o[0].mask == o[1].mask, "%s: flows or masks differ", what);
    }
}

void test_small_and_flat() {
    // Frames smaller than a patch (the patch shrinks to the level), and a 1-px-high one.
    const uint32_t sizes[][2] = {{6, 5}, {33, 1}, {1, 1}};
    for (const auto& sz : sizes) {
        const Pair p = synth_pair(Case::Translation, sz[0], sz[1], 1);
        Out o;
        char what[48];
        std::snprintf(what, sizeof what, "%ux%u", sz[0], sz[1]);
        run(dis_cfg(sz[0], sz[1]), p, &o, what);
    }
    Pair flat = synth_pair(Case::Translation, 64, 48, 1);
    std::fill(flat.i0.begin(), flat.i0.end(), 90.0f);
    std::fill(flat.i1.begin(), flat.i1.end(), 90.0f);
    Out o;
    if (run(dis_cfg(64, 48), flat, &o, "flat pair"))
        CHECK_MSG(*std::max_element(o.uv.begin(), o.uv.end()) == 0.0f && *std::min_element(o.uv.begin(), o.uv.end()) == 0.0f,
                  "flat pair: nonzero flow");
}

// ---- refusals ------------------------------------------------------------------------------
void expect_refused(const of_config& c, of_status want, const char* needle, const char* what) {
    of_context* ctx = nullptr;
    const of_status s = of_create(&c, &ctx);
    CHECK_MSG(s == want && ctx == nullptr, "%s: got %s, want %s", what, st(s), st(want));
    CHECK_MSG(std::strstr(of_last_error(nullptr), needle) != nullptr, "%s: message '%s' lacks '%s'", what,
              of_last_error(nullptr), needle);
    if (ctx) of_destroy(ctx);
}

void test_refusals() {
    struct Bad {
        const char* field;
        void (*set)(of_config*);
    };
    const float nan = std::numeric_limits<float>::quiet_NaN();
    (void)nan;
    const Bad bad[] = {
        {"warps", [](of_config* c) { c->warps = 2; }},
        {"dis.patch_size", [](of_config* c) { c->dis.patch_size = 3; }},
        {"dis.patch_size", [](of_config* c) { c->dis.patch_size = 33; }},
        {"dis.patch_stride", [](of_config* c) { c->dis.patch_stride = 0; }},
        {"dis.patch_stride", [](of_config* c) { c->dis.patch_stride = 9; }},
        {"dis.iterations", [](of_config* c) { c->dis.iterations = 0; }},
        {"dis.iterations", [](of_config* c) { c->dis.iterations = 1001; }},
        {"dis.finest_level", [](of_config* c) { c->dis.finest_level = 16; }},
        {"dis.refine_iterations", [](of_config* c) { c->dis.refine_iterations = 101; }},
        {"dis.refine_alpha", [](of_config* c) { c->dis.refine_alpha = 0.0f; }},
        {"dis.refine_alpha", [](of_config* c) { c->dis.refine_alpha = std::numeric_limits<float>::quiet_NaN(); }},
        {"dis.refine_delta", [](of_config* c) { c->dis.refine_delta = -1.0f; }},
        {"dis.refine_gamma", [](of_config* c) { c->dis.refine_gamma = std::numeric_limits<float>::infinity(); }},
    };
    for (const Bad& b : bad) {
        of_config c = dis_cfg();
        b.set(&c);
        expect_refused(c, OF_ERR_INVALID_ARGUMENT, b.field, b.field);
    }
    const oflow::Algorithm* dis = oflow::find_algorithm(OF_ALGO_DIS);
    if (!backend_forced() && dis && !dis->gpu_path) {
        of_config c = dis_cfg();
        c.backend = OF_BACKEND_CUDA;
        expect_refused(c, OF_ERR_UNSUPPORTED, "dis has no CUDA path", "backend CUDA");
    } else if (!backend_forced()) { // a CUDA path: what TV-L1 gets on this machine
        of_config c = dis_cfg();
        c.backend = OF_BACKEND_CUDA;
        of_config t = tvl1_config(kW, kH);
        t.backend = OF_BACKEND_CUDA;
        of_memory m1, m2;
        std::memset(&m1, 0, sizeof m1);
        m1.struct_size = sizeof m1;
        m2 = m1;
        const of_status sd = of_query_memory(&c, &m1), st_tvl1 = of_query_memory(&t, &m2);
        CHECK_MSG(sd == st_tvl1, "DIS backend CUDA: query %s, TV-L1's %s", st(sd), st(st_tvl1));
    }
}

// ---- the time model and the time budget (the board tables' DIS rows) -------------------------
of_info explain(const of_config& c, of_status* s) {
    of_info in;
    std::memset(&in, 0, sizeof in);
    in.struct_size = sizeof in;
    *s = of_explain(&c, &in);
    return in;
}

void test_budget() {
    // Every built-in table models DIS: a predicted time, the steps on the levels it solves only.
    for (const char* board : {"generic", "nano", "tx2", "xavier", "orin"}) {
        of_config c = dis_cfg(640, 480);
        c.platform = board;
        c.backend = OF_BACKEND_AUTO; // the board's GPU assumed (a named table)
        c.levels = 8;                // 640x480 .. 5x4: the coarsest (20 px) below every table's crossover
        of_status s;
        const of_info in = explain(c, &s);
        bool levels_ok = in.levels > c.dis.finest_level;
        for (uint32_t l = 0; l < in.levels; ++l)
            levels_ok = levels_ok && in.level_iterations[l] == (l >= c.dis.finest_level ? c.dis.iterations : 0u);
        std::printf("DIS 640x480 MEDIUM 8 levels, table %-7s: predicted %.3f ms, level 0 wanted on %d, level %u on %d\n", board,
                    in.predicted_ms, static_cast<int>(in.level_wanted[0]), in.levels - 1,
                    static_cast<int>(in.level_wanted[in.levels ? in.levels - 1 : 0]));
        CHECK_MSG(s == OF_OK && in.predicted_ms > 0.0 && levels_ok, "%s: explain %s, predicted %.3f ms, levels ok %d",
                  board, st(s), in.predicted_ms, levels_ok ? 1 : 0);
        // The boards split per level: level 0 wanted on the GPU, the coarsest on the CPU.
        CHECK_MSG(in.level_wanted[0] == OF_BACKEND_CUDA && in.level_wanted[in.levels - 1] != OF_BACKEND_CUDA,
                  "%s: level 0 wanted on %d, level %u on %d", board, static_cast<int>(in.level_wanted[0]), in.levels - 1,
                  static_cast<int>(in.level_wanted[in.levels - 1]));
    }
    // A budget buys steps per patch (dis.iterations): within the budget, more for more, the
    // bound at most, and a budget below the frame's fixed cost is refused. The budgets are
    // multiples of the default frame's predicted time on the path that runs here (AUTO with the
    // xavier GPU assumed, or the path OFLOW_FORCE_BACKEND forces), whose fixed part is below it.
    of_config c = dis_cfg(640, 480);
    c.platform = "xavier";
    c.backend = OF_BACKEND_AUTO;
    of_status s0;
    const double base = explain(c, &s0).predicted_ms;
    CHECK_MSG(s0 == OF_OK && base > 0.0, "xavier 640x480: explain %s, predicted %.3f ms", st(s0), base);
    uint32_t last = 0;
    for (double m : {1.0, 2.0, 4.0}) {
        const float b = static_cast<float>(base * m);
        c.time_budget_ms = b;
        of_status s;
        const of_info in = explain(c, &s);
        std::printf("DIS 640x480, xavier, budget %4.1f ms: %u steps, predicted %.3f ms\n", static_cast<double>(b),
                    in.iterations, in.predicted_ms);
        CHECK_MSG(s == OF_OK && in.warps == 1 && in.iterations >= 1 && in.iterations >= last &&
                      in.predicted_ms <= static_cast<double>(b) + 1e-6 &&
                      in.level_iterations[c.dis.finest_level] == in.iterations && in.level_iterations[0] == 0,
                  "budget %g: %s, %u steps (previous %u), warps %u, predicted %.3f ms", static_cast<double>(b), st(s),
                  in.iterations, last, in.warps, in.predicted_ms);
        last = in.iterations;
    }
    c.time_budget_ms = 1e9f;
    of_status s;
    of_info in = explain(c, &s);
    CHECK_MSG(s == OF_OK && in.iterations == oflow::kDisMaxIterations, "budget 1e9: %s, %u steps", st(s), in.iterations);
    c.time_budget_ms = 0.001f;
    in = explain(c, &s);
    CHECK_MSG(s == OF_ERR_INVALID_ARGUMENT, "budget 0.001 ms: %s (expected INVALID_ARGUMENT)", st(s));
    // A frame under a budget runs the steps the budget bought (the reference path, generic table).
    const Pair p = synth_pair(oflow::synth::Case::SmoothField, kW, kH, 3);
    of_config r = dis_cfg();
    r.platform = "generic";
    r.time_budget_ms = 50.0f;
    Out o;
    if (run(r, p, &o, "budget 50 ms")) {
        uint32_t solved = 0;
        for (uint32_t l = 0; l < o.info.levels; ++l) solved += o.info.level_iterations[l] ? 1u : 0u;
        std::printf("DIS %ux%u, generic, budget 50 ms, reference path: %u steps, %llu run (%u levels solved)\n", kW, kH,
                    o.info.iterations, static_cast<unsigned long long>(o.info.last_iterations), solved);
        CHECK_MSG(o.info.iterations >= 1 &&
                      o.info.last_iterations == static_cast<uint64_t>(o.info.iterations) * static_cast<uint64_t>(solved),
                  "budget frame: %u steps, %llu run, %u levels solved", o.info.iterations,
                  static_cast<unsigned long long>(o.info.last_iterations), solved);
    }
}

} // namespace

int main() {
    if (expected_backend(OF_BACKEND_REFERENCE) == OF_BACKEND_CUDA) {
        std::printf("dis_flow: skipped: OFLOW_FORCE_BACKEND=cuda (its checks are the CPU path's; DIS's CUDA path: "
                    "tests/gpu)\n");
        return 77;
    }
    test_epe_table();
    test_presets();
    test_info_levels();
    test_validity();
    test_threads();
    test_arena_contents();
    test_small_and_flat();
    test_refusals();
    test_budget();
    return oftest::finish("dis_flow");
}
