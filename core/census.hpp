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
//  - HS, CLG, LK: the motion tensor summed over the channels, J = sum_k [a_k; r_k][a_k; r_k]^T
//    (census_tensor());
//  - TV-L1: the tensor's rank-one part, one equivalent channel (census_compress()): with
//    J2 = sum_k a_k a_k^T (2x2), b = sum_k r_k a_k, lambda1 / e1 its largest eigenvalue /
//    eigenvector, the channel is a = sqrt(lambda1) e1, rho_c = (e1 . b) / sqrt(lambda1) - a . u0:
//    a single channel gives back exactly its own a and rho. TV-L1's threshold step then runs
//    unchanged (one closed form per pixel, no per-channel dual).
// Pixels whose x + u0 leaves the level carry no data term (a = 0, rho = 0), as the warp's.
#ifndef OFLOW_CORE_CENSUS_HPP
#define OFLOW_CORE_CENSUS_HPP

#include <cmath>

namespace oflow {

const int kCensusN = 8;               // channels: the 8 neighbours of the 3x3 window
const float kCensusEtaMin = 1.0f;     // grey levels
const float kCensusEtaNoise = 1.0f;   // eta / sigma
const float kCensusEtaContrast = 2.0f; // eta / the frame's RMS gradient at level 0
const float kCensusScale = 30.0f;     // the channels' scale (S)

/// One channel's value and its derivative with respect to d: c = d / sqrt(eta^2 + d^2),
/// dc/dd = eta^2 / (eta^2 + d^2)^(3/2).
#if defined(__CUDACC__)
__host__ __device__
#endif
inline void census_channel(float d, float eta2, float* c, float* dc) {
    const float q = eta2 + d * d;
    const float r = 1.0f / std::sqrt(q);
    *c = d * r;
    *dc = eta2 * r * r * r;
}

/// eta for a level whose noise is sigma, of a frame whose level-0 RMS gradient is rms_grad.
inline float census_eta(double sigma, double rms_grad) {
    float e = kCensusEtaNoise * static_cast<float>(sigma);
    const float ec = kCensusEtaContrast * static_cast<float>(rms_grad);
    e = e > ec ? e : ec;
    return e > kCensusEtaMin ? e : kCensusEtaMin;
}

} // namespace oflow

#endif
