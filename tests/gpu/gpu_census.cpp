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
//  - frames through the ABI: TV-L1, HS and CLG on two matrix cells with a photometric change
//    (core/synth_matrix.hpp: translation / gain-noise, rotation-zoom / shading, 384x288): the
//    CUDA flow's mean EPE within 5 % + 0.02 px of the reference path's on the same pair (the
//    first cell only under OFLOW_GPU_SMALL=1);
//  - what runs: TV-L1 asked for F16 MULTI_ITER under census reports (of_info) backend CUDA,
//    precision F32 and variant cuda-global-f32; its flow equals the one asked for F32 GLOBAL bit
//    for bit.
#include "gpu_hooks.hpp"

#include "core/census.hpp"
#include "core/hs_kernels.hpp"
#include "core/ref/kernels_ref.hpp"
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

// One census stage hook on c at level 0 (kW x kH) from the inputs, into `outs` planes; false (a
// failed check) when it fails.
bool run_census(const HookCtx& c, oflow::cuda::hooks::Stage stage, const Inputs& in, std::vector<std::vector<float>>* out,
                int outs, oflow::cuda::hooks::StageRun* r, const char* what) {
    out->assign(static_cast<std::size_t>(outs), std::vector<float>(static_cast<std::size_t>(kW) * kH));
    std::memset(static_cast<void*>(r), 0, sizeof *r);
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
    const of_algorithm algos[] = {OF_ALGO_TVL1, OF_ALGO_HS, OF_ALGO_CLG};
    const char* names[] = {"TV-L1", "HS", "CLG"};
    const int n_cells = small_run() ? 1 : 2; // the sanitizer's small run: the first cell
    for (int k = 0; k < 3; ++k)
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
    of_info asked, plain;
    std::vector<float> fa, fb;
    cell_epe(OF_ALGO_TVL1, Motion::Translation, Photometry::Ramp, OF_BACKEND_CUDA, OF_PRECISION_F16,
             OF_VARIANT_MULTI_ITER, &asked, &fa);
    cell_epe(OF_ALGO_TVL1, Motion::Translation, Photometry::Ramp, OF_BACKEND_CUDA, OF_PRECISION_F32, OF_VARIANT_GLOBAL,
             &plain, &fb);
    std::printf("TV-L1 census asked F16 MULTI_ITER: ran %s, precision %d\n", asked.variant, static_cast<int>(asked.precision));
    CHECK_MSG(asked.backend == OF_BACKEND_CUDA && asked.precision == OF_PRECISION_F32 &&
                  std::strcmp(asked.variant, "cuda-global-f32") == 0,
              "census TV-L1 asked F16 MULTI_ITER reports backend %d, precision %d, variant %s", asked.backend,
              static_cast<int>(asked.precision), asked.variant);
    CHECK_MSG(fa.size() == fb.size() && !fa.empty() && std::memcmp(fa.data(), fb.data(), fa.size() * sizeof(float)) == 0,
              "census TV-L1: the flow asked for F16 MULTI_ITER differs from the F32 GLOBAL one");
}

} // namespace

int main(int argc, char** argv) {
    if (!cuda_ready()) return 77;
    if (wanted(argc, argv, "kernels")) {
        test_tvl1_channels();
        test_tensor(OF_ALGO_HS, 0.0f);
        test_tensor(OF_ALGO_CLG, 1.0f);
    }
    if (wanted(argc, argv, "frames")) test_frames();
    if (wanted(argc, argv, "what_runs")) test_what_runs();
    return finish("gpu_census");
}
