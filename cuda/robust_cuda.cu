// The exposure-robust stages on the device (core/robust.hpp, core/ref/robust_ref.cpp):
//  - the pointwise halves of the local contrast normalisation (robust_sq_ref,
//    robust_combine_ref); the two Gaussians between them are launch_blur's;
//  - the texture rule: mean squared central-difference gradient of levels 1.. of frame 0's
//    pyramid (texture_energy_ref / (w h)) and the coarsest level to solve (coarsest_textured),
//    into a device int, so that a captured graph decides it per frame without a host wait;
//  - the size x size median of both flow components (median_flow_ref);
//  - the end of a level (core/flow_driver.cpp solve_levels): zero flow above the coarsest level to
//    solve, the sanity bound (level_margin) on every other level;
//  - exposure range matching (core/flow_driver.cpp match_exposure): histograms of both converted
//    frames (exposure_hist_ref: integer counts, so the atomics' order does not matter), the
//    match itself (exposure_match, the host's own code, in one thread) and the clamp of each
//    frame as range_map() says (map_range_ref), the match read from device memory.
// Same operations in the same order as the reference (this file is compiled without mul+add
// contraction, IEEE division and square root: cuda/CMakeLists.txt), so the normalisation, the
// median and the bound equal it bit for bit. The texture energies are summed in double in a
// fixed order that differs from the reference's rows-in-order sum (they agree to ~1e-15
// relative; only a level exactly at min_texture could decide differently). One thread per
// output pixel, 32x8 blocks; the reduction 256 threads per (level, row-stripe) block.
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_layout.hpp"

#include "core/robust.hpp"

namespace oflow {
namespace cuda {
namespace {

const int kBX = kPlaneBlockX, kBY = kPlaneBlockY;
const int kTexThreads = kReduceThreads;
const int kHistThreads = kReduceThreads;

dim3 grid_for(int w, int h) {
    return dim3(static_cast<unsigned>((w + kBX - 1) / kBX), static_cast<unsigned>((h + kBY - 1) / kBY));
}

__device__ __forceinline__ bool pixel(int w, int h, int* x, int* y) {
    *x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    *y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    return *x < w && *y < h;
}

// P: the image's element (float, or __half for a level of an F16 pyramid: OF_ROBUST_LEVEL_NORM),
// read widened (pix); mean, sq and var stay F32.
template <class P>
__global__ void __launch_bounds__(kBX * kBY) k_robust_sq(DPlane<const P> src, DPlane<const float> mean,
                                                   DPlane<float> sq) {
    int x, y;
    if (!pixel(src.w, src.h, &x, &y)) return;
    const float d = pix(src.row(y)[x]) - mean.row(y)[x];
    sq.row(y)[x] = d * d;
}

// dst may be src: each thread reads its own pixel before it writes it. An F16 level is
// computed in F32 and rounded once on the store (store_pix).
// The floor: floor_, or with m not null level_norm_floor(*m, frame) (OF_ROBUST_LEVEL_NORM: the
// pair's match, read from device memory so that a captured graph takes each frame's own).
template <class P>
__global__ void __launch_bounds__(kBX * kBY) k_robust_combine(DPlane<const P> src, DPlane<const float> mean,
                                                        DPlane<const float> var, DPlane<P> dst, float mid,
                                                        float gain, float floor_, const ExposureMatch* m,
                                                        int frame) {
    int x, y;
    if (!pixel(src.w, src.h, &x, &y)) return;
    if (m) floor_ = level_norm_floor(*m, frame);
    const float v = var.row(y)[x];
    const float sd = sqrtf(v < 0.0f ? 0.0f : v); // std::max(v, 0.0f): NaN stays NaN
    dst.row(y)[x] = store_pix<P>(mid + gain * (pix(src.row(y)[x]) - mean.row(y)[x]) / (sd + floor_));
}

// Block (b, l - 1) sums gx^2 + gy^2 (float, as texture_energy_ref forms it) over rows
// b, b + kTexBlocks, ... of level l in double: each thread its columns left to right, row
// after row, then block_sum. Every block writes its slot (0 when it has no rows).
// P: the pyramid's element (float, or __half for an F16 pyramid: TexLevels::half).
template <class P>
__global__ void __launch_bounds__(kTexThreads) k_texture_partial(TexLevels t, double* partials) {
    __shared__ double sh[32];
    const int l = static_cast<int>(blockIdx.y) + 1, b = static_cast<int>(blockIdx.x);
    const int w = t.w[l], h = t.h[l];
    const DPlane<const P> p{static_cast<const P*>(t.p[l]), w, h, t.pitch[l]};
    double acc = 0.0;
    for (int y = b; y < h; y += kTexBlocks) {
        const P* r = p.row(y);
        const P* up = p.row(y > 0 ? y - 1 : 0);
        const P* dn = p.row(y + 1 < h ? y + 1 : h - 1);
        for (int x = static_cast<int>(threadIdx.x); x < w; x += kTexThreads) {
            const float gx = 0.5f * (pix(r[x + 1 < w ? x + 1 : w - 1]) - pix(r[x > 0 ? x - 1 : 0]));
            const float gy = 0.5f * (pix(dn[x]) - pix(up[x]));
            acc += static_cast<double>(gx * gx + gy * gy);
        }
    }
    acc = block_sum(acc, sh);
    if (threadIdx.x == 0) partials[l * kTexBlocks + b] = acc;
}

// One thread: energy[l] = (sum of level l's partials, in block order) / (w h), and
// coarsest_textured (core/robust.hpp): the largest l with every level 1..l at >= min_texture.
__global__ void k_texture_top(TexLevels t, const double* partials, double min_texture, int* top) {
    int l = 0;
    while (l + 1 < t.levels) {
        const int n = l + 1;
        double sum = 0.0;
        for (int b = 0; b < kTexBlocks; ++b) sum += partials[n * kTexBlocks + b];
        const double energy = sum / (static_cast<double>(t.w[n]) * static_cast<double>(t.h[n]));
        if (energy < min_texture) break;
        l = n;
    }
    *top = l;
}

__device__ __forceinline__ void order(float& a, float& b) {
    const float lo = b < a ? b : a, hi = b < a ? a : b;
    a = lo;
    b = hi;
}

// (2R+1)^2 window, clamped borders, both components. A selection sort stopped at the middle
// (pass i leaves the i-th smallest in v[i]) gives the exact median, std::nth_element's middle
// element; fully unrolled, so the windows stay in registers (9: 30 compare-exchanges per
// component, 25: 234).
template <int R>
__global__ void __launch_bounds__(kBX * kBY) k_median_flow(DPlane<const float2> src, DPlane<float2> dst) {
    const int kN = (2 * R + 1) * (2 * R + 1);
    int x, y;
    if (!pixel(src.w, src.h, &x, &y)) return;
    float a[kN], b[kN];
#pragma unroll
    for (int dy = -R; dy <= R; ++dy) {
        const float2* row = src.row(clampi(y + dy, 0, src.h - 1));
#pragma unroll
        for (int dx = -R; dx <= R; ++dx) {
            const float2 v = row[clampi(x + dx, 0, src.w - 1)];
            const int n = (dy + R) * (2 * R + 1) + dx + R;
            a[n] = v.x;
            b[n] = v.y;
        }
    }
#pragma unroll
    for (int i = 0; i <= kN / 2; ++i) {
#pragma unroll
        for (int j = i + 1; j < kN; ++j) {
            order(a[i], a[j]);
            order(b[i], b[j]);
        }
    }
    dst.row(y)[x] = make_float2(a[kN / 2], b[kN / 2]);
}

// The end of level `level`, in place: zero above the coarsest level solved (*top when top is
// not null, else top_host), else x + u1 into [-m, w - 1 + m] and y + u2 into [-m, h - 1 + m]
// (bound_flow: fmin(fmax(u, lo), hi); m = level_margin(level, w, h), chosen by the caller).
__global__ void __launch_bounds__(kBX * kBY) k_finish_level(DPlane<float2> u, int level, const int* top, int top_host,
                                                      float m) {
    int x, y;
    if (!pixel(u.w, u.h, &x, &y)) return;
    const int t = top ? *top : top_host;
    float2* p = u.row(y) + x;
    if (level > t) {
        *p = make_float2(0.0f, 0.0f);
        return;
    }
    const float2 v = *p;
    const float xlo = -m - static_cast<float>(x), xhi = static_cast<float>(u.w - 1 - x) + m;
    const float ylo = -m - static_cast<float>(y), yhi = static_cast<float>(u.h - 1 - y) + m;
    *p = make_float2(fminf(fmaxf(v.x, xlo), xhi), fminf(fmaxf(v.y, ylo), yhi));
}

// Block (b, f) counts rows b, b + gridDim.x, ... of frame f into a shared histogram of
// exposure_bin(v), then adds its non-zero bins to hist[f * kExposureBins ..] (zeroed before).
__global__ void __launch_bounds__(kHistThreads) k_exposure_hist(DPlane<const float> f0, DPlane<const float> f1,
                                                                unsigned int* hist) {
    __shared__ unsigned int sh[kExposureBins];
    for (int i = static_cast<int>(threadIdx.x); i < kExposureBins; i += kHistThreads) sh[i] = 0u;
    __syncthreads();
    const DPlane<const float> p = blockIdx.y == 0 ? f0 : f1;
    for (int y = static_cast<int>(blockIdx.x); y < p.h; y += static_cast<int>(gridDim.x)) {
        const float* r = p.row(y);
        for (int x = static_cast<int>(threadIdx.x); x < p.w; x += kHistThreads) atomicAdd(&sh[exposure_bin(r[x])], 1u);
    }
    __syncthreads();
    unsigned int* out = hist + blockIdx.y * kExposureBins;
    for (int i = static_cast<int>(threadIdx.x); i < kExposureBins; i += kHistThreads)
        if (sh[i] != 0u) atomicAdd(&out[i], sh[i]);
}

// One thread: the match of core/robust.hpp from both histograms, n pixels per frame.
__global__ void k_exposure_match(const unsigned int* hist, unsigned long long n, ExposureMatch* m) {
    *m = exposure_match(hist, hist + kExposureBins, n);
}

// Frame blockIdx.z (f0 or f1) mapped in place as range_map(*m, z, robust) says (map_range_ref:
// fmin(fmax(v, lo), hi) * scale + bias); nothing when the map leaves the frame as it is.
__global__ void __launch_bounds__(kBX * kBY) k_map_range(DPlane<float> f0, DPlane<float> f1, const ExposureMatch* m,
                                                   of_robust robust) {
    const int f = static_cast<int>(blockIdx.z);
    const RangeMap t = range_map(*m, f, robust);
    if (!t.any) return;
    int x, y;
    const DPlane<float> p = f == 0 ? f0 : f1;
    if (!pixel(p.w, p.h, &x, &y)) return;
    float* v = p.row(y) + x;
    *v = fminf(fmaxf(*v, t.lo), t.hi) * t.scale + t.bias;
}

} // namespace

cudaError_t launch_exposure_hist(DPlane<const float> f0, DPlane<const float> f1, unsigned int* hist, int blocks,
                                 cudaStream_t s) {
    const int h = f0.h > f1.h ? f0.h : f1.h;
    if (h < 1) return cudaSuccess; // empty frames: nothing to count
    const int b = blocks < 1 ? 1 : (blocks > h ? h : blocks);
    k_exposure_hist<<<dim3(static_cast<unsigned>(b), 2u), dim3(kHistThreads), 0, s>>>(f0, f1, hist);
    return cudaGetLastError();
}

cudaError_t launch_exposure_match(const unsigned int* hist, unsigned long long n, ExposureMatch* m, cudaStream_t s) {
    k_exposure_match<<<1, 1, 0, s>>>(hist, n, m);
    return cudaGetLastError();
}

cudaError_t launch_map_range(DPlane<float> f0, DPlane<float> f1, const ExposureMatch* m, of_robust robust,
                             cudaStream_t s) {
    const int w = f0.w > f1.w ? f0.w : f1.w, h = f0.h > f1.h ? f0.h : f1.h;
    if (w < 1 || h < 1) return cudaSuccess;
    dim3 g = grid_for(w, h);
    g.z = 2u;
    k_map_range<<<g, dim3(kBX, kBY), 0, s>>>(f0, f1, m, robust);
    return cudaGetLastError();
}

template <class P>
cudaError_t robust_sq(DPlane<const P> src, DPlane<const float> mean, DPlane<float> sq, cudaStream_t s) {
    k_robust_sq<P><<<grid_for(src.w, src.h), dim3(kBX, kBY), 0, s>>>(src, mean, sq);
    return cudaGetLastError();
}

template <class P>
cudaError_t robust_combine(DPlane<const P> src, DPlane<const float> mean, DPlane<const float> var, DPlane<P> dst,
                           float mid, float gain, float floor_, const ExposureMatch* m, int frame, cudaStream_t s) {
    k_robust_combine<P><<<grid_for(src.w, src.h), dim3(kBX, kBY), 0, s>>>(src, mean, var, dst, mid, gain, floor_, m,
                                                                         frame);
    return cudaGetLastError();
}

cudaError_t launch_robust_sq(DPlane<const float> src, DPlane<const float> mean, DPlane<float> sq, cudaStream_t s) {
    return robust_sq(src, mean, sq, s);
}

cudaError_t launch_robust_sq(DPlane<const __half> src, DPlane<const float> mean, DPlane<float> sq, cudaStream_t s) {
    return robust_sq(src, mean, sq, s);
}

cudaError_t launch_robust_combine(DPlane<const float> src, DPlane<const float> mean, DPlane<const float> var,
                                  DPlane<float> dst, float mid, float gain, float floor_, const ExposureMatch* m,
                                  int frame, cudaStream_t s) {
    return robust_combine(src, mean, var, dst, mid, gain, floor_, m, frame, s);
}

cudaError_t launch_robust_combine(DPlane<const __half> src, DPlane<const float> mean, DPlane<const float> var,
                                  DPlane<__half> dst, float mid, float gain, float floor_, const ExposureMatch* m,
                                  int frame, cudaStream_t s) {
    return robust_combine(src, mean, var, dst, mid, gain, floor_, m, frame, s);
}

cudaError_t launch_texture_top(const TexLevels& t, double* partials, double min_texture, int* top, cudaStream_t s) {
    if (t.levels > 1) {
        const dim3 grid(static_cast<unsigned>(kTexBlocks), static_cast<unsigned>(t.levels - 1));
        if (t.half)
            k_texture_partial<__half><<<grid, dim3(kTexThreads), 0, s>>>(t, partials);
        else
            k_texture_partial<float><<<grid, dim3(kTexThreads), 0, s>>>(t, partials);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    k_texture_top<<<1, 1, 0, s>>>(t, partials, min_texture, top);
    return cudaGetLastError();
}

cudaError_t launch_median_flow(DPlane<const float2> src, DPlane<float2> dst, int size, cudaStream_t s) {
    const dim3 g = grid_for(src.w, src.h), b(kBX, kBY);
    if (size == 3) {
        k_median_flow<1><<<g, b, 0, s>>>(src, dst);
    } else if (size == 5) {
        k_median_flow<2><<<g, b, 0, s>>>(src, dst);
    } else {
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

cudaError_t launch_finish_level(DPlane<float2> u, int level, const int* top, int top_host, float margin,
                                cudaStream_t s) {
    k_finish_level<<<grid_for(u.w, u.h), dim3(kBX, kBY), 0, s>>>(u, level, top, top_host, margin);
    return cudaGetLastError();
}

void list_robust_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_robust_sq<float>), "robust_sq");
    l->add(reinterpret_cast<const void*>(&k_robust_combine<float>), "robust_combine");
    l->add(reinterpret_cast<const void*>(&k_robust_sq<__half>), "robust_sq_f16");
    l->add(reinterpret_cast<const void*>(&k_robust_combine<__half>), "robust_combine_f16");
    l->add(reinterpret_cast<const void*>(&k_texture_partial<float>), "texture_partial");
    l->add(reinterpret_cast<const void*>(&k_texture_partial<__half>), "texture_partial_f16");
    l->add(reinterpret_cast<const void*>(&k_texture_top), "texture_top");
    l->add(reinterpret_cast<const void*>(&k_median_flow<1>), "median_flow_3");
    l->add(reinterpret_cast<const void*>(&k_median_flow<2>), "median_flow_5");
    l->add(reinterpret_cast<const void*>(&k_finish_level), "finish_level");
    l->add(reinterpret_cast<const void*>(&k_exposure_hist), "exposure_hist");
    l->add(reinterpret_cast<const void*>(&k_exposure_match), "exposure_match");
    l->add(reinterpret_cast<const void*>(&k_map_range), "map_range");
}

} // namespace cuda
} // namespace oflow
