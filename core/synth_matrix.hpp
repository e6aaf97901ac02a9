// The accuracy matrix's frames: every motion (a row) under every photometric change (a column),
// each pair with its exact flow. Deterministic (the same arguments give the same bits), no
// allocation: the caller passes the planes. Intensities are in [0, 255].
//
// Contract (synth.hpp's): with Photometry::None both frames sample one continuous scene, frame 0
// I0(x) = T(x) and frame 1 I1(y) = T(W^-1(y)), W(x) = x + gt(x); every sample is the scene
// evaluated at one real point (never an interpolation). A scene is a stack of layers, front to
// back, each a region of frame 0 (the plane, a rectangle or a disc), a motion W_L and a texture:
//   frame 0 at x: the frontmost layer whose region holds x; gt(x) = W_L(x) - x;
//   frame 1 at y: the frontmost layer whose region holds W_L^-1(y); its texture there.
// So I1(x + gt(x)) == I0(x) wherever x's layer is also the frontmost one at x + gt(x) in frame 1
// (not occluded) and x + gt(x) lies in the frame. Occluded pixels keep their layer's gt (KITTI's
// and Middlebury's convention). Every motion but occlusion and stereo has a single layer.
//
// Motions, at their native size (motion_size); at another size rotation and zoom keep their
// angle and factor about the centre c = ((w - 1) / 2, (h - 1) / 2), translations, disparities
// and the smooth field keep their pixels, object outlines scale with the frame:
//   small           320x240   smooth random field (synth.hpp's SmoothField scaled so that the
//                             largest |flow| on a 4-px grid of the native frame is 5.5 px: the
//                             mean is 2..3 px), fine texture
//   translation     384x288   (26.4, -15.3) px (30.5 px), blocks texture
//   rotation-zoom   512x512   rotation 3.5 degrees and zoom 1.05 about c (up to ~29 px at the
//                             corners, mean ~16), default texture
//   rotation-720p   1280x720  rotation 3.1 degrees about c (~40 px at the corners), fine texture
//   camera-1080p    1920x1080 pan (7.5, -4.5) px, rotation 2.3 degrees, zoom 1.032 about c (up
//                             to ~60 px, mean ~30), default texture
//   occlusion       320x240   background (blocks) translating (6.3, 2.7) px behind a 90x70 rectangle
//                             (default texture of seed ^ kMatrixForegroundSalt, its coordinate
//                             relative to its corner) translating (-13.6, 9.4) px
//   stereo          448x256   a rectified pair: frame 1 is the right view, v = 0, u = -disparity.
//                             Background (blocks): a plane slanted in y, disparity
//                             8 + 20 y / (h - 1) px (8 at the top row, 28 at the bottom); in front
//                             of it, fronto-parallel: a disc at 35.4 px, a rectangle at 47.6 px, a
//                             disc at 60.3 px (each the foreground texture at its own offset), which
//                             occlude the background and each other
// Textures (each defined on the whole plane, continuous, a function of the seed): synth.hpp's
// default (sinusoids 6..80 px + spots) and fine (grass, 2.5..7 px), and blocks: a Mondrian of
// overlapping rotated rectangles and ellipses (half-sides 5..26 px, two per 40-px cell) of
// constant grey levels 20..235 over a grey of 110, edges smoothed over 1.5 px (so the texture is
// continuous), plus 0.08 of the default texture of another seed (about +-4 grey levels) so that
// flat areas are not exactly flat.
//
// Photometry, applied to the motion's frames (the gt is the motion's alone):
//   none
//   gain-noise   frame 1 = 1.06 I + 4 + N(0, 3)  (synth.hpp's exposure: a seeded Gaussian hashed
//                from the seed and the pixel's frame position)
//   ramp         frame 1 = 1.015 I  (one pair of a 1.5 %/frame auto-exposure ramp)
//   shading      frame 0 *= 1 - 0.30 r0^2, frame 1 *= (1 - 0.40 r1^2)(1 + 0.08 (x / w - 0.5)),
//                r the distance from a centre over the half-diagonal 0.5 sqrt(w^2 + h^2):
//                frame 0's centre is c, frame 1's c + (0.1 w, 0)
// and every changed frame is clamped to [0, 255].
#ifndef OFLOW_CORE_SYNTH_MATRIX_HPP
#define OFLOW_CORE_SYNTH_MATRIX_HPP

#include <cstddef>
#include <cstdint>

namespace oflow {
namespace synth {

enum class Motion : int { Small = 0, Translation, RotationZoom, Rotation720p, CameraPath1080p, Occlusion, Stereo, Count };
enum class Photometry : int { None = 0, GainNoise, Ramp, Shading, Count };

/// The foreground texture's seed (occlusion's rectangle, stereo's objects) is seed ^ this.
const uint32_t kMatrixForegroundSalt = 0x5bd1e995u;

/// "small", "translation", "rotation-zoom", "rotation-720p", "camera-1080p", "occlusion",
/// "stereo"; "unknown" for any other value.
const char* motion_name(Motion m);

/// "none", "gain-noise", "ramp", "shading"; "unknown" for any other value.
const char* photometry_name(Photometry p);

/// Parse a name of motion_name() / photometry_name() into *out (when out is not null); false
/// (out untouched) when unknown or null.
bool motion_from_name(const char* name, Motion* out);
bool photometry_from_name(const char* name, Photometry* out);

/// The motion's native size (the header's table); 0 x 0 for a value that is not a motion.
void motion_size(Motion m, int* w, int* h);

/// Fills i0, i1 (intensity, 0..255) and gt_u, gt_v (flow from i0 to i1, px) for a w x h frame,
/// each plane with rows `pitch` floats apart (pitch >= w). Any pointer may be null to skip that
/// plane (the gt alone costs no texture evaluation). seed varies the textures and the smooth
/// field, not the other motions. Writes nothing when w or h is not positive or m or p is not a
/// value of its enum.
void generate_cell(Motion m, Photometry p, int w, int h, uint32_t seed, float* i0, float* i1,
                   float* gt_u, float* gt_v, std::ptrdiff_t pitch);

/// As generate_cell(), for the window [x0, x0 + ww) x [y0, y0 + wh) of the w x h frame only:
/// plane row 0 holds frame row y0, plane column 0 frame column x0. Every sample is a function of
/// its frame position alone, so these are the bits generate_cell() writes there (tests check the
/// large frames on windows). A window may reach past the frame: the same functions continue
/// there. Writes nothing when ww or wh is not positive, or for generate_cell()'s refusals.
void generate_cell_window(Motion m, Photometry p, int w, int h, uint32_t seed, int x0, int y0, int ww,
                          int wh, float* i0, float* i1, float* gt_u, float* gt_v, std::ptrdiff_t pitch);

} // namespace synth
} // namespace oflow

#endif
