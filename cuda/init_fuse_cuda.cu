// config.init OF_INIT_DIS's fusion on the device (core/init_dis.hpp has the method, core/kernels.hpp
// KernelTable init_* the contracts, core/ref/init_fuse_ref.cpp the reference): at each fused level
// (init_fuses), DIS's level-0 flow area-averaged to the level replaces the coarse-to-fine flow where the
// (2 r + 1)^2 window sum of cost(u) - cost(d) is positive, cost = 1 - ZNCC of 3x3 patches (0 where
// either correspondence leaves the level: init_cost_diff).
//
// Two kernels, one thread per pixel of the level (kPlaneBlockX x kPlaneBlockY), on the per-pixel
// steps the reference shares (core/init_fuse_pixel.hpp):
//  - k_init_cost: d = init_area_ref's mean of DIS's flow over the block the pixel covers (double
//    sums in its order, times the level's scale), then diff = cost(u) - cost(d) (init_cost_ref);
//  - k_init_choose: the window sum of diff, each row's r-neighbourhood summed first from the left
//    and the rows then added from the top (init_box_rows_ref then init_choose_ref: the same float
//    additions in the same order, without the row-sum plane), and where it is positive u = d,
//    d recomputed by the same operations (so equal to k_init_cost's bit for bit).
// The file is compiled with IEEE division and square root and without contraction (cuda/
// CMakeLists.txt), so on F32 pyramids every value equals the reference's bit for bit; on F16
// pyramids (TV-L1 at F16 precision) the kernels widen each pixel read and compute in F32.
//
// The texture rule (core/robust.hpp) may decide the coarsest level on the device: with `top`
// non-null both kernels return at once unless init_fuses(level, fuse_level, *top), so a graph can
// hold the launches of every level and the device picks the ones the CPU path would fuse at.
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_layout.hpp"
#include "cuda/plane_launch.cuh"

#include "core/init_fuse_pixel.hpp"

namespace oflow {
namespace cuda {
namespace {

const int kBX = kPlaneBlockX, kBY = kPlaneBlockY;

// init_area_at of both components at level pixel (x, y): DIS's flow averaged over the block the
// pixel covers, each component times its own scale.
__device__ float2 area_flow(const InitFuseArgs& a, int x, int y) {
    const DPlane<const float2> s = a.dis;
    const auto s1 = [&](int xx, int yy) { return s.row(yy)[xx].x; };
    const auto s2 = [&](int xx, int yy) { return s.row(yy)[xx].y; };
    return make_float2(init_area_at(s1, s.w, s.h, a.w, a.h, x, y, a.mx), init_area_at(s2, s.w, s.h, a.w, a.h, x, y, a.my));
}

// Whether this launch is the fused level's (always, when the host decided the level).
__device__ __forceinline__ bool fusing(const InitFuseArgs& a) {
    if (!a.top) return true;
    return init_fuses(a.level, a.fuse_level, *a.top);
}

template <class P>
__global__ void __launch_bounds__(kBX* kBY)
    k_init_cost(InitFuseArgs a, DPlane<const P> i0, DPlane<const P> i1) {
    int x, y;
    if (!plane_pixel(a.w, a.h, &x, &y) || !fusing(a)) return;
    const float2 u = a.u.row(y)[x];
    const float2 d = area_flow(a, x, y);
    const auto p0 = [&](int xx, int yy) { return pix(i0.row(yy)[xx]); };
    const auto p1 = [&](int xx, int yy) { return pix(i1.row(yy)[xx]); };
    a.diff.row(y)[x] = init_cost_diff(p0, p1, a.w, a.h, x, y, u.x, u.y, d.x, d.y);
}

__global__ void __launch_bounds__(kBX* kBY) k_init_choose(InitFuseArgs a) {
    int x, y;
    if (!plane_pixel(a.w, a.h, &x, &y) || !fusing(a)) return;
    const int r = a.radius;
    const int ya = y - r > 0 ? y - r : 0, yb = y + r < a.h - 1 ? y + r : a.h - 1;
    const int xa = x - r > 0 ? x - r : 0, xb = x + r < a.w - 1 ? x + r : a.w - 1;
    float acc = 0.0f;
    for (int yy = ya; yy <= yb; ++yy) {
        const float* in = a.diff.row(yy);
        float row = 0.0f;
        for (int xx = xa; xx <= xb; ++xx) row += in[xx];
        acc += row;
    }
    if (acc > 0.0f) a.u.row(y)[x] = area_flow(a, x, y);
}

template <class P>
cudaError_t launch_cost(const InitFuseArgs& a, DPlane<const P> i0, DPlane<const P> i1, cudaStream_t s) {
    k_init_cost<P><<<plane_grid(a.w, a.h), dim3(kBX, kBY), 0, s>>>(a, i0, i1);
    return cudaGetLastError();
}

} // namespace

cudaError_t launch_init_cost(const InitFuseArgs& a, DPlane<const float> i0, DPlane<const float> i1, cudaStream_t s) {
    return launch_cost(a, i0, i1, s);
}

cudaError_t launch_init_cost(const InitFuseArgs& a, DPlane<const __half> i0, DPlane<const __half> i1, cudaStream_t s) {
    return launch_cost(a, i0, i1, s);
}

cudaError_t launch_init_choose(const InitFuseArgs& a, cudaStream_t s) {
    k_init_choose<<<plane_grid(a.w, a.h), dim3(kBX, kBY), 0, s>>>(a);
    return cudaGetLastError();
}

void list_init_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_init_cost<float>), "init_cost_f32");
    l->add(reinterpret_cast<const void*>(&k_init_cost<__half>), "init_cost_f16");
    l->add(reinterpret_cast<const void*>(&k_init_choose), "init_choose");
}

} // namespace cuda
} // namespace oflow
