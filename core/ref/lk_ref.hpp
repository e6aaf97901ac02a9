// Reference kernels of the Lucas-Kanade family (contracts: core/lk_kernels.hpp).
#ifndef OFLOW_CORE_REF_LK_REF_HPP
#define OFLOW_CORE_REF_LK_REF_HPP

#include "core/lk_kernels.hpp"

namespace oflow {

void lk_scharr_ref(Plane src, Plane gx, Plane gy, int y0, int y1);
void lk_prewitt_ref(Plane src, Plane gx, Plane gy, int y0, int y1);
void lk_tensor_ref(const LkTensorArgs& a, int y0, int y1);
void lk_box_h_multi_ref(const Plane* src, const Plane* dst, int n, int radius, int y0, int y1);
void lk_box_v_multi_ref(const Plane* src, const Plane* dst, int n, int radius, int y0, int y1);
double lk_confidence_ref(const LkConfArgs& a, int y0, int y1);
void lk_residual_ref(const LkResidualArgs& a, int y0, int y1);
double lk_update_ref(const LkUpdateArgs& a, int y0, int y1);
void lk_census_products_ref(const LkCensusArgs& a, int y0, int y1);

/// The smaller eigenvalue of [a b; b c] (a, c >= 0 for a gradient tensor) in the closed form of
/// core/lk_kernels.hpp (LkConfArgs), never below 0. Shared by the confidence kernel and tests.
double lk_min_eigen(float a, float b, float c);

} // namespace oflow

#endif
