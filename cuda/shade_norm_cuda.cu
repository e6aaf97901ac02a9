// OF_ROBUST_SHADE_NORM on the device (core/robust.hpp; the CPU's kernels are
// core/ref/shade_norm_ref.cpp): three box passes of radius r over the converted frame, rows then
// columns each time, and the division img = kShadeMid img / (max(mean, 0) + kShadeFloor).
// Each thread owns kShadeSegment outputs of one row (a row pass) or one column (a column pass; a
// warp's loads are then contiguous): it sums its first window in double, then runs the sum along
// its segment as the reference does along the whole line (added at the leading edge, subtracted
// at the trailing one; clamped ends). The reference starts its sum once per line, so the two
// sums differ by double rounding only (about 1e-16 relative; the F32 mean they round to is almost
// always the same). This file is compiled without mul+add contraction (cuda/CMakeLists.txt). One
// thread per line ran 5.3 ms for both 1080p frames on an H200 (a few SMs busy); segments of 64
// give every SM work.
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_layout.hpp"

#include "core/robust.hpp"

namespace oflow {
namespace cuda {
namespace {

const int kShadeThreads = 128;
/// Outputs per thread along a line: each thread starts its own window sum (2r + 1 loads) and then
/// runs kShadeSegment steps, so a line of n samples is ceil(n / kShadeSegment) threads.
const int kShadeSegment = 64;

int segments(int n) { return (n + kShadeSegment - 1) / kShadeSegment; }

// Row pass: thread t = (row y, segment g) with g fastest.
__global__ void __launch_bounds__(kShadeThreads) k_shade_rows(DPlane<const float> src, DPlane<float> dst, int r, int segs) {
    const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= static_cast<long long>(segs) * src.h) return;
    const int y = static_cast<int>(t / segs), x0 = static_cast<int>(t % segs) * kShadeSegment;
    const int w = src.w, x1 = x0 + kShadeSegment < w ? x0 + kShadeSegment : w;
    const float* in = src.row(y);
    float* out = dst.row(y);
    const double inv = 1.0 / static_cast<double>(2 * r + 1);
    double acc = 0.0;
    for (int k = -r; k <= r; ++k) acc += in[clampi(x0 + k, 0, w - 1)];
    for (int x = x0; x < x1; ++x) {
        out[x] = static_cast<float>(acc * inv);
        acc += static_cast<double>(in[clampi(x + r + 1, 0, w - 1)]) - static_cast<double>(in[clampi(x - r, 0, w - 1)]);
    }
}

// Column pass: thread t = (segment g, column x) with x fastest, so a warp's loads are contiguous.
__global__ void __launch_bounds__(kShadeThreads) k_shade_cols(DPlane<const float> src, DPlane<float> dst, int r, int segs) {
    const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= static_cast<long long>(segs) * src.w) return;
    const int x = static_cast<int>(t % src.w), y0 = static_cast<int>(t / src.w) * kShadeSegment;
    const int h = src.h, y1 = y0 + kShadeSegment < h ? y0 + kShadeSegment : h;
    const double inv = 1.0 / static_cast<double>(2 * r + 1);
    double acc = 0.0;
    for (int k = -r; k <= r; ++k) acc += src.row(clampi(y0 + k, 0, h - 1))[x];
    for (int y = y0; y < y1; ++y) {
        dst.row(y)[x] = static_cast<float>(acc * inv);
        acc += static_cast<double>(src.row(clampi(y + r + 1, 0, h - 1))[x]) -
               static_cast<double>(src.row(clampi(y - r, 0, h - 1))[x]);
    }
}

__global__ void k_shade_divide(DPlane<float> img, DPlane<const float> mean) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= img.w || y >= img.h) return;
    const float m = mean.row(y)[x];
    float* p = img.row(y) + x;
    *p = kShadeMid * *p / ((m > 0.0f ? m : 0.0f) + kShadeFloor);
}

unsigned blocks_for(long long n) { return static_cast<unsigned>((n + kShadeThreads - 1) / kShadeThreads); }

} // namespace

cudaError_t launch_shade_norm(DPlane<float> img, DPlane<float> tmp, DPlane<float> mean, int r, cudaStream_t s) {
    DPlane<const float> src{img.p, img.w, img.h, img.pitch};
    for (int pass = 0; pass < 3; ++pass) {
        const int rs = segments(img.w), cs = segments(img.h);
        k_shade_rows<<<blocks_for(static_cast<long long>(rs) * img.h), kShadeThreads, 0, s>>>(src, tmp, r, rs);
        k_shade_cols<<<blocks_for(static_cast<long long>(cs) * img.w), kShadeThreads, 0, s>>>({tmp.p, tmp.w, tmp.h, tmp.pitch},
                                                                                          mean, r, cs);
        src = {mean.p, mean.w, mean.h, mean.pitch};
    }
    const dim3 block(kPlaneBlockX, kPlaneBlockY);
    const dim3 grid(static_cast<unsigned>((img.w + kPlaneBlockX - 1) / kPlaneBlockX),
                    static_cast<unsigned>((img.h + kPlaneBlockY - 1) / kPlaneBlockY));
    k_shade_divide<<<grid, block, 0, s>>>(img, src);
    return cudaGetLastError();
}

} // namespace cuda
} // namespace oflow
