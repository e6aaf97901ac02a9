// Horn-Schunck / CLG stages, reference path (core/hs_kernels.hpp has the formulas): the cube
// derivatives, the structure tensor, the batched Gaussian of its channels and the red-black
// split / merge. Scalar F32, borders replicate.
#include "core/ref/hs_ref.hpp"

#include "core/ref/kernels_ref.hpp"

namespace oflow {

void hs_derivatives_ref(const HsDerivArgs& a, int y0, int y1) {
    const int w = a.i0.w, h = a.i0.h;
    for (int y = y0; y < y1; ++y) {
        const int yn = y + 1 < h ? y + 1 : h - 1;
        const float* a0 = a.i0.row(y);
        const float* a1 = a.i0.row(yn);
        const float* b0 = a.i1w.row(y);
        const float* b1 = a.i1w.row(yn);
        float* ox = a.ix.row(y);
        float* oy = a.iy.row(y);
        float* ot = a.it.row(y);
        for (int x = 0; x < w; ++x) {
            const int xn = x + 1 < w ? x + 1 : w - 1;
            ox[x] = 0.25f * (a0[xn] - a0[x] + a1[xn] - a1[x] + b0[xn] - b0[x] + b1[xn] - b1[x]);
            oy[x] = 0.25f * (a1[x] - a0[x] + a1[xn] - a0[xn] + b1[x] - b0[x] + b1[xn] - b0[xn]);
            ot[x] = 0.25f * (b0[x] - a0[x] + b0[xn] - a0[xn] + b1[x] - a1[x] + b1[xn] - a1[xn]);
        }
    }
}

void hs_tensor_ref(const HsTensorArgs& a, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
        const float* gx = a.ix.row(y);
        const float* gy = a.iy.row(y);
        const float* gt = a.it.row(y);
        float* j11 = a.j[kJ11].row(y);
        float* j12 = a.j[kJ12].row(y);
        float* j13 = a.j[kJ13].row(y);
        float* j22 = a.j[kJ22].row(y);
        float* j23 = a.j[kJ23].row(y);
        for (int x = 0; x < a.ix.w; ++x) {
            j11[x] = gx[x] * gx[x];
            j12[x] = gx[x] * gy[x];
            j13[x] = gx[x] * gt[x];
            j22[x] = gy[x] * gy[x];
            j23[x] = gy[x] * gt[x];
        }
    }
}

// Row by row, every channel: the rows are read once for all channels (the CPU's form of the
// seed's one launch for every channel); per channel the arithmetic is blur_h_ref's / blur_v_ref's.
void hs_blur_h_multi_ref(const Plane* src, const Plane* dst, int n, const Gaussian1D& g, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
        for (int c = 0; c < n; ++c) blur_h_ref(src[c], dst[c], g, y, y + 1);
}

void hs_blur_v_multi_ref(const Plane* src, const Plane* dst, int n, const Gaussian1D& g, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
        for (int c = 0; c < n; ++c) blur_v_ref(src[c], dst[c], g, y, y + 1);
}

// Pixel x of row y is red when (x + y) is even: red pixels of row y start at x = y & 1, black
// ones at 1 - (y & 1); either colour's pixel x sits in slot x >> 1.
void rb_split_ref(Plane src, Plane red, Plane black, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
        const float* s = src.row(y);
        float* r = red.row(y);
        float* b = black.row(y);
        const int first_red = y & 1;
        for (int x = first_red; x < src.w; x += 2) r[x >> 1] = s[x];
        for (int x = 1 - first_red; x < src.w; x += 2) b[x >> 1] = s[x];
    }
}

void rb_merge_ref(Plane red, Plane black, Plane dst, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
        const float* r = red.row(y);
        const float* b = black.row(y);
        float* d = dst.row(y);
        const int first_red = y & 1;
        for (int x = first_red; x < dst.w; x += 2) d[x] = r[x >> 1];
        for (int x = 1 - first_red; x < dst.w; x += 2) d[x] = b[x >> 1];
    }
}

} // namespace oflow
