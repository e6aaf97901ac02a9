// FUSED Dense Inverse Search (dis_cuda.cuh): one launch per round, kDisLanes lanes per patch
// (8-px patches, every preset's: k_dis_round_fused8, a row a lane with frame 0's row and its
// gradient in registers; other sides: k_dis_round_fused, rows strided over the lanes)
// (kDisPatchThreads / kDisLanes patches a block). Lane r sums the patch's rows r, r + kDisLanes,
// ... (each left to right), a shuffle tree adds the lanes' sums and lane 0's result is broadcast,
// so that every lane of a patch takes the same decisions (the group's lanes stay converged: the
// shuffles name the group's mask only, and groups of one warp may stop at different steps).
// The round first picks its start: the dense flow at the patch centre in the first round
// (dis_init_ref), else the propagation of the previous round's flows (dis_propagate_ref's
// candidates and rule); then its steps (dis_search_ref's loop). Reads the previous round's flows
// from s_in and writes t_out: the rounds ping-pong between dis_t[0] and dis_t[1], since a
// neighbour's propagation reads a patch's flow of the previous round. The own candidate's E
// (dis_propagate_ref: not evaluated again) is the previous round's, in the err plane, which only
// the patch's own group reads and writes (read first, lane 0 writes after the group's __syncwarp).
#include "cuda/dis_cuda.cuh"

namespace oflow {
namespace cuda {
namespace {

static_assert(kDisLanes == 8 && kDisPatchThreads % 32 == 0, "the group masks assume 8-lane groups in full warps");

// The group's sums of the patch at (px0, py0) at shift u: every lane gets lane 0's total.
template <class T2, bool kGrad>
__device__ __forceinline__ DisSums4 group_sums(const DisLevelArgs& l, int px0, int py0, float ux, float uy, int lane,
                                               unsigned mask) {
    DisSums4 s = dis_rows_sums<T2, kGrad>(l, px0, py0, ux, uy, lane, kDisLanes);
    for (int off = kDisLanes / 2; off > 0; off >>= 1) {
        s.d += __shfl_down_sync(mask, s.d, off, kDisLanes);
        s.dd += __shfl_down_sync(mask, s.dd, off, kDisLanes);
        if (kGrad) {
            s.gx += __shfl_down_sync(mask, s.gx, off, kDisLanes);
            s.gy += __shfl_down_sync(mask, s.gy, off, kDisLanes);
        }
    }
    s.d = __shfl_sync(mask, s.d, 0, kDisLanes);
    s.dd = __shfl_sync(mask, s.dd, 0, kDisLanes);
    if (kGrad) {
        s.gx = __shfl_sync(mask, s.gx, 0, kDisLanes);
        s.gy = __shfl_sync(mask, s.gy, 0, kDisLanes);
    }
    return s;
}

template <class T2>
__global__ void __launch_bounds__(kDisPatchThreads) k_dis_round_fused(DisSearchCuda a) {
    const DisLevelArgs& l = a.l;
    const int tid = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int i = tid / kDisLanes, lane = tid % kDisLanes;
    if (i >= l.g.nx * l.g.ny) return; // the whole group leaves together
    const unsigned mask = 0xFFu << (static_cast<unsigned>(threadIdx.x & 31u) & ~static_cast<unsigned>(kDisLanes - 1));
    const int k = i % l.g.nx, j = i / l.g.nx;
    const std::size_t o = static_cast<std::size_t>(j) * static_cast<std::size_t>(l.sp) + static_cast<std::size_t>(k);
    const int px0 = dis_px(l.g, k), py0 = dis_py(l.g, j);
    const float n = static_cast<float>(l.g.p) * static_cast<float>(l.g.p);
    float2 start;
    if (a.first) {
        const int c = l.g.p / 2;
        start = a.u[static_cast<std::size_t>(py0 + c) * static_cast<std::size_t>(l.pitch) + static_cast<std::size_t>(px0 + c)];
    } else {
        const int ck[4] = {k - 1, k + 1, k, k};
        const int cj[4] = {j, j, j - 1, j + 1};
        float bx = a.s_in[o].x, by = a.s_in[o].y, be = a.err[o]; // own flow at its E, not evaluated
        for (int c = 0; c < 4; ++c) {
            if (ck[c] < 0 || ck[c] >= l.g.nx || cj[c] < 0 || cj[c] >= l.g.ny) continue;
            const float2 u = a.s_in[static_cast<std::size_t>(cj[c]) * static_cast<std::size_t>(l.sp) + static_cast<std::size_t>(ck[c])];
            if (fabsf(u.x - bx) <= kDisSameFlow && fabsf(u.y - by) <= kDisSameFlow) continue;
            const DisSums4 s = group_sums<T2, false>(l, px0, py0, u.x, u.y, lane, mask);
            const float e = s.dd - s.d * s.d / n;
            if (e < be) {
                be = e;
                bx = u.x;
                by = u.y;
            }
        }
        start = make_float2(bx, by);
    }
    const DisHessian H = dis_hessian(l, o);
    DisSearchState st = dis_search_start(start.x, start.y);
    for (int t = 0;; ++t) {
        const DisSums4 s = group_sums<T2, true>(l, px0, py0, st.ux, st.uy, lane, mask);
        if (!dis_search_step(&st, H, s, t, a.iterations)) break;
    }
    __syncwarp(mask); // every lane of the group read its own E before lane 0 writes it
    if (lane == 0) {
        float2 f;
        float m, e;
        dis_search_result(st, l.g.p, &f, &m, &e);
        a.t_out[o] = f;
        a.md[o] = m;
        a.err[o] = e;
    }
}

// The group's sums for 8-px patches, one row a lane, frame 0's row and its gradient held in
// registers (t0, gx, gy) across the round's evaluations and I1's 9 taps of both tap rows loaded
// at once: the same operations in the same order as group_sums (dis_rows_sums with r0 = lane,
// dr = kDisLanes), so the same bits.
template <bool kGrad>
__device__ __forceinline__ DisSums4 group_sums8(const DisLevelArgs& l, int px0, int y, float ux, float uy,
                                                const float (&t0)[8], const float (&gx)[8], const float (&gy)[8],
                                                unsigned mask) {
    const DisShift sh = dis_split(ux, uy, l.w, l.h);
    const int xa0 = px0 + sh.ix;
    const bool inside = xa0 >= 0 && xa0 + 8 < l.w;
    const int ya = clampi(y + sh.iy, 0, l.h - 1), yb = clampi(y + sh.iy + 1, 0, l.h - 1);
    const float* ra = l.i1 + static_cast<std::size_t>(ya) * static_cast<std::size_t>(l.pitch);
    const float* rb = l.i1 + static_cast<std::size_t>(yb) * static_cast<std::size_t>(l.pitch);
    float a[9], b[9];
#pragma unroll
    for (int k = 0; k < 9; ++k) {
        const int x = inside ? xa0 + k : clampi(xa0 + k, 0, l.w - 1);
        a[k] = __ldg(ra + x);
        b[k] = __ldg(rb + x);
    }
    DisSums4 s{0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int xx = 0; xx < 8; ++xx) {
        const float top = a[xx] + sh.fx * (a[xx + 1] - a[xx]);
        const float bot = b[xx] + sh.fx * (b[xx + 1] - b[xx]);
        const float d = (top + sh.fy * (bot - top)) - t0[xx];
        s.d += d;
        s.dd += d * d;
        if (kGrad) {
            s.gx += gx[xx] * d;
            s.gy += gy[xx] * d;
        }
    }
    for (int off = kDisLanes / 2; off > 0; off >>= 1) {
        s.d += __shfl_down_sync(mask, s.d, off, kDisLanes);
        s.dd += __shfl_down_sync(mask, s.dd, off, kDisLanes);
        if (kGrad) {
            s.gx += __shfl_down_sync(mask, s.gx, off, kDisLanes);
            s.gy += __shfl_down_sync(mask, s.gy, off, kDisLanes);
        }
    }
    s.d = __shfl_sync(mask, s.d, 0, kDisLanes);
    s.dd = __shfl_sync(mask, s.dd, 0, kDisLanes);
    if (kGrad) {
        s.gx = __shfl_sync(mask, s.gx, 0, kDisLanes);
        s.gy = __shfl_sync(mask, s.gy, 0, kDisLanes);
    }
    return s;
}

// k_dis_round_fused for 8-px patches (every preset's): lane r owns row r of the patch.
template <class T2>
__global__ void __launch_bounds__(kDisPatchThreads) k_dis_round_fused8(DisSearchCuda a) {
    const DisLevelArgs& l = a.l;
    const int tid = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int i = tid / kDisLanes, lane = tid % kDisLanes;
    if (i >= l.g.nx * l.g.ny) return; // the whole group leaves together
    const unsigned mask = 0xFFu << (static_cast<unsigned>(threadIdx.x & 31u) & ~static_cast<unsigned>(kDisLanes - 1));
    const int k = i % l.g.nx, j = i / l.g.nx;
    const std::size_t o = static_cast<std::size_t>(j) * static_cast<std::size_t>(l.sp) + static_cast<std::size_t>(k);
    const int px0 = dis_px(l.g, k), py0 = dis_py(l.g, j), y = py0 + lane;
    float t0[8], gx[8], gy[8];
    {
        const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(l.pitch) + static_cast<std::size_t>(px0);
        const T2* grad = static_cast<const T2*>(l.grad);
#pragma unroll
        for (int xx = 0; xx < 8; ++xx) {
            t0[xx] = __ldg(l.i0 + row + xx);
            const float2 g = DisPair<T2>::get(grad, row + static_cast<std::size_t>(xx));
            gx[xx] = g.x;
            gy[xx] = g.y;
        }
    }
    float2 start;
    if (a.first) {
        start = a.u[static_cast<std::size_t>(py0 + 4) * static_cast<std::size_t>(l.pitch) + static_cast<std::size_t>(px0 + 4)];
    } else {
        const int ck[4] = {k - 1, k + 1, k, k};
        const int cj[4] = {j, j, j - 1, j + 1};
        float bx = a.s_in[o].x, by = a.s_in[o].y, be = a.err[o]; // own flow at its E, not evaluated
        for (int c = 0; c < 4; ++c) {
            if (ck[c] < 0 || ck[c] >= l.g.nx || cj[c] < 0 || cj[c] >= l.g.ny) continue;
            const float2 u = a.s_in[static_cast<std::size_t>(cj[c]) * static_cast<std::size_t>(l.sp) + static_cast<std::size_t>(ck[c])];
            if (fabsf(u.x - bx) <= kDisSameFlow && fabsf(u.y - by) <= kDisSameFlow) continue;
            const DisSums4 s = group_sums8<false>(l, px0, y, u.x, u.y, t0, gx, gy, mask);
            const float e = s.dd - s.d * s.d * (1.0f / 64.0f); // == / 64 exactly
            if (e < be) {
                be = e;
                bx = u.x;
                by = u.y;
            }
        }
        start = make_float2(bx, by);
    }
    const DisHessian H = dis_hessian(l, o);
    DisSearchState st = dis_search_start(start.x, start.y);
    for (int t = 0;; ++t) {
        const DisSums4 s = group_sums8<true>(l, px0, y, st.ux, st.uy, t0, gx, gy, mask);
        if (!dis_search_step(&st, H, s, t, a.iterations)) break;
    }
    __syncwarp(mask); // every lane of the group read its own E before lane 0 writes it
    if (lane == 0) {
        float2 f;
        float m, e;
        dis_search_result(st, 8, &f, &m, &e);
        a.t_out[o] = f;
        a.md[o] = m;
        a.err[o] = e;
    }
}

} // namespace

cudaError_t launch_dis_round_fused(const DisSearchCuda& a, bool f16, cudaStream_t s) {
    const long long threads = static_cast<long long>(a.l.g.nx) * a.l.g.ny * kDisLanes;
    const unsigned blocks = static_cast<unsigned>((threads + kDisPatchThreads - 1) / kDisPatchThreads);
    if (a.l.g.p == 8 && f16)
        k_dis_round_fused8<__half2><<<blocks, kDisPatchThreads, 0, s>>>(a);
    else if (a.l.g.p == 8)
        k_dis_round_fused8<float2><<<blocks, kDisPatchThreads, 0, s>>>(a);
    else if (f16)
        k_dis_round_fused<__half2><<<blocks, kDisPatchThreads, 0, s>>>(a);
    else
        k_dis_round_fused<float2><<<blocks, kDisPatchThreads, 0, s>>>(a);
    return cudaGetLastError();
}

void list_dis_fused_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_dis_round_fused<float2>), "dis_round_fused_f32");
    l->add(reinterpret_cast<const void*>(&k_dis_round_fused<__half2>), "dis_round_fused_f16x2");
    l->add(reinterpret_cast<const void*>(&k_dis_round_fused8<float2>), "dis_round_fused8_f32");
    l->add(reinterpret_cast<const void*>(&k_dis_round_fused8<__half2>), "dis_round_fused8_f16x2");
}

} // namespace cuda
} // namespace oflow
