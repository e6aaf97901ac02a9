// neon_kernels: every NEON kernel of the shared KernelTable against the reference kernel of the
// same stage (checkasm style), on random and adversarial inputs, widths 1..641 around the vector
// widths (4 and 8), odd pitches and row bands. The HS / CLG family: neon_hs_kernels.cpp.
//
// Every plane a NEON kernel sees lies between two inaccessible pages, flush against the
// trailing one (or, in a second run, the leading one), so any read before the first or past
// the last element of a plane faults: that is the "no over-read" contract of neon/*.cpp.
// Row padding holds a NaN pattern (a kernel that used it would produce NaN), and afterwards
// every byte outside the rows and columns a call may write is compared with its old value
// (the harness: guarded_plane.hpp).
//
// Tolerances (the per-stage error is |neon - ref| / max(|ref|, S), S the stage's scale):
//  - F32, every stage: 1e-5, with S = the magnitude of the stage's inputs (255 for images, the
//    gradient range for gradients, 1 for flow and duals, the terms of rho_c for rho_c): the
//    NEON kernels use fused multiply-adds and sum taps in another order, so results near
//    zero after cancellation are compared with the terms that cancelled.
//    calc_u also allows the threshold step's condition: its factor -rho / |grad I|^2 turns an
//    F32 rounding of rho (2^-22 of its terms) into up to min(2 lt, d rho / g2) |grad I| of TH.
//  - F16 (tvl1_f16_neon.cpp), for |grad I1w|^2 <= 65504 and |grad u| < 256:
//    u: |u16 - u| <= 2^-8 (lt |grad I| + theta sum |p terms|) + lt sqrt(1e-3) + the F32 bound;
//    p: |p16 - p| <= 3e-3.
//  - the row pipeline (tvl1_iter_rows): bitwise equal to calc_u then calc_p over all rows, in
//    any band split and band order (F32 and F16).
// The largest error per stage is printed (the numbers in the issue report come from here).
#include "tests/check.hpp"
#include "core/kernels.hpp"
#include "core/ref/kernels_ref.hpp"
#include "neon/kernels_neon.hpp"
#include "neon/neon_kernels.hpp"
#include "tests/neon/guarded_plane.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace oflow;
using namespace neontest;

namespace {

const int kWidths[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 641};

int height_for(int w, int i) {
    static const int kH[] = {1, 2, 3, 6};
    return w > 100 ? 3 : kH[i % 4];
}

// ---- image content ------------------------------------------------------------------------------
enum class Fill { Random, Flat, Checker, Saturated, Ramp };
const Fill kFills[] = {Fill::Random, Fill::Flat, Fill::Checker, Fill::Saturated, Fill::Ramp};

void fill_image(GPlane& g, Fill f, Rng& rng) {
    for (int y = 0; y < g.p.h; ++y)
        for (int x = 0; x < g.p.w; ++x) {
            float v = 0.0f;
            switch (f) {
            case Fill::Random: v = rng.uni(0.0f, 255.0f); break;
            case Fill::Flat: v = 117.0f; break;
            case Fill::Checker: v = ((x + y) & 1) ? 255.0f : 0.0f; break;
            case Fill::Saturated: v = rng.below(2) ? 255.0f : 0.0f; break;
            case Fill::Ramp: v = static_cast<float>(x * 3 + y * 7) * 0.37f; break;
            }
            g.at(x, y) = v;
        }
}

// ---- pyramid ------------------------------------------------------------------------------------
void check_blur(Rng& rng) {
    const float sigmas[] = {0.0f, 0.8f, 1.04f, 3.0f, 11.0f}; // radius 0, 3, 4, 9, 32 (capped)
    int case_no = 0;
    for (int w : kWidths)
        for (float sigma : sigmas)
            for (Fill fill : kFills)
                for (int flush = 0; flush < 2; ++flush) {
                    const int h = height_for(w, case_no++);
                    const std::ptrdiff_t pitch = pitch_for(w, case_no % 5 == 0);
                    const Gaussian1D g = make_gaussian(sigma);
                    GPlane src(w, h, pitch, flush != 0), ref(w, h, pitch, true), out(w, h, pitch, flush == 0);
                    if (!src.ok() || !ref.ok() || !out.ok()) {
                        CHECK(false);
                        return;
                    }
                    fill_image(src, fill, rng);
                    const double scale = max_abs(src.p);
                    Band bands[2];
                    const int nb = bands_for(h, bands);
                    for (int b = 0; b < nb; ++b) {
                        for (int pass = 0; pass < 2; ++pass) {
                            const auto snap_in = src.snapshot(), snap_out = out.snapshot();
                            auto kneon = pass == 0 ? blur_h_neon : blur_v_neon;
                            auto kref = pass == 0 ? blur_h_ref : blur_v_ref;
                            kref(src.p, ref.p, g, bands[b].y0, bands[b].y1);
                            kneon(src.p, out.p, g, bands[b].y0, bands[b].y1);
                            const double e = plane_err(out.p, ref.p, bands[b].y0, bands[b].y1,
                                                       [&](int, int) { return scale; });
                            const char* name = pass == 0 ? "blur_h" : "blur_v";
                            record(name, e, kTolF32, static_cast<long>(w) * (bands[b].y1 - bands[b].y0));
                            CHECK_MSG(e <= kTolF32, "%s w %d h %d r %d fill %d: error %.3g", name, w, h,
                                      g.radius, static_cast<int>(fill), e);
                            CHECK_MSG(src.unchanged(snap_in), "%s w %d: input written", name, w);
                            CHECK_MSG(out.untouched_outside(snap_out, bands[b].y0, bands[b].y1,
                                                            static_cast<std::size_t>(w) * 4u),
                                      "%s w %d h %d: wrote outside its rows", name, w, h);
                        }
                    }
                }
}

void check_resize(Rng& rng) {
    struct Size {
        int sw, sh, dw, dh;
    };
    const Size sizes[] = {{2, 2, 1, 1},   {1, 1, 1, 1},   {3, 3, 2, 2},   {5, 4, 3, 2},   {8, 6, 4, 3},
                          {16, 5, 8, 3},  {33, 7, 17, 4}, {62, 5, 31, 3}, {66, 4, 33, 2}, {641, 3, 321, 2},
                          {1282, 2, 641, 1}, {1, 1, 2, 2}, {3, 2, 5, 3},  {17, 4, 33, 7}, {16, 3, 31, 5},
                          {321, 2, 641, 3}, {40, 4, 31, 3}, {5, 5, 7, 9}};
    const float mults[] = {1.0f, 2.0f, 1.25f};
    int case_no = 0;
    for (const Size& s : sizes)
        for (Fill fill : kFills)
            for (int flush = 0; flush < 2; ++flush) {
                ++case_no;
                GPlane src(s.sw, s.sh, pitch_for(s.sw, case_no % 3 == 0), flush != 0);
                GPlane ref(s.dw, s.dh, pitch_for(s.dw, false), true);
                GPlane out(s.dw, s.dh, pitch_for(s.dw, case_no % 4 == 0), flush == 0);
                fill_image(src, fill, rng);
                const double scale = max_abs(src.p);
                Band bands[2];
                const int nb = bands_for(s.dh, bands);
                for (int b = 0; b < nb; ++b)
                    for (float mult : mults) {
                        const bool resample = mult == 1.0f;
                        const auto snap_in = src.snapshot(), snap_out = out.snapshot();
                        if (resample) {
                            resample_ref(src.p, ref.p, bands[b].y0, bands[b].y1);
                            resample_neon(src.p, out.p, bands[b].y0, bands[b].y1);
                        } else {
                            upsample_flow_ref(src.p, ref.p, mult, bands[b].y0, bands[b].y1);
                            upsample_flow_neon(src.p, out.p, mult, bands[b].y0, bands[b].y1);
                        }
                        const char* name = resample ? "resample" : "upsample_flow";
                        const double e = plane_err(out.p, ref.p, bands[b].y0, bands[b].y1,
                                                   [&](int, int) { return scale * mult; });
                        record(name, e, kTolF32, static_cast<long>(s.dw) * (bands[b].y1 - bands[b].y0));
                        CHECK_MSG(e <= kTolF32, "%s %dx%d -> %dx%d: error %.3g", name, s.sw, s.sh, s.dw,
                                  s.dh, e);
                        CHECK(src.unchanged(snap_in));
                        CHECK_MSG(out.untouched_outside(snap_out, bands[b].y0, bands[b].y1,
                                                        static_cast<std::size_t>(s.dw) * 4u),
                                  "%s %dx%d: wrote outside its rows", name, s.dw, s.dh);
                    }
            }
}

// ---- the flow's median ----------------------------------------------------------------------------
// median_flow selects one of the window's values: NEON's must equal the reference's exactly
// (== : -0 and +0 are one value), ties (flat, checker, saturated, a few levels) included.
void check_median(Rng& rng) {
    int case_no = 0;
    long values = 0, differ = 0;
    for (int size : {3, 5})
        for (int w : kWidths)
            for (int fill = 0; fill < 6; ++fill) {
                const int h = w > 100 ? 7 : height_for(w, case_no) + (case_no % 3);
                ++case_no;
                const std::ptrdiff_t pitch = pitch_for(w, case_no % 5 == 0);
                GPlane src(w, h, pitch, case_no % 2 == 0), ref(w, h, pitch, true), out(w, h, pitch, case_no % 2 != 0);
                if (!src.ok() || !ref.ok() || !out.ok()) {
                    CHECK(false);
                    return;
                }
                if (fill < 5)
                    fill_image(src, kFills[fill], rng);
                else // a few flow levels: many ties in every window
                    for (int y = 0; y < h; ++y)
                        for (int x = 0; x < w; ++x) src.at(x, y) = static_cast<float>(rng.below(4)) * 0.5f - 0.5f;
                Band bands[2];
                const int nb = bands_for(h, bands);
                for (int b = 0; b < nb; ++b) {
                    const auto snap_in = src.snapshot(), snap_out = out.snapshot();
                    median_flow_ref(src.p, ref.p, size, bands[b].y0, bands[b].y1);
                    median_flow_neon(src.p, out.p, size, bands[b].y0, bands[b].y1);
                    for (int y = bands[b].y0; y < bands[b].y1; ++y)
                        for (int x = 0; x < w; ++x) {
                            ++values;
                            if (!(out.at(x, y) == ref.at(x, y))) ++differ;
                        }
                    CHECK(src.unchanged(snap_in));
                    CHECK_MSG(out.untouched_outside(snap_out, bands[b].y0, bands[b].y1, static_cast<std::size_t>(w) * 4u),
                              "median %d w %d h %d: wrote outside its rows", size, w, h);
                }
                CHECK_MSG(differ == 0, "median %d w %d h %d fill %d: %ld values differ from the reference", size, w, h,
                          fill, differ);
                differ = 0;
            }
    record("median_flow (3, 5)", 0.0, 0.0, values);
}

// ---- gradient and warp -------------------------------------------------------------------------
void check_gradient(Rng& rng) {
    int case_no = 0;
    for (int w : kWidths)
        for (Fill fill : kFills)
            for (int flush = 0; flush < 2; ++flush) {
                const int h = height_for(w, case_no++);
                const std::ptrdiff_t pitch = pitch_for(w, case_no % 4 == 0);
                GPlane src(w, h, pitch, flush != 0);
                GPlane rx(w, h, pitch, true), ry(w, h, pitch, true);
                GPlane ox(w, h, pitch, flush == 0), oy(w, h, pitch, flush != 0);
                fill_image(src, fill, rng);
                const double scale = max_abs(src.p);
                Band bands[2];
                const int nb = bands_for(h, bands);
                for (int b = 0; b < nb; ++b) {
                    const auto si = src.snapshot(), sx = ox.snapshot(), sy = oy.snapshot();
                    gradient_ref(src.p, rx.p, ry.p, bands[b].y0, bands[b].y1);
                    gradient_neon(src.p, ox.p, oy.p, bands[b].y0, bands[b].y1);
                    auto sc = [&](int, int) { return scale; };
                    const double e = std::fmax(plane_err(ox.p, rx.p, bands[b].y0, bands[b].y1, sc),
                                               plane_err(oy.p, ry.p, bands[b].y0, bands[b].y1, sc));
                    record("gradient", e, kTolF32, 2L * w * (bands[b].y1 - bands[b].y0));
                    CHECK_MSG(e <= kTolF32, "gradient w %d h %d: error %.3g", w, h, e);
                    CHECK(src.unchanged(si));
                    const std::size_t rb = static_cast<std::size_t>(w) * 4u;
                    CHECK(ox.untouched_outside(sx, bands[b].y0, bands[b].y1, rb));
                    CHECK(oy.untouched_outside(sy, bands[b].y0, bands[b].y1, rb));
                }
            }
}

enum class Flow { Small, Large, Huge, Integer, Outside };
const Flow kFlows[] = {Flow::Small, Flow::Large, Flow::Huge, Flow::Integer, Flow::Outside};

float flow_value(Flow f, int x, int y, int w, int h, bool horizontal, Rng& rng) {
    switch (f) {
    case Flow::Small: return rng.uni(-3.0f, 3.0f);
    case Flow::Large: return rng.uni(-60.0f, 60.0f);
    case Flow::Huge: return rng.below(2) ? 3e7f : -3e7f;
    case Flow::Integer: return static_cast<float>(rng.below(5) - 2);
    case Flow::Outside:
        return horizontal ? static_cast<float>(-x) - rng.uni(0.0f, 3.0f) : static_cast<float>(h - y) + 0.5f;
    }
    (void)w;
    return 0.0f;
}

void check_warp(Rng& rng) {
    int case_no = 0;
    for (int w : kWidths)
        for (Flow flow : kFlows)
            for (int flush = 0; flush < 2; ++flush) {
                const Fill fill = kFills[case_no % 5];
                const int h = w > 100 ? 3 : (case_no % 3 == 0 ? 1 : 5 + case_no % 4);
                ++case_no;
                const std::ptrdiff_t pitch = pitch_for(w, case_no % 4 == 0);
                const bool fe = flush != 0;
                GPlane i0(w, h, pitch, fe), i1(w, h, pitch, !fe), i1x(w, h, pitch, fe), i1y(w, h, pitch, !fe);
                GPlane u1(w, h, pitch, fe), u2(w, h, pitch, !fe);
                GPlane r[5] = {{w, h, pitch, true}, {w, h, pitch, true}, {w, h, pitch, true},
                               {w, h, pitch, true}, {w, h, pitch, true}};
                GPlane o[5] = {{w, h, pitch, fe}, {w, h, pitch, !fe}, {w, h, pitch, fe},
                               {w, h, pitch, !fe}, {w, h, pitch, fe}};
                fill_image(i0, Fill::Random, rng);
                fill_image(i1, fill, rng);
                gradient_ref(i1.p, i1x.p, i1y.p, 0, h);
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x) {
                        u1.at(x, y) = flow_value(flow, x, y, w, h, true, rng);
                        u2.at(x, y) = flow_value(flow, x, y, w, h, false, rng);
                    }
                Tvl1WarpArgs ar{i0.p, i1.p, i1x.p, i1y.p, u1.p, u2.p, r[0].p, r[1].p, r[2].p, r[3].p, r[4].p};
                Tvl1WarpArgs an{i0.p, i1.p, i1x.p, i1y.p, u1.p, u2.p, o[0].p, o[1].p, o[2].p, o[3].p, o[4].p};
                const double si = max_abs(i1.p), sg = std::fmax(max_abs(i1x.p), max_abs(i1y.p)), s0 = max_abs(i0.p);
                Band bands[2];
                const int nb = bands_for(h, bands);
                for (int b = 0; b < nb; ++b) {
                    const int y0 = bands[b].y0, y1 = bands[b].y1;
                    std::vector<unsigned char> snaps[5], in_snaps[6];
                    for (int k = 0; k < 5; ++k) snaps[k] = o[k].snapshot();
                    GPlane* ins[6] = {&i0, &i1, &i1x, &i1y, &u1, &u2};
                    for (int k = 0; k < 6; ++k) in_snaps[k] = ins[k]->snapshot();
                    tvl1_warp_ref(ar, y0, y1);
                    tvl1_warp_neon(an, y0, y1);
                    const char* names[5] = {"warp i1w", "warp i1wx/i1wy", "warp i1wx/i1wy", "warp |grad|^2",
                                            "warp rho_c"};
                    for (int k = 0; k < 5; ++k) {
                        double e;
                        if (k == 0) {
                            e = plane_err(o[k].p, r[k].p, y0, y1, [&](int, int) { return si; });
                        } else if (k < 3) {
                            e = plane_err(o[k].p, r[k].p, y0, y1, [&](int, int) { return sg; });
                        } else if (k == 3) {
                            e = plane_err(o[k].p, r[k].p, y0, y1, [&](int, int) { return 2.0 * sg * sg; });
                        } else {
                            e = plane_err(o[k].p, r[k].p, y0, y1, [&](int x, int y) {
                                return si + s0 + sg * (std::fabs(u1.at(x, y)) + std::fabs(u2.at(x, y)));
                            });
                        }
                        record(names[k], e, kTolF32, static_cast<long>(w) * (y1 - y0));
                        CHECK_MSG(e <= kTolF32, "%s w %d h %d flow %d fill %d: error %.3g", names[k], w, h,
                                  static_cast<int>(flow), static_cast<int>(fill), e);
                        CHECK_MSG(o[k].untouched_outside(snaps[k], y0, y1, static_cast<std::size_t>(w) * 4u),
                                  "%s w %d: wrote outside its rows", names[k], w);
                    }
                    for (int k = 0; k < 6; ++k) CHECK_MSG(ins[k]->unchanged(in_snaps[k]), "warp: input %d written", k);
                }
            }
}

// ---- inner iterations ---------------------------------------------------------------------------
const float kLambda = 0.15f, kTheta = 0.3f, kTau = 0.25f;

enum class State { Random, LargeFlow, FlatPatches, Boundary, SteepFlow };
const State kStates[] = {State::Random, State::LargeFlow, State::FlatPatches, State::Boundary, State::SteepFlow};

/// The ten iteration planes of one path. half_p: the duals are F16 (tvl1_f16_neon.cpp).
struct IterPlanes {
    GPlane u1, u2, p11, p12, p21, p22, ix, iy, g2, rc;
    bool half_p;
    IterPlanes(int w, int h, std::ptrdiff_t pitch, bool fe, bool half)
        : u1(w, h, pitch, fe), u2(w, h, pitch, !fe), p11(w, h, pitch, fe, half ? 2 : 4),
          p12(w, h, pitch, !fe, half ? 2 : 4), p21(w, h, pitch, fe, half ? 2 : 4),
          p22(w, h, pitch, !fe, half ? 2 : 4), ix(w, h, pitch, fe), iy(w, h, pitch, !fe),
          g2(w, h, pitch, fe), rc(w, h, pitch, !fe), half_p(half) {}
    GPlane* plane(int i) {
        GPlane* p[10] = {&u1, &u2, &p11, &p12, &p21, &p22, &ix, &iy, &g2, &rc};
        return p[i];
    }
    Tvl1IterArgs args() {
        Tvl1IterArgs a;
        a.u1 = u1.p;
        a.u2 = u2.p;
        a.p11 = p11.p;
        a.p12 = p12.p;
        a.p21 = p21.p;
        a.p22 = p22.p;
        a.i1wx = ix.p;
        a.i1wy = iy.p;
        a.grad = g2.p;
        a.rho_c = rc.p;
        a.lt = kLambda * kTheta;
        a.theta = kTheta;
        a.tau_over_theta = kTau / kTheta;
        return a;
    }
    float get_p(int i, int x, int y) {
        GPlane* g = plane(2 + i);
        return half_p ? static_cast<float>(g->half_row(y)[x]) : g->at(x, y);
    }
    void set_p(int i, int x, int y, float v) {
        GPlane* g = plane(2 + i);
        if (half_p)
            g->half_row(y)[x] = static_cast<float16_t>(v);
        else
            g->at(x, y) = v;
    }
    std::size_t row_bytes(int i) const { return static_cast<std::size_t>(u1.p.w) * (half_p && i >= 2 && i < 6 ? 2u : 4u); }
};

/// Fills a state; `f16_domain` keeps |grad u| < 256 (the F16 path's domain) and duals that are
/// halves, so the F32 reference starts from exactly the F16 path's values.
void fill_state(IterPlanes& s, State kind, Rng& rng, bool f16_domain) {
    const int w = s.u1.p.w, h = s.u1.p.h;
    const float lt = kLambda * kTheta;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float u1 = rng.uni(-4.0f, 4.0f), u2 = rng.uni(-4.0f, 4.0f);
            if (kind == State::LargeFlow) { // F16: large flow, |grad u| < 256 all the same
                u1 = f16_domain ? 90.0f + rng.uni(-60.0f, 60.0f) : rng.uni(-120.0f, 120.0f);
                u2 = f16_domain ? -70.0f + rng.uni(-60.0f, 60.0f) : rng.uni(-60.0f, 60.0f);
            } else if (kind == State::SteepFlow) { // checkerboard flow: |grad u| up to 170 (F16) / 400
                const float a = f16_domain ? 60.0f : 200.0f;
                u1 = ((x + y) & 1) ? a : -a;
                u2 = (x & 1) ? -a : a;
            }
            s.u1.at(x, y) = u1;
            s.u2.at(x, y) = u2;
            float ix = rng.uni(-100.0f, 100.0f), iy = rng.uni(-100.0f, 100.0f);
            if (kind == State::FlatPatches && ((x / 3 + y) % 3) != 0) {
                const float tiny[] = {0.0f, 1e-6f, 3e-6f, 1e-3f, 0.03f};
                const float t = tiny[rng.below(5)];
                ix = t * rng.uni(-1.0f, 1.0f);
                iy = t * rng.uni(-1.0f, 1.0f);
            }
            s.ix.at(x, y) = ix;
            s.iy.at(x, y) = iy;
            const float g = ix * ix + iy * iy;
            s.g2.at(x, y) = g;
            // rho_c as the warp makes it: I1w - I0 - grad . u0 with u0 near u (cancellation).
            float r0 = rng.uni(-30.0f, 30.0f);
            if (kind == State::Boundary) { // rho at the threshold's branch points, +-lt g2, or 0
                const float pick[] = {lt * g, -lt * g, 0.0f, lt * g * 1.000001f};
                r0 = pick[rng.below(4)];
            }
            s.rc.at(x, y) = r0 - ix * u1 - iy * u2;
            for (int i = 0; i < 4; i += 2) {
                float a = rng.uni(-1.0f, 1.0f), b = rng.uni(-1.0f, 1.0f);
                const float n = std::sqrt(a * a + b * b);
                if (n > 1.0f) {
                    a /= n;
                    b /= n;
                }
                if (kind == State::Boundary && rng.below(3) == 0) { // |p| = 1
                    a = (x & 1) ? 1.0f : -1.0f;
                    b = 0.0f;
                }
                if (f16_domain) {
                    a = static_cast<float>(static_cast<float16_t>(a));
                    b = static_cast<float>(static_cast<float16_t>(b));
                }
                s.set_p(i, x, y, a);
                s.set_p(i + 1, x, y, b);
            }
        }
}

/// b := a's values; duals converted between F16 and F32 storage as needed.
void copy_state(IterPlanes& dst, IterPlanes& src) {
    const int w = src.u1.p.w, h = src.u1.p.h;
    for (int i = 0; i < 10; ++i) {
        if (i >= 2 && i < 6) {
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) dst.set_p(i - 2, x, y, src.get_p(i - 2, x, y));
        } else {
            dst.plane(i)->copy_from(*src.plane(i));
        }
    }
}

/// Bitwise equality of the u and p values of two states of the same storage.
bool same_state(IterPlanes& a, IterPlanes& b) {
    const int w = a.u1.p.w, h = a.u1.p.h;
    for (int i = 0; i < 6; ++i)
        for (int y = 0; y < h; ++y)
            if (std::memcmp(a.plane(i)->p.row(y), b.plane(i)->p.row(y), a.row_bytes(i)) != 0) return false;
    (void)w;
    return true;
}

/// Largest size of the pixel's TH + theta div p (component c), from the state before the update.
double div_terms(IterPlanes& s, int c, int x, int y);
double update_scale(IterPlanes& s, int c, int x, int y) {
    const double ix = s.ix.at(x, y), iy = s.iy.at(x, y);
    return kLambda * kTheta * std::sqrt(ix * ix + iy * iy) + kTheta * div_terms(s, c, x, y);
}

/// The F32 error scale of u: max(1, |u|, |u_old| + |update|).
double calc_u_scale(IterPlanes& s, int c, int x, int y, float u_new) {
    const double u0 = std::fabs(s.plane(c)->at(x, y)) + update_scale(s, c, x, y);
    const double m = std::fabs(u_new) > 1.0 ? std::fabs(u_new) : 1.0;
    return u0 > m ? u0 : m;
}

/// Values where the threshold step's condition (not the 1e-5) covered an F32 difference.
long& conditioned_values() {
    static long n = 0;
    return n;
}

/// F32 bound of calc_u at (x, y): 1e-5 of the scale plus the threshold step's condition
/// times the F32 rounding of rho (see the top comment).
double calc_u_bound_f32(IterPlanes& s, int c, int x, int y, float u_new) {
    const double lt = kLambda * kTheta;
    const double ix = s.ix.at(x, y), iy = s.iy.at(x, y), g = s.g2.at(x, y);
    const double terms = std::fabs(s.rc.at(x, y)) + std::fabs(ix * s.u1.at(x, y)) + std::fabs(iy * s.u2.at(x, y));
    const double drho = terms * std::ldexp(1.0, -22);
    const double grad = std::sqrt(ix * ix + iy * iy);
    const double cond = g > 0.0 ? std::fmin(2.0 * lt, drho / g) * grad : 0.0;
    return kTolF32 * calc_u_scale(s, c, x, y, u_new) + cond;
}

/// Sum over the divergence terms of |p| at (x, y) for component c (0: p11/p12, 1: p21/p22).
double div_terms(IterPlanes& s, int c, int x, int y) {
    const int a = 2 * c, b = 2 * c + 1;
    double t = std::fabs(s.get_p(a, x, y)) + std::fabs(s.get_p(b, x, y));
    if (x > 0) t += std::fabs(s.get_p(a, x - 1, y));
    if (y > 0) t += std::fabs(s.get_p(b, x, y - 1));
    return t;
}

const double kF16P = 3e-3;

// calc_u and calc_p of one path (F32: half = false) against the reference, from equal states.
void check_iteration_stage(Rng& rng, bool half) {
    const double lt = kLambda * kTheta;
    auto calc_u = half ?
#if defined(OF_NEON_F16)
                       tvl1_calc_u_f16_neon
#else
                       tvl1_calc_u_neon
#endif
                       : tvl1_calc_u_neon;
    auto calc_p = half ?
#if defined(OF_NEON_F16)
                       tvl1_calc_p_f16_neon
#else
                       tvl1_calc_p_neon
#endif
                       : tvl1_calc_p_neon;
    const char* su = half ? "F16 calc_u (u, px; bound per value)" : "calc_u";
    const char* sp = half ? "F16 calc_p (p, abs)" : "calc_p";
    int case_no = 0;
    for (int w : kWidths)
        for (State kind : kStates)
            for (int flush = 0; flush < 2; ++flush) {
                const int h = height_for(w, case_no++);
                const std::ptrdiff_t pitch = pitch_for(w, case_no % 4 == 0);
                Band bands[2];
                const int nb = bands_for(h, bands);
                for (int b = 0; b < nb; ++b) {
                    const int y0 = bands[b].y0, y1 = bands[b].y1;
                    IterPlanes init(w, h, pitch, true, false), ref(w, h, pitch, true, false);
                    IterPlanes neon(w, h, pitch, flush != 0, half);
                    fill_state(init, kind, rng, half);
                    // calc_u
                    copy_state(ref, init);
                    copy_state(neon, init);
                    std::vector<unsigned char> snaps[10];
                    for (int i = 0; i < 10; ++i) snaps[i] = neon.plane(i)->snapshot();
                    Tvl1IterArgs ar = ref.args(), an = neon.args();
                    const double er = tvl1_calc_u_ref(ar, y0, y1);
                    const double en = calc_u(an, y0, y1);
                    double plain = 0.0, of_bound = 0.0;
                    for (int c = 0; c < 2; ++c)
                        for (int y = y0; y < y1; ++y)
                            for (int x = 0; x < w; ++x) {
                                const float un = neon.plane(c)->at(x, y), ur = ref.plane(c)->at(x, y);
                                const double step = update_scale(init, c, x, y);
                                double bound = calc_u_bound_f32(init, c, x, y, ur);
                                if (half) bound += std::ldexp(step, -8) + lt * std::sqrt(1e-3);
                                const double d = std::isfinite(un) ? std::fabs(static_cast<double>(un) - ur) : HUGE_VAL;
                                // F32: relative to the size of u and of its update; F16: in px.
                                plain = std::fmax(plain, half ? d : d / calc_u_scale(init, c, x, y, ur));
                                of_bound = std::fmax(of_bound, d / bound);
                                if (!half && d > kTolF32 * calc_u_scale(init, c, x, y, ur)) ++conditioned_values();
                                CHECK_MSG(d <= bound, "%s w %d h %d state %d (%d,%d) u%d: %.9g vs %.9g (bound %.3g)",
                                          su, w, h, static_cast<int>(kind), x, y, c + 1, static_cast<double>(un),
                                          static_cast<double>(ur), bound);
                            }
                    record(su, plain, half ? 0.0 : kTolF32, 2L * w * (y1 - y0));
                    record(half ? "F16 calc_u, error / bound" : "calc_u, error / bound", of_bound, 1.0,
                           2L * w * (y1 - y0));
                    const double tol_sum = half ? 2e-2 : 1e-4;
                    CHECK_MSG(std::fabs(en - er) <= tol_sum * std::fabs(er) + 1e-6,
                              "%s w %d: error sum %.9g vs %.9g", su, w, en, er);
                    for (int i = 0; i < 10; ++i)
                        CHECK_MSG(neon.plane(i)->untouched_outside(snaps[i], y0, y1, i < 2 ? neon.row_bytes(i) : 0),
                                  "%s w %d h %d: plane %d written outside rows [%d, %d)", su, w, h, i, y0, y1);
                    // calc_p, from the initial state again
                    copy_state(ref, init);
                    copy_state(neon, init);
                    for (int i = 0; i < 10; ++i) snaps[i] = neon.plane(i)->snapshot();
                    tvl1_calc_p_ref(ar, y0, y1);
                    calc_p(an, y0, y1);
                    double ep = 0.0;
                    for (int i = 0; i < 4; ++i)
                        for (int y = y0; y < y1; ++y)
                            for (int x = 0; x < w; ++x) {
                                const float pn = neon.get_p(i, x, y), pr = ref.get_p(i, x, y);
                                ep = std::fmax(ep, half ? (std::isfinite(pn) ? std::fabs(pn - pr) : HUGE_VAL)
                                                        : rel(pn, pr, 1.0));
                            }
                    const double bp = half ? kF16P : kTolF32;
                    record(sp, ep, bp, 4L * w * (y1 - y0));
                    CHECK_MSG(ep <= bp, "%s w %d h %d state %d: error %.3g", sp, w, h, static_cast<int>(kind), ep);
                    for (int i = 0; i < 10; ++i)
                        CHECK_MSG(neon.plane(i)->untouched_outside(snaps[i], y0, y1,
                                                                    i >= 2 && i < 6 ? neon.row_bytes(i) : 0),
                                  "%s w %d h %d: plane %d written outside rows [%d, %d)", sp, w, h, i, y0, y1);
                }
            }
}

// F16 outside its domain (|grad u| >= 256): duals stay finite and within the unit ball.
void check_f16_steep(Rng& rng) {
#if defined(OF_NEON_F16)
    const int w = 37, h = 5;
    IterPlanes s(w, h, pitch_for(w, false), true, true);
    fill_state(s, State::SteepFlow, rng, true);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) s.u1.at(x, y) = ((x + y) & 1) ? 400.0f : -400.0f;
    Tvl1IterArgs a = s.args();
    tvl1_calc_p_f16_neon(a, 0, h);
    bool ok = true;
    for (int i = 0; i < 4; ++i)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) ok = ok && std::isfinite(s.get_p(i, x, y)) && std::fabs(s.get_p(i, x, y)) <= 1.001f;
    CHECK_MSG(ok, "F16 calc_p with |grad u| = 800: a dual is not finite or beyond 1");
#else
    (void)rng;
#endif
}

// The row pipeline: iter_rows over any band split, bands run in either order, then the seam
// rows with calc_p, equals calc_u then calc_p over all rows, bitwise.
void check_pipeline(Rng& rng, bool half) {
    auto calc_u = tvl1_calc_u_neon;
    auto calc_p = tvl1_calc_p_neon;
    auto iter = tvl1_iter_rows_neon;
#if defined(OF_NEON_F16)
    if (half) {
        calc_u = tvl1_calc_u_f16_neon;
        calc_p = tvl1_calc_p_f16_neon;
        iter = tvl1_iter_rows_f16_neon;
    }
#endif
    const char* name = half ? "F16 iter_rows" : "iter_rows";
    const int widths[] = {1, 3, 8, 9, 33, 641};
    const int heights[] = {1, 2, 5, 8};
    for (int w : widths)
        for (int h : heights)
            for (State kind : kStates) {
                if (w > 100 && h > 5) continue;
                const std::ptrdiff_t pitch = pitch_for(w, false);
                IterPlanes init(w, h, pitch, true, half), two(w, h, pitch, true, half);
                fill_state(init, kind, rng, half);
                copy_state(two, init);
                Tvl1IterArgs a2 = two.args();
                const double e2 = calc_u(a2, 0, h);
                calc_p(a2, 0, h);
                const int splits[] = {1, 2, 3, h};
                for (int nbands : splits)
                    for (int order = 0; order < 2; ++order) {
                        if (nbands > h) continue;
                        IterPlanes pipe(w, h, pitch, order == 0, half);
                        copy_state(pipe, init);
                        Tvl1IterArgs ap = pipe.args();
                        double e = 0.0;
                        int ends[16];
                        for (int i = 0; i < nbands; ++i) {
                            const int b = order == 0 ? i : nbands - 1 - i; // both orders: no band waits on another
                            const int y0 = h * b / nbands, y1 = h * (b + 1) / nbands;
                            e += iter(ap, y0, y1);
                            ends[b] = y1;
                        }
                        for (int b = 0; b + 1 < nbands; ++b) calc_p(ap, ends[b] - 1, ends[b]);
                        CHECK_MSG(same_state(pipe, two), "%s w %d h %d state %d, %d bands, order %d: differs from "
                                  "calc_u + calc_p", name, w, h, static_cast<int>(kind), nbands, order);
                        CHECK_MSG(std::fabs(e - e2) <= 1e-9 * std::fabs(e2) + 1e-12, "%s: sum %.12g vs %.12g", name, e, e2);
                    }
                record(name, 0.0, 0.0, 2L * w * h);
            }
}

void check_table(bool f16) {
    KernelTable t;
    kernel_table_init_ref(&t);
    CHECK(t.tvl1_iter_rows == nullptr && t.dual_bytes == 4);
    kernel_table_init_neon(&t, f16);
    CHECK(t.convert == convert_ref);
    CHECK(t.blur_h == blur_h_neon && t.blur_v == blur_v_neon && t.resample == resample_neon);
    CHECK(t.gradient == gradient_neon && t.tvl1_warp == tvl1_warp_neon && t.upsample_flow == upsample_flow_neon);
    CHECK(t.median_flow == median_flow_neon);
    CHECK(t.tvl1_calc_u2 == tvl1_calc_u2_neon);
    CHECK(t.tvl1_iter_rows != nullptr);
    const bool want16 = f16 && neon_has_f16_arith();
    CHECK(t.dual_bytes == (want16 ? 2u : 4u));
#if defined(OF_NEON_F16)
    CHECK(want16 == (t.tvl1_calc_u == tvl1_calc_u_f16_neon));
    CHECK(want16 == (t.tvl1_calc_p == tvl1_calc_p_f16_neon));
    CHECK(want16 == (t.tvl1_iter_rows == tvl1_iter_rows_f16_neon));
#else
    CHECK(!want16 && t.tvl1_calc_u == tvl1_calc_u_neon && t.tvl1_iter_rows == tvl1_iter_rows_neon);
#endif
}

// tvl1_calc_u2_neon (OF_ROBUST_CENSUS's two-channel threshold, F32) against the reference, from
// equal random states, rows split in two bands: every u within 1e-5 of its scale (|u|, the
// threshold steps' reach lt (|a1| + |a2|), theta times the divergence's terms), the error sums
// within 1e-4; pixels with no minor channel (q = 0) and no data (a1 = 0) included.
void check_calc_u2(Rng& rng) {
    const int widths[] = {1, 3, 4, 5, 7, 8, 13, 17, 64};
    const float lt = kLambda * kTheta;
    double worst = 0.0;
    long values = 0;
    for (int w : widths) {
        const int h = 6;
        const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
        std::vector<float> st[12];
        for (auto& v : st) v.assign(n, 0.0f);
        // 0 u1, 1 u2, 2..5 p11 p12 p21 p22, 6 ix, 7 iy, 8 grad, 9 rho_c, 10 q, 11 minor rho_c
        for (std::size_t i = 0; i < n; ++i) {
            st[0][i] = rng.uni(-3.0f, 3.0f);
            st[1][i] = rng.uni(-3.0f, 3.0f);
            for (int k = 2; k < 6; ++k) st[k][i] = rng.uni(-1.0f, 1.0f);
            const bool flat = rng.below(9) == 0;
            st[6][i] = flat ? 0.0f : rng.uni(-30.0f, 30.0f);
            st[7][i] = flat ? 0.0f : rng.uni(-30.0f, 30.0f);
            st[8][i] = st[6][i] * st[6][i] + st[7][i] * st[7][i];
            st[9][i] = rng.uni(-40.0f, 40.0f);
            st[10][i] = rng.below(5) == 0 ? 0.0f : rng.uni(0.0f, 1.0f);
            st[11][i] = rng.uni(-40.0f, 40.0f);
        }
        std::vector<float> ru1 = st[0], ru2 = st[1], nu1 = st[0], nu2 = st[1];
        auto plane = [w, h](std::vector<float>& v) {
            Plane p;
            p.data = v.data();
            p.w = w;
            p.h = h;
            p.pitch = w;
            return p;
        };
        Tvl1IterArgs a;
        a.p11 = plane(st[2]);
        a.p12 = plane(st[3]);
        a.p21 = plane(st[4]);
        a.p22 = plane(st[5]);
        a.i1wx = plane(st[6]);
        a.i1wy = plane(st[7]);
        a.grad = plane(st[8]);
        a.rho_c = plane(st[9]);
        a.lt = lt;
        a.theta = kTheta;
        a.tau_over_theta = 0.25f / kTheta;
        Tvl1Minor m;
        m.q = plane(st[10]);
        m.rho_c = plane(st[11]);
        double er = 0.0, en = 0.0;
        for (int band = 0; band < 2; ++band) {
            const int y0 = band == 0 ? 0 : h / 2, y1 = band == 0 ? h / 2 : h;
            Tvl1IterArgs ar = a, an = a;
            ar.u1 = plane(ru1);
            ar.u2 = plane(ru2);
            an.u1 = plane(nu1);
            an.u2 = plane(nu2);
            er += tvl1_calc_u2_ref(ar, m, y0, y1);
            en += tvl1_calc_u2_neon(an, m, y0, y1);
        }
        for (std::size_t i = 0; i < n; ++i) {
            const double a1 = std::hypot(st[6][i], st[7][i]), a2 = st[10][i] * a1;
            const double scale = std::fabs(st[0][i]) + std::fabs(st[1][i]) + lt * (a1 + a2) + kTheta * 4.0 + 1e-6;
            // The threshold's condition (top comment), per channel: an F32 rounding of rho, 2^-22
            // of its terms, moves the step by up to min(2 lt |a|, d rho / |a|).
            const double u1 = std::fabs(st[0][i]), u2 = std::fabs(st[1][i]), qa = st[10][i];
            const double t1 = std::fabs(st[9][i]) + std::fabs(st[6][i]) * u1 + std::fabs(st[7][i]) * u2;
            const double t2 = std::fabs(st[11][i]) + qa * (std::fabs(st[7][i]) * u1 + std::fabs(st[6][i]) * u2);
            const double eps = std::ldexp(1.0, -22);
            const double cond = (a1 > 0.0 ? std::fmin(2.0 * lt * a1, eps * t1 / a1) : 0.0) +
                                (a2 > 0.0 ? std::fmin(2.0 * lt * a2, eps * t2 / a2) : 0.0);
            const double d = std::fmax(std::fabs(static_cast<double>(nu1[i]) - ru1[i]),
                                       std::fabs(static_cast<double>(nu2[i]) - ru2[i]));
            worst = std::fmax(worst, std::isfinite(d) ? d / scale : HUGE_VAL);
            CHECK_MSG(d <= 1e-5 * scale + cond, "calc_u2 w %d pixel %zu: u (%.9g, %.9g) vs (%.9g, %.9g)", w, i,
                      static_cast<double>(nu1[i]), static_cast<double>(nu2[i]), static_cast<double>(ru1[i]),
                      static_cast<double>(ru2[i]));
        }
        CHECK_MSG(std::fabs(en - er) <= 1e-4 * std::fabs(er) + 1e-6, "calc_u2 w %d: error sum %.9g vs %.9g", w, en, er);
        values += 2L * static_cast<long>(n);
    }
    record("calc_u2 (census's two channels), u", worst, 1e-5, values);
}

} // namespace

int main() {
    CHECK(neon_available());
    std::printf("neon_kernels: FP16 vector arithmetic %s (compiled %s)\n",
                neon_has_f16_arith() ? "on" : "off",
#if defined(OF_NEON_F16)
                "in"
#else
                "out"
#endif
    );
    Rng rng(2024);
    check_table(false);
    check_table(true);
    check_blur(rng);
    check_resize(rng);
    check_gradient(rng);
    check_warp(rng);
    check_median(rng);
    check_iteration_stage(rng, false);
    check_pipeline(rng, false);
    check_calc_u2(rng);
    if (neon_f16_kernels_callable()) { // built, and runnable here (emulated on x86-64)
        check_iteration_stage(rng, true);
        check_pipeline(rng, true);
        check_f16_steep(rng);
    } else {
        std::printf("neon_kernels: F16 kernels not checked (not built or no FP16 on this CPU)\n");
    }
    print_stats();
    std::printf("  calc_u: %ld values beyond 1e-5 of their scale, within the threshold step's condition\n",
                conditioned_values());
    return oftest::finish("neon_kernels");
}
