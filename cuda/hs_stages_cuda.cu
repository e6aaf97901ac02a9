// Horn-Schunck / CLG per-warp stages on the device (hs_cuda.cuh): the bicubic warp of frame 1,
// the cube derivatives, the batched tensor blur, the coefficient planes and u += du. The first
// three are the reference kernels (core/ref/warp_ref.cpp warp_image_ref, core/ref/
// hs_stages_ref.cpp) with the same operations in the same order and the same clamped borders:
// this file is compiled without contraction and with IEEE division (cuda/CMakeLists.txt), so
// they equal the reference bit for bit. One thread per pixel, 32x8 blocks; the tensor blurs
// (of the derivatives' products, or of OF_ROBUST_CENSUS's tensor planes) use blur_tile.cuh's
// 32-column tiles with grid z = channel.
#include "cuda/blur_tile.cuh"
#include "cuda/cuda_layout.hpp"
#include "cuda/plane_launch.cuh"
#include "cuda/hs_cuda.cuh"

namespace oflow {
namespace cuda {
namespace {

const int kBX = kPlaneBlockX, kBY = kPlaneBlockY;

__global__ void __launch_bounds__(kBX * kBY) k_hs_warp_image(DPlane<const float> i0, DPlane<const float> i1,
                                                       DPlane<const float2> u, DPlane<float> out) {
    int x, y;
    if (!plane_pixel(i1.w, i1.h, &x, &y)) return;
    const int w = i1.w, h = i1.h;
    const BicubicTaps t = bicubic_taps(x, y, u.row(y)[x], w, h);
    if (!t.inside) { // no temporal difference: the data term holds the increment at 0 here
        out.row(y)[x] = i0.row(y)[x];
        return;
    }
    float s = 0.0f;
    for (int j = 0; j < 4; ++j) {
        const float* r = i1.row(clampi(t.iy - 1 + j, 0, h - 1));
        float tr = 0.0f;
        for (int i = 0; i < 4; ++i) tr += t.wx[i] * r[t.cx[i]];
        s += t.wy[j] * tr;
    }
    out.row(y)[x] = s;
}

__global__ void __launch_bounds__(kBX * kBY) k_hs_derivatives(DPlane<const float> i0, DPlane<const float> i1w,
                                                        DPlane<float4> out) {
    int x, y;
    if (!plane_pixel(i0.w, i0.h, &x, &y)) return;
    const int w = i0.w, h = i0.h;
    const int xn = x + 1 < w ? x + 1 : w - 1, yn = y + 1 < h ? y + 1 : h - 1;
    const float* a0 = i0.row(y);
    const float* a1 = i0.row(yn);
    const float* b0 = i1w.row(y);
    const float* b1 = i1w.row(yn);
    float4 d;
    d.x = 0.25f * (a0[xn] - a0[x] + a1[xn] - a1[x] + b0[xn] - b0[x] + b1[xn] - b1[x]);
    d.y = 0.25f * (a1[x] - a0[x] + a1[xn] - a0[xn] + b1[x] - b0[x] + b1[xn] - b0[xn]);
    d.z = 0.25f * (b0[x] - a0[x] + b0[xn] - a0[xn] + b1[x] - a1[x] + b1[xn] - a1[xn]);
    d.w = 0.0f;
    out.row(y)[x] = d;
}

// Channel c of hs_tensor_ref's products at (x, y).
__device__ __forceinline__ float tensor_channel(float4 d, int c) {
    switch (c) {
    case kJ11: return d.x * d.x;
    case kJ12: return d.x * d.y;
    case kJ13: return d.x * d.z;
    case kJ22: return d.y * d.y;
    default: return d.y * d.z; // kJ23
    }
}

struct TensorLoad {
    DPlane<const float4> deriv;
    int c;
    __device__ float operator()(int x, int y) const { return tensor_channel(deriv.row(y)[x], c); }
};

struct TensorPlanes {
    float* j[kHsChannels];
};

__global__ void __launch_bounds__(kBX * kBY) k_hs_tensor_blur(DPlane<const float4> deriv, TensorPlanes out,
                                                        Gaussian1D g, int rows) {
    extern __shared__ float sm[];
    const int c = static_cast<int>(blockIdx.z);
    const DPlane<float> dst{out.j[c], deriv.w, deriv.h, deriv.pitch};
    blur_tile(TensorLoad{deriv, c}, deriv.w, deriv.h, dst, g, rows, sm);
}

// OF_ROBUST_CENSUS, CLG: channel c = blockIdx.z of kHsChannels consecutive F32 planes (`stride`
// elements apart) blurred into the same channel of dst's.
struct PlaneLoad {
    const float* p;
    int pitch;
    __device__ float operator()(int x, int y) const {
        return p[static_cast<std::size_t>(y) * static_cast<std::size_t>(pitch) + static_cast<std::size_t>(x)];
    }
};

__global__ void __launch_bounds__(kBX * kBY) k_hs_planes_blur(const float* src, float* dst, std::size_t stride, int w,
                                                              int h, int pitch, Gaussian1D g, int rows) {
    extern __shared__ float sm[];
    const std::size_t off = static_cast<std::size_t>(blockIdx.z) * stride;
    blur_tile(PlaneLoad{src + off, pitch}, w, h, DPlane<float>{dst + off, w, h, pitch}, g, rows, sm);
}

// Largest |c13|, |c23| stored in F16 (px): keeps every sum of four means far inside F16's range
// (65504); an increment beyond it is no motion of one pyramid level, and the sanity bound
// clamps the flow at the level's end anyway.
const float kF16RhsMax = 2048.0f;

template <class T2>
__device__ __forceinline__ T2 store_pair(float a, float b);
template <>
__device__ __forceinline__ float2 store_pair<float2>(float a, float b) {
    return make_float2(a, b);
}
template <>
__device__ __forceinline__ __half2 store_pair<__half2>(float a, float b) {
    return __floats2half2_rn(a, b);
}

template <class T2>
__global__ void __launch_bounds__(kBX * kBY) k_hs_coef(HsCoefArgs a) {
    int x, y;
    if (!plane_pixel(a.w, a.h, &x, &y)) return;
    const float a2 = a.alpha2;
    float c11, c12, c22, c13, c23;
    // The derivatives only where the mode reads them (under OF_ROBUST_CENSUS nothing writes them).
    const float4 dv = a.mode != HsCoefMode::kCramerTensor ? a.deriv.row(y)[x] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (a.mode == HsCoefMode::kHsClosed) {
        const float gx = dv.x, gy = dv.y, gt = dv.z;
        const float d = a2 + gx * gx + gy * gy; // >= a2 > 0
        c11 = (a2 + gy * gy) / d;
        c22 = (a2 + gx * gx) / d;
        c12 = -(gx * gy) / d;
        c13 = -(gx * gt) / d;
        c23 = -(gy * gt) / d;
    } else {
        float j11, j12, j13, j22, j23;
        if (a.mode == HsCoefMode::kCramerDeriv) {
            j11 = dv.x * dv.x;
            j12 = dv.x * dv.y;
            j13 = dv.x * dv.z;
            j22 = dv.y * dv.y;
            j23 = dv.y * dv.z;
        } else {
            const std::size_t i = a.deriv.index(x, y);
            j11 = a.j[kJ11][i];
            j12 = a.j[kJ12][i];
            j13 = a.j[kJ13][i];
            j22 = a.j[kJ22][i];
            j23 = a.j[kJ23][i];
        }
        const float A = j11 + a2, B = j12, C = j22 + a2;
        const float det = fmaxf(A * C - B * B, a2 * a2); // exact bound: J is positive semi-definite
        c11 = C * a2 / det;
        c22 = A * a2 / det;
        c12 = -(B * a2) / det;
        c13 = (B * j23 - C * j13) / det;
        c23 = (B * j13 - A * j23) / det;
    }
    if (sizeof(T2) == 4) { // F16 storage
        c13 = fminf(fmaxf(c13, -kF16RhsMax), kF16RhsMax);
        c23 = fminf(fmaxf(c23, -kF16RhsMax), kF16RhsMax);
    }
    int k = 0;
    std::size_t i;
    if (a.split) {
        k = (x + y) & 1;
        i = static_cast<std::size_t>(y) * static_cast<std::size_t>(a.out_pitch) + static_cast<std::size_t>(x >> 1);
    } else {
        i = static_cast<std::size_t>(y) * static_cast<std::size_t>(a.out_pitch) + static_cast<std::size_t>(x);
    }
    static_cast<T2*>(a.d[k])[i] = store_pair<T2>(c11, c22);
    static_cast<T2*>(a.o[k])[i] = store_pair<T2>(c12, c12);
    static_cast<T2*>(a.r[k])[i] = store_pair<T2>(c13, c23);
}

template <class T2>
__global__ void __launch_bounds__(kBX * kBY) k_hs_add_increment(DPlane<float2> u, const T2* full, const T2* red,
                                                          const T2* black, int pitch) {
    int x, y;
    if (!plane_pixel(u.w, u.h, &x, &y)) return;
    T2 d;
    if (full) {
        d = full[static_cast<std::size_t>(y) * static_cast<std::size_t>(pitch) + static_cast<std::size_t>(x)];
    } else {
        const T2* p = ((x + y) & 1) ? black : red;
        d = p[static_cast<std::size_t>(y) * static_cast<std::size_t>(pitch) + static_cast<std::size_t>(x >> 1)];
    }
    const float2 f = HsMath<T2>::to_f2(d);
    float2& v = u.row(y)[x];
    v.x += f.x;
    v.y += f.y;
}

// Rows per tensor-blur tile: 32 while the shared memory fits every board's limit, else fewer
// (the pyramid blur's rule).
int tensor_blur_rows(int r) {
    int rows = 32;
    while (rows > 8 && blur_shared_bytes(r, rows) > kMaxDynamicShared) rows /= 2;
    return rows;
}

} // namespace

int hs_half_pitch(int w) { return static_cast<int>(dev_pitch((w + 1) / 2)); }

cudaError_t launch_hs_warp_image(DPlane<const float> i0, DPlane<const float> i1, DPlane<const float2> u,
                                 DPlane<float> out, cudaStream_t s) {
    k_hs_warp_image<<<plane_grid(i1.w, i1.h), dim3(kBX, kBY), 0, s>>>(i0, i1, u, out);
    return cudaGetLastError();
}

cudaError_t launch_hs_derivatives(DPlane<const float> i0, DPlane<const float> i1w, DPlane<float4> out,
                                  cudaStream_t s) {
    k_hs_derivatives<<<plane_grid(i0.w, i0.h), dim3(kBX, kBY), 0, s>>>(i0, i1w, out);
    return cudaGetLastError();
}

cudaError_t launch_hs_tensor_blur(DPlane<const float4> deriv, float* const j[kHsChannels], const Gaussian1D& g,
                                  cudaStream_t s) {
    TensorPlanes t;
    for (int c = 0; c < kHsChannels; ++c) t.j[c] = j[c];
    const int rows = tensor_blur_rows(g.radius);
    const dim3 grid(static_cast<unsigned>((deriv.w + 31) / 32), static_cast<unsigned>((deriv.h + rows - 1) / rows),
                    static_cast<unsigned>(kHsChannels));
    k_hs_tensor_blur<<<grid, dim3(kBX, kBY), blur_shared_bytes(g.radius, rows), s>>>(deriv, t, g, rows);
    return cudaGetLastError();
}

cudaError_t launch_hs_planes_blur(const float* src, float* dst, std::size_t stride, int w, int h, int pitch,
                                  const Gaussian1D& g, cudaStream_t s) {
    const int rows = tensor_blur_rows(g.radius);
    const dim3 grid(static_cast<unsigned>((w + 31) / 32), static_cast<unsigned>((h + rows - 1) / rows),
                    static_cast<unsigned>(kHsChannels));
    k_hs_planes_blur<<<grid, dim3(kBX, kBY), blur_shared_bytes(g.radius, rows), s>>>(src, dst, stride, w, h, pitch, g,
                                                                                    rows);
    return cudaGetLastError();
}

cudaError_t launch_hs_coef(const HsCoefArgs& a, bool f16, cudaStream_t s) {
    if (f16)
        k_hs_coef<__half2><<<plane_grid(a.w, a.h), dim3(kBX, kBY), 0, s>>>(a);
    else
        k_hs_coef<float2><<<plane_grid(a.w, a.h), dim3(kBX, kBY), 0, s>>>(a);
    return cudaGetLastError();
}

template <class T2>
cudaError_t launch_hs_add_increment(DPlane<float2> u, const T2* du_full, const T2* red, const T2* black,
                                    int du_pitch, cudaStream_t s) {
    k_hs_add_increment<T2><<<plane_grid(u.w, u.h), dim3(kBX, kBY), 0, s>>>(u, du_full, red, black, du_pitch);
    return cudaGetLastError();
}

template cudaError_t launch_hs_add_increment<float2>(DPlane<float2>, const float2*, const float2*, const float2*,
                                                     int, cudaStream_t);
template cudaError_t launch_hs_add_increment<__half2>(DPlane<float2>, const __half2*, const __half2*,
                                                      const __half2*, int, cudaStream_t);

void list_hs_stage_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_hs_warp_image), "hs_warp_image");
    l->add(reinterpret_cast<const void*>(&k_hs_derivatives), "hs_derivatives");
    l->add(reinterpret_cast<const void*>(&k_hs_tensor_blur), "hs_tensor_blur");
    l->add(reinterpret_cast<const void*>(&k_hs_planes_blur), "hs_planes_blur");
    l->add(reinterpret_cast<const void*>(&k_hs_coef<float2>), "hs_coef_f32");
    l->add(reinterpret_cast<const void*>(&k_hs_coef<__half2>), "hs_coef_f16x2");
    l->add(reinterpret_cast<const void*>(&k_hs_add_increment<float2>), "hs_add_increment_f32");
    l->add(reinterpret_cast<const void*>(&k_hs_add_increment<__half2>), "hs_add_increment_f16x2");
}

} // namespace cuda
} // namespace oflow
