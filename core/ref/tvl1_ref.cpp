// TV-L1 inner iteration, reference path. The scheme is Zach, Pock, Bischof, "A duality based
// approach for realtime TV-L1 optical flow" (DAGM 2007), in the form of the IPOL implementation
// (Sanchez Perez, Meinhardt-Llopis, Facciolo, "TV-L1 optical flow estimation", Image Processing
// On Line, 2013): threshold v = u + TH, u = v + theta div p, p = (p + tau/theta grad u) /
// (1 + tau/theta |grad u|). Its pointwise steps are fused into two half-stencils as in
// T. Romera, "Adequation algorithme architecture pour flot optique sur GPU embarque", PhD thesis,
// Sorbonne Universite, 2023, section 4.6.1.2 (Fig. 4.4).
//
// calc_u (threshold + backward divergence + u update) reads p at (x-1, y) and (x, y-1);
// calc_p (forward gradient + dual update) reads u at (x+1, y) and (x, y+1). Each updates its
// own arrays in place: calc_u writes only u and reads u at the same pixel, calc_p writes only
// p and reads p at the same pixel, so row bands may run concurrently.
//
// Borders: the forward gradient is 0 on the last column/row, so p_d1 stays 0 on the last
// column and p_d2 on the last row (p starts at 0 on every level); the divergence uses
// p(-1) = 0. Together they are an adjoint pair, the discrete gradient and divergence of Chambolle
// ("An algorithm for total variation minimization and applications", 2004).
#include "core/ref/kernels_ref.hpp"

#include <cmath>

namespace oflow {

namespace {

// The threshold step of one channel (the IPOL scheme's three cases): the step to add to u is
// f (ix, iy), f = lt where rho < -lt g, -lt where rho > lt g, else -rho / g (0 where g <= 1e-10).
inline float threshold_factor(float rho, float g, float lt) {
    if (rho < -lt * g) return lt;
    if (rho > lt * g) return -lt;
    return g > 1e-10f ? -rho / g : 0.0f;
}

// calc_u over rows [y0, y1), with a second channel b when Two (orthogonal to the first at every
// pixel, Tvl1Minor: the threshold of the sum of both L1 terms is the sum of each channel's own
// step, each the three cases with its own rho and |a|^2).
template <bool Two>
double calc_u_rows(const Tvl1IterArgs& a, const Tvl1Minor* b, int y0, int y1) {
    const int w = a.u1.w;
    const float lt = a.lt, theta = a.theta;
    double err = 0.0;
    for (int y = y0; y < y1; ++y) {
        float* u1 = a.u1.row(y);
        float* u2 = a.u2.row(y);
        const float* p11 = a.p11.row(y);
        const float* p12 = a.p12.row(y);
        const float* p21 = a.p21.row(y);
        const float* p22 = a.p22.row(y);
        const float* p12u = y > 0 ? a.p12.row(y - 1) : nullptr;
        const float* p22u = y > 0 ? a.p22.row(y - 1) : nullptr;
        const float* ix = a.i1wx.row(y);
        const float* iy = a.i1wy.row(y);
        const float* g2 = a.grad.row(y);
        const float* rc = a.rho_c.row(y);
        const float* q = Two ? b->q.row(y) : nullptr;
        const float* rc2 = Two ? b->rho_c.row(y) : nullptr;
        float row_err = 0.0f;
        for (int x = 0; x < w; ++x) {
            const float f = threshold_factor(rc[x] + ix[x] * u1[x] + iy[x] * u2[x], g2[x], lt);
            float d1 = f * ix[x], d2 = f * iy[x];
            if (Two) {
                const float jx = -q[x] * iy[x], jy = q[x] * ix[x];
                const float f2 = threshold_factor(rc2[x] + jx * u1[x] + jy * u2[x], q[x] * q[x] * g2[x], lt);
                d1 += f2 * jx;
                d2 += f2 * jy;
            }
            const float div1 = p11[x] - (x > 0 ? p11[x - 1] : 0.0f) + p12[x] - (p12u ? p12u[x] : 0.0f);
            const float div2 = p21[x] - (x > 0 ? p21[x - 1] : 0.0f) + p22[x] - (p22u ? p22u[x] : 0.0f);
            const float n1 = u1[x] + d1 + theta * div1;
            const float n2 = u2[x] + d2 + theta * div2;
            row_err += (n1 - u1[x]) * (n1 - u1[x]) + (n2 - u2[x]) * (n2 - u2[x]);
            u1[x] = n1;
            u2[x] = n2;
        }
        err += static_cast<double>(row_err);
    }
    return err;
}

} // namespace

double tvl1_calc_u_ref(const Tvl1IterArgs& a, int y0, int y1) { return calc_u_rows<false>(a, nullptr, y0, y1); }

double tvl1_calc_u2_ref(const Tvl1IterArgs& a, const Tvl1Minor& b, int y0, int y1) {
    return calc_u_rows<true>(a, &b, y0, y1);
}

void tvl1_calc_p_ref(const Tvl1IterArgs& a, int y0, int y1) {
    const int w = a.u1.w, h = a.u1.h;
    const float k = a.tau_over_theta;
    for (int y = y0; y < y1; ++y) {
        const float* u1 = a.u1.row(y);
        const float* u2 = a.u2.row(y);
        const float* u1d = y + 1 < h ? a.u1.row(y + 1) : nullptr;
        const float* u2d = y + 1 < h ? a.u2.row(y + 1) : nullptr;
        float* p11 = a.p11.row(y);
        float* p12 = a.p12.row(y);
        float* p21 = a.p21.row(y);
        float* p22 = a.p22.row(y);
        for (int x = 0; x < w; ++x) {
            const float u1x = x + 1 < w ? u1[x + 1] - u1[x] : 0.0f;
            const float u2x = x + 1 < w ? u2[x + 1] - u2[x] : 0.0f;
            const float u1y = u1d ? u1d[x] - u1[x] : 0.0f;
            const float u2y = u2d ? u2d[x] - u2[x] : 0.0f;
            const float ng1 = 1.0f + k * std::sqrt(u1x * u1x + u1y * u1y);
            const float ng2 = 1.0f + k * std::sqrt(u2x * u2x + u2y * u2y);
            p11[x] = (p11[x] + k * u1x) / ng1;
            p12[x] = (p12[x] + k * u1y) / ng1;
            p21[x] = (p21[x] + k * u2x) / ng2;
            p22[x] = (p22[x] + k * u2y) / ng2;
        }
    }
}

} // namespace oflow
