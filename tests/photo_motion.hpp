// The photograph set's camera motions (tests/photo_set.cpp): for each motion the camera of every
// frame, as a homography from view pixels to the photograph (tests/photo_view.hpp's contract).
//
// Frame k's camera maps view pixel x of a w x h view, c = ((w - 1) / 2, (h - 1) / 2), to an
// offset from the photograph's centre in view pixels,
//   C_k(x) = J_k + t p + R(t theta) z^-t K(t kappa)(x - c),   t = k - (n - 1) / 2,
// n the motion's frame count, R a rotation, z the zoom (z > 1 magnifies frame by frame), K a
// keystone (x, y) -> (x, y) / (1 + kx x + ky y) (a tilt of the camera: the homography's
// perspective row), p the pan per frame and J_k a per-frame jitter (streams only, else 0); the
// photograph is then seen at `scale` photo pixels per view pixel: M_k = T(photo centre) S(scale) C_k.
// The path is centred on t = 0, so both ends of it need the same margin. The flow of a pair
// (k, k + 1) is C_{k+1}^-1 C_k - id, whatever the photograph and its scale. Per pair, 320x240
// (tests/photo_motion_check.cpp holds these):
//   small   pan (3.2, -2.0), rotation 0.7 deg, zoom 1.010               |gt| mean ~4, max <= 8
//   medium  pan (16.5, -7.5), rotation 1.8 deg, zoom 1.025, keystone    |gt| mean ~18, max <= 30
//   large   pan (41, -17), rotation 2.4 deg, zoom 1.03, keystone        |gt| mean ~45, max <= 60
//   stream  6 frames (5 pairs): pan (3.6, -2.0) a frame + jitter (+-0.5, +-0.35), rotation
//           0.6 deg and zoom 1.008 a frame                             |gt| mean ~4-5, max <= 8
#ifndef OFLOW_TESTS_PHOTO_MOTION_HPP
#define OFLOW_TESTS_PHOTO_MOTION_HPP

#include "photo_view.hpp"

namespace phototest {

enum class Move : int { Small = 0, Medium, Large, Stream, Count };

/// "small", "medium", "large", "stream"; "unknown" for any other value.
const char* move_name(Move m);
/// Parses a name of move_name() into *out; false (out untouched) when unknown.
bool move_from_name(const char* name, Move* out);

/// Frames of the motion: 2 (a pair), the stream's 6.
int move_frames(Move m);

/// C_k of the header for frame k (0 <= k < move_frames(m)) of a w x h view.
Homography move_camera(Move m, int k, int w, int h);

/// The largest |x| and |y| of C_k over the view's corners, every frame of every motion: the
/// half-extent, in view pixels, of what the photograph has to show.
void move_extent(int w, int h, double* ex, double* ey);

} // namespace phototest

#endif
