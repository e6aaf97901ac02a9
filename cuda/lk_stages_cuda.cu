// Lucas-Kanade per-level setup on the device (lk_cuda.cuh): frame 0's Scharr gradient, the
// tensor products' horizontal box sums, then their vertical box sums with the confidence, the
// state and what the steps read (G or -G^-1). The reference kernels' operations in their order
// (core/ref/lk_ref.cpp lk_scharr_ref, lk_tensor_ref, lk_box_h_multi_ref, lk_box_v_multi_ref,
// lk_confidence_ref; this file is compiled without contraction), so F32 results equal them bit
// for bit. One thread per pixel, 32x8 blocks; the box sums read their taps through the caches
// (once per level: a tile would not pay).
#include "cuda/lk_cuda.cuh"
#include "cuda/plane_launch.cuh"

namespace oflow {
namespace cuda {
namespace {

const int kBX = kPlaneBlockX, kBY = kPlaneBlockY;

template <class T2>
__global__ void __launch_bounds__(kBX * kBY) k_lk_gradient(LkSetupArgs a) {
    int x, y;
    if (!plane_pixel(a.w, a.h, &x, &y)) return;
    const std::size_t p = static_cast<std::size_t>(a.pitch);
    const float* up = a.i0 + static_cast<std::size_t>(clampi(y - 1, 0, a.h - 1)) * p;
    const float* c = a.i0 + static_cast<std::size_t>(y) * p;
    const float* dn = a.i0 + static_cast<std::size_t>(clampi(y + 1, 0, a.h - 1)) * p;
    const int l = clampi(x - 1, 0, a.w - 1), r = clampi(x + 1, 0, a.w - 1);
    const float ws = 3.0f, wc = 10.0f, div = 32.0f;
    const float gx = (ws * (up[r] - up[l]) + wc * (c[r] - c[l]) + ws * (dn[r] - dn[l])) / div;
    const float gy = (ws * (dn[l] - up[l]) + wc * (dn[x] - up[x]) + ws * (dn[r] - up[r])) / div;
    static_cast<T2*>(a.g)[static_cast<std::size_t>(y) * p + static_cast<std::size_t>(x)] =
        Pair<T2>::from_f2(make_float2(gx, gy));
}

template <class T2>
__global__ void __launch_bounds__(kBX * kBY) k_lk_tensor_h(LkSetupArgs a) {
    int x, y;
    if (!plane_pixel(a.w, a.h, &x, &y)) return;
    const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(a.pitch);
    const T2* g = static_cast<const T2*>(a.g) + row;
    float s11 = 0.0f, s12 = 0.0f, s22 = 0.0f;
    for (int i = -a.r; i <= a.r; ++i) {
        const float2 v = Pair<T2>::to_f2(g[clampi(x + i, 0, a.w - 1)]);
        s11 += v.x * v.x;
        s12 += v.x * v.y;
        s22 += v.y * v.y;
    }
    a.hsum[kG11][row + static_cast<std::size_t>(x)] = s11;
    a.hsum[kG12][row + static_cast<std::size_t>(x)] = s12;
    a.hsum[kG22][row + static_cast<std::size_t>(x)] = s22;
}

// lk_min_eigen (core/ref/lk_ref.cpp), the same double operations.
__device__ __forceinline__ double min_eigen(float a, float b, float c) {
    const double A = a, B = b, C = c;
    const double det = A * C - B * B;
    const double half = 0.5 * (A - C);
    const double lmax = 0.5 * (A + C) + sqrt(half * half + B * B);
    if (!(lmax > 0.0)) return 0.0;
    const double lmin = det / lmax;
    return lmin > 0.0 ? lmin : 0.0;
}

__global__ void __launch_bounds__(kBX * kBY) k_lk_confidence(LkSetupArgs a) {
    int x, y;
    const bool in = plane_pixel(a.w, a.h, &x, &y);
    float valid = 0.0f;
    if (in) {
        const std::size_t p = static_cast<std::size_t>(a.pitch);
        const std::size_t i = static_cast<std::size_t>(y) * p + static_cast<std::size_t>(x);
        float g[kLkTensorChannels];
        for (int ch = 0; ch < kLkTensorChannels; ++ch) {
            float acc = 0.0f;
            for (int j = -a.r; j <= a.r; ++j)
                acc += a.hsum[ch][static_cast<std::size_t>(clampi(y + j, 0, a.h - 1)) * p + static_cast<std::size_t>(x)];
            g[ch] = acc;
        }
        const float c = static_cast<float>(min_eigen(g[kG11], g[kG12], g[kG22]) * a.inv_area);
        const bool ok = c >= a.min_eigen;
        a.conf[i] = c;
        a.state[i] = ok ? 1 : 0;
        valid = ok ? 1.0f : 0.0f;
        if (a.store == LkStore::kTensor) {
            for (int ch = 0; ch < kLkTensorChannels; ++ch) a.t[ch][i] = g[ch];
        } else {
            const double A = g[kG11], B = g[kG12], C = g[kG22];
            const double det = A * C - B * B;
            const bool inv = ok && det > 0.0;
            a.t[kG11][i] = inv ? static_cast<float>(-C / det) : 0.0f;
            a.t[kG12][i] = inv ? static_cast<float>(B / det) : 0.0f;
            a.t[kG22][i] = inv ? static_cast<float>(-A / det) : 0.0f;
        }
    }
    if (a.eps.stop) epsilon_step(valid, a.eps, -1);
}

} // namespace

namespace {

// One thread per pixel of the level.
cudaError_t launch_plane(void (*k)(LkSetupArgs), const LkSetupArgs& a, cudaStream_t s) {
    k<<<plane_grid(a.w, a.h), dim3(kBX, kBY), 0, s>>>(a);
    return cudaGetLastError();
}

} // namespace

cudaError_t launch_lk_gradient(const LkSetupArgs& a, bool f16, cudaStream_t s) {
    return launch_plane(f16 ? k_lk_gradient<__half2> : k_lk_gradient<float2>, a, s);
}

cudaError_t launch_lk_tensor_h(const LkSetupArgs& a, bool f16, cudaStream_t s) {
    return launch_plane(f16 ? k_lk_tensor_h<__half2> : k_lk_tensor_h<float2>, a, s);
}

cudaError_t launch_lk_confidence(const LkSetupArgs& a, cudaStream_t s) { return launch_plane(k_lk_confidence, a, s); }

void list_lk_stage_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_lk_gradient<float2>), "lk_gradient_f32");
    l->add(reinterpret_cast<const void*>(&k_lk_gradient<__half2>), "lk_gradient_f16x2");
    l->add(reinterpret_cast<const void*>(&k_lk_tensor_h<float2>), "lk_tensor_h_f32");
    l->add(reinterpret_cast<const void*>(&k_lk_tensor_h<__half2>), "lk_tensor_h_f16x2");
    l->add(reinterpret_cast<const void*>(&k_lk_confidence), "lk_confidence");
}

} // namespace cuda
} // namespace oflow
