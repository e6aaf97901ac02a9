// OF_ROBUST_CENSUS's kernels, reference path (core/census.hpp has the data term): the noise
// estimate of a level and TV-L1's per-warp census channels, the motion tensor's two eigen-channels.
#include "core/ref/kernels_ref.hpp"

#include "core/census.hpp"
#include "core/hs_kernels.hpp"

#include <cmath>

namespace oflow {
namespace {

inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

const int kOffX[kCensusN] = {-1, 0, 1, -1, 1, -1, 0, 1};
const int kOffY[kCensusN] = {-1, -1, -1, 0, 0, 1, 1, 1};

// The 8 census channels' sums at pixel (x, y) of a level: J2 = sum_k a_k a_k^T (j11, j12, j22)
// and b = sum_k r_k a_k (b1, b2), a_k = S dc1_k/dx, r_k = S (c1_k - c0_k) (core/census.hpp).
struct CensusSums {
    float j11, j12, j22, b1, b2;
};

inline CensusSums census_sums(Plane i0, Plane i1w, Plane gx, Plane gy, float e0, float e1, int x, int y) {
    const int w = i0.w, h = i0.h;
    const float s = kCensusScale;
    const float i0c = i0.row(y)[x], i1c = i1w.row(y)[x];
    const float gxc = gx.row(y)[x], gyc = gy.row(y)[x];
    CensusSums t = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (int k = 0; k < kCensusN; ++k) {
        const int xn = clampi(x + kOffX[k], 0, w - 1), yn = clampi(y + kOffY[k], 0, h - 1);
        float c1, dc1, c0, dc0;
        census_channel(i1w.row(yn)[xn] - i1c, e1, &c1, &dc1);
        census_channel(i0.row(yn)[xn] - i0c, e0, &c0, &dc0);
        const float kx = s * dc1 * (gx.row(yn)[xn] - gxc);
        const float ky = s * dc1 * (gy.row(yn)[xn] - gyc);
        const float r = s * (c1 - c0);
        t.j11 += kx * kx;
        t.j12 += kx * ky;
        t.j22 += ky * ky;
        t.b1 += kx * r;
        t.b2 += ky * r;
    }
    return t;
}

inline bool inside(int x, int y, float u, float v, int w, int h) {
    const float px = static_cast<float>(x) + u, py = static_cast<float>(y) + v;
    return px >= 0.0f && px <= static_cast<float>(w - 1) && py >= 0.0f && py <= static_cast<float>(h - 1);
}

// Rows [y0, y1) of a level, pixel by pixel: out(x, y, in) with in = whether x + u stays inside.
template <class Out>
void census_pixels(Plane u1p, Plane u2p, int w, int h, int y0, int y1, Out out) {
    for (int y = y0; y < y1; ++y) {
        const float* u1 = u1p.row(y);
        const float* u2 = u2p.row(y);
        for (int x = 0; x < w; ++x) out(x, y, inside(x, y, u1[x], u2[x], w, h));
    }
}

} // namespace

double census_noise_sum_ref(Plane src, int y0, int y1) {
    const int w = src.w, h = src.h;
    double sum = 0.0;
    for (int y = y0 < 1 ? 1 : y0; y < y1 && y < h - 1; ++y) {
        const float* a = src.row(y - 1);
        const float* b = src.row(y);
        const float* c = src.row(y + 1);
        float row = 0.0f;
        for (int x = 1; x < w - 1; ++x) {
            const float v = a[x - 1] - 2.0f * a[x] + a[x + 1] - 2.0f * (b[x - 1] - 2.0f * b[x] + b[x + 1]) +
                            c[x - 1] - 2.0f * c[x] + c[x + 1];
            row += std::fabs(v);
        }
        sum += static_cast<double>(row);
    }
    return sum;
}

double census_noise_sigma(double sum, int w, int h) {
    if (w < 3 || h < 3) return 0.0;
    const double kPi = 3.14159265358979323846;
    return std::sqrt(0.5 * kPi) * sum / (6.0 * static_cast<double>(w - 2) * static_cast<double>(h - 2));
}

void census_tvl1_ref(const CensusArgs& a, int y0, int y1) {
    const float e0 = a.eta0 * a.eta0, e1 = a.eta1 * a.eta1;
    census_pixels(a.u1, a.u2, a.i0.w, a.i0.h, y0, y1, [&](int x, int y, bool in) {
        float* const out[6] = {&a.ax.row(y)[x], &a.ay.row(y)[x], &a.grad.row(y)[x],
                               &a.rho_c.row(y)[x], &a.minor.q.row(y)[x], &a.minor.rho_c.row(y)[x]};
        for (float* o : out) *o = 0.0f; // no data term unless written below
        if (!in) return;
        const CensusSums t = census_sums(a.i0, a.i1w, a.gx, a.gy, e0, e1, x, y);
        const float j11 = t.j11, j12 = t.j12, j22 = t.j22, b1 = t.b1, b2 = t.b2;
        const float u1 = a.u1.row(y)[x], u2 = a.u2.row(y)[x];
        // [j11 j12; j12 j22]: lambda1 >= lambda2 and the unit eigenvectors e1 = (ex, ey),
        // e2 = (-ey, ex).
        const float tr = j11 + j22, df = j11 - j22;
        const float l1 = 0.5f * (tr + std::sqrt(df * df + 4.0f * j12 * j12));
        if (!(l1 > 1e-12f)) return;
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
        const float rt = (ex * b1 + ey * b2) / sl;
        *out[0] = cx;
        *out[1] = cy;
        *out[2] = l1;
        *out[3] = rt - cx * u1 - cy * u2;
        // lambda2 = det / lambda1 (no cancellation against lambda1); a minor channel below
        // kCensusMinorMin x lambda1 carries no data (rounding noise of a rank-one tensor).
        const float det = j11 * j22 - j12 * j12;
        const float l2 = det > 0.0f ? det / l1 : 0.0f;
        if (l2 > kCensusMinorMin * l1) {
            // a2 = sqrt(lambda2) e2 = q (-cy, cx) with q = sqrt(lambda2 / lambda1) (Tvl1Minor)
            const float s2 = std::sqrt(l2), q = s2 / sl;
            const float dx = -q * cy, dy = q * cx;
            *out[4] = q;
            *out[5] = (ex * b2 - ey * b1) / s2 - dx * u1 - dy * u2;
        }
    });
}

void census_tensor_ref(const CensusTensorArgs& a, int y0, int y1) {
    const float e0 = a.eta0 * a.eta0, e1 = a.eta1 * a.eta1;
    census_pixels(a.u1, a.u2, a.i0.w, a.i0.h, y0, y1, [&](int x, int y, bool in) {
        const CensusSums t = in ? census_sums(a.i0, a.i1w, a.gx, a.gy, e0, e1, x, y) : CensusSums{0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        a.j[kJ11].row(y)[x] = t.j11;
        a.j[kJ12].row(y)[x] = t.j12;
        a.j[kJ13].row(y)[x] = t.b1;
        a.j[kJ22].row(y)[x] = t.j22;
        a.j[kJ23].row(y)[x] = t.b2;
    });
}

} // namespace oflow
