// config.init OF_INIT_DIS's per-pixel steps (core/init_dis.hpp has the method, core/kernels.hpp
// KernelTable init_* the contracts), one definition for the reference kernels (core/ref/
// init_fuse_ref.cpp) and the CUDA ones (cuda/init_fuse_cuda.cu): compiled there without
// contraction and with IEEE division and square root, the device performs the same operations in
// the same order, so both give the same bits from the same inputs.
//
// The planes are read through callables, so that each side passes its own plane type (and the
// device its F16 pyramid levels, widened): img(x, y) returns a value at (x, y) inside the plane.
#ifndef OFLOW_CORE_INIT_FUSE_PIXEL_HPP
#define OFLOW_CORE_INIT_FUSE_PIXEL_HPP

#include <cmath>

#if defined(__CUDACC__)
#define OF_INIT_HD __host__ __device__
#else
#define OF_INIT_HD
#endif

namespace oflow {

OF_INIT_HD inline int init_clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
OF_INIT_HD inline float init_clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

/// img (w x h) at (px, py), bilinear, the coordinates clamped to the plane and the cell's origin
/// so that its far corner stays inside.
template <class Img>
OF_INIT_HD inline float init_bilinear(const Img& img, int w, int h, float px, float py) {
    px = init_clampf(px, 0.0f, static_cast<float>(w - 1));
    py = init_clampf(py, 0.0f, static_cast<float>(h - 1));
    const int ix = init_clampi(static_cast<int>(px), 0, w > 1 ? w - 2 : 0);
    const int iy = init_clampi(static_cast<int>(py), 0, h > 1 ? h - 2 : 0);
    const float ax = px - static_cast<float>(ix), ay = py - static_cast<float>(iy);
    const int ix1 = ix + 1 < w ? ix + 1 : ix, iy1 = iy + 1 < h ? iy + 1 : iy;
    return (1.0f - ay) * ((1.0f - ax) * img(ix, iy) + ax * img(ix1, iy)) +
           ay * ((1.0f - ax) * img(ix, iy1) + ax * img(ix1, iy1));
}

/// 1 - ZNCC of i0's 3x3 patch at (x, y) (neighbours clamped) and i1's same offsets read at
/// + (u, v), both w x h: ZNCC = s01 / sqrt((s00 + 1)(s11 + 1)) over the centred sums.
template <class Img0, class Img1>
OF_INIT_HD inline float init_patch_cost(const Img0& i0, const Img1& i1, int w, int h, int x, int y, float u, float v) {
    float a[9], b[9], ma = 0.0f, mb = 0.0f;
    int n = 0;
    for (int oy = -1; oy <= 1; ++oy)
        for (int ox = -1; ox <= 1; ++ox) {
            const int xx = init_clampi(x + ox, 0, w - 1), yy = init_clampi(y + oy, 0, h - 1);
            a[n] = i0(xx, yy);
            b[n] = init_bilinear(i1, w, h, static_cast<float>(xx) + u, static_cast<float>(yy) + v);
            ma += a[n];
            mb += b[n];
            ++n;
        }
    ma /= 9.0f;
    mb /= 9.0f;
    float saa = 0.0f, sbb = 0.0f, sab = 0.0f;
    for (int k = 0; k < 9; ++k) {
        saa += (a[k] - ma) * (a[k] - ma);
        sbb += (b[k] - mb) * (b[k] - mb);
        sab += (a[k] - ma) * (b[k] - mb);
    }
    return 1.0f - sab / std::sqrt((saa + 1.0f) * (sbb + 1.0f));
}

/// Whether the correspondence (x + u, y + v) lies inside the w x h level.
OF_INIT_HD inline bool init_inside(int w, int h, int x, int y, float u, float v) {
    const float px = static_cast<float>(x) + u, py = static_cast<float>(y) + v;
    return px >= 0.0f && px <= static_cast<float>(w - 1) && py >= 0.0f && py <= static_cast<float>(h - 1);
}

/// The fusion's per-pixel evidence, cost(a) - cost(b) (init_patch_cost), positive where flow b
/// explains the pixel better; 0 (no evidence either way) where either correspondence leaves the
/// level: a frame's edge read clamped is a smear, whose cost says nothing about the motion, and a
/// wrong flow that points inside would otherwise beat a right one that points out (docs/accuracy.md
/// section 24: the photograph set's large camera motions lost 40-60 px wide borders so).
template <class Img0, class Img1>
OF_INIT_HD inline float init_cost_diff(const Img0& i0, const Img1& i1, int w, int h, int x, int y, float ua, float va,
                                       float ub, float vb) {
    if (!init_inside(w, h, x, y, ua, va) || !init_inside(w, h, x, y, ub, vb)) return 0.0f;
    return init_patch_cost(i0, i1, w, h, x, y, ua, va) - init_patch_cost(i0, i1, w, h, x, y, ub, vb);
}

/// Whether level l of a solve whose coarsest solved level is top is fused, fused = init_level():
/// every solved level from the coarsest down to the fused one (the fused one alone when top is
/// finer). Fusing the coarser levels too lets DIS repair a coarse flow before it is carried down
/// (docs/accuracy.md section 24).
OF_INIT_HD inline bool init_fuses(int l, int fused, int top) {
    return l <= top && l >= (fused < top ? fused : top);
}

/// [lo, hi) of the source pixels destination pixel x covers, scale s = source / destination.
OF_INIT_HD inline void init_cover(int x, double s, int n, int* lo, int* hi) {
    int a = static_cast<int>(x * s), b = static_cast<int>((x + 1) * s);
    if (a > n - 1) a = n - 1;
    if (b < a + 1) b = a + 1;
    if (b > n) b = n;
    *lo = a;
    *hi = b;
}

/// The mean of src (sw x sh) over the block destination pixel (x, y) of a dw x dh plane covers
/// (init_cover in each direction), summed in double rows then columns in order, times mult.
template <class Src>
OF_INIT_HD inline float init_area_at(const Src& src, int sw, int sh, int dw, int dh, int x, int y, float mult) {
    int xa, xb, ya, yb;
    init_cover(y, static_cast<double>(sh) / dh, sh, &ya, &yb);
    init_cover(x, static_cast<double>(sw) / dw, sw, &xa, &xb);
    double acc = 0.0;
    for (int yy = ya; yy < yb; ++yy)
        for (int xx = xa; xx < xb; ++xx) acc += src(xx, yy);
    return static_cast<float>(acc / ((yb - ya) * (xb - xa))) * mult;
}

} // namespace oflow

#endif
