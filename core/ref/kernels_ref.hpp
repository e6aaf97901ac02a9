// The portable reference kernels: the ground truth every other path is tested against.
// Plain scalar C++, F32 storage, double only for reductions.
#ifndef OFLOW_CORE_REF_KERNELS_REF_HPP
#define OFLOW_CORE_REF_KERNELS_REF_HPP

#include "core/census.hpp"
#include "core/kernels.hpp"
#include "core/status.hpp"

namespace oflow {

void convert_ref(const of_image& src, Plane dst, int y0, int y1);
void blur_h_ref(Plane src, Plane dst, const Gaussian1D& g, int y0, int y1);
void blur_v_ref(Plane src, Plane dst, const Gaussian1D& g, int y0, int y1);
void resample_ref(Plane src, Plane dst, int y0, int y1);
void gradient_ref(Plane src, Plane gx, Plane gy, int y0, int y1);
void tvl1_warp_ref(const Tvl1WarpArgs& a, int y0, int y1);
void warp_image_ref(Plane i0, Plane i1, Plane u1, Plane u2, Plane out, int y0, int y1);
double tvl1_calc_u_ref(const Tvl1IterArgs& a, int y0, int y1);
void tvl1_calc_p_ref(const Tvl1IterArgs& a, int y0, int y1);
double tvl1_calc_u2_ref(const Tvl1IterArgs& a, const Tvl1Minor& b, int y0, int y1);
void upsample_flow_ref(Plane src, Plane dst, float mult, int y0, int y1);
void robust_sq_ref(Plane src, Plane mean, Plane sq, int y0, int y1);
void robust_combine_ref(Plane src, Plane mean, Plane var, Plane dst, float floor, int y0, int y1);
double texture_energy_ref(Plane src, int y0, int y1);
void exposure_hist_ref(Plane src, unsigned* bins, int y0, int y1);
void map_range_ref(Plane p, const RangeMap& t, int y0, int y1);
void median_flow_ref(Plane src, Plane dst, int size, int y0, int y1);
// OF_ROBUST_SHADE_NORM (core/ref/shade_norm_ref.cpp, every CPU path): a box pass of radius r along
// rows y0..y1 or columns x0..x1 (clamped ends, dst != src), and img = kShadeMid img / (max(mean, 0)
// + kShadeFloor): the divisor is at least kShadeFloor, so |img| grows at most 32x (F32 frames of
// negative values included; kMaxF32Pixel bounds the input).
void shade_box_rows_ref(Plane src, Plane dst, int r, int y0, int y1);
void shade_box_cols_ref(Plane src, Plane dst, int r, int x0, int x1);
void shade_divide_ref(Plane img, Plane mean, int y0, int y1);
// OF_ROBUST_CENSUS (core/census.hpp, core/ref/census_ref.cpp): the noise estimate's sum over
// rows y0..y1 (Immerkaer 1996: |I * N| over the interior pixels; census_noise_sigma() of
// core/census.hpp turns it into sigma), and TV-L1's per-warp channel.
double census_noise_sum_ref(Plane src, int y0, int y1);
void census_tvl1_ref(const CensusArgs& a, int y0, int y1);

// config.init OF_INIT_DIS's fusion (core/init_dis.hpp, core/ref/init_fuse_ref.cpp): the
// KernelTable init_* contracts.
void init_area_ref(Plane src, Plane dst, float mult, int y0, int y1);
void init_cost_ref(Plane i0, Plane i1, Plane a1, Plane a2, Plane b1, Plane b2, Plane diff, int y0, int y1);
void init_box_rows_ref(Plane src, Plane dst, int r, int y0, int y1);
void init_choose_ref(Plane rows, Plane b1, Plane b2, Plane u1, Plane u2, int r, int y0, int y1);
struct CensusTensorArgs;
void census_tensor_ref(const CensusTensorArgs& a, int y0, int y1);

/// The largest F32 pixel magnitude the solvers take: far above the 0..255 scale (and above a
/// 16-bit range given as floats), far below where squares of differences and their Gaussian
/// sums overflow F32 (about 1e19). A finite 1e38 in an F32 frame made the flow NaN
/// (fuzz_api, regressions/api/f32_pixel_1e38_nan_flow).
constexpr float kMaxF32Pixel = 1.0e6f;

/// True unless the image is F32 and a pixel is NaN, Inf or of magnitude above kMaxF32Pixel
/// (other formats: always true).
bool image_pixels_valid(const of_image& img);
/// OF_ERR_NONFINITE for the frame named `frame` (prev or next) that image_pixels_valid refused:
/// one message for every path.
of_status fail_invalid_pixels(const ErrorSink& err, const char* frame);

} // namespace oflow

#endif
