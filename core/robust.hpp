// The exposure-robust parts shared by every algorithm and every path (docs/accuracy.md):
//  - the robust modes (of_robust): NONE; LOCAL_NORM (below, at full resolution); RANGE_MATCH
//    (the exposure match alone, frame 1 mapped by its gain and offset: range_map()); LEVEL_NORM
//    (the pyramids built from the range-clamped frames, the texture rule judged on them, then
//    every level normalised as below at its own scale with the floor level_norm_floor());
//    SHADE_NORM (each frame divided by its local mean over a wide window, shade_radius(), then
//    the exposure match as RANGE_MATCH: a smooth lighting field that differs between the
//    frames divides out);
//  - OF_ROBUST_PICK: the pair solved once per candidate mode (pick_candidates), the flow kept
//    whose warp best matches the judge images (both frames normalised as LOCAL_NORM at full
//    resolution): the mean over pixels of |N0(x) - N1(x + u)| (bilinear), kPickOutside for a
//    pixel whose x + u leaves the frame; a tie keeps the earlier candidate. The judge is
//    gain/offset invariant, so a flow that ran away under an exposure change scores badly,
//    and where nothing changed the raw frames' (NONE) more exact flow wins (docs/accuracy.md
//    section 13). Every path: the CPU's in core/flow_driver.cpp (solve_pair_pick), CUDA's in
//    cuda/cuda_frame.cu (solve_pick) with the judge in cuda/robust_pick_cuda.cu;
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
//    every pixel stays within the level's frame extended by flow_margin(); on level 0, the
//    output, the bound is output_margin(): no observable motion takes a pixel further out of
//    the frame than one frame size, so that bound never changes a flow a camera can see, and
//    it keeps every OK flow finite and within the frame's size (the fuzzer found a 2x1 frame
//    whose flow ran 23.7 px);
//  - the median filter of the flow between warps (config.median_size);
//  - exposure range matching, the pair-level first step of every mode but NONE: what one
//    frame clips (a gain drives its bright parts to 255, or its dark parts to 0), the other
//    frame still shows as texture, which then has no counterpart. From the quartiles of both
//    converted frames the gain g and offset b of frame 1 against frame 0 are estimated
//    (I1 ~ g I0 + b); where a frame has clipped pixels (>= 0.5 % of them at the top or the
//    bottom of the 0..255 scale) the other frame is clamped to the level that corresponds, so
//    that both lose the same content. A pair without clipped pixels is left as it is.
#ifndef OFLOW_CORE_ROBUST_HPP
#define OFLOW_CORE_ROBUST_HPP

#include "core/plane.hpp"
#include "oflow.h"

#include <cmath>
#include <cstddef>

namespace oflow {

const float kRobustMid = 128.0f;  // output mean, on the 0..255 scale the solvers expect
const float kRobustGain = 20.0f;  // output contrast: a unit local z-score becomes 20 grey levels
const float kRobustFloor = 4.0f;  // grey levels added to sd
/// OF_ROBUST_LEVEL_NORM's floor grows with each frame's interquartile range (ExposureMatch::spread):
/// floor = kRobustFloor + kLevelNormSpread * spread. A gain scales the spread as it scales sd, so
/// the output stays gain-invariant; a coarse level whose texture has blurred away (its sd far
/// under the frame's spread) is not blown up to full contrast (docs/accuracy.md section 13:
/// 0.5 measured against 0, 0.2, 0.3 on the matrix).
const float kLevelNormSpread = 0.5f;

/// The sanity bound's margin, in the level's pixels, for a w x h level: an eighth of the
/// shorter side plus one pixel. x + u is kept in [-margin, w - 1 + margin] (same for y).
inline float flow_margin(int w, int h) { return 0.125f * static_cast<float>(w < h ? w : h) + 1.0f; }

/// The bound's margin on level 0 (the output), for a w x h frame: the longer side. Every OK flow
/// has x + u in [-margin, w - 1 + margin] and y + v in [-margin, h - 1 + margin].
inline float output_margin(int w, int h) { return static_cast<float>(w > h ? w : h); }

/// The margin of level `level` of a w x h level: flow_margin() above level 0, output_margin() on it.
inline float level_margin(int level, int w, int h) { return level > 0 ? flow_margin(w, h) : output_margin(w, h); }

/// Whether the texture rule decides the coarsest level: automatic levels, min_texture > 0 and a
/// robust mode other than OF_ROBUST_CENSUS. Census normalises its coarse levels before their census
/// (core/census.hpp), so a level the rule judges flat on the range-matched pyramid still has its
/// structure there: measured with the rule on / off (docs/accuracy.md section 20), rotation-720p
/// (fine texture, flat from the 5th level) TV-L1 21.2 / 5.9-8.7 px, HS 21.2 / 1.4-2.5, CLG
/// 21.2 / 1.3-2.5, and every other matrix cell, the photograph set and the real pairs the same to
/// the last printed digit.
inline bool texture_rule_applies(unsigned levels_cfg, float min_texture, of_robust robust) {
    return levels_cfg == 0 && min_texture > 0.0f && robust != OF_ROBUST_CENSUS;
}

/// Coarsest level to solve for a frame of `levels` levels whose mean squared gradients are
/// energy[0..levels-1]: the largest l such that every level 1..l has energy >= min_texture
/// (level 0 always counts). min_texture 0 = levels - 1.
inline int coarsest_textured(const double* energy, int levels, double min_texture) {
    int l = 0;
    while (l + 1 < levels && !(energy[l + 1] < min_texture)) ++l;
    return l;
}

/// Histogram of a converted frame for the exposure match: kExposureBins bins of 1/4 grey
/// level over 0..256 (values outside clamp into the end bins). Integer counts, so any order of
/// accumulation gives the same bins on every path.
const int kExposureBins = 1024;
#if defined(__CUDACC__)
__host__ __device__ // the CUDA path's histogram kernel bins with it (cuda/robust_cuda.cu)
#endif
inline int exposure_bin(float v) {
    const float s = v * 4.0f;
    return s < 0.0f ? 0 : (s >= static_cast<float>(kExposureBins - 1) ? kExposureBins - 1 : static_cast<int>(s));
}

/// The clamp ranges the match chose for frame 0 and frame 1 (lo <= v <= hi; with active false
/// the frames are left as they are). gain and offset: the estimate of I1 ~ gain I0 + offset.
struct ExposureMatch {
    bool active;
    float lo[2], hi[2];
    double gain, offset;
    double spread[2]; // interquartile range of each frame (grey levels)
    bool mappable; // gain and offset were estimated (both frames textured, gain in [0.25, 4])
};

/// The match of a pair that has none: inactive, gain 1, offset 0, spread 0.
#if defined(__CUDACC__)
__host__ __device__
#endif
inline ExposureMatch no_exposure_match() {
    ExposureMatch m;
    m.active = false;
    m.lo[0] = m.lo[1] = 0.0f;
    m.hi[0] = m.hi[1] = 255.0f;
    m.gain = 1.0;
    m.offset = 0.0;
    m.spread[0] = m.spread[1] = 0.0;
    m.mappable = false;
    return m;
}

/// Pure function of the two histograms (kExposureBins counts each, n pixels per frame); the same
/// code runs on the host for every path (the CUDA path runs it in a one-thread kernel).
#if defined(__CUDACC__)
__host__ __device__
#endif
inline ExposureMatch exposure_match(const unsigned* h0, const unsigned* h1, unsigned long long n) {
    ExposureMatch m = no_exposure_match();
    if (n == 0) return m;
    const unsigned* h[2] = {h0, h1};
    double q[2][3];
    unsigned long long low[2], high[2];
    for (int f = 0; f < 2; ++f) {
        // Quartiles: the first bin whose running count reaches k n / 4 (bin centres).
        unsigned long long run = 0;
        int k = 1;
        for (int b = 0; b < kExposureBins && k <= 3; ++b) {
            run += h[f][b];
            while (k <= 3 && run * 4ull >= static_cast<unsigned long long>(k) * n) {
                q[f][k - 1] = (b + 0.5) * 0.25;
                ++k;
            }
        }
        low[f] = h[f][0] + h[f][1];                                   // v < 0.5
        high[f] = 0;
        for (int b = 1018; b < kExposureBins; ++b) high[f] += h[f][b]; // v >= 254.5
    }
    const double s0 = q[0][2] - q[0][0], s1 = q[1][2] - q[1][0];
    m.spread[0] = s0;
    m.spread[1] = s1;
    if (!(s0 >= 1.0) || !(s1 >= 1.0)) return m; // flat frames: nothing to estimate
    const double g = s1 / s0, b = q[1][1] - g * q[0][1];
    m.gain = g;
    m.offset = b;
    if (g < 0.25 || g > 4.0) return m;
    m.mappable = true;
    const unsigned long long many = n / 200ull + 1ull; // 0.5 %
    double lo0 = 0.0, hi0 = 255.0, lo1 = 0.0, hi1 = 255.0;
    if (high[1] >= many) hi0 = (255.0 - b) / g; // frame 1 clipped bright: so is frame 0 above this
    if (low[1] >= many) lo0 = (0.0 - b) / g;
    if (high[0] >= many) hi1 = g * 255.0 + b;
    if (low[0] >= many) lo1 = b;
    lo0 = lo0 < 0.0 ? 0.0 : lo0;
    lo1 = lo1 < 0.0 ? 0.0 : lo1;
    hi0 = hi0 > 255.0 ? 255.0 : hi0;
    hi1 = hi1 > 255.0 ? 255.0 : hi1;
    if (!(hi0 > lo0 + 1.0) || !(hi1 > lo1 + 1.0)) return m;
    m.active = lo0 > 0.0 || hi0 < 255.0 || lo1 > 0.0 || hi1 < 255.0;
    m.lo[0] = static_cast<float>(lo0);
    m.hi[0] = static_cast<float>(hi0);
    m.lo[1] = static_cast<float>(lo1);
    m.hi[1] = static_cast<float>(hi1);
    return m;
}

/// The floor of frame `frame`'s normalisation under OF_ROBUST_LEVEL_NORM (kLevelNormSpread).
#if defined(__CUDACC__)
__host__ __device__
#endif
inline float level_norm_floor(const ExposureMatch& m, int frame) {
    return kRobustFloor + kLevelNormSpread * static_cast<float>(m.spread[frame]);
}

/// OF_ROBUST_LEVEL_NORM's split of a pyramid of `levels` levels for an algorithm whose
/// Algorithm::level_norm_fine is `fine`: levels 0 .. result - 1 come from one fine level
/// normalised with the frame's window (level_norm_fine_base; floor kRobustFloor, window
/// robust_sigma frame px: a band-pass that keeps the detail at and near full scale), the levels
/// from result on are built from the frames as they are and normalised at their own scale
/// (robust_sigma in their px: they keep the coarse structure a full-resolution normalisation
/// removes). The two coarsest levels always keep their
/// own scale: the coarse-to-fine search starts there, and on a shallow pyramid (a small frame)
/// the second coarsest carries the capture range the coarsest's few patches do not (DIS,
/// 320x240 synthetic pairs, 4 levels: the full-resolution normalisation at level 2 took
/// ULTRAFAST's mean EPE over 7 cases from 0.356 to 0.379 px, FAST's from 0.289 to 0.307).
/// Every path splits the same way.
#if defined(__CUDACC__)
__host__ __device__
#endif
inline int level_norm_fine_levels(int fine, int levels) {
    const int most = levels - 2;
    return fine < 0 || most < 0 ? 0 : (fine > most ? most : fine);
}

/// The level the fine levels' normalisation runs at, for a solver whose finest level read is
/// `first` (0 with a warm start): one level finer than that (level 0 at the finest), so that
/// every fine level the solver reads is a normalised image resampled, never one normalised in
/// place at its own, coarser resolution (DIS: normalised in place at level 2 with the frame's
/// window, 0.75 level px, Middlebury RubberWhale's ULTRAFAST RMSE was 0.91 against 0.79; from
/// level 1 0.789, from level 0 0.775, at a quarter of the full-resolution normalisation's cost).
#if defined(__CUDACC__)
__host__ __device__
#endif
inline int level_norm_fine_base(int first) { return first > 1 ? first - 1 : 0; }

/// The window of that normalisation in level b's px: robust_sigma frame px.
#if defined(__CUDACC__)
__host__ __device__
#endif
inline float level_norm_fine_sigma(float robust_sigma, int b) { return robust_sigma / static_cast<float>(1 << b); }

/// Whether a robust mode starts with the exposure match of the pair (every mode but NONE; under
/// OF_ROBUST_PICK the candidates that do).
inline bool robust_matches_exposure(of_robust r) { return r != OF_ROBUST_NONE; }

/// OF_ROBUST_PICK's candidates, pick_count(algorithm) of them (at most kPickMax), in the order
/// they are solved (a tie keeps the earlier one): pick_candidates(algorithm)[i].
///  - HS, CLG, LK: local-norm (the former default, first so that a tie keeps it), none,
///    level-norm.
///  - TV-L1: none, level-norm, range-match and shade-norm, the last two with the median capped at
///    3 (pick_median). Range-match takes local-norm's place: measured on the whole matrix (CUDA
///    F32 and the reference, docs/accuracy.md section 13), no kept flow gets worse by more than
///    5 % and the occluding layers (none / gain-noise / ramp: 1.96 -> 0.97-1.07 px), the stereo
///    pair under a light change and the small motions under gain-noise and ramp get better.
///    Local-norm's band pass loses the weakly textured blocks of the occluding layers at every
///    sigma; the range match keeps them. Shade-norm, a fourth solve, matches frames whose
///    vignetting or lighting differs smoothly across the frame, which no global gain matches
///    (occlusion / shading 1.99 -> 0.97 px, rotation-720p 2.8-6.4 -> 2.4-5.4, no cell worse).
///    For HS the range-match swap loses rotation-720p (the judge then keeps range match's 21 px
///    flow over level-norm's 9.8), and CLG and LK gain nothing that holds on every path.
const int kPickMax = 4;
inline int pick_count(of_algorithm a) { return a == OF_ALGO_TVL1 ? 4 : 3; }
inline const of_robust* pick_candidates(of_algorithm a) {
    static const of_robust kTvl1[kPickMax] = {OF_ROBUST_NONE, OF_ROBUST_LEVEL_NORM, OF_ROBUST_RANGE_MATCH,
                                              OF_ROBUST_SHADE_NORM};
    static const of_robust kOthers[kPickMax] = {OF_ROBUST_LOCAL_NORM, OF_ROBUST_NONE, OF_ROBUST_LEVEL_NORM,
                                                OF_ROBUST_MAX_ENUM}; // [3]: never read (pick_count 3)
    return a == OF_ALGO_TVL1 ? kTvl1 : kOthers;
}
/// The largest median TV-L1's range-match and shade-norm candidates run with (pick_median).
const uint32_t kPickMedianCap = 3;
/// The median size (config.median_size) pick's candidate `candidate` runs with under algorithm a:
/// TV-L1's range-match and shade-norm candidates at most kPickMedianCap (median 5 costs
/// range-match the occluding layers: 2.05-2.51 px against 0.98-1.96 with 3, CUDA F32), every
/// other the configured size.
inline uint32_t pick_median(of_algorithm a, of_robust candidate, uint32_t median) {
    return a == OF_ALGO_TVL1 && (candidate == OF_ROBUST_RANGE_MATCH || candidate == OF_ROBUST_SHADE_NORM) &&
                   median > kPickMedianCap
               ? kPickMedianCap : median;
}
/// What a pixel whose x + u leaves the frame adds to the judge's sum (grey levels of the
/// normalised images, kRobustGain per unit z-score).
constexpr float kPickOutside = 10.0f;

/// One pixel's term of OF_ROBUST_PICK's judge, every path's (core/flow_driver.cpp pick_residual,
/// cuda/robust_pick_cuda.cu): |n1(xs, ys) - a|, n1 (w x h, rows `pitch` floats apart) read
/// bilinearly, the cell clamped so that the last row and column read their own pixel with
/// weight 1; kPickOutside where (xs, ys) leaves the frame.
#if defined(__CUDACC__)
__host__ __device__
#endif
inline float pick_term(const float* n1, std::ptrdiff_t pitch, int w, int h, float xs, float ys, float a) {
    if (!(xs >= 0.0f && xs <= static_cast<float>(w - 1) && ys >= 0.0f && ys <= static_cast<float>(h - 1)))
        return kPickOutside;
    const int cx = static_cast<int>(xs), cy = static_cast<int>(ys);
    const int ix = w > 1 ? (cx < w - 2 ? cx : w - 2) : 0;
    const int iy = h > 1 ? (cy < h - 2 ? cy : h - 2) : 0;
    const float fx = xs - static_cast<float>(ix), fy = ys - static_cast<float>(iy);
    const int ix1 = w > 1 ? ix + 1 : ix;
    const float* r0 = n1 + static_cast<std::ptrdiff_t>(iy) * pitch;
    const float* r1 = h > 1 ? r0 + pitch : r0;
    const float top = r0[ix] + fx * (r0[ix1] - r0[ix]);
    const float bot = r1[ix] + fx * (r1[ix1] - r1[ix]);
    const float d = top + fy * (bot - top) - a;
    return d < 0.0f ? -d : d;
}

/// The last value of of_robust (config_check and the CLI's names go up to it).
const of_robust kRobustLast = OF_ROBUST_CENSUS;
/// The robust mode's name as the CLI takes it ("none", "local-norm", "range-match",
/// "level-norm", "pick", "shade-norm"; "unknown" for any other value).
inline const char* robust_mode_name(of_robust r) {
    switch (r) {
    case OF_ROBUST_NONE: return "none";
    case OF_ROBUST_LOCAL_NORM: return "local-norm";
    case OF_ROBUST_RANGE_MATCH: return "range-match";
    case OF_ROBUST_LEVEL_NORM: return "level-norm";
    case OF_ROBUST_PICK: return "pick";
    case OF_ROBUST_SHADE_NORM: return "shade-norm";
    case OF_ROBUST_CENSUS: return "census";
    default: return "unknown";
    }
}
/// The judge's allowance for robust none under HS and CLG (their NONE judge is divided by
/// 1 + kPickNoneMargin before the comparison). Their normalised candidates' flows, fitted to
/// images normalised much as the judge's are, score 0.2-2.5 % lower where nothing changed even
/// when their flow is worse (rotation-zoom, HS: level-norm 1.6264 vs none 1.6434 on CUDA F32,
/// EPE 0.465 vs 0.260; 1.6041 vs 1.6433 on F16; CLG 1.6018 vs 1.6049, 0.307 vs 0.189). With 5 %
/// every choice it changes on the matrix (reference, CUDA F32 and F16) lowers the EPE (HS
/// translation / ramp 1.358 -> 1.064 on the reference, stereo / ramp 6.354 -> 5.410, ...;
/// docs/accuracy.md section 13). Not for TV-L1: on the reference translation cell its none
/// judge is 2.1921 against level-norm's 2.1908 with EPE 0.545 vs 0.037, so any margin keeps the
/// worse flow; nor for LK, where it only changes cells every mode fails. Where a candidate finds
/// the motion, a flow that ran away under a light change scores 1.5-3x the best and the margin
/// does not keep it; where none does (rotation-720p's fine texture, with the texture rule off),
/// the judge barely tells flows apart (13.9-14.3 for flows 15-56 px off) and the margin can.
const double kPickNoneMargin = 0.05;
/// The factor a candidate's judge is weighed by before the comparison (algorithm a).
inline double pick_weight(of_robust r, of_algorithm a) {
    return r == OF_ROBUST_NONE && (a == OF_ALGO_HS || a == OF_ALGO_CLG) ? 1.0 / (1.0 + kPickNoneMargin) : 1.0;
}

/// The texture rule (config.min_texture) for pick's candidate `candidate`: off (0) for
/// LEVEL_NORM, the configured value for the others. Level-norm's floor (4 + 0.5 IQR) keeps a
/// level whose texture has blurred flat from being blown up to full contrast, so its coarse
/// levels may be solved; robust none and local-norm still need the rule (their flat coarse levels
/// run away under a light change, section 1 of docs/accuracy.md). Measured on the matrix
/// (reference and CUDA F32, every algorithm, docs/accuracy.md section 13): rotation-720p (fine
/// texture, flat from the 5th level, 21 px off under every candidate with the rule) comes to
/// TV-L1 2.8 / 3.3 / 2.9 / 6.4 px over none / gain-noise / ramp / shading (reference; OpenCV's
/// DualTVL1 5.0 / 30.0 / 5.3 / 52.5) and LK 5.4 / 5.4 / 5.3 / 9.1, and no other cell's kept flow
/// gets worse. Off for all three candidates would find rotation-720p / none better still (TV-L1
/// 0.10), but HS and CLG then keep robust none's runaway under gain-noise and shading (52-64 px):
/// the judge cannot tell it from the others on that texture. OF_ROBUST_LEVEL_NORM on its own
/// keeps config.min_texture.
inline float pick_min_texture(of_robust candidate, float min_texture) {
    return candidate == OF_ROBUST_LEVEL_NORM ? 0.0f : min_texture;
}

/// How many times a pair is solved under robust mode r by algorithm a (the time model and the
/// budget count them).
inline int robust_passes(of_robust r, of_algorithm a) { return r == OF_ROBUST_PICK ? pick_count(a) : 1; }

/// OF_ROBUST_SHADE_NORM (core/ref/shade_norm_ref.cpp, cuda/shade_norm_cuda.cu): each converted
/// frame divided by its local mean, out = kShadeMid * I / (max(M, 0) + kShadeFloor), M three box
/// passes of radius shade_radius(w, h), whose variance r (r + 1) matches a Gaussian of sigma
/// kShadeWindow x the frame's shorter side. A multiplicative field smoother than the window
/// (vignetting, lens shading, a light falling off across the scene) divides out; texture finer
/// than it keeps its contrast (local-norm's sigma 3 band pass flattens everything coarser than a
/// few px). Then the exposure match as RANGE_MATCH.
const float kShadeWindow = 0.2f;
const float kShadeMid = 128.0f;
const float kShadeFloor = 4.0f;
inline int shade_radius(int w, int h) {
    const double sigma = static_cast<double>(kShadeWindow) * static_cast<double>(w < h ? w : h);
    const int r = static_cast<int>(std::sqrt(sigma * sigma + 0.25) - 0.5 + 0.5); // r (r + 1) ~ sigma^2, rounded
    return r < 1 ? 1 : r;
}

/// What the exposure step does to frame `frame` (0 or 1) under robust mode r: v -> clamp(v, lo,
/// hi) * scale + bias, in float, in that order (map_range_ref and the CUDA kernel share it).
/// Every mode clamps when the match is active; OF_ROBUST_RANGE_MATCH also maps frame 1 onto
/// frame 0's range, (v - offset) / gain, where the match could estimate them (mappable).
struct RangeMap {
    bool any;   // false: the frame is left exactly as it is
    float lo, hi, scale, bias;
};
#if defined(__CUDACC__)
__host__ __device__
#endif
inline RangeMap range_map(const ExposureMatch& m, int frame, of_robust r) {
    RangeMap t;
    t.lo = m.active ? m.lo[frame] : -3.0e38f;
    t.hi = m.active ? m.hi[frame] : 3.0e38f;
    t.scale = 1.0f;
    t.bias = 0.0f;
    const bool gain = (r == OF_ROBUST_RANGE_MATCH || r == OF_ROBUST_SHADE_NORM || r == OF_ROBUST_CENSUS) && frame == 1 && m.mappable;
    if (gain) {
        t.scale = static_cast<float>(1.0 / m.gain);
        t.bias = static_cast<float>(-m.offset / m.gain);
    }
    t.any = m.active || gain;
    return t;
}

} // namespace oflow

#endif
