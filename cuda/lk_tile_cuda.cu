// MULTI_ITER Lucas-Kanade step (lk_cuda.cuh): the whole Newton step in one launch on a
// shared-memory tile. 32 x bh threads own a 32 x th tile (th = bh * rows). A tile without an
// active pixel copies its flow across and stops there; else the block
//  1. computes the residual products of the (32 + 2r) x (th + 2r) region around the tile, rows
//     and columns clamped into the plane (what box_h's and box_v's clamped taps read),
//  2. their horizontal box sums for the tile's 32 columns on every region row,
//  3. per active tile pixel the vertical sum of its column and the F32 step (lk_step_fast),
// all in shared memory (lk_tile_shared_bytes), and counts its active pixels into the stop slot.
// Both sums run in the reference's order from 0, so (X, Y) equal the reference's bit for bit.
// Reads u_in, writes u_out: the regions of neighbouring tiles overlap this tile.
#include "cuda/cuda_layout.hpp"
#include "cuda/lk_cuda.cuh"

namespace oflow {
namespace cuda {
namespace {

template <class T2>
__global__ void __launch_bounds__(kLkMaxWarps * 32) k_lk_tile(LkStepArgs a, int n, int rows) {
    if (stopped_before(a.eps, n)) return;
    extern __shared__ float2 lk_sm[];
    const int r = a.r, bh = static_cast<int>(blockDim.y), th = bh * rows;
    const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
    const int tid = ty * 32 + tx, nt = 32 * bh;
    const int x0 = static_cast<int>(blockIdx.x) * 32, y0 = static_cast<int>(blockIdx.y) * th, x = x0 + tx;
    const std::size_t p = static_cast<std::size_t>(a.pitch);
    float active = 0.0f;
    if (lk_tile_active(a, x, y0, rows)) {
        const int rw = 32 + 2 * r, rh = th + 2 * r, n_taps = 2 * r + 1;
        float2* e = lk_sm;                                          // rh x rw residual products
        float2* hs = lk_sm + static_cast<std::size_t>(rw) * static_cast<std::size_t>(rh); // rh x 32 row sums
        for (int q = tid; q < rw * rh; q += nt) {
            const int ry = q / rw, rx = q - ry * rw;
            e[q] = lk_residual<T2>(a, clampi(x0 - r + rx, 0, a.w - 1), clampi(y0 - r + ry, 0, a.h - 1));
        }
        __syncthreads();
        for (int q = tid; q < rh * 32; q += nt) {
            const int ry = q / 32, c = q - ry * 32;
            hs[q] = lk_window_sum(e + ry * rw + c, 1, n_taps);
        }
        __syncthreads();
        for (int k = 0; k < rows; ++k) {
            const int oy = ty + k * bh, y = y0 + oy;
            if (x >= a.w || y >= a.h) continue;
            const std::size_t i = static_cast<std::size_t>(y) * p + static_cast<std::size_t>(x);
            float2 u = a.u_in[i];
            if (a.state[i] == 1) {
                const float2 s = lk_window_sum(hs + oy * 32 + tx, 32, n_taps);
                if (a.sums) a.sums[i] = s;
                unsigned char st = 1;
                active += lk_step_fast(a, i, s, &u, &st) ? 1.0f : 0.0f;
                a.state[i] = st;
            }
            a.u_out[i] = u;
        }
    } else {
        for (int k = 0; k < rows; ++k) {
            const int y = y0 + ty + k * bh;
            if (x >= a.w || y >= a.h) continue;
            const std::size_t i = static_cast<std::size_t>(y) * p + static_cast<std::size_t>(x);
            a.u_out[i] = a.u_in[i];
        }
    }
    if (a.eps.stop) epsilon_step(active, a.eps, n);
}

} // namespace

cudaError_t launch_lk_tile(const LkStepArgs& a, int n, int bh, int rows, std::size_t shared, bool f16, cudaStream_t s) {
    if (bh < 1 || bh > kLkMaxWarps || rows < 1) return cudaErrorInvalidValue;
    const int th = bh * rows;
    const dim3 g(static_cast<unsigned>((a.w + 31) / 32), static_cast<unsigned>((a.h + th - 1) / th));
    const dim3 b(32u, static_cast<unsigned>(bh));
    if (f16)
        k_lk_tile<__half2><<<g, b, shared, s>>>(a, n, rows);
    else
        k_lk_tile<float2><<<g, b, shared, s>>>(a, n, rows);
    return cudaGetLastError();
}

void list_lk_tile_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_lk_tile<float2>), "lk_tile_f32");
    l->add(reinterpret_cast<const void*>(&k_lk_tile<__half2>), "lk_tile_f16x2");
}

} // namespace cuda
} // namespace oflow
