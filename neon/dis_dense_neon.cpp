// Dense Inverse Search, the per-pixel kernels of a level in NEON F32 (core/dis_kernels.hpp):
// the Sobel gradient (DisGradientFn) and the densification (DisDensifyArgs), four pixels per
// vector. The patch sums of step 2 (box_h, box_v: double by contract) and the starts (init: a
// gather of nx x ny values) stay the reference's: they are a small part of a level (the search
// is iterations x p^2 per patch; neon/dis_patch_neon.cpp).
//
// Gradient: ((b - a) + 2 (d - c)) + (f - e), then * 1/8, per lane in the reference's order; 2 (d - c)
// and the * 1/8 are exact, so fused or not the value is rounded as the reference's: its bits.
// Densification: each patch adds its weights and weighted flows to the rows of its own that lie
// in the band, four columns per vector, patches in the contract's order (j, then k ascending),
// so every pixel's sums are the reference's sums in its order; the weight 1 / max(1, |d - m|)
// is an IEEE division, d = (tap - I0) - m with the tap fused as the reference compiles it
// (t = fma(fx, b - a, a), ...), the sums s + (u w) with the product rounded first (g++ 12 does
// not fuse them in the reference: it forms w u in the branch of the weight, then adds), the
// final quotients IEEE divisions. The result is the reference's bits where g++ compiles the
// reference so (g++ 12.2: it does; the check allows 4 ulps of the sums and prints whether the
// bits agree, tests/neon/neon_dis_kernels.cpp).
//
// Over-read: none. The gradient loads columns x - 1 .. x + 4 of a row directly only while they
// lie inside it; the row's first vector and its tail go through a six-float copy of the clamped
// columns (the border's replication). The densification reads the tap rows in columns
// xa0 .. xa0 + p only when they lie inside the plane (else a clamped copy on the stack, as the
// search does), I0 and the output rows in the patch's columns, with partial loads and stores at a
// patch row's end (p not a multiple of 4).
#include "core/dis_patch.hpp"
#include "neon/dis_neon.hpp"

#include "neon/neon_util.hpp"

#include <cmath>

namespace oflow {
namespace {

using namespace neon;

const int kMaxP = 32;

struct Cols3 {
    float32x4_t l, m, r;
};

inline Cols3 cols(const float* row, int x, int w) {
    if (x >= 1 && x + kLanes < w) return Cols3{vld1q_f32(row + x - 1), vld1q_f32(row + x), vld1q_f32(row + x + 1)};
    float t[kLanes + 2];
    for (int j = 0; j < kLanes + 2; ++j) t[j] = row[clampi(x - 1 + j, 0, w - 1)];
    return Cols3{vld1q_f32(t), vld1q_f32(t + 1), vld1q_f32(t + 2)};
}

// v as it is, opaque to the compiler: a product passed through it is rounded before it is added
// (g++ would otherwise contract vmulq + vaddq into fmla under -ffp-contract=fast).
inline float32x4_t rounded(float32x4_t v) {
    OF_NEON_OPAQUE(v);
    return v;
}

using Shift = DisShift;

inline Shift split_shift(float ux, float uy, int w, int h) { return dis_split_shift(ux, uy, w, h); }

} // namespace

void dis_gradient_neon(Plane src, Plane gx, Plane gy, int y0, int y1) {
    const int w = src.w, h = src.h;
    const float32x4_t eighth = vdupq_n_f32(0.125f), two = vdupq_n_f32(2.0f);
    for (int y = y0; y < y1; ++y) {
        const float* up = src.row(clampi(y - 1, 0, h - 1));
        const float* c = src.row(y);
        const float* dn = src.row(clampi(y + 1, 0, h - 1));
        float* ox = gx.row(y);
        float* oy = gy.row(y);
        for (int x = 0; x < w; x += kLanes) {
            const Cols3 u = cols(up, x, w), m = cols(c, x, w), d = cols(dn, x, w);
            const float32x4_t vx = vaddq_f32(vaddq_f32(vsubq_f32(u.r, u.l), vmulq_f32(two, vsubq_f32(m.r, m.l))),
                                              vsubq_f32(d.r, d.l));
            const float32x4_t vy = vaddq_f32(vaddq_f32(vsubq_f32(d.l, u.l), vmulq_f32(two, vsubq_f32(d.m, u.m))),
                                              vsubq_f32(d.r, u.r));
            store_n(ox + x, vmulq_f32(vx, eighth), w - x);
            store_n(oy + x, vmulq_f32(vy, eighth), w - x);
        }
    }
}

void dis_densify_neon(const DisDensifyArgs& a, int y0, int y1) {
    const DisGrid& g = a.g;
    const int w = g.w;
    const float32x4_t zero = vdupq_n_f32(0.0f), one = vdupq_n_f32(1.0f);
    for (int y = y0; y < y1; ++y) {
        float* sw = a.weight.row(y);
        float* su = a.u1.row(y);
        float* sv = a.u2.row(y);
        for (int x = 0; x < w; x += kLanes) {
            store_n(sw + x, zero, w - x);
            store_n(su + x, zero, w - x);
            store_n(sv + x, zero, w - x);
        }
    }
    float buf0[kMaxP + 1], buf1[kMaxP + 1];
    const int p = g.p;
    for (int j = 0; j < g.ny; ++j) {
        const int py0 = g.y(j);
        if (py0 + p <= y0 || py0 >= y1) continue;
        const int ya = py0 > y0 ? py0 : y0, yb = py0 + p < y1 ? py0 + p : y1;
        for (int k = 0; k < g.nx; ++k) {
            const int px0 = g.x(k);
            const float ux = a.sx.row(j)[k], uy = a.sy.row(j)[k];
            const Shift sh = split_shift(ux, uy, w, g.h);
            const float32x4_t vux = vdupq_n_f32(ux), vuy = vdupq_n_f32(uy), vm = vdupq_n_f32(a.md.row(j)[k]);
            const float32x4_t fx = vdupq_n_f32(sh.fx), fy = vdupq_n_f32(sh.fy);
            const int xa0 = px0 + sh.ix;
            const bool inside = xa0 >= 0 && xa0 + p < w;
            for (int y = ya; y < yb; ++y) {
                const float* t = a.i0.row(y) + px0;
                const float* r0 = a.i1.row(clampi(y + sh.iy, 0, g.h - 1));
                const float* r1 = a.i1.row(clampi(y + sh.iy + 1, 0, g.h - 1));
                if (inside) {
                    r0 += xa0;
                    r1 += xa0;
                } else {
                    for (int c = 0; c <= p; ++c) {
                        const int xc = clampi(xa0 + c, 0, w - 1);
                        buf0[c] = r0[xc];
                        buf1[c] = r1[xc];
                    }
                    r0 = buf0;
                    r1 = buf1;
                }
                float* sw = a.weight.row(y) + px0;
                float* su = a.u1.row(y) + px0;
                float* sv = a.u2.row(y) + px0;
                for (int c = 0; c < p; c += kLanes) {
                    const int n = p - c;
                    const float32x4_t va = load_n(r0 + c, n), vb = load_n(r0 + c + 1, n);
                    const float32x4_t vc = load_n(r1 + c, n), vd = load_n(r1 + c + 1, n);
                    const float32x4_t top = vfmaq_f32(va, fx, vsubq_f32(vb, va));
                    const float32x4_t bot = vfmaq_f32(vc, fx, vsubq_f32(vd, vc));
                    const float32x4_t tap = vfmaq_f32(top, fy, vsubq_f32(bot, top));
                    const float32x4_t d = vsubq_f32(vsubq_f32(tap, load_n(t + c, n)), vm);
                    const float32x4_t wgt = vdivq_f32(one, vmaxq_f32(vabsq_f32(d), one));
                    store_n(sw + c, vaddq_f32(load_n(sw + c, n), wgt), n);
                    store_n(su + c, vaddq_f32(load_n(su + c, n), rounded(vmulq_f32(vux, wgt))), n);
                    store_n(sv + c, vaddq_f32(load_n(sv + c, n), rounded(vmulq_f32(vuy, wgt))), n);
                }
            }
        }
    }
    for (int y = y0; y < y1; ++y) {
        const float* sw = a.weight.row(y);
        float* su = a.u1.row(y);
        float* sv = a.u2.row(y);
        for (int x = 0; x < w; x += kLanes) {
            const float32x4_t vw = load_n(sw + x, w - x);
            store_n(su + x, vdivq_f32(load_n(su + x, w - x), vw), w - x);
            store_n(sv + x, vdivq_f32(load_n(sv + x, w - x), vw), w - x);
        }
    }
}

} // namespace oflow
