// FUSED variant: one kernel per iteration. A bw x bh block owns a bw x bh tile of output
// pixels with origin (x0, y0):
//   1. loads p1, p2 on the tile + a 1-pixel halo on every side into shared memory
//      ((bw+2) x (bh+2); out-of-image entries are 0 and never read);
//   2. calc_u on the tile + its right column and bottom row ((bw+1) x (bh+1)): the new u goes
//      to shared memory, and for tile pixels also to u_out;
//   3. calc_p on the tile from the shared new u (right/lower neighbours) -> p_out.
// Reads *_in and writes *_out (ping-pong), so a block's halo reads never see a neighbour's new
// values: one launch equals one reference iteration.
//
// Shared memory: (bw+1)(bh+1) float2 + 2 (bw+2)(bh+2) T2 (32x8 F32: 2.4 KB + 5.4 KB).
#include "cuda/tvl1_iter.cuh"

namespace oflow {
namespace cuda {
namespace {

template <class T2>
__global__ void __launch_bounds__(1024) k_fused(IterArgs<T2> a, int n) {
    if (stopped_before(a.eps, n)) return;
    extern __shared__ float2 fused_smem[];
    const int bw = static_cast<int>(blockDim.x), bh = static_cast<int>(blockDim.y);
    const int pw = bw + 2, ph = bh + 2, uw = bw + 1;
    float2* su = fused_smem;                                   // (bw+1) x (bh+1), origin (x0, y0)
    T2* sp1 = reinterpret_cast<T2*>(su + uw * (bh + 1));       // (bw+2) x (bh+2), origin (x0-1, y0-1)
    T2* sp2 = sp1 + pw * ph;
    const int x0 = static_cast<int>(blockIdx.x) * bw, y0 = static_cast<int>(blockIdx.y) * bh;
    const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
    const int tid = thread_rank(), nt = block_threads();
    const int w = a.w, h = a.h;
    const std::size_t pitch = static_cast<std::size_t>(a.pitch);

    for (int i = tid; i < pw * ph; i += nt) {
        const int sy = i / pw, sx = i - sy * pw;
        const int gx = x0 - 1 + sx, gy = y0 - 1 + sy;
        T2 v1 = Pair<T2>::zero(), v2 = Pair<T2>::zero();
        if (gx >= 0 && gx < w && gy >= 0 && gy < h) {
            const std::size_t gi = static_cast<std::size_t>(gy) * pitch + static_cast<std::size_t>(gx);
            v1 = a.p1_in[gi];
            v2 = a.p2_in[gi];
        }
        sp1[i] = v1;
        sp2[i] = v2;
    }
    __syncthreads();

    float err = 0.0f;
    // calc_u at tile-relative (sx, sy), 0 <= sx <= bw, 0 <= sy <= bh.
    auto calc_u = [&](int sx, int sy) {
        const int gx = x0 + sx, gy = y0 + sy;
        if (gx >= w || gy >= h) return;
        const std::size_t gi = static_cast<std::size_t>(gy) * pitch + static_cast<std::size_t>(gx);
        const int si = (sy + 1) * pw + (sx + 1);
        const T2 p1l = gx > 0 ? sp1[si - 1] : Pair<T2>::zero();
        const T2 p2u = gy > 0 ? sp2[si - pw] : Pair<T2>::zero();
        const float2 div = Pair<T2>::div(sp1[si], p1l, sp2[si], p2u);
        const float2 u = a.u_in[gi];
        const float2 un = u_update<T2>(u, load_consts(a, gi), div, a.lt, a.theta);
        su[sy * uw + sx] = un;
        if (sx < bw && sy < bh) {
            a.u_out[gi] = un;
            err = step_sq(u, un);
        }
    };
    calc_u(tx, ty);
    // The right column (bh+1 points, the corner included) and the bottom row (bw points).
    for (int j = tid; j < bw + bh + 1; j += nt) {
        if (j <= bh)
            calc_u(bw, j);
        else
            calc_u(j - bh - 1, bh);
    }
    __syncthreads();

    const int gx = x0 + tx, gy = y0 + ty;
    if (gx < w && gy < h) {
        const std::size_t gi = static_cast<std::size_t>(gy) * pitch + static_cast<std::size_t>(gx);
        const int ui = ty * uw + tx;
        const float2 u = su[ui];
        const float2 ur = gx + 1 < w ? su[ui + 1] : u;
        const float2 ud = gy + 1 < h ? su[ui + uw] : u;
        float2 gxv, gyv;
        forward_grad(u, ur, ud, gx, gy, w, h, &gxv, &gyv);
        const int si = (ty + 1) * pw + (tx + 1);
        T2 p1 = sp1[si], p2 = sp2[si];
        Pair<T2>::dual(p1, p2, gxv, gyv, a.k);
        a.p1_out[gi] = p1;
        a.p2_out[gi] = p2;
    }
    if (a.eps.stop) epsilon_step(err, a.eps, n);
}

} // namespace

template <class T2>
cudaError_t launch_fused_iteration(const IterArgs<T2>& a, int n, int bw, int bh, std::size_t shared,
                                   cudaStream_t s) {
    const dim3 g(static_cast<unsigned>((a.w + bw - 1) / bw), static_cast<unsigned>((a.h + bh - 1) / bh));
    k_fused<T2><<<g, dim3(static_cast<unsigned>(bw), static_cast<unsigned>(bh)), shared, s>>>(a, n);
    return cudaGetLastError();
}

template cudaError_t launch_fused_iteration<float2>(const IterArgs<float2>&, int, int, int, std::size_t,
                                                    cudaStream_t);
template cudaError_t launch_fused_iteration<__half2>(const IterArgs<__half2>&, int, int, int, std::size_t,
                                                     cudaStream_t);

void list_fused_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_fused<float2>), "fused_f32");
    l->add(reinterpret_cast<const void*>(&k_fused<__half2>), "fused_f16x2");
}

} // namespace cuda
} // namespace oflow
