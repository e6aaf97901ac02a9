// OF_NEON_F16: whether this build compiles the NEON F16 kernels (neon/neon_arch.hpp says where).
// Declarations only, no intrinsics: neon_kernels.hpp and the tests include it to see which
// kernels exist.
#ifndef OFLOW_NEON_NEON_F16_FEATURE_HPP
#define OFLOW_NEON_NEON_F16_FEATURE_HPP

#if defined(__ARM_FEATURE_FP16_VECTOR_ARITHMETIC) || (defined(OF_NEON_SIMDE) && defined(OF_NEON_SIMDE_F16))
#define OF_NEON_F16 1
#endif

#endif
