// Procedural frame pairs with exactly known flow, for tests, the CLI's built-in frames and the
// self-test. Deterministic (seeded integer PRNG, no libm differences beyond rounding), no
// allocation: the caller passes the planes.
//
// Contract: for every case, I1(x + gt(x)) == I0(x) up to the texture's own interpolation-free
// evaluation, i.e. both frames sample one continuous texture T, I0(x) = T(x) and
// I1(y) = T(W^-1(y)) with W(x) = x + gt(x). Intensities are in [0, 255].
#ifndef OFLOW_CORE_SYNTH_HPP
#define OFLOW_CORE_SYNTH_HPP

#include <cstddef>
#include <cstdint>

namespace oflow {
namespace synth {

enum class Case : int {
    Translation = 0,  // subpixel translation (2.37, -1.61)
    RotationZoom = 1, // rotation 3 degrees + zoom 1.04 about the centre
    SmoothField = 2,  // smooth random field, |flow| up to ~3 px
    Occlusion = 3,    // background + a moving textured square: two layers, occlusion
    NoiseGain = 4,    // translation with brightness gain 1.05 and +-4 grey levels of noise
    Count = 5
};

/// Short name ("translation", "rotation-zoom", "smooth-field", "occlusion", "noise-gain").
const char* case_name(Case c);

/// Parses a name from case_name(); false when unknown.
bool case_from_name(const char* name, Case* out);

/// Fills i0, i1 (intensity, 0..255) and gt_u, gt_v (flow from i0 to i1, in pixels), each a
/// w x h plane with rows `pitch` floats apart (pitch >= w). Any pointer may be null to skip it.
/// seed varies the texture and the random parts; the same arguments give the same bits.
void generate(Case c, int w, int h, uint32_t seed, float* i0, float* i1, float* gt_u,
              float* gt_v, std::ptrdiff_t pitch);

} // namespace synth
} // namespace oflow

#endif
