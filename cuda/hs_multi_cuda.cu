// Fused HS / CLG Jacobi (MULTI_ITER; FUSED is depth 1): several iterations per launch by temporal
// blocking, register-blocked like TV-L1's MULTI_ITER (tvl1_multi_cuda.cu has the scheme's
// source). In F32 and F16 (T2 = float2 / __half2: one pair per pixel holds (du, dv), so half2
// arithmetic updates both components at once).
//
// A block of 32 x NW threads (NW warps) owns a region of 32 C columns x NW*R rows whose origin is
// (bx*TW - P, by*TH - P), P = depth, and writes the tile TW x TH = (32 C - 2P) x (NW*R - 2P) in
// its middle. Lane l of warp w holds columns l*C .. l*C+C-1, rows w*R .. w*R+R-1 of the region
// in registers: the increment and its three coefficient pairs. C = 1 in F32; C = 2 in F16, whose
// pairs take half the registers: the region is twice as wide (less halo per tile pixel: 1.31
// instead of 1.54 at depth 4) and each warp shuffle serves two pixels. Per iteration:
//  - each warp publishes its first and last row in shared memory (double-buffered by iteration
//    parity, so one barrier per iteration suffices), and reads the row above its strip (the warp
//    above's last) and below it (the warp below's first);
//  - the horizontal pair sums l + r of the R + 2 rows come from two warp shuffles each (the
//    neighbour lanes' nearest columns; with C = 2 the thread's other column is the third);
//  - every row's 9-point mean is (l + r) + (u + d) and the pair sums of the rows above and below
//    (hs_cuda.cuh: HsMath::mean), then the affine update with the coefficients.
// Borders replicate by global coordinate (a pixel in column 0 is its own left neighbour, ...), so
// a pixel inside the image never reads one outside it: pixels outside hold clamped copies and
// are never written. Each iteration shrinks the exact zone by one pixel per side; after P
// iterations the tile is exact: the result equals P GLOBAL iterations up to rounding (this file
// is compiled with FMA contraction, cuda/CMakeLists.txt).
//
// Epsilon: the change sum covers the tile pixels of the launch's last iteration, so a warp stops
// at launch granularity (up to P - 1 iterations after GLOBAL would have).
//
// Resources: (4R + R + 2) C pairs of registers for the state (F32 R = 8 C = 1: about 90
// registers; F16 R = 8 C = 2 about the same), one launch bound of 256 threads with two blocks
// per SM (at most 128 registers: what 32768 registers per block allow 256 threads on Nano/TX2),
// static shared memory 2 x 2 x 8 x 32 C pairs (8 KB).
#include "cuda/cuda_layout.hpp"
#include "cuda/hs_cuda.cuh"

namespace oflow {
namespace cuda {
namespace {

template <class T2>
struct Shfl;
template <>
struct Shfl<float2> {
    __device__ static float2 up(float2 v) {
        return make_float2(__shfl_up_sync(0xffffffffu, v.x, 1), __shfl_up_sync(0xffffffffu, v.y, 1));
    }
    __device__ static float2 down(float2 v) {
        return make_float2(__shfl_down_sync(0xffffffffu, v.x, 1), __shfl_down_sync(0xffffffffu, v.y, 1));
    }
};
template <>
struct Shfl<__half2> {
    __device__ static __half2 up(__half2 v) {
        unsigned b = *reinterpret_cast<unsigned*>(&v);
        b = __shfl_up_sync(0xffffffffu, b, 1);
        return *reinterpret_cast<__half2*>(&b);
    }
    __device__ static __half2 down(__half2 v) {
        unsigned b = *reinterpret_cast<unsigned*>(&v);
        b = __shfl_down_sync(0xffffffffu, b, 1);
        return *reinterpret_cast<__half2*>(&b);
    }
};

struct MLane {
    int lane, wid, nw, gx0, gy0, w, h, depth;
};

// One Jacobi iteration on the thread's R x C pixels; rows[0] / rows[1]: the first / last row of
// every warp (this iteration's parity buffer). Err: add the change of the tile pixels to *err.
template <class T2, int R, int C, bool Interior, bool Err>
__device__ __forceinline__ void iteration(T2 (&u)[R][C], const T2 (&cd)[R][C], const T2 (&co)[R][C],
                                          const T2 (&cr)[R][C], const MLane& l, T2 (*rows)[kMultiMaxWarps][32 * C],
                                          float* err) {
    using M = HsMath<T2>;
    const int lane = l.lane, wid = l.wid;
#pragma unroll
    for (int c = 0; c < C; ++c) {
        rows[0][wid][lane * C + c] = u[0][c];
        rows[1][wid][lane * C + c] = u[R - 1][c];
    }
    __syncthreads();
    T2 above[C], below[C];
#pragma unroll
    for (int c = 0; c < C; ++c) {
        above[c] = wid > 0 ? rows[1][wid - 1][lane * C + c] : u[0][c];
        below[c] = wid + 1 < l.nw ? rows[0][wid + 1][lane * C + c] : u[R - 1][c];
    }
    // Pair sums l + r of the row above the strip (index 0), the strip (1..R) and below (R + 1).
    T2 hsum[R + 2][C];
#pragma unroll
    for (int r = 0; r < R + 2; ++r) {
        T2 v[C];
#pragma unroll
        for (int c = 0; c < C; ++c) v[c] = r == 0 ? above[c] : (r == R + 1 ? below[c] : u[r - 1][c]);
        const T2 from_left = Shfl<T2>::up(v[C - 1]), from_right = Shfl<T2>::down(v[0]);
#pragma unroll
        for (int c = 0; c < C; ++c) {
            T2 left = c == 0 ? from_left : v[c - 1];
            T2 right = c == C - 1 ? from_right : v[c + 1];
            if (!Interior) {
                const int gx = l.gx0 + c;
                if (gx <= 0) left = v[c];
                if (gx >= l.w - 1) right = v[c];
            }
            hsum[r][c] = M::add(left, right);
        }
    }
    T2 prev[C]; // the old values of the row above row r
#pragma unroll
    for (int c = 0; c < C; ++c) prev[c] = above[c];
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
        for (int c = 0; c < C; ++c) {
            const T2 v = u[r][c];
            T2 up = prev[c], dn = r + 1 < R ? u[r + 1][c] : below[c];
            T2 hs_up = hsum[r][c], hs_dn = hsum[r + 2][c];
            if (!Interior) {
                const int gy = l.gy0 + r;
                if (gy <= 0) {
                    up = v;
                    hs_up = hsum[r + 1][c];
                }
                if (gy >= l.h - 1) {
                    dn = v;
                    hs_dn = hsum[r + 1][c];
                }
            }
            const T2 m = M::mean(hsum[r + 1][c], M::add(up, dn), M::add(hs_up, hs_dn), v);
            const T2 nw = M::update(m, cd[r][c], co[r][c], cr[r][c]);
            if (Err) {
                const int ry = wid * R + r, rx = lane * C + c, gx = l.gx0 + c, gy = l.gy0 + r;
                if (rx >= l.depth && rx < 32 * C - l.depth && ry >= l.depth && ry < l.nw * R - l.depth &&
                    (Interior || (gx < l.w && gy < l.h)))
                    *err += M::change(nw, v);
            }
            prev[c] = v;
            u[r][c] = nw;
        }
    }
}

// rows: the kernel's exchange buffer, [parity][first / last][warp][column].
template <class T2, int R, int C, bool Interior>
__device__ __forceinline__ void multi_body(const HsJacobiArgs<T2>& a, int launch, int iters, int depth, int gx0,
                                           int gy0, T2 (*rows)[2][kMultiMaxWarps][32 * C]) {
    MLane l;
    l.lane = static_cast<int>(threadIdx.x);
    l.wid = static_cast<int>(threadIdx.y);
    l.nw = static_cast<int>(blockDim.y);
    l.gx0 = gx0;
    l.gy0 = gy0;
    l.w = a.w;
    l.h = a.h;
    l.depth = depth;

    // Prologue: every load issued before any use, coordinates clamped into the image (pixels
    // outside it hold copies that no pixel inside reads).
    T2 u[R][C], cd[R][C], co[R][C], cr[R][C];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int gyc = min(max(gy0 + r, 0), a.h - 1);
#pragma unroll
        for (int c = 0; c < C; ++c) {
            const int gxc = min(max(gx0 + c, 0), a.w - 1);
            const std::size_t gi = static_cast<std::size_t>(gyc) * static_cast<std::size_t>(a.pitch) +
                                   static_cast<std::size_t>(gxc);
            u[r][c] = a.du_in[gi];
            cd[r][c] = a.c.d[gi];
            co[r][c] = a.c.o[gi];
            cr[r][c] = a.c.r[gi];
        }
    }
    float err = 0.0f;
    for (int it = 0; it + 1 < iters; ++it)
        iteration<T2, R, C, Interior, false>(u, cd, co, cr, l, rows[it & 1], &err);
    if (a.eps.stop != nullptr)
        iteration<T2, R, C, Interior, true>(u, cd, co, cr, l, rows[(iters - 1) & 1], &err);
    else
        iteration<T2, R, C, Interior, false>(u, cd, co, cr, l, rows[(iters - 1) & 1], &err);

#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int gy = gy0 + r, ry = l.wid * R + r;
#pragma unroll
        for (int c = 0; c < C; ++c) {
            const int gx = gx0 + c, rx = l.lane * C + c;
            if (gx >= 0 && gx < a.w && gy >= 0 && gy < a.h && rx >= depth && rx < 32 * C - depth && ry >= depth &&
                ry < l.nw * R - depth)
                a.du_out[static_cast<std::size_t>(gy) * static_cast<std::size_t>(a.pitch) + static_cast<std::size_t>(gx)] =
                    u[r][c];
        }
    }
    if (a.eps.stop != nullptr) epsilon_step(err, a.eps, launch);
}

template <class T2, int R>
__global__ void __launch_bounds__(256, 2) k_hs_multi(HsJacobiArgs<T2> a, int launch, int iters, int depth) {
    if (stopped_before(a.eps, launch)) return;
    const int C = hs_multi_cols<T2>();
    const int nw = static_cast<int>(blockDim.y);
    const int tw = 32 * C - 2 * depth, th = nw * R - 2 * depth;
    const int x0 = static_cast<int>(blockIdx.x) * tw - depth;
    const int y0 = static_cast<int>(blockIdx.y) * th - depth;
    const int gx0 = x0 + static_cast<int>(threadIdx.x) * C;
    const int gy0 = y0 + static_cast<int>(threadIdx.y) * R;
    const bool interior = x0 >= 1 && x0 + 32 * C <= a.w - 1 && y0 >= 1 && y0 + nw * R <= a.h - 1;
    // One buffer for both instantiations of the body (declared in each, it would be two).
    __shared__ T2 rows[2][2][kMultiMaxWarps][32 * hs_multi_cols<T2>()];
    if (interior)
        multi_body<T2, R, hs_multi_cols<T2>(), true>(a, launch, iters, depth, gx0, gy0, rows);
    else
        multi_body<T2, R, hs_multi_cols<T2>(), false>(a, launch, iters, depth, gx0, gy0, rows);
}

template <class T2, int R>
cudaError_t launch_rows(const HsJacobiArgs<T2>& a, int launch, int iters, int depth, int bh, cudaStream_t s) {
    const int tw = hs_multi_tile_w(depth, hs_multi_cols<T2>()), th = hs_multi_tile_h(bh, R, depth);
    const dim3 g(static_cast<unsigned>((a.w + tw - 1) / tw), static_cast<unsigned>((a.h + th - 1) / th));
    k_hs_multi<T2, R><<<g, dim3(32u, static_cast<unsigned>(bh)), 0, s>>>(a, launch, iters, depth);
    return cudaGetLastError();
}

} // namespace

template <class T2>
cudaError_t launch_hs_jacobi_multi(const HsJacobiArgs<T2>& a, int launch, int iters, int depth, int bh, int rows,
                                   cudaStream_t s) {
    if (bh < 1 || bh > kMultiMaxWarps || iters < 1 || iters > depth) return cudaErrorInvalidValue;
    switch (rows) {
    case 4: return launch_rows<T2, 4>(a, launch, iters, depth, bh, s);
    case 6: return launch_rows<T2, 6>(a, launch, iters, depth, bh, s);
    case 8: return launch_rows<T2, 8>(a, launch, iters, depth, bh, s);
    default: return cudaErrorInvalidValue; // hs_resolve_tuning allows 4, 6 and 8
    }
}

template cudaError_t launch_hs_jacobi_multi<float2>(const HsJacobiArgs<float2>&, int, int, int, int, int, cudaStream_t);
template cudaError_t launch_hs_jacobi_multi<__half2>(const HsJacobiArgs<__half2>&, int, int, int, int, int,
                                                     cudaStream_t);

void list_hs_multi_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_hs_multi<float2, 4>), "hs_multi_f32_r4");
    l->add(reinterpret_cast<const void*>(&k_hs_multi<float2, 6>), "hs_multi_f32_r6");
    l->add(reinterpret_cast<const void*>(&k_hs_multi<float2, 8>), "hs_multi_f32_r8");
    l->add(reinterpret_cast<const void*>(&k_hs_multi<__half2, 4>), "hs_multi_f16x2_r4");
    l->add(reinterpret_cast<const void*>(&k_hs_multi<__half2, 6>), "hs_multi_f16x2_r6");
    l->add(reinterpret_cast<const void*>(&k_hs_multi<__half2, 8>), "hs_multi_f16x2_r8");
}

} // namespace cuda
} // namespace oflow
