// Pyramid stages on the device: input conversion (U8/U16/F32, any stride), finiteness check,
// separable Gaussian, bilinear resampling, central gradient, bilinear flow upsampling and the
// planar flow output. Each kernel is the reference kernel of core/ref/ (pyramid_ref.cpp,
// warp_ref.cpp's gradient_ref, convert_ref.cpp) with the same operations in the same order and
// the same clamped borders; one thread per output pixel, 32x8 blocks (the fused blur: a 32x8
// block per 32-column tile of 32 rows, fewer for large radii).
#include "cuda/blur_tile.cuh"
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_layout.hpp"
#include "cuda/plane_launch.cuh"

#include "core/confidence.hpp"
#include "core/ref/kernels_ref.hpp" // kMaxF32Pixel

namespace oflow {
namespace cuda {
namespace {

const int kBX = kPlaneBlockX, kBY = kPlaneBlockY;

template <int kFmt>
__global__ void __launch_bounds__(kBX * kBY) k_convert(const unsigned char* src, std::size_t stride,
                                                 DPlane<float> dst) {
    int x, y;
    if (!plane_pixel(dst.w, dst.h, &x, &y)) return;
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

__global__ void __launch_bounds__(kBX * kBY) k_nonfinite(const unsigned char* src, std::size_t stride,
                                                   int w, int h, int* flag, int bit) {
    int x, y;
    if (!plane_pixel(w, h, &x, &y)) return;
    const float v = reinterpret_cast<const float*>(src + static_cast<std::size_t>(y) * stride)[x];
    if (!(fabsf(v) <= kMaxF32Pixel)) atomicOr(flag, bit); // image_pixels_valid: NaN fails too
}

__global__ void __launch_bounds__(kBX * kBY) k_blur_h(DPlane<const float> src, DPlane<float> dst,
                                                Gaussian1D g) {
    int x, y;
    if (!plane_pixel(dst.w, dst.h, &x, &y)) return;
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

__global__ void __launch_bounds__(kBX * kBY) k_blur_v(DPlane<const float> src, DPlane<float> dst,
                                                Gaussian1D g) {
    int x, y;
    if (!plane_pixel(dst.w, dst.h, &x, &y)) return;
    const int r = g.radius, h = src.h;
    float d = g.k[0] * src.row(y)[x];
    for (int i = 1; i <= r; ++i) {
        const float up = src.row(clampi(y - i, 0, h - 1))[x];
        const float dn = src.row(clampi(y + i, 0, h - 1))[x];
        d += g.k[i] * (up + dn);
    }
    dst.row(y)[x] = d;
}

// Both Gaussian passes in one kernel (blur_h_ref then blur_v_ref, bit for bit: no contraction in
// this file): blur_tile.cuh has the tiling.
// In / Out: float, or __half for an F16 pyramid level (read widened, written rounded once).
template <class In>
struct PlaneLoad {
    DPlane<const In> src;
    __device__ float operator()(int x, int y) const { return pix(src.row(y)[x]); }
};

template <class In, class Out>
__global__ void __launch_bounds__(kBX * kBY) k_blur(DPlane<const In> src, DPlane<Out> dst, Gaussian1D g, int rows) {
    extern __shared__ float sm[];
    blur_tile(PlaneLoad<In>{src}, src.w, src.h, dst, g, rows, sm);
}

// Rows per fused-blur tile: 32 while the shared memory fits every board's limit, else fewer.
int blur_rows(int r) {
    int rows = 32;
    while (rows > 8 && blur_shared_bytes(r, rows) > kMaxDynamicShared) rows /= 2;
    return rows;
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

// Out: float, or __half for an F16 pyramid level. At dst's own size it is an exact copy (every
// weight 0): the F16 pyramid's level 0 without a presmooth.
template <class Out>
__global__ void __launch_bounds__(kBX * kBY) k_resample(DPlane<const float> src, DPlane<Out> dst) {
    int x, y;
    if (!plane_pixel(dst.w, dst.h, &x, &y)) return;
    const float sx = static_cast<float>(src.w) / static_cast<float>(dst.w);
    const float sy = static_cast<float>(src.h) / static_cast<float>(dst.h);
    const float fy = (static_cast<float>(y) + 0.5f) * sy - 0.5f;
    const Taps t = taps(src, (static_cast<float>(x) + 0.5f) * sx - 0.5f, fy);
    const float* r0 = src.row(t.y0);
    const float* r1 = src.row(t.y1);
    dst.row(y)[x] = store_pix<Out>(lerp2(r0[t.x0], r0[t.x1], r1[t.x0], r1[t.x1], t));
}

__global__ void __launch_bounds__(kBX * kBY) k_upsample_flow(DPlane<const float2> src, DPlane<float2> dst,
                                                       float mx, float my) {
    int x, y;
    if (!plane_pixel(dst.w, dst.h, &x, &y)) return;
    const float sx = static_cast<float>(src.w) / static_cast<float>(dst.w);
    const float sy = static_cast<float>(src.h) / static_cast<float>(dst.h);
    const float fy = (static_cast<float>(y) + 0.5f) * sy - 0.5f;
    const Taps t = taps(src, (static_cast<float>(x) + 0.5f) * sx - 0.5f, fy);
    const float2* r0 = src.row(t.y0);
    const float2* r1 = src.row(t.y1);
    const float2 a0 = r0[t.x0], a1 = r0[t.x1], b0 = r1[t.x0], b1 = r1[t.x1];
    dst.row(y)[x] = make_float2(mx * lerp2(a0.x, a1.x, b0.x, b1.x, t), my * lerp2(a0.y, a1.y, b0.y, b1.y, t));
}

__global__ void __launch_bounds__(kBX * kBY) k_write_planar(DPlane<const float2> src, float* u, float* v,
                                                      std::size_t stride) {
    int x, y;
    if (!plane_pixel(src.w, src.h, &x, &y)) return;
    const float2 f = src.row(y)[x];
    const std::size_t off = static_cast<std::size_t>(y) * stride;
    reinterpret_cast<float*>(reinterpret_cast<unsigned char*>(u) + off)[x] = f.x;
    reinterpret_cast<float*>(reinterpret_cast<unsigned char*>(v) + off)[x] = f.y;
}

// The validity plane from the level-0 confidence plane (rows `stride` bytes apart),
// write_validity's rule (core/flow_driver.cpp): the mask confidence_mask(c, min_conf) or c itself.
__global__ void __launch_bounds__(kBX * kBY) k_write_validity(DPlane<const float> plane, float min_conf, int mask,
                                                        unsigned char* dst, std::size_t stride) {
    int x, y;
    if (!plane_pixel(plane.w, plane.h, &x, &y)) return;
    const float c = plane.row(y)[x];
    unsigned char* row = dst + static_cast<std::size_t>(y) * stride;
    if (mask)
        row[x] = confidence_mask(c, min_conf);
    else
        reinterpret_cast<float*>(row)[x] = c;
}

} // namespace

cudaError_t launch_convert(const void* src, std::size_t stride, of_pixel_format fmt, DPlane<float> dst,
                           cudaStream_t s) {
    const unsigned char* p = static_cast<const unsigned char*>(src);
    const dim3 g = plane_grid(dst.w, dst.h), b(kBX, kBY);
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
    k_nonfinite<<<plane_grid(w, h), dim3(kBX, kBY), 0, s>>>(static_cast<const unsigned char*>(src), stride,
                                                          w, h, flag, bit);
    return cudaGetLastError();
}

cudaError_t launch_blur_h(DPlane<const float> src, DPlane<float> dst, const Gaussian1D& g, cudaStream_t s) {
    k_blur_h<<<plane_grid(dst.w, dst.h), dim3(kBX, kBY), 0, s>>>(src, dst, g);
    return cudaGetLastError();
}

cudaError_t launch_blur_v(DPlane<const float> src, DPlane<float> dst, const Gaussian1D& g, cudaStream_t s) {
    k_blur_v<<<plane_grid(dst.w, dst.h), dim3(kBX, kBY), 0, s>>>(src, dst, g);
    return cudaGetLastError();
}

std::size_t blur_shared_bytes(int radius, int rows) {
    const std::size_t th = static_cast<std::size_t>(rows + 2 * radius);
    return th * static_cast<std::size_t>(32 + 2 * radius + 32) * sizeof(float);
}

namespace {

template <class In, class Out>
cudaError_t blur_launch(DPlane<const In> src, DPlane<Out> dst, const Gaussian1D& g, cudaStream_t s) {
    const int rows = blur_rows(g.radius);
    const dim3 grid(static_cast<unsigned>((dst.w + 31) / 32), static_cast<unsigned>((dst.h + rows - 1) / rows));
    k_blur<In, Out><<<grid, dim3(kBX, kBY), blur_shared_bytes(g.radius, rows), s>>>(src, dst, g, rows);
    return cudaGetLastError();
}

template <class Out>
cudaError_t resample_launch(DPlane<const float> src, DPlane<Out> dst, cudaStream_t s) {
    k_resample<Out><<<plane_grid(dst.w, dst.h), dim3(kBX, kBY), 0, s>>>(src, dst);
    return cudaGetLastError();
}

} // namespace

cudaError_t launch_blur(DPlane<const float> src, DPlane<float> dst, const Gaussian1D& g, cudaStream_t s) {
    return blur_launch(src, dst, g, s);
}
cudaError_t launch_blur(DPlane<const float> src, DPlane<__half> dst, const Gaussian1D& g, cudaStream_t s) {
    return blur_launch(src, dst, g, s);
}
cudaError_t launch_blur(DPlane<const __half> src, DPlane<float> dst, const Gaussian1D& g, cudaStream_t s) {
    return blur_launch(src, dst, g, s);
}

cudaError_t launch_resample(DPlane<const float> src, DPlane<float> dst, cudaStream_t s) {
    return resample_launch(src, dst, s);
}
cudaError_t launch_resample(DPlane<const float> src, DPlane<__half> dst, cudaStream_t s) {
    return resample_launch(src, dst, s);
}

cudaError_t launch_upsample_flow(DPlane<const float2> src, DPlane<float2> dst, float mx, float my,
                                 cudaStream_t s) {
    k_upsample_flow<<<plane_grid(dst.w, dst.h), dim3(kBX, kBY), 0, s>>>(src, dst, mx, my);
    return cudaGetLastError();
}

cudaError_t launch_write_planar(DPlane<const float2> src, float* u, float* v, std::size_t stride,
                                cudaStream_t s) {
    k_write_planar<<<plane_grid(src.w, src.h), dim3(kBX, kBY), 0, s>>>(src, u, v, stride);
    return cudaGetLastError();
}

cudaError_t launch_write_validity(DPlane<const float> plane, float min_conf, bool mask, void* dst, std::size_t stride,
                                  cudaStream_t s) {
    k_write_validity<<<plane_grid(plane.w, plane.h), dim3(kBX, kBY), 0, s>>>(plane, min_conf, mask ? 1 : 0,
                                                                             static_cast<unsigned char*>(dst), stride);
    return cudaGetLastError();
}

void list_pyramid_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_convert<OF_PIXEL_U8>), "convert_u8");
    l->add(reinterpret_cast<const void*>(&k_convert<OF_PIXEL_U16>), "convert_u16");
    l->add(reinterpret_cast<const void*>(&k_convert<OF_PIXEL_F32>), "convert_f32");
    l->add(reinterpret_cast<const void*>(&k_nonfinite), "nonfinite");
    l->add(reinterpret_cast<const void*>(&k_blur_h), "blur_h");
    l->add(reinterpret_cast<const void*>(&k_blur_v), "blur_v");
    l->add(reinterpret_cast<const void*>(&k_blur<float, float>), "blur");
    l->add(reinterpret_cast<const void*>(&k_blur<float, __half>), "blur_to_f16");
    l->add(reinterpret_cast<const void*>(&k_blur<__half, float>), "blur_from_f16");
    l->add(reinterpret_cast<const void*>(&k_resample<float>), "resample");
    l->add(reinterpret_cast<const void*>(&k_resample<__half>), "resample_to_f16");
    l->add(reinterpret_cast<const void*>(&k_upsample_flow), "upsample_flow");
    l->add(reinterpret_cast<const void*>(&k_write_planar), "write_planar");
    l->add(reinterpret_cast<const void*>(&k_write_validity), "write_validity");
}

} // namespace cuda
} // namespace oflow
