// MULTI_ITER variant, F32: temporal blocking (the thesis's Shared_MltIteration, section 4.6.1.2 of
// T. Romera, "Adequation algorithme architecture pour flot optique sur GPU embarque", PhD
// thesis, Sorbonne Universite, 2023), register-blocked.
// (F16x2 packs two pixels per half2 instead: tvl1_multi_f16x2_cuda.cu.)
//
// A block of 32 x NW threads (NW warps, block_height) owns a region of 32 columns x NW*R rows
// (R = kMultiRowsF32 / kMultiRowsF16) whose origin is (bx*TW - P, by*TH - P), P = depth, and writes the tile
// TW x TH = (32 - 2P) x (NW*R - 2P) in its middle. Lane l of warp w holds column l and rows
// w*R .. w*R+R-1 of the region in registers: u, p1 = (p11, p21), p2 = (p12, p22) and the four
// warp constants. Neighbours:
//  - x-1 / x+1: the lane to the left / right, by warp shuffle (no shared memory);
//  - y-1 / y+1 inside the strip: the thread's own registers;
//  - y-1 of the strip's first row / y+1 of its last row: one row per warp exchanged through
//    shared memory (p2 of the last row before calc_u, u of the first row before calc_p), so
//    each iteration costs two block barriers for R pixels per thread.
//
// Validity: calc_u reads p at x-1, y-1 and calc_p reads u at x+1, y+1, so each iteration
// shrinks the exact zone of the region by one pixel per side; after P iterations the tile is
// exact. Values outside the exact zone (including what lane 0 / lane 31 get from the shuffles
// at the region's edge) are computed from stale neighbours and never written. Pixels outside
// the image start at 0 and are never read by in-image pixels: the border rules go by global
// coordinate (tvl1_iter.cuh). The result equals P unfused iterations up to rounding; this file
// is compiled with fast (approximate) division and square root and with FMA contraction
// (cuda/CMakeLists.txt), so it is not bitwise equal to the IEEE GLOBAL kernel.
//
// Epsilon: the reduction covers the tile pixels of the launch's last iteration, so a warp stops
// at launch granularity: up to P-1 iterations after the reference would have stopped.
//
// Resources: registers only for the state (R x (2 + 2 pairs + 4 constants) values per thread),
// 2 x 8 x 32 pairs of static shared memory. Compiled twice (cuda_layout.hpp multi_bound):
// __launch_bounds__(128, 2) gives up to 255 registers, and 8 rows need about 210, so blocks of
// up to 4 warps (the Jetson tables' choice) do not spill; __launch_bounds__(256, 2) caps them
// at 128 (also what 32768 registers per block allow 256 threads on Nano/TX2): 8 warps, with a
// spill of 48-72 bytes per thread, still the fastest shape on an H200.
#include "cuda/cuda_layout.hpp"
#include "cuda/tvl1_iter.cuh"

namespace oflow {
namespace cuda {
namespace {

const int kMaxWarps = kMultiMaxWarps;  // block_height limit (256 threads)

/// Rows per thread (cuda_layout.hpp). F16x2 has its own kernel (tvl1_multi_f16x2_cuda.cu).
template <class T2>
struct Rows {
    static constexpr int value = kMultiRowsF32;
};

__device__ __forceinline__ float2 shfl_up2(float2 v) {
    return make_float2(__shfl_up_sync(0xffffffffu, v.x, 1), __shfl_up_sync(0xffffffffu, v.y, 1));
}
__device__ __forceinline__ float2 shfl_down2(float2 v) {
    return make_float2(__shfl_down_sync(0xffffffffu, v.x, 1), __shfl_down_sync(0xffffffffu, v.y, 1));
}

// The rows exchanged between the warps of a block. Static: through generic pointers the
// exchange would become generic loads (and a select of addresses a stack round trip).
__shared__ float2 s_u_row[kMaxWarps][32];  // u of each warp's first row (calc_p of the warp above)
__shared__ float2 s_p2_row[kMaxWarps][32]; // p2 of each warp's last row (calc_u of the warp below)

// Per-thread constants of the iteration loop.
struct Lane {
    int lane, wid, nw, gx, gy0, w, h, depth;
    bool col_in, col_tile;
    float lt, theta, k;
};

// One iteration (calc_u, then calc_p) on the thread's rows. Err: accumulate |u_new - u_old|^2
// over the tile pixels (the epsilon test, last iteration of a launch only).
template <class T2, int R, bool Interior, bool Err>
__device__ __forceinline__ void iteration(float2 (&u)[R], T2 (&p1)[R], T2 (&p2)[R], const Consts (&c)[R],
                                          const Lane& l, float* err) {
    const int lane = l.lane, wid = l.wid, nw = l.nw, gx = l.gx, gy0 = l.gy0, h = l.h;
    // calc_u: needs p2 of the row above this strip (last row of the warp above).
    s_p2_row[wid][lane] = p2[R - 1];
    __syncthreads();
    const T2 p2_above = wid > 0 ? s_p2_row[wid - 1][lane] : Pair<T2>::zero();
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int gy = gy0 + r;
        T2 p1l = shfl_up2(p1[r]);
        T2 p2u = r > 0 ? p2[r - 1] : p2_above;
        if (!Interior) {
            if (gx <= 0) p1l = Pair<T2>::zero();
            if (gy <= 0) p2u = Pair<T2>::zero();
        }
        const float2 un = u_update<T2>(u[r], c[r], Pair<T2>::div(p1[r], p1l, p2[r], p2u), l.lt, l.theta);
        if (Err && l.col_tile && l.col_in && (Interior || (gy >= 0 && gy < h)) && wid * R + r >= l.depth &&
            wid * R + r < nw * R - l.depth)
            *err += step_sq(u[r], un);
        u[r] = un;
    }
    // calc_p: needs u of the row below this strip (first row of the warp below). Load, then
    // select.
    s_u_row[wid][lane] = u[0];
    __syncthreads();
    const float2 s_below = s_u_row[wid + 1 < nw ? wid + 1 : wid][lane];
    const float2 u_below = wid + 1 < nw ? s_below : u[R - 1];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const float2 ur = shfl_down2(u[r]);
        const float2 ud = r + 1 < R ? u[r + 1] : u_below;
        float2 gxv, gyv;
        if (Interior) {
            gxv = make_float2(ur.x - u[r].x, ur.y - u[r].y);
            gyv = make_float2(ud.x - u[r].x, ud.y - u[r].y);
        } else {
            forward_grad(u[r], ur, ud, gx, gy0 + r, l.w, h, &gxv, &gyv);
        }
        Pair<T2>::dual(p1[r], p2[r], gxv, gyv, l.k);
    }
}

// One launch's work for a block. Interior: the whole region lies inside the image with a
// one-pixel margin, so no border rule can apply and every pixel is in the image: the checks
// compile away. Both instantiations have the same barriers; the choice is uniform per block.
template <class T2, int R, bool Interior>
__device__ __forceinline__ void multi_body(const IterArgs<T2>& a, int launch, int iters, int depth, int gx, int gy0) {
    Lane l;
    l.lane = static_cast<int>(threadIdx.x);
    l.wid = static_cast<int>(threadIdx.y);
    l.nw = static_cast<int>(blockDim.y);
    l.gx = gx;
    l.gy0 = gy0;
    l.w = a.w;
    l.h = a.h;
    l.depth = depth;
    l.col_in = Interior || (gx >= 0 && gx < a.w);
    l.col_tile = l.lane >= depth && l.lane < 32 - depth;
    l.lt = a.lt;
    l.theta = a.theta;
    l.k = a.k;

    // Prologue: every row's loads issued before any use and without branches (coordinates
    // clamped into the image, pixels outside it set to 0 afterwards), so their latencies
    // overlap.
    const int gxc = min(max(gx, 0), a.w - 1);
    float2 u[R];
    T2 p1[R], p2[R];
    Consts c[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int gyc = min(max(gy0 + r, 0), a.h - 1);
        const std::size_t gi = static_cast<std::size_t>(gyc) * static_cast<std::size_t>(a.pitch) +
                               static_cast<std::size_t>(gxc);
        u[r] = a.u_in[gi];
        p1[r] = a.p1_in[gi];
        p2[r] = a.p2_in[gi];
        c[r] = load_consts(a, gi);
    }
    if (!Interior) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const int gy = gy0 + r;
            if (!(l.col_in && gy >= 0 && gy < a.h)) {
                u[r] = make_float2(0.0f, 0.0f);
                p1[r] = Pair<T2>::zero();
                p2[r] = Pair<T2>::zero();
                c[r].ix = c[r].iy = c[r].g2 = c[r].rc = 0.0f;
            }
        }
    }

    // All iterations but the last without the epsilon sums (iters >= 1: the launcher never
    // asks for a launch without iterations).
    float err = 0.0f;
    for (int it = 0; it + 1 < iters; ++it) iteration<T2, R, Interior, false>(u, p1, p2, c, l, &err);
    if (a.eps.stop != nullptr)
        iteration<T2, R, Interior, true>(u, p1, p2, c, l, &err);
    else
        iteration<T2, R, Interior, false>(u, p1, p2, c, l, &err);

#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int gy = gy0 + r, ry = l.wid * R + r;
        if (l.col_in && l.col_tile && (Interior || (gy >= 0 && gy < a.h)) && ry >= depth && ry < l.nw * R - depth) {
            const std::size_t gi = static_cast<std::size_t>(gy) * static_cast<std::size_t>(a.pitch) +
                                   static_cast<std::size_t>(gx);
            a.u_out[gi] = u[r];
            a.p1_out[gi] = p1[r];
            a.p2_out[gi] = p2[r];
        }
    }
    if (a.eps.stop != nullptr) epsilon_step(err, a.eps, launch);
}

// Launch bound B = 128 or 256 threads, two blocks per SM (header comment).
template <class T2, int R, int B>
__global__ void __launch_bounds__(B, 2) k_multi(IterArgs<T2> a, int launch, int iters, int depth) {
    if (stopped_before(a.eps, launch)) return;
    const int nw = static_cast<int>(blockDim.y);
    const int tw = 32 - 2 * depth, th = nw * R - 2 * depth;
    const int x0 = static_cast<int>(blockIdx.x) * tw - depth;
    const int y0 = static_cast<int>(blockIdx.y) * th - depth;
    const int gx = x0 + static_cast<int>(threadIdx.x);
    const int gy0 = y0 + static_cast<int>(threadIdx.y) * R;
    const bool interior = x0 >= 1 && x0 + 32 <= a.w - 1 && y0 >= 1 && y0 + nw * R <= a.h - 1;
    if (interior)
        multi_body<T2, R, true>(a, launch, iters, depth, gx, gy0);
    else
        multi_body<T2, R, false>(a, launch, iters, depth, gx, gy0);
}

} // namespace

template <class T2>
cudaError_t launch_multi_iteration(const IterArgs<T2>& a, int launch, int iters, int depth, int bw, int bh,
                                   int rows, int bound, std::size_t shared, cudaStream_t s) {
    (void)bw; // always 32: one lane per column
    if (rows != Rows<T2>::value) return cudaErrorInvalidValue; // resolve_tuning: F32 holds 8 rows
    const int tw = 32 - 2 * depth, th = bh * rows - 2 * depth;
    const dim3 g(static_cast<unsigned>((a.w + tw - 1) / tw), static_cast<unsigned>((a.h + th - 1) / th));
    const dim3 b(32u, static_cast<unsigned>(bh));
    switch (bound) {
    case 128: k_multi<T2, Rows<T2>::value, 128><<<g, b, shared, s>>>(a, launch, iters, depth); break;
    case 256: k_multi<T2, Rows<T2>::value, 256><<<g, b, shared, s>>>(a, launch, iters, depth); break;
    default: return cudaErrorInvalidValue; // resolve_tuning: F32 bounds are 128 and 256
    }
    return cudaGetLastError();
}

template cudaError_t launch_multi_iteration<float2>(const IterArgs<float2>&, int, int, int, int, int, int, int,
                                                    std::size_t, cudaStream_t);

void list_multi_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_multi<float2, Rows<float2>::value, 128>), "multi_iter_f32_r8_b128");
    l->add(reinterpret_cast<const void*>(&k_multi<float2, Rows<float2>::value, 256>), "multi_iter_f32_r8_b256");
}

} // namespace cuda
} // namespace oflow
