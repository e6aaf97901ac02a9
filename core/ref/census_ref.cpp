// OF_ROBUST_CENSUS's kernels, reference path (core/census.hpp has the data term): the noise
// estimate of a level and TV-L1's per-warp census channels, the motion tensor's two eigen-channels.
#include "core/ref/kernels_ref.hpp"

#include "core/census.hpp"

#include <cmath>

namespace oflow {
namespace {

inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

const int kOffX[kCensusN] = {-1, 0, 1, -1, 1, -1, 0, 1};
const int kOffY[kCensusN] = {-1, -1, -1, 0, 0, 1, 1, 1};

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
    const int w = a.i0.w, h = a.i0.h;
    const float e0 = a.eta0 * a.eta0, e1 = a.eta1 * a.eta1, s = kCensusScale;
    for (int y = y0; y < y1; ++y) {
        const float* u1 = a.u1.row(y);
        const float* u2 = a.u2.row(y);
        float* ox = a.ax.row(y);
        float* oy = a.ay.row(y);
        float* og = a.grad.row(y);
        float* orho = a.rho_c.row(y);
        float* mq = a.minor.q.row(y);
        float* mrho = a.minor.rho_c.row(y);
        for (int x = 0; x < w; ++x) {
            const float px = static_cast<float>(x) + u1[x], py = static_cast<float>(y) + u2[x];
            if (!(px >= 0.0f && px <= static_cast<float>(w - 1) && py >= 0.0f && py <= static_cast<float>(h - 1))) {
                ox[x] = oy[x] = og[x] = orho[x] = 0.0f;
                mq[x] = mrho[x] = 0.0f;
                continue;
            }
            const float i0c = a.i0.row(y)[x], i1c = a.i1w.row(y)[x];
            const float gxc = a.gx.row(y)[x], gyc = a.gy.row(y)[x];
            float j11 = 0.0f, j12 = 0.0f, j22 = 0.0f, b1 = 0.0f, b2 = 0.0f;
            for (int k = 0; k < kCensusN; ++k) {
                const int xn = clampi(x + kOffX[k], 0, w - 1), yn = clampi(y + kOffY[k], 0, h - 1);
                float c1, dc1, c0, dc0;
                census_channel(a.i1w.row(yn)[xn] - i1c, e1, &c1, &dc1);
                census_channel(a.i0.row(yn)[xn] - i0c, e0, &c0, &dc0);
                const float kx = s * dc1 * (a.gx.row(yn)[xn] - gxc);
                const float ky = s * dc1 * (a.gy.row(yn)[xn] - gyc);
                const float r = s * (c1 - c0);
                j11 += kx * kx;
                j12 += kx * ky;
                j22 += ky * ky;
                b1 += kx * r;
                b2 += ky * r;
            }
            // [j11 j12; j12 j22]: lambda1 >= lambda2 and the unit eigenvectors e1 = (ex, ey),
            // e2 = (-ey, ex).
            const float tr = j11 + j22, df = j11 - j22;
            const float l1 = 0.5f * (tr + std::sqrt(df * df + 4.0f * j12 * j12));
            if (!(l1 > 1e-12f)) {
                ox[x] = oy[x] = og[x] = orho[x] = 0.0f;
                mq[x] = mrho[x] = 0.0f;
                continue;
            }
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
            ox[x] = cx;
            oy[x] = cy;
            og[x] = l1;
            orho[x] = rt - cx * u1[x] - cy * u2[x];
            // lambda2 = det / lambda1 (no cancellation against lambda1); a minor channel below
            // kCensusMinorMin x lambda1 carries no data (rounding noise of a rank-one tensor).
            const float det = j11 * j22 - j12 * j12;
            const float l2 = det > 0.0f ? det / l1 : 0.0f;
            if (l2 > kCensusMinorMin * l1) {
                // a2 = sqrt(lambda2) e2 = q (-cy, cx) with q = sqrt(lambda2 / lambda1) (Tvl1Minor)
                const float s2 = std::sqrt(l2), q = s2 / sl;
                const float dx = -q * cy, dy = q * cx;
                mq[x] = q;
                mrho[x] = (ex * b2 - ey * b1) / s2 - dx * u1[x] - dy * u2[x];
            } else {
                mq[x] = mrho[x] = 0.0f;
            }
        }
    }
}

} // namespace oflow
