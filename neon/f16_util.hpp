// F16 helpers shared by the NEON F16 kernels (tvl1_f16_neon.cpp, hs_f16_neon.cpp): eight F32
// values as two float32x4_t and one float16x8_t. Only where OF_NEON_F16 is defined (ARMv8.2-A +
// FP16, or SIMDe's float16 on x86: neon/neon_arch.hpp); nothing here reads or writes past the counts it is given.
#ifndef OFLOW_NEON_F16_UTIL_HPP
#define OFLOW_NEON_F16_UTIL_HPP

#include "neon/neon_util.hpp"

#if defined(OF_NEON_F16)

namespace oflow {
namespace neon {

/// Halves per F16 vector.
const int kLanes16 = 8;

/// (lo, hi) rounded to F16 (round to nearest even), lo in lanes 0..3.
inline float16x8_t narrow(float32x4_t lo, float32x4_t hi) { return vcvt_high_f16_f32(vcvt_f16_f32(lo), hi); }
inline float32x4_t widen_lo(float16x8_t v) { return vcvt_f32_f16(vget_low_f16(v)); }
inline float32x4_t widen_hi(float16x8_t v) { return vcvt_high_f32_f16(v); }

/// Eight floats from p[0 .. n) into (lo, hi); lanes from n on are 0; reads min(n, 8) floats.
inline void load8(const float* p, int n, float32x4_t* lo, float32x4_t* hi) {
    *lo = load_n(p, n);
    *hi = n > kLanes ? load_n(p + kLanes, n - kLanes) : vdupq_n_f32(0.0f);
}
/// Lanes 0 .. min(n, 8) - 1 of (lo, hi) to p; writes nothing else.
inline void store8(float* p, float32x4_t lo, float32x4_t hi, int n) {
    store_n(p, lo, n);
    if (n > kLanes) store_n(p + kLanes, hi, n - kLanes);
}

} // namespace neon
} // namespace oflow

#endif // OF_NEON_F16
#endif
