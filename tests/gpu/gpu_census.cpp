// gpu_census: OF_ROBUST_CENSUS on the CUDA path (cuda/census_cuda.cu, cuda/census_stats_cuda.cu,
// the census calc_u of cuda/tvl1_global_cuda.cu) against the reference path. 77 without a device.
//  - kernels (test hooks, cuda/cuda_bench.hpp Stage::CensusTvl1 / CensusTensor) at level 0 of a
//    97x61 pair under a gain, offset and noise, at a flow that pushes part of the frame outside:
//    the device's rms0 (within 1e-9 relative) and eta (1e-5 relative) against texture_energy_ref
//    and census_noise_sum_ref + census_noise_sigma + census_eta on the host; the warp's I1w and
//    gradient bit for bit tvl1_warp_ref's (HS: warp_image_ref's); TV-L1's channels (ax, ay,
//    |a|^2, rho_c, q, rho_c2) and HS's / CLG's tensor (j11 .. j23) against census_tvl1_ref /
//    census_tensor_ref on those inputs with the device's eta: each value within 1e-5 of its
//    plane's largest magnitude (the kernels perform the reference's IEEE operations in its
//    order, so the expected difference is 0; the count of differing values is printed);
//  - LK's census steps (Stage::LkCensus, cuda/lk_census_cuda.cuh) on the same inputs against
//    core/lk_census_cpu.cpp's sequence run here on the reference kernels (warp_image_ref,
//    gradient_ref, census_tensor_ref, lk_census_products_ref, the box sums, lk_confidence_ref,
//    lk_update_ref) with the device's eta: after one step and after the level's 10 steps, the
//    state bit for bit, the steps run equal, the flow, the confidence, the last step's window
//    sums (X, Y) and I1w within 1e-5 of each plane's largest magnitude (expected bit for bit);
//  - frames through the ABI: TV-L1, HS, CLG and LK on two matrix cells with a photometric change
//    (core/synth_matrix.hpp: translation / gain-noise, rotation-zoom / shading, 384x288): the
//    CUDA flow's mean EPE within 5 % + 0.02 px of the reference path's on the same pair (the
//    first cell only under OFLOW_GPU_SMALL=1);
//  - what runs: TV-L1 asked for F16 MULTI_ITER and LK asked for F16 FUSED under census report
//    (of_info) backend CUDA, precision F32 and variant cuda-global-f32; each flow equals the one
//    asked for F32 GLOBAL bit for bit.
#include "gpu_hooks.hpp"

#include "core/census.hpp"
#include "core/hs_kernels.hpp"
#include "core/lk_kernels.hpp"
#include "core/ref/kernels_ref.hpp"
#include "core/ref/lk_ref.hpp"
#include "core/synth_matrix.hpp"
#include "tests/host_plane.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace gputest;

namespace {

using Img = oftest::HostPlane;
using oflow::Plane;

const int kW = 97, kH = 61;

// A census context of algorithm a at kW x kH (F32 frames), on CUDA.
of_config census_config(of_algorithm a) {
    of_config c = algo_config(a, kW, kH);
    c.format = OF_PIXEL_F32;
    c.backend = OF_BACKEND_CUDA;
    c.robust = OF_ROBUST_CENSUS;
    c.precision = OF_PRECISION_F32;
    return c;
}

// The kernels' inputs: a rotation-zoom pair with a gain, offset and noise on frame 1, and a flow
// of up to 4 px whose rightmost and lowest columns point outside the level.
struct Inputs {
    Img i0, i1, u, v;
    Inputs() : i0(kW, kH), i1(kW, kH), u(kW, kH), v(kW, kH) {
        oflow::synth::Exposure e;
        e.gain = 1.25f;
        e.offset = 20.0f;
        e.noise_sigma = 3.0f;
        const Pair p = synth_pair_exposed(oflow::synth::Case::RotationZoom, oflow::synth::Texture::Default, e, kW, kH, 1);
        for (int y = 0; y < kH; ++y)
            for (int x = 0; x < kW; ++x) {
                const std::size_t i = static_cast<std::size_t>(y) * kW + static_cast<std::size_t>(x);
                i0.v[i] = p.i0[i];
                i1.v[i] = p.i1[i];
                u.v[i] = 2.5f * std::sin(0.07f * static_cast<float>(x) + 0.05f * static_cast<float>(y)) + 0.04f * static_cast<float>(x);
                v.v[i] = 1.5f * std::cos(0.06f * static_cast<float>(y)) + 0.03f * static_cast<float>(y);
            }
    }
};

double rms_gradient(Plane p) {
    return std::sqrt(oflow::texture_energy_ref(p, 0, p.h) / (static_cast<double>(p.w) * static_cast<double>(p.h)));
}

// The device's scalars against the host's formulas (core/census.hpp, core/flow_driver.cpp).
void check_scalars(const oflow::cuda::hooks::StageRun& r, Img& i0, Img& i1, const char* what) {
    Img* f[2] = {&i0, &i1};
    for (int k = 0; k < 2; ++k) {
        const Plane p = f[k]->plane();
        const double rms = rms_gradient(p);
        const float eta = oflow::census_eta(oflow::census_noise_sigma(oflow::census_noise_sum_ref(p, 0, p.h), p.w, p.h), rms);
        std::printf("%s: frame %d rms0 %.6f (host %.6f), eta %.6f (host %.6f)\n", what, k, r.rms0[k], rms,
                    static_cast<double>(r.eta[k]), static_cast<double>(eta));
        CHECK_MSG(std::fabs(r.rms0[k] - rms) <= 1e-9 * rms, "%s: frame %d rms0 %.12g, host %.12g", what, k, r.rms0[k], rms);
        CHECK_MSG(std::fabs(r.eta[k] - eta) <= 1e-5f * eta, "%s: frame %d eta %.9g, host %.9g", what, k,
                  static_cast<double>(r.eta[k]), static_cast<double>(eta));
    }
}

// One census stage hook on c at level 0 (kW x kH) from the inputs, into `outs` planes (LK: up to
// `steps` steps at `epsilon`); false (a failed check) when it fails.
bool run_census(const HookCtx& c, oflow::cuda::hooks::Stage stage, const Inputs& in, std::vector<std::vector<float>>* out,
                int outs, oflow::cuda::hooks::StageRun* r, const char* what, int steps = 0, float epsilon = 0.0f) {
    out->assign(static_cast<std::size_t>(outs), std::vector<float>(static_cast<std::size_t>(kW) * kH));
    std::memset(static_cast<void*>(r), 0, sizeof *r);
    r->iterations = steps;
    r->epsilon = epsilon;
    r->stage = stage;
    r->w = kW;
    r->h = kH;
    const Img* planes[4] = {&in.i0, &in.i1, &in.u, &in.v};
    for (int k = 0; k < 4; ++k) r->in[k] = planes[k]->v.data();
    for (int k = 0; k < outs; ++k) r->out[k] = (*out)[static_cast<std::size_t>(k)].data();
    return run_hook(c, *r, what);
}

// The reference kernel's inputs (CensusArgs or CensusTensorArgs): the pair, frame 1 warped and
// its gradient, the flow, and the device's eta.
template <class Args>
void census_inputs(Args* a, Inputs& in, Img& i1w, Img& gx, Img& gy, const oflow::cuda::hooks::StageRun& r) {
    a->i0 = in.i0.plane();
    a->i1w = i1w.plane();
    a->gx = gx.plane();
    a->gy = gy.plane();
    a->u1 = in.u.plane();
    a->u2 = in.v.plane();
    a->eta0 = r.eta[0];
    a->eta1 = r.eta[1];
}

// Every value of got within 1e-5 of want's largest magnitude; prints how many differ at all.
void check_close(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
    float scale = 0.0f, worst = 0.0f;
    std::size_t differ = 0;
    for (float x : want) scale = std::fmax(scale, std::fabs(x));
    for (std::size_t i = 0; i < want.size(); ++i) {
        if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0) ++differ;
        const float d = std::fabs(got[i] - want[i]);
        worst = std::isnan(d) ? INFINITY : std::fmax(worst, d);
    }
    std::printf("  %-8s max |diff| %.3g (scale %.3g), %zu of %zu values not bit-identical\n", what,
                static_cast<double>(worst), static_cast<double>(scale), differ, want.size());
    CHECK_MSG(worst <= 1e-5f * std::fmax(scale, 1e-6f), "%s: max |diff| %.9g against the reference (scale %.9g)", what,
              static_cast<double>(worst), static_cast<double>(scale));
}

void test_tvl1_channels() {
    HookCtx c(census_config(OF_ALGO_TVL1));
    Inputs in;
    const std::size_t n = static_cast<std::size_t>(kW) * kH;
    std::vector<std::vector<float>> out;
    oflow::cuda::hooks::StageRun r;
    if (!run_census(c, oflow::cuda::hooks::Stage::CensusTvl1, in, &out, 9, &r, "census TV-L1")) return;
    check_scalars(r, in.i0, in.i1, "census TV-L1");
    // The warp on the host (tvl1_warp_ref, gradient_ref's I1 gradient).
    Img i1x(kW, kH), i1y(kW, kH), i1w(kW, kH), gx(kW, kH), gy(kW, kH), g2(kW, kH), rc(kW, kH);
    oflow::gradient_ref(in.i1.plane(), i1x.plane(), i1y.plane(), 0, kH);
    oflow::Tvl1WarpArgs wa{in.i0.plane(), in.i1.plane(), i1x.plane(), i1y.plane(), in.u.plane(), in.v.plane(),
                           i1w.plane(),   gx.plane(),    gy.plane(),  g2.plane(),  rc.plane()};
    oflow::tvl1_warp_ref(wa, 0, kH);
    bitwise(out[0], i1w.v, "census warp I1w");
    bitwise(out[1], gx.v, "census warp I1wx");
    bitwise(out[2], gy.v, "census warp I1wy");
    Img ax(kW, kH), ay(kW, kH), gr(kW, kH), rho(kW, kH), q(kW, kH), rho2(kW, kH);
    oflow::CensusArgs a;
    census_inputs(&a, in, i1w, gx, gy, r);
    a.ax = ax.plane();
    a.ay = ay.plane();
    a.grad = gr.plane();
    a.rho_c = rho.plane();
    a.minor.q = q.plane();
    a.minor.rho_c = rho2.plane();
    oflow::census_tvl1_ref(a, 0, kH);
    std::size_t minors = 0, outside = 0;
    for (std::size_t i = 0; i < n; ++i) {
        minors += q.v[i] > 0.0f;
        outside += gr.v[i] == 0.0f;
    }
    std::printf("census TV-L1 channels: %zu pixels with a minor channel, %zu without data\n", minors, outside);
    CHECK_MSG(minors > n / 4 && outside > 0 && outside < n / 4, "the inputs no longer exercise both channels and the border");
    const char* names[6] = {"ax", "ay", "|a|^2", "rho_c", "q", "rho_c2"};
    const Img* want[6] = {&ax, &ay, &gr, &rho, &q, &rho2};
    for (int k = 0; k < 6; ++k) check_close(out[static_cast<std::size_t>(3 + k)], want[k]->v, names[k]);
}

void test_tensor(of_algorithm algo, float rho) {
    of_config cfg = census_config(algo);
    cfg.hs.rho = rho;
    HookCtx c(cfg);
    Inputs in;
    std::vector<std::vector<float>> out;
    oflow::cuda::hooks::StageRun r;
    const char* what = algo == OF_ALGO_HS ? "census HS tensor" : "census CLG tensor";
    if (!run_census(c, oflow::cuda::hooks::Stage::CensusTensor, in, &out, 6, &r, what)) return;
    check_scalars(r, in.i0, in.i1, what);
    Img i1w(kW, kH), gx(kW, kH), gy(kW, kH);
    oflow::warp_image_ref(in.i0.plane(), in.i1.plane(), in.u.plane(), in.v.plane(), i1w.plane(), 0, kH);
    bitwise(out[0], i1w.v, "census HS warp I1w");
    oflow::gradient_ref(i1w.plane(), gx.plane(), gy.plane(), 0, kH);
    Img j[oflow::kHsChannels] = {Img(kW, kH), Img(kW, kH), Img(kW, kH), Img(kW, kH), Img(kW, kH)};
    oflow::CensusTensorArgs a;
    census_inputs(&a, in, i1w, gx, gy, r);
    for (int k = 0; k < oflow::kHsChannels; ++k) a.j[k] = j[k].plane();
    oflow::census_tensor_ref(a, 0, kH);
    std::printf("%s (rho %.1f):\n", what, static_cast<double>(rho));
    const char* names[oflow::kHsChannels] = {"j11", "j12", "j13", "j22", "j23"};
    for (int k = 0; k < oflow::kHsChannels; ++k) check_close(out[static_cast<std::size_t>(1 + k)], j[k].v, names[k]);
}

// LK's census steps on the host: core/lk_census_cpu.cpp's sequence on the reference kernels at
// level 0 of the inputs (window and min_eigen of cfg, the device's eta), up to `steps` steps from
// the inputs' flow. Leaves the flow, state, confidence, the last step's window sums and I1w.
struct LkHostSteps {
    Img u, v, state, conf, sx, sy, i1w;
    int ran = 0;
    explicit LkHostSteps(const Inputs& in)
        : u(in.u), v(in.v), state(kW, kH), conf(kW, kH), sx(kW, kH), sy(kW, kH), i1w(kW, kH) {}
};

void lk_census_host(Inputs& in, const of_config& cfg, const float eta[2], int steps, float epsilon, LkHostSteps* o) {
    using namespace oflow;
    const int s = static_cast<int>(cfg.lk.window), r = (s - 1) / 2;
    Img gx(kW, kH), gy(kW, kH);
    std::vector<Img> g(kLkTensorChannels, Img(kW, kH)), gh(kLkTensorChannels, Img(kW, kH)), e(2, Img(kW, kH)),
        eh(2, Img(kW, kH));
    Plane gp[kLkTensorChannels], ghp[kLkTensorChannels], ep[2], ehp[2];
    for (int c = 0; c < kLkTensorChannels; ++c) {
        gp[c] = g[static_cast<std::size_t>(c)].plane();
        ghp[c] = gh[static_cast<std::size_t>(c)].plane();
    }
    for (int c = 0; c < 2; ++c) {
        ep[c] = e[static_cast<std::size_t>(c)].plane();
        ehp[c] = eh[static_cast<std::size_t>(c)].plane();
    }
    CensusTensorArgs ta;
    ta.i0 = in.i0.plane();
    ta.i1w = o->i1w.plane();
    ta.gx = gx.plane();
    ta.gy = gy.plane();
    ta.u1 = o->u.plane();
    ta.u2 = o->v.plane();
    ta.j[kJ11] = gp[kG11];
    ta.j[kJ12] = gp[kG12];
    ta.j[kJ22] = gp[kG22];
    ta.j[kJ13] = ep[0];
    ta.j[kJ23] = ep[1];
    ta.eta0 = eta[0];
    ta.eta1 = eta[1];
    LkCensusArgs pa;
    for (int c = 0; c < kLkTensorChannels; ++c) pa.j[c] = gp[c];
    pa.u1 = ta.u1;
    pa.u2 = ta.u2;
    pa.bx = ep[0];
    pa.by = ep[1];
    LkConfArgs ca;
    LkUpdateArgs ua;
    for (int c = 0; c < kLkTensorChannels; ++c) ca.j[c] = ua.j[c] = gp[c];
    ca.conf = o->conf.plane();
    ca.state = o->state.plane();
    ca.inv_area = 1.0 / (static_cast<double>(s) * static_cast<double>(s));
    ca.min_eigen = cfg.lk.min_eigen;
    ua.ex = ep[0];
    ua.ey = ep[1];
    ua.state = ca.state;
    ua.u1 = ta.u1;
    ua.u2 = ta.u2;
    ua.epsilon = epsilon;
    int n = 0;
    while (n < steps) {
        warp_image_ref(in.i0.plane(), in.i1.plane(), ta.u1, ta.u2, ta.i1w, 0, kH);
        gradient_ref(ta.i1w, ta.gx, ta.gy, 0, kH);
        census_tensor_ref(ta, 0, kH);
        lk_census_products_ref(pa, 0, kH);
        lk_box_h_multi_ref(gp, ghp, kLkTensorChannels, r, 0, kH);
        lk_box_v_multi_ref(ghp, gp, kLkTensorChannels, r, 0, kH);
        lk_box_h_multi_ref(ep, ehp, 2, r, 0, kH);
        lk_box_v_multi_ref(ehp, ep, 2, r, 0, kH);
        if (n == 0 && lk_confidence_ref(ca, 0, kH) == 0.0) break;
        const double active = lk_update_ref(ua, 0, kH);
        ++n;
        if (active == 0.0) break;
    }
    o->sx.v = e[0].v;
    o->sy.v = e[1].v;
    o->ran = n;
}

void test_lk_steps() {
    const of_config cfg = census_config(OF_ALGO_LK);
    HookCtx c(cfg);
    Inputs in;
    const int runs[] = {1, static_cast<int>(cfg.iterations)};
    for (int steps : runs) {
        std::vector<std::vector<float>> out;
        oflow::cuda::hooks::StageRun r;
        char what[48];
        std::snprintf(what, sizeof what, "census LK, %d step(s)", steps);
        if (!run_census(c, oflow::cuda::hooks::Stage::LkCensus, in, &out, 7, &r, what, steps, cfg.epsilon)) return;
        check_scalars(r, in.i0, in.i1, what);
        LkHostSteps h(in);
        lk_census_host(in, cfg, r.eta, steps, cfg.epsilon, &h);
        std::size_t valid = 0, active = 0;
        for (std::size_t i = 0; i < h.conf.v.size(); ++i) {
            valid += h.conf.v[i] >= cfg.lk.min_eigen;
            active += h.state.v[i] == 1.0f;
        }
        std::printf("%s: device ran %d, reference %d; %zu valid pixels, %zu still active\n", what, r.iterations_run, h.ran,
                    valid, active);
        CHECK_MSG(h.ran > 0 && valid > h.conf.v.size() / 4, "%s: the inputs no longer give valid windows to step", what);
        CHECK_MSG(r.iterations_run == h.ran, "%s: the device ran %d steps, the reference %d", what, r.iterations_run, h.ran);
        bitwise(out[2], h.state.v, "census LK state");
        const char* names[6] = {"u1", "u2", "conf", "X", "Y", "I1w"};
        const Img* want[6] = {&h.u, &h.v, &h.conf, &h.sx, &h.sy, &h.i1w};
        const int at[6] = {0, 1, 3, 4, 5, 6};
        // I1w is the last warp's: the reference's last step's only when the device ran every step.
        const int n = r.iterations_run == steps ? 6 : 5;
        for (int k = 0; k < n; ++k) check_close(out[static_cast<std::size_t>(at[k])], want[k]->v, names[k]);
    }
}

// Mean EPE of one matrix cell's flow under census on `backend`, precision / variant as given.
double cell_epe(of_algorithm a, oflow::synth::Motion m, oflow::synth::Photometry ph, of_backend backend, of_precision prec,
                of_variant variant, of_info* info, std::vector<float>* flow) {
    of_config c = algo_config(a, 1, 1); // matrix_cell_epe sets the cell's size
    c.threads = 2;
    c.backend = backend;
    c.robust = OF_ROBUST_CENSUS;
    c.precision = prec;
    c.variant = variant;
    return matrix_cell_epe(c, m, ph, info, flow);
}

void test_frames() {
    using oflow::synth::Motion;
    using oflow::synth::Photometry;
    struct Cell {
        Motion m;
        Photometry p;
    };
    const Cell cells[] = {{Motion::Translation, Photometry::GainNoise}, {Motion::RotationZoom, Photometry::Shading}};
    const of_algorithm algos[] = {OF_ALGO_TVL1, OF_ALGO_HS, OF_ALGO_CLG, OF_ALGO_LK};
    const char* names[] = {"TV-L1", "HS", "CLG", "LK"};
    const int n_cells = small_run() ? 1 : 2; // the sanitizer's small run: the first cell
    for (int k = 0; k < 4; ++k)
        for (int ci = 0; ci < n_cells; ++ci) {
            const Cell& cell = cells[ci];
            const double ref = cell_epe(algos[k], cell.m, cell.p, OF_BACKEND_REFERENCE, OF_PRECISION_F32,
                                        OF_VARIANT_AUTO, nullptr, nullptr);
            of_info info;
            const double gpu =
                cell_epe(algos[k], cell.m, cell.p, OF_BACKEND_CUDA, OF_PRECISION_F32, OF_VARIANT_AUTO, &info, nullptr);
            std::printf("%-5s %-13s / %-10s census EPE: CUDA %.4f (%s), reference %.4f\n", names[k],
                        oflow::synth::motion_name(cell.m), oflow::synth::photometry_name(cell.p), gpu, info.variant, ref);
            CHECK_MSG(info.backend == OF_BACKEND_CUDA, "%s ran backend %d", names[k], info.backend);
            CHECK_MSG(ref >= 0.0 && gpu >= 0.0 && std::fabs(gpu - ref) <= 0.05 * ref + 0.02,
                      "%s %s / %s: CUDA EPE %.4f against the reference's %.4f (5 %% + 0.02 px)", names[k],
                      oflow::synth::motion_name(cell.m), oflow::synth::photometry_name(cell.p), gpu, ref);
        }
}

void test_what_runs() {
    using oflow::synth::Motion;
    using oflow::synth::Photometry;
    struct Ask {
        of_algorithm a;
        of_variant v;
        const char* what;
    };
    const Ask asks[] = {{OF_ALGO_TVL1, OF_VARIANT_MULTI_ITER, "TV-L1 census asked F16 MULTI_ITER"},
                        {OF_ALGO_LK, OF_VARIANT_FUSED, "LK census asked F16 FUSED"}};
    for (const Ask& k : asks) {
        of_info asked, plain;
        std::vector<float> fa, fb;
        cell_epe(k.a, Motion::Translation, Photometry::Ramp, OF_BACKEND_CUDA, OF_PRECISION_F16, k.v, &asked, &fa);
        cell_epe(k.a, Motion::Translation, Photometry::Ramp, OF_BACKEND_CUDA, OF_PRECISION_F32, OF_VARIANT_GLOBAL, &plain,
                 &fb);
        std::printf("%s: ran %s, precision %d\n", k.what, asked.variant, static_cast<int>(asked.precision));
        CHECK_MSG(asked.backend == OF_BACKEND_CUDA && asked.precision == OF_PRECISION_F32 &&
                      std::strcmp(asked.variant, "cuda-global-f32") == 0,
                  "%s reports backend %d, precision %d, variant %s", k.what, asked.backend,
                  static_cast<int>(asked.precision), asked.variant);
        CHECK_MSG(fa.size() == fb.size() && !fa.empty() && std::memcmp(fa.data(), fb.data(), fa.size() * sizeof(float)) == 0,
                  "%s: the flow differs from the one asked for F32 GLOBAL", k.what);
    }
}

} // namespace

int main(int argc, char** argv) {
    if (!cuda_ready()) return 77;
    if (wanted(argc, argv, "kernels")) {
        test_tvl1_channels();
        test_tensor(OF_ALGO_HS, 0.0f);
        test_tensor(OF_ALGO_CLG, 1.0f);
        test_lk_steps();
    }
    if (wanted(argc, argv, "frames")) test_frames();
    if (wanted(argc, argv, "what_runs")) test_what_runs();
    return finish("gpu_census");
}
