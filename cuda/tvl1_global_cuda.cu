// GLOBAL variant: two kernels per iteration in global memory, the baseline every benchmark row
// is compared with (also OpenCV's structure). calc_u writes u only at its own pixel and reads u
// only there; calc_p writes p only at its own pixel and reads p only there: both run in place,
// exactly as the reference does. One thread per pixel.
//
// Under OF_ROBUST_CENSUS calc_u is k_global_calc_u2 (the minor channel's threshold step added,
// IterArgs::minor); calc_p is the same.
//
// Also here: the ping-pong repair kernel the FUSED and MULTI_ITER variants use after an
// epsilon stop.
#include "cuda/cuda_layout.hpp"
#include "cuda/tvl1_iter.cuh"

namespace oflow {
namespace cuda {
namespace {

// calc_u at this thread's pixel, in place as the reference: step(u, consts, i) gives the
// threshold step (d1, d2) to add to u before theta div p; the epsilon reduction of |du|^2.
template <class T2, class Step>
__device__ __forceinline__ void calc_u_pixel(const IterArgs<T2>& a, int n, const Step& step) {
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
        const float2 un = step(u, load_consts(a, i), div, i);
        a.u_out[i] = un;
        err = step_sq(u, un);
    }
    if (a.eps.stop) epsilon_step(err, a.eps, n);
}

template <class T2>
__global__ void __launch_bounds__(1024) k_global_calc_u(IterArgs<T2> a, int n) {
    calc_u_pixel(a, n, [&](float2 u, const Consts& c, float2 div, std::size_t) {
        return u_update<T2>(u, c, div, a.lt, a.theta);
    });
}

// The threshold step of one channel (tvl1_ref.cpp threshold_factor): the step to add to u is
// f a, f = lt where rho < -lt g, -lt where rho > lt g, else -rho / g (0 where g <= 1e-10).
__device__ __forceinline__ float threshold_factor(float rho, float g, float lt) {
    if (rho < -lt * g) return lt;
    if (rho > lt * g) return -lt;
    return g > Pair<float2>::kG2Min ? -rho / g : 0.0f;
}

// OF_ROBUST_CENSUS: calc_u with the minor channel (q, rho_c2) orthogonal to g (tvl1_calc_u2_ref,
// its operations in its order): each channel's threshold step added, then u + steps + theta div p.
// F32 only (the census iteration's, cuda_layout.hpp tvl1_run_config).
__global__ void __launch_bounds__(1024) k_global_calc_u2(IterArgs<float2> a, int n) {
    calc_u_pixel(a, n, [&](float2 u, const Consts& c, float2 div, std::size_t i) {
        const float2 m = a.minor[i]; // (q, rho_c2)
        const float f = threshold_factor(c.rc + c.ix * u.x + c.iy * u.y, c.g2, a.lt);
        float d1 = f * c.ix, d2 = f * c.iy;
        const float jx = -m.x * c.iy, jy = m.x * c.ix;
        const float f2 = threshold_factor(m.y + jx * u.x + jy * u.y, m.x * m.x * c.g2, a.lt);
        d1 += f2 * jx;
        d2 += f2 * jy;
        return make_float2(u.x + d1 + a.theta * div.x, u.y + d2 + a.theta * div.y);
    });
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

// calc_u of iteration n: the census one (k_global_calc_u2) where a.minor is given (F32 only).
cudaError_t launch_calc_u(const IterArgs<float2>& a, int n, dim3 g, dim3 b, cudaStream_t s) {
    if (a.minor)
        k_global_calc_u2<<<g, b, 0, s>>>(a, n);
    else
        k_global_calc_u<float2><<<g, b, 0, s>>>(a, n);
    return cudaGetLastError();
}
cudaError_t launch_calc_u(const IterArgs<__half2>& a, int n, dim3 g, dim3 b, cudaStream_t s) {
    if (a.minor) return cudaErrorInvalidValue; // the minor channel reads F32 pairs only
    k_global_calc_u<__half2><<<g, b, 0, s>>>(a, n);
    return cudaGetLastError();
}

} // namespace

template <class T2>
cudaError_t launch_global_iteration(const IterArgs<T2>& a, int n, int bw, int bh, cudaStream_t s) {
    const dim3 g = grid_for(a.w, a.h, bw, bh), b(static_cast<unsigned>(bw), static_cast<unsigned>(bh));
    const cudaError_t e = launch_calc_u(a, n, g, b, s);
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
    l->add(reinterpret_cast<const void*>(&k_global_calc_u2), "global_calc_u2_f32");
    l->add(reinterpret_cast<const void*>(&k_global_calc_p<float2>), "global_calc_p_f32");
    l->add(reinterpret_cast<const void*>(&k_global_calc_u<__half2>), "global_calc_u_f16x2");
    l->add(reinterpret_cast<const void*>(&k_global_calc_p<__half2>), "global_calc_p_f16x2");
    l->add(reinterpret_cast<const void*>(&k_pingpong_fixup<float2>), "pingpong_fixup_f32");
    l->add(reinterpret_cast<const void*>(&k_pingpong_fixup<__half2>), "pingpong_fixup_f16x2");
}

} // namespace cuda
} // namespace oflow
