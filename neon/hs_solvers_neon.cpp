// Horn-Schunck / CLG solvers, NEON F32 (core/hs_kernels.hpp has the equations and contracts):
// HS's Jacobi update, CLG's pointwise-coupled Jacobi and the red-black SOR half-sweep.
//
// Each row: the pixels whose eight neighbours lie inside the plane (x in 1..w-2 of the rows
// 1..h-2) four at a time with unclamped loads; the border pixels and the row's tail by the
// scalar code of the reference's arithmetic (clamped neighbours). The SOR interior indexes
// the split rows without a branch (slot k of colour c in row y, s = (y + c) & 1: direct
// neighbours at slots k+s-1, k+s of the other colour's row y and slot k of its rows y-+1;
// diagonals at slots k+s-1, k+s of this colour's old rows y-+1).
//
// Over-read: none. A vector of slots k..k+3 reads slots up to k+s+3 of a row, and only while
// the pixel 2(k+3)+s+1 (its right neighbour) is inside the row.
//
// Arithmetic: the reference's order of the 9-point mean, the 2x2 solve by Cramer's rule, IEEE
// division (neon/hs_solve_neon.hpp); the compiler may fuse multiply-adds here and in the
// reference alike, so the kernel checks compare within 1e-5 of the terms
// (tests/neon/neon_hs_kernels.cpp). The change sums are each row's in double (lane pairs, then
// the border pixels), checked against what the values' bounds allow: a pixel the update barely
// moves turns the updates' rounding into a large relative error of its tiny term (measured up
// to 1.1e-3 of the sum relative; HS Jacobi measured bitwise equal to the reference).
#include "neon/neon_kernels.hpp"

#include "neon/hs_solve_neon.hpp"
#include "neon/neon_util.hpp"
#include "core/ref/hs_ref.hpp"

namespace oflow {
namespace {

using neon::hs_update_v;
using neon::kLanes;
using neon::solve2_v;

const float kSixth = 1.0f / 6.0f, kTwelfth = 1.0f / 12.0f;

inline float32x4_t mean9_v(float32x4_t l, float32x4_t r, float32x4_t u, float32x4_t d, float32x4_t ul,
                           float32x4_t ur, float32x4_t dl, float32x4_t dr) {
    const float32x4_t direct = vaddq_f32(vaddq_f32(l, r), vaddq_f32(u, d));
    const float32x4_t diag = vaddq_f32(vaddq_f32(ul, ur), vaddq_f32(dl, dr));
    return vaddq_f32(vmulq_n_f32(direct, kSixth), vmulq_n_f32(diag, kTwelfth));
}

// m() at x..x+3 of rows up / c / dn, all eight neighbours inside.
inline float32x4_t local_mean_v(const float* up, const float* c, const float* dn, int x) {
    return mean9_v(vld1q_f32(c + x - 1), vld1q_f32(c + x + 1), vld1q_f32(up + x), vld1q_f32(dn + x),
                   vld1q_f32(up + x - 1), vld1q_f32(up + x + 1), vld1q_f32(dn + x - 1), vld1q_f32(dn + x + 1));
}

// (a - b)^2 + (c - d)^2 summed in double over the four lanes.
inline float64x2_t add_change(float64x2_t acc, float32x4_t a, float32x4_t b, float32x4_t c, float32x4_t d) {
    const float64x2_t dl = vsubq_f64(vcvt_f64_f32(vget_low_f32(a)), vcvt_f64_f32(vget_low_f32(b)));
    const float64x2_t dh = vsubq_f64(vcvt_high_f64_f32(a), vcvt_high_f64_f32(b));
    const float64x2_t el = vsubq_f64(vcvt_f64_f32(vget_low_f32(c)), vcvt_f64_f32(vget_low_f32(d)));
    const float64x2_t eh = vsubq_f64(vcvt_high_f64_f32(c), vcvt_high_f64_f32(d));
    acc = vfmaq_f64(acc, dl, dl);
    acc = vfmaq_f64(acc, dh, dh);
    acc = vfmaq_f64(acc, el, el);
    return vfmaq_f64(acc, eh, eh);
}

enum class Update { kHs, kCoupled };

// The border pixels: the reference's own per-pixel code.
template <Update U>
inline double jacobi_pixel(const HsJacobiArgs& a, int x, int y) {
    return U == Update::kHs ? hs_jacobi_pixel_ref(a, x, y) : clg_jacobi_pixel_ref(a, x, y);
}

template <Update U>
double jacobi_rows(const HsJacobiArgs& a, int y0, int y1) {
    const int w = a.du.w, h = a.du.h;
    const float32x4_t a2 = vdupq_n_f32(a.alpha2);
    double total = 0.0;
    for (int y = y0; y < y1; ++y) {
        double row = 0.0;
        const bool inner_row = y > 0 && y < h - 1;
        int x = 0;
        if (inner_row && w > 2) {
            row += jacobi_pixel<U>(a, 0, y);
            x = 1;
            const float *uu = a.du.row(y - 1), *uc = a.du.row(y), *ud = a.du.row(y + 1);
            const float *vu = a.dv.row(y - 1), *vc = a.dv.row(y), *vd = a.dv.row(y + 1);
            // Row pointers once per row (the stores below may alias anything for the compiler);
            // HS reads ix, iy, it, CLG the tensor: only those planes are set.
            const bool hs = U == Update::kHs;
            const float *gx = hs ? a.ix.row(y) : nullptr, *gy = hs ? a.iy.row(y) : nullptr;
            const float* gt = hs ? a.it.row(y) : nullptr;
            const float *j11 = hs ? nullptr : a.j[kJ11].row(y), *j12 = hs ? nullptr : a.j[kJ12].row(y);
            const float *j13 = hs ? nullptr : a.j[kJ13].row(y), *j22 = hs ? nullptr : a.j[kJ22].row(y);
            const float* j23 = hs ? nullptr : a.j[kJ23].row(y);
            float* nu = a.du_next.row(y);
            float* nv = a.dv_next.row(y);
            float64x2_t acc = vdupq_n_f64(0.0);
            for (; x + kLanes <= w - 1; x += kLanes) { // x..x+3 and their right neighbours inside
                const float32x4_t mu = local_mean_v(uu, uc, ud, x), mv = local_mean_v(vu, vc, vd, x);
                float32x4_t u, v;
                if (U == Update::kHs) {
                    hs_update_v(vld1q_f32(gx + x), vld1q_f32(gy + x), vld1q_f32(gt + x), a2, mu, mv, &u, &v);
                } else {
                    solve2_v(vld1q_f32(j11 + x), vld1q_f32(j12 + x), vld1q_f32(j13 + x), vld1q_f32(j22 + x),
                             vld1q_f32(j23 + x), a2, mu, mv, &u, &v);
                }
                acc = add_change(acc, u, vld1q_f32(uc + x), v, vld1q_f32(vc + x));
                vst1q_f32(nu + x, u);
                vst1q_f32(nv + x, v);
            }
            row += vgetq_lane_f64(acc, 0) + vgetq_lane_f64(acc, 1);
        }
        for (; x < w; ++x) row += jacobi_pixel<U>(a, x, y);
        total += row;
    }
    return total;
}

} // namespace

double hs_jacobi_neon(const HsJacobiArgs& a, int y0, int y1) { return jacobi_rows<Update::kHs>(a, y0, y1); }
double clg_jacobi_neon(const HsJacobiArgs& a, int y0, int y1) { return jacobi_rows<Update::kCoupled>(a, y0, y1); }

double sor_half_sweep_neon(const HsSorArgs& a, int y0, int y1) {
    const int w = a.w, h = a.u_old.h, c = a.colour;
    const float32x4_t a2 = vdupq_n_f32(a.alpha2), om = vdupq_n_f32(a.omega), keep_old = vdupq_n_f32(1.0f - a.omega);
    double total = 0.0;
    for (int y = y0; y < y1; ++y) {
        const int s = (y + c) & 1;
        const int slots = (w - s + 1) / 2; // pixels of this colour in row y: x = 2k + s < w
        double row = 0.0;
        int k = 0;
        if (y > 0 && y < h - 1) {
            // Interior slots: x - 1 >= 0 (k >= 1 - s) and x + 1 <= w - 1 (k <= (w - 2 - s) / 2).
            const int k_lo = 1 - s, k_hi = w - 2 - s >= 0 ? (w - 2 - s) / 2 : -1; // floor, not truncation
            for (; k < k_lo && k < slots; ++k) row += sor_pixel_ref(a, k, y);
            const float *ou = a.u_old.row(y), *ov = a.v_old.row(y);
            // Left / upper-left / lower-left neighbours at slot k + s - 1 = k + o (>= 0 here).
            const int o = s - 1;
            const float *su = a.u_old.row(y - 1), *sd = a.u_old.row(y + 1); // diagonals: this colour, old
            const float *tu = a.v_old.row(y - 1), *td = a.v_old.row(y + 1);
            const float *pl = a.u_other.row(y), *pu = a.u_other.row(y - 1), *pd = a.u_other.row(y + 1);
            const float *ql = a.v_other.row(y), *qu = a.v_other.row(y - 1), *qd = a.v_other.row(y + 1);
            const float *j11 = a.j[kJ11].row(y), *j12 = a.j[kJ12].row(y), *j13 = a.j[kJ13].row(y);
            const float *j22 = a.j[kJ22].row(y), *j23 = a.j[kJ23].row(y);
            float* nu = a.u_new.row(y);
            float* nv = a.v_new.row(y);
            float64x2_t acc = vdupq_n_f64(0.0);
            for (; k + kLanes - 1 <= k_hi; k += kLanes) {
                const int kl = k + o;
                const float32x4_t mu = mean9_v(vld1q_f32(pl + kl), vld1q_f32(pl + kl + 1), vld1q_f32(pu + k),
                                               vld1q_f32(pd + k), vld1q_f32(su + kl), vld1q_f32(su + kl + 1),
                                               vld1q_f32(sd + kl), vld1q_f32(sd + kl + 1));
                const float32x4_t mv = mean9_v(vld1q_f32(ql + kl), vld1q_f32(ql + kl + 1), vld1q_f32(qu + k),
                                               vld1q_f32(qd + k), vld1q_f32(tu + kl), vld1q_f32(tu + kl + 1),
                                               vld1q_f32(td + kl), vld1q_f32(td + kl + 1));
                float32x4_t gu, gv;
                solve2_v(vld1q_f32(j11 + k), vld1q_f32(j12 + k), vld1q_f32(j13 + k), vld1q_f32(j22 + k),
                         vld1q_f32(j23 + k), a2, mu, mv, &gu, &gv);
                const float32x4_t o_u = vld1q_f32(ou + k), o_v = vld1q_f32(ov + k);
                const float32x4_t u = vaddq_f32(vmulq_f32(keep_old, o_u), vmulq_f32(om, gu));
                const float32x4_t v = vaddq_f32(vmulq_f32(keep_old, o_v), vmulq_f32(om, gv));
                acc = add_change(acc, u, o_u, v, o_v);
                vst1q_f32(nu + k, u);
                vst1q_f32(nv + k, v);
            }
            row += vgetq_lane_f64(acc, 0) + vgetq_lane_f64(acc, 1);
        }
        for (; k < slots; ++k) row += sor_pixel_ref(a, k, y);
        total += row;
    }
    return total;
}

} // namespace oflow
