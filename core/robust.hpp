// The exposure-robust parts shared by every algorithm and every path (docs/accuracy.md):
//  - local contrast normalisation (OF_ROBUST_LOCAL_NORM) of each frame after conversion,
//    before the presmoothing: out = kRobustMid + kRobustGain (I - mean) / (sd + kRobustFloor),
//    mean = G*I and sd^2 = G*(I - mean)^2 with G a Gaussian of sigma = config.robust_sigma.
//    A gain g and offset b between the frames (I' = g I + b) give mean' = g mean + b and
//    sd' = g sd, so out' = out wherever sd >> kRobustFloor / g (the floor keeps noise in flat
//    areas from being blown up to full contrast);
//  - the texture rule of the automatic level count (config.min_texture): a level whose mean
//    squared central-difference gradient is below it carries nothing for the data term to
//    hold on to, and an offset or gain then drives the flow there (issue: 6 levels of a
//    512x512 grass frame ran 271 px off);
//  - the sanity bound of a level's flow before it is upsampled: the correspondence x + u of
//    every pixel stays within the level's frame extended by flow_margin();
//  - the median filter of the flow between warps (config.median_size).
#ifndef OFLOW_CORE_ROBUST_HPP
#define OFLOW_CORE_ROBUST_HPP

#include "core/plane.hpp"

namespace oflow {

const float kRobustMid = 128.0f;  // output mean, on the 0..255 scale the solvers expect
const float kRobustGain = 20.0f;  // output contrast: a unit local z-score becomes 20 grey levels
const float kRobustFloor = 4.0f;  // grey levels added to sd

/// The sanity bound's margin, in the level's pixels, for a w x h level: an eighth of the
/// shorter side plus one pixel. x + u is kept in [-margin, w - 1 + margin] (same for y).
inline float flow_margin(int w, int h) { return 0.125f * static_cast<float>(w < h ? w : h) + 1.0f; }

/// Coarsest level to solve for a frame of `levels` levels whose mean squared gradients are
/// energy[0..levels-1]: the largest l such that every level 1..l has energy >= min_texture
/// (level 0 always counts). min_texture 0 = levels - 1.
inline int coarsest_textured(const double* energy, int levels, double min_texture) {
    int l = 0;
    while (l + 1 < levels && !(energy[l + 1] < min_texture)) ++l;
    return l;
}

} // namespace oflow

#endif
