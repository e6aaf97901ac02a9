// gpu_lk: Lucas-Kanade on the CUDA path (cuda/lk_cuda.cuh) against the reference path.
//
//  stages   one level's steps at level 0 through the test hooks, GLOBAL / FUSED / MULTI_ITER x
//           F32 / F16, windows 11 and 33 (MULTI_ITER's tile halves its rows there), smooth-field
//           97x61, against the reference kernels (core/ref/lk_ref.cpp) on the same inputs:
//           - the Scharr gradient: F32 bit for bit; F16 the reference's rounded to the nearest
//             half, bit for bit;
//           - the tensor's window sums G, the confidence and the state: bit for bit against the
//             reference kernels fed the gradient the context stores (F16: the rounded one); F16's
//             confidence within 1.5e-3 (lambda_min + lambda_max) / s^2 (+ 1e-6 relative) of the F32
//             reference's: each gradient rounded to half (2^-11 relative) moves each tensor entry
//             by at most 9.8e-4 of its terms' magnitudes, an eigenvalue by at most the norm of
//             that change, 1.2e-3 of the trace (Weyl);
//           - what the steps read: GLOBAL's G bit for bit; FUSED / MULTI_ITER's coefficients of
//             -G^-1 bit for bit against the host's double formula (lk_cuda.cuh) rounded to F32;
//           - one Newton step from u = (0.7, -0.4), epsilon 0: the window sums (X, Y) of every
//             valid pixel and the state bit for bit (every variant); the new flow GLOBAL bit for
//             bit, FUSED and MULTI_ITER within 3e-7 (|k11 X| + |k12 Y| + |u'|) per component (the
//             coefficients, the two products and the sum each rounded once in F32);
//           - 10 steps, epsilon 0.01: GLOBAL bit for bit (flow, state, steps run); FUSED and
//             MULTI_ITER within kStepsFast px of the reference, the steps run within 2;
//  frames   whole frames through of_process (LK defaults: levels auto, window 11, 10 steps,
//           local-norm) on five synthetic cases at 160x120 and two at 97x61, at epsilon 0.01 (the
//           default) and 0: GLOBAL F32 equals the reference's flow (every stage is the
//           reference's: bound kFrameGlobal) and its step count; FUSED and MULTI_ITER give the
//           same flow bit for bit (the same arithmetic) and the same count; against the
//           reference, at epsilon 0 (rounding only: kFrameFast0 says why) within kFrameFast0 px per
//           pixel and kFrameFast0Mean on average, at epsilon 0.01 within kFrameFastMax px per
//           pixel and kFrameFastMean px on average, the count within 2 a level: a pixel whose
//           step is within rounding of epsilon may stop one step earlier or later, its flow then
//           differs by less than a step (< epsilon), and an invalid pixel keeps its coarser
//           level's flow doubled by the upsampling, twice over at most;
//           EPE_F32 <= 1.05 EPE_ref + 0.01; F16 EPE <= 1.05 EPE_F32 + 0.01 px (the F16 margin:
//           the gradient pairs stored as half2, rounded once, the only F16 storage); and one
//           frame split by level (AUTO on the xavier table: coarse levels on the CPU path, GLOBAL
//           F32 on the GPU levels) equals the reference's flow and step count;
//  accuracy the seven synthetic cases and two exposure changes at the defaults, MULTI_ITER: F32
//           EPE within 5 % + 0.01 px of the reference's, F16 within 5 % + 0.01 px of F32's;
//  validity the validity plane (mask and confidence, padded rows) in host, device and mapped
//           memory, every variant x precision, on a pair whose left part has no texture: F32
//           equals the reference's confidence (the residual confidence combined with lambda /
//           (lambda + min_eigen)) within 1e-5 (the device's exp2f) and its mask except at the
//           threshold; every mask is its own confidence >= min_confidence; F16's agrees with the
//           reference's on >= 95 % of
//           the pixels; the row padding is untouched, the flow is the same with and without the
//           plane; a flat pair has no valid pixel: zero flow, no Newton step, an all-0 mask;
//  refuse   FUSED / MULTI_ITER blocks not 32 wide or over 8 warps; AUTO picks CUDA for LK.
// `gpu_lk NAME...` runs only the named sub-tests. OFLOW_GPU_SMALL=1: the 97x61 frames only,
// window 11 only, no accuracy cases.
#include "gpu_hooks.hpp"

#include "core/algorithm.hpp"
#include "core/confidence.hpp"
#include "core/lk_kernels.hpp"
#include "core/ref/lk_ref.hpp"
#include "cuda/cuda_bench.hpp"
#include "cuda/cuda_layout.hpp"

#include <cfloat>
#include <cstring>
#include <string>

using namespace gputest;
using oflow::Plane;
using oflow::synth::Case;
using oflow::cuda::hooks::Stage;
using oflow::cuda::hooks::StageRun;
using Vec = std::vector<float>;

namespace {

const double kStepsFast = 3e-2;     // px, 10 steps at epsilon 0.01: 2 epsilon + kFrameFast0
const double kFrameGlobal = 1e-5;   // px (every stage is the reference's: measured values are printed)
// FUSED / MULTI_ITER frames against the reference. Epsilon 0: rounding only, the F32 solve's
// 3 x 2^-24 of |k11 X| + |k12 Y|, which near convergence is about cond(G) x |u|: up to 1e4 x a few
// px x 2e-7 = 1e-2 px at the worst-conditioned valid windows (min_eigen 1), far less on average.
const double kFrameFast0 = 1e-2;     // px, max, epsilon 0
const double kFrameFast0Mean = 1e-4; // px, mean, epsilon 0
const double kFrameFastMax = 5e-2;   // px, max, epsilon 0.01: 4 epsilon + kFrameFast0
const double kFrameFastMean = 1e-3;  // px, mean, epsilon 0.01

const of_variant kVariants[] = {OF_VARIANT_GLOBAL, OF_VARIANT_FUSED, OF_VARIANT_MULTI_ITER};
const of_precision kPrecisions[] = {OF_PRECISION_F32, OF_PRECISION_F16};

of_config lk_config(uint32_t w, uint32_t h) {
    of_config c;
    of_config_init(&c, OF_ALGO_LK);
    c.max_width = w;
    c.max_height = h;
    c.format = OF_PIXEL_F32;
    c.threads = 1;
    return c;
}

Plane view(Vec& v, int w, int h) { return Plane{v.data(), w, h, w}; }

// x rounded to the nearest binary16 value (ties to even), as __float22half2_rn stores it, in F32.
float round_half(float x) {
    if (!std::isfinite(x)) return x;
    const float a = std::fabs(x);
    if (a >= 65520.0f) return std::copysign(INFINITY, x);
    int e = 0;
    (void)std::frexp(a, &e); // a in [2^(e-1), 2^e)
    const float q = std::ldexp(1.0f, std::max(e - 11, -24)); // the spacing of halves there
    return std::copysign(std::nearbyint(a / q) * q, x);
}

// ---- the reference level ----------------------------------------------------------------------

struct RefLevel {
    int w = 0, h = 0, s = 0;
    Vec gx, gy, g[oflow::kLkTensorChannels], conf, state;
};

// Gradient (or the one given), the tensor's window sums, the confidence and the state: the steps
// of core/lk_level_cpu.cpp before the Newton steps.
RefLevel ref_level(Vec i0, int w, int h, int window, float min_eigen, const Vec* gx, const Vec* gy) {
    RefLevel L;
    L.w = w;
    L.h = h;
    L.s = window;
    const size_t n = static_cast<size_t>(w) * h;
    L.gx.assign(n, 0.0f);
    L.gy.assign(n, 0.0f);
    if (gx) {
        L.gx = *gx;
        L.gy = *gy;
    } else {
        oflow::lk_scharr_ref(view(i0, w, h), view(L.gx, w, h), view(L.gy, w, h), 0, h);
    }
    Vec hb[oflow::kLkTensorChannels];
    Plane gp[oflow::kLkTensorChannels], hp[oflow::kLkTensorChannels];
    oflow::LkTensorArgs ta;
    ta.gx = view(L.gx, w, h);
    ta.gy = view(L.gy, w, h);
    for (int c = 0; c < oflow::kLkTensorChannels; ++c) {
        L.g[c].assign(n, 0.0f);
        hb[c].assign(n, 0.0f);
        gp[c] = view(L.g[c], w, h);
        hp[c] = view(hb[c], w, h);
        ta.j[c] = gp[c];
    }
    oflow::lk_tensor_ref(ta, 0, h);
    const int r = (window - 1) / 2;
    oflow::lk_box_h_multi_ref(gp, hp, oflow::kLkTensorChannels, r, 0, h);
    oflow::lk_box_v_multi_ref(hp, gp, oflow::kLkTensorChannels, r, 0, h);
    L.conf.assign(n, 0.0f);
    L.state.assign(n, 0.0f);
    oflow::LkConfArgs ca;
    for (int c = 0; c < oflow::kLkTensorChannels; ++c) ca.j[c] = gp[c];
    ca.conf = view(L.conf, w, h);
    ca.state = view(L.state, w, h);
    ca.inv_area = 1.0 / (static_cast<double>(window) * static_cast<double>(window));
    ca.min_eigen = min_eigen;
    (void)oflow::lk_confidence_ref(ca, 0, h);
    return L;
}

struct RefSteps {
    Vec u1, u2, state, ex, ey;
    int ran = 0;
};

// Up to `steps` Newton steps of lk_solve_level_cpu from (u1, u2) on level L.
RefSteps ref_steps(const RefLevel& Lc, Vec i0, Vec i1, Vec u1, Vec u2, int steps, float epsilon) {
    RefLevel L = Lc;
    const int w = L.w, h = L.h, r = (L.s - 1) / 2;
    const size_t n = static_cast<size_t>(w) * h;
    RefSteps o;
    Vec bx(n, 0.0f), by(n, 0.0f), h0(n, 0.0f), h1(n, 0.0f);
    const oflow::LkResidualArgs ra{view(i0, w, h),   view(i1, w, h), view(L.gx, w, h), view(L.gy, w, h),
                                   view(u1, w, h),   view(u2, w, h), view(bx, w, h),   view(by, w, h)};
    const Plane e[2] = {ra.bx, ra.by}, eh[2] = {view(h0, w, h), view(h1, w, h)};
    oflow::LkUpdateArgs ua;
    for (int c = 0; c < oflow::kLkTensorChannels; ++c) ua.j[c] = view(L.g[c], w, h);
    ua.ex = ra.bx;
    ua.ey = ra.by;
    ua.state = view(L.state, w, h);
    ua.u1 = ra.u1;
    ua.u2 = ra.u2;
    ua.epsilon = epsilon;
    double valid = 0.0;
    for (float s : L.state) valid += s == 1.0f ? 1.0 : 0.0;
    while (valid > 0.0 && o.ran < steps) {
        oflow::lk_residual_ref(ra, 0, h);
        oflow::lk_box_h_multi_ref(e, eh, 2, r, 0, h);
        oflow::lk_box_v_multi_ref(eh, e, 2, r, 0, h);
        const double active = oflow::lk_update_ref(ua, 0, h);
        ++o.ran;
        if (active == 0.0) break;
    }
    o.u1 = u1;
    o.u2 = u2;
    o.state = L.state;
    o.ex = bx;
    o.ey = by;
    return o;
}

// ---- stages -----------------------------------------------------------------------------------

StageRun stage_run(Stage s, int w, int h, const Vec& i0) {
    StageRun r;
    std::memset(&r, 0, sizeof r);
    r.stage = s;
    r.w = r.w2 = w;
    r.h = r.h2 = h;
    r.in[0] = i0.data();
    return r;
}

// The F32 coefficients of -G^-1 the fast steps read (lk_cuda.cuh), from the reference's G.
Vec inverse_ref(const RefLevel& L, int k) {
    Vec out(L.conf.size(), 0.0f);
    for (size_t i = 0; i < out.size(); ++i) {
        const double A = L.g[oflow::kG11][i], B = L.g[oflow::kG12][i], C = L.g[oflow::kG22][i];
        const double det = A * C - B * B;
        if (L.state[i] != 1.0f || !(det > 0.0)) continue;
        out[i] = static_cast<float>(k == 0 ? -C / det : k == 1 ? B / det : -A / det);
    }
    return out;
}

// F16's confidence against the F32 reference's, within the rounding bound of the top comment.
void check_f16_confidence(const Vec& c16, const RefLevel& ref32, const char* what) {
    const double area = static_cast<double>(ref32.s) * ref32.s;
    double worst = 0.0;
    size_t bad = 0;
    for (size_t i = 0; i < c16.size(); ++i) {
        const double trace = static_cast<double>(ref32.g[oflow::kG11][i]) + ref32.g[oflow::kG22][i];
        const double bound = 1.5e-3 * trace / area + 1e-6 * ref32.conf[i] + 1e-9;
        const double d = std::fabs(static_cast<double>(c16[i]) - ref32.conf[i]);
        worst = std::max(worst, bound > 0.0 ? d / bound : 0.0);
        bad += d <= bound ? 0 : 1;
    }
    std::printf("    F16 confidence vs the F32 reference: at most %.2f of the bound\n", worst);
    CHECK_MSG(bad == 0, "%s: %zu F16 confidences beyond 1.5e-3 trace / s^2 of the F32 reference's", what, bad);
}

void test_stage_one(of_variant v, of_precision pr, int window, const Pair& p, const RefLevel& ref32) {
    const int w = static_cast<int>(p.w), h = static_cast<int>(p.h);
    const size_t n = static_cast<size_t>(w) * h;
    char what[128];
    std::snprintf(what, sizeof what, "%s %s window %d", variant_str(v), precision_str(pr), window);
    std::printf("  %s\n", what);
    of_config cfg = on_cuda(lk_config(p.w, p.h), v, pr);
    cfg.lk.window = static_cast<uint32_t>(window);
    HookCtx c(cfg);
    if (!c.ctx) return;
    const bool f16 = pr == OF_PRECISION_F16, fast = v != OF_VARIANT_GLOBAL;
    char s2[192];
    // Gradient.
    Vec gx(n), gy(n);
    StageRun r = stage_run(Stage::LkGradient, w, h, p.i0);
    r.out[0] = gx.data();
    r.out[1] = gy.data();
    if (!run_hook(c, r, what)) return;
    Vec wx = ref32.gx, wy = ref32.gy;
    if (f16)
        for (size_t i = 0; i < n; ++i) {
            wx[i] = round_half(wx[i]);
            wy[i] = round_half(wy[i]);
        }
    std::snprintf(s2, sizeof s2, "%s gradient", what);
    bitwise(gx, wx, s2);
    bitwise(gy, wy, s2);
    const RefLevel L = ref_level(p.i0, w, h, window, cfg.lk.min_eigen, &gx, &gy);
    // Tensor window sums.
    Vec g[oflow::kLkTensorChannels];
    r = stage_run(Stage::LkTensor, w, h, p.i0);
    for (int ch = 0; ch < oflow::kLkTensorChannels; ++ch) {
        g[ch].assign(n, 0.0f);
        r.out[ch] = g[ch].data();
    }
    if (run_hook(c, r, what))
        for (int ch = 0; ch < oflow::kLkTensorChannels; ++ch) {
            std::snprintf(s2, sizeof s2, "%s tensor window sums channel %d", what, ch);
            bitwise(g[ch], L.g[ch], s2);
        }
    // Confidence, state, and what the steps read.
    Vec conf(n), state(n), t[oflow::kLkTensorChannels];
    r = stage_run(Stage::LkConfidence, w, h, p.i0);
    r.out[0] = conf.data();
    r.out[1] = state.data();
    for (int ch = 0; ch < oflow::kLkTensorChannels; ++ch) {
        t[ch].assign(n, 0.0f);
        r.out[2 + ch] = t[ch].data();
    }
    if (run_hook(c, r, what)) {
        std::snprintf(s2, sizeof s2, "%s confidence", what);
        bitwise(conf, L.conf, s2);
        std::snprintf(s2, sizeof s2, "%s state", what);
        bitwise(state, L.state, s2);
        for (int ch = 0; ch < oflow::kLkTensorChannels; ++ch) {
            std::snprintf(s2, sizeof s2, "%s step coefficients %d (%s)", what, ch, fast ? "-G^-1" : "G");
            bitwise(t[ch], fast ? inverse_ref(L, ch) : L.g[ch], s2);
        }
        if (f16) check_f16_confidence(conf, ref32, what);
        double valid = 0.0;
        for (float s : state) valid += s;
        CHECK_MSG(valid > 0.5 * static_cast<double>(n), "%s: %.0f of %zu pixels valid: the case tests little", what,
                  valid, n);
    }
    // One step from a constant flow, epsilon 0: the window sums, the state and the flow.
    Vec u1(n, 0.7f), u2(n, -0.4f), du1(n), du2(n), dst(n), ex(n), ey(n);
    r = stage_run(Stage::LkStep, w, h, p.i0);
    r.in[1] = p.i1.data();
    r.in[2] = u1.data();
    r.in[3] = u2.data();
    r.iterations = 1;
    r.epsilon = 0.0f;
    r.out[0] = du1.data();
    r.out[1] = du2.data();
    r.out[2] = dst.data();
    r.out[3] = ex.data();
    r.out[4] = ey.data();
    if (run_hook(c, r, what)) {
        const RefSteps rs = ref_steps(L, p.i0, p.i1, u1, u2, 1, 0.0f);
        Vec rex = rs.ex, rey = rs.ey; // compare the sums where the step ran: the valid pixels
        for (size_t i = 0; i < n; ++i)
            if (L.state[i] != 1.0f) rex[i] = rey[i] = 0.0f;
        std::snprintf(s2, sizeof s2, "%s one step: window sums", what);
        bitwise(ex, rex, s2);
        bitwise(ey, rey, s2);
        std::snprintf(s2, sizeof s2, "%s one step: state", what);
        bitwise(dst, rs.state, s2);
        CHECK_MSG(r.iterations_run == rs.ran, "%s one step: %d steps ran, the reference %d", what, r.iterations_run, rs.ran);
        if (!fast) {
            std::snprintf(s2, sizeof s2, "%s one step: flow", what);
            bitwise(du1, rs.u1, s2);
            bitwise(du2, rs.u2, s2);
        } else {
            double worst = 0.0;
            for (size_t i = 0; i < n; ++i) {
                const double terms = std::fabs(static_cast<double>(t[0][i]) * ex[i]) +
                                     std::fabs(static_cast<double>(t[1][i]) * ey[i]) +
                                     std::fabs(static_cast<double>(t[1][i]) * ex[i]) +
                                     std::fabs(static_cast<double>(t[2][i]) * ey[i]);
                const double bound = 3e-7 * (terms + std::fabs(rs.u1[i]) + std::fabs(rs.u2[i])) + 1e-30;
                const double d = std::max(std::fabs(static_cast<double>(du1[i]) - rs.u1[i]),
                                          std::fabs(static_cast<double>(du2[i]) - rs.u2[i]));
                worst = std::max(worst, d / bound);
            }
            std::printf("    one step: F32 flow at most %.2f of its rounding bound from the reference's\n", worst);
            CHECK_MSG(worst <= 1.0, "%s one step: the flow is %.2f times its rounding bound from the reference's", what,
                      worst);
        }
    }
    // Ten steps, epsilon 0.01.
    r.iterations = 10;
    r.epsilon = 0.01f;
    if (run_hook(c, r, what)) {
        const RefSteps rs = ref_steps(L, p.i0, p.i1, u1, u2, 10, 0.01f);
        if (!fast) {
            std::snprintf(s2, sizeof s2, "%s ten steps: flow", what);
            bitwise(du1, rs.u1, s2);
            bitwise(du2, rs.u2, s2);
            std::snprintf(s2, sizeof s2, "%s ten steps: state", what);
            bitwise(dst, rs.state, s2);
            CHECK_MSG(r.iterations_run == rs.ran, "%s ten steps: %d ran, the reference %d", what, r.iterations_run, rs.ran);
        } else {
            const double d = std::max(max_diff(du1, rs.u1), max_diff(du2, rs.u2));
            std::printf("    ten steps: max |flow - reference| %.3g px, %d steps (reference %d)\n", d, r.iterations_run,
                        rs.ran);
            CHECK_MSG(d <= kStepsFast, "%s ten steps: max |flow - reference| %.3g px > %.0e", what, d, kStepsFast);
            CHECK_MSG(std::abs(r.iterations_run - rs.ran) <= 2, "%s ten steps: %d ran, the reference %d", what,
                      r.iterations_run, rs.ran);
        }
    }
}

void test_stages() {
    const int w = 97, h = 61;
    const Pair p = synth_pair(Case::SmoothField, w, h, 3);
    std::printf("\nstages: one level at level 0 vs the reference kernels (smooth-field %dx%d)\n", w, h);
    for (int window : {11, 33}) {
        if (small_run() && window != 11) continue;
        const RefLevel ref32 = ref_level(p.i0, w, h, window, 1.0f, nullptr, nullptr);
        for (of_variant v : kVariants)
            for (of_precision pr : kPrecisions) test_stage_one(v, pr, window, p, ref32);
    }
}

// ---- whole frames -----------------------------------------------------------------------------

struct Run {
    FlowBuf f;
    of_info info;
    bool ok = false;
};

Run run_frame(const of_config& c, const FramePair& fp, const char* what) {
    Run r;
    r.ok = flow_of(c, fp, r.f, &r.info, what);
    return r;
}

// Mean and largest |a - b| over two extracted flows.
void diff_stats(const Vec& a, const Vec& b, double* mean, double* most) {
    *mean = 0.0;
    *most = max_diff(a, b);
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) *mean += std::fabs(static_cast<double>(a[i]) - b[i]);
    *mean /= a.empty() ? 1.0 : static_cast<double>(a.size());
}

void frames_one(Case k, uint32_t w, uint32_t h, float epsilon) {
    const Pair p = synth_pair(k, w, h, 1);
    const FramePair fp = frames_of(p, OF_PIXEL_F32);
    char name[64];
    std::snprintf(name, sizeof name, "%s %ux%u eps %g", oflow::synth::case_name(k), w, h, static_cast<double>(epsilon));
    of_config base = lk_config(w, h);
    base.epsilon = epsilon;
    base.backend = OF_BACKEND_REFERENCE;
    const Run ref = run_frame(base, fp, name);
    if (!ref.ok) return;
    const double er = epe(ref.f, p);
    const uint64_t levels = ref.info.last_levels;
    Vec fast_flow; // the first fast variant's flow and count: the other must equal them
    uint64_t fast_it = 0;
    bool have_fast = false;
    for (of_variant v : kVariants) {
        char what[128];
        std::snprintf(what, sizeof what, "%s %s", name, variant_str(v));
        const Run r32 = run_frame(on_cuda(base, v, OF_PRECISION_F32), fp, what);
        const Run r16 = run_frame(on_cuda(base, v, OF_PRECISION_F16), fp, what);
        if (!r32.ok || !r16.ok) continue;
        double mean = 0.0, most = 0.0;
        diff_stats(r32.f.extract(), ref.f.extract(), &mean, &most);
        const double e32 = epe(r32.f, p), e16 = epe(r16.f, p);
        const long dit = static_cast<long>(r32.info.last_iterations) - static_cast<long>(ref.info.last_iterations);
        bool ok = e32 <= 1.05 * er + 0.01 && e16 <= 1.05 * e32 + 0.01;
        if (v == OF_VARIANT_GLOBAL) {
            ok = ok && most <= kFrameGlobal && dit == 0;
            CHECK_MSG(most <= kFrameGlobal, "%s F32: max |flow - reference| %.3g px > %.0e", what, most, kFrameGlobal);
            CHECK_MSG(dit == 0, "%s F32: %llu steps, the reference %llu", what,
                      static_cast<unsigned long long>(r32.info.last_iterations),
                      static_cast<unsigned long long>(ref.info.last_iterations));
        } else {
            const bool close = epsilon == 0.0f ? most <= kFrameFast0 && mean <= kFrameFast0Mean
                                               : most <= kFrameFastMax && mean <= kFrameFastMean;
            const bool count = std::labs(dit) <= static_cast<long>(2 * levels);
            ok = ok && close && count;
            CHECK_MSG(close, "%s F32: |flow - reference| mean %.3g, max %.3g px (bounds: eps 0 mean %.0e, max %.0e; eps 0.01 "
                      "mean %.0e, max %.0e)",
                      what, mean, most, kFrameFast0Mean, kFrameFast0, kFrameFastMean, kFrameFastMax);
            CHECK_MSG(count, "%s F32: %llu steps, the reference %llu (slack 2 a level)", what,
                      static_cast<unsigned long long>(r32.info.last_iterations),
                      static_cast<unsigned long long>(ref.info.last_iterations));
            if (have_fast) { // FUSED and MULTI_ITER: the same arithmetic
                const bool same = same_bits(r32.f.extract(), fast_flow, "FUSED vs MULTI_ITER") &&
                                  r32.info.last_iterations == fast_it;
                ok = ok && same;
                CHECK_MSG(same, "%s: FUSED and MULTI_ITER differ", what);
            } else {
                fast_flow = r32.f.extract();
                fast_it = r32.info.last_iterations;
                have_fast = true;
            }
        }
        std::printf("%-34s %-10s %9.4f %9.4f %9.4f %10.2e %10.2e %6llu %6llu %s\n", name, variant_str(v), er, e32, e16,
                    mean, most, static_cast<unsigned long long>(ref.info.last_iterations),
                    static_cast<unsigned long long>(r32.info.last_iterations), ok ? "ok" : "FAIL");
        CHECK_MSG(e32 <= 1.05 * er + 0.01, "%s: CUDA F32 EPE %.4f vs reference %.4f", what, e32, er);
        CHECK_MSG(e16 <= 1.05 * e32 + 0.01, "%s: F16 EPE %.4f > 1.05 x F32's %.4f + 0.01", what, e16, e32);
        CHECK_MSG(r32.info.backend == OF_BACKEND_CUDA && r16.info.precision == OF_PRECISION_F16,
                  "%s: info backend %d, F16 run's precision %d", what, r32.info.backend, r16.info.precision);
    }
}

// A frame split by level (backend AUTO on the xavier table, whose LK crossover is 32x32 per
// level: the levels of a 160x120 frame below that area run on the CPU path, level 0 on the GPU),
// GLOBAL F32 on the GPU levels: every level is the reference's, so the flow and the step count
// equal the reference path's (kFrameGlobal), and of_info names both backends.
void frames_split() {
    const uint32_t w = 160, h = 120;
    const Pair p = synth_pair(Case::SmoothField, w, h, 1);
    const FramePair fp = frames_of(p, OF_PIXEL_F32);
    of_config base = one_solve(lk_config(w, h)); // pick never splits (gpu_util.hpp)
    base.levels = 4; // 160x120 .. 20x15: the coarsest (300 px) below the crossover
    base.backend = OF_BACKEND_REFERENCE;
    const Run ref = run_frame(base, fp, "split: reference");
    of_config c = base;
    c.backend = OF_BACKEND_AUTO;
    c.platform = "xavier";
    c.variant = OF_VARIANT_GLOBAL;
    const Run sp = run_frame(c, fp, "split: AUTO xavier");
    if (!ref.ok || !sp.ok) return;
    const double most = max_diff(sp.f.extract(), ref.f.extract());
    const of_info& in = sp.info;
    const bool split = in.levels == 4 && in.level_backend[0] == OF_BACKEND_CUDA && in.level_backend[3] != OF_BACKEND_CUDA;
    // The CPU levels run on the build's CPU path: the reference, or NEON (on x86-64 through
    // SIMDe, which AUTO takes where the table's CPU rows are NEON's). NEON's own distance from the
    // reference on the whole frame then joins the bound: the split may differ from the reference
    // by what its CPU levels' path does (measured on the H200: 1.09e-3 px with NEON levels).
    double cpu_path = 0.0;
    if (split && in.level_backend[3] == OF_BACKEND_NEON) {
        of_config n = base;
        n.backend = OF_BACKEND_NEON;
        const Run nr = run_frame(n, fp, "split: NEON");
        if (!nr.ok) return;
        cpu_path = max_diff(nr.f.extract(), ref.f.extract());
    }
    const double bound = kFrameGlobal + 2.0 * cpu_path;
    const bool ok = split && most <= bound && in.last_iterations == ref.info.last_iterations;
    std::printf("split by level (AUTO, xavier, levels 4: 0 on %s, 3 on %s): max |flow - reference| %.2e px, %llu steps "
                "(reference %llu): %s\n",
                in.level_backend[0] == OF_BACKEND_CUDA ? "CUDA" : "CPU", in.level_backend[3] == OF_BACKEND_CUDA ? "CUDA" : "CPU",
                most, static_cast<unsigned long long>(in.last_iterations),
                static_cast<unsigned long long>(ref.info.last_iterations), ok ? "ok" : "FAIL");
    CHECK_MSG(split, "LK split: levels %u, level 0 on %d, level 3 on %d (expected CUDA, then the CPU)", in.levels,
              static_cast<int>(in.level_backend[0]), static_cast<int>(in.level_backend[3]));
    CHECK_MSG(most <= bound, "LK split: max |flow - reference| %.3g px > %.3g (CPU levels' path %.3g from the reference)",
              most, bound, cpu_path);
    CHECK_MSG(in.last_iterations == ref.info.last_iterations, "LK split: %llu steps, the reference %llu",
              static_cast<unsigned long long>(in.last_iterations), static_cast<unsigned long long>(ref.info.last_iterations));
}

void test_frames() {
    std::printf("\nframes vs reference: LK defaults (levels auto, window 11, 10 steps, local-norm)\n");
    std::printf("%-34s %-10s %9s %9s %9s %10s %10s %6s %6s %s\n", "case", "variant", "EPE ref", "EPE F32", "EPE F16",
                "mean|d|", "max|d|", "it ref", "it F32", "result");
    for (float eps : {0.01f, 0.0f})
        for (size_t ci = small_run() ? kFrameCaseCount - 2 : 0; ci < kFrameCaseCount; ++ci)
            frames_one(kFrameCases[ci].c, kFrameCases[ci].w, kFrameCases[ci].h, eps);
    frames_split();
}

// ---- accuracy cases at the defaults -------------------------------------------------------------

void test_accuracy() {
    const uint32_t w = 160, h = 120;
    std::printf("\naccuracy cases at the LK defaults, %ux%u, MULTI_ITER\n", w, h);
    std::printf("%-26s %9s %9s %9s %8s %8s %s\n", "case", "EPE ref", "EPE F32", "EPE F16", "it ref", "it F32", "result");
    if (small_run()) return;
    for (const ExposedCase& k : kAccuracyCases) {
        char name[64];
        const Pair p = accuracy_pair(k, w, h, name, sizeof name);
        const FramePair fp = frames_of(p, OF_PIXEL_F32);
        of_config base = lk_config(w, h);
        base.backend = OF_BACKEND_REFERENCE;
        const Run ref = run_frame(base, fp, name);
        const Run r32 = run_frame(on_cuda(base, OF_VARIANT_MULTI_ITER, OF_PRECISION_F32), fp, name);
        const Run r16 = run_frame(on_cuda(base, OF_VARIANT_MULTI_ITER, OF_PRECISION_F16), fp, name);
        if (!ref.ok || !r32.ok || !r16.ok) continue;
        const double er = epe(ref.f, p), e32 = epe(r32.f, p), e16 = epe(r16.f, p);
        const bool ok = e32 <= 1.05 * er + 0.01 && e16 <= 1.05 * e32 + 0.01;
        std::printf("%-26s %9.4f %9.4f %9.4f %8llu %8llu %s\n", name, er, e32, e16,
                    static_cast<unsigned long long>(ref.info.last_iterations),
                    static_cast<unsigned long long>(r32.info.last_iterations), ok ? "ok" : "FAIL");
        CHECK_MSG(e32 <= 1.05 * er + 0.01, "%s: CUDA F32 EPE %.4f vs reference %.4f", name, e32, er);
        CHECK_MSG(e16 <= 1.05 * e32 + 0.01, "%s: F16 EPE %.4f > 1.05 x F32's %.4f + 0.01", name, e16, e32);
    }
}

// ---- the validity output ---------------------------------------------------------------------

// Frame 0's and frame 1's left third constant: no valid window there.
Pair half_flat(uint32_t w, uint32_t h) {
    Pair p = synth_pair(Case::Translation, w, h, 2);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w / 3; ++x) p.i0[static_cast<size_t>(y) * w + x] = p.i1[static_cast<size_t>(y) * w + x] = 128.0f;
    return p;
}

// A validity plane (w x h, rows `stride` bytes apart) back as n values (mask 0 / 255 or the
// confidences); false when a byte of the row padding or the tail changed from 0xA5.
bool plane_values(const std::vector<unsigned char>& b, uint32_t w, uint32_t h, size_t stride, bool mask, Vec* out) {
    const size_t row = mask ? w : static_cast<size_t>(w) * 4;
    out->assign(static_cast<size_t>(w) * h, 0.0f);
    bool pad_ok = true;
    for (size_t i = 0; i < b.size(); ++i) {
        const size_t y = i / stride, x = i % stride;
        if (y >= h || x >= row) {
            pad_ok = pad_ok && b[i] == 0xA5;
            continue;
        }
        if (mask) {
            (*out)[y * w + x] = b[i];
        } else if (x % 4 == 0) {
            std::memcpy(&(*out)[y * w + x / 4], &b[i], 4);
        }
    }
    return pad_ok;
}

struct ValidRun {
    Vec flow, plane;
    uint64_t iterations = 0;
    bool ok = false;
};

// One frame of ctx with the validity plane `vf` in memory `mk` (padded rows, poisoned with 0xA5).
ValidRun valid_frame(of_context* ctx, const FramePair& fp, of_valid_format vf, of_memory_kind mk, const char* what) {
    ValidRun o;
    const uint32_t w = fp.prev.img.width, h = fp.prev.img.height;
    const bool mask = vf == OF_VALID_MASK_U8;
    const size_t stride = mask ? w + 7 : (static_cast<size_t>(w) + 7) * 4, bytes = stride * h + 64;
    std::vector<unsigned char> back(bytes, 0xA5);
    of_status s;
    if (mk == OF_MEMORY_HOST) {
        FlowBuf f = make_flow(w, h);
        f.f.valid_format = vf;
        f.f.valid = back.data();
        f.f.valid_stride = stride;
        s = of_process(ctx, &fp.prev.img, &fp.next.img, &f.f);
        if (s == OF_OK) o.flow = f.extract();
    } else {
        DevFlow df = device_flow(w, h, OF_FLOW_PLANAR, mk);
        DevBuf vb(bytes, mk == OF_MEMORY_CUDA_MAPPED);
        if (!df.a.p || !vb.p) {
            CHECK_MSG(false, "%s: cannot allocate", what);
            return o;
        }
        GPU_CHECK_CUDA(cudaMemset(vb.p, 0xA5, bytes));
        df.f.valid_format = vf;
        df.f.valid = vb.p;
        df.f.valid_stride = stride;
        s = of_process(ctx, &fp.prev.img, &fp.next.img, &df.f);
        if (s == OF_OK) {
            o.flow = df.fetch().extract(); // synchronises the device
            GPU_CHECK_CUDA(cudaMemcpy(back.data(), vb.p, bytes, cudaMemcpyDefault));
        }
    }
    CHECK_MSG(s == OF_OK, "%s: %s (%s)", what, st(s), of_last_error(ctx));
    if (s != OF_OK) return o;
    o.iterations = info_of(ctx).last_iterations;
    const bool pad_ok = plane_values(back, w, h, stride, mask, &o.plane);
    CHECK_MSG(pad_ok, "%s: the row padding or the tail of the validity plane changed", what);
    o.ok = pad_ok;
    return o;
}

const char* memory_str(of_memory_kind k) {
    return k == OF_MEMORY_HOST ? "host" : k == OF_MEMORY_CUDA_DEVICE ? "device" : "mapped";
}

void test_validity() {
    const uint32_t w = 97, h = 61;
    const Pair p = half_flat(w, h);
    const FramePair fp = frames_of(p, OF_PIXEL_F32);
    std::printf("\nvalidity plane (translation %ux%u, its left third flat): host, device, mapped\n", w, h);
    of_config base = lk_config(w, h);
    base.backend = OF_BACKEND_REFERENCE;
    of_context* rctx = create_or_report(base, "reference");
    CHECK(rctx != nullptr);
    if (!rctx) return;
    const ValidRun rmask = valid_frame(rctx, fp, OF_VALID_MASK_U8, OF_MEMORY_HOST, "reference mask");
    const ValidRun rconf = valid_frame(rctx, fp, OF_VALID_CONFIDENCE_F32, OF_MEMORY_HOST, "reference confidence");
    of_destroy(rctx);
    if (!rmask.ok || !rconf.ok) return;
    size_t valid = 0;
    for (float m : rmask.plane) valid += m == 255.0f ? 1 : 0;
    CHECK_MSG(valid > rmask.plane.size() / 3 && valid < rmask.plane.size() * 9 / 10,
              "the case has %zu of %zu valid pixels: it should have both", valid, rmask.plane.size());
    for (of_variant v : kVariants)
        for (of_precision pr : kPrecisions) {
            of_context* ctx = create_or_report(on_cuda(base, v, pr), "validity");
            CHECK(ctx != nullptr);
            if (!ctx) continue;
            FlowBuf plain = make_flow(w, h);
            const of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &plain.f);
            CHECK_MSG(s == OF_OK, "validity: plain frame: %s (%s)", st(s), of_last_error(ctx));
            const Vec want = plain.extract();
            for (of_memory_kind mk : {OF_MEMORY_HOST, OF_MEMORY_CUDA_DEVICE, OF_MEMORY_CUDA_MAPPED}) {
                char what[128];
                std::snprintf(what, sizeof what, "%s %s %s", variant_str(v), precision_str(pr), memory_str(mk));
                const ValidRun m = valid_frame(ctx, fp, OF_VALID_MASK_U8, mk, what);
                const ValidRun c = valid_frame(ctx, fp, OF_VALID_CONFIDENCE_F32, mk, what);
                if (!m.ok || !c.ok) continue;
                bool ok = same_bits(m.flow, want, "flow with a mask") && same_bits(c.flow, want, "flow with a confidence plane");
                size_t agree = 0, consistent = 0, off_edge = 0;
                double most = 0.0;
                for (size_t i = 0; i < m.plane.size(); ++i) {
                    agree += m.plane[i] == rmask.plane[i] ? 1 : 0;
                    consistent +=
                        m.plane[i] == static_cast<float>(oflow::confidence_mask(c.plane[i], base.min_confidence)) ? 1 : 0;
                    const double d = std::fabs(static_cast<double>(c.plane[i]) - static_cast<double>(rconf.plane[i]));
                    most = d > most ? d : most;
                    // A mask may differ only where the reference's confidence lies at the threshold.
                    off_edge += m.plane[i] != rmask.plane[i] &&
                                        std::fabs(static_cast<double>(rconf.plane[i]) - base.min_confidence) > 1e-5
                                    ? 1
                                    : 0;
                }
                const double share = static_cast<double>(agree) / static_cast<double>(m.plane.size());
                if (pr == OF_PRECISION_F32) {
                    // The flow and lambda are the reference's bit for bit; the residual confidence's
                    // exp2f is the device's (2 ulp): within 1e-5.
                    ok = ok && consistent == m.plane.size() && most <= 1e-5 && off_edge == 0;
                    CHECK_MSG(most <= 1e-5, "%s: F32 confidence differs from the reference's by %.3g > 1e-5", what, most);
                    CHECK_MSG(off_edge == 0, "%s: the F32 mask differs from the reference's at %zu pixels off the threshold",
                              what, off_edge);
                } else {
                    ok = ok && consistent == m.plane.size() && share >= 0.95;
                    CHECK_MSG(consistent == m.plane.size(), "%s: the mask is not confidence >= min_confidence at %zu pixels", what,
                              m.plane.size() - consistent);
                    CHECK_MSG(share >= 0.95, "%s: the F16 mask agrees with the reference's on %.1f %% of the pixels", what,
                              100.0 * share);
                }
                std::printf("  %-10s %-4s %-7s mask agrees %5.1f %%  %s\n", variant_str(v), precision_str(pr), memory_str(mk),
                            100.0 * share, ok ? "ok" : "WRONG");
                CHECK_MSG(ok, "%s: validity plane or flow wrong", what);
            }
            of_destroy(ctx);
        }
    // A flat pair: nothing valid, no step, zero flow.
    Pair flat = synth_pair(Case::Translation, w, h, 1);
    std::fill(flat.i0.begin(), flat.i0.end(), 90.0f);
    std::fill(flat.i1.begin(), flat.i1.end(), 90.0f);
    const FramePair ff = frames_of(flat, OF_PIXEL_F32);
    for (of_variant v : kVariants) {
        of_context* ctx = create_or_report(on_cuda(base, v, OF_PRECISION_F32), "flat");
        CHECK(ctx != nullptr);
        if (!ctx) continue;
        const ValidRun m = valid_frame(ctx, ff, OF_VALID_MASK_U8, OF_MEMORY_HOST, "flat pair");
        bool ok = m.ok && m.iterations == 0;
        for (float x : m.plane) ok = ok && x == 0.0f;
        for (float x : m.flow) ok = ok && x == 0.0f;
        std::printf("  flat pair %-10s %llu steps, %s\n", variant_str(v), static_cast<unsigned long long>(m.iterations),
                    ok ? "no valid pixel, zero flow: ok" : "WRONG");
        CHECK_MSG(ok, "flat pair %s: %llu steps, or a valid pixel or a non-zero flow", variant_str(v),
                  static_cast<unsigned long long>(m.iterations));
        of_destroy(ctx);
    }
}

// ---- refusals --------------------------------------------------------------------------------

void test_refusals() {
    struct Bad {
        of_variant v;
        uint32_t bw, bh;
    };
    for (const Bad& b : {Bad{OF_VARIANT_FUSED, 64, 4}, Bad{OF_VARIANT_MULTI_ITER, 32, 16}, Bad{OF_VARIANT_GLOBAL, 64, 32}}) {
        of_config c = on_cuda(lk_config(64, 48), b.v, OF_PRECISION_F32);
        c.block_width = b.bw;
        c.block_height = b.bh;
        of_context* ctx = nullptr;
        const of_status s = of_create(&c, &ctx);
        CHECK_MSG(s == OF_ERR_INVALID_ARGUMENT && ctx == nullptr && std::strstr(of_last_error(nullptr), "block"),
                  "LK %s block %ux%u: %s (%s)", variant_str(b.v), b.bw, b.bh, st(s), of_last_error(nullptr));
        of_destroy(ctx);
    }
    // AUTO picks the CUDA path for LK on a GPU machine (the generic table's crossover).
    check_auto_picks_cuda(lk_config(256, 256), "LK AUTO at 256x256");
}

} // namespace

int main(int argc, char** argv) {
    if (!cuda_ready()) return 77;
    const oflow::Algorithm* lk = oflow::find_algorithm(OF_ALGO_LK);
    if (!lk || !lk->cuda) {
        std::printf("skip: LK's registry entry has no CUDA path in this build (core/lk_algorithm.cpp)\n");
        return 77;
    }
    if (wanted(argc, argv, "stages")) test_stages();
    if (wanted(argc, argv, "frames")) test_frames();
    if (wanted(argc, argv, "accuracy")) test_accuracy();
    if (wanted(argc, argv, "validity")) test_validity();
    if (wanted(argc, argv, "refuse")) test_refusals();
    return oftest::finish("gpu_lk");
}
