// neon_hs_kernels: every NEON entry of the Horn-Schunck / CLG family (core/hs_kernels.hpp;
// neon/hs_stages_neon.cpp, neon/hs_solvers_neon.cpp, neon/hs_f16_neon.cpp) against the
// reference kernel of the same stage (checkasm style): widths 1..20, around multiples of 4 and
// 8 up to 65, and 641; heights 1..7; odd pitches and pitch = width; row bands (rows outside the
// band, and every byte past a row's last output, keep their bytes); planes between
// inaccessible pages with NaN row padding (tests/neon/guarded_plane.hpp: no over-read).
// Inputs: random and adversarial gradients (zero, 1e-3, 20, 255, 255-level edges), flows (zero,
// 1e-6, +-2, +-50, a ramp, a +-5 checkerboard), alpha 0.01, 1, 15, 1000, omega 0.5, 1.0, 1.5,
// rank-one (HS) and smoothed (CLG) tensors.
//
// Tolerances, each next to its check:
//  - derivatives, tensor, rb_split, rb_merge: bitwise (the reference's operations in its order);
//  - batched blur: kTolF32 (1e-5) of the channel's magnitude (blur_h/v_neon's own tolerance);
//  - F32 solvers: kTolF32 of the sum of the magnitudes of the terms that make the value (the
//    2x2 solve's products and determinant, HS's closed form), so that a value after
//    cancellation is compared with what cancelled (the compiler fuses multiply-adds in both);
//  - F16 Jacobi updates: the F32 bound plus the bound of neon/hs_f16_neon.cpp's top comment,
//    per value: 2^-11 (3 M + |c| + 3.5 Lam) + 2^-20 px on each Laplacian, times the update's
//    partial derivatives, times 1.05 for the second-order terms the bound leaves out;
//  - change sums: sum over the values of 2 |change| e + e^2 (e: the value's bound), plus
//    1e-9 of the sum (double summation order), plus (w / 8 + 4) 2^-24 of it on the F16 path
//    (its rows are summed in F32 lanes): what the per-value bounds allow, rather than a fixed
//    relative tolerance, which a pixel the update barely moves would break;
//  - 300 F16 Jacobi iterations against 300 reference iterations on a smooth synthetic pair:
//    max |u16 - u| <= 5e-3 px (the F16 fixed-point tolerance of of_selftest's HS cases,
//    core/hs_selftest.cpp);
//  - the whole HS and CLG flow through the public API, NEON F16 against NEON F32: of_get_info
//    says F16, mean |F16 - F32| <= 5e-3 px and the end-point error within 0.01 px of F32's
//    (neon_flow's bounds for TV-L1 F16), bitwise the same with 1 and 3 threads.
// The 2x2 solves (CLG Jacobi, SOR) at alpha < 1 get rank-one tensors only with the zero and 1e-3
// gradients (the larger ones a smoothed tensor): from |grad| ~ 40 on at alpha 0.01, F32's own
// rounding of the determinant (2^-23 j11 j22) exceeds a2 (j11 + j22) and the reference is
// meaningless there (core/hs_kernels.hpp, "Conditioning"). HS's closed form gets every case.
// The largest error per kernel is printed.
#include "tests/check.hpp"
#include "core/hs_kernels.hpp"
#include "core/ref/hs_ref.hpp"
#include "core/ref/kernels_ref.hpp"
#include "neon/kernels_neon.hpp"
#include "neon/neon_kernels.hpp"
#include "tests/neon/guarded_plane.hpp"
#include "tests/test_util.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

using namespace oflow;
using namespace neontest;

namespace {

const int kWidths[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18,
                       19, 20, 23, 24, 25, 31, 32, 33, 39, 40, 41, 47, 48, 49, 63, 64, 65, 641};
const int kHeights[] = {1, 2, 3, 4, 5, 7};

int height_for(int w, int case_no) { return w > 100 ? 3 + case_no % 2 : kHeights[case_no % 6]; }

const double kU16 = 1.0 / 2048.0;       // F16's unit roundoff, 2^-11
const double kF16Abs = 1.0 / 1048576.0; // 2^-20 px: results below F16's normal range
const double kF16Margin = 1.05;         // second-order terms of the F16 bound

// The F16 kernels are called directly: wherever they are built (emulated through SIMDe on x86-64,
// where they are never installed), as on an FP16 CPU.
#if defined(OF_NEON_F16)
bool f16_kernels() { return neon_f16_kernels_callable(); }
#endif

/// A stage name that outlives its caller's buffer (record() keeps the pointer): the strings of
/// a vector that never reallocates (64 names at most).
const char* intern(const char* name) {
    static std::vector<std::string> names;
    if (names.empty()) names.reserve(64);
    for (const std::string& n : names)
        if (n == name) return n.c_str();
    if (names.size() == names.capacity()) return "(too many stage names)";
    names.push_back(name);
    return names.back().c_str();
}

/// True when no byte differs from snap except the first allowed(y) bytes of each row y.
template <class Allowed>
bool untouched_except(const GPlane& g, const std::vector<unsigned char>& snap, Allowed allowed) {
    const unsigned char* b = g.bytes();
    const std::size_t rowb = static_cast<std::size_t>(g.p.pitch) * 4u;
    for (std::size_t i = 0; i < snap.size(); ++i) {
        const int y = static_cast<int>(i / rowb);
        if (i % rowb < allowed(y)) continue;
        if (b[i] != snap[i]) return false;
    }
    return true;
}

// ---- content -------------------------------------------------------------------------------------
enum class Grad { Zero, Tiny, Mid, Strong, Edges };
const int kGrads = 5;
enum class Flow { Zero, Tiny, Random, Large, Ramp, Checker };
const int kFlows = 6;
const float kAlphas[] = {0.01f, 1.0f, 15.0f, 1000.0f};

const char* grad_name(Grad g) {
    static const char* n[] = {"zero", "1e-3", "20", "255", "edges"};
    return n[static_cast<int>(g)];
}
const char* flow_name(Flow f) {
    static const char* n[] = {"zero", "1e-6", "2", "50", "ramp", "checker"};
    return n[static_cast<int>(f)];
}

float grad_value(Grad g, int x, int y, int c, Rng& rng) {
    switch (g) {
    case Grad::Zero: return 0.0f;
    case Grad::Tiny: return rng.uni(-1e-3f, 1e-3f);
    case Grad::Mid: return rng.uni(-20.0f, 20.0f);
    case Grad::Strong: return rng.uni(-255.0f, 255.0f);
    case Grad::Edges: return (((x >> 1) + y + c) & 1) ? 255.0f : (c == 2 ? rng.uni(-255.0f, 255.0f) : -255.0f);
    }
    return 0.0f;
}

float flow_value(Flow f, int x, int y, bool v, Rng& rng) {
    switch (f) {
    case Flow::Zero: return 0.0f;
    case Flow::Tiny: return rng.uni(-1e-6f, 1e-6f);
    case Flow::Random: return rng.uni(-2.0f, 2.0f);
    case Flow::Large: return rng.uni(-50.0f, 50.0f);
    case Flow::Ramp:
        return v ? 0.7f - 0.013f * static_cast<float>(x) + 0.021f * static_cast<float>(y)
                 : 1.3f + 0.017f * static_cast<float>(x) - 0.009f * static_cast<float>(y);
    case Flow::Checker: return ((x + y) & 1) ? 5.0f : -5.0f;
    }
    return 0.0f;
}

struct HsPlanes {
    GPlane du, dv, nu, nv, ru, rv, ix, iy, it;
    GPlane j[kHsChannels];
    HsPlanes(int w, int h, std::ptrdiff_t pitch, bool flush)
        : du(w, h, pitch, flush), dv(w, h, pitch, !flush), nu(w, h, pitch, flush), nv(w, h, pitch, !flush),
          ru(w, h, pitch, true), rv(w, h, pitch, true), ix(w, h, pitch, flush), iy(w, h, pitch, !flush),
          it(w, h, pitch, flush), j{{w, h, pitch, flush},
                                    {w, h, pitch, !flush},
                                    {w, h, pitch, flush},
                                    {w, h, pitch, !flush},
                                    {w, h, pitch, flush}} {}
    bool ok() const {
        bool o = du.ok() && dv.ok() && nu.ok() && nv.ok() && ru.ok() && rv.ok() && ix.ok() && iy.ok() && it.ok();
        for (const GPlane& g : j) o = o && g.ok();
        return o;
    }
};

// Gradients, flow and the tensor of their products; `smooth`: j12 shrunk so that
// j11 j22 - j12^2 > 0, as Gaussian smoothing makes it (CLG), else rank one (HS's tensor).
void fill_hs(HsPlanes& s, Rng& rng, Grad g, Flow f, bool smooth) {
    const int w = s.du.p.w, h = s.du.p.h;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const float gx = grad_value(g, x, y, 0, rng), gy = grad_value(g, x, y, 1, rng);
            const float gt = grad_value(g, x, y, 2, rng);
            s.du.at(x, y) = flow_value(f, x, y, false, rng);
            s.dv.at(x, y) = flow_value(f, x, y, true, rng);
            s.ix.at(x, y) = gx;
            s.iy.at(x, y) = gy;
            s.it.at(x, y) = gt;
            const float k = smooth ? rng.uni(0.2f, 0.9f) : 1.0f;
            s.j[kJ11].at(x, y) = gx * gx;
            s.j[kJ12].at(x, y) = k * gx * gy;
            s.j[kJ13].at(x, y) = gx * gt;
            s.j[kJ22].at(x, y) = gy * gy;
            s.j[kJ23].at(x, y) = gy * gt;
        }
}

// ---- error scales -------------------------------------------------------------------------------
double clamped(const Plane& p, int x, int y) {
    const int xx = x < 0 ? 0 : (x >= p.w ? p.w - 1 : x);
    const int yy = y < 0 ? 0 : (y >= p.h ? p.h - 1 : y);
    return p.row(yy)[xx];
}

/// m(|u|): the 9-point mean of the neighbours' magnitudes.
double mean9_abs(const Plane& p, int x, int y) {
    auto a = [&](int dx, int dy) { return std::fabs(clamped(p, x + dx, y + dy)); };
    return (a(-1, 0) + a(1, 0) + a(0, -1) + a(0, 1)) / 6.0 + (a(-1, -1) + a(1, -1) + a(-1, 1) + a(1, 1)) / 12.0;
}

/// The F16 Laplacian's bound eL (neon/hs_f16_neon.cpp).
double f16_laplacian_bound(const Plane& p, int x, int y) {
    const double c = clamped(p, x, y);
    auto d = [&](int dx, int dy) { return clamped(p, x + dx, y + dy) - c; };
    const double lam = (2.0 * std::fabs(d(-1, 0) + d(1, 0) + d(0, -1) + d(0, 1)) +
                        std::fabs(d(-1, -1) + d(1, -1) + d(-1, 1) + d(1, 1))) /
                       12.0;
    return kU16 * (3.0 * mean9_abs(p, x, y) + std::fabs(c) + 3.5 * lam) + kF16Abs;
}

/// Sum of the magnitudes of the terms of the 2x2 solve (Cramer's rule), divided by det.
double solve2_scale(double j11, double j12, double j13, double j22, double j23, double a2, double mu, double mv) {
    const double A = j11 + a2, C = j22 + a2, B = std::fabs(j12);
    const double r1 = a2 * mu + std::fabs(j13), r2 = a2 * mv + std::fabs(j23);
    const double det = A * C - j12 * j12;
    const double num = C * r1 + B * r2 + A * r2 + B * r1;
    const double dterms = A * C + B * B;
    const double u = num / det;
    return (num + u * dterms) / det + 1e-30;
}

// ---- per-warp stages ----------------------------------------------------------------------------
void check_stages(Rng& rng) {
    int case_no = 0;
    for (int w : kWidths)
        for (int flush = 0; flush < 2; ++flush) {
            const int h = height_for(w, case_no);
            const std::ptrdiff_t pitch = pitch_for(w, case_no % 3 == 0);
            ++case_no;
            GPlane i0(w, h, pitch, flush != 0), i1(w, h, pitch, flush == 0);
            HsPlanes r(w, h, pitch, true), n(w, h, pitch, flush != 0);
            if (!i0.ok() || !i1.ok() || !r.ok() || !n.ok()) {
                CHECK(false);
                return;
            }
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const int k = case_no % 4;
                    i0.at(x, y) = k == 0 ? rng.uni(0.0f, 255.0f)
                                         : (k == 1 ? (((x + y) & 1) ? 255.0f : 0.0f)
                                                   : 117.0f + 0.37f * static_cast<float>(3 * x - 7 * y));
                    i1.at(x, y) = k == 3 ? i0.at(x, y) : (rng.below(2) ? 255.0f : rng.uni(0.0f, 255.0f));
                }
            Band bands[2];
            const int nb = bands_for(h, bands);
            const std::size_t rb = static_cast<std::size_t>(w) * 4u;
            for (int b = 0; b < nb; ++b) {
                const int y0 = bands[b].y0, y1 = bands[b].y1;
                // derivatives: bitwise
                const auto sx = n.ix.snapshot(), sy = n.iy.snapshot(), st = n.it.snapshot();
                const auto s0 = i0.snapshot(), s1 = i1.snapshot();
                hs_derivatives_ref(HsDerivArgs{i0.p, i1.p, r.ix.p, r.iy.p, r.it.p}, y0, y1);
                hs_derivatives_neon(HsDerivArgs{i0.p, i1.p, n.ix.p, n.iy.p, n.it.p}, y0, y1);
                const bool d_ok = same_rows(n.ix.p, r.ix.p, y0, y1) && same_rows(n.iy.p, r.iy.p, y0, y1) &&
                                  same_rows(n.it.p, r.it.p, y0, y1);
                record("derivatives (bitwise)", d_ok ? 0.0 : 1.0, 0.0, 3L * w * (y1 - y0));
                CHECK_MSG(d_ok, "derivatives w %d h %d rows %d..%d: differs from the reference", w, h, y0, y1);
                CHECK(n.ix.untouched_outside(sx, y0, y1, rb) && n.iy.untouched_outside(sy, y0, y1, rb) &&
                      n.it.untouched_outside(st, y0, y1, rb));
                CHECK(i0.unchanged(s0) && i1.unchanged(s1));
                // tensor: bitwise
                HsTensorArgs tr, tn;
                tr.ix = tn.ix = r.ix.p;
                tr.iy = tn.iy = r.iy.p;
                tr.it = tn.it = r.it.p;
                std::vector<unsigned char> sj[kHsChannels];
                for (int c = 0; c < kHsChannels; ++c) {
                    tr.j[c] = r.j[c].p;
                    tn.j[c] = n.j[c].p;
                    sj[c] = n.j[c].snapshot();
                }
                hs_tensor_ref(tr, y0, y1);
                hs_tensor_neon(tn, y0, y1);
                bool t_ok = true;
                for (int c = 0; c < kHsChannels; ++c)
                    t_ok = t_ok && same_rows(n.j[c].p, r.j[c].p, y0, y1) && n.j[c].untouched_outside(sj[c], y0, y1, rb);
                record("tensor (bitwise)", t_ok ? 0.0 : 1.0, 0.0, 5L * w * (y1 - y0));
                CHECK_MSG(t_ok, "tensor w %d h %d rows %d..%d: differs from the reference or wrote outside", w, h, y0,
                          y1);
            }
            // Batched blur of n channels (n = 1..5), both passes, in bands.
            const int nch = 1 + case_no % kHsChannels;
            const float sigmas[] = {0.8f, 2.0f, 4.0f};
            const Gaussian1D g = make_gaussian(sigmas[case_no % 3]);
            HsPlanes tr(w, h, pitch, true), tn(w, h, pitch, flush == 0);
            Plane src[kHsChannels], hr[kHsChannels], hn[kHsChannels], vr[kHsChannels], vn[kHsChannels];
            GPlane* const vr_g[kHsChannels] = {&tr.du, &tr.dv, &tr.nu, &tr.nv, &tr.ru};
            GPlane* const vn_g[kHsChannels] = {&tn.du, &tn.dv, &tn.nu, &tn.nv, &tn.ru};
            for (int c = 0; c < kHsChannels; ++c) {
                src[c] = r.j[c].p;
                hr[c] = tr.j[c].p;
                hn[c] = tn.j[c].p;
                vr[c] = vr_g[c]->p;
                vn[c] = vn_g[c]->p;
            }
            hs_blur_h_multi_ref(src, hr, nch, g, 0, h); // full planes: the vertical pass reads any row
            hs_blur_h_multi_neon(src, hn, nch, g, 0, h);
            double e = 0.0;
            for (int c = 0; c < nch; ++c) {
                const double sc = max_abs(src[c]) > 1.0 ? max_abs(src[c]) : 1.0;
                e = std::fmax(e, plane_err(hn[c], hr[c], 0, h, [&](int, int) { return sc; }));
            }
            for (int b = 0; b < nb; ++b) {
                const int y0 = bands[b].y0, y1 = bands[b].y1;
                std::vector<unsigned char> snaps[kHsChannels];
                for (int c = 0; c < nch; ++c) snaps[c] = vn_g[c]->snapshot();
                hs_blur_v_multi_ref(hr, vr, nch, g, y0, y1);
                hs_blur_v_multi_neon(hr, vn, nch, g, y0, y1);
                for (int c = 0; c < nch; ++c) {
                    const double sc = max_abs(src[c]) > 1.0 ? max_abs(src[c]) : 1.0;
                    e = std::fmax(e, plane_err(vn[c], vr[c], y0, y1, [&](int, int) { return sc; }));
                    CHECK_MSG(vn_g[c]->untouched_outside(snaps[c], y0, y1, rb), "blur_v_multi w %d: wrote outside", w);
                }
            }
            record("blur_h/v_multi", e, kTolF32, 2L * nch * w * h);
            CHECK_MSG(e <= kTolF32, "blur multi w %d h %d n %d: error %.3g", w, h, nch, e); // blur_h/v_neon's tolerance
            // Red-black split / merge: bitwise, in bands, unused slots and rows outside untouched.
            const int hw = (w + 1) / 2;
            GPlane red(hw, h, pitch_for(hw, false), flush != 0), black(hw, h, pitch_for(hw, true), flush == 0);
            GPlane rred(hw, h, pitch_for(hw, false), true), rblack(hw, h, pitch_for(hw, true), true);
            GPlane back(w, h, pitch, flush == 0), rback(w, h, pitch, true);
            for (int b = 0; b < nb; ++b) {
                const int y0 = bands[b].y0, y1 = bands[b].y1;
                const auto s_red = red.snapshot(), s_black = black.snapshot(), s_back = back.snapshot();
                const auto s_src = i0.snapshot();
                rb_split_ref(i0.p, rred.p, rblack.p, y0, y1);
                rb_split_neon(i0.p, red.p, black.p, y0, y1);
                bool s_ok = i0.unchanged(s_src);
                for (int y = y0; y < y1; ++y) {
                    const int nr = (w - (y & 1) + 1) / 2, nbk = (w - (1 - (y & 1)) + 1) / 2; // pixels of each colour
                    s_ok = s_ok && std::memcmp(red.p.row(y), rred.p.row(y), static_cast<std::size_t>(nr) * 4u) == 0 &&
                           std::memcmp(black.p.row(y), rblack.p.row(y), static_cast<std::size_t>(nbk) * 4u) == 0;
                }
                auto red_slots = [&](int y) {
                    return y >= y0 && y < y1 ? static_cast<std::size_t>((w - (y & 1) + 1) / 2) * 4u : 0u;
                };
                auto black_slots = [&](int y) {
                    return y >= y0 && y < y1 ? static_cast<std::size_t>((w - (1 - (y & 1)) + 1) / 2) * 4u : 0u;
                };
                s_ok = s_ok && untouched_except(red, s_red, red_slots) && untouched_except(black, s_black, black_slots);
                record("rb_split (bitwise)", s_ok ? 0.0 : 1.0, 0.0, static_cast<long>(w) * (y1 - y0));
                CHECK_MSG(s_ok, "rb_split w %d h %d rows %d..%d: differs, or wrote an unused slot / another row", w, h,
                          y0, y1);
                rb_merge_ref(rred.p, rblack.p, rback.p, y0, y1);
                rb_merge_neon(red.p, black.p, back.p, y0, y1);
                const bool m_ok = same_rows(back.p, rback.p, y0, y1) && same_rows(back.p, i0.p, y0, y1) &&
                                  back.untouched_outside(s_back, y0, y1, rb);
                record("rb_merge (bitwise)", m_ok ? 0.0 : 1.0, 0.0, static_cast<long>(w) * (y1 - y0));
                CHECK_MSG(m_ok, "rb_merge w %d h %d rows %d..%d: differs from the reference or merge(split(x)) != x", w,
                          h, y0, y1);
            }
        }
}

// ---- Jacobi updates -----------------------------------------------------------------------------
using JacobiFn = double (*)(const HsJacobiArgs&, int, int);

struct JacobiPath {
    const char* name; // stage name in the printout
    JacobiFn fn;
    bool clg, f16;
};

// One Jacobi kernel against the reference on one state, rows [y0, y1).
void check_jacobi_call(const JacobiPath& path, HsPlanes& s, float alpha, int y0, int y1, const char* what) {
    const int w = s.du.p.w, h = s.du.p.h;
    HsJacobiArgs a;
    a.du = s.du.p;
    a.dv = s.dv.p;
    a.ix = s.ix.p;
    a.iy = s.iy.p;
    a.it = s.it.p;
    for (int c = 0; c < kHsChannels; ++c) a.j[c] = s.j[c].p;
    a.alpha2 = alpha * alpha;
    HsJacobiArgs r = a, n = a;
    r.du_next = s.ru.p;
    r.dv_next = s.rv.p;
    n.du_next = s.nu.p;
    n.dv_next = s.nv.p;
    const int kIns = 5 + kHsChannels;
    std::vector<unsigned char> in_snaps[kIns];
    GPlane* ins[kIns] = {&s.du, &s.dv, &s.ix, &s.iy, &s.it, &s.j[0], &s.j[1], &s.j[2], &s.j[3], &s.j[4]};
    for (int i = 0; i < kIns; ++i) in_snaps[i] = ins[i]->snapshot();
    const auto snu = s.nu.snapshot(), snv = s.nv.snapshot();
    const double sr = path.clg ? clg_jacobi_ref(r, y0, y1) : hs_jacobi_ref(r, y0, y1);
    const double sn = path.fn(n, y0, y1);
    const double a2 = a.alpha2;
    double worst = 0.0, worst_px = 0.0, sum_bound = 0.0;
    for (int y = y0; y < y1; ++y)
        for (int x = 0; x < w; ++x) {
            const double mu = mean9_abs(s.du.p, x, y), mv = mean9_abs(s.dv.p, x, y);
            double scale, pu_mu, pu_mv, pv_mu, pv_mv; // F32 scale; partial derivatives of u', v'
            if (!path.clg) {
                const double gx = s.ix.at(x, y), gy = s.iy.at(x, y), gt = s.it.at(x, y);
                const double d = a2 + gx * gx + gy * gy;
                scale = mu + mv +
                        (std::fabs(gx) + std::fabs(gy)) * (std::fabs(gx) * mu + std::fabs(gy) * mv + std::fabs(gt)) / d;
                pu_mu = std::fabs(1.0 - gx * gx / d);
                pv_mv = std::fabs(1.0 - gy * gy / d);
                pu_mv = pv_mu = std::fabs(gx * gy / d);
            } else {
                const double j11 = s.j[kJ11].at(x, y), j12 = s.j[kJ12].at(x, y), j22 = s.j[kJ22].at(x, y);
                scale = solve2_scale(j11, j12, s.j[kJ13].at(x, y), j22, s.j[kJ23].at(x, y), a2, mu, mv);
                const double A = j11 + a2, C = j22 + a2, det = A * C - j12 * j12;
                pu_mu = a2 * C / det;
                pv_mv = a2 * A / det;
                pu_mv = pv_mu = a2 * std::fabs(j12) / det;
            }
            for (int comp = 0; comp < 2; ++comp) {
                const float got = (comp ? s.nv : s.nu).at(x, y), want = (comp ? s.rv : s.ru).at(x, y);
                double bound = kTolF32 * std::fmax(std::fabs(want), scale);
                if (path.f16) {
                    const double eu = f16_laplacian_bound(s.du.p, x, y), ev = f16_laplacian_bound(s.dv.p, x, y);
                    bound += kF16Margin * (comp ? pv_mu * eu + pv_mv * ev : pu_mu * eu + pu_mv * ev);
                }
                const double d = std::isfinite(got) ? std::fabs(static_cast<double>(got) - want) : HUGE_VAL;
                worst = std::fmax(worst, d / bound);
                worst_px = std::fmax(worst_px, path.f16 ? d : d / std::fmax(std::fabs(want), scale));
                const double change = static_cast<double>(want) - (comp ? s.dv : s.du).at(x, y);
                sum_bound += 2.0 * std::fabs(change) * bound + bound * bound;
                CHECK_MSG(d <= bound, "%s w %d h %d %s (%d,%d) %s: %.9g vs reference %.9g (bound %.3g)", path.name, w,
                          h, what, x, y, comp ? "dv" : "du", static_cast<double>(got), static_cast<double>(want),
                          bound);
            }
        }
    record(path.name, worst_px, path.f16 ? 0.0 : kTolF32, 2L * w * (y1 - y0));
    char stage[96];
    std::snprintf(stage, sizeof stage, "%s, error / bound", path.name);
    record(intern(stage), worst, 1.0, 2L * w * (y1 - y0));
    // Change sum: what the per-value bounds allow, plus the summation order (double) and, on the
    // F16 path, the rows' F32 lanes.
    const double lanes = path.f16 ? (w / 8.0 + 4.0) * std::ldexp(1.0, -24) : 0.0;
    const double tol = sum_bound + (1e-9 + lanes) * std::fabs(sr) + 1e-30;
    const double ce = std::fabs(sn - sr);
    std::snprintf(stage, sizeof stage, "%s change sum, error / bound", path.name);
    record(intern(stage), ce / tol, 1.0, 1);
    std::snprintf(stage, sizeof stage, "%s change sum, relative", path.name);
    record(intern(stage), sr > 0.0 ? ce / sr : ce, 0.0, 1);
    CHECK_MSG(ce <= tol, "%s w %d h %d %s: change sum %.12g vs reference %.12g (bound %.3g)", path.name, w, h, what, sn,
              sr, tol);
    const std::size_t rb = static_cast<std::size_t>(w) * 4u;
    CHECK_MSG(s.nu.untouched_outside(snu, y0, y1, rb) && s.nv.untouched_outside(snv, y0, y1, rb),
              "%s w %d h %d: wrote outside rows [%d, %d)", path.name, w, h, y0, y1);
    for (int i = 0; i < kIns; ++i)
        CHECK_MSG(ins[i]->unchanged(in_snaps[i]), "%s w %d: input %d written", path.name, w, i);
}

void check_jacobi(Rng& rng, const JacobiPath* paths, int npaths) {
    int case_no = 0;
    for (int w : kWidths)
        for (int flush = 0; flush < 2; ++flush)
            for (int clg = 0; clg < 2; ++clg)
                for (float alpha : kAlphas) {
                    const int h = height_for(w, case_no);
                    const std::ptrdiff_t pitch = pitch_for(w, case_no % 3 == 0);
                    const Grad g = static_cast<Grad>(case_no % kGrads);
                    const Flow f = static_cast<Flow>((case_no / kGrads) % kFlows);
                    bool smooth = clg != 0 && (case_no & 1) != 0;
                    // Rank one at alpha 0.01: small gradients only (top comment); else the smoothed tensor.
                    if (clg && alpha < 1.0f && (g == Grad::Mid || g == Grad::Strong || g == Grad::Edges)) smooth = true;
                    ++case_no;
                    HsPlanes s(w, h, pitch, flush != 0);
                    if (!s.ok()) {
                        CHECK(false);
                        return;
                    }
                    fill_hs(s, rng, g, f, smooth);
                    char what[96];
                    std::snprintf(what, sizeof what, "alpha %g grad %s flow %s %s", static_cast<double>(alpha),
                                  grad_name(g), flow_name(f), smooth ? "smoothed" : "rank-one");
                    Band bands[2];
                    const int nb = bands_for(h, bands);
                    for (int p = 0; p < npaths; ++p) {
                        if (paths[p].clg != (clg != 0)) continue;
                        for (int b = 0; b < nb; ++b)
                            check_jacobi_call(paths[p], s, alpha, bands[b].y0, bands[b].y1, what);
                    }
                }
}

// ---- red-black SOR half-sweep (F32 on both paths) ------------------------------------------------
void check_sor(Rng& rng) {
    const float omegas[] = {0.5f, 1.0f, 1.5f};
    int case_no = 0;
    for (int w : kWidths)
        for (int colour = 0; colour < 2; ++colour)
            for (int flush = 0; flush < 2; ++flush)
                for (float omega : omegas) {
                    const int h = height_for(w, case_no + 1);
                    const int hw = (w + 1) / 2;
                    const std::ptrdiff_t pitch = pitch_for(hw, case_no % 3 == 0);
                    const float alpha = kAlphas[case_no % 4];
                    const Grad g = static_cast<Grad>((case_no / 4) % kGrads);
                    const Flow f = static_cast<Flow>((case_no / 3) % kFlows);
                    bool smooth = (case_no & 4) != 0;
                    if (alpha < 1.0f && (g == Grad::Mid || g == Grad::Strong || g == Grad::Edges)) smooth = true;
                    ++case_no;
                    // Split planes of one colour (this: old, new; other: current) and its tensor.
                    HsPlanes s(hw, h, pitch, flush != 0);
                    GPlane other_u(hw, h, pitch, flush == 0), other_v(hw, h, pitch, flush != 0);
                    if (!s.ok() || !other_u.ok() || !other_v.ok()) {
                        CHECK(false);
                        return;
                    }
                    fill_hs(s, rng, g, f, smooth);
                    double fmax = 0.0;
                    for (int y = 0; y < h; ++y)
                        for (int x = 0; x < hw; ++x) {
                            other_u.at(x, y) = flow_value(f, x, y, false, rng);
                            other_v.at(x, y) = flow_value(f, x, y, true, rng);
                            const double m =
                                std::fmax(std::fmax(std::fabs(other_u.at(x, y)), std::fabs(other_v.at(x, y))),
                                          std::fmax(std::fabs(s.du.at(x, y)), std::fabs(s.dv.at(x, y))));
                            fmax = std::fmax(fmax, m);
                        }
                    HsSorArgs a;
                    a.u_old = s.du.p;
                    a.v_old = s.dv.p;
                    a.u_other = other_u.p;
                    a.v_other = other_v.p;
                    for (int c = 0; c < kHsChannels; ++c) a.j[c] = s.j[c].p;
                    a.alpha2 = alpha * alpha;
                    a.omega = omega;
                    a.colour = colour;
                    a.w = w;
                    Band bands[2];
                    const int nb = bands_for(h, bands);
                    for (int b = 0; b < nb; ++b) {
                        const int y0 = bands[b].y0, y1 = bands[b].y1;
                        HsSorArgs r = a, n = a;
                        r.u_new = s.ru.p;
                        r.v_new = s.rv.p;
                        n.u_new = s.nu.p;
                        n.v_new = s.nv.p;
                        const auto snu = s.nu.snapshot(), snv = s.nv.snapshot();
                        const auto sou = other_u.snapshot(), sov = other_v.snapshot(), sdu = s.du.snapshot(),
                                   sdv = s.dv.snapshot();
                        const double cr = sor_half_sweep_ref(r, y0, y1);
                        const double cn = sor_half_sweep_neon(n, y0, y1);
                        // Slots of this colour in row y: (w - s + 1) / 2, s = (y + colour) & 1.
                        auto slots = [&](int y) { return (w - ((y + colour) & 1) + 1) / 2; };
                        double e = 0.0, sum_bound = 0.0;
                        for (int y = y0; y < y1; ++y)
                            for (int k = 0; k < slots(y); ++k) {
                                // The terms: the old value, the neighbours (at most fmax) and omega
                                // times the 2x2 solve's terms.
                                const double sc =
                                    std::fabs(static_cast<double>(s.du.at(k, y))) + fmax +
                                    omega * solve2_scale(s.j[kJ11].at(k, y), s.j[kJ12].at(k, y), s.j[kJ13].at(k, y),
                                                         s.j[kJ22].at(k, y), s.j[kJ23].at(k, y), a.alpha2, fmax, fmax);
                                for (int comp = 0; comp < 2; ++comp) {
                                    const float got = (comp ? s.nv : s.nu).at(k, y),
                                                want = (comp ? s.rv : s.ru).at(k, y);
                                    e = std::fmax(e, rel(got, want, sc));
                                    const double bound = kTolF32 * std::fmax(std::fabs(want), sc);
                                    const double change = static_cast<double>(want) - (comp ? s.dv : s.du).at(k, y);
                                    sum_bound += 2.0 * std::fabs(change) * bound + bound * bound;
                                }
                            }
                        record("sor_half_sweep", e, kTolF32, 2L * hw * (y1 - y0));
                        CHECK_MSG(e <= kTolF32,
                                  "sor_half_sweep w %d h %d colour %d omega %g alpha %g grad %s flow %s: error %.3g", w,
                                  h, colour, static_cast<double>(omega), static_cast<double>(alpha), grad_name(g),
                                  flow_name(f), e);
                        const double tol = sum_bound + 1e-9 * std::fabs(cr) + 1e-30;
                        record("sor_half_sweep change sum, error / bound", std::fabs(cn - cr) / tol, 1.0, 1);
                        record("sor_half_sweep change sum, relative",
                               cr > 0.0 ? std::fabs(cn - cr) / cr : std::fabs(cn), 0.0, 1);
                        CHECK_MSG(std::fabs(cn - cr) <= tol,
                                  "sor w %d h %d: change sum %.12g vs reference %.12g (bound %.3g)", w, h, cn, cr, tol);
                        // Written: slots [0, slots(y)) of the band's rows, nothing else (the slot past
                        // a colour's last pixel keeps its NaN pattern).
                        auto allowed = [&](int y) {
                            return y >= y0 && y < y1 ? static_cast<std::size_t>(slots(y)) * 4u : 0u;
                        };
                        CHECK_MSG(untouched_except(s.nu, snu, allowed) && untouched_except(s.nv, snv, allowed),
                                  "sor w %d h %d colour %d: wrote an unused slot or outside rows [%d, %d)", w, h,
                                  colour, y0, y1);
                        CHECK(other_u.unchanged(sou) && other_v.unchanged(sov) && s.du.unchanged(sdu) &&
                              s.dv.unchanged(sdv));
                    }
                }
}

// ---- F16 over many iterations ---------------------------------------------------------------------
// 300 Jacobi iterations from zero on a smooth textured pair moved by (0.7, -0.4) px, with the
// F16 kernel and with the reference: the F16 rounding must not drift the iterate (5e-3 px:
// of_selftest's F16 fixed-point tolerance, core/hs_selftest.cpp).
void check_f16_iterations(const JacobiPath& path, float alpha, float rho) {
    const int w = 45, h = 31;
    const std::ptrdiff_t pitch = pitch_for(w, false);
    GPlane i0(w, h, pitch, true), i1(w, h, pitch, true);
    auto tex = [](double x, double y) {
        return 128.0 + 60.0 * std::sin(0.31 * x + 0.17 * y) + 40.0 * std::cos(0.23 * x - 0.29 * y) +
               20.0 * std::sin(0.05 * x * y);
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            i0.at(x, y) = static_cast<float>(tex(x, y));
            i1.at(x, y) = static_cast<float>(tex(x - 0.7, y + 0.4));
        }
    HsPlanes s(w, h, pitch, true), t(w, h, pitch, false);
    hs_derivatives_ref(HsDerivArgs{i0.p, i1.p, s.ix.p, s.iy.p, s.it.p}, 0, h);
    HsTensorArgs ta;
    ta.ix = s.ix.p;
    ta.iy = s.iy.p;
    ta.it = s.it.p;
    for (int c = 0; c < kHsChannels; ++c) ta.j[c] = s.j[c].p;
    hs_tensor_ref(ta, 0, h);
    if (rho > 0.0f) {
        const Gaussian1D g = make_gaussian(rho);
        Plane src[kHsChannels], tmp[kHsChannels];
        for (int c = 0; c < kHsChannels; ++c) {
            src[c] = s.j[c].p;
            tmp[c] = t.j[c].p;
        }
        hs_blur_h_multi_ref(src, tmp, kHsChannels, g, 0, h);
        hs_blur_v_multi_ref(tmp, src, kHsChannels, g, 0, h);
    }
    // Two iterates: s (reference) and t (F16), each ping-ponging between two plane pairs.
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) s.du.at(x, y) = s.dv.at(x, y) = t.du.at(x, y) = t.dv.at(x, y) = 0.0f;
    HsJacobiArgs r, n;
    r.du = s.du.p;
    r.dv = s.dv.p;
    r.du_next = s.ru.p;
    r.dv_next = s.rv.p;
    n.du = t.du.p;
    n.dv = t.dv.p;
    n.du_next = t.nu.p;
    n.dv_next = t.nv.p;
    r.ix = n.ix = s.ix.p;
    r.iy = n.iy = s.iy.p;
    r.it = n.it = s.it.p;
    for (int c = 0; c < kHsChannels; ++c) r.j[c] = n.j[c] = s.j[c].p;
    r.alpha2 = n.alpha2 = alpha * alpha;
    const int iters = 300;
    double sr = 0.0, sn = 0.0;
    for (int i = 0; i < iters; ++i) {
        sr = path.clg ? clg_jacobi_ref(r, 0, h) : hs_jacobi_ref(r, 0, h);
        sn = path.fn(n, 0, h);
        std::swap(r.du, r.du_next);
        std::swap(r.dv, r.dv_next);
        std::swap(n.du, n.du_next);
        std::swap(n.dv, n.dv_next);
    }
    double maxd = 0.0, mean = 0.0, umax = 0.0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 2; ++c) {
                const float a = (c ? n.dv : n.du).row(y)[x], b = (c ? r.dv : r.du).row(y)[x];
                const double d = std::isfinite(a) ? std::fabs(static_cast<double>(a) - b) : HUGE_VAL;
                maxd = std::fmax(maxd, d);
                mean += d;
                umax = std::fmax(umax, std::fabs(b));
            }
    mean /= 2.0 * w * h;
    char stage[96];
    std::snprintf(stage, sizeof stage, "%s x%d, alpha %g rho %g: max |d| px", path.name, iters,
                  static_cast<double>(alpha), static_cast<double>(rho));
    record(intern(stage), maxd, 5e-3, 2L * w * h);
    std::printf("  %s: max |u16 - u| %.3g px, mean %.3g px (|u| up to %.3g px); last change sums %.6g vs %.6g\n", stage,
                maxd, mean, umax, sn, sr);
    CHECK_MSG(maxd <= 5e-3, "%s: F16 iterate %.3g px from the reference's", stage, maxd);
}

// ---- whole flow, F16 against F32, through the public API ------------------------------------------
const double kF16FlowMeanDiff = 5e-3;  // px, mean |F16 - F32| over u and v (neon_flow's TV-L1 bound)
const double kF16FlowEpeMargin = 0.01; // px, mean EPE of F16 over F32's

of_config flow_cfg(of_algorithm algo, uint32_t w, uint32_t h, of_precision p, uint32_t threads) {
    of_config c;
    std::memset(&c, 0, sizeof c);
    of_config_init(&c, algo);
    c.max_width = w;
    c.max_height = h;
    c.backend = OF_BACKEND_NEON;
    c.precision = p;
    c.threads = threads;
    c.epsilon = 0.0f; // the same number of iterations on both paths
    c.warps = 3;
    c.iterations = 60;
    return oftest::one_solve(c); // path parity: pick's choice could flip on a near tie
}

// The flow (u then v) of one run with a fresh context; empty on failure. *info gets its info.
std::vector<float> flow_of(const of_config& c, const oftest::FramePair& fp, const oftest::Pair& p, const char* what,
                           of_info* info) {
    of_context* ctx = oftest::create_or_report(c, what);
    CHECK_MSG(ctx != nullptr, "%s: create", what);
    if (!ctx) return {};
    oftest::FlowBuf f = oftest::make_flow(p.w, p.h);
    const of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &f.f);
    CHECK_MSG(s == OF_OK, "%s: %s (%s)", what, oftest::st(s), of_last_error(ctx));
    std::memset(info, 0, sizeof *info);
    info->struct_size = sizeof(of_info);
    CHECK(of_get_info(ctx, info) == OF_OK);
    of_destroy(ctx);
    if (s != OF_OK) return {};
    std::vector<float> r = f.extract();
    CHECK_MSG(oftest::all_finite(r), "%s: non-finite flow", what);
    return r;
}

void check_flow_f16() {
    using synth::Case;
    struct Sample {
        Case k;
        uint32_t w, h;
    };
    const Sample samples[] = {{Case::Translation, 64, 48}, {Case::SmoothField, 33, 29}, {Case::NoiseGain, 45, 17}};
    const of_algorithm algos[] = {OF_ALGO_HS, OF_ALGO_CLG};
    for (of_algorithm algo : algos)
        for (const Sample& sm : samples) {
            const oftest::Pair p = oftest::synth_pair(sm.k, sm.w, sm.h, 7);
            const oftest::FramePair fp = oftest::frames_of(p, OF_PIXEL_U8);
            char what[160];
            std::snprintf(what, sizeof what, "%s %s %ux%u", algo == OF_ALGO_HS ? "HS" : "CLG", synth::case_name(sm.k),
                          sm.w, sm.h);
            of_info i32, i16, i16t;
            const std::vector<float> f32 = flow_of(flow_cfg(algo, sm.w, sm.h, OF_PRECISION_F32, 1), fp, p, what, &i32);
            const std::vector<float> f16 = flow_of(flow_cfg(algo, sm.w, sm.h, OF_PRECISION_F16, 1), fp, p, what, &i16);
            if (f32.empty() || f16.empty()) continue;
            CHECK_MSG(i32.backend == OF_BACKEND_NEON && i32.precision == OF_PRECISION_F32 &&
                          i16.backend == OF_BACKEND_NEON && i16.precision == OF_PRECISION_F16,
                      "%s: info says backend %d / %d, precision %d / %d", what, static_cast<int>(i32.backend),
                      static_cast<int>(i16.backend), static_cast<int>(i32.precision), static_cast<int>(i16.precision));
            double mean = 0.0, maxd = 0.0;
            for (size_t i = 0; i < f32.size(); ++i) {
                const double d = std::fabs(static_cast<double>(f16[i]) - f32[i]);
                mean += d;
                maxd = std::fmax(maxd, d);
            }
            mean /= static_cast<double>(f32.size());
            const double e32 = oftest::mean_epe(f32, p), e16 = oftest::mean_epe(f16, p);
            std::printf("  flow %-30s F16: mean |f16 - f32| %.2g px, max %.2g px; EPE f32 %.4f f16 %.4f\n", what, mean,
                        maxd, e32, e16);
            record("whole flow F16, mean |f16 - f32| px", mean, kF16FlowMeanDiff, static_cast<long>(f32.size()));
            CHECK_MSG(mean <= kF16FlowMeanDiff, "%s: F16 mean distance to F32 %.4f px", what, mean);
            CHECK_MSG(e16 <= e32 + kF16FlowEpeMargin, "%s: F16 EPE %.4f vs F32 %.4f", what, e16, e32);
            char w3[200];
            std::snprintf(w3, sizeof w3, "%s F16 threads 3 vs 1", what);
            CHECK(
                oftest::same_bits(flow_of(flow_cfg(algo, sm.w, sm.h, OF_PRECISION_F16, 3), fp, p, w3, &i16t), f16, w3));
        }
}

void check_table() {
    HsKernels ref;
    hs_kernels_init_ref(&ref);
    for (int f16 = 0; f16 < 2; ++f16) {
        HsKernels t = ref;
        hs_kernels_init_neon(&t, f16 != 0);
        CHECK(t.derivatives == hs_derivatives_neon && t.tensor == hs_tensor_neon && t.rb_split == rb_split_neon &&
              t.rb_merge == rb_merge_neon && t.blur_h_multi == hs_blur_h_multi_neon &&
              t.blur_v_multi == hs_blur_v_multi_neon);
        CHECK(t.sor_half_sweep == sor_half_sweep_neon);    // F32 on both paths (hs_f16_neon.cpp says why)
        CHECK(t.clg_jacobi_plain == ref.clg_jacobi_plain); // the convergence comparison's, reference only
        const bool want16 = f16 != 0 && neon_has_f16_arith(); // installed only on an FP16 CPU
#if defined(OF_NEON_F16)
        CHECK(want16 == (t.hs_jacobi == hs_jacobi_f16_neon) && want16 == (t.clg_jacobi == clg_jacobi_f16_neon));
#endif
        if (!want16) CHECK(t.hs_jacobi == hs_jacobi_neon && t.clg_jacobi == clg_jacobi_neon);
    }
}

} // namespace

int main() {
    const auto t0 = std::chrono::steady_clock::now();
    unsetenv("OFLOW_FORCE_BACKEND"); // the whole-flow checks choose the backend by the config
    CHECK(neon_available());
    std::printf("neon_hs_kernels: FP16 vector arithmetic %s (compiled %s)\n", neon_has_f16_arith() ? "on" : "off",
#if defined(OF_NEON_F16)
                "in"
#else
                "out"
#endif
    );
    Rng rng(2025);
    check_table();
    check_stages(rng);
    JacobiPath paths[4] = {{"hs_jacobi", hs_jacobi_neon, false, false}, {"clg_jacobi", clg_jacobi_neon, true, false}};
    int npaths = 2;
#if defined(OF_NEON_F16)
    if (f16_kernels()) {
        paths[2] = JacobiPath{"F16 hs_jacobi (px)", hs_jacobi_f16_neon, false, true};
        paths[3] = JacobiPath{"F16 clg_jacobi (px)", clg_jacobi_f16_neon, true, true};
        npaths = 4;
    }
#endif
    check_jacobi(rng, paths, npaths);
    check_sor(rng);
    if (npaths == 4) {
        check_f16_iterations(paths[2], 15.0f, 0.0f);
        check_f16_iterations(paths[2], 1.0f, 0.0f);
        check_f16_iterations(paths[3], 15.0f, 2.0f);
        check_f16_iterations(paths[3], 8.0f, 0.0f);
        if (neon_has_f16_arith())
            check_flow_f16(); // the whole flow in F16: where the tables install the F16 kernels
        else
            std::printf("neon_hs_kernels: F16 whole flow not checked (the kernels are not installed here)\n");
    } else {
        std::printf("neon_hs_kernels: F16 kernels not checked (not built or no FP16 on this CPU)\n");
    }
    print_stats();
    std::printf("neon_hs_kernels: %.1f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return oftest::finish("neon_hs_kernels");
}
