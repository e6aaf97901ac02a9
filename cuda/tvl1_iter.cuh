// The TV-L1 inner iteration's pointwise math, shared by the GLOBAL, FUSED and MULTI_ITER
// kernels: Zach, Pock, Bischof 2007, as tvl1_calc_u_ref / tvl1_calc_p_ref in
// core/ref/tvl1_ref.cpp write it (that file cites the sources), whose operation order is kept so
// that F32 results match it.
//
// Border rules, always by global pixel coordinate (never by position in a tile):
//  - divergence: p(x-1) = 0 at x = 0, p(y-1) = 0 at y = 0;
//  - forward gradient: 0 at x = w-1 (x component) and y = h-1 (y component).
// In-image pixels therefore never read out-of-image values, whatever a tile holds there.
#ifndef OFLOW_CUDA_TVL1_ITER_CUH
#define OFLOW_CUDA_TVL1_ITER_CUH

#include "cuda/cuda_kernels.cuh"

namespace oflow {
namespace cuda {

/// Per-pixel constants of a warp.
struct Consts {
    float ix, iy, g2, rc;
};

template <class T2>
__device__ __forceinline__ Consts load_consts(const IterArgs<T2>& a, std::size_t i) {
    Consts c;
    const float2 g = Pair<T2>::to_f2(a.g[i]);
    c.ix = g.x;
    c.iy = g.y;
    c.g2 = Pair<T2>::kHalf ? g.x * g.x + g.y * g.y : a.gr[i];
    c.rc = a.rc[i];
    return c;
}

/// calc_u at one pixel: threshold step, then u + TH + theta div p.
template <class T2>
__device__ __forceinline__ float2 u_update(float2 u, const Consts& c, float2 div, float lt, float theta) {
    const float rho = c.rc + c.ix * u.x + c.iy * u.y;
    float d1, d2;
    if (rho < -lt * c.g2) {
        d1 = lt * c.ix;
        d2 = lt * c.iy;
    } else if (rho > lt * c.g2) {
        d1 = -lt * c.ix;
        d2 = -lt * c.iy;
    } else if (c.g2 > Pair<T2>::kG2Min) {
        const float f = -rho / c.g2;
        d1 = f * c.ix;
        d2 = f * c.iy;
    } else {
        d1 = 0.0f;
        d2 = 0.0f;
    }
    return make_float2(u.x + d1 + theta * div.x, u.y + d2 + theta * div.y);
}

/// |u_new - u_old|^2, as the reference sums it.
__device__ __forceinline__ float step_sq(float2 o, float2 n) {
    return (n.x - o.x) * (n.x - o.x) + (n.y - o.y) * (n.y - o.y);
}

/// Forward gradient of u at (x, y) from its right and lower neighbours (0 on the last
/// column / row): gx = (u1x, u2x), gy = (u1y, u2y).
__device__ __forceinline__ void forward_grad(float2 u, float2 ur, float2 ud, int x, int y, int w, int h,
                                             float2* gx, float2* gy) {
    *gx = make_float2(0.0f, 0.0f);
    *gy = make_float2(0.0f, 0.0f);
    if (x + 1 < w) *gx = make_float2(ur.x - u.x, ur.y - u.y);
    if (y + 1 < h) *gy = make_float2(ud.x - u.x, ud.y - u.y);
}

} // namespace cuda
} // namespace oflow

#endif
