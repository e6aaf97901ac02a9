// Dense Inverse Search, the refinement's tensor in NEON F32 (core/dis_kernels.hpp:
// DisRefineArgs): per pixel the robust data and gradient-constancy terms at the current
// increment and the flow's Laplacian, written to the red-black halves of the SOR.
//
// Eight pixels per step, x .. x + 7 (x even), as two vectors of four in column order: the frames'
// and the flow's rows are loaded at columns x - 1, x, x + 1 (x + 3, x + 4, x + 5 for the second),
// the increment's halves (four slots of each colour) interleaved into column order (zip), the
// five outputs split back by colour (uzp: the even columns to the colour of (x + y) & 1, the odd
// ones to the other). The columns past the last multiple of 8 run the reference's scalar
// formula (same code, same file flags).
//
// Arithmetic: the reference's formula in its order and association; the square roots and the
// divisions are IEEE (vsqrtq, vdivq). The sums of products (Ax^2 + Ay^2 + z2, the residuals, the
// J entries) are fused here where a multiply feeds an add; the compiler may fuse the reference
// otherwise, so values differ by a few roundings of their terms: tests/neon/neon_dis_kernels.cpp
// allows 1e-5 of the sum of the magnitudes of each output's terms (kTolF32, the NEON checks'
// F32 tolerance).
//
// Over-read: none. Rows y - 1, y + 1 are clamped; a row's columns x - 1 .. x + 4 are loaded
// directly only when inside it, the first vector of a row through a clamped six-float copy; the
// halves are read in slots x / 2 .. x / 2 + 3 for x + 8 <= w, inside both halves' (w + 1) / 2.
#include "core/dis_patch.hpp"
#include "neon/dis_neon.hpp"

#include "neon/neon_util.hpp"

#include <cmath>

namespace oflow {
namespace {

using namespace neon;

struct Cols3 {
    float32x4_t l, m, r;
};

inline Cols3 cols(const float* row, int x, int w) {
    if (x >= 1 && x + kLanes < w) return Cols3{vld1q_f32(row + x - 1), vld1q_f32(row + x), vld1q_f32(row + x + 1)};
    float t[kLanes + 2];
    for (int j = 0; j < kLanes + 2; ++j) t[j] = row[clampi(x - 1 + j, 0, w - 1)];
    return Cols3{vld1q_f32(t), vld1q_f32(t + 1), vld1q_f32(t + 2)};
}

using Rows = DisRefineRows;

struct Out5 {
    float32x4_t j[kHsChannels];
};

inline float32x4_t avg(float32x4_t p, float32x4_t q) { return vmulq_n_f32(vaddq_f32(p, q), 0.5f); }

// Four pixels x .. x + 3 (all inside the row), increment du, dv in column order.
inline Out5 tensor4(const Rows& r, const DisRefineArgs& a, int x, int w, float32x4_t du, float32x4_t dv) {
    const Cols3 a0u = cols(r.i0u, x, w), a0c = cols(r.i0c, x, w), a0d = cols(r.i0d, x, w);
    const Cols3 a1u = cols(r.i1u, x, w), a1c = cols(r.i1c, x, w), a1d = cols(r.i1d, x, w);
    const float32x4_t ac = avg(a0c.m, a1c.m), al = avg(a0c.l, a1c.l), ar = avg(a0c.r, a1c.r);
    const float32x4_t au = avg(a0u.m, a1u.m), ad = avg(a0d.m, a1d.m);
    const float32x4_t aul = avg(a0u.l, a1u.l), aur = avg(a0u.r, a1u.r);
    const float32x4_t adl = avg(a0d.l, a1d.l), adr = avg(a0d.r, a1d.r);
    const float32x4_t ax = vmulq_n_f32(vsubq_f32(ar, al), 0.5f), ay = vmulq_n_f32(vsubq_f32(ad, au), 0.5f);
    const float32x4_t two = vdupq_n_f32(2.0f);
    const float32x4_t axx = vaddq_f32(vfmsq_f32(ar, two, ac), al), ayy = vaddq_f32(vfmsq_f32(ad, two, ac), au);
    const float32x4_t axy = vmulq_n_f32(vsubq_f32(vsubq_f32(adr, adl), vsubq_f32(aur, aul)), 0.25f);
    const float32x4_t it = vsubq_f32(a1c.m, a0c.m);
    const float32x4_t ixt =
        vsubq_f32(vmulq_n_f32(vsubq_f32(a1c.r, a1c.l), 0.5f), vmulq_n_f32(vsubq_f32(a0c.r, a0c.l), 0.5f));
    const float32x4_t iyt =
        vsubq_f32(vmulq_n_f32(vsubq_f32(a1d.m, a1u.m), 0.5f), vmulq_n_f32(vsubq_f32(a0d.m, a0u.m), 0.5f));
    const float32x4_t z2 = vdupq_n_f32(kDisZeta2), e2 = vdupq_n_f32(kDisEps2);
    const float32x4_t nb = vaddq_f32(vfmaq_f32(vmulq_f32(ax, ax), ay, ay), z2);
    const float32x4_t rb_num = vfmaq_f32(vfmaq_f32(it, ax, du), ay, dv);
    const float32x4_t phib = vdivq_f32(
        vdivq_f32(vdupq_n_f32(a.delta), vsqrtq_f32(vaddq_f32(vdivq_f32(vmulq_f32(rb_num, rb_num), nb), e2))), nb);
    const float32x4_t axy2 = vmulq_f32(axy, axy);
    const float32x4_t ng = vaddq_f32(vfmaq_f32(vfmaq_f32(vmulq_f32(axx, axx), two, axy2), ayy, ayy), z2);
    const float32x4_t gxr = vfmaq_f32(vfmaq_f32(ixt, axx, du), axy, dv);
    const float32x4_t gyr = vfmaq_f32(vfmaq_f32(iyt, axy, du), ayy, dv);
    const float32x4_t phig = vdivq_f32(
        vdivq_f32(vdupq_n_f32(a.gamma),
                  vsqrtq_f32(vaddq_f32(vdivq_f32(vfmaq_f32(vmulq_f32(gxr, gxr), gyr, gyr), ng), e2))),
        ng);
    float32x4_t lap[2];
    for (int c = 0; c < 2; ++c) {
        const Cols3 fu = cols(r.fu[c], x, w), fc = cols(r.fc[c], x, w), fd = cols(r.fd[c], x, w);
        const float32x4_t m6 = vaddq_f32(vaddq_f32(fc.l, fc.r), vaddq_f32(fu.m, fd.m));
        const float32x4_t m12 = vaddq_f32(vaddq_f32(fu.l, fu.r), vaddq_f32(fd.l, fd.r));
        const float32x4_t m = vfmaq_n_f32(vmulq_n_f32(m6, 1.0f / 6.0f), m12, 1.0f / 12.0f);
        lap[c] = vsubq_f32(fc.m, m);
    }
    const float32x4_t pbx = vmulq_f32(phib, ax), pby = vmulq_f32(phib, ay);
    Out5 o;
    o.j[kJ11] = vfmaq_f32(vmulq_f32(pbx, ax), phig, vfmaq_f32(vmulq_f32(axx, axx), axy, axy));
    o.j[kJ12] = vfmaq_f32(vmulq_f32(pbx, ay), phig, vfmaq_f32(vmulq_f32(axx, axy), axy, ayy));
    o.j[kJ22] = vfmaq_f32(vmulq_f32(pby, ay), phig, vfmaq_f32(axy2, ayy, ayy));
    const float32x4_t al2 = vdupq_n_f32(a.alpha2);
    o.j[kJ13] = vfmaq_f32(vfmaq_f32(vmulq_f32(pbx, it), phig, vfmaq_f32(vmulq_f32(axx, ixt), axy, iyt)), al2, lap[0]);
    o.j[kJ23] = vfmaq_f32(vfmaq_f32(vmulq_f32(pby, it), phig, vfmaq_f32(vmulq_f32(axy, ixt), ayy, iyt)), al2, lap[1]);
    return o;
}

// The reference's formula for one pixel (core/ref/dis_ref.cpp), for the columns past the vectors.

} // namespace

void dis_refine_tensor_neon(const DisRefineArgs& a, int y0, int y1) {
    const int w = a.i0.w, h = a.i0.h;
    const int w8 = w & ~7;
    for (int y = y0; y < y1; ++y) {
        const int yu = clampi(y - 1, 0, h - 1), yd = clampi(y + 1, 0, h - 1);
        Rows r;
        r.i0u = a.i0.row(yu);
        r.i0c = a.i0.row(y);
        r.i0d = a.i0.row(yd);
        r.i1u = a.i1w.row(yu);
        r.i1c = a.i1w.row(y);
        r.i1d = a.i1w.row(yd);
        const Plane flow[2] = {a.u1, a.u2};
        for (int c = 0; c < 2; ++c) {
            r.fu[c] = flow[c].row(yu);
            r.fc[c] = flow[c].row(y);
            r.fd[c] = flow[c].row(yd);
        }
        // Even columns are red on even rows: (even, odd) = (red, black) there, (black, red) on odd rows.
        const bool even_red = (y & 1) == 0;
        const float* due = (even_red ? a.du_r : a.du_b).row(y);
        const float* duo = (even_red ? a.du_b : a.du_r).row(y);
        const float* dve = (even_red ? a.dv_r : a.dv_b).row(y);
        const float* dvo = (even_red ? a.dv_b : a.dv_r).row(y);
        const Plane* oe = even_red ? a.j_red : a.j_black;
        const Plane* oo = even_red ? a.j_black : a.j_red;
        for (int x = 0; x < w8; x += 2 * kLanes) {
            const int s = x >> 1;
            const float32x4_t ue = vld1q_f32(due + s), uo = vld1q_f32(duo + s);
            const float32x4_t ve = vld1q_f32(dve + s), vo = vld1q_f32(dvo + s);
            const Out5 o0 = tensor4(r, a, x, w, vzip1q_f32(ue, uo), vzip1q_f32(ve, vo));
            const Out5 o1 = tensor4(r, a, x + kLanes, w, vzip2q_f32(ue, uo), vzip2q_f32(ve, vo));
            for (int ch = 0; ch < kHsChannels; ++ch) {
                vst1q_f32(oe[ch].row(y) + s, vuzp1q_f32(o0.j[ch], o1.j[ch]));
                vst1q_f32(oo[ch].row(y) + s, vuzp2q_f32(o0.j[ch], o1.j[ch]));
            }
        }
        for (int x = w8; x < w; ++x) dis_refine_pixel(a, r, x, y);
    }
}

} // namespace oflow
