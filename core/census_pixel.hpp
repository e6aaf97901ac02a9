// OF_ROBUST_CENSUS's per-pixel steps (core/census.hpp has the data term), one definition for the
// reference kernels (core/ref/census_ref.cpp) and the CUDA ones (cuda/census_cuda.cu): compiled
// there without contraction and with IEEE division and square root, the device performs the
// same operations in the same order, so both give the same bits from the same inputs.
//
// The planes are read through callables, so that each side passes its own plane type:
// img(x, y) returns a frame's value at (x, y), grad(x, y, &gx, &gy) frame 1's warped gradient
// there; both are only called with (x, y) inside the w x h level.
#ifndef OFLOW_CORE_CENSUS_PIXEL_HPP
#define OFLOW_CORE_CENSUS_PIXEL_HPP

#include "core/census.hpp"

#include <cmath>

namespace oflow {

/// The 8 census channels' sums at one pixel: J2 = sum_k a_k a_k^T (j11, j12, j22) and
/// b = sum_k r_k a_k (b1, b2), a_k = S dc1_k/dx, r_k = S (c1_k - c0_k) (core/census.hpp).
struct CensusSums {
    float j11, j12, j22, b1, b2;
};

/// Whether x + (u1, u2) stays inside the w x h level (else the pixel has no data term).
OF_CENSUS_HD inline bool census_inside(int x, int y, float u1, float u2, int w, int h) {
    const float px = static_cast<float>(x) + u1, py = static_cast<float>(y) + u2;
    return px >= 0.0f && px <= static_cast<float>(w - 1) && py >= 0.0f && py <= static_cast<float>(h - 1);
}

OF_CENSUS_HD inline int census_clamp(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

/// The sums at (x, y) of a w x h level, neighbours clamped into it, in the order k = 0..7 of the
/// 3x3 window's rows. e0, e1: each frame's eta^2.
template <class Img0, class Img1, class Grad>
OF_CENSUS_HD inline CensusSums census_sums(const Img0& i0, const Img1& i1w, const Grad& grad, int w, int h, float e0,
                                           float e1, int x, int y) {
    const int off_x[kCensusN] = {-1, 0, 1, -1, 1, -1, 0, 1};
    const int off_y[kCensusN] = {-1, -1, -1, 0, 0, 1, 1, 1};
    const float s = kCensusScale;
    const float i0c = i0(x, y), i1c = i1w(x, y);
    float gxc, gyc;
    grad(x, y, &gxc, &gyc);
    CensusSums t = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int k = 0; k < kCensusN; ++k) {
        const int xn = census_clamp(x + off_x[k], 0, w - 1), yn = census_clamp(y + off_y[k], 0, h - 1);
        float c1, dc1, c0, dc0, gxn, gyn;
        census_channel(i1w(xn, yn) - i1c, e1, &c1, &dc1);
        census_channel(i0(xn, yn) - i0c, e0, &c0, &dc0);
        grad(xn, yn, &gxn, &gyn);
        const float kx = s * dc1 * (gxn - gxc);
        const float ky = s * dc1 * (gyn - gyc);
        const float r = s * (c1 - c0);
        t.j11 += kx * kx;
        t.j12 += kx * ky;
        t.j22 += ky * ky;
        t.b1 += kx * r;
        t.b2 += ky * r;
    }
    return t;
}

/// One interior row's part of a level's noise estimate (census_noise_sum): the sum from left to
/// right, in float, of |Laplacian difference| (Immerkaer's mask) at x = 1 .. w - 2, from the row
/// above (a), the row itself (b) and the row below (c).
OF_CENSUS_HD inline float census_noise_row(const float* a, const float* b, const float* c, int w) {
    float row = 0.0f;
    for (int x = 1; x < w - 1; ++x) {
        const float v = a[x - 1] - 2.0f * a[x] + a[x + 1] - 2.0f * (b[x - 1] - 2.0f * b[x] + b[x + 1]) + c[x - 1] -
                        2.0f * c[x] + c[x + 1];
        row += std::fabs(v);
    }
    return row;
}

/// TV-L1's major channel at one pixel from its sums at the warp's flow (u1, u2): with
/// [j11 j12; j12 j22]'s eigenvalues lambda1 >= lambda2 and unit eigenvectors e1 = (ex, ey),
/// e2 = (-ey, ex), a1 = sqrt(lambda1) e1 = (cx, cy), |a1|^2 = lambda1 (l1) and its constant part
/// rc (rho_1(u) = rc + a1 . u). False (nothing written) where J2 vanishes (lambda1 <= 1e-12): no
/// data term.
struct CensusMajor {
    float ex, ey, sl, cx, cy, l1, rc;
};
OF_CENSUS_HD inline bool census_major(const CensusSums& t, float u1, float u2, CensusMajor* m) {
    const float j11 = t.j11, j12 = t.j12, j22 = t.j22;
    const float tr = j11 + j22, df = j11 - j22;
    const float l1 = 0.5f * (tr + std::sqrt(df * df + 4.0f * j12 * j12));
    if (!(l1 > 1e-12f)) return false;
    float ex, ey;
    if (std::fabs(j12) > 1e-20f) {
        ex = l1 - j22;
        ey = j12;
    } else if (j11 >= j22) {
        ex = 1.0f;
        ey = 0.0f;
    } else {
        ex = 0.0f;
        ey = 1.0f;
    }
    const float n = 1.0f / std::sqrt(ex * ex + ey * ey);
    ex *= n;
    ey *= n;
    const float sl = std::sqrt(l1);
    const float cx = sl * ex, cy = sl * ey;
    const float rt = (ex * t.b1 + ey * t.b2) / sl;
    *m = CensusMajor{ex, ey, sl, cx, cy, l1, rt - cx * u1 - cy * u2};
    return true;
}

/// The minor channel beside the major one m: a2 = sqrt(lambda2) e2 = q (-cy, cx) (Tvl1Minor), its
/// constant part *rc2; q = rc2 = 0 where lambda2 <= kCensusMinorMin lambda1 (rounding noise of a
/// rank-one tensor). lambda2 = det / lambda1 (no cancellation against lambda1).
OF_CENSUS_HD inline void census_minor(const CensusSums& t, const CensusMajor& m, float u1, float u2, float* q,
                                      float* rc2) {
    *q = 0.0f;
    *rc2 = 0.0f;
    const float det = t.j11 * t.j22 - t.j12 * t.j12;
    const float l2 = det > 0.0f ? det / m.l1 : 0.0f;
    if (!(l2 > kCensusMinorMin * m.l1)) return;
    const float s2 = std::sqrt(l2), qq = s2 / m.sl;
    const float dx = -qq * m.cy, dy = qq * m.cx;
    *q = qq;
    *rc2 = (m.ex * t.b2 - m.ey * t.b1) / s2 - dx * u1 - dy * u2;
}

} // namespace oflow

#endif
