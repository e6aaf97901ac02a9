// Red-black SOR for HS / CLG on the split layout (hs_cuda.cuh; seed 004: red and black in two
// half-width arrays, coalesced, indexed without branches). One iteration = the red half-sweep
// (red pixels from their old values, the black ones' current values and the red diagonals' old
// values), then the black half-sweep against the new red values: the reference's scheme
// (core/ref/hs_solvers_ref.cpp sor_pixel_ref / sor_half_sweep_ref), with its neighbour order.
//
//  - GLOBAL: one launch per half-sweep, one thread per slot. Interior slots index their eight
//    neighbours directly (the direct ones: slots k + s - 1 and k + s of the other colour's row y,
//    slot k of its rows y -+ 1; the diagonals: slots k + s - 1 and k + s of this colour's rows
//    y -+ 1; s = (y + colour) & 1); border pixels clamp each neighbour like sor_pixel_ref.
//  - FUSED: both half-sweeps in one launch. A bw x bh block owns a tile of 2 bw columns x bh
//    rows. It first updates the red pixels of its tile and of a one-pixel ring around it (the
//    ring's are recomputed by the neighbouring blocks too: what the tile's black pixels read) into
//    shared memory, writing the tile's to global memory; after one barrier it updates the tile's
//    black pixels from those. The red values never go through DRAM between the half-sweeps.
//
// Epsilon: the change of both half-sweeps decides. GLOBAL: the red launch stores its per-block
// sums (red_partials), the black launch's last block adds them to its own; FUSED: one sum.
#include "cuda/cuda_layout.hpp"
#include "cuda/hs_cuda.cuh"

namespace oflow {
namespace cuda {
namespace {

template <class T2>
__device__ __forceinline__ std::size_t at(const HsSorArgs<T2>& a, int k, int y) {
    return static_cast<std::size_t>(y) * static_cast<std::size_t>(a.hpitch) + static_cast<std::size_t>(k);
}

// The mean of pixel (x, y) of colour c with every neighbour clamped into the image, read from
// `same` (this colour's old values) or `other` (the other colour's current values): the
// reference's border rule.
template <class T2, class Other>
__device__ __forceinline__ T2 border_mean(const HsSorArgs<T2>& a, int c, int x, int y, const T2* same,
                                          const Other& other) {
    using M = HsMath<T2>;
    const int dx[8] = {-1, 1, 0, 0, -1, 1, -1, 1}, dy[8] = {0, 0, -1, 1, -1, -1, 1, 1};
    T2 n[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int nx = clampi(x + dx[i], 0, a.w - 1), ny = clampi(y + dy[i], 0, a.h - 1);
        n[i] = ((nx + ny) & 1) == c ? same[at(a, nx >> 1, ny)] : other(nx, ny);
    }
    const T2 centre = same[at(a, x >> 1, y)];
    return M::mean(M::add(n[0], n[1]), M::add(n[2], n[3]), M::add(M::add(n[4], n[5]), M::add(n[6], n[7])), centre);
}

// The relaxed update of slot k of row y of colour c given its mean; returns the new value.
template <class T2>
__device__ __forceinline__ T2 relaxed(const HsSorArgs<T2>& a, int c, int k, int y, T2 m, T2 old) {
    const std::size_t i = at(a, k, y);
    return HsMath<T2>::relax(old, HsMath<T2>::update(m, a.c[c].d[i], a.c[c].o[i], a.c[c].r[i]), a.omega);
}

template <class T2>
struct SplitRead {
    const HsSorArgs<T2>* a;
    const T2* p;
    __device__ T2 operator()(int x, int y) const { return p[at(*a, x >> 1, y)]; }
};

template <class T2>
__global__ void __launch_bounds__(1024) k_hs_sor_half(HsSorArgs<T2> a, int c, int n) {
    if (stopped_before(a.eps, n)) return;
    using M = HsMath<T2>;
    const int k = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    const int s = (y + c) & 1;
    const int x = 2 * k + s;
    float err = 0.0f;
    if (y < a.h && x < a.w) {
        const T2* same = a.old_[c];
        const T2* other = c == 0 ? a.old_[1] : a.new_[0];
        const T2 old = same[at(a, k, y)];
        T2 m;
        if (x >= 1 && x <= a.w - 2 && y >= 1 && y <= a.h - 2) {
            const std::size_t row = at(a, 0, y), up = at(a, 0, y - 1), dn = at(a, 0, y + 1);
            const int l = k + s - 1, r = k + s;
            m = M::mean(M::add(other[row + l], other[row + r]), M::add(other[up + k], other[dn + k]),
                        M::add(M::add(same[up + l], same[up + r]), M::add(same[dn + l], same[dn + r])), old);
        } else {
            m = border_mean(a, c, x, y, same, SplitRead<T2>{&a, other});
        }
        const T2 nw = relaxed(a, c, k, y, m, old);
        a.new_[c][at(a, k, y)] = nw;
        err = M::change(nw, old);
    }
    if (a.eps.stop) {
        if (c == 0)
            block_partial(err, a.red_partials);
        else
            epsilon_step(err, a.eps, n, a.red_partials, a.red_blocks);
    }
}

// Shared red values of a FUSED block: natural layout of the tile plus a one-pixel ring.
template <class T2>
struct RedTile {
    T2* v;
    int x0, y0, sw; // origin (natural coordinates of entry 0: tile origin - 1), row length
    __device__ T2& operator()(int x, int y) const { return v[(y - y0) * sw + (x - x0)]; }
};

template <class T2>
__global__ void __launch_bounds__(1024) k_hs_sor_fused(HsSorArgs<T2> a, int n) {
    if (stopped_before(a.eps, n)) return;
    using M = HsMath<T2>;
    extern __shared__ unsigned char sor_smem[];
    const int bw = static_cast<int>(blockDim.x), bh = static_cast<int>(blockDim.y);
    const int tw = 2 * bw, th = bh;
    const int X0 = static_cast<int>(blockIdx.x) * tw, Y0 = static_cast<int>(blockIdx.y) * th;
    const RedTile<T2> red{reinterpret_cast<T2*>(sor_smem), X0 - 1, Y0 - 1, tw + 2};
    const int tid = static_cast<int>(threadIdx.y) * bw + static_cast<int>(threadIdx.x), nt = bw * bh;
    float err = 0.0f;

    // Red: the tile and its ring, bw + 1 red pixels in each of its th + 2 rows.
    const T2* red_old = a.old_[0];
    const T2* black_cur = a.old_[1];
    for (int t = tid; t < (th + 2) * (bw + 1); t += nt) {
        const int j = t / (bw + 1), i = t - j * (bw + 1);
        const int y = Y0 - 1 + j;
        const int x = X0 - 1 + (((X0 - 1 + y) & 1) != 0) + 2 * i;
        if (x < 0 || x >= a.w || y < 0 || y >= a.h) continue;
        const int k = x >> 1;
        const T2 old = red_old[at(a, k, y)];
        T2 m;
        if (x >= 1 && x <= a.w - 2 && y >= 1 && y <= a.h - 2) {
            const std::size_t row = at(a, 0, y), up = at(a, 0, y - 1), dn = at(a, 0, y + 1);
            const int s = y & 1, l = k + s - 1, r = k + s;
            m = M::mean(M::add(black_cur[row + l], black_cur[row + r]), M::add(black_cur[up + k], black_cur[dn + k]),
                        M::add(M::add(red_old[up + l], red_old[up + r]), M::add(red_old[dn + l], red_old[dn + r])),
                        old);
        } else {
            m = border_mean(a, 0, x, y, red_old, SplitRead<T2>{&a, black_cur});
        }
        const T2 nw = relaxed(a, 0, k, y, m, old);
        red(x, y) = nw;
        if (x >= X0 && x < X0 + tw && y >= Y0 && y < Y0 + th) {
            a.new_[0][at(a, k, y)] = nw;
            err += M::change(nw, old);
        }
    }
    __syncthreads();

    // Black: the tile's, bw per row, against the new red values in shared memory.
    const int y = Y0 + static_cast<int>(threadIdx.y);
    const int x = X0 + (((X0 + y) & 1) == 0) + 2 * static_cast<int>(threadIdx.x);
    if (x < a.w && y < a.h) {
        const T2* black_old = a.old_[1];
        const int k = x >> 1;
        const T2 old = black_old[at(a, k, y)];
        T2 m;
        if (x >= 1 && x <= a.w - 2 && y >= 1 && y <= a.h - 2) {
            const std::size_t up = at(a, 0, y - 1), dn = at(a, 0, y + 1);
            const int s = (y + 1) & 1, l = k + s - 1, r = k + s;
            m = M::mean(M::add(red(x - 1, y), red(x + 1, y)), M::add(red(x, y - 1), red(x, y + 1)),
                        M::add(M::add(black_old[up + l], black_old[up + r]), M::add(black_old[dn + l], black_old[dn + r])),
                        old);
        } else {
            m = border_mean(a, 1, x, y, black_old, red);
        }
        const T2 nw = relaxed(a, 1, k, y, m, old);
        a.new_[1][at(a, k, y)] = nw;
        err += M::change(nw, old);
    }
    if (a.eps.stop) epsilon_step(err, a.eps, n);
}

} // namespace

std::size_t hs_sor_fused_shared_bytes(bool f16, int bw, int bh) {
    return static_cast<std::size_t>(2 * bw + 2) * static_cast<std::size_t>(bh + 2) * (f16 ? 4u : 8u);
}

template <class T2>
cudaError_t launch_hs_sor_half(const HsSorArgs<T2>& a, int colour, int n, int bw, int bh, cudaStream_t s) {
    const int slots = (a.w + 1) / 2;
    const dim3 g(static_cast<unsigned>((slots + bw - 1) / bw), static_cast<unsigned>((a.h + bh - 1) / bh));
    k_hs_sor_half<T2><<<g, dim3(static_cast<unsigned>(bw), static_cast<unsigned>(bh)), 0, s>>>(a, colour, n);
    return cudaGetLastError();
}

template <class T2>
cudaError_t launch_hs_sor_fused(const HsSorArgs<T2>& a, int n, int bw, int bh, cudaStream_t s) {
    const dim3 g(static_cast<unsigned>((a.w + 2 * bw - 1) / (2 * bw)), static_cast<unsigned>((a.h + bh - 1) / bh));
    k_hs_sor_fused<T2><<<g, dim3(static_cast<unsigned>(bw), static_cast<unsigned>(bh)),
                         hs_sor_fused_shared_bytes(sizeof(T2) == 4, bw, bh), s>>>(a, n);
    return cudaGetLastError();
}

template cudaError_t launch_hs_sor_half<float2>(const HsSorArgs<float2>&, int, int, int, int, cudaStream_t);
template cudaError_t launch_hs_sor_half<__half2>(const HsSorArgs<__half2>&, int, int, int, int, cudaStream_t);
template cudaError_t launch_hs_sor_fused<float2>(const HsSorArgs<float2>&, int, int, int, cudaStream_t);
template cudaError_t launch_hs_sor_fused<__half2>(const HsSorArgs<__half2>&, int, int, int, cudaStream_t);

void list_hs_sor_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_hs_sor_half<float2>), "hs_sor_half_f32");
    l->add(reinterpret_cast<const void*>(&k_hs_sor_half<__half2>), "hs_sor_half_f16x2");
    l->add(reinterpret_cast<const void*>(&k_hs_sor_fused<float2>), "hs_sor_fused_f32");
    l->add(reinterpret_cast<const void*>(&k_hs_sor_fused<__half2>), "hs_sor_fused_f16x2");
}

} // namespace cuda
} // namespace oflow
