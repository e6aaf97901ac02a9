// The portable reference kernels: the ground truth every other path is tested against.
// Plain scalar C++, F32 storage, double only for reductions.
#ifndef OFLOW_CORE_REF_KERNELS_REF_HPP
#define OFLOW_CORE_REF_KERNELS_REF_HPP

#include "core/kernels.hpp"

namespace oflow {

void convert_ref(const of_image& src, Plane dst, int y0, int y1);
void blur_h_ref(Plane src, Plane dst, const Gaussian1D& g, int y0, int y1);
void blur_v_ref(Plane src, Plane dst, const Gaussian1D& g, int y0, int y1);
void resample_ref(Plane src, Plane dst, int y0, int y1);
void gradient_ref(Plane src, Plane gx, Plane gy, int y0, int y1);
void tvl1_warp_ref(const Tvl1WarpArgs& a, int y0, int y1);
double tvl1_calc_u_ref(const Tvl1IterArgs& a, int y0, int y1);
void tvl1_calc_p_ref(const Tvl1IterArgs& a, int y0, int y1);
void upsample_flow_ref(Plane src, Plane dst, float mult, int y0, int y1);
void robust_sq_ref(Plane src, Plane mean, Plane sq, int y0, int y1);
void robust_combine_ref(Plane src, Plane mean, Plane var, Plane dst, int y0, int y1);
double texture_energy_ref(Plane src, int y0, int y1);
void exposure_hist_ref(Plane src, unsigned* bins, int y0, int y1);
void clamp_range_ref(Plane p, float lo, float hi, int y0, int y1);
void median_flow_ref(Plane src, Plane dst, int size, int y0, int y1);

/// True when every pixel of an F32 image is finite (other formats: always true).
bool image_all_finite(const of_image& img);

} // namespace oflow

#endif
