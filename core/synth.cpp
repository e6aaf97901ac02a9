// Procedural frames with known flow (see synth.hpp for the contract).
//
// The texture is a sum of oriented sinusoids (wavelengths 6..80 px) and "spot noise": one
// Gaussian bump of random sign, size and position per 24-px cell, evaluated over the 3x3
// neighbouring cells. It is continuous, non-periodic and textured at every pyramid scale, so
// the warped frame can be evaluated exactly at any real position.
#include "synth.hpp"

#include <cmath>
#include <cstring>

namespace oflow {
namespace synth {
namespace {

const double kPi = 3.14159265358979323846;

// splitmix64 finaliser: a good 64-bit hash of the integer inputs.
uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

const double kCell = 24.0;

float to_f(double v) { return static_cast<float>(v); }

using detail::DefaultTexture; // the textures and the hash are defined below
using detail::FineTexture;
using detail::SmoothField;
using detail::unit;

// Sinusoid i of a texture or field: the wave vector of `wavelength` in a direction hashed with
// tag + 1 and a phase hashed with tag + 2 (tag itself draws the wavelength).
void wave(uint32_t s, int64_t tag, int i, double wavelength, double* kx, double* ky, double* phase) {
    double angle = 2.0 * kPi * unit(s, tag + 1, i, 0);
    *kx = 2.0 * kPi / wavelength * std::cos(angle);
    *ky = 2.0 * kPi / wavelength * std::sin(angle);
    *phase = 2.0 * kPi * unit(s, tag + 2, i, 0);
}

} // namespace

double detail::unit(uint32_t seed, int64_t a, int64_t b, int64_t c) {
    uint64_t h = mix(seed ^ mix(static_cast<uint64_t>(a) ^ mix(static_cast<uint64_t>(b) ^
                                                             mix(static_cast<uint64_t>(c)))));
    return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}

detail::DefaultTexture::DefaultTexture(uint32_t s) : seed(s) {
    for (int i = 0; i < kWaves; ++i)
        wave(s, 1, i, 6.0 * std::pow(80.0 / 6.0, unit(s, 1, i, 0)), &kx[i], &ky[i], &phase[i]);
}

double detail::DefaultTexture::operator()(double x, double y) const {
    double waves = 0.0;
    for (int i = 0; i < kWaves; ++i) waves += std::sin(kx[i] * x + ky[i] * y + phase[i]);
    waves *= 1.0 / std::sqrt(static_cast<double>(kWaves));
    double spots = 0.0;
    int64_t cx = static_cast<int64_t>(std::floor(x / kCell));
    int64_t cy = static_cast<int64_t>(std::floor(y / kCell));
    for (int64_t j = cy - 1; j <= cy + 1; ++j) {
        for (int64_t i = cx - 1; i <= cx + 1; ++i) {
            double px = (static_cast<double>(i) + unit(seed, 10, i, j)) * kCell;
            double py = (static_cast<double>(j) + unit(seed, 11, i, j)) * kCell;
            double sigma = 3.0 + 7.0 * unit(seed, 12, i, j);
            double sign = unit(seed, 13, i, j) < 0.5 ? -1.0 : 1.0;
            double dx = x - px, dy = y - py;
            spots += sign * std::exp(-(dx * dx + dy * dy) / (2.0 * sigma * sigma));
        }
    }
    double v = 128.0 + 48.0 * waves + 55.0 * spots;
    return v < 0.0 ? 0.0 : (v > 255.0 ? 255.0 : v);
}

detail::FineTexture::FineTexture(uint32_t s) {
    for (int i = 0; i < kFine; ++i)
        wave(s, 40, i, 2.5 * std::pow(7.0 / 2.5, unit(s, 40, i, 0)), &kx[i], &ky[i], &phase[i]);
    for (int i = 0; i < 3; ++i)
        wave(s, 43, i, 150.0 + 250.0 * unit(s, 43, i, 0), &skx[i], &sky[i], &sphase[i]);
}

double detail::FineTexture::operator()(double x, double y) const {
    double fine = 0.0, shade = 0.0;
    for (int i = 0; i < kFine; ++i) fine += std::sin(kx[i] * x + ky[i] * y + phase[i]);
    for (int i = 0; i < 3; ++i) shade += std::sin(skx[i] * x + sky[i] * y + sphase[i]);
    double v = 120.0 + 40.0 * fine / std::sqrt(static_cast<double>(kFine)) + 7.0 * shade;
    return v < 0.0 ? 0.0 : (v > 255.0 ? 255.0 : v);
}

detail::SmoothField::SmoothField(uint32_t s) {
    for (int i = 0; i < 8; ++i) {
        wave(s, 20, i, 60.0 + 140.0 * unit(s, 20, i, 0), &kx[i], &ky[i], &phase[i]);
        amp[i] = 0.4 + 0.35 * unit(s, 23, i, 0);
    }
}

void detail::SmoothField::at(double x, double y, double* u, double* v) const {
    double a = 0.0, b = 0.0;
    for (int i = 0; i < 4; ++i) a += amp[i] * std::sin(kx[i] * x + ky[i] * y + phase[i]);
    for (int i = 4; i < 8; ++i) b += amp[i] * std::sin(kx[i] * x + ky[i] * y + phase[i]);
    *u = a;
    *v = b;
}

const char* case_name(Case c) {
    switch (c) {
    case Case::Translation: return "translation";
    case Case::RotationZoom: return "rotation-zoom";
    case Case::SmoothField: return "smooth-field";
    case Case::Occlusion: return "occlusion";
    case Case::NoiseGain: return "noise-gain";
    case Case::FineTexture: return "fine-texture";
    case Case::CameraMotion: return "camera-motion";
    case Case::Count: break;
    }
    return "unknown";
}

bool case_from_name(const char* name, Case* out) {
    if (!name) return false;
    for (int i = 0; i < static_cast<int>(Case::Count); ++i) {
        Case c = static_cast<Case>(i);
        if (std::strcmp(name, case_name(c)) == 0) {
            if (out) *out = c;
            return true;
        }
    }
    return false;
}

double detail::exposed(const Exposure& e, uint32_t seed, int64_t x, int64_t y, double value) {
    double v = e.gain * value + e.offset;
    if (e.noise_sigma > 0.0) { // Box-Muller on two hashed uniforms
        const double u1 = 1.0 - unit(seed, 50, x, y), u2 = unit(seed, 51, x, y);
        v += e.noise_sigma * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
    }
    return v < 0.0 ? 0.0 : (v > 255.0 ? 255.0 : v);
}

void apply_exposure(const Exposure& e, int w, int h, uint32_t seed, float* img, std::ptrdiff_t pitch) {
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float* p = img + static_cast<std::ptrdiff_t>(y) * pitch + x;
            *p = to_f(detail::exposed(e, seed, x, y, static_cast<double>(*p)));
        }
}

void generate(Case c, int w, int h, uint32_t seed, float* i0, float* i1, float* gt_u,
              float* gt_v, std::ptrdiff_t pitch) {
    generate_with(c, Texture::Default, Exposure(), w, h, seed, i0, i1, gt_u, gt_v, pitch);
}

void generate_with(Case c, Texture t, const Exposure& e, int w, int h, uint32_t seed, float* i0,
                   float* i1, float* gt_u, float* gt_v, std::ptrdiff_t pitch) {
    const DefaultTexture def(seed);
    const FineTexture fine(seed);
    const bool use_fine = t == Texture::Fine || c == Case::FineTexture;
    auto tex = [&](double x, double y) { return use_fine ? fine(x, y) : def(x, y); };
    const DefaultTexture fg_def(seed ^ 0x5bd1e995u);
    const FineTexture fg_fine(seed ^ 0x5bd1e995u);
    auto fg = [&](double x, double y) { return use_fine ? fg_fine(x, y) : fg_def(x, y); };
    const SmoothField field(seed);
    const double cx = 0.5 * (w - 1), cy = 0.5 * (h - 1);
    // Rotation + zoom: x' = c + s R (x - c); its inverse is x = c + R^T (x' - c) / s.
    const bool cam = c == Case::CameraMotion;
    const double ang = (cam ? 1.2 : 3.0) * kPi / 180.0, zoom = cam ? 1.012 : 1.04;
    const double pan_u = cam ? 2.5 : 0.0, pan_v = cam ? -1.5 : 0.0;
    const double ca = std::cos(ang), sa = std::sin(ang);
    // Occlusion: a square of side min(w,h)/3 moving over a background moving differently.
    const double side = (w < h ? w : h) / 3.0;
    const double sq_x = 0.45 * w - 0.5 * side, sq_y = 0.5 * h - 0.5 * side;
    const double bg_u = -1.2, bg_v = 0.7, fg_u = 3.3, fg_v = 2.2;

    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const double X = x, Y = y;
            double u = 0.0, v = 0.0, a = 0.0, b = 0.0;
            switch (c) {
            case Case::Translation:
            case Case::NoiseGain:
                u = c == Case::Translation ? 2.37 : 1.73;
                v = c == Case::Translation ? -1.61 : 0.94;
                a = tex(X, Y);
                b = tex(X - u, Y - v);
                if (c == Case::NoiseGain) {
                    double noise = 8.0 * unit(seed, 30, x, y) - 4.0;
                    b = 1.05 * b + noise;
                    b = b < 0.0 ? 0.0 : (b > 255.0 ? 255.0 : b);
                }
                break;
            case Case::RotationZoom:
            case Case::CameraMotion: {
                // x' = c + pan + s R (x - c); inverse x = c + R^T (x' - c - pan) / s.
                double dx = X - cx, dy = Y - cy;
                u = cx + pan_u + zoom * (ca * dx - sa * dy) - X;
                v = cy + pan_v + zoom * (sa * dx + ca * dy) - Y;
                a = tex(X, Y);
                const double qx = dx - pan_u, qy = dy - pan_v; // inverse map of this pixel as x'
                double sx = cx + (ca * qx + sa * qy) / zoom;
                double sy = cy + (-sa * qx + ca * qy) / zoom;
                b = tex(sx, sy);
                break;
            }
            case Case::SmoothField:
            case Case::FineTexture: {
                field.at(X, Y, &u, &v);
                a = tex(X, Y);
                double sx = X, sy = Y; // solve s + f(s) = (X, Y)
                for (int it = 0; it < 40; ++it) {
                    double fu, fv;
                    field.at(sx, sy, &fu, &fv);
                    sx = X - fu;
                    sy = Y - fv;
                }
                b = tex(sx, sy);
                break;
            }
            case Case::Occlusion: {
                bool in0 = X >= sq_x && X < sq_x + side && Y >= sq_y && Y < sq_y + side;
                bool in1 = X >= sq_x + fg_u && X < sq_x + fg_u + side && Y >= sq_y + fg_v &&
                           Y < sq_y + fg_v + side;
                u = in0 ? fg_u : bg_u;
                v = in0 ? fg_v : bg_v;
                a = in0 ? fg(X - sq_x, Y - sq_y) : tex(X, Y);
                b = in1 ? fg(X - fg_u - sq_x, Y - fg_v - sq_y) : tex(X - bg_u, Y - bg_v);
                break;
            }
            case Case::Count: break;
            }
            const std::ptrdiff_t k = static_cast<std::ptrdiff_t>(y) * pitch + x;
            if (i0) i0[k] = to_f(a);
            if (i1) i1[k] = to_f(b);
            if (gt_u) gt_u[k] = to_f(u);
            if (gt_v) gt_v[k] = to_f(v);
        }
    }
    if (i1 && (e.gain != 1.0 || e.offset != 0.0 || e.noise_sigma > 0.0)) apply_exposure(e, w, h, seed, i1, pitch);
}

} // namespace synth
} // namespace oflow
