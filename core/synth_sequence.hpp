// Procedural frame sequences with the exact flow between every pair of consecutive frames, for
// tests of streams (one frame at a time). Deterministic (the same arguments give the same bits),
// no allocation: the caller passes the planes. Intensities are in [0, 255]; every plane is
// w x h with rows `pitch` floats apart (pitch >= w).
//
// Every sequence samples the default texture T of synth.hpp (textured at every pyramid scale)
// under a camera path: frame k is I_k(x) = T(A_k^-1(x)), where the similarity A_k (texture to
// image) is A_k = D_{k-1} o ... o D_0 o A_0, A_0 = identity. D_j is the per-frame step about the
// image centre c = ((w - 1) / 2, (h - 1) / 2): D_j(x) = c + p_j + z_j R(r_j) (x - c), with
// t = 2 pi j / 48 (j counts pairs from frame 0, also across a cut)
//   pan       p_j = 2.0 px * (cos(0.4 + t), sin(0.4 + t))   (|p_j| = 2 px, its direction turns)
//   rotation  r_j = 0.8 degree * cos(0.7 t)
//   zoom      z_j = exp(0.01 cos(0.5 t))                     (about 1.01 at j = 0)
// so consecutive pairs differ a little, and the accumulated rotation and zoom stay bounded for
// any k (-8.4..9.2 degrees, zoom 0.86..1.18: frames stay textured at every scale), while the
// view wanders over the texture (defined on the whole plane).
// The flow of pair k -> k+1 is gt(x) = A_{k+1}(A_k^-1(x)) - x = D_k(x) - x, exactly.
//
// Contract: for every pair k -> k+1 that has ground truth, I_{k+1}(x + gt(x)) == I_k(x) up to
// the texture's own evaluation (both frames sample one continuous texture), except
//   - moving-object: where the square occludes or disoccludes the background (pixels whose
//     target x + gt(x) falls on the other layer in frame k+1);
//   - exposure-ramp: the brightness change, which is not motion (undo it first: see below);
//   - where x + gt(x) leaves the frame.
// Every sample of a frame is T evaluated at one real point (never an interpolation), so the
// contract holds up to rounding (double arithmetic, float storage); a check that samples I_{k+1}
// between pixels pays for its own interpolation (tests/synth_sequence.cpp measures bilinear's).
#ifndef OFLOW_CORE_SYNTH_SEQUENCE_HPP
#define OFLOW_CORE_SYNTH_SEQUENCE_HPP

#include <cstddef>
#include <cstdint>

namespace oflow {
namespace synth {

enum class Sequence : int {
    // The camera path above, nothing else.
    CameraPath = 0,
    // Two layers with occlusion. Background: the camera path at half the motion (pan 1 px,
    // rotation 0.4 degree * cos(0.7 t), zoom exp(0.005 cos(0.5 t))). Foreground: a square of side
    // min(w, h) / 4 textured with T of seed ^ kSequenceForegroundSalt (its texture coordinate is
    // x - q_k), translating (no rotation) on an ellipse about the centre: its top-left corner is
    // q_k = c - side / 2 + (rx sin(2 pi k / 40), ry cos(2 pi k / 40)), rx = min(0.3 w, 30),
    // ry = min(0.3 h, 20): up to 4.7 px per frame (3.1..4.5 at 96x72), always inside the frame.
    // A pixel x is in the square in frame k when q_k <= x < q_k + side (each axis). gt at x is the
    // motion of the layer visible at x in frame k (synth.hpp's Occlusion convention): q_{k+1} - q_k
    // inside the square, D_k(x) - x (the background's step) outside it.
    MovingObject = 1,
    // The camera path with a slow brightness ramp: I_k = clamp(g_k * T(A_k^-1(x)) + o_k, 0, 255)
    // with g_k = 1 + kExposureGainStep * k and o_k = kExposureOffsetStep * k grey levels. The gt
    // is the motion only; the contract holds for (I - o_k) / g_k where I is not clamped.
    ExposureRamp = 2,
    // The camera path, cut at frame cut = sequence_cut(SceneCut) = kSceneCutFrame: frames before
    // it are camera-path's; from it on they sample T of seed ^ kSceneCutSalt under
    // A_k = D_{k-1} o ... o D_cut o S, S = rotation by 30 degrees about c, then the shift
    // (57.3, -31.9) px. The pair cut-1 -> cut has no gt; every other pair's is D_k(x) - x.
    SceneCut = 3,
    Count = 4
};

/// ExposureRamp's constants: frame k's gain is 1 + 0.03 k, its offset 0.5 k grey levels.
const double kExposureGainStep = 0.03;
const double kExposureOffsetStep = 0.5;
/// SceneCut's first frame of the new scene.
const int kSceneCutFrame = 4;
/// Texture seeds derived from the caller's seed: the moving object's, the scene after the cut.
const uint32_t kSequenceForegroundSalt = 0x5bd1e995u;
const uint32_t kSceneCutSalt = 0x2545f491u;

/// Short name ("camera-path", "moving-object", "exposure-ramp", "scene-cut"); "unknown" for
/// any other value.
const char* sequence_name(Sequence s);

/// Parses a name from sequence_name() into *out (when out is not null); false when unknown.
bool sequence_from_name(const char* name, Sequence* out);

/// Frame k (k >= 0) of sequence s into img. seed varies the textures, not the motion. Costs
/// O(k) for the path plus one texture evaluation per pixel. Writes nothing when k < 0, w or h
/// is not positive, img is null or s is not a sequence.
void sequence_frame(Sequence s, int w, int h, uint32_t seed, int k, float* img, std::ptrdiff_t pitch);

/// The exact flow from frame k to frame k + 1 into gu, gv. Returns false (planes untouched) when
/// that pair has no ground truth: it spans a scene cut (also false, writing nothing, for the
/// arguments sequence_frame() refuses). Either plane may be null to skip it.
bool sequence_flow(Sequence s, int w, int h, uint32_t seed, int k, float* gu, float* gv,
                   std::ptrdiff_t pitch);

/// The first frame of the new scene (k such that pair k-1 -> k spans the cut), or -1.
int sequence_cut(Sequence s);

} // namespace synth
} // namespace oflow

#endif
