// The photograph set's photometric conditions (tests/photo_set.cpp): what the light and the
// camera's exposure do to each frame of a pair or a stream. The flow (gt) is the motion's alone.
//
// Frame k of a sequence (a pair: k = 0, 1; a stream: k = 0..5), intensity v at pixel (x, y) of a
// w x h frame, c = ((w - 1) / 2, (h - 1) / 2), r the distance from a centre over the
// half-diagonal 0.5 sqrt(w^2 + h^2):
//   none       v
//   ramp       v * 1.015^k                        (auto-exposure ramp: +1.5 % a frame)
//   gain-noise k even: v; k odd: 1.06 v + 4 + N(0, 2.5)
//   vignette   k even: v (1 - 0.30 r^2), r from c; k odd: v (1 - 0.40 r^2), r from c + (0.1 w, 0)
// then clamped to [0, 255]. For a pair that is frame 1 = 1.015 x frame 0's exposure, frame 1 =
// 1.06 I + 4 + N, and two different vignettings; in a stream every consecutive pair sees the
// pair's change forward (k even -> odd) or backward (odd -> even), the ramp always forward. The
// noise is a seeded Gaussian hashed from (seed, k) and the pixel's position
// (core/synth.hpp's exposure), so the same arguments give the same bits.
#ifndef OFLOW_TESTS_PHOTO_LIGHT_HPP
#define OFLOW_TESTS_PHOTO_LIGHT_HPP

#include <cstdint>

namespace phototest {

enum class Light : int { None = 0, Ramp, GainNoise, Vignette, Count };

/// "none", "ramp", "gain-noise", "vignette"; "unknown" for any other value.
const char* light_name(Light l);
/// Parses a name of light_name() into *out; false (out untouched) when unknown.
bool light_from_name(const char* name, Light* out);

/// Applies condition l to frame k (w x h floats, rows w apart), in place.
void apply_light(Light l, int k, int w, int h, uint32_t seed, float* frame);

/// The frame as a camera gives it: clamped to [0, 255], rounded to nearest (halves away from
/// zero, as tests/test_util.hpp's make_frame), n samples.
void to_gray8(const float* in, int n, uint8_t* out);

} // namespace phototest

#endif
