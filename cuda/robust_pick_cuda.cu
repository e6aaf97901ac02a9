// OF_ROBUST_PICK's judge on the device (core/robust.hpp; the CPU's is core/flow_driver.cpp
// pick_residual): after each candidate's solve, the mean over the pixels of |N0(x) - N1(x + u)|
// (N: the frames normalised as LOCAL_NORM, bilinear, kPickOutside where x + u leaves the frame),
// reduced deterministically (kWarmBlocks fixed blocks, each a fixed tree, then one block summing
// them in order), the choice (the first candidate, or one whose weighed judge (pick_weight) is strictly lower: a tie
// keeps the earlier, as on the CPU), and the copy of the candidate's flow (and confidence plane)
// into the kept planes when chosen. No host wait: the solver graph holds these launches and each
// replay judges per frame.
#include "cuda/block_sum.cuh"
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_layout.hpp"

namespace oflow {
namespace cuda {
namespace {

const int kPickThreads = 256;
const int kBX = kPlaneBlockX, kBY = kPlaneBlockY;

dim3 grid_for(int w, int h) {
    return dim3(static_cast<unsigned>((w + kBX - 1) / kBX), static_cast<unsigned>((h + kBY - 1) / kBY));
}

__device__ double block_sum(double v, double* sh) { return block_sum_fixed<kPickThreads>(v, sh); }

// Block b sums rows b, b + kWarmBlocks, ... into part[b].
__global__ void __launch_bounds__(kPickThreads)
    k_pick_residual(DPlane<const float> n0, DPlane<const float> n1, DPlane<const float2> u, double* part) {
    __shared__ double sh[kPickThreads];
    double acc = 0.0;
    for (int y = blockIdx.x; y < n0.h; y += gridDim.x) {
        const float2* r = u.row(y);
        const float* a = n0.row(y);
        for (int x = threadIdx.x; x < n0.w; x += blockDim.x)
            acc += static_cast<double>(pick_term(n1.p, n1.pitch, n1.w, n1.h, static_cast<float>(x) + r[x].x,
                                                 static_cast<float>(y) + r[x].y, a[x]));
    }
    acc = block_sum(acc, sh);
    if (threadIdx.x == 0) part[blockIdx.x] = acc;
}

// The candidate's judge (the partials summed in order), then the choice into the control block.
// scale: 1 / pixels times the candidate's pick_weight.
__global__ void __launch_bounds__(kPickThreads) k_pick_select(Ctrl* c, int candidate, double scale) {
    __shared__ double sh[kPickThreads];
    const int t = threadIdx.x;
    const double r = block_sum(t < kWarmBlocks ? c->pick_part[t] : 0.0, sh) * scale;
    if (t != 0) return;
    const bool take = candidate == 0 || r < c->pick_best;
    c->pick_take = take ? 1 : 0;
    if (take) {
        c->pick_best = r;
        c->pick_kept = candidate;
        c->pick_top = c->top;
    }
}

// The candidate's flow (and the confidence plane, conf.p non-null) into the kept planes, when
// the choice took it.
__global__ void __launch_bounds__(kBX * kBY)
    k_pick_keep(DPlane<const float2> u, DPlane<float2> keep, DPlane<const float> conf, DPlane<float> keep_conf,
                const int* take) {
    if (*take == 0) return;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= u.w || y >= u.h) return;
    keep.row(y)[x] = u.row(y)[x];
    if (conf.p) keep_conf.row(y)[x] = conf.row(y)[x];
}

} // namespace

static_assert(kWarmBlocks <= kPickThreads, "k_pick_select sums the partials with one block");

cudaError_t launch_pick_judge(DPlane<const float> n0, DPlane<const float> n1, DPlane<const float2> u,
                              DPlane<float2> keep, DPlane<const float> conf, DPlane<float> keep_conf, int candidate,
                              double weight, Ctrl* ctrl, cudaStream_t s) {
    if (n0.w < 1 || n0.h < 1) return cudaErrorInvalidValue;
    k_pick_residual<<<kWarmBlocks, kPickThreads, 0, s>>>(n0, n1, u, ctrl->pick_part);
    const double scale = weight / (static_cast<double>(n0.w) * static_cast<double>(n0.h));
    k_pick_select<<<1, kPickThreads, 0, s>>>(ctrl, candidate, scale);
    k_pick_keep<<<grid_for(u.w, u.h), dim3(kBX, kBY), 0, s>>>(u, keep, conf, keep_conf, &ctrl->pick_take);
    return cudaGetLastError();
}

void list_pick_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_pick_residual), "pick_residual");
    l->add(reinterpret_cast<const void*>(&k_pick_select), "pick_select");
    l->add(reinterpret_cast<const void*>(&k_pick_keep), "pick_keep");
}

} // namespace cuda
} // namespace oflow
