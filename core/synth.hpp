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
    FineTexture = 5,  // grass-like fine texture (wavelengths 2.5..7 px over weak shading) under a
                      // smooth field of up to ~3 px: near-flat from the 5th level down (1/16)
    CameraMotion = 6, // pan (2.5, -1.5) + rotation 1.2 degrees + zoom 1.012 about the centre
    Count = 7
};

/// Which texture a case samples: the default (sinusoids 6..80 px + spots, textured at every
/// pyramid scale) or the fine one (FineTexture's), for generate_with().
enum class Texture : int { Default = 0, Fine = 1 };

/// Brightness change applied to frame 1 after the motion: i1 = gain * i1 + offset + N(0, sigma),
/// clamped to [0, 255]. The noise is a seeded Gaussian (Box-Muller over the integer hash), so
/// the same arguments give the same bits. {1, 0, 0} is no change.
struct Exposure {
    double gain = 1.0, offset = 0.0, noise_sigma = 0.0;
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

/// As generate(), with the case's motion over texture `t` (FineTexture always uses the fine
/// one) and exposure `e` applied to frame 1 (NoiseGain's own gain and noise come first).
void generate_with(Case c, Texture t, const Exposure& e, int w, int h, uint32_t seed, float* i0,
                   float* i1, float* gt_u, float* gt_v, std::ptrdiff_t pitch);

/// Applies `e` to a w x h plane (rows pitch floats apart) in place; seed picks the noise.
void apply_exposure(const Exposure& e, int w, int h, uint32_t seed, float* img, std::ptrdiff_t pitch);

namespace detail {

/// The default texture T (synth.cpp's top comment), for generators built on it
/// (synth_sequence.cpp): defined on the whole plane, continuous, in [0, 255], a function of the
/// seed alone. Construction makes 48 libm calls; each evaluation about 25.
struct DefaultTexture {
    static const int kWaves = 16;
    double kx[kWaves], ky[kWaves], phase[kWaves];
    uint32_t seed;

    explicit DefaultTexture(uint32_t s);
    double operator()(double x, double y) const;
};

/// The fine texture (FineTexture's): grass-like, 48 sinusoids of wavelengths 2.5..7 px in random
/// directions (the blades; the 0.8-px presmoothing and one 2x reduction already attenuate them
/// strongly, and from the 5th level down nothing of them is left) over weak shading (three
/// sinusoids of 150..400 px, +-12 grey levels: all that a 16-px level still sees). Defined on
/// the whole plane, continuous, in [0, 255], a function of the seed alone.
struct FineTexture {
    static const int kFine = 48;
    double kx[kFine], ky[kFine], phase[kFine];
    double skx[3], sky[3], sphase[3];

    explicit FineTexture(uint32_t s);
    double operator()(double x, double y) const;
};

/// SmoothField's flow: four sinusoids per component, wavelengths 60..200 px, |flow| <= ~3 px,
/// |grad flow| < 0.35 so x + u(x) is invertible by fixed-point iteration. A function of the seed.
struct SmoothField {
    double kx[8], ky[8], phase[8], amp[8];

    explicit SmoothField(uint32_t s);
    void at(double x, double y, double* u, double* v) const;
};

/// The generators' PRNG: a uniform double in [0, 1) hashed from (seed, a, b, c) (splitmix64's
/// finaliser). Tags a below 64 are taken by this file's generators.
double unit(uint32_t seed, int64_t a, int64_t b, int64_t c);

/// apply_exposure()'s value for one sample `value` at plane position (x, y) (the noise is
/// hashed from seed, x and y), clamped to [0, 255]; for generators that write part of a frame.
double exposed(const Exposure& e, uint32_t seed, int64_t x, int64_t y, double value);

} // namespace detail

} // namespace synth
} // namespace oflow

#endif
