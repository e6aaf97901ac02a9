// The confidence of the flow (of_flow.valid, api/oflow.h of_valid_format), shared by every path.
//
// Every algorithm: the residual confidence of the final level-0 flow u, computed after the
// solve (and after robust pick's choice) from N0, N1, both frames normalised as
// OF_ROBUST_LOCAL_NORM (robust pick's judge images, core/robust.hpp):
//   r(x) = |N0(x) - N1(x + u(x))|, N1 bilinear, kPickOutside where x + u leaves the frame
//          (pick_term: the judge's own term);
//   g(x) = |grad N0(x)|^2, central differences halved, neighbours clamped to the frame;
//   e(x) = B(r)(x) + kConfFlatWeight / (1 + B(g)(x)), B the mean over the (2 kConfRadius + 1)^2
//          window, of its pixels inside the frame (a separable mean: rows, then columns);
//   confidence = 2^(-e / kConfHalf), in (0, 1]; 0 where u is not finite.
// The first term marks occlusions, content that left the frame and wrong matches; the second
// flat regions, where a small residual says nothing. Chosen by measurement against the
// alternatives (negative divergence, target multiplicity, out-of-frame alone, forward-backward):
// docs/accuracy.md "Confidence".
//
// Lucas-Kanade: the residual confidence combined (combined_confidence: the smaller) with its own
// rule's, its level-0 plane of the smaller eigenvalue / window area, lambda, mapped by
// plane_confidence(lambda, min_eigen). Its eigenvalue alone does not rank errors: the windows
// with the most texture hold its occlusion boundaries (docs/accuracy.md "Confidence").
//
// The per-pixel maps are __host__ __device__: the CUDA kernels (cuda/confidence_cuda.cu,
// cuda/flow_format_cuda.cu) run the same code.
#ifndef OFLOW_CORE_CONFIDENCE_HPP
#define OFLOW_CORE_CONFIDENCE_HPP

#include "core/plane.hpp"

#include <cmath>

#ifdef __CUDACC__
#define OF_CONF_HD __host__ __device__ __forceinline__
#else
#define OF_CONF_HD inline
#endif

namespace oflow {

/// Half side of the window of the residual and gradient means (5 x 5).
const int kConfRadius = 2;
/// Weight of the flat-region term (grey levels of the normalised images).
const float kConfFlatWeight = 5.0f;
/// The error e (grey levels of the normalised images) whose confidence is 0.5.
const float kConfHalf = 5.0f;
/// of_config.min_confidence's default.
const float kConfDefaultMin = 0.5f;

/// The residual confidence of a pixel from its window means of r (mr) and g (mg).
OF_CONF_HD float residual_confidence(float mr, float mg) {
    const float e = mr + kConfFlatWeight / (1.0f + mg);
    const float c = exp2f(-e * (1.0f / kConfHalf));
    return c >= 0.0f && c <= 1.0f ? c : 0.0f; // NaN (a NaN flow's residual): no answer
}

/// A confidence from a plane value v >= 0 whose rule is "valid when v >= half" (LK: lambda and
/// min_eigen): v / (v + half), 0.5 at v = half; half 0: 1 (every value valid). Not finite: 0.
OF_CONF_HD float plane_confidence(float v, float half) {
    if (!(v >= 0.0f)) return 0.0f; // negative or NaN: no answer
    if (!(half > 0.0f) || v > 3.0e38f) return 1.0f;
    return v / (v + half); // half near FLT_MAX: v + half may overflow to inf, and c to 0
}

/// An algorithm with a rule of its own (LK): where its rule holds (own >= 0.5) the residual
/// confidence, else half of it (below 0.5: invalid at the default threshold, whatever the
/// residual). Its own value does not rank the pixels: LK's eigenvalue is largest on the
/// strongest texture, where its occlusion boundaries are, and a flat region that fails its rule
/// often keeps a good flow from the coarser levels (docs/accuracy.md "Confidence").
OF_CONF_HD float combined_confidence(float residual, float own) { return own >= 0.5f ? residual : 0.5f * residual; }

/// The mask of a confidence: 255 when c >= min_conf.
OF_CONF_HD unsigned char confidence_mask(float c, float min_conf) { return c >= min_conf ? 255 : 0; }

/// Rows y0..y1 of the two terms: r from n0, n1 and the flow (u1, u2), g from n0.
void conf_terms_ref(Plane n0, Plane n1, Plane u1, Plane u2, Plane r, Plane g, int y0, int y1);
/// Rows y0..y1 of the row means (window 2 kConfRadius + 1, its pixels inside the row) of a and b.
void conf_box_rows_ref(Plane a, Plane b, Plane ma, Plane mb, int y0, int y1);
/// Rows y0..y1 of the column means of ma and mb (the row means) and the confidence into out;
/// 0 where u1 or u2 is not finite.
void conf_finish_ref(Plane ma, Plane mb, Plane u1, Plane u2, Plane out, int y0, int y1);

} // namespace oflow

#endif
