// GLOBAL variant: two kernels per iteration in global memory, the baseline every benchmark row
// is compared with (also OpenCV's structure). calc_u writes u only at its own pixel and reads u
// only there; calc_p writes p only at its own pixel and reads p only there: both run in place,
// exactly as the reference does. One thread per pixel.
//
// Also here: the ping-pong repair kernel the FUSED and MULTI_ITER variants use after an
// epsilon stop.
#include "cuda/cuda_layout.hpp"
#include "cuda/tvl1_iter.cuh"

namespace oflow {
namespace cuda {
namespace {

template <class T2>
__global__ void __launch_bounds__(1024) k_global_calc_u(IterArgs<T2> a, int n) {
    if (stopped_before(a.eps, n)) return;
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    float err = 0.0f;
    if (x < a.w && y < a.h) {
        const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(a.pitch) + static_cast<std::size_t>(x);
        const T2 p1 = a.p1_in[i], p2 = a.p2_in[i];
        const T2 p1l = x > 0 ? a.p1_in[i - 1] : Pair<T2>::zero();
        const T2 p2u = y > 0 ? a.p2_in[i - static_cast<std::size_t>(a.pitch)] : Pair<T2>::zero();
        const float2 div = Pair<T2>::div(p1, p1l, p2, p2u);
        const float2 u = a.u_in[i];
        const float2 un = u_update<T2>(u, load_consts(a, i), div, a.lt, a.theta);
        a.u_out[i] = un;
        err = step_sq(u, un);
    }
    if (a.eps.stop) epsilon_step(err, a.eps, n);
}

template <class T2>
__global__ void __launch_bounds__(1024) k_global_calc_p(IterArgs<T2> a, int n) {
    if (stopped_before(a.eps, n)) return;
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= a.w || y >= a.h) return;
    const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(a.pitch) + static_cast<std::size_t>(x);
    const float2 u = a.u_out[i];
    const float2 ur = x + 1 < a.w ? a.u_out[i + 1] : u;
    const float2 ud = y + 1 < a.h ? a.u_out[i + static_cast<std::size_t>(a.pitch)] : u;
    float2 gx, gy;
    forward_grad(u, ur, ud, x, y, a.w, a.h, &gx, &gy);
    T2 p1 = a.p1_out[i], p2 = a.p2_out[i];
    Pair<T2>::dual(p1, p2, gx, gy, a.k);
    a.p1_out[i] = p1;
    a.p2_out[i] = p2;
}

template <class T2>
__global__ void __launch_bounds__(kPlaneBlockX * kPlaneBlockY) k_pingpong_fixup(IterArgs<T2> a, int launches) {
    const int st = *a.eps.stop;
    const int ran = st < launches ? st + 1 : launches;
    if ((ran & 1) == (launches & 1)) return;
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= a.w || y >= a.h) return;
    const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(a.pitch) + static_cast<std::size_t>(x);
    if (ran & 1) { // result on the *_out side, expected on the *_in side
        a.u_in[i] = a.u_out[i];
        a.p1_in[i] = a.p1_out[i];
        a.p2_in[i] = a.p2_out[i];
    } else {
        a.u_out[i] = a.u_in[i];
        a.p1_out[i] = a.p1_in[i];
        a.p2_out[i] = a.p2_in[i];
    }
}

dim3 grid_for(int w, int h, int bw, int bh) {
    return dim3(static_cast<unsigned>((w + bw - 1) / bw), static_cast<unsigned>((h + bh - 1) / bh));
}

} // namespace

template <class T2>
cudaError_t launch_global_iteration(const IterArgs<T2>& a, int n, int bw, int bh, cudaStream_t s) {
    const dim3 g = grid_for(a.w, a.h, bw, bh), b(static_cast<unsigned>(bw), static_cast<unsigned>(bh));
    k_global_calc_u<T2><<<g, b, 0, s>>>(a, n);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    k_global_calc_p<T2><<<g, b, 0, s>>>(a, n);
    return cudaGetLastError();
}

template <class T2>
cudaError_t launch_pingpong_fixup(const IterArgs<T2>& a, int launches, cudaStream_t s) {
    k_pingpong_fixup<T2><<<grid_for(a.w, a.h, kPlaneBlockX, kPlaneBlockY), dim3(kPlaneBlockX, kPlaneBlockY), 0, s>>>(a, launches);
    return cudaGetLastError();
}

template cudaError_t launch_global_iteration<float2>(const IterArgs<float2>&, int, int, int, cudaStream_t);
template cudaError_t launch_global_iteration<__half2>(const IterArgs<__half2>&, int, int, int, cudaStream_t);
template cudaError_t launch_pingpong_fixup<float2>(const IterArgs<float2>&, int, cudaStream_t);
template cudaError_t launch_pingpong_fixup<__half2>(const IterArgs<__half2>&, int, cudaStream_t);

void list_global_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_global_calc_u<float2>), "global_calc_u_f32");
    l->add(reinterpret_cast<const void*>(&k_global_calc_p<float2>), "global_calc_p_f32");
    l->add(reinterpret_cast<const void*>(&k_global_calc_u<__half2>), "global_calc_u_f16x2");
    l->add(reinterpret_cast<const void*>(&k_global_calc_p<__half2>), "global_calc_p_f16x2");
    l->add(reinterpret_cast<const void*>(&k_pingpong_fixup<float2>), "pingpong_fixup_f32");
    l->add(reinterpret_cast<const void*>(&k_pingpong_fixup<__half2>), "pingpong_fixup_f16x2");
}

} // namespace cuda
} // namespace oflow
