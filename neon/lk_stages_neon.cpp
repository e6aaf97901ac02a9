// Lucas-Kanade per-level stages, NEON F32 (core/lk_kernels.hpp has the formulas and contracts):
// the Scharr and Prewitt gradients, the tensor products and the confidence (smaller eigenvalue
// per window area, validity and its count). The window sums are lk_box_neon.cpp's, the per-step
// kernels lk_step_neon.cpp's.
//
// Over-read: none. The gradient loads columns x - 1 .. x + 4 of a row directly only while they
// lie inside it; the first vector of a row and its tail go through a six-float copy of the
// clamped columns (which is also the border's replication); rows y - 1 and y + 1 are clamped.
// The tensor and the confidence use partial loads and stores at row ends (neon_util.hpp).
//
// Arithmetic: the reference's operations in its order, with the multiply-adds the reference
// compiles to fused (g++ on aarch64 contracts them: -ffp-contract=fast is C++'s default):
// gx = fma(dD, ws, fma(dU, ws, wc dC)) / div, then * 1/32 for Scharr (exact, as the compiled
// reference does) and an IEEE division by 6 for Prewitt; the confidence in double, two lanes
// per vector, with half^2 + B^2 fused as the reference's. The products of two floats and their
// differences are exact or rounded once in double whatever the contraction, so the confidence
// and the validity are the reference's bits; the gradient is too where the compiler fuses the
// reference as above (tests/neon/neon_lk_kernels.cpp checks within 4 ulps of the terms, and
// prints the largest difference: 0 with g++ 12).
//
// F16 (precision F16 on a CPU with FP16 arithmetic): no LK kernel computes in F16; the LK entry
// keeps cpu_f16 false and of_info says F32. Decided kernel by kernel, with u16 = 2^-11 (F16's unit
// roundoff; its spacing is 0.125 from 128 to 256, its largest value 65504), on frames of the
// 0..255 scale (after the default local normalisation: 128 +- 20 per local z-score). The
// measurements are tests/neon/lk_f16_study's: one kernel at a time rounds its inputs and every
// operation to F16 on the reference path (LK defaults, the seven synthetic cases at 160x120, the
// same with a textureless centre of noise sigma 1 and 3, and a 6 px translation), against F32:
//  - window sums: not accurate. A window of 121 squared gradients of 0..255 edges sums to 2e6
//    with robust none (16256 each); after the local normalisation the largest measured products
//    are 393 (tensor) and 1400 (residual), whose sums over 121 pixels reach 4.8e4 and 1.7e5; and
//    (s - 1) u16 per pass is 0.5 % at s = 11.
//  - confidence, Newton step: double by contract (the products of two F32 window sums are exact
//    there, det = g11 g22 - g12^2 cancels). Not F16.
//  - residual: not accurate. F16 taps of a 0..255 frame carry up to 0.0625 each, on a residual
//    it = I1w - I0 that the steps drive to zero: measured mean EPE +0.0003 to +0.0009 px, +0.0015
//    px (+7 %) on the 6 px translation, flows up to 1.6 px from F32's. Its products g (it - g.u)
//    reach |g|^2 |u|: 1400 measured, but past 65504 from |u| = 4 px on a 0/255 edge with robust
//    none (|g| = 127.5). The interpolation relative to the first tap (a - I0 in F32, the
//    corrections fx (b - a), ... in F16) is accurate (mean |du| <= 1.8e-4 px) but saves nothing:
//    it is 6 of the 118 instructions per four pixels (neon/README.md), the 16 lane loads and
//    the lane moves of the gather are the cost, and F16 would do those 12 per eight pixels in 6
//    after 8 conversions of the gathered taps and 2 of the result.
//  - gradient: accurate enough for the flow (mean EPE within 0.0005 px, mean |du| 2.2e-4 to
//    3.4e-3 px) but not for the confidence output (OF_VALID_CONFIDENCE_F32): up to 2.5 % off,
//    validity changed on 0.005 % of the pixels near min_eigen; a Scharr value is off by up to
//    about 0.2 (the pixels' rounding, 0.0625 of it; the rest in the sums: 10 dC reaches 2550,
//    where F16's spacing is 2), against F32's 1.5e-5. And it runs once per level: F16 would take
//    about 43 instructions per eight pixels (three F32 row chunks converted, ext for the
//    neighbours, 14 F16 operations, the outputs widened) where the F32 loop takes 54: under
//    0.5 % of a level's instructions with 10 Newton steps (neon/README.md's counts).
//  - tensor products: accurate (mean |du| <= 3.7e-4 px, confidence within 2.4e-4) but the F16
//    form costs more than F32's three multiplies per four pixels (two narrowings in, six
//    widenings out), and gx^2 overflows from |gx| = 256 on (F32 frames may exceed 0..255:
//    config_check allows 1e6).
#include "neon/neon_kernels.hpp"

#include "neon/neon_util.hpp"

namespace oflow {
namespace {

using namespace neon;

// Columns x - 1 .. x + 4 of a row of width w, clamped into it: v[0] at x - 1, v[1] at x, v[2]
// at x + 1 (each four lanes). Reads only columns inside the row.
struct Cols3 {
    float32x4_t l, m, r;
};

inline Cols3 cols_direct(const float* row, int x) {
    return Cols3{vld1q_f32(row + x - 1), vld1q_f32(row + x), vld1q_f32(row + x + 1)};
}

inline Cols3 cols_clamped(const float* row, int x, int w) {
    float t[kLanes + 2];
    for (int j = 0; j < kLanes + 2; ++j) t[j] = row[clampi(x - 1 + j, 0, w - 1)];
    return Cols3{vld1q_f32(t), vld1q_f32(t + 1), vld1q_f32(t + 2)};
}

// fma(d2, ws, fma(d0, ws, wc d1)) / div: the reference's (ws d0 + wc d1) + ws d2, fused as g++
// compiles it; the division by a power of two as a multiplication (exact), else IEEE.
template <int kSide, int kCentre, int kDiv>
inline float32x4_t weigh(float32x4_t d0, float32x4_t d1, float32x4_t d2) {
    float32x4_t t = vmulq_n_f32(d1, static_cast<float>(kCentre));
    t = vfmaq_n_f32(t, d0, static_cast<float>(kSide));
    t = vfmaq_n_f32(t, d2, static_cast<float>(kSide));
    if ((kDiv & (kDiv - 1)) == 0) return vmulq_n_f32(t, 1.0f / static_cast<float>(kDiv));
    return vdivq_f32(t, vdupq_n_f32(static_cast<float>(kDiv)));
}

template <int kSide, int kCentre, int kDiv>
inline void gradient4(const Cols3& u, const Cols3& c, const Cols3& d, float* ox, float* oy, int n) {
    const float32x4_t gx = weigh<kSide, kCentre, kDiv>(vsubq_f32(u.r, u.l), vsubq_f32(c.r, c.l), vsubq_f32(d.r, d.l));
    const float32x4_t gy = weigh<kSide, kCentre, kDiv>(vsubq_f32(d.l, u.l), vsubq_f32(d.m, u.m), vsubq_f32(d.r, u.r));
    store_n(ox, gx, n);
    store_n(oy, gy, n);
}

template <int kSide, int kCentre, int kDiv>
void gradient3(Plane src, Plane gx, Plane gy, int y0, int y1) {
    const int w = src.w, h = src.h;
    for (int y = y0; y < y1; ++y) {
        const float* up = src.row(clampi(y - 1, 0, h - 1));
        const float* c = src.row(y);
        const float* dn = src.row(clampi(y + 1, 0, h - 1));
        float* ox = gx.row(y);
        float* oy = gy.row(y);
        int x = 0;
        if (w > kLanes + 1) { // column 0's left neighbour is clamped
            gradient4<kSide, kCentre, kDiv>(cols_clamped(up, 0, w), cols_clamped(c, 0, w), cols_clamped(dn, 0, w), ox,
                                            oy, kLanes);
            x = kLanes;
            for (; x + kLanes < w; x += kLanes) // columns x - 1 .. x + 4 inside the row
                gradient4<kSide, kCentre, kDiv>(cols_direct(up, x), cols_direct(c, x), cols_direct(dn, x), ox + x,
                                                oy + x, kLanes);
        }
        for (; x < w; x += kLanes) // the tail: right neighbours clamped, partial stores
            gradient4<kSide, kCentre, kDiv>(cols_clamped(up, x, w), cols_clamped(c, x, w), cols_clamped(dn, x, w),
                                            ox + x, oy + x, w - x);
    }
}

} // namespace

void lk_scharr_neon(Plane src, Plane gx, Plane gy, int y0, int y1) { gradient3<3, 10, 32>(src, gx, gy, y0, y1); }

void lk_prewitt_neon(Plane src, Plane gx, Plane gy, int y0, int y1) { gradient3<1, 1, 6>(src, gx, gy, y0, y1); }

void lk_tensor_neon(const LkTensorArgs& a, int y0, int y1) {
    const int w = a.gx.w;
    for (int y = y0; y < y1; ++y) {
        const float* gx = a.gx.row(y);
        const float* gy = a.gy.row(y);
        float* j11 = a.j[kG11].row(y);
        float* j12 = a.j[kG12].row(y);
        float* j22 = a.j[kG22].row(y);
        int x = 0;
        for (; x + kLanes <= w; x += kLanes) {
            const float32x4_t x4 = vld1q_f32(gx + x), y4 = vld1q_f32(gy + x);
            vst1q_f32(j11 + x, vmulq_f32(x4, x4));
            vst1q_f32(j12 + x, vmulq_f32(x4, y4));
            vst1q_f32(j22 + x, vmulq_f32(y4, y4));
        }
        if (x < w) {
            const int n = w - x;
            const float32x4_t x4 = load_n(gx + x, n), y4 = load_n(gy + x, n);
            store_n(j11 + x, vmulq_f32(x4, x4), n);
            store_n(j12 + x, vmulq_f32(x4, y4), n);
            store_n(j22 + x, vmulq_f32(y4, y4), n);
        }
    }
}

namespace {

// lambda_min(G) * inv_area of two pixels in double (lk_min_eigen's closed form, its fused
// multiply-add as compiled): 0 where lambda_max is not > 0 or lambda_min not > 0 (NaN included).
inline float64x2_t min_eigen2(float64x2_t A, float64x2_t B, float64x2_t C, float64x2_t inv_area) {
    const float64x2_t half = vdupq_n_f64(0.5);
    const float64x2_t bb = vmulq_f64(B, B);
    const float64x2_t det = vsubq_f64(vmulq_f64(A, C), bb); // both products exact: one rounding
    const float64x2_t hd = vmulq_f64(vsubq_f64(A, C), half);
    const float64x2_t lmax = vaddq_f64(vmulq_f64(vaddq_f64(A, C), half), vsqrtq_f64(vfmaq_f64(bb, hd, hd)));
    const float64x2_t lmin = vdivq_f64(det, lmax);
    const uint64x2_t ok = vandq_u64(vcgtq_f64(lmax, vdupq_n_f64(0.0)), vcgtq_f64(lmin, vdupq_n_f64(0.0)));
    return vmulq_f64(vreinterpretq_f64_u64(vandq_u64(vreinterpretq_u64_f64(lmin), ok)), inv_area);
}

// Four pixels of the confidence pass: conf and state stored (lanes [0, n)), the valid lanes
// counted into *count (one per lane, as unsigned).
inline void confidence4(const float* g11, const float* g12, const float* g22, float* conf, float* state, int n,
                        float64x2_t inv_area, float32x4_t min_eigen, uint32x4_t* count) {
    const float32x4_t a = load_n(g11, n), b = load_n(g12, n), c = load_n(g22, n);
    const float64x2_t lo = min_eigen2(vcvt_f64_f32(vget_low_f32(a)), vcvt_f64_f32(vget_low_f32(b)),
                                      vcvt_f64_f32(vget_low_f32(c)), inv_area);
    const float64x2_t hi = min_eigen2(vcvt_high_f64_f32(a), vcvt_high_f64_f32(b), vcvt_high_f64_f32(c), inv_area);
    const float32x4_t cf = vcvt_high_f32_f64(vcvt_f32_f64(lo), hi);
    const uint32x4_t valid = vandq_u32(vcgeq_f32(cf, min_eigen), lanes_below(n));
    store_n(conf, cf, n);
    store_n(state, keep(vdupq_n_f32(1.0f), valid), n);
    *count = vsubq_u32(*count, valid); // all-ones is -1
}

} // namespace

double lk_confidence_neon(const LkConfArgs& a, int y0, int y1) {
    const int w = a.conf.w;
    const float64x2_t inv_area = vdupq_n_f64(a.inv_area);
    const float32x4_t min_eigen = vdupq_n_f32(a.min_eigen);
    double valid = 0.0;
    for (int y = y0; y < y1; ++y) {
        const float* g11 = a.j[kG11].row(y);
        const float* g12 = a.j[kG12].row(y);
        const float* g22 = a.j[kG22].row(y);
        float* conf = a.conf.row(y);
        float* state = a.state.row(y);
        uint32x4_t count = vdupq_n_u32(0); // at most w / 4 + 1 per lane: no overflow
        int x = 0;
        for (; x + kLanes <= w; x += kLanes)
            confidence4(g11 + x, g12 + x, g22 + x, conf + x, state + x, kLanes, inv_area, min_eigen, &count);
        if (x < w) confidence4(g11 + x, g12 + x, g22 + x, conf + x, state + x, w - x, inv_area, min_eigen, &count);
        valid += static_cast<double>(vaddvq_u32(count));
    }
    return valid;
}

} // namespace oflow
