#include "flow_color.hpp"

#include "flo_io.hpp"

#include <cmath>

namespace cli {
namespace {

// Segment lengths chosen by Baker et al. for perceptual uniformity.
const int kRY = 15, kYG = 6, kGC = 4, kCB = 11, kBM = 13, kMR = 6;
const int kCols = kRY + kYG + kGC + kCB + kBM + kMR; // 55

struct Wheel {
    float rgb[kCols][3];
    Wheel() {
        int k = 0;
        auto put = [&](float r, float g, float b) {
            rgb[k][0] = r;
            rgb[k][1] = g;
            rgb[k][2] = b;
            ++k;
        };
        auto ramp = [](int i, int n) { return static_cast<float>(255 * i / n); };
        for (int i = 0; i < kRY; ++i) put(255, ramp(i, kRY), 0);
        for (int i = 0; i < kYG; ++i) put(255 - ramp(i, kYG), 255, 0);
        for (int i = 0; i < kGC; ++i) put(0, 255, ramp(i, kGC));
        for (int i = 0; i < kCB; ++i) put(0, 255 - ramp(i, kCB), 255);
        for (int i = 0; i < kBM; ++i) put(ramp(i, kBM), 0, 255);
        for (int i = 0; i < kMR; ++i) put(255, 0, 255 - ramp(i, kMR));
    }
};

const Wheel& wheel() {
    static const Wheel w;
    return w;
}

} // namespace

void flow_wheel_color(float fx, float fy, uint8_t rgb[3]) {
    const float pi = 3.14159265358979f;
    const float rad = std::sqrt(fx * fx + fy * fy);
    float a = std::atan2(-fy, -fx) / pi; // -1..1; +x is -1 (or +1 for fy = -0: fold it)
    if (a >= 1.0f) a = -1.0f;
    const float fk = (a + 1.0f) / 2.0f * static_cast<float>(kCols - 1);
    int k0 = static_cast<int>(fk);
    if (k0 < 0) k0 = 0;
    if (k0 > kCols - 1) k0 = kCols - 1;
    const int k1 = (k0 + 1) % kCols;
    const float f = fk - static_cast<float>(k0);
    for (int b = 0; b < 3; ++b) {
        const float c0 = wheel().rgb[k0][b] / 255.0f, c1 = wheel().rgb[k1][b] / 255.0f;
        float col = (1.0f - f) * c0 + f * c1;
        if (rad <= 1.0f)
            col = 1.0f - rad * (1.0f - col); // more saturated with radius
        else
            col *= 0.75f; // out of range
        rgb[b] = static_cast<uint8_t>(255.0f * col + 0.5f);
    }
}

void flow_to_rgb(const float* uv, std::size_t n, uint8_t* rgb, float max_radius) {
    if (!(max_radius > 0.0f)) {
        max_radius = 0.0f;
        for (std::size_t i = 0; i < n; ++i) {
            const float u = uv[2 * i], v = uv[2 * i + 1];
            if (flow_unknown(u, v)) continue;
            const float r = std::sqrt(u * u + v * v);
            if (std::isfinite(r) && r > max_radius) max_radius = r;
        }
        if (!(max_radius > 0.0f)) max_radius = 1.0f;
    }
    for (std::size_t i = 0; i < n; ++i) {
        const float u = uv[2 * i], v = uv[2 * i + 1];
        uint8_t* p = rgb + 3 * i;
        if (flow_unknown(u, v)) {
            p[0] = p[1] = p[2] = 0;
        } else {
            flow_wheel_color(u / max_radius, v / max_radius, p);
        }
    }
}

} // namespace cli
