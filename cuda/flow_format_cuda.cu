// The compact flow outputs on the device (of_flow.format F16 and S10.5): the level-0 flow
// (u1, u2) pairs converted per element by core/flow_format.hpp, the same integer code the CPU
// paths run, so every path gives the same bits for the same F32 flow. One thread per pixel,
// kPlaneBlockX x kPlaneBlockY blocks. Written into device or mapped output directly, or into
// the output scratch planes (DevLayout::out_scratch) that host output then downloads (2 bytes per component).
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_layout.hpp"
#include "cuda/plane_launch.cuh"

#include "core/flow_format.hpp"

namespace oflow {
namespace cuda {
namespace {

const int kBX = kPlaneBlockX, kBY = kPlaneBlockY;

template <int kFmt>
__device__ __forceinline__ unsigned short to_format(float v) {
    return kFmt == OF_FLOW_FORMAT_F16 ? flow_to_f16(v) : static_cast<unsigned short>(flow_to_s10_5(v));
}

// (u1, u2) -> 16-bit elements, rows `stride` bytes apart: planar into u and v, or interleaved
// (u, v) pairs into u when v is nullptr.
template <int kFmt>
__global__ void __launch_bounds__(kBX * kBY) k_write_flow16(DPlane<const float2> src, unsigned short* u,
                                                            unsigned short* v, std::size_t stride) {
    int x, y;
    if (!plane_pixel(src.w, src.h, &x, &y)) return;
    const float2 f = src.row(y)[x];
    const std::size_t off = static_cast<std::size_t>(y) * stride;
    unsigned short* ru = reinterpret_cast<unsigned short*>(reinterpret_cast<unsigned char*>(u) + off);
    if (v) {
        ru[x] = to_format<kFmt>(f.x);
        reinterpret_cast<unsigned short*>(reinterpret_cast<unsigned char*>(v) + off)[x] = to_format<kFmt>(f.y);
    } else {
        ru[2 * x] = to_format<kFmt>(f.x);
        ru[2 * x + 1] = to_format<kFmt>(f.y);
    }
}

} // namespace

cudaError_t launch_write_flow16(DPlane<const float2> src, of_flow_format fmt, void* u, void* v, std::size_t stride,
                                cudaStream_t s) {
    unsigned short* pu = static_cast<unsigned short*>(u);
    unsigned short* pv = static_cast<unsigned short*>(v);
    const dim3 g = plane_grid(src.w, src.h), b(kBX, kBY);
    if (fmt == OF_FLOW_FORMAT_F16)
        k_write_flow16<OF_FLOW_FORMAT_F16><<<g, b, 0, s>>>(src, pu, pv, stride);
    else if (fmt == OF_FLOW_FORMAT_S10_5)
        k_write_flow16<OF_FLOW_FORMAT_S10_5><<<g, b, 0, s>>>(src, pu, pv, stride);
    else
        return cudaErrorInvalidValue; // F32 is not a 16-bit format: the caller's bug
    return cudaGetLastError();
}

void list_flow_format_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_write_flow16<OF_FLOW_FORMAT_F16>), "write_flow16_f16");
    l->add(reinterpret_cast<const void*>(&k_write_flow16<OF_FLOW_FORMAT_S10_5>), "write_flow16_s10_5");
}

} // namespace cuda
} // namespace oflow
