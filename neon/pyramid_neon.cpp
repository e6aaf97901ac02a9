// Pyramid stages in NEON (F32): separable Gaussian (clamped borders), bilinear resampling with
// aligned pixel centres, bilinear flow upsampling. Same results as core/ref/pyramid_ref.cpp up
// to rounding (fused multiply-adds, the same order of terms).
//
// Over-read contract: none. Every load lies in [0, w) of a row of the plane it reads; row
// ends are handled with partial vectors (neon_util.hpp), and horizontal taps that would cross
// a row end come from a small clamped copy of the taps on the stack.
#include "neon/neon_kernels.hpp"
#include "neon/neon_util.hpp"

namespace oflow {
namespace {

using namespace neon;

// Horizontal blur of four outputs whose centre taps are c[0..3]; reads c[-r .. 3 + r].
inline float32x4_t blur_h4(const float* c, const Gaussian1D& g) {
    float32x4_t acc = vmulq_n_f32(vld1q_f32(c), g.k[0]);
    for (int i = 1; i <= g.radius; ++i)
        acc = vfmaq_n_f32(acc, vaddq_f32(vld1q_f32(c - i), vld1q_f32(c + i)), g.k[i]);
    return acc;
}

// a + t (b - a), lane-wise: the one bilinear step, shared by every resampling path.
inline float32x4_t lerp(float32x4_t a, float32x4_t b, float32x4_t t) {
    return vfmaq_f32(a, t, vsubq_f32(b, a));
}

// Source coordinate of output column/row i: (i + 0.5) s - 0.5, clamped to [0, m].
inline float32x4_t src_coord(float32x4_t i, float s, float m) {
    const float32x4_t c = vfmaq_n_f32(vdupq_n_f32(-0.5f), vaddq_f32(i, vdupq_n_f32(0.5f)), s);
    return vmaxq_f32(vminq_f32(c, vdupq_n_f32(m)), vdupq_n_f32(0.0f));
}

// Rows [y0, y1) of dst = mult * (src resampled bilinearly to dst's size, pixel centres aligned).
// Horizontal lerp on each of the two source rows, then the vertical one, as the reference.
void resize_rows(Plane src, Plane dst, float mult, int y0, int y1) {
    const float sx = static_cast<float>(src.w) / static_cast<float>(dst.w);
    const float sy = static_cast<float>(src.h) / static_cast<float>(dst.h);
    const float mx = static_cast<float>(src.w - 1), my = static_cast<float>(src.h - 1);
    const int32x4_t last = vdupq_n_s32(src.w - 1);
    // Halving an even width (sx == 2 exactly): columns 2x and 2x + 1 with weight 1/2, never
    // clamped; the generic path gives the same bits (there too fx == 0.5, x1 == 2x + 1).
    const bool halve = src.w == 2 * dst.w;
    for (int y = y0; y < y1; ++y) {
        const float fyc = vgetq_lane_f32(src_coord(vdupq_n_f32(static_cast<float>(y)), sy, my), 0);
        const int ry0 = static_cast<int>(fyc);
        const int ry1 = ry0 + 1 < src.h ? ry0 + 1 : ry0;
        const float32x4_t fy = vdupq_n_f32(fyc - static_cast<float>(ry0));
        const float* r0 = src.row(ry0);
        const float* r1 = src.row(ry1);
        float* d = dst.row(y);
        int x = 0;
        if (halve) {
            const float32x4_t half = vdupq_n_f32(0.5f);
            for (; x + kLanes <= dst.w; x += kLanes) {
                const float32x4x2_t a = vld2q_f32(r0 + 2 * x), b = vld2q_f32(r1 + 2 * x);
                const float32x4_t v = lerp(lerp(a.val[0], a.val[1], half), lerp(b.val[0], b.val[1], half), fy);
                vst1q_f32(d + x, vmulq_n_f32(v, mult));
            }
        }
        for (; x < dst.w; x += kLanes) {
            const float32x4_t xs = src_coord(column_index(x), sx, mx);
            const int32x4_t i0 = vcvtq_s32_f32(xs); // xs >= 0: truncation is floor
            const int32x4_t i1 = vminq_s32(vaddq_s32(i0, vdupq_n_s32(1)), last);
            const float32x4_t fx = vsubq_f32(xs, vcvtq_f32_s32(i0));
            // Lanes past the row end sample columns clamped into the source: valid reads.
            const float32x4_t a = lerp(gather4(r0, i0), gather4(r0, i1), fx);
            const float32x4_t b = lerp(gather4(r1, i0), gather4(r1, i1), fx);
            store_n(d + x, vmulq_n_f32(lerp(a, b, fy), mult), dst.w - x);
        }
    }
}

} // namespace

void blur_h_neon(Plane src, Plane dst, const Gaussian1D& g, int y0, int y1) {
    const int r = g.radius, w = src.w;
    float win[2 * kMaxBlurRadius + kLanes];
    for (int y = y0; y < y1; ++y) {
        const float* s = src.row(y);
        float* d = dst.row(y);
        for (int x = 0; x < w; x += kLanes) {
            float32x4_t v;
            if (x - r >= 0 && x + kLanes - 1 + r < w) {
                v = blur_h4(s + x, g);
            } else { // taps cross a row end: clamped copy of s[x - r .. x + 3 + r]
                for (int j = 0; j < 2 * r + kLanes; ++j) win[j] = s[clampi(x - r + j, 0, w - 1)];
                v = blur_h4(win + r, g);
            }
            store_n(d + x, v, w - x);
        }
    }
}

void blur_v_neon(Plane src, Plane dst, const Gaussian1D& g, int y0, int y1) {
    const int r = g.radius, h = src.h, w = src.w;
    const float* up[kMaxBlurRadius + 1];
    const float* dn[kMaxBlurRadius + 1];
    for (int y = y0; y < y1; ++y) {
        for (int i = 1; i <= r; ++i) {
            up[i] = src.row(clampi(y - i, 0, h - 1));
            dn[i] = src.row(clampi(y + i, 0, h - 1));
        }
        const float* c = src.row(y);
        float* d = dst.row(y);
        for (int x = 0; x < w; x += kLanes) {
            const int n = w - x;
            float32x4_t acc = vmulq_n_f32(load_n(c + x, n), g.k[0]);
            for (int i = 1; i <= r; ++i)
                acc = vfmaq_n_f32(acc, vaddq_f32(load_n(up[i] + x, n), load_n(dn[i] + x, n)), g.k[i]);
            store_n(d + x, acc, n);
        }
    }
}

void resample_neon(Plane src, Plane dst, int y0, int y1) { resize_rows(src, dst, 1.0f, y0, y1); }

void upsample_flow_neon(Plane src, Plane dst, float mult, int y0, int y1) {
    resize_rows(src, dst, mult, y0, y1);
}

} // namespace oflow
