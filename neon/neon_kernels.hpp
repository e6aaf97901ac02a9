// The NEON kernels one by one (kernel_table_init_neon puts them in the table; the kernel
// checks in tests/neon call them directly too). Same contracts as the KernelTable entries of
// the same name (core/kernels.hpp); each file states its over-read contract.
#ifndef OFLOW_NEON_NEON_KERNELS_HPP
#define OFLOW_NEON_NEON_KERNELS_HPP

#include "core/hs_kernels.hpp"
#include "core/kernels.hpp"
#include "core/lk_kernels.hpp"
#include "neon/neon_f16_feature.hpp"

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
double tvl1_calc_u2_neon(const Tvl1IterArgs& a, const Tvl1Minor& b, int y0, int y1);
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

// lk_stages_neon.cpp (F32): the Lucas-Kanade per-level stages of core/lk_kernels.hpp.
void lk_scharr_neon(Plane src, Plane gx, Plane gy, int y0, int y1);
void lk_prewitt_neon(Plane src, Plane gx, Plane gy, int y0, int y1);
void lk_tensor_neon(const LkTensorArgs& a, int y0, int y1);
double lk_confidence_neon(const LkConfArgs& a, int y0, int y1);

// lk_box_neon.cpp (F32): LK's window sums by block running sums (their own order; that file
// states the bound against the reference's).
void lk_box_h_multi_neon(const Plane* src, const Plane* dst, int n, int radius, int y0, int y1);
void lk_box_v_multi_neon(const Plane* src, const Plane* dst, int n, int radius, int y0, int y1);

// lk_step_neon.cpp (F32): LK's per-step kernels, the residual products (bilinear taps gathered
// lane by lane) and the Newton step (2x2 in double, two lanes per vector).
void lk_residual_neon(const LkResidualArgs& a, int y0, int y1);
double lk_update_neon(const LkUpdateArgs& a, int y0, int y1);

// median_neon.cpp: the flow's 3x3 / 5x5 median (KernelTable::median_flow), the reference's value.
void median_flow_neon(Plane src, Plane dst, int size, int y0, int y1);

// The F16 kernels exist only where OF_NEON_F16 is defined (neon/neon_arch.hpp).
// tvl1_f16_neon.cpp: the duals are stored as halves (its top comment says where); u and the warp
// outputs stay F32.
#if defined(OF_NEON_F16)
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
