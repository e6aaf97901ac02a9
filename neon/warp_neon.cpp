// Central gradient and the TV-L1 bicubic warp in NEON (F32). Same semantics as
// core/ref/warp_ref.cpp: Keys' cubic convolution (a = -0.5) with taps clamped to the border,
// and no data term (warped gradient, |grad|^2, rho_c = 0) where x + u leaves the image.
//
// Vectorisation of the warp: positions, cubic weights, the inside test and the outputs run
// four pixels per vector; the 4x4 neighbourhood of one pixel is four row vectors of four taps,
// summed down the rows with the vertical weights (one fused multiply-add per row), then
// across with the horizontal weights. The reference sums across first, so results differ from
// it by rounding only.
//
// Over-read contract: none. Taps are loaded as four consecutive columns only when all four lie
// in [0, w); otherwise (near the left/right border, positions outside) each tap's clamped
// column is loaded alone. Rows are clamped to [0, h). Row ends use partial vectors.
#include "neon/neon_kernels.hpp"
#include "neon/neon_util.hpp"

namespace oflow {
namespace {

using namespace neon;

// Keys' weights of the taps at offsets -1, 0, 1, 2 for the fractional parts t (four pixels):
// w[i] holds tap i's weight for each pixel, written as the reference writes them.
inline void cubic_weights(float32x4_t t, float32x4_t w[4]) {
    const float32x4_t one = vdupq_n_f32(1.0f), half = vdupq_n_f32(0.5f), mhalf = vdupq_n_f32(-0.5f);
    w[0] = vmulq_f32(vfmaq_f32(mhalf, vfmaq_n_f32(one, t, -0.5f), t), t);               // ((-t/2 + 1) t - 1/2) t
    w[1] = vfmaq_f32(one, vmulq_f32(vfmaq_n_f32(vdupq_n_f32(-2.5f), t, 1.5f), t), t);  // (3t/2 - 5/2) t t + 1
    w[2] = vmulq_f32(vfmaq_f32(half, vfmaq_n_f32(vdupq_n_f32(2.0f), t, -1.5f), t), t); // ((-3t/2 + 2) t + 1/2) t
    w[3] = vmulq_f32(vmulq_f32(vfmaq_n_f32(mhalf, t, 0.5f), t), t);                    // (t/2 - 1/2) t t
}

// The four taps of row r starting at column ix - 1: one load when they lie inside the row,
// else the clamped columns `cols` one by one.
inline float32x4_t taps(const float* r, int ix, bool direct, int32x4_t cols) {
    return direct ? vld1q_f32(r + ix - 1) : gather4(r, cols);
}

// Sum over the four tap rows ry[] of p, weighted by the lanes of wy: one vector of four
// column sums.
inline float32x4_t column_sums(const Plane& p, const int ry[4], int ix, bool direct, int32x4_t cols,
                               float32x4_t wy) {
    float32x4_t s = vmulq_laneq_f32(taps(p.row(ry[0]), ix, direct, cols), wy, 0);
    s = vfmaq_laneq_f32(s, taps(p.row(ry[1]), ix, direct, cols), wy, 1);
    s = vfmaq_laneq_f32(s, taps(p.row(ry[2]), ix, direct, cols), wy, 2);
    s = vfmaq_laneq_f32(s, taps(p.row(ry[3]), ix, direct, cols), wy, 3);
    return s;
}

// (sum of v[0], sum of v[1], sum of v[2], sum of v[3]).
inline float32x4_t sums4(const float32x4_t v[4]) {
    return vpaddq_f32(vpaddq_f32(v[0], v[1]), vpaddq_f32(v[2], v[3]));
}

} // namespace

void gradient_neon(Plane src, Plane gx, Plane gy, int y0, int y1) {
    const int w = src.w, h = src.h;
    const float32x4_t half = vdupq_n_f32(0.5f);
    float win[kLanes + 2];
    for (int y = y0; y < y1; ++y) {
        const float* up = src.row(clampi(y - 1, 0, h - 1));
        const float* c = src.row(y);
        const float* dn = src.row(clampi(y + 1, 0, h - 1));
        float* ox = gx.row(y);
        float* oy = gy.row(y);
        for (int x = 0; x < w; x += kLanes) {
            const int n = w - x;
            float32x4_t l, r;
            if (x >= 1 && x + kLanes < w) {
                l = vld1q_f32(c + x - 1);
                r = vld1q_f32(c + x + 1);
            } else { // a neighbour is past a row end: clamped copy of c[x - 1 .. x + 4]
                for (int j = 0; j < kLanes + 2; ++j) win[j] = c[clampi(x - 1 + j, 0, w - 1)];
                l = vld1q_f32(win);
                r = vld1q_f32(win + 2);
            }
            store_n(ox + x, vmulq_f32(half, vsubq_f32(r, l)), n);
            store_n(oy + x, vmulq_f32(half, vsubq_f32(load_n(dn + x, n), load_n(up + x, n))), n);
        }
    }
}

void tvl1_warp_neon(const Tvl1WarpArgs& a, int y0, int y1) {
    const int w = a.i1.w, h = a.i1.h;
    // Positions are kept where int conversion is exact; beyond, the taps clamp anyway.
    const float32x4_t lim = vdupq_n_f32(1e6f), nlim = vdupq_n_f32(-1e6f);
    const float32x4_t zero = vdupq_n_f32(0.0f);
    const float32x4_t xmax = vdupq_n_f32(static_cast<float>(w - 1));
    const float32x4_t ymax = vdupq_n_f32(static_cast<float>(h - 1));
    const int32x4_t tap_offset = {-1, 0, 1, 2};
    const int32x4_t col_max = vdupq_n_s32(w - 1);
    for (int y = y0; y < y1; ++y) {
        const float* u1 = a.u1.row(y);
        const float* u2 = a.u2.row(y);
        const float* i0 = a.i0.row(y);
        const float32x4_t yrow = vdupq_n_f32(static_cast<float>(y));
        for (int x = 0; x < w; x += kLanes) {
            const int n = w - x < kLanes ? w - x : kLanes;
            const float32x4_t vu1 = load_n(u1 + x, n), vu2 = load_n(u2 + x, n);
            const float32x4_t px = vmaxq_f32(vminq_f32(vaddq_f32(column_index(x), vu1), lim), nlim);
            const float32x4_t py = vmaxq_f32(vminq_f32(vaddq_f32(yrow, vu2), lim), nlim);
            const float32x4_t fx = vrndmq_f32(px), fy = vrndmq_f32(py);
            int ix[kLanes], iy[kLanes];
            vst1q_s32(ix, vcvtq_s32_f32(fx));
            vst1q_s32(iy, vcvtq_s32_f32(fy));
            float32x4_t wx[4], wy[4];
            cubic_weights(vsubq_f32(px, fx), wx);
            cubic_weights(vsubq_f32(py, fy), wy);
            transpose4(wx); // now wx[j]: the four horizontal weights of pixel j
            transpose4(wy);
            float32x4_t ps[kLanes], psx[kLanes], psy[kLanes];
            for (int j = 0; j < kLanes; ++j) {
                if (j >= n) { // no pixel in this lane
                    ps[j] = psx[j] = psy[j] = zero;
                    continue;
                }
                const int cx = ix[j];
                const bool direct = cx >= 1 && cx + 2 <= w - 1;
                const int32x4_t cols = vminq_s32(vmaxq_s32(vaddq_s32(vdupq_n_s32(cx), tap_offset), vdupq_n_s32(0)), col_max);
                int ry[4];
                for (int k = 0; k < 4; ++k) ry[k] = clampi(iy[j] - 1 + k, 0, h - 1);
                ps[j] = vmulq_f32(wx[j], column_sums(a.i1, ry, cx, direct, cols, wy[j]));
                psx[j] = vmulq_f32(wx[j], column_sums(a.i1x, ry, cx, direct, cols, wy[j]));
                psy[j] = vmulq_f32(wx[j], column_sums(a.i1y, ry, cx, direct, cols, wy[j]));
            }
            const uint32x4_t inside = vandq_u32(vandq_u32(vcgeq_f32(px, zero), vcleq_f32(px, xmax)),
                                                vandq_u32(vcgeq_f32(py, zero), vcleq_f32(py, ymax)));
            const float32x4_t s = sums4(ps);
            const float32x4_t sx = keep(sums4(psx), inside), sy = keep(sums4(psy), inside);
            // Outside, sx = sy = 0 already; rho_c is zeroed as in the reference.
            const float32x4_t rho = vsubq_f32(vfmsq_f32(vfmsq_f32(s, sx, vu1), sy, vu2), load_n(i0 + x, n));
            store_n(a.i1w.row(y) + x, s, n);
            store_n(a.i1wx.row(y) + x, sx, n);
            store_n(a.i1wy.row(y) + x, sy, n);
            store_n(a.grad.row(y) + x, vfmaq_f32(vmulq_f32(sx, sx), sy, sy), n);
            store_n(a.rho_c.row(y) + x, keep(rho, inside), n);
        }
    }
}

} // namespace oflow
