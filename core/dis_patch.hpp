// The scalar logic of Dense Inverse Search shared by every CPU path (core/dis_kernels.hpp):
//  - the split of a patch's shift into whole pixels and a fraction (the sampling rule);
//  - the per-patch logic of the search and the propagation: each path brings only its patch
//    sums (the four lane-ordered F32 sums of d, d^2, gx d, gy d over a patch at a shift), so
//    that the Hessian, the solvability rule, the steps in double, the stopping rule, the best
//    point, the patch-side limit and the candidates' order are one piece of code;
//  - the refinement's tensor at one pixel (the reference's loop, NEON's row tails).
#ifndef OFLOW_CORE_DIS_PATCH_HPP
#define OFLOW_CORE_DIS_PATCH_HPP

#include "core/dis_kernels.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace oflow {

/// A patch's shift split once into whole pixels and a fraction (core/dis_kernels.hpp, sampling):
/// every pixel of the patch shares the bilinear weights.
struct DisShift {
    int ix, iy;
    float fx, fy;
};

inline DisShift dis_split_shift(float ux, float uy, int w, int h) {
    const float lx = static_cast<float>(w + 2), ly = static_cast<float>(h + 2);
    ux = ux < -lx ? -lx : (ux > lx ? lx : ux);
    uy = uy < -ly ? -ly : (uy > ly ? ly : uy);
    const float flx = std::floor(ux), fly = std::floor(uy);
    return DisShift{static_cast<int>(flx), static_cast<int>(fly), ux - flx, uy - fly};
}

/// The sums over one patch at one shift: d = I1(x + u) - I0(x) (core/dis_kernels.hpp's sampling).
struct DisPatchSums {
    float d, dd, gd_x, gd_y;
};

/// The mean-normalised squared error E of sums s over n pixels.
inline float dis_mn_error(const DisPatchSums& s, float n) { return s.dd - s.d * s.d / n; }

/// Bitwise equality of two floats (the rounds' state compares flows so: -0 is not +0).
inline bool dis_same_bits(float a, float b) {
    std::uint32_t x, y;
    std::memcpy(&x, &a, sizeof x);
    std::memcpy(&y, &b, sizeof y);
    return x == y;
}

/// The flags of a state value (DisSearchArgs: kDisSettled + kDisStable as a float).
inline bool dis_settled(float state) { return (static_cast<int>(state) & 1) != 0; }
inline bool dis_stable(float state) { return (static_cast<int>(state) & 2) != 0; }

/// DisSearchArgs' search for patch rows [j0, j1). grad_sums(px0, py0, ux, uy) returns the
/// patch's sums with the gradient products.
template <class GradSums>
void dis_search_rows(const DisSearchArgs& a, int j0, int j1, GradSums grad_sums) {
    const DisGrid& g = a.g;
    const float n = static_cast<float>(g.p) * static_cast<float>(g.p);
    const bool track = a.state.data != nullptr, resume = track && a.resume;
    for (int j = j0; j < j1; ++j) {
        const int py0 = g.y(j);
        for (int k = 0; k < g.nx; ++k) {
            const float ux0 = a.sx_in.row(j)[k], uy0 = a.sy_in.row(j)[k];
            if (resume && dis_settled(a.state.row(j)[k]) && dis_same_bits(ux0, a.sx_out.row(j)[k]) &&
                dis_same_bits(uy0, a.sy_out.row(j)[k])) {
                a.state.row(j)[k] = kDisSettled + kDisStable; // it would retrace its last search
                continue;
            }
            const int px0 = g.x(k);
            const float sxx = a.sum[kDisSxx].row(j)[k], sxy = a.sum[kDisSxy].row(j)[k],
                        syy = a.sum[kDisSyy].row(j)[k], sgx = a.sum[kDisSx].row(j)[k],
                        sgy = a.sum[kDisSy].row(j)[k];
            const float hxx = sxx - sgx * sgx / n, hxy = sxy - sgx * sgy / n, hyy = syy - sgy * sgy / n;
            const double det = static_cast<double>(hxx) * hyy - static_cast<double>(hxy) * hxy;
            const bool solvable = dis_solvable(hxx, hyy, det, n);
            float ux = ux0, uy = uy0;
            float best_x = ux0, best_y = uy0, best_e = 0.0f, best_m = 0.0f, start_m = 0.0f, start_e = 0.0f,
                  prev_e = 0.0f;
            int best_t = 0;
            bool settled = !solvable; // the loop's end (DisSearchArgs' kDisSettled), below
            for (int t = 0;; ++t) {
                const DisPatchSums s = grad_sums(px0, py0, ux, uy);
                const float e = dis_mn_error(s, n);
                if (t == 0) {
                    best_e = start_e = e;
                    best_m = start_m = s.d / n;
                } else if (e < best_e) {
                    best_e = e;
                    best_x = ux;
                    best_y = uy;
                    best_m = s.d / n;
                    best_t = t;
                }
                const bool rose = t > 0 && e >= prev_e;
                if (t == a.iterations || !solvable || rose) {
                    settled = settled || (rose && best_t == t - 1);
                    break;
                }
                prev_e = e;
                const double bx = static_cast<double>(s.gd_x - sgx * s.d / n);
                const double by = static_cast<double>(s.gd_y - sgy * s.d / n);
                const double dx = (hyy * bx - hxy * by) / det, dy = (hxx * by - hxy * bx) / det;
                if (!std::isfinite(dx) || !std::isfinite(dy)) {
                    settled = best_t == t;
                    break;
                }
                ux = static_cast<float>(ux - dx);
                uy = static_cast<float>(uy - dy);
            }
            const float ddx = best_x - ux0, ddy = best_y - uy0;
            const float lim = static_cast<float>(g.p);
            if (ddx * ddx + ddy * ddy > lim * lim) { // further than a patch side: the start
                best_x = ux0;
                best_y = uy0;
                best_m = start_m;
                best_e = start_e;
                settled = false;
            }
            if (track) {
                const bool stable = resume && dis_same_bits(best_x, a.sx_out.row(j)[k]) &&
                                    dis_same_bits(best_y, a.sy_out.row(j)[k]);
                a.state.row(j)[k] = (settled ? kDisSettled : 0.0f) + (stable ? kDisStable : 0.0f);
            }
            a.sx_out.row(j)[k] = best_x;
            a.sy_out.row(j)[k] = best_y;
            a.md.row(j)[k] = best_m;
            a.err.row(j)[k] = best_e;
        }
    }
}

/// DisPropagateArgs' propagation for patch rows [j0, j1). sums(px0, py0, ux, uy) returns the
/// patch's sums (d and d^2 are what E needs).
template <class Sums>
void dis_propagate_rows(const DisPropagateArgs& a, int j0, int j1, Sums sums) {
    const DisGrid& g = a.g;
    const float n = static_cast<float>(g.p) * static_cast<float>(g.p);
    const bool resume = a.state.data != nullptr && a.resume;
    for (int j = j0; j < j1; ++j) {
        for (int k = 0; k < g.nx; ++k) {
            const int ck[4] = {k - 1, k + 1, k, k}, cj[4] = {j, j, j - 1, j + 1};
            if (resume) { // unchanged candidates: the previous output stands
                bool same = dis_stable(a.state.row(j)[k]);
                for (int c = 0; c < 4 && same; ++c)
                    if (ck[c] >= 0 && ck[c] < g.nx && cj[c] >= 0 && cj[c] < g.ny)
                        same = dis_stable(a.state.row(cj[c])[ck[c]]);
                if (same) continue;
            }
            float bx = a.sx_in.row(j)[k], by = a.sy_in.row(j)[k], be = a.err_in.row(j)[k];
            for (int c = 0; c < 4; ++c) {
                if (ck[c] < 0 || ck[c] >= g.nx || cj[c] < 0 || cj[c] >= g.ny) continue;
                const float ux = a.sx_in.row(cj[c])[ck[c]], uy = a.sy_in.row(cj[c])[ck[c]];
                if (std::fabs(ux - bx) <= kDisSameFlow && std::fabs(uy - by) <= kDisSameFlow) continue;
                const float e = dis_mn_error(sums(g.x(k), g.y(j), ux, uy), n);
                if (e < be) {
                    be = e;
                    bx = ux;
                    by = uy;
                }
            }
            a.sx_out.row(j)[k] = bx;
            a.sy_out.row(j)[k] = by;
        }
    }
}

/// The rows y - 1, y, y + 1 (clamped) of the refinement's inputs.
struct DisRefineRows {
    const float *i0u, *i0c, *i0d, *i1u, *i1c, *i1d;
    const float *fu[2], *fc[2], *fd[2];
};

inline DisRefineRows dis_refine_rows(const DisRefineArgs& a, int y) {
    const int h = a.i0.h;
    const int yu = y > 0 ? y - 1 : 0, yd = y + 1 < h ? y + 1 : h - 1;
    DisRefineRows r;
    r.i0u = a.i0.row(yu);
    r.i0c = a.i0.row(y);
    r.i0d = a.i0.row(yd);
    r.i1u = a.i1w.row(yu);
    r.i1c = a.i1w.row(y);
    r.i1d = a.i1w.row(yd);
    const Plane flow[2] = {a.u1, a.u2};
    for (int c = 0; c < 2; ++c) {
        r.fu[c] = flow[c].row(yu);
        r.fc[c] = flow[c].row(y);
        r.fd[c] = flow[c].row(yd);
    }
    return r;
}

/// The inputs of the refinement's tensor at one pixel (T = float) or at several side by side
/// (T a vector of floats): frame 0, the warped frame 1 and the flow's two components at the
/// pixel's 3 x 3 neighbourhood ([row up, centre, down][column left, centre, right], clamped),
/// and the increment at the pixel.
template <class T>
struct DisRefineTaps {
    T i0[3][3], i1[3][3];
    T f[2][3][3];
    T du, dv;
};

/// DisRefineArgs' tensor from its taps, in the order of operations written there, element-wise
/// for a vector T; sqrt_fn: the IEEE square root of T. out: J11, J12, J13, J22, J23 (HsChannel).
template <class T, class Sqrt>
inline void dis_refine_terms(const DisRefineTaps<T>& t, const DisRefineArgs& a, Sqrt sqrt_fn, T out[kHsChannels]) {
    const float kSixth = 1.0f / 6.0f, kTwelfth = 1.0f / 12.0f;
    const auto avg = [&t](int r, int c) { return 0.5f * (t.i0[r][c] + t.i1[r][c]); };
    const T ac = avg(1, 1), al = avg(1, 0), ar = avg(1, 2);
    const T au = avg(0, 1), ad = avg(2, 1);
    const T aul = avg(0, 0), aur = avg(0, 2);
    const T adl = avg(2, 0), adr = avg(2, 2);
    const T ax = 0.5f * (ar - al), ay = 0.5f * (ad - au);
    const T axx = (ar - 2.0f * ac) + al, ayy = (ad - 2.0f * ac) + au;
    const T axy = 0.25f * ((adr - adl) - (aur - aul));
    const T it = t.i1[1][1] - t.i0[1][1];
    const T ixt = 0.5f * (t.i1[1][2] - t.i1[1][0]) - 0.5f * (t.i0[1][2] - t.i0[1][0]);
    const T iyt = 0.5f * (t.i1[2][1] - t.i1[0][1]) - 0.5f * (t.i0[2][1] - t.i0[0][1]);
    const T du = t.du, dv = t.dv;
    const T nb = ax * ax + ay * ay + kDisZeta2;
    const T rb_num = it + ax * du + ay * dv;
    const T phib = a.delta / sqrt_fn(rb_num * rb_num / nb + kDisEps2) / nb;
    const T ng = axx * axx + 2.0f * axy * axy + ayy * ayy + kDisZeta2;
    const T gx_res = ixt + axx * du + axy * dv, gy_res = iyt + axy * du + ayy * dv;
    const T phig = a.gamma / sqrt_fn((gx_res * gx_res + gy_res * gy_res) / ng + kDisEps2) / ng;
    T lap[2];
    for (int c = 0; c < 2; ++c) {
        const T (&f)[3][3] = t.f[c];
        const T m = kSixth * ((f[1][0] + f[1][2]) + (f[0][1] + f[2][1])) +
                    kTwelfth * ((f[0][0] + f[0][2]) + (f[2][0] + f[2][2]));
        lap[c] = f[1][1] - m;
    }
    out[kJ11] = phib * ax * ax + phig * (axx * axx + axy * axy);
    out[kJ12] = phib * ax * ay + phig * (axx * axy + axy * ayy);
    out[kJ13] = phib * ax * it + phig * (axx * ixt + axy * iyt) + a.alpha2 * lap[0];
    out[kJ22] = phib * ay * ay + phig * (axy * axy + ayy * ayy);
    out[kJ23] = phib * ay * it + phig * (axy * ixt + ayy * iyt) + a.alpha2 * lap[1];
}

/// DisRefineArgs' tensor at pixel (x, y), in the order of operations written there.
inline void dis_refine_pixel(const DisRefineArgs& a, const DisRefineRows& r, int x, int y) {
    const int w = a.i0.w;
    const int xl = x > 0 ? x - 1 : 0, xr = x + 1 < w ? x + 1 : w - 1;
    const int col[3] = {xl, x, xr};
    const float* const i0[3] = {r.i0u, r.i0c, r.i0d};
    const float* const i1[3] = {r.i1u, r.i1c, r.i1d};
    DisRefineTaps<float> t;
    for (int k = 0; k < 3; ++k)
        for (int m = 0; m < 3; ++m) {
            t.i0[k][m] = i0[k][col[m]];
            t.i1[k][m] = i1[k][col[m]];
        }
    for (int c = 0; c < 2; ++c) {
        const float* const f[3] = {r.fu[c], r.fc[c], r.fd[c]};
        for (int k = 0; k < 3; ++k)
            for (int m = 0; m < 3; ++m) t.f[c][k][m] = f[k][col[m]];
    }
    // The increment at (x, y): colour (x + y) & 1, slot x >> 1 of its split row.
    const bool red = ((x + y) & 1) == 0;
    t.du = (red ? a.du_r : a.du_b).row(y)[x >> 1];
    t.dv = (red ? a.dv_r : a.dv_b).row(y)[x >> 1];
    float out[kHsChannels];
    dis_refine_terms(t, a, [](float v) { return std::sqrt(v); }, out);
    const Plane* dst = red ? a.j_red : a.j_black;
    for (int ch = 0; ch < kHsChannels; ++ch) dst[ch].row(y)[x >> 1] = out[ch];
}

} // namespace oflow

#endif
