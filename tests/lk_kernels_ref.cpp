// lk_kernels_ref: the reference LK kernels (core/ref/lk_ref.hpp) against their contract in
// core/lk_kernels.hpp, each against an independent computation, on sizes 1x1 .. 33x17 and odd
// pitches:
//  - gradients: Scharr and Prewitt of ramps are the slopes inside and half of them on the
//    clamped border (exact), and equal the formulas written out again on random planes (the same
//    operations in the same order: bitwise but for fused multiply-adds, within 4 ulps);
//  - tensor: the three products, bitwise;
//  - box sums: of ones, the window side (h) and its area (v) inside, fewer clamped repeats
//    nowhere (replication: still the side and the area); of random planes, a double-precision
//    brute force within F32 rounding, and the contract's order written out again bitwise;
//  - eigenvalue: diagonal and rotated tensors against their known eigenvalues, rank-one tensors
//    give 0, and a 1e6:1 tensor keeps its small eigenvalue to 1e-9 relative (the naive
//    (a + c) / 2 - sqrt(...) loses it); the confidence kernel's state and count;
//  - residual: integer shifts sample frame 1 exactly, a linear ramp is sampled exactly at any
//    fractional shift, positions outside the plane (1e30 included) give it = 0, r = it - g.u;
//  - update: Cramer's rule against a closed form, the stop rule, the guards (singular, huge),
//    invalid or stopped pixels untouched;
//  - every kernel writes only rows [y0, y1) (sentinels elsewhere) and gives the same bits in row
//    bands (split at 1, h/2, h-1) as over all rows, the counts included.
#include "tests/check.hpp"
#include "tests/sentinel_plane.hpp"

#include "core/lk_kernels.hpp"
#include "core/ref/lk_ref.hpp"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

using namespace oflow;
using oftest::at;
using oftest::Buf;
using oftest::kSentinel;
using oftest::same;
using oftest::untouched_outside;

namespace {

// Equal up to the rounding of a few F32 operations on terms of magnitude `scale`: the compiler
// may contract a * b + c into one fused multiply-add (GCC does on aarch64: -ffp-contract=fast is
// C++'s default), differently in the kernel and here, so expressions with products are compared
// within 4 ulps of the largest term; sums and single products stay bitwise.
bool near(float a, float b, float scale) {
    return std::fabs(static_cast<double>(a) - b) <= 4.0 * FLT_EPSILON * static_cast<double>(scale);
}

// Runs `run(y0, y1)` over all rows into `full` and in bands into `banded` (both fresh copies
// made by `make`); the outputs must agree bit for bit, and a single band must write only its rows.
template <class Make, class Run>
bool banded_equal(int h, Make make, Run run) {
    auto a = make(), b = make(), c = make();
    run(a, 0, h);
    const int cuts[] = {0, h > 1 ? 1 : h, h / 2, h > 1 ? h - 1 : h, h};
    for (int i = 0; i + 1 < 5; ++i)
        if (cuts[i] < cuts[i + 1]) run(b, cuts[i], cuts[i + 1]);
    bool ok = a.outputs_same(b);
    if (h >= 3) {
        run(c, 1, h - 1);
        ok = ok && c.outputs_untouched_outside(1, h - 1);
    }
    return ok;
}

// ---- gradients ---------------------------------------------------------------------------------
void test_gradients() {
    const float a = 1.5f, b = -2.25f, c = 40.0f;
    const LkGradientFn ops[2] = {lk_scharr_ref, lk_prewitt_ref};
    const char* names[2] = {"scharr", "prewitt"};
    for (int k = 0; k < 2; ++k)
        for (int h : {1, 2, 5})
            for (int w : {1, 2, 7}) {
                Buf src(w, h, 3), gx(w, h, 3), gy(w, h, 3);
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x) src.at(x, y) = a * static_cast<float>(x) + b * static_cast<float>(y) + c;
                ops[k](src.p, gx.p, gy.p, 0, h);
                bool ok = true;
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x) {
                        // Clamping: one-sided at a border (half the slope), none on a 1-wide side.
                        const float fx = w == 1 ? 0.0f : (x == 0 || x == w - 1 ? 0.5f : 1.0f);
                        const float fy = h == 1 ? 0.0f : (y == 0 || y == h - 1 ? 0.5f : 1.0f);
                        ok = ok && std::fabs(gx.at(x, y) - fx * a) <= 1e-5f && std::fabs(gy.at(x, y) - fy * b) <= 1e-5f;
                    }
                CHECK_MSG(ok, "%s of a ramp at %dx%d", names[k], w, h);
            }
    std::mt19937 rng(3);
    for (int w : {1, 5, 33})
        for (int h : {1, 6, 17}) {
            Buf src(w, h, 1), gx(w, h, 2), gy(w, h, 0);
            src.fill(rng, 0, 255);
            lk_scharr_ref(src.p, gx.p, gy.p, 0, h);
            bool ok = true;
            const Plane s = src.p;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const float ex = (3.0f * (at(s, x + 1, y - 1) - at(s, x - 1, y - 1)) +
                                      10.0f * (at(s, x + 1, y) - at(s, x - 1, y)) +
                                      3.0f * (at(s, x + 1, y + 1) - at(s, x - 1, y + 1))) /
                                     32.0f;
                    const float ey = (3.0f * (at(s, x - 1, y + 1) - at(s, x - 1, y - 1)) +
                                      10.0f * (at(s, x, y + 1) - at(s, x, y - 1)) +
                                      3.0f * (at(s, x + 1, y + 1) - at(s, x + 1, y - 1))) /
                                     32.0f;
                    ok = ok && near(gx.at(x, y), ex, 16.0f * 255.0f / 32.0f) && near(gy.at(x, y), ey, 16.0f * 255.0f / 32.0f);
                }
            lk_prewitt_ref(src.p, gx.p, gy.p, 0, h);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const float ex = ((at(s, x + 1, y - 1) - at(s, x - 1, y - 1)) + (at(s, x + 1, y) - at(s, x - 1, y)) +
                                      (at(s, x + 1, y + 1) - at(s, x - 1, y + 1))) /
                                     6.0f;
                    const float ey = ((at(s, x - 1, y + 1) - at(s, x - 1, y - 1)) + (at(s, x, y + 1) - at(s, x, y - 1)) +
                                      (at(s, x + 1, y + 1) - at(s, x + 1, y - 1))) /
                                     6.0f;
                    ok = ok && near(gx.at(x, y), ex, 255.0f) && near(gy.at(x, y), ey, 255.0f);
                }
            CHECK_MSG(ok, "gradients of a random %dx%d plane differ from the formulas", w, h);
        }
}

// ---- tensor and box sums ---------------------------------------------------------------------
void test_tensor() {
    std::mt19937 rng(4);
    const int w = 13, h = 7;
    Buf gx(w, h, 1), gy(w, h, 2), j0(w, h, 0), j1(w, h, 3), j2(w, h, 1);
    gx.fill(rng, -100, 100);
    gy.fill(rng, -100, 100);
    lk_tensor_ref(LkTensorArgs{gx.p, gy.p, {j0.p, j1.p, j2.p}}, 2, 5);
    bool ok = untouched_outside(j0, 2, 5) && untouched_outside(j1, 2, 5) && untouched_outside(j2, 2, 5);
    for (int y = 2; y < 5; ++y)
        for (int x = 0; x < w; ++x)
            ok = ok && j0.at(x, y) == gx.at(x, y) * gx.at(x, y) && j1.at(x, y) == gx.at(x, y) * gy.at(x, y) &&
                 j2.at(x, y) == gy.at(x, y) * gy.at(x, y);
    CHECK_MSG(ok, "tensor products, rows 2..4 only");
}

void test_box_sums() {
    std::mt19937 rng(5);
    for (int r : {1, 2, 5, 16})
        for (int w : {1, 4, 17, 40})
            for (int h : {1, 3, 12}) {
                // Ones: the side and the area everywhere (replicated borders repeat ones).
                Buf ones(w, h, 1), hs(w, h, 2), vs(w, h, 3);
                ones.set(1.0f);
                lk_box_h_multi_ref(&ones.p, &hs.p, 1, r, 0, h);
                lk_box_v_multi_ref(&hs.p, &vs.p, 1, r, 0, h);
                bool ok = true;
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x)
                        ok = ok && hs.at(x, y) == static_cast<float>(2 * r + 1) &&
                             vs.at(x, y) == static_cast<float>((2 * r + 1) * (2 * r + 1));
                CHECK_MSG(ok, "box sums of ones, radius %d at %dx%d", r, w, h);
                // Three random channels: the contract's order bitwise, a double brute force within
                // F32 rounding (each sum of up to 33 terms of up to 1e4: 2e-7 relative per add).
                std::vector<Buf> src, mid, dst;
                for (int ch = 0; ch < 3; ++ch) {
                    src.emplace_back(w, h, ch);
                    src.back().fill(rng, 0, 1e4f);
                    mid.emplace_back(w, h, 1);
                    dst.emplace_back(w, h, 2);
                }
                const Plane s[3] = {src[0].p, src[1].p, src[2].p}, m[3] = {mid[0].p, mid[1].p, mid[2].p},
                            d[3] = {dst[0].p, dst[1].p, dst[2].p};
                lk_box_h_multi_ref(s, m, 3, r, 0, h);
                lk_box_v_multi_ref(m, d, 3, r, 0, h);
                bool order = true, near = true;
                for (int ch = 0; ch < 3; ++ch)
                    for (int y = 0; y < h; ++y)
                        for (int x = 0; x < w; ++x) {
                            float eh = 0.0f;
                            for (int i = -r; i <= r; ++i) eh += at(s[ch], x + i, y);
                            float ev = 0.0f;
                            for (int j = -r; j <= r; ++j) ev += at(m[ch], x, y + j);
                            order = order && m[ch].row(y)[x] == eh && d[ch].row(y)[x] == ev;
                            double bf = 0.0;
                            for (int j = -r; j <= r; ++j)
                                for (int i = -r; i <= r; ++i) bf += at(s[ch], x + i, y + j);
                            near = near && std::fabs(d[ch].row(y)[x] - bf) <= 1e-5 * bf + 1e-3;
                        }
                CHECK_MSG(order && near, "box sums of random planes, radius %d at %dx%d: order %d, near %d", r, w, h, order,
                          near);
            }
    // Bands: rows [y0, y1) only, the same bits.
    const int w = 21, h = 11, r = 3;
    Buf src0(w, h, 1), src1(w, h, 0);
    src0.fill(rng, -50, 50);
    src1.fill(rng, -50, 50);
    struct Outs {
        Buf a, b;
        bool outputs_same(const Outs& o) const { return same(a, o.a) && same(b, o.b); }
        bool outputs_untouched_outside(int y0, int y1) const { return untouched_outside(a, y0, y1) && untouched_outside(b, y0, y1); }
    };
    auto make = [&] { return Outs{Buf(w, h, 2), Buf(w, h, 2)}; };
    const Plane s[2] = {src0.p, src1.p};
    CHECK_MSG(banded_equal(h, make,
                           [&](Outs& o, int y0, int y1) {
                               const Plane d[2] = {o.a.p, o.b.p};
                               lk_box_h_multi_ref(s, d, 2, r, y0, y1);
                           }),
              "box_h in bands");
    CHECK_MSG(banded_equal(h, make,
                           [&](Outs& o, int y0, int y1) {
                               const Plane d[2] = {o.a.p, o.b.p};
                               lk_box_v_multi_ref(s, d, 2, r, y0, y1);
                           }),
              "box_v in bands");
}

// ---- eigenvalue and confidence ---------------------------------------------------------------
void test_eigen() {
    // Diagonal: the smaller entry.
    CHECK(lk_min_eigen(4.0f, 0.0f, 1.0f) == 1.0 && lk_min_eigen(1.0f, 0.0f, 9.0f) == 1.0);
    CHECK(lk_min_eigen(0.0f, 0.0f, 0.0f) == 0.0);
    // Rotated diag(l1, l2): [l1 c^2 + l2 s^2, (l1 - l2) c s; ., l1 s^2 + l2 c^2].
    bool ok = true;
    for (double l1 : {1.0, 50.0, 3e4})
        for (double l2 : {0.5, 2.0, 17.0})
            for (double th : {0.1, 0.7, 1.3, 2.9}) {
                const double c = std::cos(th), s = std::sin(th);
                const float a = static_cast<float>(l1 * c * c + l2 * s * s), b = static_cast<float>((l1 - l2) * c * s),
                            d = static_cast<float>(l1 * s * s + l2 * c * c);
                // The float rounding of the entries moves the eigenvalue by up to ~1e-7 of the largest.
                const double want = std::fmin(l1, l2), tol = 4e-7 * std::fmax(l1, l2) + 1e-12;
                ok = ok && std::fabs(lk_min_eigen(a, b, d) - want) <= tol;
            }
    CHECK_MSG(ok, "eigenvalues of rotated diagonal tensors");
    // Rank one (a window of parallel gradients): 0 up to the rounding of the products.
    ok = true;
    for (float gx : {1.0f, 3.0f, -7.5f})
        for (float gy : {2.0f, -0.25f, 11.0f}) ok = ok && lk_min_eigen(gx * gx, gx * gy, gy * gy) <= 1e-6 * (gx * gx + gy * gy);
    CHECK_MSG(ok, "rank-one tensors have a zero eigenvalue");
    // A 1e6:1 tensor: exact products in double keep the small eigenvalue (the naive form's
    // difference of two numbers near 1e6 in F32 would lose it entirely).
    {
        const double got = lk_min_eigen(1e6f, 0.0f, 1.0f);
        CHECK_MSG(std::fabs(got - 1.0) <= 1e-9, "diag(1e6, 1): %.12g", got);
        const float a = 1e6f, b = 999.0f, c = 2.0f; // det = 2e6 - 998001 = 1001999
        const double want = (static_cast<double>(a) + c) / 2.0 -
                            std::sqrt(((static_cast<double>(a) - c) / 2.0) * ((static_cast<double>(a) - c) / 2.0) +
                                      static_cast<double>(b) * b);
        const double got2 = lk_min_eigen(a, b, c);
        CHECK_MSG(std::fabs(got2 - want) <= 1e-9 * want + 1e-9, "[1e6 999; 999 2]: %.12g vs %.12g", got2, want);
    }
    // The confidence kernel: conf = lambda_min / area, state = conf >= min, the count of valid.
    const int w = 9, h = 5;
    Buf g0(w, h, 1), g1(w, h, 0), g2(w, h, 2);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            g0.at(x, y) = static_cast<float>(x + 1); // lambda_min = min(x + 1, y + 2)
            g1.at(x, y) = 0.0f;
            g2.at(x, y) = static_cast<float>(y + 2);
        }
    struct Outs {
        Buf conf, state;
        bool outputs_same(const Outs& o) const { return same(conf, o.conf) && same(state, o.state); }
        bool outputs_untouched_outside(int y0, int y1) const {
            return untouched_outside(conf, y0, y1) && untouched_outside(state, y0, y1);
        }
    };
    auto make = [&] { return Outs{Buf(w, h, 3), Buf(w, h, 1)}; };
    double count = 0.0;
    auto run = [&](Outs& o, int y0, int y1) {
        LkConfArgs a;
        a.j[kG11] = g0.p;
        a.j[kG12] = g1.p;
        a.j[kG22] = g2.p;
        a.conf = o.conf.p;
        a.state = o.state.p;
        a.inv_area = 0.25;
        a.min_eigen = 0.75f; // valid where min(x + 1, y + 2) >= 3
        count += lk_confidence_ref(a, y0, y1);
    };
    Outs o = make();
    run(o, 0, h);
    ok = true;
    long want_count = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const float lm = static_cast<float>(std::min(x + 1, y + 2));
            const bool v = lm * 0.25f >= 0.75f;
            want_count += v;
            ok = ok && o.conf.at(x, y) == lm * 0.25f && o.state.at(x, y) == (v ? 1.0f : 0.0f);
        }
    CHECK_MSG(ok && count == static_cast<double>(want_count), "confidence kernel: values, state, count %g vs %ld", count,
              want_count);
    CHECK_MSG(banded_equal(h, make, run), "confidence in bands");
    count = 0.0;
    Outs bands = make();
    run(bands, 0, 1);
    run(bands, 1, 3);
    run(bands, 3, h);
    CHECK_MSG(count == static_cast<double>(want_count), "confidence counts of bands sum to %g, want %ld", count, want_count);
}

// ---- residual ------------------------------------------------------------------------------------
struct ResidualBufs {
    Buf i0, i1, gx, gy, u1, u2;
    ResidualBufs(int w, int h) : i0(w, h, 1), i1(w, h, 2), gx(w, h, 0), gy(w, h, 3), u1(w, h, 1), u2(w, h, 2) {}
    LkResidualArgs args(Buf& bx, Buf& by) { return LkResidualArgs{i0.p, i1.p, gx.p, gy.p, u1.p, u2.p, bx.p, by.p}; }
};

void test_residual() {
    std::mt19937 rng(6);
    const int w = 17, h = 11;
    ResidualBufs r(w, h);
    r.i0.fill(rng, 0, 255);
    r.i1.fill(rng, 0, 255);
    r.gx.fill(rng, -20, 20);
    r.gy.fill(rng, -20, 20);
    // Integer shifts: it = I1(x + k, y + l) - I0 exactly where the position is inside.
    Buf bx(w, h, 1), by(w, h, 2);
    bool ok = true;
    for (int k : {-2, 0, 3})
        for (int l : {-1, 0, 2}) {
            r.u1.set(static_cast<float>(k));
            r.u2.set(static_cast<float>(l));
            lk_residual_ref(r.args(bx, by), 0, h);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const bool inside = x + k >= 0 && x + k <= w - 1 && y + l >= 0 && y + l <= h - 1;
                    const float it = inside ? r.i1.at(x + k, y + l) - r.i0.at(x, y) : 0.0f;
                    const float rc = it - (r.gx.at(x, y) * static_cast<float>(k) + r.gy.at(x, y) * static_cast<float>(l));
                    const float scale = 20.0f * (255.0f + 20.0f * 5.0f); // |g| (|it| + |g.u|)
                    ok = ok && near(bx.at(x, y), r.gx.at(x, y) * rc, scale) && near(by.at(x, y), r.gy.at(x, y) * rc, scale);
                }
        }
    CHECK_MSG(ok, "residual at integer shifts (and it = 0 outside the plane)");
    // A linear ramp is sampled exactly (up to F32 rounding) at fractional positions.
    ResidualBufs q(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            q.i1.at(x, y) = 2.0f * static_cast<float>(x) + 3.0f * static_cast<float>(y);
            q.i0.at(x, y) = 0.0f;
            q.gx.at(x, y) = 1.0f;
            q.gy.at(x, y) = 0.0f;
            q.u1.at(x, y) = 0.25f + 0.01f * static_cast<float>((x * 7 + y * 3) % 13) - (x > w / 2 ? 1.5f : 0.0f);
            q.u2.at(x, y) = 0.375f - (y > h / 2 ? 1.25f : 0.0f);
        }
    lk_residual_ref(q.args(bx, by), 0, h);
    ok = true;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double px = x + static_cast<double>(q.u1.at(x, y)), py = y + static_cast<double>(q.u2.at(x, y));
            const bool inside = px >= 0 && px <= w - 1 && py >= 0 && py <= h - 1;
            const double it = inside ? 2.0 * px + 3.0 * py : 0.0;
            const double want = it - q.u1.at(x, y); // gx = 1, gy = 0
            ok = ok && std::fabs(bx.at(x, y) - want) <= 2e-5 * (std::fabs(it) + 1.0) && by.at(x, y) == 0.0f;
        }
    CHECK_MSG(ok, "residual of a ramp at fractional positions");
    // Positions far outside (1e30 included): it = 0, finite, no undefined conversion.
    r.u1.set(1e30f);
    r.u2.set(-1e30f);
    lk_residual_ref(r.args(bx, by), 0, h);
    ok = true;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const float rc = -(r.gx.at(x, y) * 1e30f + r.gy.at(x, y) * -1e30f);
            const float scale = 20.0f * 40.0f * 1e30f;
            ok = ok && std::isfinite(bx.at(x, y)) && near(bx.at(x, y), r.gx.at(x, y) * rc, scale) &&
                 near(by.at(x, y), r.gy.at(x, y) * rc, scale);
        }
    CHECK_MSG(ok, "residual at 1e30 px: it = 0");
    // Bands.
    r.u1.fill(rng, -4, 4);
    r.u2.fill(rng, -4, 4);
    struct Outs {
        Buf a, b;
        bool outputs_same(const Outs& o) const { return same(a, o.a) && same(b, o.b); }
        bool outputs_untouched_outside(int y0, int y1) const { return untouched_outside(a, y0, y1) && untouched_outside(b, y0, y1); }
    };
    CHECK_MSG(banded_equal(h, [&] { return Outs{Buf(w, h, 1), Buf(w, h, 2)}; },
                           [&](Outs& o, int y0, int y1) { lk_residual_ref(r.args(o.a, o.b), y0, y1); }),
              "residual in bands");
}

// ---- update ----------------------------------------------------------------------------------
void test_update() {
    const int w = 6, h = 4;
    Buf g0(w, h, 1), g1(w, h, 0), g2(w, h, 2), ex(w, h, 1), ey(w, h, 0);
    // Column x: G = [[2, 1], [1, 3]] (det 5) except column 4 singular ([1, 2; 2, 4]) and column 5
    // nearly so with a huge step; row y: the window sums.
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const bool sing = x == 4, huge = x == 5;
            g0.at(x, y) = sing ? 1.0f : (huge ? 1.0f : 2.0f);
            g1.at(x, y) = sing ? 2.0f : (huge ? 0.0f : 1.0f);
            g2.at(x, y) = sing ? 4.0f : (huge ? 1e-20f : 3.0f);
            ex.at(x, y) = static_cast<float>(y) - 1.0f;
            ey.at(x, y) = huge ? 1.0f : 2.0f * static_cast<float>(x) - 3.0f;
        }
    struct Outs {
        Buf state, u1, u2;
        bool outputs_same(const Outs& o) const { return same(state, o.state) && same(u1, o.u1) && same(u2, o.u2); }
        bool outputs_untouched_outside(int, int) const { return true; } // in/out planes: checked below
    };
    auto make = [&] {
        Outs o{Buf(w, h, 1), Buf(w, h, 2), Buf(w, h, 0)};
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                o.state.at(x, y) = x == 3 ? 0.0f : 1.0f; // column 3: invalid (or stopped)
                o.u1.at(x, y) = 0.5f;
                o.u2.at(x, y) = -0.25f;
            }
        return o;
    };
    double active = 0.0;
    auto run = [&](Outs& o, int y0, int y1) {
        LkUpdateArgs a;
        a.j[kG11] = g0.p;
        a.j[kG12] = g1.p;
        a.j[kG22] = g2.p;
        a.ex = ex.p;
        a.ey = ey.p;
        a.state = o.state.p;
        a.u1 = o.u1.p;
        a.u2 = o.u2.p;
        a.epsilon = 0.6f;
        active += lk_update_ref(a, y0, y1);
    };
    Outs o = make();
    run(o, 0, h);
    bool ok = true;
    long want_active = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if (x == 3 || x == 4 || x == 5) { // untouched, or guarded: no step, stopped
                ok = ok && o.u1.at(x, y) == 0.5f && o.u2.at(x, y) == -0.25f && o.state.at(x, y) == 0.0f;
                continue;
            }
            const double X = ex.at(x, y), Y = ey.at(x, y);
            const double nu = -(3.0 * X - 1.0 * Y) / 5.0, nv = -(2.0 * Y - 1.0 * X) / 5.0;
            const double du = nu - 0.5, dv = nv + 0.25;
            const bool moving = du * du + dv * dv >= 0.36;
            want_active += moving;
            ok = ok && o.u1.at(x, y) == static_cast<float>(nu) && o.u2.at(x, y) == static_cast<float>(nv) &&
                 o.state.at(x, y) == (moving ? 1.0f : 0.0f);
        }
    CHECK_MSG(ok && active == static_cast<double>(want_active), "update: Cramer's rule, stop rule, guards (%g vs %ld active)",
              active, want_active);
    CHECK_MSG(banded_equal(h, make, run), "update in bands");
    // A pixel's update touches only its own row: rows outside a band keep their flow.
    Outs b = make();
    run(b, 1, 3);
    ok = true;
    for (int y : {0, 3})
        for (int x = 0; x < w; ++x) ok = ok && b.u1.at(x, y) == 0.5f && b.u2.at(x, y) == -0.25f && b.state.at(x, y) == (x == 3 ? 0.0f : 1.0f);
    CHECK_MSG(ok, "update of rows 1..2 touched another row");
}

} // namespace

int main() {
    test_gradients();
    test_tensor();
    test_box_sums();
    test_eigen();
    test_residual();
    test_update();
    return oftest::finish("lk_kernels_ref");
}
