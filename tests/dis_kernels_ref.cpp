// dis_kernels_ref: the reference kernels of Dense Inverse Search (core/ref/dis_ref.cpp) against
// brute force and closed forms, each contract of core/dis_kernels.hpp:
//  - the grid: every pixel lies in a patch, positions ascend, the last patch ends at the edge,
//    patch sides shrink to small levels;
//  - gradient: Sobel / 8 of a ramp a x + b y reads (a, b) away from the border, the clamped
//    formula at the border;
//  - box_h + box_v: the patch sums equal direct double sums over each patch (rounded to F32) for
//    several sizes, patches and strides, stride 1 (every patch open at once) included;
//  - init: each patch's start is the flow at its centre;
//  - search: on a smooth texture shifted by a known motion and an offset (the mean
//    normalisation's invariance), every patch whose match lies inside lands within 0.005 px
//    (an integer motion: the sampling is exact there; the rest is the F32 sums' rounding, which
//    stops the steps once E no longer falls); the result never
//    has a larger error E than the start; a flat patch keeps its start; a start more than a patch
//    side from the texture's true shift cannot be pulled further than that side;
//  - propagation: a patch takes the neighbour's flow that fits it (its own E given), keeps its
//    own where no neighbour fits better;
//  - densify: equals a brute-force weighted average over the covering patches (double) within
//    2e-6 relative, on random flows, means and a border-crossing shift;
//  - refine_tensor: equals the formula of the contract evaluated in double within 1e-4 relative
//    (plus a floor) on random inputs, both colours, odd sizes.
#include "check.hpp"
#include "host_plane.hpp"

#include "core/dis_kernels.hpp"
#include "core/ref/dis_ref.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

using namespace oflow;

namespace {

using Img = oftest::HostPlane;

uint32_t g_rng = 12345;
float urand() { // [0, 1)
    g_rng = g_rng * 1664525u + 1013904223u;
    return static_cast<float>(g_rng >> 8) / 16777216.0f;
}

// A smooth texture, continuous, defined everywhere (so that a shifted copy is exact).
double tex(double x, double y) {
    return 128.0 + 40.0 * std::sin(0.31 * x + 0.7) * std::cos(0.23 * y - 0.4) + 25.0 * std::sin(0.17 * x + 0.29 * y) +
           15.0 * std::cos(0.41 * y - 0.13 * x + 1.1);
}

int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

void check_grid() {
    const int sizes[][2] = {{37, 23}, {8, 8}, {5, 40}, {64, 48}, {3, 2}};
    for (auto& s : sizes)
        for (int p : {4, 8, 12})
            for (int st = 1; st <= p; st += (p > 4 ? 3 : 1)) {
                const DisGrid g = dis_grid(s[0], s[1], p, st);
                CHECK(g.p == std::min(p, std::min(s[0], s[1])));
                CHECK(g.x(g.nx - 1) == g.w - g.p && g.y(g.ny - 1) == g.h - g.p);
                for (int k = 1; k < g.nx; ++k) CHECK(g.x(k) > g.x(k - 1));
                for (int j = 1; j < g.ny; ++j) CHECK(g.y(j) > g.y(j - 1));
                for (int x = 0; x < g.w; ++x) {
                    int cover = 0;
                    for (int k = 0; k < g.nx; ++k) cover += g.x(k) <= x && x < g.x(k) + g.p;
                    CHECK_MSG(cover >= 1, "%dx%d p %d s %d: column %d in no patch", s[0], s[1], p, st, x);
                }
            }
}

void check_gradient() {
    Img a(19, 11), gx(19, 11), gy(19, 11);
    for (int y = 0; y < a.h; ++y)
        for (int x = 0; x < a.w; ++x) a.at(x, y) = static_cast<float>(3 * x - 2 * y + 7);
    dis_gradient_ref(a.plane(), gx.plane(), gy.plane(), 0, a.h);
    for (int y = 1; y < a.h - 1; ++y)
        for (int x = 1; x < a.w - 1; ++x) CHECK(gx.at(x, y) == 3.0f && gy.at(x, y) == -2.0f);
    // Border: the clamped neighbours halve the difference (one side replicated).
    CHECK(gx.at(0, 5) == 1.5f && gy.at(4, 0) == -1.0f && gx.at(a.w - 1, 5) == 1.5f);
}

void check_box_sums() {
    const int cases[][4] = {{40, 30, 8, 3}, {33, 17, 8, 1}, {50, 20, 12, 5}, {9, 9, 8, 8}, {64, 40, 32, 1}, {11, 7, 4, 2}};
    for (auto& c : cases) {
        Img gx(c[0], c[1]), gy(c[0], c[1]);
        for (float& f : gx.v) f = 60.0f * urand() - 30.0f;
        for (float& f : gy.v) f = 60.0f * urand() - 30.0f;
        const DisGrid g = dis_grid(c[0], c[1], c[2], c[3]);
        Img row(c[0], c[1]);
        double worst = 0.0;
        for (int ch = 0; ch < kDisSums; ++ch) {
            Img out(c[0], c[1], -1.0f);
            const DisBoxArgs ba{gx.plane(), gy.plane(), row.plane(), g, ch};
            dis_box_h_ref(ba, 0, c[1]);
            Plane op = out.plane();
            op.w = g.nx;
            op.h = g.ny;
            const DisBoxVArgs va{row.plane(), op, g};
            dis_box_v_ref(va, 0, g.ny / 2); // two bands: the split must not matter
            dis_box_v_ref(va, g.ny / 2, g.ny);
            for (int j = 0; j < g.ny; ++j)
                for (int k = 0; k < g.nx; ++k) {
                    double s = 0.0;
                    for (int y = g.y(j); y < g.y(j) + g.p; ++y)
                        for (int x = g.x(k); x < g.x(k) + g.p; ++x) {
                            const float ax = gx.at(x, y), ay = gy.at(x, y);
                            const float v = ch == kDisSxx ? ax * ax
                                            : ch == kDisSxy ? ax * ay
                                            : ch == kDisSyy ? ay * ay
                                            : ch == kDisSx  ? ax
                                                            : ay;
                            s += v;
                        }
                    // Row sums are rounded to F32 before the vertical pass: p rows of relative
                    // error 2^-24 each, against the sum of absolute values.
                    double sabs = 0.0;
                    for (int y = g.y(j); y < g.y(j) + g.p; ++y)
                        for (int x = g.x(k); x < g.x(k) + g.p; ++x) sabs += ch <= kDisSyy ? 900.0 : 30.0;
                    const double err = std::fabs(out.at(k, j) - s) / (sabs * 1.2e-7 * (g.p + 1));
                    worst = std::max(worst, err);
                }
        }
        CHECK_MSG(worst <= 1.0, "box sums %dx%d p %d s %d: error %.3g of the rounding bound", c[0], c[1], c[2], c[3], worst);
    }
}

void check_init() {
    Img u1(30, 20), u2(30, 20);
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 30; ++x) {
            u1.at(x, y) = static_cast<float>(x + 100 * y);
            u2.at(x, y) = static_cast<float>(-x);
        }
    const DisGrid g = dis_grid(30, 20, 8, 3);
    Img sx(30, 20), sy(30, 20);
    Plane a = sx.plane(), b = sy.plane();
    a.w = b.w = g.nx;
    a.h = b.h = g.ny;
    dis_init_ref(DisInitArgs{u1.plane(), u2.plane(), a, b, g}, 0, g.ny);
    for (int j = 0; j < g.ny; ++j)
        for (int k = 0; k < g.nx; ++k)
            CHECK(sx.at(k, j) == static_cast<float>(g.x(k) + 4 + 100 * (g.y(j) + 4)) &&
                  sy.at(k, j) == static_cast<float>(-(g.x(k) + 4)));
}

// The patch sums planes of frame 0 at grid g (through the box kernels).
struct Sums {
    Img s[kDisSums];
    explicit Sums(int w, int h) : s{Img(w, h), Img(w, h), Img(w, h), Img(w, h), Img(w, h)} {}
};

void patch_sums_of(Img& gx, Img& gy, const DisGrid& g, Sums* out, Plane* planes) {
    Img row(g.w, g.h);
    for (int ch = 0; ch < kDisSums; ++ch) {
        dis_box_h_ref(DisBoxArgs{gx.plane(), gy.plane(), row.plane(), g, ch}, 0, g.h);
        planes[ch] = out->s[ch].plane();
        planes[ch].w = g.nx;
        planes[ch].h = g.ny;
        dis_box_v_ref(DisBoxVArgs{row.plane(), planes[ch], g}, 0, g.ny);
    }
}

// Mean-normalised error E of the patch at (k, j) under flow u, in double, the sampling of the
// contract (split shift, clamped taps).
double mn_error(Img& i0, Img& i1, const DisGrid& g, int k, int j, float ux, float uy) {
    const double fx0 = std::floor(static_cast<double>(ux)), fy0 = std::floor(static_cast<double>(uy));
    const int ix = static_cast<int>(fx0), iy = static_cast<int>(fy0);
    const double fx = ux - fx0, fy = uy - fy0;
    double sd = 0.0, sdd = 0.0;
    for (int y = g.y(j); y < g.y(j) + g.p; ++y)
        for (int x = g.x(k); x < g.x(k) + g.p; ++x) {
            const int xa = clampi(x + ix, 0, g.w - 1), xb = clampi(x + ix + 1, 0, g.w - 1);
            const int ya = clampi(y + iy, 0, g.h - 1), yb = clampi(y + iy + 1, 0, g.h - 1);
            const double t = i1.at(xa, ya) + fx * (i1.at(xb, ya) - i1.at(xa, ya));
            const double b = i1.at(xa, yb) + fx * (i1.at(xb, yb) - i1.at(xa, yb));
            const double d = t + fy * (b - t) - i0.at(x, y);
            sd += d;
            sdd += d * d;
        }
    const double n = static_cast<double>(g.p) * g.p;
    return sdd - sd * sd / n;
}

void check_search() {
    const int w = 64, h = 48;
    // An integer motion: bilinear sampling is exact there, so the search's answer must be too
    // (a sub-pixel motion adds the interpolation error of the texture, about 0.05 px here).
    const double mx = 2.0, my = -1.0; // frame 1(x + m) = frame 0(x) + 9 (an offset)
    Img i0(w, h), i1(w, h), gx(w, h), gy(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            i0.at(x, y) = static_cast<float>(tex(x, y));
            i1.at(x, y) = static_cast<float>(tex(x - mx, y - my) + 9.0);
        }
    dis_gradient_ref(i0.plane(), gx.plane(), gy.plane(), 0, h);
    const DisGrid g = dis_grid(w, h, 8, 4);
    Sums sums(w, h);
    DisSearchArgs a;
    patch_sums_of(gx, gy, g, &sums, a.sum);
    Img sx(w, h), sy(w, h), tx(w, h), ty(w, h), md(w, h);
    auto sparse = [&](Img& m) {
        Plane p = m.plane();
        p.w = g.nx;
        p.h = g.ny;
        return p;
    };
    a.i0 = i0.plane();
    a.i1 = i1.plane();
    a.gx = gx.plane();
    a.gy = gy.plane();
    a.sx_in = sparse(sx);
    a.sy_in = sparse(sy);
    a.sx_out = sparse(tx);
    a.sy_out = sparse(ty);
    a.md = sparse(md);
    Img errp(w, h);
    a.err = sparse(errp);
    a.g = g;
    a.iterations = 20;
    // Starts: zero flow (within the reach of a patch), then a search.
    dis_search_ref(a, 0, g.ny);
    int interior = 0, landed = 0;
    double worst_e = -1.0;
    for (int j = 0; j < g.ny; ++j)
        for (int k = 0; k < g.nx; ++k) {
            const double e0 = mn_error(i0, i1, g, k, j, 0.0f, 0.0f), e1 = mn_error(i0, i1, g, k, j, tx.at(k, j), ty.at(k, j));
            worst_e = std::max(worst_e, e1 - e0 - 1e-3 * (1.0 + e0));
            // Patches whose match lies inside the frame (no clamped tap) land on the motion.
            const bool inside = g.x(k) - 2 >= 0 && g.x(k) + g.p + 2 < w && g.y(j) - 2 >= 0 && g.y(j) + g.p + 2 < h;
            if (!inside) continue;
            ++interior;
            const double err = std::hypot(tx.at(k, j) - mx, ty.at(k, j) - my);
            landed += err <= 5e-3;
            CHECK_MSG(err <= 5e-3, "patch (%d, %d): (%.4f, %.4f), motion (%.2f, %.2f)", k, j, tx.at(k, j), ty.at(k, j), mx, my);
            CHECK_MSG(std::fabs(md.at(k, j) - 9.0f) < 0.05f, "patch (%d, %d): mean error %.3f, offset 9", k, j, md.at(k, j));
        }
    std::printf("search: %d of %d interior patches within 0.005 px of the motion\n", landed, interior);
    CHECK(interior > 20);
    CHECK_MSG(worst_e <= 0.0, "a search result has a larger error than its start (by %.3g)", worst_e);

    // A flat frame 0: no patch is solvable, every patch keeps its start.
    Img f0(w, h, 100.0f), fgx(w, h), fgy(w, h);
    dis_gradient_ref(f0.plane(), fgx.plane(), fgy.plane(), 0, h);
    Sums fs(w, h);
    DisSearchArgs b = a;
    patch_sums_of(fgx, fgy, g, &fs, b.sum);
    b.i0 = f0.plane();
    b.gx = fgx.plane();
    b.gy = fgy.plane();
    for (int j = 0; j < g.ny; ++j)
        for (int k = 0; k < g.nx; ++k) {
            sx.at(k, j) = 0.25f * static_cast<float>(k);
            sy.at(k, j) = -0.5f * static_cast<float>(j);
        }
    dis_search_ref(b, 0, g.ny);
    bool kept = true;
    for (int j = 0; j < g.ny; ++j)
        for (int k = 0; k < g.nx; ++k) kept = kept && tx.at(k, j) == sx.at(k, j) && ty.at(k, j) == sy.at(k, j);
    CHECK_MSG(kept, "flat patches moved");

    // Starts 11 px off the motion: a result may not move further than a patch side (8) from its start.
    for (int j = 0; j < g.ny; ++j)
        for (int k = 0; k < g.nx; ++k) {
            sx.at(k, j) = static_cast<float>(mx + 11.0);
            sy.at(k, j) = static_cast<float>(my);
        }
    dis_search_ref(a, 0, g.ny);
    bool bounded = true;
    for (int j = 0; j < g.ny; ++j)
        for (int k = 0; k < g.nx; ++k)
            bounded = bounded && std::hypot(tx.at(k, j) - sx.at(k, j), ty.at(k, j) - sy.at(k, j)) <= 8.0 + 1e-4;
    CHECK_MSG(bounded, "a result moved more than the patch side from its start");

    // Propagation: the middle column holds the motion, the rest a wrong flow: every patch next to
    // that column takes it; own flow within kDisSameFlow of the best is not re-evaluated.
    for (int j = 0; j < g.ny; ++j)
        for (int k = 0; k < g.nx; ++k) {
            const bool good = k == g.nx / 2;
            tx.at(k, j) = static_cast<float>(good ? mx : mx + 3.0);
            ty.at(k, j) = static_cast<float>(good ? my : my - 2.0);
        }
    Img er(w, h); // each patch's own E, as the search leaves it
    for (int j = 0; j < g.ny; ++j)
        for (int k = 0; k < g.nx; ++k) er.at(k, j) = static_cast<float>(mn_error(i0, i1, g, k, j, tx.at(k, j), ty.at(k, j)));
    const DisPropagateArgs pa{i0.plane(), i1.plane(), sparse(tx), sparse(ty), sparse(er), sparse(sx), sparse(sy), g};
    dis_propagate_ref(pa, 0, g.ny);
    for (int j = 1; j + 1 < g.ny; ++j) {
        const int k = g.nx / 2 - 1;
        CHECK_MSG(sx.at(k, j) == static_cast<float>(mx) && sy.at(k, j) == static_cast<float>(my),
                  "propagation: patch (%d, %d) did not take its neighbour's flow", k, j);
        CHECK(sx.at(0, j) == static_cast<float>(mx + 3.0)); // no neighbour with the motion: keeps its own
    }
}

void check_densify() {
    const int cases[][4] = {{41, 29, 8, 3}, {20, 13, 4, 4}, {33, 33, 12, 5}};
    for (auto& c : cases) {
        const int w = c[0], h = c[1];
        Img i0(w, h), i1(w, h), u1(w, h, 5.0f), u2(w, h, 5.0f), wgt(w, h);
        for (float& f : i0.v) f = 255.0f * urand();
        for (float& f : i1.v) f = 255.0f * urand();
        const DisGrid g = dis_grid(w, h, c[2], c[3]);
        Img sx(w, h), sy(w, h), md(w, h);
        for (int j = 0; j < g.ny; ++j)
            for (int k = 0; k < g.nx; ++k) {
                sx.at(k, j) = 12.0f * urand() - 6.0f + (k == 0 ? -30.0f : 0.0f); // some cross the border
                sy.at(k, j) = 12.0f * urand() - 6.0f;
                md.at(k, j) = 20.0f * urand() - 10.0f;
            }
        auto sparse = [&](Img& m) {
            Plane p = m.plane();
            p.w = g.nx;
            p.h = g.ny;
            return p;
        };
        const DisDensifyArgs da{i0.plane(), i1.plane(), sparse(sx), sparse(sy), sparse(md), u1.plane(), u2.plane(), wgt.plane(), g};
        dis_densify_ref(da, 0, h / 3);
        dis_densify_ref(da, h / 3, h);
        double worst = 0.0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                double sw = 0.0, su = 0.0, sv = 0.0;
                for (int j = 0; j < g.ny; ++j)
                    for (int k = 0; k < g.nx; ++k) {
                        if (!(g.x(k) <= x && x < g.x(k) + g.p && g.y(j) <= y && y < g.y(j) + g.p)) continue;
                        const double fx0 = std::floor(static_cast<double>(sx.at(k, j)));
                        const double fy0 = std::floor(static_cast<double>(sy.at(k, j)));
                        const int ix = static_cast<int>(fx0), iy = static_cast<int>(fy0);
                        const double fx = sx.at(k, j) - fx0, fy = sy.at(k, j) - fy0;
                        const int xa = clampi(x + ix, 0, w - 1), xb = clampi(x + ix + 1, 0, w - 1);
                        const int ya = clampi(y + iy, 0, h - 1), yb = clampi(y + iy + 1, 0, h - 1);
                        const double t = i1.at(xa, ya) + fx * (i1.at(xb, ya) - i1.at(xa, ya));
                        const double b = i1.at(xa, yb) + fx * (i1.at(xb, yb) - i1.at(xa, yb));
                        const double d = std::fabs(t + fy * (b - t) - i0.at(x, y) - md.at(k, j));
                        const double wi = 1.0 / std::max(1.0, d);
                        sw += wi;
                        su += wi * sx.at(k, j);
                        sv += wi * sy.at(k, j);
                    }
                worst = std::max(worst, std::fabs(u1.at(x, y) - su / sw) / (1.0 + std::fabs(su / sw)));
                worst = std::max(worst, std::fabs(u2.at(x, y) - sv / sw) / (1.0 + std::fabs(sv / sw)));
            }
        CHECK_MSG(worst <= 2e-5, "densify %dx%d p %d s %d: relative error %.3g", w, h, c[2], c[3], worst);
    }
}

void check_refine_tensor() {
    for (int w : {17, 24}) {
        const int h = 13, hw = (w + 1) / 2;
        Img i0(w, h), i1w(w, h), u1(w, h), u2(w, h);
        for (float& f : i0.v) f = 255.0f * urand();
        for (float& f : i1w.v) f = 255.0f * urand();
        for (float& f : u1.v) f = 10.0f * urand() - 5.0f;
        for (float& f : u2.v) f = 10.0f * urand() - 5.0f;
        // Split planes: red and black halves in one row of 2 hw floats each.
        std::vector<float> du(static_cast<size_t>(2 * hw) * h), dv(du.size());
        for (float& f : du) f = urand() - 0.5f;
        for (float& f : dv) f = urand() - 0.5f;
        std::vector<float> jr(static_cast<size_t>(kHsChannels) * 2 * hw * h, -7.0f);
        DisRefineArgs a;
        a.i0 = i0.plane();
        a.i1w = i1w.plane();
        a.u1 = u1.plane();
        a.u2 = u2.plane();
        a.du_r = Plane{du.data(), hw, h, 2 * hw};
        a.du_b = Plane{du.data() + hw, hw, h, 2 * hw};
        a.dv_r = Plane{dv.data(), hw, h, 2 * hw};
        a.dv_b = Plane{dv.data() + hw, hw, h, 2 * hw};
        for (int c = 0; c < kHsChannels; ++c) {
            float* base = jr.data() + static_cast<size_t>(c) * 2 * hw * h;
            a.j_red[c] = Plane{base, hw, h, 2 * hw};
            a.j_black[c] = Plane{base + hw, hw, h, 2 * hw};
        }
        a.alpha2 = 300.0f;
        a.delta = 5.0f;
        a.gamma = 10.0f;
        dis_refine_tensor_ref(a, 0, 5);
        dis_refine_tensor_ref(a, 5, h);
        double worst = 0.0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                auto A = [&](int xx, int yy) {
                    xx = clampi(xx, 0, w - 1);
                    yy = clampi(yy, 0, h - 1);
                    return 0.5 * (static_cast<double>(i0.at(xx, yy)) + i1w.at(xx, yy));
                };
                auto I0 = [&](int xx, int yy) { return static_cast<double>(i0.at(clampi(xx, 0, w - 1), clampi(yy, 0, h - 1))); };
                auto I1 = [&](int xx, int yy) { return static_cast<double>(i1w.at(clampi(xx, 0, w - 1), clampi(yy, 0, h - 1))); };
                const double ax = 0.5 * (A(x + 1, y) - A(x - 1, y)), ay = 0.5 * (A(x, y + 1) - A(x, y - 1));
                const double axx = A(x + 1, y) - 2 * A(x, y) + A(x - 1, y), ayy = A(x, y + 1) - 2 * A(x, y) + A(x, y - 1);
                const double axy = 0.25 * ((A(x + 1, y + 1) - A(x - 1, y + 1)) - (A(x + 1, y - 1) - A(x - 1, y - 1)));
                const double it = I1(x, y) - I0(x, y);
                const double ixt = 0.5 * (I1(x + 1, y) - I1(x - 1, y)) - 0.5 * (I0(x + 1, y) - I0(x - 1, y));
                const double iyt = 0.5 * (I1(x, y + 1) - I1(x, y - 1)) - 0.5 * (I0(x, y + 1) - I0(x, y - 1));
                const bool red = ((x + y) & 1) == 0;
                const size_t slot = static_cast<size_t>(y) * 2 * hw + (red ? 0 : hw) + (x >> 1);
                const double u = du[slot], v = dv[slot];
                const double nb = ax * ax + ay * ay + kDisZeta2;
                const double rb = (it + ax * u + ay * v) * (it + ax * u + ay * v) / nb;
                const double pb = a.delta / std::sqrt(rb + kDisEps2) / nb;
                const double ng = axx * axx + 2 * axy * axy + ayy * ayy + kDisZeta2;
                const double gxr = ixt + axx * u + axy * v, gyr = iyt + axy * u + ayy * v;
                const double pg = a.gamma / std::sqrt((gxr * gxr + gyr * gyr) / ng + kDisEps2) / ng;
                auto lap = [&](Img& f) {
                    auto F = [&](int xx, int yy) { return static_cast<double>(f.at(clampi(xx, 0, w - 1), clampi(yy, 0, h - 1))); };
                    const double m = (F(x - 1, y) + F(x + 1, y) + F(x, y - 1) + F(x, y + 1)) / 6.0 +
                                     (F(x - 1, y - 1) + F(x + 1, y - 1) + F(x - 1, y + 1) + F(x + 1, y + 1)) / 12.0;
                    return F(x, y) - m;
                };
                const double want[kHsChannels] = {
                    pb * ax * ax + pg * (axx * axx + axy * axy),                          // J11
                    pb * ax * ay + pg * (axx * axy + axy * ayy),                          // J12
                    pb * ax * it + pg * (axx * ixt + axy * iyt) + a.alpha2 * lap(u1),     // J13
                    pb * ay * ay + pg * (axy * axy + ayy * ayy),                          // J22
                    pb * ay * it + pg * (axy * ixt + ayy * iyt) + a.alpha2 * lap(u2)};    // J23
                for (int c = 0; c < kHsChannels; ++c) {
                    const double got = jr[static_cast<size_t>(c) * 2 * hw * h + slot];
                    // The floor: the largest term of the channel's sum, rounded in F32.
                    const double scale = std::fabs(want[c]) + 1e-3 * (a.delta / std::sqrt(kDisEps2) + a.alpha2);
                    worst = std::max(worst, std::fabs(got - want[c]) / scale);
                }
            }
        CHECK_MSG(worst <= 1e-4, "refine_tensor %dx%d: relative error %.3g", w, h, worst);
    }
}

} // namespace

int main() {
    check_grid();
    check_gradient();
    check_box_sums();
    check_init();
    check_search();
    check_densify();
    check_refine_tensor();
    return oftest::finish("dis_kernels_ref");
}
