// Lucas-Kanade stages, reference path (core/lk_kernels.hpp has the formulas and the orders of
// the sums): Scharr and Prewitt gradients, the tensor products, the box sums of n channels,
// the confidence (smaller eigenvalue per window area), the residual products at the bilinearly
// sampled frame 1 and the Newton step. Scalar F32 storage; the 2x2 algebra in double; every
// neighbour clamped into the plane.
#include "core/ref/lk_ref.hpp"

#include "core/ref/kernels_ref.hpp" // census_tensor_ref

#include <cmath>

namespace oflow {
namespace {

inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// Positions beyond this are clamped before the conversion to int (warp_ref.cpp's bound).
const float kPosLimit = 1e6f;
// A flow longer than this reaches no tap the clamped positions do not: not taken.
const double kMaxFlow = 1e6;

// The 3x3 operator with side weight ws and centre weight wc, divided by div (Scharr 3, 10, 32;
// Prewitt 1, 1, 6), in the order of core/lk_kernels.hpp.
template <int kSide, int kCentre, int kDiv>
void gradient3(Plane src, Plane gx, Plane gy, int y0, int y1) {
    const int w = src.w, h = src.h;
    const float ws = static_cast<float>(kSide), wc = static_cast<float>(kCentre), div = static_cast<float>(kDiv);
    for (int y = y0; y < y1; ++y) {
        const float* up = src.row(clampi(y - 1, 0, h - 1));
        const float* c = src.row(y);
        const float* dn = src.row(clampi(y + 1, 0, h - 1));
        float* ox = gx.row(y);
        float* oy = gy.row(y);
        for (int x = 0; x < w; ++x) {
            const int l = clampi(x - 1, 0, w - 1), r = clampi(x + 1, 0, w - 1);
            ox[x] = (ws * (up[r] - up[l]) + wc * (c[r] - c[l]) + ws * (dn[r] - dn[l])) / div;
            oy[x] = (ws * (dn[l] - up[l]) + wc * (dn[x] - up[x]) + ws * (dn[r] - up[r])) / div;
        }
    }
}

} // namespace

void lk_scharr_ref(Plane src, Plane gx, Plane gy, int y0, int y1) { gradient3<3, 10, 32>(src, gx, gy, y0, y1); }

void lk_prewitt_ref(Plane src, Plane gx, Plane gy, int y0, int y1) { gradient3<1, 1, 6>(src, gx, gy, y0, y1); }

void lk_tensor_ref(const LkTensorArgs& a, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
        const float* gx = a.gx.row(y);
        const float* gy = a.gy.row(y);
        float* j11 = a.j[kG11].row(y);
        float* j12 = a.j[kG12].row(y);
        float* j22 = a.j[kG22].row(y);
        for (int x = 0; x < a.gx.w; ++x) {
            j11[x] = gx[x] * gx[x];
            j12[x] = gx[x] * gy[x];
            j22[x] = gy[x] * gy[x];
        }
    }
}

// Row by row, every channel (the rows are read once for all channels); per pixel the terms are
// added from i = -r up, the interior without clamping (the same terms in the same order).
void lk_box_h_multi_ref(const Plane* src, const Plane* dst, int n, int radius, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
        for (int ch = 0; ch < n; ++ch) {
            const float* s = src[ch].row(y);
            float* d = dst[ch].row(y);
            const int w = src[ch].w;
            for (int x = 0; x < w; ++x) {
                float acc = 0.0f;
                if (x - radius >= 0 && x + radius < w) {
                    for (int i = -radius; i <= radius; ++i) acc += s[x + i];
                } else {
                    for (int i = -radius; i <= radius; ++i) acc += s[clampi(x + i, 0, w - 1)];
                }
                d[x] = acc;
            }
        }
}

// Row by row: each output row accumulates the 2r + 1 source rows from the top, column by column
// (per pixel the order of j from -r up).
void lk_box_v_multi_ref(const Plane* src, const Plane* dst, int n, int radius, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
        for (int ch = 0; ch < n; ++ch) {
            const int w = src[ch].w, h = src[ch].h;
            float* d = dst[ch].row(y);
            for (int x = 0; x < w; ++x) d[x] = 0.0f;
            for (int j = -radius; j <= radius; ++j) {
                const float* s = src[ch].row(clampi(y + j, 0, h - 1));
                for (int x = 0; x < w; ++x) d[x] += s[x];
            }
        }
}

double lk_min_eigen(float a, float b, float c) {
    const double A = a, B = b, C = c;
    const double det = A * C - B * B; // both products exact in double
    const double half = 0.5 * (A - C);
    const double lmax = 0.5 * (A + C) + std::sqrt(half * half + B * B);
    if (!(lmax > 0.0)) return 0.0;
    const double lmin = det / lmax;
    return lmin > 0.0 ? lmin : 0.0;
}

double lk_confidence_ref(const LkConfArgs& a, int y0, int y1) {
    double valid = 0.0;
    for (int y = y0; y < y1; ++y) {
        const float* g11 = a.j[kG11].row(y);
        const float* g12 = a.j[kG12].row(y);
        const float* g22 = a.j[kG22].row(y);
        float* conf = a.conf.row(y);
        float* state = a.state.row(y);
        for (int x = 0; x < a.conf.w; ++x) {
            const float c = static_cast<float>(lk_min_eigen(g11[x], g12[x], g22[x]) * a.inv_area);
            conf[x] = c;
            const bool ok = c >= a.min_eigen;
            state[x] = ok ? 1.0f : 0.0f;
            valid += ok ? 1.0 : 0.0;
        }
    }
    return valid;
}

void lk_residual_ref(const LkResidualArgs& a, int y0, int y1) {
    const int w = a.i1.w, h = a.i1.h;
    for (int y = y0; y < y1; ++y) {
        const float* u1 = a.u1.row(y);
        const float* u2 = a.u2.row(y);
        const float* i0 = a.i0.row(y);
        const float* gx = a.gx.row(y);
        const float* gy = a.gy.row(y);
        float* bx = a.bx.row(y);
        float* by = a.by.row(y);
        for (int x = 0; x < w; ++x) {
            float px = static_cast<float>(x) + u1[x], py = static_cast<float>(y) + u2[x];
            px = px < -kPosLimit ? -kPosLimit : (px > kPosLimit ? kPosLimit : px);
            py = py < -kPosLimit ? -kPosLimit : (py > kPosLimit ? kPosLimit : py);
            const float fx0 = std::floor(px), fy0 = std::floor(py);
            const int ix = static_cast<int>(fx0), iy = static_cast<int>(fy0);
            const float fx = px - fx0, fy = py - fy0;
            const int xa = clampi(ix, 0, w - 1), xb = clampi(ix + 1, 0, w - 1);
            const float* ra = a.i1.row(clampi(iy, 0, h - 1));
            const float* rb = a.i1.row(clampi(iy + 1, 0, h - 1));
            const float t = ra[xa] + fx * (ra[xb] - ra[xa]);
            const float b = rb[xa] + fx * (rb[xb] - rb[xa]);
            const bool inside = px >= 0.0f && px <= static_cast<float>(w - 1) && py >= 0.0f && py <= static_cast<float>(h - 1);
            const float it = inside ? (t + fy * (b - t)) - i0[x] : 0.0f;
            const float rc = it - (gx[x] * u1[x] + gy[x] * u2[x]);
            bx[x] = gx[x] * rc;
            by[x] = gy[x] * rc;
        }
    }
}

double lk_update_ref(const LkUpdateArgs& a, int y0, int y1) {
    const double eps2 = static_cast<double>(a.epsilon) * static_cast<double>(a.epsilon);
    double active = 0.0;
    for (int y = y0; y < y1; ++y) {
        const float* g11 = a.j[kG11].row(y);
        const float* g12 = a.j[kG12].row(y);
        const float* g22 = a.j[kG22].row(y);
        const float* ex = a.ex.row(y);
        const float* ey = a.ey.row(y);
        float* state = a.state.row(y);
        float* u1 = a.u1.row(y);
        float* u2 = a.u2.row(y);
        for (int x = 0; x < a.u1.w; ++x) {
            if (state[x] != 1.0f) continue;
            const double A = g11[x], B = g12[x], C = g22[x], X = ex[x], Y = ey[x];
            const double det = A * C - B * B;
            const double nu = det > 0.0 ? -(C * X - B * Y) / det : 0.0;
            const double nv = det > 0.0 ? -(A * Y - B * X) / det : 0.0;
            if (!(det > 0.0) || !(std::fabs(nu) <= kMaxFlow && std::fabs(nv) <= kMaxFlow)) {
                state[x] = 0.0f; // singular window or a flow beyond every tap: no step, stop
                continue;
            }
            const double du = nu - u1[x], dv = nv - u2[x];
            u1[x] = static_cast<float>(nu);
            u2[x] = static_cast<float>(nv);
            if (du * du + dv * dv < eps2) {
                state[x] = 0.0f;
            } else {
                active += 1.0;
            }
        }
    }
    return active;
}

void lk_census_products_ref(const LkCensusArgs& a, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
        const float* j11 = a.j[kG11].row(y);
        const float* j12 = a.j[kG12].row(y);
        const float* j22 = a.j[kG22].row(y);
        const float* u1 = a.u1.row(y);
        const float* u2 = a.u2.row(y);
        float* bx = a.bx.row(y);
        float* by = a.by.row(y);
        for (int x = 0; x < a.u1.w; ++x) {
            bx[x] = bx[x] - (j11[x] * u1[x] + j12[x] * u2[x]);
            by[x] = by[x] - (j12[x] * u1[x] + j22[x] * u2[x]);
        }
    }
}

void lk_kernels_init_ref(LkKernels* t) {
    t->scharr = lk_scharr_ref;
    t->prewitt = lk_prewitt_ref;
    t->gradient = lk_scharr_ref; // the measured choice (core/lk_kernels.hpp, docs/accuracy.md)
    t->tensor = lk_tensor_ref;
    t->box_h_multi = lk_box_h_multi_ref;
    t->box_v_multi = lk_box_v_multi_ref;
    t->confidence = lk_confidence_ref;
    t->residual = lk_residual_ref;
    t->update = lk_update_ref;
    t->census_tensor = census_tensor_ref; // HS's kernel (core/ref/census_ref.cpp)
    t->census_products = lk_census_products_ref;
}

} // namespace oflow
