// GLOBAL Dense Inverse Search (dis_cuda.cuh): the plain baseline, one thread per patch for the
// search and for the propagation, every read from global memory. A patch's sums run over its
// rows top to bottom, each row left to right, in one F32 accumulator, and the step's 2x2 solve in
// double: dis_search_ref and dis_propagate_ref bit for bit (compiled without contraction).
#include "cuda/dis_cuda.cuh"

namespace oflow {
namespace cuda {
namespace {


// One round of dis_search_ref for one patch.
template <class T2>
__global__ void __launch_bounds__(kDisPatchThreads) k_dis_search_global(DisSearchCuda a) {
    const DisLevelArgs& l = a.l;
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= l.g.nx * l.g.ny) return;
    const int k = i % l.g.nx, j = i / l.g.nx;
    const std::size_t o = static_cast<std::size_t>(j) * static_cast<std::size_t>(l.sp) + static_cast<std::size_t>(k);
    const int px0 = dis_px(l.g, k), py0 = dis_py(l.g, j);
    const DisHessian H = dis_hessian(l, o);
    const float2 s0 = a.s_in[o];
    DisSearchState st = dis_search_start(s0.x, s0.y);
    for (int t = 0;; ++t) {
        const DisSums4 s = dis_rows_sums<T2, true>(l, px0, py0, st.ux, st.uy, 0, 1);
        if (!dis_search_step(&st, H, s, t, a.iterations)) break;
    }
    float2 f;
    float m, e;
    dis_search_result(st, l.g.p, &f, &m, &e);
    a.t_out[o] = f;
    a.md[o] = m;
    a.err[o] = e;
}

// dis_propagate_ref for one patch: its own flow at its E from the search, then left, right, up,
// down evaluated; the least E (ties: the earlier).
__global__ void __launch_bounds__(kDisPatchThreads) k_dis_propagate_global(DisLevelArgs l, const float2* t_in,
                                                                           const float* err_in, float2* s_out) {
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= l.g.nx * l.g.ny) return;
    const int k = i % l.g.nx, j = i / l.g.nx;
    const float n = static_cast<float>(l.g.p) * static_cast<float>(l.g.p);
    const int px0 = dis_px(l.g, k), py0 = dis_py(l.g, j);
    const std::size_t o = static_cast<std::size_t>(j) * static_cast<std::size_t>(l.sp) + static_cast<std::size_t>(k);
    const int ck[4] = {k - 1, k + 1, k, k};
    const int cj[4] = {j, j, j - 1, j + 1};
    float bx = t_in[o].x, by = t_in[o].y, be = err_in[o];
    for (int c = 0; c < 4; ++c) {
        if (ck[c] < 0 || ck[c] >= l.g.nx || cj[c] < 0 || cj[c] >= l.g.ny) continue;
        const float2 u = t_in[static_cast<std::size_t>(cj[c]) * static_cast<std::size_t>(l.sp) + static_cast<std::size_t>(ck[c])];
        if (fabsf(u.x - bx) <= kDisSameFlow && fabsf(u.y - by) <= kDisSameFlow) continue;
        const DisSums4 s = dis_rows_sums<float2, false>(l, px0, py0, u.x, u.y, 0, 1);
        const float e = s.dd - s.d * s.d / n;
        if (e < be) {
            be = e;
            bx = u.x;
            by = u.y;
        }
    }
    s_out[static_cast<std::size_t>(j) * static_cast<std::size_t>(l.sp) + static_cast<std::size_t>(k)] = make_float2(bx, by);
}

unsigned patch_blocks(const DisGrid& g) {
    return static_cast<unsigned>((g.nx * g.ny + kDisPatchThreads - 1) / kDisPatchThreads);
}

} // namespace

cudaError_t launch_dis_search_global(const DisSearchCuda& a, bool f16, cudaStream_t s) {
    if (f16)
        k_dis_search_global<__half2><<<patch_blocks(a.l.g), kDisPatchThreads, 0, s>>>(a);
    else
        k_dis_search_global<float2><<<patch_blocks(a.l.g), kDisPatchThreads, 0, s>>>(a);
    return cudaGetLastError();
}

cudaError_t launch_dis_propagate_global(const DisLevelArgs& a, const float2* t_in, const float* err_in, float2* s_out,
                                        cudaStream_t s) {
    k_dis_propagate_global<<<patch_blocks(a.g), kDisPatchThreads, 0, s>>>(a, t_in, err_in, s_out);
    return cudaGetLastError();
}

void list_dis_global_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_dis_search_global<float2>), "dis_search_global_f32");
    l->add(reinterpret_cast<const void*>(&k_dis_search_global<__half2>), "dis_search_global_f16x2");
    l->add(reinterpret_cast<const void*>(&k_dis_propagate_global), "dis_propagate_global");
}

} // namespace cuda
} // namespace oflow
