// Helpers shared by the NEON kernels: loads and stores of the first n lanes of a vector, lane
// masks and the gather of four scalars. None of them touches memory beyond the n elements it
// is given, which is how every kernel here meets its no-over-read contract at row ends.
#ifndef OFLOW_NEON_NEON_UTIL_HPP
#define OFLOW_NEON_NEON_UTIL_HPP

#include "neon/neon_arch.hpp" // <arm_neon.h> on AArch64, SIMDe on x86-64

namespace oflow {
namespace neon {

/// Floats per F32 vector.
const int kLanes = 4;

/// Lanes [0, n) from p[0 .. n), the others 0; reads exactly min(n, 4) floats (none for n <= 0).
inline float32x4_t load_n(const float* p, int n) {
    if (n >= kLanes) return vld1q_f32(p);
    float32x4_t v = vdupq_n_f32(0.0f);
    if (n > 0) v = vld1q_lane_f32(p, v, 0);
    if (n > 1) v = vld1q_lane_f32(p + 1, v, 1);
    if (n > 2) v = vld1q_lane_f32(p + 2, v, 2);
    return v;
}

/// Stores lanes [0, min(n, 4)) of v to p; writes nothing else.
inline void store_n(float* p, float32x4_t v, int n) {
    if (n >= kLanes) {
        vst1q_f32(p, v);
        return;
    }
    if (n > 0) vst1q_lane_f32(p, v, 0);
    if (n > 1) vst1q_lane_f32(p + 1, v, 1);
    if (n > 2) vst1q_lane_f32(p + 2, v, 2);
}

/// All-ones in lanes [0, n), zero elsewhere (n may be <= 0 or >= 4).
inline uint32x4_t lanes_below(int n) {
    const int32x4_t idx = {0, 1, 2, 3};
    return vcltq_s32(idx, vdupq_n_s32(n));
}

/// v where m is set, 0 elsewhere.
inline float32x4_t keep(float32x4_t v, uint32x4_t m) {
    return vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(v), m));
}

/// (x, x + 1, x + 2, x + 3) as floats (exact for |x| < 2^24).
inline float32x4_t column_index(int x) {
    const float32x4_t step = {0.0f, 1.0f, 2.0f, 3.0f};
    return vaddq_f32(vdupq_n_f32(static_cast<float>(x)), step);
}

/// (p[i0], p[i1], p[i2], p[i3]): four scalar loads.
inline float32x4_t gather4(const float* p, int32x4_t i) {
    float32x4_t v = vdupq_n_f32(0.0f);
    v = vld1q_lane_f32(p + vgetq_lane_s32(i, 0), v, 0);
    v = vld1q_lane_f32(p + vgetq_lane_s32(i, 1), v, 1);
    v = vld1q_lane_f32(p + vgetq_lane_s32(i, 2), v, 2);
    v = vld1q_lane_f32(p + vgetq_lane_s32(i, 3), v, 3);
    return v;
}

/// Transposes the 4x4 matrix whose rows are r[0..3], in place.
inline void transpose4(float32x4_t r[4]) {
    const float32x4_t t0 = vtrn1q_f32(r[0], r[1]), t1 = vtrn2q_f32(r[0], r[1]);
    const float32x4_t t2 = vtrn1q_f32(r[2], r[3]), t3 = vtrn2q_f32(r[2], r[3]);
    r[0] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
    r[1] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
    r[2] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
    r[3] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
}

inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

} // namespace neon
} // namespace oflow

#endif
