// census: OF_ROBUST_CENSUS (core/census.hpp, core/ref/census_ref.cpp), its kernels and the mode
// through the C ABI.
//  - Invariance: the channel of the pair (I, I) and of the pair (I, 1.5 I + 20), each frame's eta
//    from its own noise and contrast (census_eta), agree within 1e-3 relative at every pixel
//    (a gain and an offset leave every census channel unchanged).
//  - Identical frames at zero flow: rho_c = 0 at every pixel; a flat pair: no data term anywhere
//    (every output 0, nothing NaN).
//  - Bands: rows split at 1 and h/2 give the same bits as one call.
//  - The two channels (the census tensor's eigen-channels, core/census.hpp) reproduce the
//    8-channel quadratic up to a constant; tvl1_calc_u2_ref's threshold is the exact minimiser of
//    the two-channel L1 step (no grid point does better) and, with no minor channel, the
//    one-channel kernel's bits.
//  - The noise estimate: Gaussian noise of sigma 3 on a flat frame reads 3 within 10 %.
//  - Through the ABI, TV-L1 (threads 2), the accuracy matrix's translation cell (core/synth_matrix.hpp,
//    384x288, 30.5 px) under each photometric change: census below 0.1 px where robust none is at
//    0.125-0.83 (x86-64: census 0.027-0.046, none 0.125-0.83); on the reference path, and on the NEON
//    kernels where the build has them, within 5 % + 0.02 px of the reference.
//  - HS and CLG through the ABI on the matrix's rotation-zoom cell (test_through_abi_hs_clg).
//  - LK through the ABI on the matrix's translation cell under gain-noise (gain, offset and
//    noise) and shading (test_through_abi_lk).
//  - What it refuses: DIS (OF_ERR_UNSUPPORTED: TV-L1's, HS's, CLG's and LK's only in this
//    version). TV-L1 and LK on backend CUDA are no refusal: they create where a device is, else
//    it is unavailable (OF_ERR_BACKEND_UNAVAILABLE); LK on AUTO without a device runs a CPU path;
//    tests/gpu/gpu_census.cpp checks the CUDA path's flow.
#include "tests/check.hpp"
#include "tests/host_plane.hpp"
#include "tests/test_util.hpp"

#include "core/census.hpp"
#include "core/ref/kernels_ref.hpp"
#include "core/synth_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

using namespace oflow;

// Under ASan + UBSan (the solves run about 4x slower) the cells through the ABI are the adverse
// ones alone: TV-L1 gain-noise and shading (not none and ramp), HS and CLG shading, LK gain-noise;
// 15 solves instead of 30, each cell still checked against its bound, robust none and the NEON
// path. The other builds run them all.
#if defined(__SANITIZE_ADDRESS__)
#define OF_CENSUS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OF_CENSUS_SANITIZED 1
#endif
#endif

namespace {

using Img = oftest::HostPlane;

// A smooth texture of several sinusoids on 0..255 (grey 60..190).
Img texture(int w, int h) {
    Img m(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const float fx = static_cast<float>(x), fy = static_cast<float>(y);
            m.v[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)] =
                125.0f + 30.0f * std::sin(0.31f * fx + 0.17f * fy) + 20.0f * std::sin(0.11f * fx - 0.43f * fy) +
                10.0f * std::cos(0.35f * fx + 0.005f * fy * fy);
        }
    return m;
}

double rms_gradient(Plane p) {
    return std::sqrt(texture_energy_ref(p, 0, p.h) / (static_cast<double>(p.w) * static_cast<double>(p.h)));
}

float eta_of(Plane p) {
    return census_eta(census_noise_sigma(census_noise_sum_ref(p, 0, p.h), p.w, p.h), rms_gradient(p));
}

struct Out {
    Img ax, ay, grad, rho, q, rho2; // the major channel, then the minor one (Tvl1Minor)
    Out(int w, int h) : ax(w, h), ay(w, h), grad(w, h), rho(w, h), q(w, h), rho2(w, h) {}
};

// The census channel of (i0, i1) at zero flow, rows split at `splits` (ascending, within 0..h).
void channel(Img& i0, Img& i1, Out& o, const std::vector<int>& splits) {
    const int w = i0.w, h = i0.h;
    Img gx(w, h), gy(w, h), u(w, h), v(w, h);
    gradient_ref(i1.plane(), gx.plane(), gy.plane(), 0, h);
    CensusArgs a;
    a.i0 = i0.plane();
    a.i1w = i1.plane();
    a.gx = gx.plane();
    a.gy = gy.plane();
    a.u1 = u.plane();
    a.u2 = v.plane();
    a.ax = o.ax.plane();
    a.ay = o.ay.plane();
    a.grad = o.grad.plane();
    a.rho_c = o.rho.plane();
    a.minor.q = o.q.plane();
    a.minor.rho_c = o.rho2.plane();
    a.eta0 = eta_of(i0.plane());
    a.eta1 = eta_of(i1.plane());
    int y0 = 0;
    for (int s : splits) {
        census_tvl1_ref(a, y0, s);
        y0 = s;
    }
    census_tvl1_ref(a, y0, h);
}

void test_invariance() {
    const int w = 96, h = 64;
    Img i0 = texture(w, h), i1 = i0, j1 = i0;
    for (float& x : j1.v) x = 1.5f * x + 20.0f;
    Out a(w, h), b(w, h);
    channel(i0, i1, a, {});
    channel(i0, j1, b, {});
    // Per-pixel values first, then their maxima with std::max_element: gcc 12's aarch64
    // vectoriser crashed (internal compiler error) on the fmax reductions in one loop.
    const std::size_t n = a.ax.v.size();
    std::vector<double> rel(n), rel_minor(n), rho_abs(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double scale = std::fabs(a.ax.v[i]) + std::fabs(a.ay.v[i]) + 1e-3;
        const double d = std::fabs(a.ax.v[i] - b.ax.v[i]) + std::fabs(a.ay.v[i] - b.ay.v[i]) +
                         std::fabs(a.rho.v[i] - b.rho.v[i]);
        rel[i] = d / scale;
        // the minor channel a2 = q (-ay, ax) against its own size
        const double m_scale = a.q.v[i] * scale + 1e-3;
        const double dm = std::fabs(a.q.v[i] * a.ay.v[i] - b.q.v[i] * b.ay.v[i]) +
                          std::fabs(a.q.v[i] * a.ax.v[i] - b.q.v[i] * b.ax.v[i]) + std::fabs(a.rho2.v[i] - b.rho2.v[i]);
        rel_minor[i] = dm / m_scale;
        rho_abs[i] = std::fabs(a.rho.v[i]);
        CHECK(std::isfinite(b.ax.v[i]) && std::isfinite(b.rho.v[i]));
    }
    const double worst = *std::max_element(rel.begin(), rel.end());
    const double worst_minor = *std::max_element(rel_minor.begin(), rel_minor.end());
    const double rho_max = *std::max_element(rho_abs.begin(), rho_abs.end());
    std::printf("gain 1.5, offset 20: worst relative difference %.2e (minor channel %.2e); identical frames: max |rho_c| %.2e\n",
                worst, worst_minor, rho_max);
    CHECK_MSG(worst < 1e-3, "census channel changed by a gain and an offset: %.3e relative", worst);
    CHECK_MSG(worst_minor < 1e-3, "census minor channel changed by a gain and an offset: %.3e relative", worst_minor);
    CHECK_MSG(rho_max == 0.0, "identical frames at zero flow: rho_c %.3e", rho_max);
    // Some pixels carry data (the test is not vacuous).
    const double g = *std::max_element(a.grad.v.begin(), a.grad.v.end());
    CHECK_MSG(g > 1.0, "no data term anywhere (largest |a|^2 %.3e)", g);
}

void test_flat_and_bands() {
    const int w = 40, h = 30;
    Img f0(w, h, 77.0f), f1(w, h, 77.0f);
    Out o(w, h);
    channel(f0, f1, o, {});
    bool zero = true;
    for (std::size_t i = 0; i < o.ax.v.size(); ++i)
        zero = zero && o.ax.v[i] == 0.0f && o.ay.v[i] == 0.0f && o.grad.v[i] == 0.0f && o.rho.v[i] == 0.0f &&
               o.q.v[i] == 0.0f && o.rho2.v[i] == 0.0f;
    CHECK_MSG(zero, "a flat pair has a data term");

    Img i0 = texture(w, h), i1 = texture(w, h);
    for (float& x : i1.v) x = 0.8f * x + 3.0f * std::sin(x);
    Out one(w, h), split(w, h);
    channel(i0, i1, one, {});
    channel(i0, i1, split, {1, h / 2});
    CHECK(oftest::same_bits(one.ax.v, split.ax.v, "census bands: ax"));
    CHECK(oftest::same_bits(one.ay.v, split.ay.v, "census bands: ay"));
    CHECK(oftest::same_bits(one.grad.v, split.grad.v, "census bands: grad"));
    CHECK(oftest::same_bits(one.rho.v, split.rho.v, "census bands: rho_c"));
    CHECK(oftest::same_bits(one.q.v, split.q.v, "census bands: minor q"));
    CHECK(oftest::same_bits(one.rho2.v, split.rho2.v, "census bands: minor rho_c"));
}

// The two channels carry the whole census quadratic: at interior pixels of a textured pair, for
// increments du, sum_k (a_k . du + r_k)^2 over the 8 census channels (computed here from
// core/census.hpp's census_channel, independently of the kernel) minus sum_i (a_i . du + rho_i)^2
// over the kernel's two channels stays the same constant (relative 1e-3 of the quadratic's size).
void test_two_channels_quadratic() {
    const int w = 48, h = 40;
    Img i0 = texture(w, h), i1 = texture(w, h);
    for (std::size_t i = 0; i < i1.v.size(); ++i) i1.v[i] = 0.9f * i1.v[(i + 1) % i1.v.size()] + 4.0f;
    Out o(w, h);
    channel(i0, i1, o, {});
    Img gx(w, h), gy(w, h);
    gradient_ref(i1.plane(), gx.plane(), gy.plane(), 0, h);
    const float e0 = eta_of(i0.plane()), e1 = eta_of(i1.plane());
    const int ox[kCensusN] = {-1, 0, 1, -1, 1, -1, 0, 1}, oy[kCensusN] = {-1, -1, -1, 0, 0, 1, 1, 1};
    const double du[4][2] = {{0.3, -0.2}, {-1.1, 0.4}, {0.05, 0.9}, {2.0, 1.5}};
    double worst = 0.0, minor_max = 0.0;
    int checked = 0;
    for (int y = 2; y < h - 2; y += 3)
        for (int x = 2; x < w - 2; x += 3) {
            const std::size_t c = static_cast<std::size_t>(y * w + x);
            double kx[kCensusN], ky[kCensusN], r[kCensusN];
            for (int k = 0; k < kCensusN; ++k) {
                const std::size_t n = static_cast<std::size_t>((y + oy[k]) * w + x + ox[k]);
                float c1, dc1, c0, dc0;
                census_channel(i1.v[n] - i1.v[c], e1 * e1, &c1, &dc1);
                census_channel(i0.v[n] - i0.v[c], e0 * e0, &c0, &dc0);
                kx[k] = kCensusScale * dc1 * (gx.v[n] - gx.v[c]);
                ky[k] = kCensusScale * dc1 * (gy.v[n] - gy.v[c]);
                r[k] = kCensusScale * (c1 - c0);
            }
            const double a1x = o.ax.v[c], a1y = o.ay.v[c], q = o.q.v[c];
            const double a2x = -q * a1y, a2y = q * a1x;
            minor_max = std::max(minor_max, q);
            CHECK_MSG(q >= 0.0 && q <= 1.0 + 1e-6, "minor q %.4f at (%d, %d): lambda2 above lambda1", q, x, y);
            auto diff = [&](double dx, double dy, double* size) {
                double full = 0.0, two = 0.0;
                for (int k = 0; k < kCensusN; ++k) full += (kx[k] * dx + ky[k] * dy + r[k]) * (kx[k] * dx + ky[k] * dy + r[k]);
                const double p1 = a1x * dx + a1y * dy + o.rho.v[c], p2 = a2x * dx + a2y * dy + o.rho2.v[c];
                two = p1 * p1 + p2 * p2;
                *size = full + 1e-3;
                return full - two;
            };
            double s0 = 0.0;
            const double d0 = diff(0.0, 0.0, &s0);
            for (const auto& d : du) {
                double s = 0.0;
                const double e = std::fabs(diff(d[0], d[1], &s) - d0) / std::max(s, s0);
                worst = std::max(worst, e);
            }
            ++checked;
        }
    std::printf("two channels against the 8-channel quadratic: %d pixels, worst relative change %.2e, largest q %.3f\n",
                checked, worst, minor_max);
    CHECK_MSG(worst < 1e-3, "the two census channels miss part of the quadratic: %.3e relative", worst);
    CHECK_MSG(minor_max > 0.05, "no minor channel anywhere (largest q %.4f): the test is vacuous", minor_max);
}

// tvl1_calc_u2_ref's threshold is the exact minimiser over d of
//   |d|^2 / (2 lt) + |rho1 + a1 . d| + |rho2 + a2 . d|   (a2 = q (-a1y, a1x))
// at every pixel (duals 0, so u_new = u + d): no point of a fine grid around it does better
// (by 1e-4 of the objective), and with q = 0 it gives tvl1_calc_u_ref's bits.
void test_two_channel_threshold() {
    const int w = 64, h = 4;
    Img u1(w, h), u2(w, h), z(w, h), ix(w, h), iy(w, h), g(w, h), rc(w, h), q(w, h), rc2(w, h);
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> ua(-20.0f, 20.0f), ur(-30.0f, 30.0f), uq(0.0f, 1.0f), uu(-2.0f, 2.0f);
    for (std::size_t i = 0; i < u1.v.size(); ++i) {
        u1.v[i] = uu(rng);
        u2.v[i] = uu(rng);
        ix.v[i] = ua(rng);
        iy.v[i] = ua(rng);
        g.v[i] = ix.v[i] * ix.v[i] + iy.v[i] * iy.v[i];
        rc.v[i] = ur(rng);
        q.v[i] = i % 7 == 0 ? 0.0f : uq(rng);
        rc2.v[i] = ur(rng);
    }
    const Img v1 = u1, v2 = u2;
    Tvl1IterArgs a;
    a.u1 = u1.plane();
    a.u2 = u2.plane();
    a.p11 = a.p12 = a.p21 = a.p22 = z.plane();
    a.i1wx = ix.plane();
    a.i1wy = iy.plane();
    a.grad = g.plane();
    a.rho_c = rc.plane();
    a.lt = 0.15f * 0.3f;
    a.theta = 0.3f;
    a.tau_over_theta = 0.25f / 0.3f;
    Tvl1Minor m;
    m.q = q.plane();
    m.rho_c = rc2.plane();
    tvl1_calc_u2_ref(a, m, 0, h);
    int beaten = 0;
    double worst = 0.0;
    for (std::size_t i = 0; i < u1.v.size(); ++i) {
        const double lt = a.lt, a1x = ix.v[i], a1y = iy.v[i], a2x = -q.v[i] * iy.v[i], a2y = q.v[i] * ix.v[i];
        const double r1 = rc.v[i] + a1x * v1.v[i] + a1y * v2.v[i], r2 = rc2.v[i] + a2x * v1.v[i] + a2y * v2.v[i];
        auto obj = [&](double dx, double dy) {
            return (dx * dx + dy * dy) / (2.0 * lt) + std::fabs(r1 + a1x * dx + a1y * dy) + std::fabs(r2 + a2x * dx + a2y * dy);
        };
        const double dx = u1.v[i] - v1.v[i], dy = u2.v[i] - v2.v[i];
        const double f = obj(dx, dy);
        // The step is at most lt (|a1| + |a2|) long: search that disc's square on a 201 x 201 grid.
        const double reach = lt * (std::hypot(a1x, a1y) + std::hypot(a2x, a2y)) + 1e-6;
        double best = f;
        for (int gy2 = -100; gy2 <= 100; ++gy2)
            for (int gx2 = -100; gx2 <= 100; ++gx2) best = std::min(best, obj(reach * gx2 / 100.0, reach * gy2 / 100.0));
        const double gap = (f - best) / (f + 1e-9);
        worst = std::max(worst, gap);
        if (gap > 1e-4) ++beaten;
    }
    std::printf("two-channel threshold: %zu pixels, %d beaten by the grid, worst relative gap %.2e\n", u1.v.size(), beaten,
                worst);
    CHECK_MSG(beaten == 0, "the two-channel threshold is not the minimiser at %d pixels (worst %.3e)", beaten, worst);
    // q = 0 everywhere: the one-channel kernel's bits.
    Img w1 = v1, w2 = v2, x1 = v1, x2 = v2;
    for (float& x : q.v) x = 0.0f;
    a.u1 = w1.plane();
    a.u2 = w2.plane();
    tvl1_calc_u2_ref(a, m, 0, h);
    a.u1 = x1.plane();
    a.u2 = x2.plane();
    tvl1_calc_u_ref(a, 0, h);
    CHECK(oftest::same_bits(w1.v, x1.v, "calc_u2 with q = 0: u1"));
    CHECK(oftest::same_bits(w2.v, x2.v, "calc_u2 with q = 0: u2"));
}

void test_noise_estimate() {
    const int w = 200, h = 150;
    Img m(w, h);
    std::mt19937 rng(7);
    std::normal_distribution<float> n(0.0f, 3.0f);
    for (float& x : m.v) x = 100.0f + n(rng);
    const double s = census_noise_sigma(census_noise_sum_ref(m.plane(), 0, h), w, h);
    std::printf("noise sigma 3: estimated %.3f\n", s);
    CHECK_MSG(std::fabs(s - 3.0) < 0.3, "noise estimate %.3f for sigma 3", s);
}

double solve_epe(of_algorithm algo, oflow::synth::Motion motion, oflow::synth::Photometry ph, of_robust r,
                 of_backend backend, bool* ran) {
    int w = 0, h = 0;
    oflow::synth::motion_size(motion, &w, &h);
    const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    std::vector<float> i0(n), i1(n), gu(n), gv(n), u(n), v(n);
    oflow::synth::generate_cell(motion, ph, w, h, 1u, i0.data(), i1.data(), gu.data(), gv.data(), w);
    of_config c = oftest::algo_config(algo, static_cast<uint32_t>(w), static_cast<uint32_t>(h));
    c.format = OF_PIXEL_F32;
    c.threads = 2;
    c.backend = backend;
    c.robust = r;
    c.init = OF_INIT_NONE; // the data terms alone (tests/init_dis.cpp has the default's DIS pass)
    of_context* ctx = nullptr;
    *ran = of_create(&c, &ctx) == OF_OK;
    if (!*ran) return -1.0;
    const of_image fa = oftest::host_f32_image(i0.data(), static_cast<uint32_t>(w), static_cast<uint32_t>(h));
    const of_image fb = oftest::host_f32_image(i1.data(), static_cast<uint32_t>(w), static_cast<uint32_t>(h));
    of_flow f = oftest::host_planar_flow(u.data(), v.data(), static_cast<uint32_t>(w), static_cast<uint32_t>(h));
    CHECK(of_process(ctx, &fa, &fb, &f) == OF_OK);
    of_destroy(ctx);
    double e = 0.0;
    for (std::size_t i = 0; i < n; ++i) e += std::hypot(u[i] - gu[i], v[i] - gv[i]);
    return e / static_cast<double>(n);
}

// One cell of the matrix through the ABI: census on the reference path, robust none on the
// reference path, census on the NEON path (ran_neon false where the build has no NEON kernels).
struct CellRuns {
    double census, none, neon;
    bool ran, ran_none, ran_neon;
};

CellRuns run_cell(of_algorithm a, oflow::synth::Motion m, oflow::synth::Photometry ph) {
    CellRuns r;
    r.census = solve_epe(a, m, ph, OF_ROBUST_CENSUS, OF_BACKEND_REFERENCE, &r.ran);
    r.none = solve_epe(a, m, ph, OF_ROBUST_NONE, OF_BACKEND_REFERENCE, &r.ran_none);
    r.neon = solve_epe(a, m, ph, OF_ROBUST_CENSUS, OF_BACKEND_NEON, &r.ran_neon);
    CHECK(r.ran && r.ran_none);
    if (r.ran_neon)
        CHECK_MSG(std::fabs(r.neon - r.census) <= 0.05 * r.census + 0.02, "algorithm %d: NEON %.4f against reference %.4f",
                  static_cast<int>(a), r.neon, r.census);
    return r;
}

void test_through_abi() {
    using oflow::synth::Photometry;
#if defined(OF_CENSUS_SANITIZED)
    const Photometry all[] = {Photometry::GainNoise, Photometry::Shading};
#else
    const Photometry all[] = {Photometry::None, Photometry::GainNoise, Photometry::Ramp, Photometry::Shading};
#endif
    for (Photometry ph : all) {
        const CellRuns r = run_cell(OF_ALGO_TVL1, oflow::synth::Motion::Translation, ph);
        std::printf("translation / %-10s census %.4f (NEON %s%.4f), robust none %.4f\n",
                    oflow::synth::photometry_name(ph), r.census, r.ran_neon ? "" : "not built: ", r.neon, r.none);
        CHECK_MSG(r.census >= 0.0 && r.census < 0.1, "census EPE %.4f", r.census);
        CHECK_MSG(r.none > 0.1, "robust none EPE %.4f: the cell no longer shows what census is for", r.none);
    }
}

// HS and CLG take the census channels' summed tensor: on the matrix's rotation-zoom cell
// (384x288, 3.5 degrees and 5 % zoom), without and under shading, census below 0.4 px and below
// robust none (x86-64: HS 0.20 / 0.29 against 0.41 / 26.1, CLG 0.11 / 0.14 against 0.25 / 22.1);
// NEON within 5 % + 0.02 px of the reference.
void test_through_abi_hs_clg() {
    using oflow::synth::Photometry;
    const of_algorithm algos[] = {OF_ALGO_HS, OF_ALGO_CLG};
#if defined(OF_CENSUS_SANITIZED)
    const Photometry phs[] = {Photometry::Shading};
#else
    const Photometry phs[] = {Photometry::None, Photometry::Shading};
#endif
    for (of_algorithm a : algos)
        for (Photometry ph : phs) {
            const CellRuns r = run_cell(a, oflow::synth::Motion::RotationZoom, ph);
            const char* name = a == OF_ALGO_HS ? "HS" : "CLG";
            std::printf("%-3s rotation-zoom / %-8s census %.4f (NEON %s%.4f), robust none %.4f\n", name,
                        oflow::synth::photometry_name(ph), r.census, r.ran_neon ? "" : "not built: ", r.neon, r.none);
            CHECK_MSG(r.census >= 0.0 && r.census < 0.4 && r.census < r.none, "%s census EPE %.4f (robust none %.4f)", name,
                      r.census, r.none);
        }
}

// LK takes the census channels' summed tensor through its window sums (core/lk_kernels.hpp):
// on the matrix's translation cell (384x288, 30.5 px) under gain-noise and shading, census
// below 0.3 px and below robust none (x86-64, NEON path: 0.16 / 0.13 against 2.39 / 2.92); NEON
// within 5 % + 0.02 px of the reference (run_cell).
void test_through_abi_lk() {
    using oflow::synth::Photometry;
#if defined(OF_CENSUS_SANITIZED)
    const Photometry phs[] = {Photometry::GainNoise};
#else
    const Photometry phs[] = {Photometry::GainNoise, Photometry::Shading};
#endif
    for (Photometry ph : phs) {
        const CellRuns r = run_cell(OF_ALGO_LK, oflow::synth::Motion::Translation, ph);
        std::printf("LK  translation / %-10s census %.4f (NEON %s%.4f), robust none %.4f\n",
                    oflow::synth::photometry_name(ph), r.census, r.ran_neon ? "" : "not built: ", r.neon, r.none);
        CHECK_MSG(r.census >= 0.0 && r.census < 0.3 && r.census < r.none, "LK census EPE %.4f (robust none %.4f)",
                  r.census, r.none);
    }
}

void test_refusals() {
    const of_algorithm others[] = {OF_ALGO_DIS};
    for (of_algorithm a : others) {
        of_config c = oftest::algo_config(a, 64, 48);
        c.robust = OF_ROBUST_CENSUS;
        of_context* ctx = nullptr;
        const of_status s = of_create(&c, &ctx);
        CHECK_MSG(s == OF_ERR_UNSUPPORTED && ctx == nullptr, "algorithm %d with census: %s", static_cast<int>(a),
                  oftest::st(s));
        if (ctx) of_destroy(ctx);
    }
    of_config c = oftest::tvl1_config(64, 48);
    c.robust = OF_ROBUST_CENSUS;
    c.backend = OF_BACKEND_CUDA;
    of_context* ctx = nullptr;
    const of_status s = of_create(&c, &ctx);
    CHECK_MSG((s == OF_OK && ctx != nullptr) || (s == OF_ERR_BACKEND_UNAVAILABLE && ctx == nullptr),
              "census on backend CUDA: %s", oftest::st(s));
    if (ctx) of_destroy(ctx);
    // LK's census has a CUDA path too (cuda/lk_census_cuda.cuh): backend CUDA creates where a
    // device is, else it is unavailable (never unsupported); AUTO creates, and runs a CPU path
    // where no device is usable.
    of_config l = oftest::algo_config(OF_ALGO_LK, 64, 48);
    l.robust = OF_ROBUST_CENSUS;
    l.backend = OF_BACKEND_CUDA;
    ctx = nullptr;
    const of_status sl = of_create(&l, &ctx);
    CHECK_MSG((sl == OF_OK && ctx != nullptr) || (sl == OF_ERR_BACKEND_UNAVAILABLE && ctx == nullptr),
              "LK census on backend CUDA: %s", oftest::st(sl));
    const bool device = sl == OF_OK;
    if (ctx) of_destroy(ctx);
    l.backend = OF_BACKEND_AUTO;
    ctx = nullptr;
    const of_status sa = of_create(&l, &ctx);
    of_info info;
    CHECK_MSG(sa == OF_OK && ctx != nullptr, "LK census on AUTO: %s", oftest::st(sa));
    if (ctx) {
        std::memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        CHECK_MSG(of_get_info(ctx, &info) == OF_OK && (device || info.backend != OF_BACKEND_CUDA),
                  "LK census on AUTO without a device ran on %d", static_cast<int>(info.backend));
        of_destroy(ctx);
    }
}

} // namespace

int main() {
    test_invariance();
    test_flat_and_bands();
    test_two_channels_quadratic();
    test_two_channel_threshold();
    test_noise_estimate();
    test_refusals();
    if (oftest::backend_forced()) {
        std::printf("OFLOW_FORCE_BACKEND set: the ABI cases name their paths, skipped\n");
    } else {
        test_through_abi();
        test_through_abi_hs_clg();
        test_through_abi_lk();
    }
    return oftest::finish("census");
}
