// The NEON kernels one by one (kernel_table_init_neon puts them in the table; the kernel
// checks in tests/neon call them directly too). Same contracts as the KernelTable entries of
// the same name (core/kernels.hpp); each file states its over-read contract.
#ifndef OFLOW_NEON_NEON_KERNELS_HPP
#define OFLOW_NEON_NEON_KERNELS_HPP

#include "core/hs_kernels.hpp"
#include "core/kernels.hpp"

namespace oflow {

// pyramid_neon.cpp
void blur_h_neon(Plane src, Plane dst, const Gaussian1D& g, int y0, int y1);
void blur_v_neon(Plane src, Plane dst, const Gaussian1D& g, int y0, int y1);
void resample_neon(Plane src, Plane dst, int y0, int y1);
void upsample_flow_neon(Plane src, Plane dst, float mult, int y0, int y1);

// warp_neon.cpp
void gradient_neon(Plane src, Plane gx, Plane gy, int y0, int y1);
void tvl1_warp_neon(const Tvl1WarpArgs& a, int y0, int y1);

// tvl1_neon.cpp (F32)
double tvl1_calc_u_neon(const Tvl1IterArgs& a, int y0, int y1);
void tvl1_calc_p_neon(const Tvl1IterArgs& a, int y0, int y1);
double tvl1_iter_rows_neon(const Tvl1IterArgs& a, int y0, int y1);

// hs_stages_neon.cpp (F32): the HS / CLG per-warp stages of core/hs_kernels.hpp.
void hs_derivatives_neon(const HsDerivArgs& a, int y0, int y1);
void hs_tensor_neon(const HsTensorArgs& a, int y0, int y1);
void hs_blur_h_multi_neon(const Plane* src, const Plane* dst, int n, const Gaussian1D& g, int y0, int y1);
void hs_blur_v_multi_neon(const Plane* src, const Plane* dst, int n, const Gaussian1D& g, int y0, int y1);
void rb_split_neon(Plane src, Plane red, Plane black, int y0, int y1);
void rb_merge_neon(Plane red, Plane black, Plane dst, int y0, int y1);

// hs_solvers_neon.cpp (F32): the HS / CLG solvers of core/hs_kernels.hpp (the shared per-pixel
// solves: hs_solve_neon.hpp).
double hs_jacobi_neon(const HsJacobiArgs& a, int y0, int y1);
double clg_jacobi_neon(const HsJacobiArgs& a, int y0, int y1);
double sor_half_sweep_neon(const HsSorArgs& a, int y0, int y1);

// The F16 kernels exist only where __ARM_FEATURE_FP16_VECTOR_ARITHMETIC is defined.
// tvl1_f16_neon.cpp: the duals are stored as halves (its top comment says where); u and the warp
// outputs stay F32.
#if defined(__ARM_FEATURE_FP16_VECTOR_ARITHMETIC)
double tvl1_calc_u_f16_neon(const Tvl1IterArgs& a, int y0, int y1);
void tvl1_calc_p_f16_neon(const Tvl1IterArgs& a, int y0, int y1);
double tvl1_iter_rows_f16_neon(const Tvl1IterArgs& a, int y0, int y1);
/// Threshold-step guard of the F16 path: |grad I1w|^2 at or below it gives TH = 0.
const float kF16G2Min = 1e-3f;
// hs_f16_neon.cpp: HS's and CLG's Jacobi updates with the 9-point means in F16, the solves in
// F32; every plane stays F32.
double hs_jacobi_f16_neon(const HsJacobiArgs& a, int y0, int y1);
double clg_jacobi_f16_neon(const HsJacobiArgs& a, int y0, int y1);
#endif

} // namespace oflow

#endif
