// config.init OF_INIT_DIS's fusion, the reference: KernelTable init_* (core/kernels.hpp has
// the contracts, core/init_dis.hpp the method, core/init_fuse_pixel.hpp the per-pixel steps the
// CUDA kernels share).
#include "core/init_fuse_pixel.hpp"
#include "core/ref/kernels_ref.hpp"

namespace oflow {

void init_area_ref(Plane src, Plane dst, float mult, int y0, int y1) {
    const auto s = [&](int x, int y) { return src.row(y)[x]; };
    for (int y = y0; y < y1; ++y) {
        float* out = dst.row(y);
        for (int x = 0; x < dst.w; ++x) out[x] = init_area_at(s, src.w, src.h, dst.w, dst.h, x, y, mult);
    }
}

void init_cost_ref(Plane i0, Plane i1, Plane a1, Plane a2, Plane b1, Plane b2, Plane diff, int y0, int y1) {
    const auto p0 = [&](int x, int y) { return i0.row(y)[x]; };
    const auto p1 = [&](int x, int y) { return i1.row(y)[x]; };
    for (int y = y0; y < y1; ++y) {
        float* out = diff.row(y);
        for (int x = 0; x < i0.w; ++x)
            out[x] = init_cost_diff(p0, p1, i0.w, i0.h, x, y, a1.row(y)[x], a2.row(y)[x], b1.row(y)[x], b2.row(y)[x]);
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
