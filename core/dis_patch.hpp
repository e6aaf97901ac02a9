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

/// DisSearchArgs' search for patch rows [j0, j1). grad_sums(px0, py0, ux, uy) returns the
/// patch's sums with the gradient products.
template <class GradSums>
void dis_search_rows(const DisSearchArgs& a, int j0, int j1, GradSums grad_sums) {
    const DisGrid& g = a.g;
    const float n = static_cast<float>(g.p) * static_cast<float>(g.p);
    for (int j = j0; j < j1; ++j) {
        const int py0 = g.y(j);
        for (int k = 0; k < g.nx; ++k) {
            const int px0 = g.x(k);
            const float sxx = a.sum[kDisSxx].row(j)[k], sxy = a.sum[kDisSxy].row(j)[k],
                        syy = a.sum[kDisSyy].row(j)[k], sgx = a.sum[kDisSx].row(j)[k],
                        sgy = a.sum[kDisSy].row(j)[k];
            const float hxx = sxx - sgx * sgx / n, hxy = sxy - sgx * sgy / n, hyy = syy - sgy * sgy / n;
            const double det = static_cast<double>(hxx) * hyy - static_cast<double>(hxy) * hxy;
            const bool solvable = dis_solvable(hxx, hyy, det, n);
            const float ux0 = a.sx_in.row(j)[k], uy0 = a.sy_in.row(j)[k];
            float ux = ux0, uy = uy0;
            float best_x = ux0, best_y = uy0, best_e = 0.0f, best_m = 0.0f, start_m = 0.0f, start_e = 0.0f,
                  prev_e = 0.0f;
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
                }
                if (t == a.iterations || !solvable || (t > 0 && e >= prev_e)) break;
                prev_e = e;
                const double bx = static_cast<double>(s.gd_x - sgx * s.d / n);
                const double by = static_cast<double>(s.gd_y - sgy * s.d / n);
                const double dx = (hyy * bx - hxy * by) / det, dy = (hxx * by - hxy * bx) / det;
                if (!std::isfinite(dx) || !std::isfinite(dy)) break;
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
    for (int j = j0; j < j1; ++j) {
        for (int k = 0; k < g.nx; ++k) {
            float bx = a.sx_in.row(j)[k], by = a.sy_in.row(j)[k], be = a.err_in.row(j)[k];
            const int ck[4] = {k - 1, k + 1, k, k}, cj[4] = {j, j, j - 1, j + 1};
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

/// DisRefineArgs' tensor at pixel (x, y), in the order of operations written there.
inline void dis_refine_pixel(const DisRefineArgs& a, const DisRefineRows& r, int x, int y) {
    const int w = a.i0.w;
    const float kSixth = 1.0f / 6.0f, kTwelfth = 1.0f / 12.0f;
    const int xl = x > 0 ? x - 1 : 0, xr = x + 1 < w ? x + 1 : w - 1;
    const auto avg = [](float p, float q) { return 0.5f * (p + q); };
    const float ac = avg(r.i0c[x], r.i1c[x]), al = avg(r.i0c[xl], r.i1c[xl]), ar = avg(r.i0c[xr], r.i1c[xr]);
    const float au = avg(r.i0u[x], r.i1u[x]), ad = avg(r.i0d[x], r.i1d[x]);
    const float aul = avg(r.i0u[xl], r.i1u[xl]), aur = avg(r.i0u[xr], r.i1u[xr]);
    const float adl = avg(r.i0d[xl], r.i1d[xl]), adr = avg(r.i0d[xr], r.i1d[xr]);
    const float ax = 0.5f * (ar - al), ay = 0.5f * (ad - au);
    const float axx = (ar - 2.0f * ac) + al, ayy = (ad - 2.0f * ac) + au;
    const float axy = 0.25f * ((adr - adl) - (aur - aul));
    const float it = r.i1c[x] - r.i0c[x];
    const float ixt = 0.5f * (r.i1c[xr] - r.i1c[xl]) - 0.5f * (r.i0c[xr] - r.i0c[xl]);
    const float iyt = 0.5f * (r.i1d[x] - r.i1u[x]) - 0.5f * (r.i0d[x] - r.i0u[x]);
    // The increment at (x, y): colour (x + y) & 1, slot x >> 1 of its split row.
    const bool red = ((x + y) & 1) == 0;
    const float du = (red ? a.du_r : a.du_b).row(y)[x >> 1];
    const float dv = (red ? a.dv_r : a.dv_b).row(y)[x >> 1];
    const float nb = ax * ax + ay * ay + kDisZeta2;
    const float rb_num = it + ax * du + ay * dv;
    const float phib = a.delta / std::sqrt(rb_num * rb_num / nb + kDisEps2) / nb;
    const float ng = axx * axx + 2.0f * axy * axy + ayy * ayy + kDisZeta2;
    const float gx_res = ixt + axx * du + axy * dv, gy_res = iyt + axy * du + ayy * dv;
    const float phig = a.gamma / std::sqrt((gx_res * gx_res + gy_res * gy_res) / ng + kDisEps2) / ng;
    float lap[2];
    for (int c = 0; c < 2; ++c) {
        const float m = kSixth * ((r.fc[c][xl] + r.fc[c][xr]) + (r.fu[c][x] + r.fd[c][x])) +
                        kTwelfth * ((r.fu[c][xl] + r.fu[c][xr]) + (r.fd[c][xl] + r.fd[c][xr]));
        lap[c] = r.fc[c][x] - m;
    }
    const Plane* out = red ? a.j_red : a.j_black;
    out[kJ11].row(y)[x >> 1] = phib * ax * ax + phig * (axx * axx + axy * axy);
    out[kJ12].row(y)[x >> 1] = phib * ax * ay + phig * (axx * axy + axy * ayy);
    out[kJ13].row(y)[x >> 1] = phib * ax * it + phig * (axx * ixt + axy * iyt) + a.alpha2 * lap[0];
    out[kJ22].row(y)[x >> 1] = phib * ay * ay + phig * (axy * axy + ayy * ayy);
    out[kJ23].row(y)[x >> 1] = phib * ay * it + phig * (axy * ixt + ayy * iyt) + a.alpha2 * lap[1];
}

} // namespace oflow

#endif
