// Dense Inverse Search, reference kernels (contracts: core/dis_kernels.hpp). F32 with the sums
// in the orders the contracts state (the patch sums' four lanes as one four-float value, Lane4);
// the 2x2 solves in double.
#include "core/ref/dis_ref.hpp"

#include "core/dis_patch.hpp"

#include <cmath>
#include <cstring>

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

// The four lanes of the contract's sums (core/dis_kernels.hpp: lane q holds the columns
// xx % 4 == q) as one value of four floats (the GCC / Clang vector extension): every operation
// on it is element-wise, the IEEE operation the scalar formula names, so each lane is the
// scalar lane's sum, bit for bit; the compiler maps it onto the CPU's vectors (SSE, NEON) or
// scalar code.
typedef float Lane4 __attribute__((vector_size(16)));

inline Lane4 load4(const float* p) {
    Lane4 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// The first n (0 .. 4) floats at p, zeros after: no read past them.
inline Lane4 load_first(const float* p, int n) {
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < n; ++i) t[i] = p[i];
    return load4(t);
}

struct Lanes {
    Lane4 d, dd, gx, gy;
};

inline float combine(Lane4 l) { return (l[0] + l[1]) + (l[2] + l[3]); }

// Four columns: the taps a, b = a + 1 (row y + iy) and c, d = c + 1 (row y + iy + 1), I0 (t) and
// the gradient (gx, gy, read when kGrad) of each, added to their lanes. A lane whose inputs are
// all zero adds d = 0: its sums stay as they are (a sum that starts at +0 is never -0).
template <bool kGrad>
inline void add4(Lanes& L, Lane4 a, Lane4 b, Lane4 c, Lane4 d1, Lane4 t, Lane4 gx, Lane4 gy, float fx, float fy) {
    const Lane4 top = a + fx * (b - a);
    const Lane4 bot = c + fx * (d1 - c);
    const Lane4 d = (top + fy * (bot - top)) - t;
    L.d += d;
    L.dd += d * d;
    if (kGrad) {
        L.gx += gx * d;
        L.gy += gy * d;
    }
}

// One patch row of p columns: r0, r1 the tap rows at the patch's first tap column (columns
// 0 .. p of each read), t I0's row at the patch's first pixel, ax / ay the gradient's (kGrad).
// Four columns per step; the last p % 4 columns in lanes 0 .. with zeros after them.
template <bool kGrad>
inline void row_sums(Lanes& L, const float* r0, const float* r1, const float* t, const float* ax, const float* ay,
                     int p, float fx, float fy) {
    const Lane4 zero = {0.0f, 0.0f, 0.0f, 0.0f};
    int x = 0;
    for (; x + 4 <= p; x += 4)
        add4<kGrad>(L, load4(r0 + x), load4(r0 + x + 1), load4(r1 + x), load4(r1 + x + 1), load4(t + x),
                    kGrad ? load4(ax + x) : zero, kGrad ? load4(ay + x) : zero, fx, fy);
    const int n = p - x;
    if (n > 0)
        add4<kGrad>(L, load_first(r0 + x, n), load_first(r0 + x + 1, n), load_first(r1 + x, n),
                    load_first(r1 + x + 1, n), load_first(t + x, n), kGrad ? load_first(ax + x, n) : zero,
                    kGrad ? load_first(ay + x, n) : zero, fx, fy);
}

const int kMaxPatch = 32; // check_dis: patch_size <= 32

// The sums over the patch at (px0, py0) at shift (ux, uy). Where a row's tap columns
// xa0 .. xa0 + p leave the plane, their clamped values are copied first (the border's
// replication) and the same row code runs on the copy.
template <bool kGrad>
PatchSums patch_sums(const Plane& i0, const Plane& i1, const Plane& gx, const Plane& gy, int px0, int py0, int p,
                     float ux, float uy) {
    const Shift sh = split_shift(ux, uy, i1.w, i1.h);
    Lanes L;
    L.d = L.dd = L.gx = L.gy = Lane4{0.0f, 0.0f, 0.0f, 0.0f};
    const int xa0 = px0 + sh.ix;
    const bool inside = xa0 >= 0 && xa0 + p < i1.w; // every tap column of the patch in the plane
    float c0[kMaxPatch + 1], c1[kMaxPatch + 1];
    for (int yy = 0; yy < p; ++yy) {
        const int y = py0 + yy;
        const TapRows tr = tap_rows(i1, y, sh);
        const float* r0 = c0;
        const float* r1 = c1;
        if (inside) {
            r0 = tr.r0 + xa0;
            r1 = tr.r1 + xa0;
        } else {
            for (int x = 0; x <= p; ++x) {
                const int xc = clampi(xa0 + x, 0, i1.w - 1);
                c0[x] = tr.r0[xc];
                c1[x] = tr.r1[xc];
            }
        }
        row_sums<kGrad>(L, r0, r1, i0.row(y) + px0, kGrad ? gx.row(y) + px0 : nullptr,
                        kGrad ? gy.row(y) + px0 : nullptr, p, sh.fx, sh.fy);
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

namespace {

// The tensor at pixels x .. x + 3 of row y (x even, 1 <= x, x + 4 < w: every neighbour inside
// the row), as four lanes of dis_refine_terms. Columns x, x + 2 have colour e = (x + y) & 1,
// x + 1, x + 3 the other, in slots x / 2 and x / 2 + 1 of their split rows.
void refine_tensor4(const DisRefineArgs& a, const DisRefineRows& r, int x, int y) {
    DisRefineTaps<Lane4> t;
    const float* const i0[3] = {r.i0u, r.i0c, r.i0d};
    const float* const i1[3] = {r.i1u, r.i1c, r.i1d};
    for (int k = 0; k < 3; ++k)
        for (int m = 0; m < 3; ++m) {
            t.i0[k][m] = load4(i0[k] + x - 1 + m);
            t.i1[k][m] = load4(i1[k] + x - 1 + m);
        }
    for (int c = 0; c < 2; ++c) {
        const float* const f[3] = {r.fu[c], r.fc[c], r.fd[c]};
        for (int k = 0; k < 3; ++k)
            for (int m = 0; m < 3; ++m) t.f[c][k][m] = load4(f[k] + x - 1 + m);
    }
    const bool even_red = ((x + y) & 1) == 0;
    const int s = x >> 1;
    const float* const ue = (even_red ? a.du_r : a.du_b).row(y) + s;
    const float* const uo = (even_red ? a.du_b : a.du_r).row(y) + s;
    const float* const ve = (even_red ? a.dv_r : a.dv_b).row(y) + s;
    const float* const vo = (even_red ? a.dv_b : a.dv_r).row(y) + s;
    t.du = Lane4{ue[0], uo[0], ue[1], uo[1]};
    t.dv = Lane4{ve[0], vo[0], ve[1], vo[1]};
    Lane4 out[kHsChannels];
    dis_refine_terms(
        t, a, [](Lane4 v) { return Lane4{std::sqrt(v[0]), std::sqrt(v[1]), std::sqrt(v[2]), std::sqrt(v[3])}; },
        out);
    const Plane* const de = even_red ? a.j_red : a.j_black;
    const Plane* const dod = even_red ? a.j_black : a.j_red;
    for (int ch = 0; ch < kHsChannels; ++ch) {
        float* e = de[ch].row(y) + s;
        float* o = dod[ch].row(y) + s;
        e[0] = out[ch][0];
        o[0] = out[ch][1];
        e[1] = out[ch][2];
        o[1] = out[ch][3];
    }
}

} // namespace

// Pixels 0 and 1 and the row's last ones (x + 4 >= w) one at a time (dis_refine_pixel: the
// clamped neighbours), the others four at a time (the same formula, lane by lane).
void dis_refine_tensor_ref(const DisRefineArgs& a, int y0, int y1) {
    const int w = a.i0.w;
    for (int y = y0; y < y1; ++y) {
        const DisRefineRows r = dis_refine_rows(a, y);
        int x = 0;
        for (; x < 2 && x < w; ++x) dis_refine_pixel(a, r, x, y);
        for (; x + 4 < w; x += 4) refine_tensor4(a, r, x, y);
        for (; x < w; ++x) dis_refine_pixel(a, r, x, y);
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
