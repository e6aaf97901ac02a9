// Reference kernels of the Horn-Schunck / CLG family (contracts: core/hs_kernels.hpp).
#ifndef OFLOW_CORE_REF_HS_REF_HPP
#define OFLOW_CORE_REF_HS_REF_HPP

#include "core/hs_kernels.hpp"

namespace oflow {

void hs_derivatives_ref(const HsDerivArgs& a, int y0, int y1);
void hs_tensor_ref(const HsTensorArgs& a, int y0, int y1);
void hs_blur_h_multi_ref(const Plane* src, const Plane* dst, int n, const Gaussian1D& g, int y0, int y1);
void hs_blur_v_multi_ref(const Plane* src, const Plane* dst, int n, const Gaussian1D& g, int y0, int y1);
double hs_jacobi_ref(const HsJacobiArgs& a, int y0, int y1);
double clg_jacobi_ref(const HsJacobiArgs& a, int y0, int y1);
double clg_jacobi_plain_ref(const HsJacobiArgs& a, int y0, int y1);
void rb_split_ref(Plane src, Plane red, Plane black, int y0, int y1);
void rb_merge_ref(Plane red, Plane black, Plane dst, int y0, int y1);
double sor_half_sweep_ref(const HsSorArgs& a, int y0, int y1);
/// One pixel of each solver, the reference's arithmetic (the fast paths' border pixels use
/// them): writes the pixel's output, returns its change (du' - du)^2 + (dv' - dv)^2.
/// Jacobi: pixel (x, y); SOR: slot k of the colour's split row y.
double hs_jacobi_pixel_ref(const HsJacobiArgs& a, int x, int y);
double clg_jacobi_pixel_ref(const HsJacobiArgs& a, int x, int y);
double sor_pixel_ref(const HsSorArgs& a, int k, int y);

} // namespace oflow

#endif
