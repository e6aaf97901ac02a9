// A stream's warm start on the device (config.warm_start, core/stream.hpp): at the warm level,
// the mean absolute residual |I1(x + u) - I0(x)| of the cold start (the plane the level starts
// from) and of the kept flow, reduced deterministically (kWarmBlocks fixed blocks, each a fixed
// tree), the choice (warm only when Ctrl::warm_ready and its residual is the smaller), and the
// copy of the kept flow into the level's plane when chosen. All on the device, no host wait,
// so the solver graph holds these launches and each replay decides per frame.
#include "cuda/block_sum.cuh"
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_layout.hpp"

namespace oflow {
namespace cuda {
namespace {

const int kWarmThreads = 256;
const int kBX = kPlaneBlockX, kBY = kPlaneBlockY;

dim3 grid_for(int w, int h) {
    return dim3(static_cast<unsigned>((w + kBX - 1) / kBX), static_cast<unsigned>((h + kBY - 1) / kBY));
}

// Bilinear sample of p at (x, y), coordinates clamped to the plane (core/stream.cpp sample()).
// P: the pyramid's element (float, or __half for an F16 pyramid; read widened).
template <class P>
__device__ float warm_sample(DPlane<const P> p, float x, float y) {
    const float cx = fminf(fmaxf(x, 0.0f), static_cast<float>(p.w - 1));
    const float cy = fminf(fmaxf(y, 0.0f), static_cast<float>(p.h - 1));
    const int x0 = static_cast<int>(cx), y0 = static_cast<int>(cy);
    const int x1 = x0 + 1 < p.w ? x0 + 1 : x0, y1 = y0 + 1 < p.h ? y0 + 1 : y0;
    const float ax = cx - static_cast<float>(x0), ay = cy - static_cast<float>(y0);
    const P* r0 = p.row(y0);
    const P* r1 = p.row(y1);
    const float top = pix(r0[x0]) + ax * (pix(r0[x1]) - pix(r0[x0]));
    const float bot = pix(r1[x0]) + ax * (pix(r1[x1]) - pix(r1[x0]));
    return top + ay * (bot - top);
}

__device__ double block_sum(double v, double* sh) { return block_sum_fixed<kWarmThreads>(v, sh); }

// Block b sums rows b, b + kWarmBlocks, ...: part[b] the cold start's, part[kWarmBlocks + b] the
// kept flow's.
template <class P>
__global__ void k_warm_residual(DPlane<const P> i0, DPlane<const P> i1, DPlane<const float2> cold,
                                DPlane<const float2> warm, double* part) {
    __shared__ double sh[kWarmThreads];
    double sc = 0.0, sw = 0.0;
    for (int y = blockIdx.x; y < i0.h; y += gridDim.x) {
        const P* a = i0.row(y);
        const float2* c = cold.row(y);
        const float2* k = warm.row(y);
        for (int x = threadIdx.x; x < i0.w; x += blockDim.x) {
            const float fx = static_cast<float>(x), fy = static_cast<float>(y);
            sc += fabs(static_cast<double>(warm_sample(i1, fx + c[x].x, fy + c[x].y) - pix(a[x])));
            sw += fabs(static_cast<double>(warm_sample(i1, fx + k[x].x, fy + k[x].y) - pix(a[x])));
        }
    }
    sc = block_sum(sc, sh);
    sw = block_sum(sw, sh);
    if (threadIdx.x == 0) {
        part[blockIdx.x] = sc;
        part[kWarmBlocks + blockIdx.x] = sw;
    }
}

__global__ void k_warm_decide(const double* part, const int* ready, int* taken) {
    __shared__ double sh[kWarmThreads];
    const int t = threadIdx.x;
    const double sc = block_sum(t < kWarmBlocks ? part[t] : 0.0, sh);
    const double sw = block_sum(t < kWarmBlocks ? part[kWarmBlocks + t] : 0.0, sh);
    if (t == 0) *taken = (*ready != 0 && sw < sc) ? 1 : 0;
}

__global__ void k_warm_select(DPlane<float2> u, DPlane<const float2> warm, const int* taken) {
    if (*taken == 0) return;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= u.w || y >= u.h) return;
    u.row(y)[x] = warm.row(y)[x];
}

} // namespace

static_assert(kWarmBlocks <= kWarmThreads, "k_warm_decide sums the partials with one block");

namespace {

template <class P>
cudaError_t warm_enter(DPlane<const P> i0, DPlane<const P> i1, DPlane<float2> u, DPlane<const float2> warm, Ctrl* ctrl,
                       cudaStream_t s) {
    k_warm_residual<P><<<kWarmBlocks, kWarmThreads, 0, s>>>(i0, i1, {u.p, u.w, u.h, u.pitch}, warm, ctrl->warm_part);
    k_warm_decide<<<1, kWarmThreads, 0, s>>>(ctrl->warm_part, &ctrl->warm_ready, &ctrl->warm_taken);
    k_warm_select<<<grid_for(u.w, u.h), dim3(kBX, kBY), 0, s>>>(u, warm, &ctrl->warm_taken);
    return cudaGetLastError();
}

} // namespace

cudaError_t launch_warm_enter(DPlane<const float> i0, DPlane<const float> i1, DPlane<float2> u,
                              DPlane<const float2> warm, Ctrl* ctrl, cudaStream_t s) {
    return warm_enter(i0, i1, u, warm, ctrl, s);
}
cudaError_t launch_warm_enter(DPlane<const __half> i0, DPlane<const __half> i1, DPlane<float2> u,
                              DPlane<const float2> warm, Ctrl* ctrl, cudaStream_t s) {
    return warm_enter(i0, i1, u, warm, ctrl, s);
}

void list_warm_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_warm_residual<float>), "warm_residual");
    l->add(reinterpret_cast<const void*>(&k_warm_residual<__half>), "warm_residual_f16");
    l->add(reinterpret_cast<const void*>(&k_warm_decide), "warm_decide");
    l->add(reinterpret_cast<const void*>(&k_warm_select), "warm_select");
}

} // namespace cuda
} // namespace oflow
