// The one switch between the two homes of the NEON kernels. On AArch64 they are the compiler's
// own intrinsics (<arm_neon.h>). On x86-64 (OF_NEON_SIMDE, set by the build when OF_HAVE_NEON
// and the target is not AArch64) the same source compiles through SIMDe 0.8+, which implements
// each intrinsic with SSE (OF_SIMDE_FLAGS) under its NEON name (SIMDE_ENABLE_NATIVE_ALIASES).
// Every neon/*.cpp and tests/neon/*.cpp reaches the intrinsics through this header only.
//
// Also defines, for both homes:
//   OF_NEON_F16          1 where the F16 kernels (tvl1_f16_neon.cpp, hs_f16_neon.cpp) are built:
//                        ARMv8.2-A FP16 vector arithmetic (__ARM_FEATURE_FP16_VECTOR_ARITHMETIC),
//                        or SIMDe's float16 vectors on x86 with OF_SIMDE_F16 (emulated lane by
//                        lane: correct, 45-85x slower than F32; for the kernel checks only, the
//                        tables never install them there: neon_has_f16_arith() is false).
//   OF_NEON_OPAQUE(v)    makes the vector v opaque to the optimiser (an empty asm that claims to
//                        change it): a product passed through it is rounded before it is added,
//                        whatever the contraction setting (-ffp-contract=fast).
#ifndef OFLOW_NEON_NEON_ARCH_HPP
#define OFLOW_NEON_NEON_ARCH_HPP

#include "neon/neon_f16_feature.hpp"

#if defined(__aarch64__)
#include <arm_neon.h>
#define OF_NEON_OPAQUE(v) __asm__("" : "+w"(v)) // any AArch64 SIMD register
#elif defined(OF_NEON_SIMDE)
#if !defined(__x86_64__)
#error "neon/ through SIMDe is built and tested for x86-64 only"
#endif
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/arm/neon.h>
// SIMDe's 128-bit vectors are GCC/clang vector types held in SSE registers on x86-64.
#define OF_NEON_OPAQUE(v) __asm__("" : "+x"(v))
#else
#error "neon/ is built for aarch64, or for x86-64 through SIMDe (OF_NEON_SIMDE); see CMakeLists.txt OF_WITH_NEON"
#endif

#endif
