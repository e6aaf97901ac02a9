// The compact output formats of of_flow.format (api/oflow.h of_flow_format): one F32 flow
// component to its 16-bit element, and back. Integer operations on the float's bits only (no
// float arithmetic, no library call, no rounding mode), so the host (core/flow_driver.cpp
// write_output) and the device (cuda/flow_format_cuda.cu) compile the same code and give the
// same bits on every path, whatever the compiler's contraction or fast-math flags.
//
// Contracts:
//  - flow_to_f16: IEEE binary16, round to nearest, ties to even; magnitudes above 65504 (the
//    largest finite half) give +-65504, never Inf; below 2^-14 the subnormal halves (steps of
//    2^-24), below 2^-25 (and 2^-25 itself, a tie to even) signed zero. The sign of zero is kept.
//    NaN is not an input (the flow is finite on OK); it would give +-65504.
//  - flow_to_s10_5: round-half-even(px * 32) clamped to [-32768, 32767] as int16_t: 1/32 px,
//    [-1024, 1023.96875] px. -0 gives 0.
//  - f16_to_float, s10_5_to_float: exact (every element is a float).
#ifndef OFLOW_CORE_FLOW_FORMAT_HPP
#define OFLOW_CORE_FLOW_FORMAT_HPP

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define OF_FLOW_FMT_HD __host__ __device__ __forceinline__
#else
#define OF_FLOW_FMT_HD inline
#endif

namespace oflow {

/// Bytes of one element of of_flow_format f (its raw value; 0 for an unknown one).
inline unsigned flow_format_bytes(int32_t f) { return f == 0 ? 4u : (f == 1 || f == 2 ? 2u : 0u); }

OF_FLOW_FMT_HD uint32_t flow_float_bits(float v) {
#if defined(__CUDA_ARCH__)
    return static_cast<uint32_t>(__float_as_uint(v));
#else
    uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
#endif
}

OF_FLOW_FMT_HD float flow_bits_float(uint32_t b) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(b);
#else
    float v;
    std::memcpy(&v, &b, sizeof v);
    return v;
#endif
}

/// m >> shift rounded to nearest, ties to even (1 <= shift <= 31).
OF_FLOW_FMT_HD uint32_t flow_shift_rne(uint32_t m, uint32_t shift) {
    const uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1u);
    return q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
}

/// One flow component (px) as IEEE half bits: see the file's contract.
OF_FLOW_FMT_HD uint16_t flow_to_f16(float v) {
    const uint32_t b = flow_float_bits(v);
    const uint32_t sign = (b >> 16) & 0x8000u;
    const uint32_t a = b & 0x7FFFFFFFu;
    if (a >= 0x477FE000u) return static_cast<uint16_t>(sign | 0x7BFFu); // >= 65504: the clamp
    const uint32_t e = a >> 23;                                        // biased float exponent
    if (e >= 113) {                                                     // >= 2^-14: a normal half
        // Rebias (127 -> 15) and drop 13 mantissa bits; a carry out of the mantissa moves into
        // the exponent, which is the correctly rounded result (and stays <= 0x7BFF below 65504).
        const uint32_t h = ((e - 112u) << 10) | ((a & 0x7FFFFFu) >> 13);
        const uint32_t rem = a & 0x1FFFu;
        return static_cast<uint16_t>(sign | (h + ((rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ? 1u : 0u)));
    }
    if (e < 102) return static_cast<uint16_t>(sign); // below 2^-25 (denormal floats included): zero
    // Subnormal half: the value in units of 2^-24 is m * 2^(e - 126), m the 24-bit significand.
    const uint32_t m = (a & 0x7FFFFFu) | 0x800000u;
    return static_cast<uint16_t>(sign | flow_shift_rne(m, 126u - e));
}

/// One flow component (px) as S10.5 (1/32 px): see the file's contract.
OF_FLOW_FMT_HD int16_t flow_to_s10_5(float v) {
    const uint32_t b = flow_float_bits(v);
    const bool neg = (b >> 31) != 0u;
    const uint32_t a = b & 0x7FFFFFFFu;
    // |v| * 32 >= 32768 (|v| >= 1024, exponent >= 137): the clamp. 32767.5 <= v*32 < 32768 would
    // round to 32768 and clamp to 32767 as well, which the rounding below reaches on its own.
    if (a >= 0x44800000u) return static_cast<int16_t>(neg ? -32768 : 32767);
    const uint32_t e = a >> 23;
    // |v| * 32 = m * 2^(e - 150 + 5) = m >> (145 - e); below 1/64 px (e < 121) it rounds to 0,
    // and exactly 1/64 (e = 121, m = 2^23) is a tie that goes to 0 through the rounding below.
    if (e < 121) return 0;
    const uint32_t m = (a & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 145u - e; // 9 (|v| in [512, 1024)) .. 24 (|v| in [1/64, 1/32))
    uint32_t q = flow_shift_rne(m, shift);
    if (!neg && q > 32767u) q = 32767u;
    return static_cast<int16_t>(neg ? -static_cast<int32_t>(q) : static_cast<int32_t>(q));
}

/// IEEE half bits to float, exactly.
OF_FLOW_FMT_HD float f16_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1Fu;
    uint32_t m = h & 0x3FFu;
    if (e == 0x1Fu) return flow_bits_float(sign | 0x7F800000u | (m << 13)); // Inf / NaN (never produced)
    if (e != 0u) return flow_bits_float(sign | ((e + 112u) << 23) | (m << 13));
    if (m == 0u) return flow_bits_float(sign);
    // Subnormal: m * 2^-24; normalise into a float.
    uint32_t fe = 113u; // the float exponent of 2^-14, decremented per shift
    while ((m & 0x400u) == 0u) {
        m <<= 1;
        --fe;
    }
    return flow_bits_float(sign | (fe << 23) | ((m & 0x3FFu) << 13));
}

/// S10.5 to px, exactly.
OF_FLOW_FMT_HD float s10_5_to_float(int16_t q) { return static_cast<float>(q) * (1.0f / 32.0f); }

} // namespace oflow

#endif
