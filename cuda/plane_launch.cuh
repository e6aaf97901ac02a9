// One thread per pixel in kPlaneBlockX x kPlaneBlockY blocks (cuda/cuda_layout.hpp): the grid of a
// plane and a thread's pixel, shared by the fixed-shape kernels (pyramid_cuda.cu, hs_stages_cuda.cu).
#ifndef OFLOW_CUDA_PLANE_LAUNCH_CUH
#define OFLOW_CUDA_PLANE_LAUNCH_CUH

#include "cuda/cuda_layout.hpp"

#include <cuda_runtime.h>

namespace oflow {
namespace cuda {

/// Blocks covering a w x h plane.
inline dim3 plane_grid(int w, int h) {
    return dim3(static_cast<unsigned>((w + kPlaneBlockX - 1) / kPlaneBlockX),
                static_cast<unsigned>((h + kPlaneBlockY - 1) / kPlaneBlockY));
}

/// This thread's pixel; false when it lies outside the w x h plane.
__device__ __forceinline__ bool plane_pixel(int w, int h, int* x, int* y) {
    *x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    *y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    return *x < w && *y < h;
}

} // namespace cuda
} // namespace oflow

#endif
