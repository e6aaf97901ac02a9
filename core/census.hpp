// OF_ROBUST_CENSUS: a data term robust by construction (docs/accuracy.md), one solve per pair.
//
// Each pyramid level of both (range-clamped) frames is described at every pixel x by kCensusN
// channels, one per neighbour x + o_k of its 3x3 window, computed from the differences
// d_k(x) = I(x + o_k) - I(x) (borders replicate):
//   soft census (Zabih & Woodfill 1994 made differentiable, Meister et al. 2018):
//       c_k = d_k / sqrt(eta^2 + d_k^2)
// eta follows the frame's contrast and noise: eta = max(kCensusEtaMin, kCensusEtaNoise x sigma,
// kCensusEtaContrast x g0), sigma the level's noise estimated once per level and frame
// (Immerkaer 1996, census_noise_sigma()), g0 the RMS gradient of the frame's level 0. A gain g
// and offset b (I' = g I + b) scale d, g0 and sigma alike and leave every channel unchanged (up
// to the floor kCensusEtaMin); a monotonic change of brightness, local shading included, leaves
// the sign of every channel unchanged. A coarse level whose texture has blurred away has
// |d| << eta: channels near 0 and little data weight, so the regulariser carries the flow there
// (an eta from the level's own contrast blew such a level up to full weight: the matrix's
// small / shading cell ran 10 px off).
//
// The linearised data term at the warp's flow u0, per channel,
//     rho_k(u) = c1_k(x + u0) + a_k . (u - u0) - c0_k(x),
// a_k = S dc1_k/dx (chain rule through d_k, with the warped gradient of frame 1 at x and at
// x + o_k), S = kCensusScale (the channels' grey-level scale: it plays lambda's / alpha's role
// against contrast-free channels). The solvers take it as:
//  - HS, CLG: the motion tensor summed over the channels, J = sum_k [a_k; r_k][a_k; r_k]^T
//    (HsKernels::census_tensor, at the warp's flow: HS / CLG solve an increment), solved by the
//    coupled updates (rank two); LK: the same tensor per pixel at every Newton step, summed
//    over its window into G and b (core/lk_kernels.hpp's census paragraph, LkKernels::census_tensor
//    reusing HS's kernel), the step -G^-1 b and the validity rule on G with LK's min_eigen;
//  - TV-L1: the tensor's two eigen-channels (census_tvl1): with J2 = sum_k a_k a_k^T (2x2),
//    b = sum_k r_k a_k, lambda1 >= lambda2 its eigenvalues and e1, e2 their unit eigenvectors,
//    channel i is a_i = sqrt(lambda_i) e_i, rho_i(u) = (e_i . b) / sqrt(lambda_i) + a_i . (u - u0).
//    sum_i rho_i^2 equals sum_k rho_k^2 up to a constant (the same quadratic in u), and the L1
//    term |rho_1| + |rho_2| takes both directions of the window's structure. As a_1 is
//    orthogonal to a_2, TV-L1's threshold step over both is one closed-form step per channel
//    (KernelTable::tvl1_calc_u2). Measured (docs/accuracy.md section 20): the tensor's rank-one
//    part alone constrains one direction per pixel, and the occluding layers of the matrix ran
//    2.2 px off with it against 0.7-0.8 with both.
//
// The pyramid under OF_ROBUST_CENSUS (core/flow_driver.cpp, core/plan.cpp):
//  - levels >= 1 of both pyramids are normalised at their own scale before their census, as
//    OF_ROBUST_LEVEL_NORM normalises them (its floor), level 0 is not: a 3x3 census of a coarse
//    level whose texture has faded reads noise at the contrast-scaled eta, and the normalisation
//    gives that level its structure back (the matrix's shading cells: 7.4 px without it, 1.1 with);
//  - the automatic level count goes down to sides of kCensusMinSide (8) px instead of 16: a census
//    difference captures a pixel or two per level, so a 40-60 px motion needs the 5th and 6th
//    levels of a 320x240 frame (the photograph set's large class: 44 px with 4 levels, 2.6 with 6);
//  - the texture rule (config.min_texture) is off (texture_rule_applies, core/robust.hpp): the
//    normalised coarse levels keep the structure the rule would judge flat.
// Pixels whose x + u0 leaves the level carry no data term (a = 0, rho = 0), as the warp's.
// The CUDA path (cuda/census_cuda.cu, cuda/census_stats_cuda.cu) runs the same channels, tensor
// and scalars on the device (the formulas below are shared), TV-L1's iteration GLOBAL F32, LK's
// Newton steps GLOBAL F32 (cuda/lk_census_cuda.cuh).
#ifndef OFLOW_CORE_CENSUS_HPP
#define OFLOW_CORE_CENSUS_HPP

#include <cmath>

namespace oflow {

const int kCensusN = 8;               // channels: the 8 neighbours of the 3x3 window
const float kCensusEtaMin = 1.0f;     // grey levels
const float kCensusEtaNoise = 1.0f;   // eta / sigma
const float kCensusEtaContrast = 2.0f; // eta / the frame's RMS gradient at level 0
const float kCensusScale = 30.0f;     // the channels' scale (S)
const float kCensusMinorMin = 1e-6f;  // lambda2 / lambda1 below which the minor channel is off
const int kCensusMinSide = 8;         // the automatic level count's smallest side (px)

// The per-pixel and per-level formulas below are shared by the CPU paths and the CUDA kernels
// (cuda/census_cuda.cu, cuda/census_stats_cuda.cu): one definition, the same operations.
#if defined(__CUDACC__)
#define OF_CENSUS_HD __host__ __device__
#else
#define OF_CENSUS_HD
#endif

/// One channel's value and its derivative with respect to d: c = d / sqrt(eta^2 + d^2),
/// dc/dd = eta^2 / (eta^2 + d^2)^(3/2).
OF_CENSUS_HD inline void census_channel(float d, float eta2, float* c, float* dc) {
    const float q = eta2 + d * d;
    const float r = 1.0f / std::sqrt(q);
    *c = d * r;
    *dc = eta2 * r * r * r;
}

/// A w x h level's noise sigma from its census_noise_sum (the |Laplacian-difference| sum over
/// its interior pixels, Immerkaer 1996): sqrt(pi / 2) sum / (6 (w - 2) (h - 2)); 0 below 3 x 3.
OF_CENSUS_HD inline double census_noise_sigma(double sum, int w, int h) {
    if (w < 3 || h < 3) return 0.0;
    const double kPi = 3.14159265358979323846;
    return std::sqrt(0.5 * kPi) * sum / (6.0 * static_cast<double>(w - 2) * static_cast<double>(h - 2));
}

/// eta for a level whose noise is sigma, of a frame whose level-0 RMS gradient is rms_grad.
OF_CENSUS_HD inline float census_eta(double sigma, double rms_grad) {
    float e = kCensusEtaNoise * static_cast<float>(sigma);
    const float ec = kCensusEtaContrast * static_cast<float>(rms_grad);
    e = e > ec ? e : ec;
    return e > kCensusEtaMin ? e : kCensusEtaMin;
}

} // namespace oflow

#endif
