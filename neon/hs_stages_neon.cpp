// Horn-Schunck / CLG per-warp stages, NEON F32 (core/hs_kernels.hpp has the formulas): the cube
// derivatives, the structure tensor, the batched Gaussian of its channels and the red-black
// split / merge.
//
// Over-read: none. The derivatives read x + 1 only while it is inside the row (the last column
// and the row's tail are scalar, with the reference's clamp); split / merge use vld2q / vst2q
// on whole pairs of 4 and do the tail in scalar code.
//
// Arithmetic: derivatives, tensor, split and merge are the reference's operations in the
// reference's order (sums left to right, no multiply-add to fuse): the same bits. The batched
// blur is blur_h_neon / blur_v_neon per channel (their own tolerance against the reference).
#include "neon/neon_kernels.hpp"

#include "neon/neon_util.hpp"

namespace oflow {

using neon::kLanes;

void hs_derivatives_neon(const HsDerivArgs& a, int y0, int y1) {
    const int w = a.i0.w, h = a.i0.h;
    const float32x4_t q = vdupq_n_f32(0.25f);
    for (int y = y0; y < y1; ++y) {
        const int yn = y + 1 < h ? y + 1 : h - 1;
        const float* a0 = a.i0.row(y);
        const float* a1 = a.i0.row(yn);
        const float* b0 = a.i1w.row(y);
        const float* b1 = a.i1w.row(yn);
        float* ox = a.ix.row(y);
        float* oy = a.iy.row(y);
        float* ot = a.it.row(y);
        int x = 0;
        for (; x + kLanes <= w - 1; x += kLanes) { // x + 1 .. x + 4 inside the row
            const float32x4_t p00 = vld1q_f32(a0 + x), p01 = vld1q_f32(a0 + x + 1);
            const float32x4_t p10 = vld1q_f32(a1 + x), p11 = vld1q_f32(a1 + x + 1);
            const float32x4_t q00 = vld1q_f32(b0 + x), q01 = vld1q_f32(b0 + x + 1);
            const float32x4_t q10 = vld1q_f32(b1 + x), q11 = vld1q_f32(b1 + x + 1);
            // each sum left to right, as the reference writes it
            float32x4_t t = vsubq_f32(p01, p00);
            t = vsubq_f32(vaddq_f32(t, p11), p10);
            t = vsubq_f32(vaddq_f32(t, q01), q00);
            t = vsubq_f32(vaddq_f32(t, q11), q10);
            vst1q_f32(ox + x, vmulq_f32(q, t));
            t = vsubq_f32(p10, p00);
            t = vsubq_f32(vaddq_f32(t, p11), p01);
            t = vsubq_f32(vaddq_f32(t, q10), q00);
            t = vsubq_f32(vaddq_f32(t, q11), q01);
            vst1q_f32(oy + x, vmulq_f32(q, t));
            t = vsubq_f32(q00, p00);
            t = vsubq_f32(vaddq_f32(t, q01), p01);
            t = vsubq_f32(vaddq_f32(t, q10), p10);
            t = vsubq_f32(vaddq_f32(t, q11), p11);
            vst1q_f32(ot + x, vmulq_f32(q, t));
        }
        for (; x < w; ++x) {
            const int xn = x + 1 < w ? x + 1 : w - 1;
            ox[x] = 0.25f * (a0[xn] - a0[x] + a1[xn] - a1[x] + b0[xn] - b0[x] + b1[xn] - b1[x]);
            oy[x] = 0.25f * (a1[x] - a0[x] + a1[xn] - a0[xn] + b1[x] - b0[x] + b1[xn] - b0[xn]);
            ot[x] = 0.25f * (b0[x] - a0[x] + b0[xn] - a0[xn] + b1[x] - a1[x] + b1[xn] - a1[xn]);
        }
    }
}

void hs_tensor_neon(const HsTensorArgs& a, int y0, int y1) {
    const int w = a.ix.w;
    for (int y = y0; y < y1; ++y) {
        const float* gx = a.ix.row(y);
        const float* gy = a.iy.row(y);
        const float* gt = a.it.row(y);
        float* j[kHsChannels];
        for (int c = 0; c < kHsChannels; ++c) j[c] = a.j[c].row(y);
        for (int x = 0; x < w; x += kLanes) {
            const int n = w - x;
            const float32x4_t x4 = neon::load_n(gx + x, n), y4 = neon::load_n(gy + x, n), t4 = neon::load_n(gt + x, n);
            neon::store_n(j[kJ11] + x, vmulq_f32(x4, x4), n);
            neon::store_n(j[kJ12] + x, vmulq_f32(x4, y4), n);
            neon::store_n(j[kJ13] + x, vmulq_f32(x4, t4), n);
            neon::store_n(j[kJ22] + x, vmulq_f32(y4, y4), n);
            neon::store_n(j[kJ23] + x, vmulq_f32(y4, t4), n);
        }
    }
}

// Row by row, every channel (the rows of all channels pass through the cache together).
void hs_blur_h_multi_neon(const Plane* src, const Plane* dst, int n, const Gaussian1D& g, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
        for (int c = 0; c < n; ++c) blur_h_neon(src[c], dst[c], g, y, y + 1);
}

void hs_blur_v_multi_neon(const Plane* src, const Plane* dst, int n, const Gaussian1D& g, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
        for (int c = 0; c < n; ++c) blur_v_neon(src[c], dst[c], g, y, y + 1);
}

// Pixel x of row y is red when x + y is even; either colour's pixel x sits in slot x >> 1. A pair
// of vectors holds pixels 2k .. 2k + 7: lane i of the even half is pixel 2(k + i), of the odd half
// 2(k + i) + 1, so the even half is red's slots k..k+3 on even rows and black's on odd ones.
void rb_split_neon(Plane src, Plane red, Plane black, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
        const float* s = src.row(y);
        float* even = (y & 1) ? black.row(y) : red.row(y);
        float* odd = (y & 1) ? red.row(y) : black.row(y);
        int x = 0;
        for (; x + 2 * kLanes <= src.w; x += 2 * kLanes) {
            const float32x4x2_t v = vld2q_f32(s + x);
            vst1q_f32(even + (x >> 1), v.val[0]);
            vst1q_f32(odd + (x >> 1), v.val[1]);
        }
        // the tail, one loop per parity (x is even here: a multiple of 8)
        for (int xe = x; xe < src.w; xe += 2) even[xe >> 1] = s[xe];
        for (int xo = x + 1; xo < src.w; xo += 2) odd[xo >> 1] = s[xo];
    }
}

void rb_merge_neon(Plane red, Plane black, Plane dst, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
        float* d = dst.row(y);
        const float* even = (y & 1) ? black.row(y) : red.row(y);
        const float* odd = (y & 1) ? red.row(y) : black.row(y);
        int x = 0;
        for (; x + 2 * kLanes <= dst.w; x += 2 * kLanes) {
            float32x4x2_t v;
            v.val[0] = vld1q_f32(even + (x >> 1));
            v.val[1] = vld1q_f32(odd + (x >> 1));
            vst2q_f32(d + x, v);
        }
        for (int xe = x; xe < dst.w; xe += 2) d[xe] = even[xe >> 1];
        for (int xo = x + 1; xo < dst.w; xo += 2) d[xo] = odd[xo >> 1];
    }
}

} // namespace oflow
