// neon_lk_kernels: every NEON entry of the Lucas-Kanade family (core/lk_kernels.hpp;
// neon/lk_stages_neon.cpp, neon/lk_box_neon.cpp, neon/lk_step_neon.cpp) against the reference
// kernel of the same stage (checkasm style), and the whole LK flow of the NEON path against the
// reference path.
//
// Kernels: every width 1..641, one case per width (heights 1..7, up to 41 for the window sums;
// an odd pitch, or pitch = width every third width; planes flush against the trailing or the
// leading guard page by turns), planes between inaccessible pages with NaN row padding
// (tests/neon/guarded_plane.hpp: no over-read; a result that used padding is NaN), inputs left
// untouched, nothing written outside the call's rows or past a row's last output, row bands
// (all rows, an inner band). The window sums also at every radius 1..16 on heights 1..70, in
// bands cut anywhere: bitwise the whole-plane call's (the flow must not depend on the thread
// count).
//
// Tolerances, each next to its check; in brackets the largest error measured (g++ 12.2 -O3,
// qemu-aarch64 7.2), printed by every run:
//  - Scharr, Prewitt: 4 ulps (4 FLT_EPSILON) of T = (ws |dU| + wc |dC| + ws |dD|) / div, the
//    magnitudes of the value's terms [0: the reference's bits];
//  - tensor: bitwise [bitwise];
//  - window sums, either pass, every value: |neon - ref| <= 2 gamma_{s-1} sum over the window of
//    |terms|, gamma_m = m 2^-24 / (1 - m 2^-24): both sums are within gamma_{s-1} sum|terms| of
//    the exact one (neon/lk_box_neon.cpp) [0.76 of the bound; 1.1e-6 of the sum of magnitudes];
//    a window of zeros sums to exactly 0 (the bound is 0 there), and bands give the bits of the
//    whole-plane call [bitwise];
//  - confidence: |neon - ref| <= 2^-23 |ref| (one F32 rounding of a double that could differ in
//    its last bit), state equal wherever conf is, the count the number of 1s written
//    [0: the reference's bits, no state differs];
//  - residual products: 4 FLT_EPSILON of |g| (|I1| max + |I0| + |gx u1| + |gy u2|)
//    [0: the reference's bits];
//  - Newton step: u bitwise (exact products and single roundings: lk_step_neon.cpp), state equal
//    unless |delta|^2 lies within 2^-50 epsilon^2 of epsilon^2, the count the number of 1s
//    written [u bitwise, no state differs].
// Whole flow, through the public API on six synthetic cases up to 160x120, with epsilon 0 (both
// paths run the same steps) and the default 0.01: the NEON path's pyramid kernels differ from
// the reference's within their own 1e-5 and the Newton steps carry that on. Over the pixels
// valid on both paths: epsilon 0, max |neon - ref| <= kFlowMaxDiff = 1e-4 px [5.3e-6]; the
// default epsilon, max <= epsilon (a pixel whose |delta| is within rounding of epsilon may stop
// a step apart) [4.8e-3 px, one pixel], mean <= kFlowMeanDiff = 1e-4 px [1.7e-6]; the validity
// masks differ on at most kMaskDiffShare = 0.1 % of the pixels (a confidence within rounding of
// min_eigen may flip) [none]; the NEON flow is bitwise the same for 1, 2, 3 and 5 threads; and
// precision F16 reports F32 (LK has no F16 kernels) with the F32 flow's bits. The EPE of both
// paths is printed (equal to four digits).
#include "tests/check.hpp"
#include "core/lk_kernels.hpp"
#include "core/ref/kernels_ref.hpp"
#include "core/ref/lk_ref.hpp"
#include "neon/kernels_neon.hpp"
#include "neon/neon_kernels.hpp"
#include "tests/neon/guarded_plane.hpp"
#include "tests/test_util.hpp"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

using namespace oflow;
using namespace neontest;

namespace {

const int kMaxW = 641;
const double kU32 = 1.0 / 16777216.0; // F32's unit roundoff, 2^-24
const double kUlps4 = 4.0 * FLT_EPSILON;

int cl(int v, int n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }
double at(const Plane& p, int x, int y) { return p.row(cl(y, p.h))[cl(x, p.w)]; }

int height_for(int w) {
    static const int hs[] = {1, 2, 3, 4, 5, 7, 6};
    return w > 200 ? 2 + w % 3 : hs[w % 7];
}

/// Guarded planes of one size, flush against the trailing page or the leading one by turns.
struct Planes {
    std::vector<std::unique_ptr<GPlane>> g;
    int w, h;
    std::ptrdiff_t pitch;
    Planes(int w_, int h_, std::ptrdiff_t pitch_, int count, bool flush) : w(w_), h(h_), pitch(pitch_) {
        for (int i = 0; i < count; ++i) g.emplace_back(new GPlane(w, h, pitch, ((i & 1) != 0) == flush));
    }
    bool ok() const {
        for (const auto& p : g)
            if (!p->ok()) return false;
        return true;
    }
    GPlane& operator[](int i) { return *g[static_cast<std::size_t>(i)]; }
};

/// |a - b| as a double; +inf for a NaN or an infinity that b does not share.
double diff(float a, float b) {
    if (!std::isfinite(a) || !std::isfinite(b)) return a == b ? 0.0 : HUGE_VAL;
    return std::fabs(static_cast<double>(a) - static_cast<double>(b));
}

bool same_bits_f(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }

// ---- inputs ---------------------------------------------------------------------------------------
// Frames: random 0..255, a 0/255 checkerboard of 2-px cells, a ramp, random values up to 1e6 (F32
// frames beyond 0..255), constant.
float frame_value(int kind, int x, int y, Rng& rng) {
    switch (kind % 5) {
    case 0: return rng.uni(0.0f, 255.0f);
    case 1: return (((x >> 1) + (y >> 1)) & 1) ? 255.0f : 0.0f;
    case 2: return 117.0f + 0.37f * static_cast<float>(3 * x - 7 * y);
    case 3: return rng.uni(-1e6f, 1e6f);
    default: return 93.0f;
    }
}

// Window-sum sources: squared gradients of 0..255 frames, residual products of either sign,
// sparse values among exact zeros, magnitudes 1e-6 .. 1e6 of either sign.
float box_value(int kind, Rng& rng) {
    switch (kind % 4) {
    case 0: return rng.uni(0.0f, 16256.0f);
    case 1: return rng.uni(-1e4f, 1e4f);
    case 2: return rng.below(10) == 0 ? rng.uni(-1e5f, 1e5f) : 0.0f;
    default: {
        const float m = std::pow(10.0f, rng.uni(-6.0f, 6.0f));
        return rng.below(2) ? m : -m;
    }
    }
}

// ---- gradients and tensor -------------------------------------------------------------------------
struct GradOp {
    const char* name;
    const char* stage_err;   // stage names of the printout
    const char* stage_bits;
    LkGradientFn ref, neon;
    double ws, wc, div;
};

void check_gradients(Rng& rng, int w, int h, std::ptrdiff_t pitch, bool flush) {
    Planes p(w, h, pitch, 5, flush); // src, ref gx, ref gy, neon gx, neon gy
    if (!p.ok()) {
        CHECK(false);
        return;
    }
    const int kind = w % 5;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) p[0].at(x, y) = frame_value(kind, x, y, rng);
    const GradOp ops[2] = {
        {"scharr", "scharr, |d| / terms", "scharr, values not bitwise", lk_scharr_ref, lk_scharr_neon, 3, 10, 32},
        {"prewitt", "prewitt, |d| / terms", "prewitt, values not bitwise", lk_prewitt_ref, lk_prewitt_neon, 1, 1, 6}};
    Band bands[2];
    const int nb = bands_for(h, bands);
    const std::size_t rb = static_cast<std::size_t>(w) * 4u;
    for (const GradOp& op : ops)
        for (int b = 0; b < nb; ++b) {
            const int y0 = bands[b].y0, y1 = bands[b].y1;
            const auto s_src = p[0].snapshot(), s_x = p[3].snapshot(), s_y = p[4].snapshot();
            op.ref(p[0].p, p[1].p, p[2].p, y0, y1);
            op.neon(p[0].p, p[3].p, p[4].p, y0, y1);
            double worst = 0.0;
            long differ = 0;
            const Plane s = p[0].p;
            for (int y = y0; y < y1; ++y)
                for (int x = 0; x < w; ++x) {
                    // The magnitudes of the terms of gx and gy (the reference's differences).
                    const double tx = (op.ws * std::fabs(at(s, x + 1, y - 1) - at(s, x - 1, y - 1)) +
                                       op.wc * std::fabs(at(s, x + 1, y) - at(s, x - 1, y)) +
                                       op.ws * std::fabs(at(s, x + 1, y + 1) - at(s, x - 1, y + 1))) /
                                      op.div;
                    const double ty = (op.ws * std::fabs(at(s, x - 1, y + 1) - at(s, x - 1, y - 1)) +
                                       op.wc * std::fabs(at(s, x, y + 1) - at(s, x, y - 1)) +
                                       op.ws * std::fabs(at(s, x + 1, y + 1) - at(s, x + 1, y - 1))) /
                                      op.div;
                    for (int c = 0; c < 2; ++c) {
                        const float got = p[3 + c].at(x, y), want = p[1 + c].at(x, y);
                        const double d = diff(got, want), t = c ? ty : tx;
                        differ += same_bits_f(got, want) ? 0 : 1;
                        worst = std::fmax(worst, t > 0.0 ? d / t : (d > 0.0 ? HUGE_VAL : 0.0));
                        // Tolerance: 4 ulps of the terms' magnitudes (exact 0 where every term is 0).
                        CHECK_MSG(d <= kUlps4 * t, "%s w %d h %d (%d,%d) %s: %.9g vs reference %.9g (terms %.3g)",
                                  op.name, w, h, x, y, c ? "gy" : "gx", static_cast<double>(got),
                                  static_cast<double>(want), t);
                    }
                }
            record(op.stage_err, worst, kUlps4, 2L * w * (y1 - y0));
            record(op.stage_bits, static_cast<double>(differ), 0.0, 2L * w * (y1 - y0));
            CHECK_MSG(p[3].untouched_outside(s_x, y0, y1, rb) && p[4].untouched_outside(s_y, y0, y1, rb),
                      "%s w %d h %d: wrote outside rows [%d, %d)", op.name, w, h, y0, y1);
            CHECK(p[0].unchanged(s_src));
        }
}

void check_tensor(Rng& rng, int w, int h, std::ptrdiff_t pitch, bool flush) {
    Planes p(w, h, pitch, 8, flush); // gx, gy, ref j0..j2, neon j0..j2
    if (!p.ok()) {
        CHECK(false);
        return;
    }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int k = rng.below(8);
            p[0].at(x, y) = k == 0 ? 0.0f : (k == 1 ? -0.0f : rng.uni(-300.0f, 300.0f));
            p[1].at(x, y) = k == 2 ? -0.0f : rng.uni(-300.0f, 300.0f);
        }
    Band bands[2];
    const int nb = bands_for(h, bands);
    const std::size_t rb = static_cast<std::size_t>(w) * 4u;
    for (int b = 0; b < nb; ++b) {
        const int y0 = bands[b].y0, y1 = bands[b].y1;
        LkTensorArgs r, n;
        r.gx = n.gx = p[0].p;
        r.gy = n.gy = p[1].p;
        std::vector<unsigned char> snaps[kLkTensorChannels];
        for (int c = 0; c < kLkTensorChannels; ++c) {
            r.j[c] = p[2 + c].p;
            n.j[c] = p[5 + c].p;
            snaps[c] = p[5 + c].snapshot();
        }
        const auto sx = p[0].snapshot(), sy = p[1].snapshot();
        lk_tensor_ref(r, y0, y1);
        lk_tensor_neon(n, y0, y1);
        bool ok = p[0].unchanged(sx) && p[1].unchanged(sy);
        for (int c = 0; c < kLkTensorChannels; ++c)
            ok = ok && same_rows(n.j[c], r.j[c], y0, y1) && p[5 + c].untouched_outside(snaps[c], y0, y1, rb);
        record("tensor (bitwise)", ok ? 0.0 : 1.0, 0.0, 3L * w * (y1 - y0));
        // Tolerance: bitwise (three products).
        CHECK_MSG(ok, "tensor w %d h %d rows %d..%d: differs from the reference or wrote outside", w, h, y0, y1);
    }
}

// ---- window sums ----------------------------------------------------------------------------------
double gamma(int m) { return m * kU32 / (1.0 - m * kU32); }

// Rows [y0, y1) of one pass's NEON result against the reference's, each value within
// 2 gamma_{s-1} of the sum of its window's magnitudes; returns the largest |d| / bound and adds
// the largest |d| / (sum of magnitudes) to *rel.
double box_err(const Plane& src, const Plane& got, const Plane& want, int r, bool horizontal, int y0, int y1,
               double* rel, const char* what) {
    const int s = 2 * r + 1;
    const double g = 2.0 * gamma(s - 1);
    double worst = 0.0;
    for (int y = y0; y < y1; ++y)
        for (int x = 0; x < src.w; ++x) {
            double mag = 0.0;
            for (int i = -r; i <= r; ++i) mag += std::fabs(horizontal ? at(src, x + i, y) : at(src, x, y + i));
            const float a = got.row(y)[x], b = want.row(y)[x];
            const double d = diff(a, b), bound = g * mag;
            worst = std::fmax(worst, bound > 0.0 ? d / bound : (d > 0.0 ? HUGE_VAL : 0.0));
            *rel = std::fmax(*rel, mag > 0.0 ? d / mag : d);
            // Tolerance: 2 gamma_{s-1} sum|terms| (0 for a window of zeros: exactly 0 then).
            CHECK_MSG(d <= bound, "%s w %d h %d r %d (%d,%d): %.9g vs reference %.9g (bound %.3g)", what, src.w,
                      src.h, r, x, y, static_cast<double>(a), static_cast<double>(b), bound);
        }
    return worst;
}

// n channels of radius r: the horizontal pass against the reference in bands, the vertical one
// on the reference's horizontal result (each pass alone against its bound).
void check_box(Rng& rng, int w, int h, std::ptrdiff_t pitch, bool flush, int r, int n) {
    Planes p(w, h, pitch, 5 * kLkTensorChannels, flush); // per channel: src, h ref, h neon, v ref, v neon
    if (!p.ok()) {
        CHECK(false);
        return;
    }
    Plane src[kLkTensorChannels], hr[kLkTensorChannels], hn[kLkTensorChannels], vr[kLkTensorChannels],
        vn[kLkTensorChannels];
    for (int c = 0; c < n; ++c) {
        const int kind = (w + c) % 4;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) p[5 * c].at(x, y) = box_value(kind, rng);
        src[c] = p[5 * c].p;
        hr[c] = p[5 * c + 1].p;
        hn[c] = p[5 * c + 2].p;
        vr[c] = p[5 * c + 3].p;
        vn[c] = p[5 * c + 4].p;
    }
    lk_box_h_multi_ref(src, hr, n, r, 0, h);
    Band bands[2];
    const int nb = bands_for(h, bands);
    const std::size_t rb = static_cast<std::size_t>(w) * 4u;
    double worst_h = 0.0, worst_v = 0.0, rel_h = 0.0, rel_v = 0.0;
    for (int b = 0; b < nb; ++b) {
        const int y0 = bands[b].y0, y1 = bands[b].y1;
        std::vector<unsigned char> s_src[kLkTensorChannels], s_h[kLkTensorChannels], s_v[kLkTensorChannels];
        for (int c = 0; c < n; ++c) {
            s_src[c] = p[5 * c].snapshot();
            s_h[c] = p[5 * c + 2].snapshot();
            s_v[c] = p[5 * c + 4].snapshot();
        }
        lk_box_h_multi_neon(src, hn, n, r, y0, y1);
        lk_box_v_multi_ref(hr, vr, n, r, y0, y1);
        lk_box_v_multi_neon(hr, vn, n, r, y0, y1);
        for (int c = 0; c < n; ++c) {
            worst_h = std::fmax(worst_h, box_err(src[c], hn[c], hr[c], r, true, y0, y1, &rel_h, "box_h"));
            worst_v = std::fmax(worst_v, box_err(hr[c], vn[c], vr[c], r, false, y0, y1, &rel_v, "box_v"));
            CHECK_MSG(p[5 * c + 2].untouched_outside(s_h[c], y0, y1, rb) &&
                          p[5 * c + 4].untouched_outside(s_v[c], y0, y1, rb),
                      "box w %d h %d r %d channel %d: wrote outside rows [%d, %d)", w, h, r, c, y0, y1);
            CHECK(p[5 * c].unchanged(s_src[c]));
        }
    }
    record("box_h, |d| / bound", worst_h, 1.0, static_cast<long>(n) * w * h);
    record("box_h, |d| / sum|terms|", rel_h, 0.0, static_cast<long>(n) * w * h);
    record("box_v, |d| / bound", worst_v, 1.0, static_cast<long>(n) * w * h);
    record("box_v, |d| / sum|terms|", rel_v, 0.0, static_cast<long>(n) * w * h);
}

// The vertical pass at every radius on heights 1..70, in bands cut anywhere: each band's rows are
// the whole-plane call's bits (and within the bound of the reference). The horizontal pass of a
// band of rows is likewise the whole call's (rows never mix).
void check_box_bands(Rng& rng) {
    const int widths[] = {1, 5, 16, 17, 35};
    int case_no = 0;
    for (int w : widths)
        for (int r = 1; r <= kLkMaxWindow / 2; ++r) {
            const int h = 1 + (case_no * 7 + r * 3) % 70;
            ++case_no;
            const std::ptrdiff_t pitch = pitch_for(w, case_no % 3 == 0);
            Planes p(w, h, pitch, 5, case_no & 1); // src, ref, neon whole, neon bands, h neon bands
            if (!p.ok()) {
                CHECK(false);
                return;
            }
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) p[0].at(x, y) = box_value(case_no, rng);
            const Plane s = p[0].p, ref = p[1].p, whole = p[2].p, banded = p[3].p, hband = p[4].p;
            lk_box_v_multi_ref(&s, &ref, 1, r, 0, h);
            lk_box_v_multi_neon(&s, &whole, 1, r, 0, h);
            lk_box_h_multi_neon(&s, &banded, 1, r, 0, h); // the whole-plane horizontal pass, here
            for (int y = 0; y < h;) {                     // bands of 1 .. 2s rows
                const int y1 = std::min(h, y + 1 + rng.below(4 * r + 2));
                lk_box_h_multi_neon(&s, &hband, 1, r, y, y1);
                y = y1;
            }
            const bool h_same = same_rows(hband, banded, 0, h);
            for (int y = 0; y < h;) {
                const int y1 = std::min(h, y + 1 + rng.below(4 * r + 2));
                lk_box_v_multi_neon(&s, &banded, 1, r, y, y1);
                y = y1;
            }
            const bool v_same = same_rows(banded, whole, 0, h);
            double rel = 0.0;
            const double e = box_err(s, whole, ref, r, false, 0, h, &rel, "box_v (bands)");
            record("box_v, |d| / bound", e, 1.0, static_cast<long>(w) * h);
            record("box_v, |d| / sum|terms|", rel, 0.0, static_cast<long>(w) * h);
            record("box_h / box_v in bands = whole (bitwise)", h_same && v_same ? 0.0 : 1.0, 0.0,
                   2L * w * h);
            // Tolerance: bitwise (the blocks are anchored at multiples of s of the plane).
            CHECK_MSG(h_same && v_same, "box w %d h %d r %d: bands differ from the whole-plane call (h %d, v %d)", w,
                      h, r, h_same, v_same);
        }
}

// ---- confidence -----------------------------------------------------------------------------------
// G: the window sums of a random gradient's tensor (the reference's), with some rows replaced by
// zeros, rank-one tensors (products of two floats: det within rounding of 0), diagonal ones,
// 1e12-scale and 1e-30-scale ones.
void fill_tensor_sums(Rng& rng, Planes& p, int first, int r) {
    const int w = p.w, h = p.h;
    GPlane gx(w, h, p.pitch, true), gy(w, h, p.pitch, false), t0(w, h, p.pitch, true), t1(w, h, p.pitch, true),
        t2(w, h, p.pitch, true), m0(w, h, p.pitch, true), m1(w, h, p.pitch, true), m2(w, h, p.pitch, true);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            gx.at(x, y) = rng.uni(-60.0f, 60.0f);
            gy.at(x, y) = rng.below(3) == 0 ? 0.3f * gx.at(x, y) : rng.uni(-60.0f, 60.0f);
        }
    LkTensorArgs ta;
    ta.gx = gx.p;
    ta.gy = gy.p;
    ta.j[0] = t0.p;
    ta.j[1] = t1.p;
    ta.j[2] = t2.p;
    lk_tensor_ref(ta, 0, h);
    const Plane t[3] = {t0.p, t1.p, t2.p}, m[3] = {m0.p, m1.p, m2.p};
    const Plane g[3] = {p[first].p, p[first + 1].p, p[first + 2].p};
    lk_box_h_multi_ref(t, m, 3, r, 0, h);
    lk_box_v_multi_ref(m, g, 3, r, 0, h);
    for (int y = 0; y < h; ++y) {
        const int kind = rng.below(8);
        if (kind >= 4) continue;
        for (int x = 0; x < w; ++x) {
            float a = 0.0f, b = 0.0f, c = 0.0f;
            const float u = rng.uni(-200.0f, 200.0f), v = rng.uni(-200.0f, 200.0f);
            switch (kind) {
            case 0: break; // zeros
            case 1: a = u * u, b = u * v, c = v * v; break;
            case 2: a = u * u, c = v * v; break;
            default: {
                const float sc = rng.below(2) ? 1e8f : 1e-34f;
                a = u * u * sc, b = u * v * sc * 0.5f, c = v * v * sc;
            }
            }
            p[first].at(x, y) = a;
            p[first + 1].at(x, y) = b;
            p[first + 2].at(x, y) = c;
        }
    }
}

void check_confidence(Rng& rng, int w, int h, std::ptrdiff_t pitch, bool flush, int r) {
    Planes p(w, h, pitch, 7, flush); // g11, g12, g22, conf ref, state ref, conf neon, state neon
    if (!p.ok()) {
        CHECK(false);
        return;
    }
    fill_tensor_sums(rng, p, 0, r);
    const int s = 2 * r + 1;
    // min_eigen: 0, the default 1, and one pixel's own confidence (a tie).
    float tie = 1.0f;
    {
        LkConfArgs a;
        for (int c = 0; c < kLkTensorChannels; ++c) a.j[c] = p[c].p;
        a.conf = p[3].p;
        a.state = p[4].p;
        a.inv_area = 1.0 / (static_cast<double>(s) * s);
        a.min_eigen = 0.0f;
        lk_confidence_ref(a, 0, h);
        tie = p[3].at(rng.below(w), rng.below(h));
    }
    const float mins[] = {0.0f, 1.0f, tie};
    Band bands[2];
    const int nb = bands_for(h, bands);
    const std::size_t rb = static_cast<std::size_t>(w) * 4u;
    for (float me : mins)
        for (int b = 0; b < nb; ++b) {
            const int y0 = bands[b].y0, y1 = bands[b].y1;
            LkConfArgs r_, n_;
            for (int c = 0; c < kLkTensorChannels; ++c) r_.j[c] = n_.j[c] = p[c].p;
            r_.conf = p[3].p;
            r_.state = p[4].p;
            n_.conf = p[5].p;
            n_.state = p[6].p;
            r_.inv_area = n_.inv_area = 1.0 / (static_cast<double>(s) * s);
            r_.min_eigen = n_.min_eigen = me;
            const auto sc = p[5].snapshot(), ss = p[6].snapshot();
            const auto s0 = p[0].snapshot(), s1 = p[1].snapshot(), s2 = p[2].snapshot();
            const double cr = lk_confidence_ref(r_, y0, y1);
            const double cn = lk_confidence_neon(n_, y0, y1);
            double worst = 0.0;
            long ones = 0, state_diff = 0;
            for (int y = y0; y < y1; ++y)
                for (int x = 0; x < w; ++x) {
                    const float got = p[5].at(x, y), want = p[3].at(x, y);
                    const double d = diff(got, want);
                    worst = std::fmax(worst, want != 0.0f ? d / std::fabs(want) : d);
                    // Tolerance: one F32 ulp of the reference's confidence.
                    CHECK_MSG(d <= std::ldexp(std::fabs(static_cast<double>(want)), -23),
                              "confidence w %d h %d (%d,%d): %.9g vs reference %.9g (g %g %g %g)", w, h, x, y,
                              static_cast<double>(got), static_cast<double>(want), static_cast<double>(p[0].at(x, y)),
                              static_cast<double>(p[1].at(x, y)), static_cast<double>(p[2].at(x, y)));
                    const float sn = p[6].at(x, y), sr = p[4].at(x, y);
                    ones += sn == 1.0f ? 1 : 0;
                    CHECK_MSG(sn == 0.0f || sn == 1.0f, "confidence: state %g", static_cast<double>(sn));
                    if (sn != sr) ++state_diff;
                    // Tolerance: the state is the reference's wherever the confidence is.
                    CHECK_MSG(sn == sr || got != want, "confidence w %d (%d,%d): state %g vs reference %g", w, x, y,
                              static_cast<double>(sn), static_cast<double>(sr));
                }
            record("confidence, |d| / |ref|", worst, std::ldexp(1.0, -23), static_cast<long>(w) * (y1 - y0));
            record("confidence, states differing", static_cast<double>(state_diff), 0.0,
                   static_cast<long>(w) * (y1 - y0));
            CHECK_MSG(cn == static_cast<double>(ones), "confidence w %d: count %g, %ld ones written", w, cn, ones);
            CHECK_MSG(state_diff != 0 || cn == cr, "confidence w %d: count %g vs reference %g", w, cn, cr);
            CHECK(p[5].untouched_outside(sc, y0, y1, rb) && p[6].untouched_outside(ss, y0, y1, rb));
            CHECK(p[0].unchanged(s0) && p[1].unchanged(s1) && p[2].unchanged(s2));
        }
}

// ---- residual products ----------------------------------------------------------------------------
// Flows: zero, +-2 px, +-50 px, integer shifts, far outside (1e7, 1e30: it = 0, no undefined
// conversion), -0.
float flow_value(int kind, int x, int y, bool v, Rng& rng) {
    switch (kind % 6) {
    case 0: return 0.0f;
    case 1: return rng.uni(-2.0f, 2.0f);
    case 2: return rng.uni(-50.0f, 50.0f);
    case 3: return static_cast<float>(rng.below(7) - 3);
    case 4: return rng.below(2) ? (v ? -1e30f : 1e7f) : rng.uni(-4.0f, 4.0f);
    default: return ((x + y) & 1) ? -0.0f : 0.5f * static_cast<float>(v ? -1 : 1);
    }
}

void check_residual(Rng& rng, int w, int h, std::ptrdiff_t pitch, bool flush) {
    Planes p(w, h, pitch, 10, flush); // i0, i1, gx, gy, u1, u2, bx ref, by ref, bx neon, by neon
    if (!p.ok()) {
        CHECK(false);
        return;
    }
    const int fkind = w % 6;
    double imax = 0.0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            p[0].at(x, y) = frame_value(w % 3, x, y, rng);
            p[1].at(x, y) = frame_value((w + 1) % 3, x, y, rng);
            imax = std::fmax(imax, std::fabs(static_cast<double>(p[1].at(x, y))));
            p[2].at(x, y) = rng.uni(-60.0f, 60.0f);
            p[3].at(x, y) = rng.uni(-60.0f, 60.0f);
            p[4].at(x, y) = flow_value(fkind, x, y, false, rng);
            p[5].at(x, y) = flow_value(fkind, x, y, true, rng);
        }
    Band bands[2];
    const int nb = bands_for(h, bands);
    const std::size_t rb = static_cast<std::size_t>(w) * 4u;
    for (int b = 0; b < nb; ++b) {
        const int y0 = bands[b].y0, y1 = bands[b].y1;
        std::vector<unsigned char> ins[6];
        for (int i = 0; i < 6; ++i) ins[i] = p[i].snapshot();
        const auto sx = p[8].snapshot(), sy = p[9].snapshot();
        lk_residual_ref(LkResidualArgs{p[0].p, p[1].p, p[2].p, p[3].p, p[4].p, p[5].p, p[6].p, p[7].p}, y0, y1);
        lk_residual_neon(LkResidualArgs{p[0].p, p[1].p, p[2].p, p[3].p, p[4].p, p[5].p, p[8].p, p[9].p}, y0, y1);
        double worst = 0.0;
        long differ = 0;
        for (int y = y0; y < y1; ++y)
            for (int x = 0; x < w; ++x) {
                const double gx = p[2].at(x, y), gy = p[3].at(x, y);
                const double terms = std::fmax(std::fabs(gx), std::fabs(gy)) *
                                     (imax + std::fabs(static_cast<double>(p[0].at(x, y))) +
                                      std::fabs(gx * p[4].at(x, y)) + std::fabs(gy * p[5].at(x, y)));
                for (int c = 0; c < 2; ++c) {
                    const float got = p[8 + c].at(x, y), want = p[6 + c].at(x, y);
                    const double d = diff(got, want);
                    differ += same_bits_f(got, want) ? 0 : 1;
                    worst = std::fmax(worst, terms > 0.0 ? d / terms : d);
                    // Tolerance: 4 ulps of |g| (|I1| + |I0| + |g.u| terms).
                    CHECK_MSG(d <= kUlps4 * terms, "residual w %d h %d (%d,%d) %s, u (%g, %g): %.9g vs reference %.9g",
                              w, h, x, y, c ? "by" : "bx", static_cast<double>(p[4].at(x, y)),
                              static_cast<double>(p[5].at(x, y)), static_cast<double>(got), static_cast<double>(want));
                }
            }
        record("residual, |d| / terms", worst, kUlps4, 2L * w * (y1 - y0));
        record("residual, values not bitwise", static_cast<double>(differ), 0.0, 2L * w * (y1 - y0));
        CHECK_MSG(p[8].untouched_outside(sx, y0, y1, rb) && p[9].untouched_outside(sy, y0, y1, rb),
                  "residual w %d h %d: wrote outside rows [%d, %d)", w, h, y0, y1);
        for (int i = 0; i < 6; ++i) CHECK_MSG(p[i].unchanged(ins[i]), "residual w %d: input %d written", w, i);
    }
}

// ---- Newton step ----------------------------------------------------------------------------------
void check_update(Rng& rng, int w, int h, std::ptrdiff_t pitch, bool flush, int r) {
    // g11, g12, g22, ex, ey; state, u1, u2 (reference); state, u1, u2 (neon); the start state, u1, u2.
    Planes p(w, h, pitch, 14, flush);
    if (!p.ok()) {
        CHECK(false);
        return;
    }
    fill_tensor_sums(rng, p, 0, r);
    const double area = (2.0 * r + 1.0) * (2.0 * r + 1.0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int k = rng.below(16);
            // Sums of residual products; a few columns singular or with a step beyond 1e6 px.
            p[3].at(x, y) = static_cast<float>(rng.uni(-3e3f, 3e3f) * area);
            p[4].at(x, y) = static_cast<float>(rng.uni(-3e3f, 3e3f) * area);
            if (k == 0) { // singular: det = 0 exactly
                p[0].at(x, y) = 4.0f;
                p[1].at(x, y) = 2.0f;
                p[2].at(x, y) = 1.0f;
            } else if (k == 1) { // a step of 1e20 px
                p[0].at(x, y) = 1.0f;
                p[1].at(x, y) = 0.0f;
                p[2].at(x, y) = 1e-20f;
                p[4].at(x, y) = 1.0f;
            }
            p[11].at(x, y) = rng.below(4) == 0 ? 0.0f : 1.0f;
            p[12].at(x, y) = rng.uni(-5.0f, 5.0f);
            p[13].at(x, y) = rng.uni(-5.0f, 5.0f);
        }
    // A pixel whose step is exactly epsilon long: u' - u = (3, 4) px against epsilon 5.
    if (w >= 2) {
        p[0].at(1, 0) = 1.0f, p[1].at(1, 0) = 0.0f, p[2].at(1, 0) = 1.0f;
        p[3].at(1, 0) = -3.0f, p[4].at(1, 0) = -4.0f; // u' = (3, 4)
        p[11].at(1, 0) = 1.0f, p[12].at(1, 0) = 0.0f, p[13].at(1, 0) = 0.0f;
    }
    const float epsilons[] = {0.0f, 0.01f, 5.0f, 1e3f};
    Band bands[2];
    const int nb = bands_for(h, bands);
    const std::size_t rb = static_cast<std::size_t>(w) * 4u;
    for (float eps : epsilons)
        for (int b = 0; b < nb; ++b) {
            const int y0 = bands[b].y0, y1 = bands[b].y1;
            for (int i = 0; i < 3; ++i) {
                p[5 + i].copy_from(p[11 + i]);
                p[8 + i].copy_from(p[11 + i]);
            }
            const auto s8 = p[8].snapshot(), s9 = p[9].snapshot(), s10 = p[10].snapshot();
            std::vector<unsigned char> ins[5];
            for (int i = 0; i < 5; ++i) ins[i] = p[i].snapshot();
            LkUpdateArgs r_, n_;
            for (int c = 0; c < kLkTensorChannels; ++c) r_.j[c] = n_.j[c] = p[c].p;
            r_.ex = n_.ex = p[3].p;
            r_.ey = n_.ey = p[4].p;
            r_.epsilon = n_.epsilon = eps;
            r_.state = p[5].p;
            r_.u1 = p[6].p;
            r_.u2 = p[7].p;
            n_.state = p[8].p;
            n_.u1 = p[9].p;
            n_.u2 = p[10].p;
            const double cr = lk_update_ref(r_, y0, y1);
            const double cn = lk_update_neon(n_, y0, y1);
            const double eps2 = static_cast<double>(eps) * eps;
            long ones = 0, u_diff = 0, state_diff = 0;
            for (int y = y0; y < y1; ++y)
                for (int x = 0; x < w; ++x) {
                    const bool u_same = same_bits_f(p[9].at(x, y), p[6].at(x, y)) &&
                                        same_bits_f(p[10].at(x, y), p[7].at(x, y));
                    u_diff += u_same ? 0 : 1;
                    // Tolerance: u bitwise.
                    CHECK_MSG(u_same, "update w %d h %d eps %g (%d,%d): u (%.9g, %.9g) vs reference (%.9g, %.9g)", w, h,
                              static_cast<double>(eps), x, y, static_cast<double>(p[9].at(x, y)),
                              static_cast<double>(p[10].at(x, y)), static_cast<double>(p[6].at(x, y)),
                              static_cast<double>(p[7].at(x, y)));
                    const float sn = p[8].at(x, y), sr = p[5].at(x, y);
                    ones += sn == 1.0f ? 1 : 0;
                    if (sn == sr) continue;
                    ++state_diff;
                    // Tolerance: a state may differ only where |delta|^2 is within 2^-50 eps^2 of eps^2.
                    const double du = static_cast<double>(p[6].at(x, y)) - p[12].at(x, y);
                    const double dv = static_cast<double>(p[7].at(x, y)) - p[13].at(x, y);
                    const double q = du * du + dv * dv;
                    CHECK_MSG(std::fabs(q - eps2) <= std::ldexp(eps2, -50),
                              "update w %d (%d,%d) eps %g: state %g vs reference %g, |delta|^2 %.17g", w, x, y,
                              static_cast<double>(eps), static_cast<double>(sn), static_cast<double>(sr), q);
                }
            record("update, u not bitwise", static_cast<double>(u_diff), 0.0, 2L * w * (y1 - y0));
            record("update, states differing", static_cast<double>(state_diff), 0.0, static_cast<long>(w) * (y1 - y0));
            CHECK_MSG(cn == static_cast<double>(ones), "update w %d: count %g, %ld ones written", w, cn, ones);
            CHECK_MSG(state_diff != 0 || cn == cr, "update w %d: count %g vs reference %g", w, cn, cr);
            CHECK_MSG(p[8].untouched_outside(s8, y0, y1, rb) && p[9].untouched_outside(s9, y0, y1, rb) &&
                          p[10].untouched_outside(s10, y0, y1, rb),
                      "update w %d h %d: wrote outside rows [%d, %d)", w, h, y0, y1);
            for (int i = 0; i < 5; ++i) CHECK_MSG(p[i].unchanged(ins[i]), "update w %d: input %d written", w, i);
        }
}

// ---- every width ----------------------------------------------------------------------------------
void check_widths(Rng& rng) {
    for (int w = 1; w <= kMaxW; ++w) {
        const int h = height_for(w);
        const std::ptrdiff_t pitch = pitch_for(w, w % 3 == 0);
        const bool flush = (w & 1) != 0;
        const int r = 1 + w % (kLkMaxWindow / 2); // radius 1..16
        check_gradients(rng, w, h, pitch, flush);
        check_tensor(rng, w, h, pitch, flush);
        check_box(rng, w, w % 4 == 0 && w < 200 ? 6 + w % 36 : h, pitch, flush, r, 1 + w % 3);
        check_confidence(rng, w, h, pitch, flush, r);
        check_residual(rng, w, h, pitch, flush);
        check_update(rng, w, h, pitch, flush, r);
    }
}

void check_table() {
    LkKernels t;
    lk_kernels_init_ref(&t);
    lk_kernels_init_neon(&t);
    // Every entry but census's is NEON's (the Scharr gradient is the level solver's).
    CHECK(t.gradient == lk_scharr_neon && t.scharr == lk_scharr_neon && t.prewitt == lk_prewitt_neon &&
          t.tensor == lk_tensor_neon && t.box_h_multi == lk_box_h_multi_neon && t.box_v_multi == lk_box_v_multi_neon &&
          t.confidence == lk_confidence_neon && t.residual == lk_residual_neon && t.update == lk_update_neon);
    // The census entries stay the reference's (neon/init_neon.cpp).
    CHECK(t.census_tensor == census_tensor_ref && t.census_products == lk_census_products_ref);
}

// ---- whole flow, NEON against the reference, through the public API --------------------------------
// Epsilon 0 (the same steps on both paths): any flow value valid on both, px (measured 5.3e-6).
const double kFlowMaxDiff = 1e-4;
// The default epsilon: a pixel whose |delta| lies within rounding of epsilon may stop one step
// earlier on one path; the other's further steps are shorter than epsilon while they converge.
// So any value within epsilon (measured 4.8e-3 px at epsilon 0.01, one pixel), and the mean over
// the valid pixels within kFlowMeanDiff px (measured 1.7e-6).
const double kFlowMeanDiff = 1e-4;
const double kMaskDiffShare = 1e-3; // share of pixels whose validity differs (measured 0)

of_config flow_cfg(uint32_t w, uint32_t h, of_backend b, of_precision p, uint32_t threads, float eps) {
    of_config c;
    std::memset(&c, 0, sizeof c);
    of_config_init(&c, OF_ALGO_LK);
    c.max_width = w;
    c.max_height = h;
    c.format = OF_PIXEL_F32;
    c.backend = b;
    c.precision = p;
    c.threads = threads;
    c.epsilon = eps;
    return oftest::one_solve(c); // path parity: pick's choice could flip on a near tie
}

struct FlowOut {
    std::vector<float> uv;
    std::vector<unsigned char> mask;
    of_info info;
};

bool flow_of(const of_config& c, const oftest::Pair& pr, FlowOut* o, const char* what) {
    of_context* ctx = oftest::create_or_report(c, what);
    CHECK_MSG(ctx != nullptr, "%s: create", what);
    if (!ctx) return false;
    const oftest::FramePair fp = oftest::frames_of(pr, OF_PIXEL_F32);
    oftest::FlowBuf f = oftest::make_flow(pr.w, pr.h);
    o->mask.assign(static_cast<std::size_t>(pr.w) * pr.h, 7);
    f.f.valid_format = OF_VALID_MASK_U8;
    f.f.valid = o->mask.data();
    f.f.valid_stride = pr.w;
    const of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &f.f);
    CHECK_MSG(s == OF_OK, "%s: %s (%s)", what, oftest::st(s), of_last_error(ctx));
    std::memset(&o->info, 0, sizeof o->info);
    o->info.struct_size = sizeof o->info;
    CHECK(of_get_info(ctx, &o->info) == OF_OK);
    of_destroy(ctx);
    if (s != OF_OK) return false;
    o->uv = f.extract();
    CHECK_MSG(oftest::all_finite(o->uv), "%s: non-finite flow", what);
    return true;
}

void check_flow() {
    using synth::Case;
    struct Sample {
        Case k;
        uint32_t w, h;
    };
    const Sample samples[] = {{Case::Translation, 64, 48}, {Case::RotationZoom, 61, 47},
                              {Case::SmoothField, 33, 29}, {Case::Occlusion, 72, 40},
                              {Case::NoiseGain, 45, 17},   {Case::CameraMotion, 160, 120}};
    for (const Sample& sm : samples)
        for (float eps : {0.0f, -1.0f}) { // -1: the default epsilon
            const oftest::Pair pr = oftest::synth_pair(sm.k, sm.w, sm.h, 7);
            of_config dflt;
            of_config_init(&dflt, OF_ALGO_LK);
            const float e = eps < 0.0f ? dflt.epsilon : eps;
            char what[160];
            std::snprintf(what, sizeof what, "LK %s %ux%u epsilon %g", synth::case_name(sm.k), sm.w, sm.h,
                          static_cast<double>(e));
            FlowOut ref, n1;
            if (!flow_of(flow_cfg(sm.w, sm.h, OF_BACKEND_REFERENCE, OF_PRECISION_F32, 1, e), pr, &ref, what) ||
                !flow_of(flow_cfg(sm.w, sm.h, OF_BACKEND_NEON, OF_PRECISION_F32, 1, e), pr, &n1, what))
                continue;
            CHECK_MSG(n1.info.backend == OF_BACKEND_NEON && n1.info.precision == OF_PRECISION_F32,
                      "%s: info says backend %d precision %d", what, static_cast<int>(n1.info.backend),
                      static_cast<int>(n1.info.precision));
            const std::size_t n = static_cast<std::size_t>(pr.w) * pr.h;
            double maxd = 0.0, mean = 0.0;
            long both = 0, mask_diff = 0;
            for (std::size_t i = 0; i < n; ++i) {
                if (ref.mask[i] != n1.mask[i]) ++mask_diff;
                if (ref.mask[i] != 255 || n1.mask[i] != 255) continue;
                ++both;
                for (std::size_t c = 0; c < 2; ++c) {
                    const double d = std::fabs(static_cast<double>(n1.uv[c * n + i]) - ref.uv[c * n + i]);
                    maxd = std::fmax(maxd, d);
                    mean += d;
                }
            }
            mean = both ? mean / (2.0 * static_cast<double>(both)) : 0.0;
            const double share = static_cast<double>(mask_diff) / static_cast<double>(n);
            std::printf("  %-44s max |neon - ref| %.3g px (mean %.2g) over %ld valid; masks differ on %ld; EPE "
                        "ref %.4f neon %.4f\n",
                        what, maxd, mean, both, mask_diff, oftest::mean_epe(ref.uv, pr), oftest::mean_epe(n1.uv, pr));
            const double bound = e == 0.0f ? kFlowMaxDiff : static_cast<double>(e);
            record(e == 0.0f ? "whole flow epsilon 0, max |neon - ref| px"
                             : "whole flow default epsilon, max |neon - ref| px",
                   maxd, bound, 2L * both);
            record("whole flow, mean |neon - ref| px", mean, kFlowMeanDiff, 2L * both);
            record("whole flow, share of validity differing", share, kMaskDiffShare, static_cast<long>(n));
            CHECK_MSG(maxd <= bound, "%s: NEON flow differs from the reference by %.3g px (bound %.3g)", what, maxd,
                      bound);
            CHECK_MSG(mean <= kFlowMeanDiff, "%s: mean difference %.3g px", what, mean);
            CHECK_MSG(share <= kMaskDiffShare, "%s: validity differs on %ld pixels", what, mask_diff);
            for (uint32_t t : {2u, 3u, 5u}) {
                char w2[200];
                std::snprintf(w2, sizeof w2, "%s NEON threads %u vs 1", what, t);
                FlowOut nt;
                if (flow_of(flow_cfg(sm.w, sm.h, OF_BACKEND_NEON, OF_PRECISION_F32, t, e), pr, &nt, w2))
                    CHECK(oftest::same_bits(nt.uv, n1.uv, w2) && nt.mask == n1.mask);
            }
            FlowOut h16;
            char w3[200];
            std::snprintf(w3, sizeof w3, "%s NEON precision F16", what);
            if (flow_of(flow_cfg(sm.w, sm.h, OF_BACKEND_NEON, OF_PRECISION_F16, 1, e), pr, &h16, w3)) {
                CHECK_MSG(h16.info.precision == OF_PRECISION_F32, "%s: info says precision %d (LK has no F16 kernels)",
                          w3, static_cast<int>(h16.info.precision));
                CHECK(oftest::same_bits(h16.uv, n1.uv, w3) && h16.mask == n1.mask);
            }
        }
}

} // namespace

int main() {
    const auto t0 = std::chrono::steady_clock::now();
    unsetenv("OFLOW_FORCE_BACKEND"); // the whole-flow checks choose the backend by the config
    CHECK(neon_available());
    std::printf("neon_lk_kernels: FP16 vector arithmetic %s (LK has no F16 kernels: F16 requests run F32)\n",
                neon_has_f16_arith() ? "on" : "off");
    Rng rng(2026);
    check_table();
    check_widths(rng);
    check_box_bands(rng);
    check_flow();
    print_stats();
    std::printf("neon_lk_kernels: %.1f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return oftest::finish("neon_lk_kernels");
}
