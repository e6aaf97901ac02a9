// config.init OF_INIT_DIS's fusion, the reference: KernelTable init_* (core/kernels.hpp has
// the contracts, core/init_dis.hpp the method).
#include "core/ref/kernels_ref.hpp"

#include <cmath>

namespace oflow {
namespace {

int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

// i at (px, py), bilinear, the coordinates clamped to the plane.
float bilinear_clamped(Plane i, float px, float py) {
    px = clampf(px, 0.0f, static_cast<float>(i.w - 1));
    py = clampf(py, 0.0f, static_cast<float>(i.h - 1));
    const int ix = clampi(static_cast<int>(px), 0, i.w > 1 ? i.w - 2 : 0);
    const int iy = clampi(static_cast<int>(py), 0, i.h > 1 ? i.h - 2 : 0);
    const float ax = px - static_cast<float>(ix), ay = py - static_cast<float>(iy);
    const int ix1 = ix + 1 < i.w ? ix + 1 : ix, iy1 = iy + 1 < i.h ? iy + 1 : iy;
    const float* r0 = i.row(iy);
    const float* r1 = i.row(iy1);
    return (1.0f - ay) * ((1.0f - ax) * r0[ix] + ax * r0[ix1]) + ay * ((1.0f - ax) * r1[ix] + ax * r1[ix1]);
}

// [lo, hi) of the source pixels destination pixel x covers, scale s = source / destination.
void cover(int x, double s, int n, int* lo, int* hi) {
    int a = static_cast<int>(x * s), b = static_cast<int>((x + 1) * s);
    if (a > n - 1) a = n - 1;
    if (b < a + 1) b = a + 1;
    if (b > n) b = n;
    *lo = a;
    *hi = b;
}

// 1 - ZNCC of i0's 3x3 patch at (x, y) and i1's at (x + u, y + v).
float patch_cost(Plane i0, Plane i1, int x, int y, float u, float v) {
    float a[9], b[9], ma = 0.0f, mb = 0.0f;
    int n = 0;
    for (int oy = -1; oy <= 1; ++oy)
        for (int ox = -1; ox <= 1; ++ox) {
            const int xx = clampi(x + ox, 0, i0.w - 1), yy = clampi(y + oy, 0, i0.h - 1);
            a[n] = i0.row(yy)[xx];
            b[n] = bilinear_clamped(i1, static_cast<float>(xx) + u, static_cast<float>(yy) + v);
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

} // namespace

void init_area_ref(Plane src, Plane dst, float mult, int y0, int y1) {
    const double sx = static_cast<double>(src.w) / dst.w, sy = static_cast<double>(src.h) / dst.h;
    for (int y = y0; y < y1; ++y) {
        int ya, yb;
        cover(y, sy, src.h, &ya, &yb);
        float* out = dst.row(y);
        for (int x = 0; x < dst.w; ++x) {
            int xa, xb;
            cover(x, sx, src.w, &xa, &xb);
            double acc = 0.0;
            for (int yy = ya; yy < yb; ++yy) {
                const float* r = src.row(yy);
                for (int xx = xa; xx < xb; ++xx) acc += r[xx];
            }
            out[x] = static_cast<float>(acc / ((yb - ya) * (xb - xa))) * mult;
        }
    }
}

void init_cost_ref(Plane i0, Plane i1, Plane a1, Plane a2, Plane b1, Plane b2, Plane diff, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
        float* out = diff.row(y);
        for (int x = 0; x < i0.w; ++x)
            out[x] = patch_cost(i0, i1, x, y, a1.row(y)[x], a2.row(y)[x]) -
                     patch_cost(i0, i1, x, y, b1.row(y)[x], b2.row(y)[x]);
    }
}

void init_box_rows_ref(Plane src, Plane dst, int r, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
        const float* in = src.row(y);
        float* out = dst.row(y);
        for (int x = 0; x < src.w; ++x) {
            float acc = 0.0f;
            for (int xx = (x - r > 0 ? x - r : 0); xx <= (x + r < src.w - 1 ? x + r : src.w - 1); ++xx) acc += in[xx];
            out[x] = acc;
        }
    }
}

void init_choose_ref(Plane rows, Plane b1, Plane b2, Plane u1, Plane u2, int r, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
        const int ya = y - r > 0 ? y - r : 0, yb = y + r < rows.h - 1 ? y + r : rows.h - 1;
        for (int x = 0; x < rows.w; ++x) {
            float acc = 0.0f;
            for (int yy = ya; yy <= yb; ++yy) acc += rows.row(yy)[x];
            if (acc > 0.0f) {
                u1.row(y)[x] = b1.row(y)[x];
                u2.row(y)[x] = b2.row(y)[x];
            }
        }
    }
}

} // namespace oflow
