// GLOBAL Jacobi for HS / CLG (hs_cuda.cuh): one kernel per iteration, one thread per pixel, every
// neighbour from global memory (through the caches). The baseline every HS/CLG benchmark row is
// compared with. Reads du_in, writes du_out (ping-pong: a Jacobi iteration must not see its own
// updates).
//
// Also here: the ping-pong repair after an epsilon stop, for every HS/CLG solver.
#include "cuda/cuda_layout.hpp"
#include "cuda/hs_cuda.cuh"

namespace oflow {
namespace cuda {
namespace {

template <class T2>
__global__ void __launch_bounds__(1024) k_hs_jacobi_global(HsJacobiArgs<T2> a, int n) {
    if (stopped_before(a.eps, n)) return;
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    float err = 0.0f;
    if (x < a.w && y < a.h) {
        using M = HsMath<T2>;
        const std::size_t p = static_cast<std::size_t>(a.pitch);
        const int xl = x > 0 ? x - 1 : 0, xr = x + 1 < a.w ? x + 1 : a.w - 1;
        const T2* c = a.du_in + static_cast<std::size_t>(y) * p;
        const T2* up = a.du_in + static_cast<std::size_t>(y > 0 ? y - 1 : 0) * p;
        const T2* dn = a.du_in + static_cast<std::size_t>(y + 1 < a.h ? y + 1 : a.h - 1) * p;
        const T2 v = c[x];
        const T2 m = M::mean(M::add(c[xl], c[xr]), M::add(up[x], dn[x]),
                             M::add(M::add(up[xl], up[xr]), M::add(dn[xl], dn[xr])), v);
        const std::size_t i = static_cast<std::size_t>(y) * p + static_cast<std::size_t>(x);
        const T2 nw = M::update(m, a.c.d[i], a.c.o[i], a.c.r[i]);
        a.du_out[i] = nw;
        err = M::change(nw, v);
    }
    if (a.eps.stop) epsilon_step(err, a.eps, n);
}

template <class T2>
__global__ void __launch_bounds__(kPlaneBlockX * kPlaneBlockY) k_hs_fixup(HsPingPong<T2> f, const int* stop,
                                                                     int launches) {
    const int st = *stop;
    const int ran = st < launches ? st + 1 : launches;
    if ((ran & 1) == (launches & 1)) return;
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= f.w || y >= f.h) return;
    const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(f.pitch) + static_cast<std::size_t>(x);
    for (int k = 0; k < f.planes; ++k) {
        if (ran & 1) // the result is on side 1, expected on side 0
            f.side0[k][i] = f.side1[k][i];
        else
            f.side1[k][i] = f.side0[k][i];
    }
}

dim3 grid_for(int w, int h, int bw, int bh) {
    return dim3(static_cast<unsigned>((w + bw - 1) / bw), static_cast<unsigned>((h + bh - 1) / bh));
}

} // namespace

template <class T2>
cudaError_t launch_hs_jacobi_global(const HsJacobiArgs<T2>& a, int n, int bw, int bh, cudaStream_t s) {
    k_hs_jacobi_global<T2><<<grid_for(a.w, a.h, bw, bh), dim3(static_cast<unsigned>(bw), static_cast<unsigned>(bh)), 0, s>>>(
        a, n);
    return cudaGetLastError();
}

template <class T2>
cudaError_t launch_hs_fixup(const HsPingPong<T2>& f, const int* stop, int launches, cudaStream_t s) {
    k_hs_fixup<T2><<<grid_for(f.w, f.h, kPlaneBlockX, kPlaneBlockY), dim3(kPlaneBlockX, kPlaneBlockY), 0, s>>>(f, stop,
                                                                                                             launches);
    return cudaGetLastError();
}

template cudaError_t launch_hs_jacobi_global<float2>(const HsJacobiArgs<float2>&, int, int, int, cudaStream_t);
template cudaError_t launch_hs_jacobi_global<__half2>(const HsJacobiArgs<__half2>&, int, int, int, cudaStream_t);
template cudaError_t launch_hs_fixup<float2>(const HsPingPong<float2>&, const int*, int, cudaStream_t);
template cudaError_t launch_hs_fixup<__half2>(const HsPingPong<__half2>&, const int*, int, cudaStream_t);

void list_hs_jacobi_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_hs_jacobi_global<float2>), "hs_jacobi_global_f32");
    l->add(reinterpret_cast<const void*>(&k_hs_jacobi_global<__half2>), "hs_jacobi_global_f16x2");
    l->add(reinterpret_cast<const void*>(&k_hs_fixup<float2>), "hs_fixup_f32");
    l->add(reinterpret_cast<const void*>(&k_hs_fixup<__half2>), "hs_fixup_f16x2");
}

} // namespace cuda
} // namespace oflow
