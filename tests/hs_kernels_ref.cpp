// hs_kernels_ref: the reference HS/CLG kernels (core/ref/hs_ref.hpp) against their contract in
// core/hs_kernels.hpp, on sizes 1x1 .. 33x17 and odd pitches:
//  - derivatives: exact on ramps (ix = a, iy = b, it = d inside; the clamped last column / row
//    halves the difference there), and equal to an independent re-implementation of the
//    formulas on random planes (bitwise: same operations in the same order);
//  - tensor: the five products, bitwise;
//  - blur_*_multi: bitwise equal to blur_h_ref / blur_v_ref per channel (n = 1..5, three sigmas);
//  - rb_split / rb_merge: a round trip is the identity, slot x >> 1 holds pixel x, unused
//    slots keep their bytes;
//  - every kernel writes only rows [y0, y1) (sentinels elsewhere) and gives the same bits when
//    called in row bands (split at 1, h/2, h-1) as over all rows, the solvers' sums included
//    up to the order of the band sums (1e-12 relative).
#include "tests/check.hpp"
#include "tests/sentinel_plane.hpp"

#include "core/hs_kernels.hpp"
#include "core/ref/hs_ref.hpp"
#include "core/ref/kernels_ref.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

using namespace oflow;
using oftest::at;
using oftest::Buf;
using oftest::kSentinel;
using oftest::same;
using oftest::untouched_outside;

namespace {

void test_derivatives() {
    // Ramps: i0 = a x + b y + c, i1w = i0 + d.
    const float a = 1.5f, b = -2.25f, c = 40.0f, d = 3.0f;
    for (int h : {1, 2, 5}) {
        for (int w : {1, 2, 7}) {
            Buf i0(w, h, 3), i1(w, h, 3), ix(w, h, 3), iy(w, h, 3), it(w, h, 3);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    i0.p.row(y)[x] = a * static_cast<float>(x) + b * static_cast<float>(y) + c;
                    i1.p.row(y)[x] = i0.p.row(y)[x] + d;
                }
            hs_derivatives_ref(HsDerivArgs{i0.p, i1.p, ix.p, iy.p, it.p}, 0, h);
            bool ok = true;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    // The last column (row) clamps x + 1 (y + 1) onto itself: no difference there.
                    const float ex = x + 1 < w ? a : 0.0f, ey = y + 1 < h ? b : 0.0f;
                    ok = ok && std::fabs(ix.p.row(y)[x] - ex) <= 1e-5f * 64 && std::fabs(iy.p.row(y)[x] - ey) <= 1e-5f * 64 &&
                         std::fabs(it.p.row(y)[x] - d) <= 1e-5f * 64;
                }
            CHECK_MSG(ok, "derivatives of ramps at %dx%d (tolerance 6.4e-4: F32 rounding of values near 60)", w, h);
        }
    }
    // Random planes against the formulas written out again.
    std::mt19937 rng(11);
    for (int w : {1, 5, 33})
        for (int h : {1, 5, 17}) {
            Buf i0(w, h, 1), i1(w, h, 2), ix(w, h, 0), iy(w, h, 3), it(w, h, 1);
            i0.fill(rng, 0, 255);
            i1.fill(rng, 0, 255);
            hs_derivatives_ref(HsDerivArgs{i0.p, i1.p, ix.p, iy.p, it.p}, 0, h);
            bool ok = true;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const Plane A = i0.p, B = i1.p;
                    const float gx = 0.25f * (at(A, x + 1, y) - at(A, x, y) + at(A, x + 1, y + 1) - at(A, x, y + 1) +
                                              at(B, x + 1, y) - at(B, x, y) + at(B, x + 1, y + 1) - at(B, x, y + 1));
                    const float gy = 0.25f * (at(A, x, y + 1) - at(A, x, y) + at(A, x + 1, y + 1) - at(A, x + 1, y) +
                                              at(B, x, y + 1) - at(B, x, y) + at(B, x + 1, y + 1) - at(B, x + 1, y));
                    const float gt = 0.25f * (at(B, x, y) - at(A, x, y) + at(B, x + 1, y) - at(A, x + 1, y) +
                                              at(B, x, y + 1) - at(A, x, y + 1) + at(B, x + 1, y + 1) - at(A, x + 1, y + 1));
                    ok = ok && ix.p.row(y)[x] == gx && iy.p.row(y)[x] == gy && it.p.row(y)[x] == gt;
                }
            CHECK_MSG(ok, "derivatives of random planes at %dx%d differ from the formulas", w, h);
        }
}

void test_blur_multi() {
    std::mt19937 rng(5);
    for (float sigma : {0.8f, 2.0f, 5.0f}) {
        const Gaussian1D g = make_gaussian(sigma);
        for (int w : {1, 3, 17, 64})
            for (int h : {1, 3, 9}) {
                for (int n = 1; n <= kHsChannels; ++n) {
                    std::vector<Buf> src, dst, ref;
                    for (int c = 0; c < n; ++c) {
                        src.emplace_back(w, h, 1);
                        src.back().fill(rng, 0, 255);
                        dst.emplace_back(w, h, 1);
                        ref.emplace_back(w, h, 1);
                    }
                    Plane s[kHsChannels], d[kHsChannels];
                    for (int c = 0; c < n; ++c) s[c] = src[c].p, d[c] = dst[c].p;
                    hs_blur_h_multi_ref(s, d, n, g, 0, h);
                    bool ok = true;
                    for (int c = 0; c < n; ++c) {
                        blur_h_ref(src[c].p, ref[c].p, g, 0, h);
                        ok = ok && same(dst[c], ref[c]);
                    }
                    for (int c = 0; c < n; ++c) s[c] = dst[c].p, d[c] = src[c].p; // v pass back into src
                    hs_blur_v_multi_ref(s, d, n, g, 0, h);
                    for (int c = 0; c < n; ++c) {
                        Buf r(w, h, 1);
                        blur_v_ref(ref[c].p, r.p, g, 0, h);
                        ok = ok && same(src[c], r);
                    }
                    CHECK_MSG(ok, "blur multi sigma %g %dx%d n %d: not bitwise blur_h_ref / blur_v_ref", static_cast<double>(sigma),
                              w, h, n);
                }
            }
    }
}

void test_split_merge() {
    for (int w = 1; w <= 9; ++w)
        for (int h = 1; h <= 6; ++h) {
            const int hw = (w + 1) / 2;
            Buf src(w, h, 2), red(hw, h, 1), black(hw, h, 1), back(w, h, 2);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) src.p.row(y)[x] = static_cast<float>(100 * y + x);
            rb_split_ref(src.p, red.p, black.p, 0, h);
            bool slots = true, unused = true;
            for (int y = 0; y < h; ++y) {
                for (int x = 0; x < w; ++x) {
                    const Plane& c = ((x + y) & 1) ? black.p : red.p;
                    slots = slots && c.row(y)[x >> 1] == src.p.row(y)[x];
                }
                // A colour with fewer pixels in this row leaves its last slot alone.
                const int nr = (w + 1 - (y & 1)) / 2, nb = w - nr;
                for (int k = nr; k < hw; ++k) unused = unused && red.p.row(y)[k] == kSentinel;
                for (int k = nb; k < hw; ++k) unused = unused && black.p.row(y)[k] == kSentinel;
            }
            rb_merge_ref(red.p, black.p, back.p, 0, h);
            CHECK_MSG(slots && unused && same(src, back), "split/merge %dx%d: slots %d unused slots kept %d round trip %d", w, h,
                      slots, unused, same(src, back));
        }
}

// Every kernel over [0, h) and in bands: same bits; writes stay in its rows.
void test_bands() {
    const int w = 13, h = 11;
    std::mt19937 rng(3);
    Buf i0(w, h, 2), i1(w, h, 2), gx(w, h, 2), gy(w, h, 2), gt(w, h, 2), du(w, h, 2), dv(w, h, 2);
    i0.fill(rng, 0, 255);
    i1.fill(rng, 0, 255);
    du.fill(rng, -1, 1);
    dv.fill(rng, -1, 1);
    hs_derivatives_ref(HsDerivArgs{i0.p, i1.p, gx.p, gy.p, gt.p}, 0, h);
    std::vector<Buf> j;
    for (int c = 0; c < kHsChannels; ++c) j.emplace_back(w, h, 2);
    HsTensorArgs ta;
    ta.ix = gx.p, ta.iy = gy.p, ta.it = gt.p;
    for (int c = 0; c < kHsChannels; ++c) ta.j[c] = j[c].p;
    hs_tensor_ref(ta, 0, h);
    bool products = true;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const float a = gx.p.row(y)[x], b = gy.p.row(y)[x], c = gt.p.row(y)[x];
            products = products && j[kJ11].p.row(y)[x] == a * a && j[kJ12].p.row(y)[x] == a * b &&
                       j[kJ13].p.row(y)[x] == a * c && j[kJ22].p.row(y)[x] == b * b && j[kJ23].p.row(y)[x] == b * c;
        }
    CHECK_MSG(products, "tensor: not the five products");

    typedef double (*Solver)(const HsJacobiArgs&, int, int);
    const Solver solvers[3] = {hs_jacobi_ref, clg_jacobi_ref, clg_jacobi_plain_ref};
    const char* names[3] = {"hs_jacobi", "clg_jacobi", "clg_jacobi_plain"};
    for (int si = 0; si < 3; ++si) {
        Buf fu(w, h, 2), fv(w, h, 2);
        HsJacobiArgs a;
        a.du = du.p, a.dv = dv.p, a.ix = gx.p, a.iy = gy.p, a.it = gt.p, a.alpha2 = 9.0f;
        for (int c = 0; c < kHsChannels; ++c) a.j[c] = j[c].p;
        a.du_next = fu.p, a.dv_next = fv.p;
        const double whole = solvers[si](a, 0, h);
        for (int k : {1, h / 2, h - 1}) {
            Buf bu(w, h, 2), bv(w, h, 2);
            a.du_next = bu.p, a.dv_next = bv.p;
            const double s0 = solvers[si](a, 0, k);
            CHECK_MSG(untouched_outside(bu, 0, k) && untouched_outside(bv, 0, k), "%s: wrote outside rows [0, %d)", names[si], k);
            const double s1 = solvers[si](a, k, h);
            CHECK_MSG(same(bu, fu) && same(bv, fv), "%s: bands split at %d differ from one call", names[si], k);
            CHECK_MSG(std::fabs((s0 + s1) - whole) <= 1e-12 * std::fabs(whole), "%s: band sums %.17g vs %.17g", names[si], s0 + s1,
                      whole);
        }
    }

    // SOR half-sweeps on split planes.
    const int hw = (w + 1) / 2;
    std::vector<Buf> jr, jb;
    for (int c = 0; c < kHsChannels; ++c) {
        jr.emplace_back(hw, h, 1);
        jb.emplace_back(hw, h, 1);
        rb_split_ref(j[c].p, jr[c].p, jb[c].p, 0, h);
    }
    Buf ur(hw, h, 1), ub(hw, h, 1), vr(hw, h, 1), vb(hw, h, 1);
    rb_split_ref(du.p, ur.p, ub.p, 0, h);
    rb_split_ref(dv.p, vr.p, vb.p, 0, h);
    for (int colour = 0; colour < 2; ++colour) {
        HsSorArgs s;
        s.u_old = colour ? ub.p : ur.p, s.v_old = colour ? vb.p : vr.p;
        s.u_other = colour ? ur.p : ub.p, s.v_other = colour ? vr.p : vb.p;
        for (int c = 0; c < kHsChannels; ++c) s.j[c] = colour ? jb[c].p : jr[c].p;
        s.alpha2 = 9.0f, s.omega = 1.3f, s.colour = colour, s.w = w;
        Buf nu(hw, h, 1), nv(hw, h, 1);
        s.u_new = nu.p, s.v_new = nv.p;
        const double whole = sor_half_sweep_ref(s, 0, h);
        for (int k : {1, h / 2, h - 1}) {
            Buf bu(hw, h, 1), bv(hw, h, 1);
            s.u_new = bu.p, s.v_new = bv.p;
            const double s0 = sor_half_sweep_ref(s, 0, k), s1 = sor_half_sweep_ref(s, k, h);
            CHECK_MSG(same(bu, nu) && same(bv, nv), "sor colour %d: bands split at %d differ", colour, k);
            CHECK_MSG(std::fabs((s0 + s1) - whole) <= 1e-12 * std::fabs(whole), "sor colour %d: band sums", colour);
        }
        // A row with fewer pixels of this colour leaves its last slot untouched.
        bool only = true;
        for (int y = 0; y < h; ++y) {
            const int n_red = (w + 1 - (y & 1)) / 2, n_this = colour == 0 ? n_red : w - n_red;
            for (int k = n_this; k < hw; ++k) only = only && nu.p.row(y)[k] == kSentinel && nv.p.row(y)[k] == kSentinel;
        }
        CHECK_MSG(only, "sor colour %d wrote an unused slot", colour);
    }
}

// sor_half_sweep_ref indexes the interior directly and leaves the border to sor_pixel_ref: the
// two must give the same bits everywhere, at every small width (the interior bound's edge cases:
// w = 1, 2, 3 have no interior slot for one colour or both) and height.
void test_sor_interior_equals_pixels() {
    std::mt19937 rng(11);
    int cases = 0;
    for (int w = 1; w <= 9; ++w)
        for (int h : {1, 2, 3, 5}) {
            const int hw = (w + 1) / 2;
            std::vector<Buf> b;
            for (int i = 0; i < 4 + kHsChannels; ++i) {
                b.emplace_back(hw, h, 0);
                b.back().fill(rng, i < 4 ? -2.0f : 0.0f, i < 4 ? 2.0f : 400.0f);
            }
            for (int colour = 0; colour < 2; ++colour) {
                HsSorArgs s;
                s.u_old = b[0].p, s.v_old = b[1].p, s.u_other = b[2].p, s.v_other = b[3].p;
                for (int c = 0; c < kHsChannels; ++c) s.j[c] = b[4 + c].p;
                s.alpha2 = 4.0f, s.omega = 1.2f, s.colour = colour, s.w = w;
                Buf su(hw, h, 0), sv(hw, h, 0), pu(hw, h, 0), pv(hw, h, 0);
                s.u_new = su.p, s.v_new = sv.p;
                const double whole = sor_half_sweep_ref(s, 0, h);
                s.u_new = pu.p, s.v_new = pv.p;
                double sum = 0.0;
                for (int y = 0; y < h; ++y) {
                    const int first = (y + colour) & 1;
                    double row = 0.0;
                    for (int x = first; x < w; x += 2) row += sor_pixel_ref(s, x >> 1, y);
                    sum += row;
                }
                CHECK_MSG(same(su, pu) && same(sv, pv) && sum == whole,
                          "sor w %d h %d colour %d: interior path differs from sor_pixel_ref", w, h, colour);
                ++cases;
            }
        }
    std::printf("sor interior vs per-pixel reference: %d cases bitwise\n", cases);
}

} // namespace

int main() {
    test_sor_interior_equals_pixels();
    test_derivatives();
    test_blur_multi();
    test_split_merge();
    test_bands();
    return oftest::finish("hs_kernels_ref");
}
