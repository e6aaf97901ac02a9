// Reference kernels of the exposure-robust stages, shared by every algorithm: local contrast
// normalisation of a frame (OF_ROBUST_LOCAL_NORM), the per-level texture measure that bounds the
// automatic level count (config.min_texture), and the median filter of a flow component
// (config.median_size). Plain scalar C++, F32 planes, double only for the reduction.
#include "core/ref/kernels_ref.hpp"

#include "core/robust.hpp"

#include <algorithm>
#include <cmath>

namespace oflow {

void robust_sq_ref(Plane src, Plane mean, Plane sq, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
        const float* s = src.row(y);
        const float* m = mean.row(y);
        float* o = sq.row(y);
        for (int x = 0; x < src.w; ++x) {
            const float d = s[x] - m[x];
            o[x] = d * d;
        }
    }
}

void robust_combine_ref(Plane src, Plane mean, Plane var, Plane dst, float floor, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
        const float* s = src.row(y);
        const float* m = mean.row(y);
        const float* v = var.row(y);
        float* o = dst.row(y);
        for (int x = 0; x < src.w; ++x) {
            // var >= 0 up to rounding of the blur: clamp before the root.
            const float sd = std::sqrt(std::max(v[x], 0.0f));
            o[x] = kRobustMid + kRobustGain * (s[x] - m[x]) / (sd + floor);
        }
    }
}

double texture_energy_ref(Plane src, int y0, int y1) {
    double sum = 0.0;
    for (int y = y0; y < y1; ++y) {
        const float* r = src.row(y);
        const float* up = src.row(y > 0 ? y - 1 : 0);
        const float* dn = src.row(y + 1 < src.h ? y + 1 : src.h - 1);
        double row = 0.0;
        for (int x = 0; x < src.w; ++x) {
            const float gx = 0.5f * (r[x + 1 < src.w ? x + 1 : src.w - 1] - r[x > 0 ? x - 1 : 0]);
            const float gy = 0.5f * (dn[x] - up[x]);
            row += static_cast<double>(gx * gx + gy * gy);
        }
        sum += row;
    }
    return sum;
}

void exposure_hist_ref(Plane src, unsigned* bins, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
        const float* r = src.row(y);
        for (int x = 0; x < src.w; ++x) ++bins[exposure_bin(r[x])];
    }
}

void map_range_ref(Plane p, const RangeMap& t, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
        float* r = p.row(y);
        for (int x = 0; x < p.w; ++x) r[x] = std::fmin(std::fmax(r[x], t.lo), t.hi) * t.scale + t.bias;
    }
}

void median_flow_ref(Plane src, Plane dst, int size, int y0, int y1) {
    const int r = size / 2;
    float win[25];
    for (int y = y0; y < y1; ++y) {
        float* o = dst.row(y);
        for (int x = 0; x < src.w; ++x) {
            int n = 0;
            for (int dy = -r; dy <= r; ++dy) {
                const int yy = std::min(std::max(y + dy, 0), src.h - 1);
                const float* s = src.row(yy);
                for (int dx = -r; dx <= r; ++dx) win[n++] = s[std::min(std::max(x + dx, 0), src.w - 1)];
            }
            std::nth_element(win, win + n / 2, win + n);
            o[x] = win[n / 2];
        }
    }
}

} // namespace oflow
