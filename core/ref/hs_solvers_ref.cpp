// Horn-Schunck / CLG solvers, reference path (core/hs_kernels.hpp has the equations): HS's
// Jacobi update, CLG's pointwise-coupled Jacobi, the textbook point Jacobi (for the
// convergence comparison) and the red-black SOR half-sweep. Scalar F32, every neighbour
// clamped into the plane (replicated borders); change sums in double.
//
// The 9-point local mean m(u) = (1/6) ((l + r) + (u + d)) + (1/12) ((ul + ur) + (dl + dr)),
// summed in exactly that order (other paths match it within their stated tolerance).
#include "core/ref/hs_ref.hpp"
#include "core/ref/kernels_ref.hpp"

namespace oflow {
namespace {

inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

const float kSixth = 1.0f / 6.0f, kTwelfth = 1.0f / 12.0f;

inline float mean9(float l, float r, float u, float d, float ul, float ur, float dl, float dr) {
    return kSixth * ((l + r) + (u + d)) + kTwelfth * ((ul + ur) + (dl + dr));
}

// m() of plane p at (x, y), neighbours clamped.
inline float local_mean(const Plane& p, int x, int y) {
    const int xl = clampi(x - 1, 0, p.w - 1), xr = clampi(x + 1, 0, p.w - 1);
    const float* up = p.row(clampi(y - 1, 0, p.h - 1));
    const float* c = p.row(y);
    const float* dn = p.row(clampi(y + 1, 0, p.h - 1));
    return mean9(c[xl], c[xr], up[x], dn[x], up[xl], up[xr], dn[xl], dn[xr]);
}

// The 2x2 system of core/hs_kernels.hpp at one pixel, by Cramer's rule.
inline void solve2(float j11, float j12, float j13, float j22, float j23, float a2, float mu, float mv, float* u,
                   float* v) {
    const float A = j11 + a2, B = j12, C = j22 + a2;
    const float r1 = a2 * mu - j13, r2 = a2 * mv - j23;
    const float det = A * C - B * B;
    *u = (C * r1 - B * r2) / det;
    *v = (A * r2 - B * r1) / det;
}

enum class Update { kHs, kCoupled, kPlain };

template <Update U>
double jacobi_pixel(const HsJacobiArgs& a, int x, int y) {
    const float a2 = a.alpha2;
    const float du = a.du.row(y)[x], dv = a.dv.row(y)[x];
    const float mu = local_mean(a.du, x, y), mv = local_mean(a.dv, x, y);
    float u, v;
    if (U == Update::kHs) {
        const float gx = a.ix.row(y)[x], gy = a.iy.row(y)[x], gt = a.it.row(y)[x];
        const float n = gx * mu + gy * mv + gt;
        const float d = a2 + gx * gx + gy * gy;
        u = mu - gx * n / d;
        v = mv - gy * n / d;
    } else {
        const float j11 = a.j[kJ11].row(y)[x], j12 = a.j[kJ12].row(y)[x], j13 = a.j[kJ13].row(y)[x];
        const float j22 = a.j[kJ22].row(y)[x], j23 = a.j[kJ23].row(y)[x];
        if (U == Update::kCoupled) {
            solve2(j11, j12, j13, j22, j23, a2, mu, mv, &u, &v);
        } else {
            u = (a2 * mu - j12 * dv - j13) / (j11 + a2);
            v = (a2 * mv - j12 * du - j23) / (j22 + a2);
        }
    }
    const double cu = static_cast<double>(u) - du, cv = static_cast<double>(v) - dv;
    a.du_next.row(y)[x] = u;
    a.dv_next.row(y)[x] = v;
    return cu * cu + cv * cv;
}

template <Update U>
double jacobi_rows(const HsJacobiArgs& a, int y0, int y1) {
    double total = 0.0;
    for (int y = y0; y < y1; ++y) {
        double row = 0.0;
        for (int x = 0; x < a.du.w; ++x) row += jacobi_pixel<U>(a, x, y);
        total += row;
    }
    return total;
}

} // namespace

double hs_jacobi_pixel_ref(const HsJacobiArgs& a, int x, int y) { return jacobi_pixel<Update::kHs>(a, x, y); }
double clg_jacobi_pixel_ref(const HsJacobiArgs& a, int x, int y) { return jacobi_pixel<Update::kCoupled>(a, x, y); }

double hs_jacobi_ref(const HsJacobiArgs& a, int y0, int y1) { return jacobi_rows<Update::kHs>(a, y0, y1); }
double clg_jacobi_ref(const HsJacobiArgs& a, int y0, int y1) { return jacobi_rows<Update::kCoupled>(a, y0, y1); }
double clg_jacobi_plain_ref(const HsJacobiArgs& a, int y0, int y1) { return jacobi_rows<Update::kPlain>(a, y0, y1); }

// Pixel (x, y) of colour c = (x + y) & 1 sits in slot x >> 1 of its colour's split row y. A
// neighbour, once clamped into the plane, is read from this colour's old values when it has
// this colour, else from the other colour's current ones. (The reference clamps and tests the
// colour per neighbour; a fast path can index the interior without branches: the direct
// neighbours are slots k + s - 1 and k + s of the other colour's row y and slot k of rows
// y - 1 and y + 1, the diagonals slots k + s - 1 and k + s of this colour's rows y -+ 1,
// s = (y + c) & 1.)
double sor_pixel_ref(const HsSorArgs& a, int k, int y) {
    const int w = a.w, h = a.u_old.h, c = a.colour;
    const int x = 2 * k + ((y + c) & 1);
    float nu[8], nv[8]; // l, r, u, d, ul, ur, dl, dr
    const int dx[8] = {-1, 1, 0, 0, -1, 1, -1, 1}, dy[8] = {0, 0, -1, 1, -1, -1, 1, 1};
    for (int i = 0; i < 8; ++i) {
        const int nx = clampi(x + dx[i], 0, w - 1), ny = clampi(y + dy[i], 0, h - 1);
        const bool same = ((nx + ny) & 1) == c;
        nu[i] = (same ? a.u_old : a.u_other).row(ny)[nx >> 1];
        nv[i] = (same ? a.v_old : a.v_other).row(ny)[nx >> 1];
    }
    const float mu = mean9(nu[0], nu[1], nu[2], nu[3], nu[4], nu[5], nu[6], nu[7]);
    const float mv = mean9(nv[0], nv[1], nv[2], nv[3], nv[4], nv[5], nv[6], nv[7]);
    float gu, gv;
    solve2(a.j[kJ11].row(y)[k], a.j[kJ12].row(y)[k], a.j[kJ13].row(y)[k], a.j[kJ22].row(y)[k], a.j[kJ23].row(y)[k],
           a.alpha2, mu, mv, &gu, &gv);
    const float om = a.omega;
    const float ou = a.u_old.row(y)[k], ov = a.v_old.row(y)[k];
    const float u = (1.0f - om) * ou + om * gu, v = (1.0f - om) * ov + om * gv;
    a.u_new.row(y)[k] = u;
    a.v_new.row(y)[k] = v;
    const double cu = static_cast<double>(u) - ou, cv = static_cast<double>(v) - ov;
    return cu * cu + cv * cv;
}

// The interior (all 8 neighbours inside: rows 1..h-2, x in 1..w-2) indexes the split rows
// directly, the same arithmetic in the same order as sor_pixel_ref, which does the border
// pixels: the results are the same bits either way.
double sor_half_sweep_ref(const HsSorArgs& a, int y0, int y1) {
    const int w = a.w, h = a.u_old.h;
    const float a2 = a.alpha2, om = a.omega;
    double total = 0.0;
    for (int y = y0; y < y1; ++y) {
        const int s = (y + a.colour) & 1;
        const int slots = (w - s + 1) / 2;
        double row = 0.0;
        int k = 0;
        if (y > 0 && y < h - 1) {
            // x - 1 >= 0 and x + 1 <= w - 1 (k_hi = floor((w - 2 - s) / 2): -1 when w - 2 - s = -1)
            const int k_lo = 1 - s, k_hi = w - 2 - s >= 0 ? (w - 2 - s) / 2 : -1;
            for (; k < k_lo && k < slots; ++k) row += sor_pixel_ref(a, k, y);
            const float *ou = a.u_old.row(y), *ov = a.v_old.row(y);
            const float *su = a.u_old.row(y - 1), *sd = a.u_old.row(y + 1), *tu = a.v_old.row(y - 1),
                        *td = a.v_old.row(y + 1);
            const float *pl = a.u_other.row(y), *pu = a.u_other.row(y - 1), *pd = a.u_other.row(y + 1);
            const float *ql = a.v_other.row(y), *qu = a.v_other.row(y - 1), *qd = a.v_other.row(y + 1);
            const float *j11 = a.j[kJ11].row(y), *j12 = a.j[kJ12].row(y), *j13 = a.j[kJ13].row(y),
                        *j22 = a.j[kJ22].row(y), *j23 = a.j[kJ23].row(y);
            float* nu = a.u_new.row(y);
            float* nv = a.v_new.row(y);
            for (; k <= k_hi; ++k) {
                const int l = k + s - 1, r = k + s; // left / right slots (other colour row y; diagonals)
                const float mu = mean9(pl[l], pl[r], pu[k], pd[k], su[l], su[r], sd[l], sd[r]);
                const float mv = mean9(ql[l], ql[r], qu[k], qd[k], tu[l], tu[r], td[l], td[r]);
                float gu, gv;
                solve2(j11[k], j12[k], j13[k], j22[k], j23[k], a2, mu, mv, &gu, &gv);
                const float u = (1.0f - om) * ou[k] + om * gu, v = (1.0f - om) * ov[k] + om * gv;
                nu[k] = u;
                nv[k] = v;
                const double cu = static_cast<double>(u) - ou[k], cv = static_cast<double>(v) - ov[k];
                row += cu * cu + cv * cv;
            }
        }
        for (; k < slots; ++k) row += sor_pixel_ref(a, k, y);
        total += row;
    }
    return total;
}

void hs_kernels_init_ref(HsKernels* t) {
    t->derivatives = hs_derivatives_ref;
    t->tensor = hs_tensor_ref;
    t->blur_h_multi = hs_blur_h_multi_ref;
    t->blur_v_multi = hs_blur_v_multi_ref;
    t->hs_jacobi = hs_jacobi_ref;
    t->clg_jacobi = clg_jacobi_ref;
    t->clg_jacobi_plain = clg_jacobi_plain_ref;
    t->rb_split = rb_split_ref;
    t->rb_merge = rb_merge_ref;
    t->sor_half_sweep = sor_half_sweep_ref;
    t->census_tensor = census_tensor_ref;
}

} // namespace oflow
