// Horn-Schunck / CLG Jacobi updates with F16 arithmetic (float16x8_t: eight pixels per vector),
// for CPUs with FP16 vector arithmetic (ARMv8.2-A + FP16: Xavier's Carmel, Orin's A78AE). Built
// only where __ARM_FEATURE_FP16_VECTOR_ARITHMETIC is defined; hs_kernels_init_neon installs them
// only when the CPU also reports HWCAP_ASIMDHP. Contracts: core/hs_kernels.hpp.
//
// Storage: every plane stays F32 (the plan and the driver do not change). Rows are read in F32,
// converted to F16 once per eight columns, and the results are stored in F32.
//
// What runs in F16, what in F32 (the choice):
//  - F16: the 9-point mean, as the Laplacian L = m(u) - u = 1/12 (2 (D - 4 u) + (G - 4 u)), D and
//    G the sums of the four direct and the four diagonal neighbours. Each row is converted once
//    per eight columns and its left / right neighbours come from vext of the converted chunks
//    (three conversions per plane and eight pixels, where the F32 kernels load nine vectors per
//    four pixels). The form L = m(u) - u keeps a constant field exact (D = G = 4u exactly, the
//    fused D - 4u is 0), so F16 rounding cannot drift a flat flow, and F16(1/12) (2^-12 below
//    1/12) scales the smoothing term, not u.
//  - F32: m(u) = u + L (u the pixel's F32 value), the per-pixel solve (neon/hs_solve_neon.hpp,
//    the F32 kernels' arithmetic), the stores and the change sum. The solve stays F32 for three
//    reasons: the tensor reaches 255^2 = 65025 with 0..255 images and passes F16's maximum
//    (65504) with the warp's bicubic overshoot or F32 input beyond 0..255, while alpha^2 spans
//    1e-4 .. 1e6, so F16 would need a per-pixel scale; the 2x2 determinant (j11 + a2)(j22 + a2)
//    - j12^2 cancels (core/hs_kernels.hpp: 3.5e-5 relative at alpha 15 in F32), and rounding a
//    rank-one tensor to F16 alone moves j11 j22 - j12^2 by up to 2^-11 j11 j22: 7 % of the
//    determinant at alpha 15 with 255-level gradients, and its sign at alpha 1; and converting
//    the five tensor channels (10 conversions per eight pixels) and the results back costs
//    about what the F32 solve it would replace does.
//  - Change sums: each row's in F32 lanes (ceil(w / 8) fused adds per lane and 3 to reduce),
//    then in double across rows: within (w / 8 + 4) 2^-24 of the row's sum on top of the values'
//    errors (3e-5 relative at w = 4096).
// Inner loop (neon/README.md): 131 instructions per eight pixels for HS against the F32 kernel's
// 152, 142 against 158 for CLG (4 F32 divisions in each).
//
// Not here (F32 on the F16 path too): the red-black SOR half-sweep. Its split rows give the F32
// kernel eight distinct loads per plane and four slots, without reuse across columns; the F16
// mean of eight slots would load and convert six row chunks per plane (12 loads, 12
// conversions, 3 ext) and do 10 F16 operations: 37 instructions per plane where the F32 loop
// spends 34 (16 loads, 18 operations). An estimate, not a kernel: it would cost 2^-11 |u| per
// half-sweep for nothing. The per-warp stages run once per warp, not per iteration.
//
// Domain: |du|, |dv| < 16384 px (four neighbours are summed in F16; F16's maximum is 65504).
// The flow driver's sanity bound keeps flows inside the frame, and an increment of a level is a
// fraction of that.
//
// Error bound against the F32 reference, one call (u16 = 2^-11, F16's unit roundoff), per
// pixel with neighbours n_i (weights w_i: 1/6 direct, 1/12 diagonal) and value c:
//   |L16 - L| <= eL = u16 (3 M + |c| + 3.5 Lam) + 2^-20 px, with M = sum w_i |n_i| and
//   Lam = (2 |sum_direct (n_i - c)| + |sum_diag (n_i - c)|) / 12:
//   the nine values rounded to F16 (u16 (M + |c|)), the two sums of four (2 u16 M), the last
//   four operations and the 1/12 constant (3.5 u16 Lam, relative to the Laplacian's terms);
//   2^-20 px covers results below F16's normal range (2^-14), rounded to 2^-25 absolute.
//   The update then moves by at most |du'/dmu| eL_u + |du'/dmv| eL_v (same for dv'), on top of
//   the F32 kernels' bound: HS du'/dmu = 1 - ix^2 / d, du'/dmv = -ix iy / d (both at most 1);
//   CLG du'/dmu = a2 C / det, du'/dmv = -a2 j12 / det.
// In a smooth field (Lam ~ 0, M ~ |c|) that is about 4 u16 |u| = 2e-3 |u| per iteration.
// Measured (tests/neon/neon_hs_kernels.cpp, which checks every value against this bound and the
// change sums against the bound it implies): at most 0.47 (HS) and 0.54 (CLG) of the bound,
// 0.087 px on +-50 px flows; after 300 iterations on a smooth pair, within 1.3e-3 px of the
// reference's iterate. of_selftest's F16 path: the same EPE as F32 to four digits, Jacobi and
// SOR within 1.6e-3 px of each other at their fixed point (bound 5e-3).
// F16 rounding leaves the iterate moving by about 2^-12 |u| per iteration at its fixed point:
// the change sum stays near npix (2^-12 |u|)^2 (6e-8 npix at |u| = 1 px), below the stopping
// threshold epsilon^2 npix while the rms |u| is under 4096 epsilon (41 px at the default 0.01).
//
// Over-read: none. A chunk of eight columns is loaded whole only while it lies inside the row;
// the last one or two of a row go through a stack copy with the column index clamped to w - 1
// (which is also the right border's replication), the left neighbour of column 0 is column 0,
// rows y - 1 and y + 1 are clamped, and the last vector's stores and per-pixel loads are
// partial (neon_util.hpp). Every pixel, border and tail included, takes the vector arithmetic.
#include "neon/neon_kernels.hpp"

#if defined(OF_NEON_F16)

#include "neon/f16_util.hpp"
#include "neon/hs_solve_neon.hpp"
#include "neon/neon_util.hpp"

namespace oflow {
namespace {

using namespace neon;

/// Columns x .. x+7 of a row in F32 (lo, hi) and F16 (h).
struct Chunk {
    float32x4_t lo, hi;
    float16x8_t h;
};

/// Columns x .. x+7 of a row that holds them all.
inline Chunk load_chunk(const float* row, int x) {
    Chunk c;
    c.lo = vld1q_f32(row + x);
    c.hi = vld1q_f32(row + x + kLanes);
    c.h = narrow(c.lo, c.hi);
    return c;
}

/// Columns x .. x+7 of a row of width w, the columns at or past w holding the row's value at
/// w - 1 (the right border's replication); through a copy, reads columns [x, min(x + 8, w)).
inline Chunk load_chunk_clamped(const float* row, int x, int w) {
    float t[kLanes16];
    for (int i = 0; i < kLanes16; ++i) t[i] = row[x + i < w ? x + i : w - 1];
    return load_chunk(t, 0);
}

/// One row of a flow plane at columns x .. x+7: the F16 chunk before x and the chunk at x.
struct Win {
    float16x8_t prev;
    Chunk cur;
};

/// Rows y - 1, y, y + 1 (clamped) of one flow plane.
struct Rows3 {
    const float* p[3];
};

inline Rows3 rows3(const Plane& pl, int y) {
    Rows3 r;
    const int h = pl.h;
    r.p[0] = pl.row(y > 0 ? y - 1 : 0);
    r.p[1] = pl.row(y);
    r.p[2] = pl.row(y + 1 < h ? y + 1 : h - 1);
    return r;
}

/// The window at column 0: the left neighbour of column 0 is column 0.
inline Win win_start(const float* row, int w) {
    Win v;
    const float32x4_t first = vdupq_n_f32(row[0]);
    v.prev = narrow(first, first);
    v.cur = w >= kLanes16 ? load_chunk(row, 0) : load_chunk_clamped(row, 0, w);
    return v;
}

inline void win_advance(Win* v, const Chunk& next) {
    v->prev = v->cur.h;
    v->cur = next;
}

struct Consts16 {
    float16x8_t four, two, twelfth;
};

/// L = m(u) - u at columns x .. x+7 in F16 (top comment): 1/12 (2 (D - 4c) + (G - 4c)), from
/// the windows of rows y - 1, y, y + 1 and the chunks after them.
inline float16x8_t laplacian16(const Win& up, const Win& mid, const Win& dn, float16x8_t up_next, float16x8_t mid_next,
                               float16x8_t dn_next, const Consts16& k) {
    const float16x8_t c = mid.cur.h, u = up.cur.h, d = dn.cur.h;
    const float16x8_t l = vextq_f16(mid.prev, c, 7), r = vextq_f16(c, mid_next, 1);
    const float16x8_t ul = vextq_f16(up.prev, u, 7), ur = vextq_f16(u, up_next, 1);
    const float16x8_t dl = vextq_f16(dn.prev, d, 7), dr = vextq_f16(d, dn_next, 1);
    const float16x8_t direct = vaddq_f16(vaddq_f16(l, r), vaddq_f16(u, d));
    const float16x8_t diag = vaddq_f16(vaddq_f16(ul, ur), vaddq_f16(dl, dr));
    const float16x8_t sum = vfmaq_f16(vfmsq_f16(diag, k.four, c), k.two, vfmsq_f16(direct, k.four, c));
    return vmulq_f16(sum, k.twelfth);
}

enum class Update { kHs, kCoupled };

/// The per-pixel part of eight pixels at column x given their means' Laplacians (lanes [0, n)
/// inside the row; Full: n = 8, no masks): the solve, the stores and the squared changes.
/// Row y of the per-pixel inputs (HS: ix, iy, it; CLG: the five tensor channels) and outputs.
struct PixelRows {
    const float* in[kHsChannels];
    float* out_u;
    float* out_v;
};

inline PixelRows pixel_rows(const HsJacobiArgs& a, int y, bool hs) {
    PixelRows r;
    if (hs) { // HS reads ix, iy, it, CLG the tensor: only those planes are set
        r.in[0] = a.ix.row(y);
        r.in[1] = a.iy.row(y);
        r.in[2] = a.it.row(y);
        r.in[3] = r.in[4] = nullptr;
    } else {
        for (int c = 0; c < kHsChannels; ++c) r.in[c] = a.j[c].row(y);
    }
    r.out_u = a.du_next.row(y);
    r.out_v = a.dv_next.row(y);
    return r;
}

template <Update U, bool Full>
inline void solve8(const PixelRows& pr, int x, int n, float32x4_t a2, const Chunk& cu, const Chunk& cv, float16x8_t lu,
                   float16x8_t lv, float32x4_t* acc_lo, float32x4_t* acc_hi) {
    const float32x4_t mu_lo = vaddq_f32(cu.lo, widen_lo(lu)), mu_hi = vaddq_f32(cu.hi, widen_hi(lu));
    const float32x4_t mv_lo = vaddq_f32(cv.lo, widen_lo(lv)), mv_hi = vaddq_f32(cv.hi, widen_hi(lv));
    // Lanes past the row's end: zero gradients / tensor (d = a2, det = a2^2 > 0), not stored.
    float32x4_t u_lo, u_hi, v_lo, v_hi;
    if (U == Update::kHs) {
        float32x4_t gx_lo, gx_hi, gy_lo, gy_hi, gt_lo, gt_hi;
        load8(pr.in[0] + x, n, &gx_lo, &gx_hi);
        load8(pr.in[1] + x, n, &gy_lo, &gy_hi);
        load8(pr.in[2] + x, n, &gt_lo, &gt_hi);
        hs_update_v(gx_lo, gy_lo, gt_lo, a2, mu_lo, mv_lo, &u_lo, &v_lo);
        hs_update_v(gx_hi, gy_hi, gt_hi, a2, mu_hi, mv_hi, &u_hi, &v_hi);
    } else {
        float32x4_t j_lo[kHsChannels], j_hi[kHsChannels];
        for (int c = 0; c < kHsChannels; ++c) load8(pr.in[c] + x, n, &j_lo[c], &j_hi[c]);
        solve2_v(j_lo[kJ11], j_lo[kJ12], j_lo[kJ13], j_lo[kJ22], j_lo[kJ23], a2, mu_lo, mv_lo, &u_lo, &v_lo);
        solve2_v(j_hi[kJ11], j_hi[kJ12], j_hi[kJ13], j_hi[kJ22], j_hi[kJ23], a2, mu_hi, mv_hi, &u_hi, &v_hi);
    }
    store8(pr.out_u + x, u_lo, u_hi, n);
    store8(pr.out_v + x, v_lo, v_hi, n);
    float32x4_t du_lo = vsubq_f32(u_lo, cu.lo), du_hi = vsubq_f32(u_hi, cu.hi);
    float32x4_t dv_lo = vsubq_f32(v_lo, cv.lo), dv_hi = vsubq_f32(v_hi, cv.hi);
    if (!Full) {
        const uint32x4_t in_lo = lanes_below(n), in_hi = lanes_below(n - kLanes);
        du_lo = keep(du_lo, in_lo);
        du_hi = keep(du_hi, in_hi);
        dv_lo = keep(dv_lo, in_lo);
        dv_hi = keep(dv_hi, in_hi);
    }
    *acc_lo = vfmaq_f32(vfmaq_f32(*acc_lo, du_lo, du_lo), dv_lo, dv_lo);
    *acc_hi = vfmaq_f32(vfmaq_f32(*acc_hi, du_hi, du_hi), dv_hi, dv_hi);
}

// One row: every pixel eight at a time. While the chunk after x lies inside the row, plain
// loads (the steady state); the last one or two vectors load their next chunks through a
// clamped copy (the right border's replication) and store partial vectors. Returns the row's
// change sum.
template <Update U>
float jacobi_row(const HsJacobiArgs& a, int y, const Consts16& k) {
    const int w = a.du.w;
    if (w <= 0) return 0.0f;
    const float32x4_t a2 = vdupq_n_f32(a.alpha2);
    const PixelRows pr = pixel_rows(a, y, U == Update::kHs);
    const Rows3 ru = rows3(a.du, y), rv = rows3(a.dv, y);
    Win u0 = win_start(ru.p[0], w), u1 = win_start(ru.p[1], w), u2 = win_start(ru.p[2], w);
    Win v0 = win_start(rv.p[0], w), v1 = win_start(rv.p[1], w), v2 = win_start(rv.p[2], w);
    float32x4_t acc_lo = vdupq_n_f32(0.0f), acc_hi = acc_lo;
    int x = 0;
    for (; x + 2 * kLanes16 <= w; x += kLanes16) {
        const int xn = x + kLanes16;
        const Chunk nu0 = load_chunk(ru.p[0], xn), nu1 = load_chunk(ru.p[1], xn), nu2 = load_chunk(ru.p[2], xn);
        const Chunk nv0 = load_chunk(rv.p[0], xn), nv1 = load_chunk(rv.p[1], xn), nv2 = load_chunk(rv.p[2], xn);
        const float16x8_t lu = laplacian16(u0, u1, u2, nu0.h, nu1.h, nu2.h, k);
        const float16x8_t lv = laplacian16(v0, v1, v2, nv0.h, nv1.h, nv2.h, k);
        solve8<U, true>(pr, x, kLanes16, a2, u1.cur, v1.cur, lu, lv, &acc_lo, &acc_hi);
        win_advance(&u0, nu0);
        win_advance(&u1, nu1);
        win_advance(&u2, nu2);
        win_advance(&v0, nv0);
        win_advance(&v1, nv1);
        win_advance(&v2, nv2);
    }
    for (; x < w; x += kLanes16) {
        const int xn = x + kLanes16;
        const Chunk nu0 = load_chunk_clamped(ru.p[0], xn, w), nu1 = load_chunk_clamped(ru.p[1], xn, w);
        const Chunk nu2 = load_chunk_clamped(ru.p[2], xn, w);
        const Chunk nv0 = load_chunk_clamped(rv.p[0], xn, w), nv1 = load_chunk_clamped(rv.p[1], xn, w);
        const Chunk nv2 = load_chunk_clamped(rv.p[2], xn, w);
        const float16x8_t lu = laplacian16(u0, u1, u2, nu0.h, nu1.h, nu2.h, k);
        const float16x8_t lv = laplacian16(v0, v1, v2, nv0.h, nv1.h, nv2.h, k);
        solve8<U, false>(pr, x, w - x, a2, u1.cur, v1.cur, lu, lv, &acc_lo, &acc_hi);
        win_advance(&u0, nu0);
        win_advance(&u1, nu1);
        win_advance(&u2, nu2);
        win_advance(&v0, nv0);
        win_advance(&v1, nv1);
        win_advance(&v2, nv2);
    }
    return vaddvq_f32(vaddq_f32(acc_lo, acc_hi));
}

template <Update U>
double jacobi_rows(const HsJacobiArgs& a, int y0, int y1) {
    Consts16 k;
    k.four = vdupq_n_f16(static_cast<float16_t>(4.0f));
    k.two = vdupq_n_f16(static_cast<float16_t>(2.0f));
    k.twelfth = vdupq_n_f16(static_cast<float16_t>(1.0f / 12.0f));
    double total = 0.0;
    for (int y = y0; y < y1; ++y) total += static_cast<double>(jacobi_row<U>(a, y, k));
    return total;
}

} // namespace

double hs_jacobi_f16_neon(const HsJacobiArgs& a, int y0, int y1) { return jacobi_rows<Update::kHs>(a, y0, y1); }
double clg_jacobi_f16_neon(const HsJacobiArgs& a, int y0, int y1) { return jacobi_rows<Update::kCoupled>(a, y0, y1); }

} // namespace oflow

#endif // OF_NEON_F16
