#include "core/kernels.hpp"

#include "core/ref/kernels_ref.hpp"

#include <cmath>

namespace oflow {

Gaussian1D make_gaussian(float sigma) {
    Gaussian1D g;
    if (!(sigma > 0.0f)) {
        g.radius = 0;
        g.k[0] = 1.0f;
        return g;
    }
    // Clamped before the cast: an infinite or huge sigma must not reach the conversion to int.
    const float reach = 3.0f * sigma;
    int r = reach < static_cast<float>(kMaxBlurRadius) ? static_cast<int>(std::ceil(reach)) : kMaxBlurRadius;
    if (r < 1) r = 1;
    g.radius = r;
    double sum = 0.0, w[kMaxBlurRadius + 1];
    for (int i = 0; i <= r; ++i) {
        w[i] = std::exp(-0.5 * i * i / (static_cast<double>(sigma) * sigma));
        sum += i == 0 ? w[i] : 2.0 * w[i];
    }
    for (int i = 0; i <= r; ++i) g.k[i] = static_cast<float>(w[i] / sum);
    return g;
}

void kernel_table_init_ref(KernelTable* t) {
    t->convert = convert_ref;
    t->blur_h = blur_h_ref;
    t->blur_v = blur_v_ref;
    t->resample = resample_ref;
    t->gradient = gradient_ref;
    t->tvl1_warp = tvl1_warp_ref;
    t->warp_image = warp_image_ref;
    t->tvl1_calc_u = tvl1_calc_u_ref;
    t->tvl1_calc_p = tvl1_calc_p_ref;
    t->tvl1_calc_u2 = tvl1_calc_u2_ref;
    t->upsample_flow = upsample_flow_ref;
    t->robust_sq = robust_sq_ref;
    t->robust_combine = robust_combine_ref;
    t->texture_energy = texture_energy_ref;
    t->census_noise_sum = census_noise_sum_ref;
    t->census_tvl1 = census_tvl1_ref;
    t->exposure_hist = exposure_hist_ref;
    t->map_range = map_range_ref;
    t->median_flow = median_flow_ref;
    t->tvl1_iter_rows = nullptr; // the reference runs the two half-stencils as two passes
    t->init_area = init_area_ref;
    t->init_cost = init_cost_ref;
    t->init_box_rows = init_box_rows_ref;
    t->init_choose = init_choose_ref;
    t->dual_bytes = sizeof(float);
}

} // namespace oflow
