// Pyramid stages, reference path: separable Gaussian (clamped borders), bilinear resampling
// with aligned pixel centres, bilinear flow upsampling.
#include "core/ref/kernels_ref.hpp"

namespace oflow {
namespace {

inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// Bilinear sample of p at (x, y), coordinates clamped to the plane.
inline float bilinear(const Plane& p, float x, float y) {
    const float mx = static_cast<float>(p.w - 1), my = static_cast<float>(p.h - 1);
    x = x < 0.0f ? 0.0f : (x > mx ? mx : x);
    y = y < 0.0f ? 0.0f : (y > my ? my : y);
    const int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
    const int x1 = x0 + 1 < p.w ? x0 + 1 : x0, y1 = y0 + 1 < p.h ? y0 + 1 : y0;
    const float fx = x - static_cast<float>(x0), fy = y - static_cast<float>(y0);
    const float* r0 = p.row(y0);
    const float* r1 = p.row(y1);
    const float a = r0[x0] + fx * (r0[x1] - r0[x0]);
    const float b = r1[x0] + fx * (r1[x1] - r1[x0]);
    return a + fy * (b - a);
}

} // namespace

void blur_h_ref(Plane src, Plane dst, const Gaussian1D& g, int y0, int y1) {
    const int r = g.radius, w = src.w;
    for (int y = y0; y < y1; ++y) {
        const float* s = src.row(y);
        float* d = dst.row(y);
        for (int x = 0; x < w; ++x) {
            float acc = g.k[0] * s[x];
            if (x - r >= 0 && x + r < w) {
                for (int i = 1; i <= r; ++i) acc += g.k[i] * (s[x - i] + s[x + i]);
            } else {
                for (int i = 1; i <= r; ++i)
                    acc += g.k[i] * (s[clampi(x - i, 0, w - 1)] + s[clampi(x + i, 0, w - 1)]);
            }
            d[x] = acc;
        }
    }
}

void blur_v_ref(Plane src, Plane dst, const Gaussian1D& g, int y0, int y1) {
    const int r = g.radius, h = src.h, w = src.w;
    for (int y = y0; y < y1; ++y) {
        float* d = dst.row(y);
        const float* c = src.row(y);
        for (int x = 0; x < w; ++x) d[x] = g.k[0] * c[x];
        for (int i = 1; i <= r; ++i) {
            const float* up = src.row(clampi(y - i, 0, h - 1));
            const float* dn = src.row(clampi(y + i, 0, h - 1));
            const float k = g.k[i];
            for (int x = 0; x < w; ++x) d[x] += k * (up[x] + dn[x]);
        }
    }
}

// Rows [y0, y1) of dst = mult * (src resampled bilinearly to dst's size, pixel centres aligned).
static void resize_bilinear(Plane src, Plane dst, float mult, int y0, int y1) {
    const float sx = static_cast<float>(src.w) / static_cast<float>(dst.w);
    const float sy = static_cast<float>(src.h) / static_cast<float>(dst.h);
    for (int y = y0; y < y1; ++y) {
        float* d = dst.row(y);
        const float fy = (static_cast<float>(y) + 0.5f) * sy - 0.5f;
        for (int x = 0; x < dst.w; ++x)
            d[x] = mult * bilinear(src, (static_cast<float>(x) + 0.5f) * sx - 0.5f, fy);
    }
}

// 1.0f * v == v exactly, so resampling is the flow upsampling with no scaling.
void resample_ref(Plane src, Plane dst, int y0, int y1) { resize_bilinear(src, dst, 1.0f, y0, y1); }

void upsample_flow_ref(Plane src, Plane dst, float mult, int y0, int y1) {
    resize_bilinear(src, dst, mult, y0, y1);
}

} // namespace oflow
