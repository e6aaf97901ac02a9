// Lucas-Kanade per-step kernels, NEON F32 (core/lk_kernels.hpp: LkResidualArgs, LkUpdateArgs):
// the residual products at the bilinearly sampled frame 1, and the Newton step.
//
// Residual, four pixels per vector: positions, their clamp, floor, fractions, the clamped tap
// columns and rows, the tap offsets (64-bit: row * pitch needs no bound on the plane), the
// inside test, the interpolation and the products all run in vectors; the four taps of each
// pixel are scalar gathers (one lane load each: 16 per four pixels; a tap's address comes from
// two lane moves, the top-left offset and the row step, and the column step). The bilinear
// interpolation and g.u are fused as the compiled reference's are (t = fma(fx, b - a, a),
// g.u = fma(gx, u1, gy u2)), so the products are the reference's bits with g++ 12; the checks
// allow 4 ulps of the terms.
//
// Newton step, two pixels per double vector (the reference's arithmetic is double): a vector of
// four pixels whose state is not 1 is skipped whole (after the first steps most pixels have
// stopped). The products of two floats are exact in double, so det = A C - B^2 and the
// numerators B Y - C X, B X - A Y are rounded once whether or not they are fused, and the
// divisions are IEEE: u' is the reference's to the bit. Only |delta|^2 = du^2 + dv^2 may differ
// in its last bit where the compiler fuses another way than here (fma(du, du, dv^2), as g++ 12
// compiles the reference): the stop rule can then differ where |delta|^2 lies within an ulp or
// two of epsilon^2 (the checks allow 2^-50 epsilon^2; none measured). The count of active
// pixels is integral per row (lanes), then a double.
//
// Over-read: none. Every row is read in [0, w) with partial loads at its end; the taps are
// clamped into the plane (as the reference's), so every gathered address lies inside it.
#include "neon/neon_kernels.hpp"

#include "neon/neon_util.hpp"

namespace oflow {
namespace {

using namespace neon;

const float kPosLimit = 1e6f; // positions are clamped here before the int conversion (lk_ref.cpp)
const double kMaxFlow = 1e6;  // a step beyond this is not taken (lk_ref.cpp)

/// Lane L of the four taps: a = top-left, b = a + dx, c = a + row step, d = c + dx. Lane 0
/// loads with a replicating load (no dependence on the vector's old contents).
template <int L>
inline void gather_taps(const float* base, int64x2_t off_lo, int64x2_t off_hi, int64x2_t step_lo, int64x2_t step_hi,
                        int32x4_t dx, float32x4_t* a, float32x4_t* b, float32x4_t* c, float32x4_t* d) {
    const int64_t off = L < 2 ? vgetq_lane_s64(off_lo, L & 1) : vgetq_lane_s64(off_hi, L & 1);
    const int64_t step = L < 2 ? vgetq_lane_s64(step_lo, L & 1) : vgetq_lane_s64(step_hi, L & 1);
    const int x1 = vgetq_lane_s32(dx, L);
    const float* pa = base + off;
    const float* pc = pa + step;
    if (L == 0) {
        *a = vld1q_dup_f32(pa);
        *b = vld1q_dup_f32(pa + x1);
        *c = vld1q_dup_f32(pc);
        *d = vld1q_dup_f32(pc + x1);
    } else {
        *a = vld1q_lane_f32(pa, *a, L);
        *b = vld1q_lane_f32(pa + x1, *b, L);
        *c = vld1q_lane_f32(pc, *c, L);
        *d = vld1q_lane_f32(pc + x1, *d, L);
    }
}

struct ResidualConsts {
    float32x4_t lim, nlim, zero, xmax, ymax;
    int32x4_t col_max, row_max, izero, ione;
    int32x2_t pitch;
    const float* i1; // frame 1's first row
};

/// Row y of every per-pixel plane, once per row.
struct ResidualRow {
    const float *u1, *u2, *i0, *gx, *gy;
    float *bx, *by;
    float32x4_t y;
};

// Pixels x .. x + n - 1 of one row (n <= 4; lanes past n computed on zeros, not stored).
inline void residual4(const ResidualRow& row, const ResidualConsts& k, int x, int n) {
    const float32x4_t u1 = load_n(row.u1 + x, n), u2 = load_n(row.u2 + x, n);
    float32x4_t px = vaddq_f32(column_index(x), u1), py = vaddq_f32(row.y, u2);
    px = vmaxq_f32(vminq_f32(px, k.lim), k.nlim);
    py = vmaxq_f32(vminq_f32(py, k.lim), k.nlim);
    const float32x4_t fx0 = vrndmq_f32(px), fy0 = vrndmq_f32(py);
    const int32x4_t ix = vcvtq_s32_f32(fx0), iy = vcvtq_s32_f32(fy0);
    const float32x4_t fx = vsubq_f32(px, fx0), fy = vsubq_f32(py, fy0);
    const int32x4_t xa = vminq_s32(vmaxq_s32(ix, k.izero), k.col_max);
    const int32x4_t xb = vminq_s32(vmaxq_s32(vaddq_s32(ix, k.ione), k.izero), k.col_max);
    const int32x4_t ya = vminq_s32(vmaxq_s32(iy, k.izero), k.row_max);
    const int32x4_t yb = vminq_s32(vmaxq_s32(vaddq_s32(iy, k.ione), k.izero), k.row_max);
    // ya * pitch + xa and (yb - ya) * pitch in 64 bits, the column step xb - xa (0 or 1).
    const int32x4_t pitch4 = vcombine_s32(k.pitch, k.pitch);
    const int64x2_t off_lo = vaddw_s32(vmull_s32(vget_low_s32(ya), k.pitch), vget_low_s32(xa));
    const int64x2_t off_hi = vaddw_high_s32(vmull_high_s32(ya, pitch4), xa);
    const int32x4_t dy = vsubq_s32(yb, ya);
    const int64x2_t step_lo = vmull_s32(vget_low_s32(dy), k.pitch);
    const int64x2_t step_hi = vmull_high_s32(dy, pitch4);
    const int32x4_t dx = vsubq_s32(xb, xa);
    float32x4_t ta, tb, tc, td;
    gather_taps<0>(k.i1, off_lo, off_hi, step_lo, step_hi, dx, &ta, &tb, &tc, &td);
    gather_taps<1>(k.i1, off_lo, off_hi, step_lo, step_hi, dx, &ta, &tb, &tc, &td);
    gather_taps<2>(k.i1, off_lo, off_hi, step_lo, step_hi, dx, &ta, &tb, &tc, &td);
    gather_taps<3>(k.i1, off_lo, off_hi, step_lo, step_hi, dx, &ta, &tb, &tc, &td);
    const float32x4_t t = vfmaq_f32(ta, fx, vsubq_f32(tb, ta));
    const float32x4_t bt = vfmaq_f32(tc, fx, vsubq_f32(td, tc));
    const float32x4_t i1w = vfmaq_f32(t, fy, vsubq_f32(bt, t));
    const uint32x4_t inside = vandq_u32(vandq_u32(vcgeq_f32(px, k.zero), vcleq_f32(px, k.xmax)),
                                        vandq_u32(vcgeq_f32(py, k.zero), vcleq_f32(py, k.ymax)));
    const float32x4_t it = keep(vsubq_f32(i1w, load_n(row.i0 + x, n)), inside);
    const float32x4_t gx = load_n(row.gx + x, n), gy = load_n(row.gy + x, n);
    const float32x4_t rc = vsubq_f32(it, vfmaq_f32(vmulq_f32(gy, u2), gx, u1));
    store_n(row.bx + x, vmulq_f32(gx, rc), n);
    store_n(row.by + x, vmulq_f32(gy, rc), n);
}

} // namespace

void lk_residual_neon(const LkResidualArgs& a, int y0, int y1) {
    const int w = a.i1.w, h = a.i1.h;
    ResidualConsts k;
    k.lim = vdupq_n_f32(kPosLimit);
    k.nlim = vdupq_n_f32(-kPosLimit);
    k.zero = vdupq_n_f32(0.0f);
    k.xmax = vdupq_n_f32(static_cast<float>(w - 1));
    k.ymax = vdupq_n_f32(static_cast<float>(h - 1));
    k.col_max = vdupq_n_s32(w - 1);
    k.row_max = vdupq_n_s32(h - 1);
    k.izero = vdupq_n_s32(0);
    k.ione = vdupq_n_s32(1);
    k.pitch = vdup_n_s32(static_cast<int32_t>(a.i1.pitch)); // a row of floats: far below 2^31
    k.i1 = a.i1.data;
    for (int y = y0; y < y1; ++y) {
        const ResidualRow row{a.u1.row(y), a.u2.row(y), a.i0.row(y), a.gx.row(y), a.gy.row(y),
                              a.bx.row(y), a.by.row(y), vdupq_n_f32(static_cast<float>(y))};
        int x = 0;
        for (; x + kLanes <= w; x += kLanes) residual4(row, k, x, kLanes);
        if (x < w) residual4(row, k, x, w - x);
    }
}

namespace {

struct UpdateConsts {
    float64x2_t eps2, max_flow, zero;
};

/// Two pixels' Newton step in double: u1', u2', ok (det > 0 and both within kMaxFlow: the step is
/// taken) and stop (|delta|^2 < epsilon^2).
inline void step2(float64x2_t A, float64x2_t B, float64x2_t C, float64x2_t X, float64x2_t Y, float64x2_t u1,
                  float64x2_t u2, const UpdateConsts& k, float64x2_t* nu, float64x2_t* nv, uint64x2_t* ok,
                  uint64x2_t* stop) {
    const float64x2_t det = vsubq_f64(vmulq_f64(A, C), vmulq_f64(B, B));
    *nu = vdivq_f64(vsubq_f64(vmulq_f64(B, Y), vmulq_f64(C, X)), det); // -(C X - B Y) / det
    *nv = vdivq_f64(vsubq_f64(vmulq_f64(B, X), vmulq_f64(A, Y)), det); // -(A Y - B X) / det
    *ok = vandq_u64(vcgtq_f64(det, k.zero), vandq_u64(vcaleq_f64(*nu, k.max_flow), vcaleq_f64(*nv, k.max_flow)));
    const float64x2_t du = vsubq_f64(*nu, u1), dv = vsubq_f64(*nv, u2);
    *stop = vcltq_f64(vfmaq_f64(vmulq_f64(dv, dv), du, du), k.eps2);
}

inline float64x2_t lo64(float32x4_t v) { return vcvt_f64_f32(vget_low_f32(v)); }
inline float64x2_t hi64(float32x4_t v) { return vcvt_high_f64_f32(v); }
inline uint32x4_t narrow_mask(uint64x2_t lo, uint64x2_t hi) { return vcombine_u32(vmovn_u64(lo), vmovn_u64(hi)); }

// Pixels x .. x + n - 1 of one row (n <= 4); returns the lanes left active, as a count vector.
inline uint32x4_t update4(const float* g11, const float* g12, const float* g22, const float* ex, const float* ey,
                          float* state, float* u1p, float* u2p, int n, const UpdateConsts& k) {
    const float32x4_t st = load_n(state, n);
    const uint32x4_t active = vandq_u32(vceqq_f32(st, vdupq_n_f32(1.0f)), lanes_below(n));
    if (vmaxvq_u32(active) == 0) return vdupq_n_u32(0); // every lane invalid or stopped: untouched
    const float32x4_t A = load_n(g11, n), B = load_n(g12, n), C = load_n(g22, n);
    const float32x4_t X = load_n(ex, n), Y = load_n(ey, n);
    const float32x4_t u1 = load_n(u1p, n), u2 = load_n(u2p, n);
    float64x2_t nu_lo, nv_lo, nu_hi, nv_hi;
    uint64x2_t ok_lo, stop_lo, ok_hi, stop_hi;
    step2(lo64(A), lo64(B), lo64(C), lo64(X), lo64(Y), lo64(u1), lo64(u2), k, &nu_lo, &nv_lo, &ok_lo, &stop_lo);
    step2(hi64(A), hi64(B), hi64(C), hi64(X), hi64(Y), hi64(u1), hi64(u2), k, &nu_hi, &nv_hi, &ok_hi, &stop_hi);
    const uint32x4_t take = vandq_u32(active, narrow_mask(ok_lo, ok_hi));
    const uint32x4_t moving = vbicq_u32(take, narrow_mask(stop_lo, stop_hi)); // stays active
    const float32x4_t nu = vcvt_high_f32_f64(vcvt_f32_f64(nu_lo), nu_hi);
    const float32x4_t nv = vcvt_high_f32_f64(vcvt_f32_f64(nv_lo), nv_hi);
    store_n(u1p, vbslq_f32(take, nu, u1), n);
    store_n(u2p, vbslq_f32(take, nv, u2), n);
    // Active lanes: 1 while moving, else 0; the others keep their state.
    store_n(state, vbslq_f32(active, keep(vdupq_n_f32(1.0f), moving), st), n);
    return moving;
}

} // namespace

double lk_update_neon(const LkUpdateArgs& a, int y0, int y1) {
    UpdateConsts k;
    k.eps2 = vdupq_n_f64(static_cast<double>(a.epsilon) * static_cast<double>(a.epsilon));
    k.max_flow = vdupq_n_f64(kMaxFlow);
    k.zero = vdupq_n_f64(0.0);
    const int w = a.u1.w;
    double active = 0.0;
    for (int y = y0; y < y1; ++y) {
        const float* g11 = a.j[kG11].row(y);
        const float* g12 = a.j[kG12].row(y);
        const float* g22 = a.j[kG22].row(y);
        const float* ex = a.ex.row(y);
        const float* ey = a.ey.row(y);
        float* state = a.state.row(y);
        float* u1 = a.u1.row(y);
        float* u2 = a.u2.row(y);
        uint32x4_t count = vdupq_n_u32(0); // at most w / 4 + 1 per lane
        int x = 0;
        for (; x + kLanes <= w; x += kLanes)
            count = vsubq_u32(count, update4(g11 + x, g12 + x, g22 + x, ex + x, ey + x, state + x, u1 + x, u2 + x,
                                             kLanes, k));
        if (x < w)
            count = vsubq_u32(count, update4(g11 + x, g12 + x, g22 + x, ex + x, ey + x, state + x, u1 + x, u2 + x,
                                             w - x, k));
        active += static_cast<double>(vaddvq_u32(count));
    }
    return active;
}

} // namespace oflow
