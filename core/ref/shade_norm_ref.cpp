// OF_ROBUST_SHADE_NORM's kernels (core/robust.hpp): the running box sums of the wide local mean and
// the division. Shared by every CPU path (the NEON path runs these too: O(1) work per pixel and
// pass, a small share of a solve), so both CPU paths give the same bits.
//
// A box pass of radius r over a line of n samples with clamped ends: out[i] = sum of
// in[clamp(i + k)], k = -r..r, divided by 2r + 1. The sum runs in double (added at the leading edge,
// subtracted at the trailing one), so it does not drift along a line of any length, and every
// output depends only on its own line: the result does not depend on how rows or columns are
// split between threads.
#include "core/ref/kernels_ref.hpp"
#include "core/robust.hpp"

namespace oflow {

namespace {

inline int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

} // namespace

void shade_box_rows_ref(Plane src, Plane dst, int r, int y0, int y1) {
    const int w = src.w;
    const double inv = 1.0 / static_cast<double>(2 * r + 1);
    for (int y = y0; y < y1; ++y) {
        const float* in = src.row(y);
        float* out = dst.row(y);
        double acc = 0.0;
        for (int k = -r; k <= r; ++k) acc += in[clamp_index(k, w)];
        for (int x = 0; x < w; ++x) {
            out[x] = static_cast<float>(acc * inv);
            acc += static_cast<double>(in[clamp_index(x + r + 1, w)]) - static_cast<double>(in[clamp_index(x - r, w)]);
        }
    }
}

void shade_box_cols_ref(Plane src, Plane dst, int r, int x0, int x1) {
    // Columns in blocks of kCols, so that each row's reads are contiguous.
    const int kCols = 16;
    const int h = src.h;
    const double inv = 1.0 / static_cast<double>(2 * r + 1);
    for (int xb = x0; xb < x1; xb += kCols) {
        const int n = x1 - xb < kCols ? x1 - xb : kCols;
        double acc[kCols];
        for (int j = 0; j < n; ++j) acc[j] = 0.0;
        for (int k = -r; k <= r; ++k) {
            const float* in = src.row(clamp_index(k, h)) + xb;
            for (int j = 0; j < n; ++j) acc[j] += in[j];
        }
        for (int y = 0; y < h; ++y) {
            float* out = dst.row(y) + xb;
            for (int j = 0; j < n; ++j) out[j] = static_cast<float>(acc[j] * inv);
            const float* lead = src.row(clamp_index(y + r + 1, h)) + xb;
            const float* trail = src.row(clamp_index(y - r, h)) + xb;
            for (int j = 0; j < n; ++j) acc[j] += static_cast<double>(lead[j]) - static_cast<double>(trail[j]);
        }
    }
}

void shade_divide_ref(Plane img, Plane mean, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
        float* p = img.row(y);
        const float* m = mean.row(y);
        for (int x = 0; x < img.w; ++x) p[x] = kShadeMid * p[x] / ((m[x] > 0.0f ? m[x] : 0.0f) + kShadeFloor);
    }
}

} // namespace oflow
