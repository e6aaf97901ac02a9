// Dense Inverse Search, reference kernels (contracts: core/dis_kernels.hpp). Scalar F32 with
// the sums in the orders the contracts state; the 2x2 solves in double.
#include "core/ref/dis_ref.hpp"

#include "core/dis_patch.hpp"

#include <cmath>

namespace oflow {
namespace {

inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

using Shift = DisShift;

inline Shift split_shift(float ux, float uy, int w, int h) { return dis_split_shift(ux, uy, w, h); }

// The taps of row y + iy of a patch whose columns are x0 .. x0 + p - 1: pointers to the two rows
// and, per column, the two tap columns (clamped into the plane).
struct TapRows {
    const float* r0;
    const float* r1;
};

inline TapRows tap_rows(const Plane& i1, int y, const Shift& s) {
    const int y0 = clampi(y + s.iy, 0, i1.h - 1), y1 = clampi(y + s.iy + 1, 0, i1.h - 1);
    return TapRows{i1.row(y0), i1.row(y1)};
}

// I1 at (x + u) of core/dis_kernels.hpp: t = a + fx (b - a), t' = c + fx (d - c), t + fy (t' - t).
inline float tap_value(const TapRows& t, int xa, int xb, const Shift& s) {
    const float top = t.r0[xa] + s.fx * (t.r0[xb] - t.r0[xa]);
    const float bot = t.r1[xa] + s.fx * (t.r1[xb] - t.r1[xa]);
    return top + s.fy * (bot - top);
}

using PatchSums = DisPatchSums;

// Four lanes of each sum (core/dis_kernels.hpp: lane q holds the columns xx % 4 == q).
struct Lanes {
    float d[4], dd[4], gx[4], gy[4];
};

inline float combine(const float* l) { return (l[0] + l[1]) + (l[2] + l[3]); }

template <bool kGrad>
PatchSums patch_sums(const Plane& i0, const Plane& i1, const Plane& gx, const Plane& gy, int px0, int py0, int p,
                     float ux, float uy) {
    const Shift sh = split_shift(ux, uy, i1.w, i1.h);
    Lanes L;
    for (int q = 0; q < 4; ++q) L.d[q] = L.dd[q] = L.gx[q] = L.gy[q] = 0.0f;
    const int xa0 = px0 + sh.ix;
    const bool inside = xa0 >= 0 && xa0 + p < i1.w; // every tap column of the patch in the plane
    for (int yy = 0; yy < p; ++yy) {
        const int y = py0 + yy;
        const float* t = i0.row(y) + px0;
        const TapRows tr = tap_rows(i1, y, sh);
        const float* ax = kGrad ? gx.row(y) + px0 : nullptr;
        const float* ay = kGrad ? gy.row(y) + px0 : nullptr;
        for (int xx = 0; xx < p; ++xx) {
            float v;
            if (inside) { // the common case: consecutive taps, no clamping
                const float* a = tr.r0 + xa0 + xx;
                const float* c = tr.r1 + xa0 + xx;
                const float top = a[0] + sh.fx * (a[1] - a[0]);
                const float bot = c[0] + sh.fx * (c[1] - c[0]);
                v = top + sh.fy * (bot - top);
            } else {
                v = tap_value(tr, clampi(xa0 + xx, 0, i1.w - 1), clampi(xa0 + xx + 1, 0, i1.w - 1), sh);
            }
            const float d = v - t[xx];
            const int q = xx & 3;
            L.d[q] += d;
            L.dd[q] += d * d;
            if (kGrad) {
                L.gx[q] += ax[xx] * d;
                L.gy[q] += ay[xx] * d;
            }
        }
    }
    return PatchSums{combine(L.d), combine(L.dd), kGrad ? combine(L.gx) : 0.0f, kGrad ? combine(L.gy) : 0.0f};
}


// The channel's product at column x of a row.
inline float channel_value(int channel, const float* ax, const float* ay, int x) {
    switch (channel) {
    case kDisSxx: return ax[x] * ax[x];
    case kDisSxy: return ax[x] * ay[x];
    case kDisSyy: return ay[x] * ay[x];
    case kDisSx: return ax[x];
    default: return ay[x];
    }
}

// Windows [start(k), start(k) + p) of a line, both ends nondecreasing in k, summed in one walk
// over the line: a window's sum is prefix(end) - prefix(start), the prefix in double, the starts
// of the windows still open kept in a ring (at most p / s + 2 <= kRing of them).
const int kRing = 64;

template <class Value, class Start, class Store>
void window_sums(int count, int p, Value value, Start start, Store store) {
    double ring[kRing];
    double prefix = 0.0;
    int pos = 0;          // the prefix holds the values of positions < pos
    int opened = 0, closed = 0;
    while (closed < count) {
        // Open every window starting at pos, close every window ending at pos, then advance.
        while (opened < count && start(opened) == pos) ring[opened++ % kRing] = prefix;
        while (closed < opened && start(closed) + p == pos) {
            store(closed, static_cast<float>(prefix - ring[closed % kRing]));
            ++closed;
        }
        if (closed < count) prefix += static_cast<double>(value(pos++));
    }
}

} // namespace

void dis_gradient_ref(Plane src, Plane gx, Plane gy, int y0, int y1) {
    const int w = src.w, h = src.h;
    for (int y = y0; y < y1; ++y) {
        const float* up = src.row(clampi(y - 1, 0, h - 1));
        const float* c = src.row(y);
        const float* dn = src.row(clampi(y + 1, 0, h - 1));
        float* ox = gx.row(y);
        float* oy = gy.row(y);
        for (int x = 0; x < w; ++x) {
            const int l = clampi(x - 1, 0, w - 1), r = clampi(x + 1, 0, w - 1);
            ox[x] = ((up[r] - up[l]) + 2.0f * (c[r] - c[l]) + (dn[r] - dn[l])) * 0.125f;
            oy[x] = ((dn[l] - up[l]) + 2.0f * (dn[x] - up[x]) + (dn[r] - up[r])) * 0.125f;
        }
    }
}

void dis_box_h_ref(const DisBoxArgs& a, int y0, int y1) {
    const DisGrid& g = a.g;
    for (int y = y0; y < y1; ++y) {
        const float* ax = a.gx.row(y);
        const float* ay = a.gy.row(y);
        float* o = a.rowsum.row(y);
        window_sums(
            g.nx, g.p, [&](int x) { return channel_value(a.channel, ax, ay, x); }, [&](int k) { return g.x(k); },
            [&](int k, float v) { o[k] = v; });
    }
}

void dis_box_v_ref(const DisBoxVArgs& a, int j0, int j1) {
    const DisGrid& g = a.g;
    if (j0 >= j1) return;
    const int ytop = g.y(j0);
    for (int k = 0; k < g.nx; ++k)
        window_sums(
            j1 - j0, g.p, [&](int r) { return a.rowsum.row(ytop + r)[k]; }, [&](int i) { return g.y(j0 + i) - ytop; },
            [&](int i, float v) { a.out.row(j0 + i)[k] = v; });
}

void dis_init_ref(const DisInitArgs& a, int j0, int j1) {
    const DisGrid& g = a.g;
    const int c = g.p / 2;
    for (int j = j0; j < j1; ++j) {
        const int y = g.y(j) + c;
        for (int k = 0; k < g.nx; ++k) {
            const int x = g.x(k) + c;
            a.sx.row(j)[k] = a.u1.row(y)[x];
            a.sy.row(j)[k] = a.u2.row(y)[x];
        }
    }
}

void dis_search_ref(const DisSearchArgs& a, int j0, int j1) {
    dis_search_rows(a, j0, j1, [&](int px0, int py0, float ux, float uy) {
        return patch_sums<true>(a.i0, a.i1, a.gx, a.gy, px0, py0, a.g.p, ux, uy);
    });
}

void dis_propagate_ref(const DisPropagateArgs& a, int j0, int j1) {
    dis_propagate_rows(a, j0, j1, [&](int px0, int py0, float ux, float uy) {
        return patch_sums<false>(a.i0, a.i1, a.i0, a.i0, px0, py0, a.g.p, ux, uy);
    });
}

void dis_densify_ref(const DisDensifyArgs& a, int y0, int y1) {
    const DisGrid& g = a.g;
    for (int y = y0; y < y1; ++y) {
        float* sw = a.weight.row(y);
        float* su = a.u1.row(y);
        float* sv = a.u2.row(y);
        for (int x = 0; x < g.w; ++x) sw[x] = su[x] = sv[x] = 0.0f;
    }
    // Patches in row-major order, each adding to the pixels of its rows inside [y0, y1): every
    // pixel sees its patches j ascending, then k ascending (the contract's order).
    for (int j = 0; j < g.ny; ++j) {
        const int py0 = g.y(j);
        if (py0 + g.p <= y0 || py0 >= y1) continue;
        const int ya = py0 > y0 ? py0 : y0, yb = py0 + g.p < y1 ? py0 + g.p : y1;
        for (int k = 0; k < g.nx; ++k) {
            const int px0 = g.x(k);
            const float ux = a.sx.row(j)[k], uy = a.sy.row(j)[k], m = a.md.row(j)[k];
            const Shift sh = split_shift(ux, uy, g.w, g.h);
            const int xa0 = px0 + sh.ix;
            const bool inside = xa0 >= 0 && xa0 + g.p < g.w;
            for (int y = ya; y < yb; ++y) {
                const float* t = a.i0.row(y) + px0;
                const TapRows tr = tap_rows(a.i1, y, sh);
                float* sw = a.weight.row(y) + px0;
                float* su = a.u1.row(y) + px0;
                float* sv = a.u2.row(y) + px0;
                for (int xx = 0; xx < g.p; ++xx) {
                    const int xa = inside ? xa0 + xx : clampi(xa0 + xx, 0, g.w - 1);
                    const int xb = inside ? xa0 + xx + 1 : clampi(xa0 + xx + 1, 0, g.w - 1);
                    const float d = tap_value(tr, xa, xb, sh) - t[xx] - m;
                    const float ad = std::fabs(d);
                    const float wgt = 1.0f / (ad > 1.0f ? ad : 1.0f);
                    sw[xx] += wgt;
                    su[xx] += wgt * ux;
                    sv[xx] += wgt * uy;
                }
            }
        }
    }
    for (int y = y0; y < y1; ++y) {
        const float* sw = a.weight.row(y);
        float* su = a.u1.row(y);
        float* sv = a.u2.row(y);
        for (int x = 0; x < g.w; ++x) {
            su[x] /= sw[x];
            sv[x] /= sw[x];
        }
    }
}

void dis_refine_tensor_ref(const DisRefineArgs& a, int y0, int y1) {
    for (int y = y0; y < y1; ++y) {
        const DisRefineRows r = dis_refine_rows(a, y);
        for (int x = 0; x < a.i0.w; ++x) dis_refine_pixel(a, r, x, y);
    }
}

void dis_kernels_init_ref(DisKernels* t) {
    t->gradient = dis_gradient_ref;
    t->box_h = dis_box_h_ref;
    t->box_v = dis_box_v_ref;
    t->init = dis_init_ref;
    t->search = dis_search_ref;
    t->propagate = dis_propagate_ref;
    t->densify = dis_densify_ref;
    t->refine_tensor = dis_refine_tensor_ref;
}

} // namespace oflow
