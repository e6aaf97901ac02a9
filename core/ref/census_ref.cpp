// OF_ROBUST_CENSUS's kernels, reference path (core/census.hpp has the data term): the noise
// estimate of a level and TV-L1's per-warp census channels, the motion tensor's two eigen-channels
// (their per-pixel steps: core/census_pixel.hpp, shared with the CUDA kernels).
#include "core/ref/kernels_ref.hpp"

#include "core/census.hpp"
#include "core/census_pixel.hpp"
#include "core/hs_kernels.hpp"

#include <cmath>

namespace oflow {
namespace {

// A level's planes for core/census_pixel.hpp's steps.
struct PlaneAt {
    Plane p;
    float operator()(int x, int y) const { return p.row(y)[x]; }
};
struct GradAt {
    Plane gx, gy;
    void operator()(int x, int y, float* a, float* b) const {
        *a = gx.row(y)[x];
        *b = gy.row(y)[x];
    }
};

// The sums at (x, y) (core/census_pixel.hpp census_sums) of the level's planes.
inline CensusSums sums_at(Plane i0, Plane i1w, Plane gx, Plane gy, float e0, float e1, int x, int y) {
    return census_sums(PlaneAt{i0}, PlaneAt{i1w}, GradAt{gx, gy}, i0.w, i0.h, e0, e1, x, y);
}

// Rows [y0, y1) of a level, pixel by pixel: out(x, y, in) with in = whether x + u stays inside.
template <class Out>
void census_pixels(Plane u1p, Plane u2p, int w, int h, int y0, int y1, Out out) {
    for (int y = y0; y < y1; ++y) {
        const float* u1 = u1p.row(y);
        const float* u2 = u2p.row(y);
        for (int x = 0; x < w; ++x) out(x, y, census_inside(x, y, u1[x], u2[x], w, h));
    }
}

} // namespace

double census_noise_sum_ref(Plane src, int y0, int y1) {
    const int w = src.w, h = src.h;
    double sum = 0.0;
    for (int y = y0 < 1 ? 1 : y0; y < y1 && y < h - 1; ++y)
        sum += static_cast<double>(census_noise_row(src.row(y - 1), src.row(y), src.row(y + 1), w));
    return sum;
}

void census_tvl1_ref(const CensusArgs& a, int y0, int y1) {
    const float e0 = a.eta0 * a.eta0, e1 = a.eta1 * a.eta1;
    census_pixels(a.u1, a.u2, a.i0.w, a.i0.h, y0, y1, [&](int x, int y, bool in) {
        const float u1 = a.u1.row(y)[x], u2 = a.u2.row(y)[x];
        CensusSums t = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        CensusMajor m = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        bool data = false; // no data term unless the major channel is formed
        if (in) {
            t = sums_at(a.i0, a.i1w, a.gx, a.gy, e0, e1, x, y);
            data = census_major(t, u1, u2, &m);
        }
        float q = 0.0f, rc2 = 0.0f;
        if (data) census_minor(t, m, u1, u2, &q, &rc2);
        a.ax.row(y)[x] = data ? m.cx : 0.0f;
        a.ay.row(y)[x] = data ? m.cy : 0.0f;
        a.grad.row(y)[x] = data ? m.l1 : 0.0f;
        a.rho_c.row(y)[x] = data ? m.rc : 0.0f;
        a.minor.q.row(y)[x] = q;
        a.minor.rho_c.row(y)[x] = rc2;
    });
}

void census_tensor_ref(const CensusTensorArgs& a, int y0, int y1) {
    const float e0 = a.eta0 * a.eta0, e1 = a.eta1 * a.eta1;
    census_pixels(a.u1, a.u2, a.i0.w, a.i0.h, y0, y1, [&](int x, int y, bool in) {
        const CensusSums t = in ? sums_at(a.i0, a.i1w, a.gx, a.gy, e0, e1, x, y) : CensusSums{0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        a.j[kJ11].row(y)[x] = t.j11;
        a.j[kJ12].row(y)[x] = t.j12;
        a.j[kJ13].row(y)[x] = t.b1;
        a.j[kJ22].row(y)[x] = t.j22;
        a.j[kJ23].row(y)[x] = t.b2;
    });
}

} // namespace oflow
