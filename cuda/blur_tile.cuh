// The body of the fused two-pass Gaussian (blur_h_ref then blur_v_ref, bit for bit when the
// including file is compiled without contraction), shared by the pyramid blur (pyramid_cuda.cu
// k_blur: one plane) and the CLG tensor blur (hs_stages_cuda.cu: five channels in one launch,
// each formed on the fly from the derivatives).
//
// A 32x8 block owns an output tile of 32 columns x `rows` rows. Shared memory (dynamic,
// blur_shared_bytes(radius, rows) floats):
//   src: (rows + 2r) x (32 + 2r) source values, row and column indices clamped to the plane
//        (so every tap reads what the reference's clamped index reads);
//   hor: (rows + 2r) x 32 horizontal results of those (clamped) rows.
// The horizontal value of a row is blur_h_ref's (k0 s[x], then += k_i (s[x-i] + s[x+i]) for
// i = 1..r; its interior and border branches compute the same sums), kept in a float as the
// two-pass version stores it; the vertical pass is blur_v_ref's over those values.
#ifndef OFLOW_CUDA_BLUR_TILE_CUH
#define OFLOW_CUDA_BLUR_TILE_CUH

#include "core/kernels.hpp"
#include "cuda/cuda_common.cuh"

namespace oflow {
namespace cuda {

/// load(x, y) returns the source value at (x, y), both already clamped into the w x h plane.
/// Every thread of the 32x8 block calls this once; dst is the output plane (w x h), F32 or an
/// F16 pyramid level (each result rounded once, on the store).
template <class Load, class Out>
__device__ __forceinline__ void blur_tile(const Load& load, int w, int h, DPlane<Out> dst, const Gaussian1D& g,
                                          int rows, float* sm) {
    const int r = g.radius;
    const int sw = 32 + 2 * r, th = rows + 2 * r;
    float* sh_src = sm;
    float* sh_hor = sm + th * sw;
    const int x0 = static_cast<int>(blockIdx.x) * 32, y0 = static_cast<int>(blockIdx.y) * rows;
    const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
    const int tid = ty * 32 + tx;
    for (int i = tid; i < th * sw; i += 256) {
        const int j = i / sw, c = i - j * sw;
        sh_src[i] = load(clampi(x0 - r + c, 0, w - 1), clampi(y0 - r + j, 0, h - 1));
    }
    __syncthreads();
    for (int j = ty; j < th; j += 8) {
        const float* s = sh_src + j * sw + r + tx;
        float acc = g.k[0] * s[0];
        for (int i = 1; i <= r; ++i) acc += g.k[i] * (s[-i] + s[i]);
        sh_hor[j * 32 + tx] = acc;
    }
    __syncthreads();
    const int x = x0 + tx;
    if (x >= w) return;
    for (int j = ty; j < rows; j += 8) {
        const int y = y0 + j;
        if (y >= h) break;
        const float* c = sh_hor + (j + r) * 32 + tx;
        float d = g.k[0] * c[0];
        for (int i = 1; i <= r; ++i) d += g.k[i] * (c[-i * 32] + c[i * 32]);
        dst.row(y)[x] = store_pix<Out>(d);
    }
}

} // namespace cuda
} // namespace oflow

#endif
