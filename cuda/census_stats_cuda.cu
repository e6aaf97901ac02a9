// OF_ROBUST_CENSUS's scalars on the device (core/census.hpp): each frame's level-0 RMS gradient,
// once per pair, and each frame's eta at a level, from the level's noise estimate, both into the
// control block (Ctrl::census_rms0, Ctrl::census_eta) where the census kernels (census_cuda.cu)
// read them. No host wait: the whole of it is captured in the solver graph.
//
// Each row is summed by one thread from left to right exactly as the reference sums it (the
// noise estimate's row in float, census_noise_sum_ref; the gradient energy's row in double,
// texture_energy_ref); the rows' sums are added in double in a fixed order (kCensusBlocks, then
// block_sum_fixed, then the blocks in order), so the result does not depend on the device and
// differs from the CPU's (band sums added in order) by the order of double additions alone.
#include "cuda/block_sum.cuh"
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_layout.hpp"

#include "core/census.hpp"
#include "core/census_pixel.hpp"

#include <cmath>

namespace oflow {
namespace cuda {
namespace {

const int kT = kReduceThreads;

// Rows of texture_energy_ref: sum over the row of gx^2 + gy^2 (central differences, clamped),
// in double from left to right.
__device__ double energy_row(DPlane<const float> p, int y) {
    const int w = p.w, h = p.h;
    const float* r = p.row(y);
    const float* up = p.row(y > 0 ? y - 1 : 0);
    const float* dn = p.row(y + 1 < h ? y + 1 : h - 1);
    double row = 0.0;
    for (int x = 0; x < w; ++x) {
        const float gx = 0.5f * (r[x + 1 < w ? x + 1 : w - 1] - r[x > 0 ? x - 1 : 0]);
        const float gy = 0.5f * (dn[x] - up[x]);
        row += static_cast<double>(gx * gx + gy * gy);
    }
    return row;
}

// Rows of census_noise_sum_ref (core/census_pixel.hpp census_noise_row; 0 for the first and
// last rows).
__device__ double noise_row(DPlane<const float> p, int y) {
    if (y < 1 || y >= p.h - 1) return 0.0;
    return static_cast<double>(census_noise_row(p.row(y - 1), p.row(y), p.row(y + 1), p.w));
}

// Grid (kCensusBlocks, 2): block b of frame f = blockIdx.y sums its rows (cuda_layout.hpp
// kCensusBlocks) into part[f * kCensusBlocks + b].
template <bool Noise>
__global__ void __launch_bounds__(kT) k_census_rows(DPlane<const float> f0, DPlane<const float> f1, double* part) {
    __shared__ double sh[kT];
    const int f = static_cast<int>(blockIdx.y), b = static_cast<int>(blockIdx.x);
    const DPlane<const float> p = f ? f1 : f0;
    double acc = 0.0;
    for (int y = b * kT + static_cast<int>(threadIdx.x); y < p.h; y += kCensusBlocks * kT)
        acc += Noise ? noise_row(p, y) : energy_row(p, y);
    acc = block_sum_fixed<kT>(acc, sh);
    if (threadIdx.x == 0) part[f * kCensusBlocks + b] = acc;
}

__device__ double frame_sum(const double* part, int f) {
    double s = 0.0;
    for (int b = 0; b < kCensusBlocks; ++b) s += part[f * kCensusBlocks + b];
    return s;
}

// One thread: rms0[f] = sqrt(energy / (w h)) (flow_driver.cpp rms_gradient).
__global__ void k_census_rms0(Ctrl* c, int w, int h) {
    for (int f = 0; f < 2; ++f)
        c->census_rms0[f] = sqrt(frame_sum(c->census_part, f) / (static_cast<double>(w) * static_cast<double>(h)));
}

// One thread: eta[f] = census_eta(census_noise_sigma(sum, w, h), rms0[f]).
__global__ void k_census_eta(Ctrl* c, int w, int h) {
    for (int f = 0; f < 2; ++f)
        c->census_eta[f] = census_eta(census_noise_sigma(frame_sum(c->census_part, f), w, h), c->census_rms0[f]);
}

template <bool Noise>
cudaError_t launch_rows(DPlane<const float> f0, DPlane<const float> f1, Ctrl* ctrl, cudaStream_t s) {
    k_census_rows<Noise><<<dim3(static_cast<unsigned>(kCensusBlocks), 2u), dim3(kT), 0, s>>>(f0, f1, ctrl->census_part);
    return cudaGetLastError();
}

} // namespace

cudaError_t launch_census_rms0(DPlane<const float> f0, DPlane<const float> f1, Ctrl* ctrl, cudaStream_t s) {
    const cudaError_t e = launch_rows<false>(f0, f1, ctrl, s);
    if (e != cudaSuccess) return e;
    k_census_rms0<<<1, 1, 0, s>>>(ctrl, f0.w, f0.h);
    return cudaGetLastError();
}

cudaError_t launch_census_eta(DPlane<const float> i0, DPlane<const float> i1, Ctrl* ctrl, cudaStream_t s) {
    const cudaError_t e = launch_rows<true>(i0, i1, ctrl, s);
    if (e != cudaSuccess) return e;
    k_census_eta<<<1, 1, 0, s>>>(ctrl, i0.w, i0.h);
    return cudaGetLastError();
}

void list_census_stats_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_census_rows<false>), "census_energy_rows");
    l->add(reinterpret_cast<const void*>(&k_census_rows<true>), "census_noise_rows");
    l->add(reinterpret_cast<const void*>(&k_census_rms0), "census_rms0");
    l->add(reinterpret_cast<const void*>(&k_census_eta), "census_eta");
}

} // namespace cuda
} // namespace oflow
