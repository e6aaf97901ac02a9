// Gradient and bicubic warp, reference path.
//
// Bicubic: Keys' cubic convolution (a = -0.5) on the 4x4 neighbourhood; tap positions clamp
// to the border, so positions outside the image read the replicated border, as in the IPOL
// implementation of TV-L1 (Sanchez Perez, Meinhardt-Llopis, Facciolo, "TV-L1 optical flow
// estimation", 2013).
//
// Out-of-image positions carry no data term: where x + u lies outside [0, w-1] x [0, h-1] the
// warped gradient, |grad|^2 and rho_c are set to 0, so the threshold step leaves u unchanged
// there and the flow is filled in by the TV term alone. With the clamped gradient kept, the
// linearisation keeps pushing such flow further out (it drifted to 160 px on a 13 px
// rotation); OpenCV gets the same effect from remap's constant-zero border.
#include "core/ref/kernels_ref.hpp"

#include <cmath>

namespace oflow {
namespace {

inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

inline void cubic_weights(float t, float w[4]) {
    w[0] = ((-0.5f * t + 1.0f) * t - 0.5f) * t;
    w[1] = (1.5f * t - 2.5f) * t * t + 1.0f;
    w[2] = ((-1.5f * t + 2.0f) * t + 0.5f) * t;
    w[3] = (0.5f * t - 0.5f) * t * t;
}

// The 4x4 bicubic taps of position (x + u1, y + u2) in a w x h plane: weights, clamped columns,
// the first row (clamp each iy - 1 + j), and whether the position lies inside the plane.
struct Taps {
    float wx[4], wy[4];
    int cx[4];
    int iy;
    bool inside;
};

inline Taps bicubic_taps(int x, int y, float u1, float u2, int w, int h) {
    // Keep positions in a range where int conversion is defined; beyond it the taps clamp anyway.
    const float lim = 1e6f;
    float px = static_cast<float>(x) + u1, py = static_cast<float>(y) + u2;
    px = px < -lim ? -lim : (px > lim ? lim : px);
    py = py < -lim ? -lim : (py > lim ? lim : py);
    Taps t;
    const float fx = std::floor(px), fy = std::floor(py);
    const int ix = static_cast<int>(fx);
    t.iy = static_cast<int>(fy);
    cubic_weights(px - fx, t.wx);
    cubic_weights(py - fy, t.wy);
    for (int i = 0; i < 4; ++i) t.cx[i] = clampi(ix - 1 + i, 0, w - 1);
    t.inside = px >= 0.0f && px <= static_cast<float>(w - 1) && py >= 0.0f && py <= static_cast<float>(h - 1);
    return t;
}

} // namespace

void gradient_ref(Plane src, Plane gx, Plane gy, int y0, int y1) {
    const int w = src.w, h = src.h;
    for (int y = y0; y < y1; ++y) {
        const float* up = src.row(clampi(y - 1, 0, h - 1));
        const float* c = src.row(y);
        const float* dn = src.row(clampi(y + 1, 0, h - 1));
        float* ox = gx.row(y);
        float* oy = gy.row(y);
        for (int x = 0; x < w; ++x) {
            ox[x] = 0.5f * (c[clampi(x + 1, 0, w - 1)] - c[clampi(x - 1, 0, w - 1)]);
            oy[x] = 0.5f * (dn[x] - up[x]);
        }
    }
}

void tvl1_warp_ref(const Tvl1WarpArgs& a, int y0, int y1) {
    const int w = a.i1.w, h = a.i1.h;
    for (int y = y0; y < y1; ++y) {
        const float* u1 = a.u1.row(y);
        const float* u2 = a.u2.row(y);
        const float* i0 = a.i0.row(y);
        float* ow = a.i1w.row(y);
        float* ox = a.i1wx.row(y);
        float* oy = a.i1wy.row(y);
        float* og = a.grad.row(y);
        float* orho = a.rho_c.row(y);
        for (int x = 0; x < w; ++x) {
            const Taps t = bicubic_taps(x, y, u1[x], u2[x], w, h);
            float s = 0.0f, sx = 0.0f, sy = 0.0f;
            for (int j = 0; j < 4; ++j) {
                const int ry = clampi(t.iy - 1 + j, 0, h - 1);
                const float* r = a.i1.row(ry);
                const float* rx = a.i1x.row(ry);
                const float* rgy = a.i1y.row(ry);
                float tr = 0.0f, tx = 0.0f, ty = 0.0f;
                for (int i = 0; i < 4; ++i) {
                    tr += t.wx[i] * r[t.cx[i]];
                    tx += t.wx[i] * rx[t.cx[i]];
                    ty += t.wx[i] * rgy[t.cx[i]];
                }
                s += t.wy[j] * tr;
                sx += t.wy[j] * tx;
                sy += t.wy[j] * ty;
            }
            if (!t.inside) sx = sy = 0.0f;
            ow[x] = s;
            ox[x] = sx;
            oy[x] = sy;
            og[x] = sx * sx + sy * sy;
            orho[x] = t.inside ? s - sx * u1[x] - sy * u2[x] - i0[x] : 0.0f;
        }
    }
}

void warp_image_ref(Plane i0, Plane i1, Plane u1, Plane u2, Plane out, int y0, int y1) {
    const int w = i1.w, h = i1.h;
    for (int y = y0; y < y1; ++y) {
        const float* a = u1.row(y);
        const float* b = u2.row(y);
        const float* r0 = i0.row(y);
        float* o = out.row(y);
        for (int x = 0; x < w; ++x) {
            const Taps t = bicubic_taps(x, y, a[x], b[x], w, h);
            if (!t.inside) { // no temporal difference: the data term holds the increment at 0 here
                o[x] = r0[x];
                continue;
            }
            float s = 0.0f;
            for (int j = 0; j < 4; ++j) {
                const float* r = i1.row(clampi(t.iy - 1 + j, 0, h - 1));
                float tr = 0.0f;
                for (int i = 0; i < 4; ++i) tr += t.wx[i] * r[t.cx[i]];
                s += t.wy[j] * tr;
            }
            o[x] = s;
        }
    }
}

} // namespace oflow
