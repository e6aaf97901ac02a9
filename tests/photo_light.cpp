#include "photo_light.hpp"

#include "core/synth.hpp"

#include <cmath>
#include <cstddef>
#include <cstring>

namespace phototest {

namespace {

const char* const kNames[] = {"none", "ramp", "gain-noise", "vignette"};

// The per-frame noise seed: (seed, k) hashed into one 32-bit seed for core/synth.hpp's noise.
uint32_t frame_seed(uint32_t seed, int k) {
    return static_cast<uint32_t>(oflow::synth::detail::unit(seed, 64, k, 0) * 4294967296.0);
}

double clamp255(double v) { return v < 0.0 ? 0.0 : (v > 255.0 ? 255.0 : v); }

} // namespace

const char* light_name(Light l) {
    const int i = static_cast<int>(l);
    return i >= 0 && i < static_cast<int>(Light::Count) ? kNames[i] : "unknown";
}

bool light_from_name(const char* name, Light* out) {
    if (!name) return false;
    for (int i = 0; i < static_cast<int>(Light::Count); ++i)
        if (std::strcmp(name, kNames[i]) == 0) {
            if (out) *out = static_cast<Light>(i);
            return true;
        }
    return false;
}

void apply_light(Light l, int k, int w, int h, uint32_t seed, float* frame) {
    const bool odd = (k & 1) != 0;
    const double cx = 0.5 * (w - 1), cy = 0.5 * (h - 1), hd = 0.5 * std::sqrt(double(w) * w + double(h) * h);
    const double gain = std::pow(1.015, k);
    oflow::synth::Exposure e;
    e.gain = 1.06;
    e.offset = 4.0;
    e.noise_sigma = 2.5;
    const uint32_t nseed = frame_seed(seed, k);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            float& p = frame[static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)];
            double v = p;
            switch (l) {
            case Light::None: break;
            case Light::Ramp: v = clamp255(v * gain); break;
            case Light::GainNoise:
                if (odd) v = oflow::synth::detail::exposed(e, nseed, x, y, v); // clamps
                break;
            case Light::Vignette: {
                const double px = odd ? cx + 0.1 * w : cx, k2 = odd ? 0.40 : 0.30;
                const double dx = (x - px) / hd, dy = (y - cy) / hd;
                v = clamp255(v * (1.0 - k2 * (dx * dx + dy * dy)));
                break;
            }
            case Light::Count: break;
            }
            p = static_cast<float>(v);
        }
    }
}

void to_gray8(const float* in, int n, uint8_t* out) {
    for (int i = 0; i < n; ++i) {
        const double v = clamp255(static_cast<double>(in[i]));
        out[i] = static_cast<uint8_t>(std::lround(v));
    }
}

} // namespace phototest
