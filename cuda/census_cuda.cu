// OF_ROBUST_CENSUS's per-warp kernels on the device (core/census.hpp has the data term): TV-L1's
// two eigen-channels (census_tvl1_ref) and HS's / CLG's census tensor (census_tensor_ref), one
// thread per pixel. Their per-pixel steps are the reference's own (core/census_pixel.hpp); this
// file is compiled without contraction and with IEEE division and square root (cuda/CMakeLists.txt),
// so the outputs equal the reference's bit for bit given the same inputs and eta. eta comes from
// the control block (census_stats_cuda.cu, per level).
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_layout.hpp"
#include "cuda/hs_cuda.cuh"
#include "cuda/plane_launch.cuh"

#include "core/census_pixel.hpp"

namespace oflow {
namespace cuda {
namespace {

const int kBX = kPlaneBlockX, kBY = kPlaneBlockY;

// A level's planes for core/census_pixel.hpp's steps: a frame ...
struct PlaneAt {
    DPlane<const float> p;
    __device__ float operator()(int x, int y) const { return p.row(y)[x]; }
};

// ... frame 1's warped gradient: TV-L1's stored pairs (the warp's, bicubic, 0 where x + u leaves
// the level) ...
struct StoredGrad {
    DPlane<const float2> g;
    __device__ void operator()(int x, int y, float* gx, float* gy) const {
        const float2 v = g.row(y)[x];
        *gx = v.x;
        *gy = v.y;
    }
};

// ... or HS's: central differences of the warped frame, clamped (gradient_ref's operations).
struct CentralGrad {
    DPlane<const float> p;
    __device__ void operator()(int x, int y, float* gx, float* gy) const {
        const int w = p.w, h = p.h;
        const float* up = p.row(clampi(y - 1, 0, h - 1));
        const float* c = p.row(y);
        const float* dn = p.row(clampi(y + 1, 0, h - 1));
        *gx = 0.5f * (c[clampi(x + 1, 0, w - 1)] - c[clampi(x - 1, 0, w - 1)]);
        *gy = 0.5f * (dn[x] - up[x]);
    }
};

// census_tvl1_ref at one pixel: the major channel into (a, gr, rc), the minor one as (q, rho_c)
// pairs; all 0 where x + u leaves the level or J2 vanishes. Every plane is level-sized with the
// level's pitch (one index).
__global__ void __launch_bounds__(kBX * kBY) k_census_tvl1(CensusTvl1Args a) {
    int x, y;
    if (!plane_pixel(a.i0.w, a.i0.h, &x, &y)) return;
    const int w = a.i0.w, h = a.i0.h;
    const std::size_t i = a.i0.index(x, y);
    const float2 u = a.u.p[i];
    CensusSums t = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    CensusMajor m = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    bool data = census_inside(x, y, u.x, u.y, w, h);
    if (data) {
        const float eta0 = a.eta[0], eta1 = a.eta[1];
        t = census_sums(PlaneAt{a.i0}, PlaneAt{a.i1w}, StoredGrad{a.g}, w, h, eta0 * eta0, eta1 * eta1, x, y);
        data = census_major(t, u.x, u.y, &m);
    }
    // The major channel is stored before the minor one is formed: fewer values live across the
    // IEEE division's slow-path calls (no spill on sm_53 / sm_62).
    a.a.p[i] = data ? make_float2(m.cx, m.cy) : make_float2(0.0f, 0.0f);
    a.gr.p[i] = data ? m.l1 : 0.0f;
    a.rc.p[i] = data ? m.rc : 0.0f;
    float q = 0.0f, rc2 = 0.0f;
    if (data) census_minor(t, m, u.x, u.y, &q, &rc2);
    a.minor.p[i] = make_float2(q, rc2);
}

// census_tensor_ref at one pixel (0 where x + u leaves the level); nothing once the stop slot
// says the level ended (LK's steps).
__global__ void __launch_bounds__(kBX * kBY) k_census_tensor(CensusTensorCudaArgs a) {
    if (a.stop && *a.stop < a.launch) return;
    int x, y;
    if (!plane_pixel(a.i0.w, a.i0.h, &x, &y)) return;
    const int w = a.i0.w, h = a.i0.h;
    const float2 u = a.u.row(y)[x];
    CensusSums t = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    if (census_inside(x, y, u.x, u.y, w, h)) {
        const float eta0 = a.eta[0], eta1 = a.eta[1];
        t = census_sums(PlaneAt{a.i0}, PlaneAt{a.i1w}, CentralGrad{a.i1w}, w, h, eta0 * eta0, eta1 * eta1, x, y);
    }
    const std::size_t i = a.i0.index(x, y);
    a.j[kJ11][i] = t.j11;
    a.j[kJ12][i] = t.j12;
    a.j[kJ13][i] = t.b1;
    a.j[kJ22][i] = t.j22;
    a.j[kJ23][i] = t.b2;
}

} // namespace

cudaError_t launch_census_tvl1(const CensusTvl1Args& a, cudaStream_t s) {
    k_census_tvl1<<<plane_grid(a.i0.w, a.i0.h), dim3(kBX, kBY), 0, s>>>(a);
    return cudaGetLastError();
}

cudaError_t launch_census_tensor(const CensusTensorCudaArgs& a, cudaStream_t s) {
    k_census_tensor<<<plane_grid(a.i0.w, a.i0.h), dim3(kBX, kBY), 0, s>>>(a);
    return cudaGetLastError();
}

void list_census_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_census_tvl1), "census_tvl1");
    l->add(reinterpret_cast<const void*>(&k_census_tensor), "census_tensor");
}

} // namespace cuda
} // namespace oflow
