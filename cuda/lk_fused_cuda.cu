// FUSED Lucas-Kanade step (lk_cuda.cuh): the window sums as two separable passes, two launches
// per Newton step, the flow updated in place.
//  1. k_lk_fused_residual: 32 x bh threads, one warp per row; a warp computes the residual products
//     of kLkFusedCols + 2r columns of its row (columns clamped into the plane, as box_h's taps) into
//     shared memory, then the horizontal box sums of its kLkFusedCols columns into a.eh.
//  2. k_lk_fused_update: 32 x bh threads own a 32 x (bh * kLkFusedRows) tile; a tile without an
//     active pixel skips the step; else the block loads the tile's horizontal sums with r rows
//     above and below (rows clamped, as box_v's taps) into shared memory, and each active pixel
//     sums its column of 2r + 1 of them and takes the F32 step (lk_step_fast); the active count
//     goes to the stop slot.
// Both sums run in the reference's order from 0, so (X, Y) equal the reference's bit for bit.
#include "cuda/cuda_layout.hpp"
#include "cuda/lk_cuda.cuh"

namespace oflow {
namespace cuda {
namespace {

template <class T2>
__global__ void __launch_bounds__(kLkMaxWarps * 32) k_lk_fused_residual(LkStepArgs a, int n) {
    if (stopped_before(a.eps, n)) return;
    extern __shared__ float2 lk_sm[];
    const int lane = static_cast<int>(threadIdx.x), r = a.r, span = kLkFusedCols + 2 * r;
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (y >= a.h) return; // a whole warp: the rest of the block synchronises per warp only
    float2* e = lk_sm + static_cast<std::size_t>(threadIdx.y) * static_cast<std::size_t>(span);
    const int x0 = static_cast<int>(blockIdx.x) * kLkFusedCols;
    for (int c = lane; c < span; c += 32) e[c] = lk_residual<T2>(a, clampi(x0 - r + c, 0, a.w - 1), y);
    __syncwarp();
    const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(a.pitch);
    for (int c = lane; c < kLkFusedCols; c += 32)
        if (x0 + c < a.w) a.eh[row + static_cast<std::size_t>(x0 + c)] = lk_window_sum(e + c, 1, 2 * r + 1);
}

__global__ void __launch_bounds__(kLkMaxWarps * 32) k_lk_fused_update(LkStepArgs a, int n) {
    if (stopped_before(a.eps, n)) return;
    extern __shared__ float2 lk_sm[];
    const int r = a.r, bh = static_cast<int>(blockDim.y), th = bh * kLkFusedRows;
    const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
    const int x0 = static_cast<int>(blockIdx.x) * 32, y0 = static_cast<int>(blockIdx.y) * th, x = x0 + tx;
    const std::size_t p = static_cast<std::size_t>(a.pitch);
    float active = 0.0f;
    if (lk_tile_active(a, x, y0, kLkFusedRows)) {
        const int span = th + 2 * r, tid = ty * 32 + tx, nt = 32 * bh;
        for (int q = tid; q < span * 32; q += nt) {
            const int ry = q / 32, c = q - ry * 32;
            lk_sm[q] = a.eh[static_cast<std::size_t>(clampi(y0 - r + ry, 0, a.h - 1)) * p +
                            static_cast<std::size_t>(x0 + c < a.w ? x0 + c : a.w - 1)];
        }
        __syncthreads();
        for (int k = 0; k < kLkFusedRows; ++k) {
            const int oy = ty + k * bh, y = y0 + oy;
            if (x >= a.w || y >= a.h) continue;
            const std::size_t i = static_cast<std::size_t>(y) * p + static_cast<std::size_t>(x);
            if (a.state[i] != 1) continue;
            const float2 s = lk_window_sum(lk_sm + oy * 32 + tx, 32, 2 * r + 1);
            if (a.sums) a.sums[i] = s;
            float2 u = a.u_out[i];
            unsigned char st = 1;
            active += lk_step_fast(a, i, s, &u, &st) ? 1.0f : 0.0f;
            a.u_out[i] = u;
            a.state[i] = st;
        }
    }
    if (a.eps.stop) epsilon_step(active, a.eps, n);
}

} // namespace

cudaError_t launch_lk_fused(const LkStepArgs& a, int n, int bh, std::size_t shared, bool f16, cudaStream_t s) {
    if (bh < 1 || bh > kLkMaxWarps) return cudaErrorInvalidValue;
    const dim3 b(32u, static_cast<unsigned>(bh));
    const dim3 g1(static_cast<unsigned>((a.w + kLkFusedCols - 1) / kLkFusedCols), static_cast<unsigned>((a.h + bh - 1) / bh));
    if (f16)
        k_lk_fused_residual<__half2><<<g1, b, shared, s>>>(a, n);
    else
        k_lk_fused_residual<float2><<<g1, b, shared, s>>>(a, n);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    const int th = bh * kLkFusedRows;
    const dim3 g2(static_cast<unsigned>((a.w + 31) / 32), static_cast<unsigned>((a.h + th - 1) / th));
    k_lk_fused_update<<<g2, b, shared, s>>>(a, n);
    return cudaGetLastError();
}

void list_lk_fused_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_lk_fused_residual<float2>), "lk_fused_residual_f32");
    l->add(reinterpret_cast<const void*>(&k_lk_fused_residual<__half2>), "lk_fused_residual_f16x2");
    l->add(reinterpret_cast<const void*>(&k_lk_fused_update), "lk_fused_update");
}

} // namespace cuda
} // namespace oflow
