// Pyramid stages on the device: input conversion (U8/U16/F32, any stride), finiteness check,
// separable Gaussian, bilinear resampling, central gradient, bilinear flow upsampling and the
// planar flow output. Each kernel is the reference kernel of core/ref/ (pyramid_ref.cpp,
// warp_ref.cpp's gradient_ref, convert_ref.cpp) with the same operations in the same order and
// the same clamped borders; one thread per output pixel, 32x8 blocks.
#include "cuda/cuda_kernels.cuh"

namespace oflow {
namespace cuda {
namespace {

const int kBX = 32, kBY = 8;

dim3 grid_for(int w, int h) {
    return dim3(static_cast<unsigned>((w + kBX - 1) / kBX), static_cast<unsigned>((h + kBY - 1) / kBY));
}

__device__ __forceinline__ bool pixel(int w, int h, int* x, int* y) {
    *x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    *y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    return *x < w && *y < h;
}

template <int kFmt>
__global__ void __launch_bounds__(256) k_convert(const unsigned char* src, std::size_t stride,
                                                 DPlane<float> dst) {
    int x, y;
    if (!pixel(dst.w, dst.h, &x, &y)) return;
    const unsigned char* row = src + static_cast<std::size_t>(y) * stride;
    float v;
    if (kFmt == OF_PIXEL_U8) {
        v = static_cast<float>(row[x]);
    } else if (kFmt == OF_PIXEL_U16) {
        v = static_cast<float>(reinterpret_cast<const unsigned short*>(row)[x]) * (1.0f / 257.0f);
    } else {
        v = reinterpret_cast<const float*>(row)[x];
    }
    dst.row(y)[x] = v;
}

__global__ void __launch_bounds__(256) k_nonfinite(const unsigned char* src, std::size_t stride,
                                                   int w, int h, int* flag, int bit) {
    int x, y;
    if (!pixel(w, h, &x, &y)) return;
    const float v = reinterpret_cast<const float*>(src + static_cast<std::size_t>(y) * stride)[x];
    if (!isfinite(v)) atomicOr(flag, bit);
}

__global__ void __launch_bounds__(256) k_blur_h(DPlane<const float> src, DPlane<float> dst,
                                                Gaussian1D g) {
    int x, y;
    if (!pixel(dst.w, dst.h, &x, &y)) return;
    const int r = g.radius, w = src.w;
    const float* s = src.row(y);
    float acc = g.k[0] * s[x];
    if (x - r >= 0 && x + r < w) {
        for (int i = 1; i <= r; ++i) acc += g.k[i] * (s[x - i] + s[x + i]);
    } else {
        for (int i = 1; i <= r; ++i)
            acc += g.k[i] * (s[clampi(x - i, 0, w - 1)] + s[clampi(x + i, 0, w - 1)]);
    }
    dst.row(y)[x] = acc;
}

__global__ void __launch_bounds__(256) k_blur_v(DPlane<const float> src, DPlane<float> dst,
                                                Gaussian1D g) {
    int x, y;
    if (!pixel(dst.w, dst.h, &x, &y)) return;
    const int r = g.radius, h = src.h;
    float d = g.k[0] * src.row(y)[x];
    for (int i = 1; i <= r; ++i) {
        const float up = src.row(clampi(y - i, 0, h - 1))[x];
        const float dn = src.row(clampi(y + i, 0, h - 1))[x];
        d += g.k[i] * (up + dn);
    }
    dst.row(y)[x] = d;
}

// Bilinear sample at (x, y), coordinates clamped to the plane (pyramid_ref.cpp: bilinear), for
// one float or both components of a float2 with the same weights.
struct Taps {
    int x0, x1, y0, y1;
    float fx, fy;
};

template <class T>
__device__ __forceinline__ Taps taps(const DPlane<T>& p, float x, float y) {
    const float mx = static_cast<float>(p.w - 1), my = static_cast<float>(p.h - 1);
    x = x < 0.0f ? 0.0f : (x > mx ? mx : x);
    y = y < 0.0f ? 0.0f : (y > my ? my : y);
    Taps t;
    t.x0 = static_cast<int>(x);
    t.y0 = static_cast<int>(y);
    t.x1 = t.x0 + 1 < p.w ? t.x0 + 1 : t.x0;
    t.y1 = t.y0 + 1 < p.h ? t.y0 + 1 : t.y0;
    t.fx = x - static_cast<float>(t.x0);
    t.fy = y - static_cast<float>(t.y0);
    return t;
}

__device__ __forceinline__ float lerp2(float a0, float a1, float b0, float b1, const Taps& t) {
    const float a = a0 + t.fx * (a1 - a0);
    const float b = b0 + t.fx * (b1 - b0);
    return a + t.fy * (b - a);
}

__global__ void __launch_bounds__(256) k_resample(DPlane<const float> src, DPlane<float> dst) {
    int x, y;
    if (!pixel(dst.w, dst.h, &x, &y)) return;
    const float sx = static_cast<float>(src.w) / static_cast<float>(dst.w);
    const float sy = static_cast<float>(src.h) / static_cast<float>(dst.h);
    const float fy = (static_cast<float>(y) + 0.5f) * sy - 0.5f;
    const Taps t = taps(src, (static_cast<float>(x) + 0.5f) * sx - 0.5f, fy);
    const float* r0 = src.row(t.y0);
    const float* r1 = src.row(t.y1);
    dst.row(y)[x] = lerp2(r0[t.x0], r0[t.x1], r1[t.x0], r1[t.x1], t);
}

__global__ void __launch_bounds__(256) k_upsample_flow(DPlane<const float2> src, DPlane<float2> dst,
                                                       float mx, float my) {
    int x, y;
    if (!pixel(dst.w, dst.h, &x, &y)) return;
    const float sx = static_cast<float>(src.w) / static_cast<float>(dst.w);
    const float sy = static_cast<float>(src.h) / static_cast<float>(dst.h);
    const float fy = (static_cast<float>(y) + 0.5f) * sy - 0.5f;
    const Taps t = taps(src, (static_cast<float>(x) + 0.5f) * sx - 0.5f, fy);
    const float2* r0 = src.row(t.y0);
    const float2* r1 = src.row(t.y1);
    const float2 a0 = r0[t.x0], a1 = r0[t.x1], b0 = r1[t.x0], b1 = r1[t.x1];
    dst.row(y)[x] = make_float2(mx * lerp2(a0.x, a1.x, b0.x, b1.x, t), my * lerp2(a0.y, a1.y, b0.y, b1.y, t));
}

__global__ void __launch_bounds__(256) k_gradient(DPlane<const float> src, DPlane<float> gx,
                                                  DPlane<float> gy) {
    int x, y;
    if (!pixel(src.w, src.h, &x, &y)) return;
    const int w = src.w, h = src.h;
    const float* c = src.row(y);
    gx.row(y)[x] = 0.5f * (c[clampi(x + 1, 0, w - 1)] - c[clampi(x - 1, 0, w - 1)]);
    gy.row(y)[x] = 0.5f * (src.row(clampi(y + 1, 0, h - 1))[x] - src.row(clampi(y - 1, 0, h - 1))[x]);
}

__global__ void __launch_bounds__(256) k_write_planar(DPlane<const float2> src, float* u, float* v,
                                                      std::size_t stride) {
    int x, y;
    if (!pixel(src.w, src.h, &x, &y)) return;
    const float2 f = src.row(y)[x];
    const std::size_t off = static_cast<std::size_t>(y) * stride;
    reinterpret_cast<float*>(reinterpret_cast<unsigned char*>(u) + off)[x] = f.x;
    reinterpret_cast<float*>(reinterpret_cast<unsigned char*>(v) + off)[x] = f.y;
}

} // namespace

cudaError_t launch_convert(const void* src, std::size_t stride, of_pixel_format fmt, DPlane<float> dst,
                           cudaStream_t s) {
    const unsigned char* p = static_cast<const unsigned char*>(src);
    const dim3 g = grid_for(dst.w, dst.h), b(kBX, kBY);
    switch (fmt) {
    case OF_PIXEL_U8: k_convert<OF_PIXEL_U8><<<g, b, 0, s>>>(p, stride, dst); break;
    case OF_PIXEL_U16: k_convert<OF_PIXEL_U16><<<g, b, 0, s>>>(p, stride, dst); break;
    case OF_PIXEL_F32:
    default: k_convert<OF_PIXEL_F32><<<g, b, 0, s>>>(p, stride, dst); break;
    }
    return cudaGetLastError();
}

cudaError_t launch_nonfinite(const void* src, std::size_t stride, int w, int h, int* flag, int bit,
                             cudaStream_t s) {
    k_nonfinite<<<grid_for(w, h), dim3(kBX, kBY), 0, s>>>(static_cast<const unsigned char*>(src), stride,
                                                          w, h, flag, bit);
    return cudaGetLastError();
}

cudaError_t launch_blur_h(DPlane<const float> src, DPlane<float> dst, const Gaussian1D& g, cudaStream_t s) {
    k_blur_h<<<grid_for(dst.w, dst.h), dim3(kBX, kBY), 0, s>>>(src, dst, g);
    return cudaGetLastError();
}

cudaError_t launch_blur_v(DPlane<const float> src, DPlane<float> dst, const Gaussian1D& g, cudaStream_t s) {
    k_blur_v<<<grid_for(dst.w, dst.h), dim3(kBX, kBY), 0, s>>>(src, dst, g);
    return cudaGetLastError();
}

cudaError_t launch_resample(DPlane<const float> src, DPlane<float> dst, cudaStream_t s) {
    k_resample<<<grid_for(dst.w, dst.h), dim3(kBX, kBY), 0, s>>>(src, dst);
    return cudaGetLastError();
}

cudaError_t launch_gradient(DPlane<const float> src, DPlane<float> gx, DPlane<float> gy, cudaStream_t s) {
    k_gradient<<<grid_for(src.w, src.h), dim3(kBX, kBY), 0, s>>>(src, gx, gy);
    return cudaGetLastError();
}

cudaError_t launch_upsample_flow(DPlane<const float2> src, DPlane<float2> dst, float mx, float my,
                                 cudaStream_t s) {
    k_upsample_flow<<<grid_for(dst.w, dst.h), dim3(kBX, kBY), 0, s>>>(src, dst, mx, my);
    return cudaGetLastError();
}

cudaError_t launch_write_planar(DPlane<const float2> src, float* u, float* v, std::size_t stride,
                                cudaStream_t s) {
    k_write_planar<<<grid_for(src.w, src.h), dim3(kBX, kBY), 0, s>>>(src, u, v, stride);
    return cudaGetLastError();
}

void list_pyramid_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_convert<OF_PIXEL_U8>), "convert_u8");
    l->add(reinterpret_cast<const void*>(&k_convert<OF_PIXEL_U16>), "convert_u16");
    l->add(reinterpret_cast<const void*>(&k_convert<OF_PIXEL_F32>), "convert_f32");
    l->add(reinterpret_cast<const void*>(&k_nonfinite), "nonfinite");
    l->add(reinterpret_cast<const void*>(&k_blur_h), "blur_h");
    l->add(reinterpret_cast<const void*>(&k_blur_v), "blur_v");
    l->add(reinterpret_cast<const void*>(&k_resample), "resample");
    l->add(reinterpret_cast<const void*>(&k_upsample_flow), "upsample_flow");
    l->add(reinterpret_cast<const void*>(&k_gradient), "gradient");
    l->add(reinterpret_cast<const void*>(&k_write_planar), "write_planar");
}

} // namespace cuda
} // namespace oflow
