// of_selftest cases of Dense Inverse Search on one path (Algorithm::selftest of the DIS entry;
// group "dis"): the reference kernels against closed forms, and accuracy with DIS's defaults
// (MEDIUM, robust LEVEL_NORM) on three synthetic pairs with known flow, one of them with a gain,
// an offset and noise, on every path that runs DIS. The accuracy bounds are the measured values
// plus about 30 % (reference path, x86-64); the NEON and CUDA kernels match the reference within
// their tolerances (tests/neon, tests/gpu), so the same bounds hold there. Its large-motion case
// (a 30 px translation) is the shared one of core/selftest.cpp.
#include "core/dis_level_cpu.hpp"
#include "core/ref/dis_ref.hpp"
#include "core/selftest.hpp"

#include <cmath>
#include <vector>

namespace oflow {
namespace {

// Closed forms: Sobel / 8 of the ramp 3x - 2y is (3, -2) away from the border; the patch sums of
// ones are the patch area (channel Sx with gx = 1); a search on a texture shifted by an integer
// motion with an offset lands on the motion (bilinear sampling is exact there) and reports the
// offset as the patch's mean error; densifying equal patch flows gives that flow everywhere.
void check_kernels(selftest::Sink* sink, const selftest::Path& p) {
    const selftest::Clock::time_point t0 = selftest::Clock::now();
    DisKernels k;
    dis_kernels_init_ref(&k);
    const int w = 40, h = 32;
    std::vector<float> store(static_cast<std::size_t>(w) * h * 15, 0.0f);
    auto plane = [&](int i) { return Plane{store.data() + static_cast<std::size_t>(i) * w * h, w, h, w}; };
    const Plane i0 = plane(0), i1 = plane(1), gx = plane(2), gy = plane(3);
    const char* failed = nullptr;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) i0.row(y)[x] = static_cast<float>(3 * x - 2 * y);
    k.gradient(i0, gx, gy, 0, h);
    for (int y = 1; y < h - 1; ++y)
        for (int x = 1; x < w - 1; ++x)
            if (gx.row(y)[x] != 3.0f || gy.row(y)[x] != -2.0f) failed = "gradient of a ramp";
    const DisGrid g = dis_grid(w, h, 8, 3);
    Plane sums[kDisSums];
    for (int c = 0; c < kDisSums; ++c) {
        sums[c] = plane(4 + c);
        sums[c].w = g.nx;
        sums[c].h = g.ny;
    }
    // The texture: a smooth pattern; frame 1 = frame 0 moved by (2, -1) plus 7 grey levels.
    auto tex = [](int x, int y) {
        const double fx = static_cast<double>(x), fy = static_cast<double>(y);
        return static_cast<float>(128.0 + 40.0 * std::sin(0.31 * fx + 0.7) * std::cos(0.23 * fy - 0.4) +
                                  25.0 * std::sin(0.17 * fx + 0.29 * fy));
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            i0.row(y)[x] = tex(x, y);
            i1.row(y)[x] = tex(x - 2, y + 1) + 7.0f;
        }
    k.gradient(i0, gx, gy, 0, h);
    const Plane row = plane(9);
    for (int c = 0; c < kDisSums; ++c) {
        k.box_h(DisBoxArgs{gx, gy, row, g, c}, 0, h);
        k.box_v(DisBoxVArgs{row, sums[c], g}, 0, g.ny);
    }
    auto sparse = [&](int i) {
        Plane s = plane(i);
        s.w = g.nx;
        s.h = g.ny;
        return s;
    };
    const Plane sx = sparse(10), sy = sparse(11), tx = sparse(12), ty = sparse(13), md = row, err = sparse(14);
    DisSearchArgs sa;
    sa.i0 = i0;
    sa.i1 = i1;
    sa.gx = gx;
    sa.gy = gy;
    for (int c = 0; c < kDisSums; ++c) sa.sum[c] = sums[c];
    sa.sx_in = sx;
    sa.sy_in = sy;
    sa.sx_out = tx;
    sa.sy_out = ty;
    Plane mdp = md;
    mdp.w = g.nx;
    mdp.h = g.ny;
    sa.md = mdp;
    sa.err = err;
    sa.g = g;
    sa.iterations = 20;
    k.search(sa, 0, g.ny);
    // Patches whose match stays inside the frame (2 px of margin).
    for (int j = 0; j < g.ny && !failed; ++j)
        for (int q = 0; q < g.nx; ++q) {
            if (g.x(q) < 2 || g.x(q) + g.p + 2 >= w || g.y(j) < 2 || g.y(j) + g.p + 2 >= h) continue;
            if (std::fabs(tx.row(j)[q] - 2.0f) > 0.005f || std::fabs(ty.row(j)[q] + 1.0f) > 0.005f ||
                std::fabs(mdp.row(j)[q] - 7.0f) > 0.05f)
                failed = "search on a shifted texture";
        }
    // Densify equal flows: the flow everywhere.
    for (int j = 0; j < g.ny; ++j)
        for (int q = 0; q < g.nx; ++q) {
            tx.row(j)[q] = 1.5f;
            ty.row(j)[q] = -0.25f;
        }
    const Plane u1 = plane(4), u2 = plane(5), wt = plane(6);
    k.densify(DisDensifyArgs{i0, i1, tx, ty, mdp, u1, u2, wt, g}, 0, h);
    for (int y = 0; y < h && !failed; ++y)
        for (int x = 0; x < w; ++x)
            if (std::fabs(u1.row(y)[x] - 1.5f) > 1e-6f || std::fabs(u2.row(y)[x] + 0.25f) > 1e-6f) failed = "densify";
    sink->add(p, "dis", "kernels", failed ? OF_CHECK_FAIL : OF_CHECK_PASS, failed ? 1.0 : 0.0, 0.0, selftest::since(t0),
              "reference DIS kernels on closed forms (ramp gradient, search on a shifted texture, densify): %s",
              failed ? failed : "as expected");
}

struct Accuracy {
    synth::Case c;
    const char* check;
    double quick, full; // EPE bounds at 96x72 and 160x120
};

// Measured (quick / full), x86-64, reference path, DIS defaults, 2026-11-27: translation
// 0.0793 / 0.0678, noise-gain 0.0695 / 0.0587, camera-motion 0.0827 / 0.0705; bounds + 30 %.
const Accuracy kAccuracy[] = {
    {synth::Case::Translation, "translation", 0.103, 0.088},
    {synth::Case::NoiseGain, "exposure", 0.090, 0.076},
    {synth::Case::CameraMotion, "camera-motion", 0.108, 0.092},
};

} // namespace

void dis_selftest(selftest::Sink* sink, const selftest::Path& p, bool full, uint32_t threads) {
    if (p.backend != OF_BACKEND_CUDA) check_kernels(sink, p);
    const int w = full ? 160 : 96, h = full ? 120 : 72;
    for (const Accuracy& a : kAccuracy) {
        const selftest::Clock::time_point t0 = selftest::Clock::now();
        const bool f16 = p.precision == OF_PRECISION_F16;
        const double bound = (full ? a.full : a.quick) * (f16 ? 1.03 : 1.0) + (f16 ? 0.01 : 0.0);
        const selftest::Pair pr = selftest::make_pair(a.c, w, h);
        selftest::Flow f;
        char why[320];
        if (selftest::run_flow(selftest::path_config(p, OF_ALGO_DIS, w, h, threads), pr, &f, why, sizeof why) != OF_OK) {
            sink->add(p, "dis", a.check, OF_CHECK_FAIL, 0.0, bound, selftest::since(t0), "%s", why);
            continue;
        }
        const double e = selftest::epe(f, pr.gu, pr.gv);
        sink->add(p, "dis", a.check, e <= bound ? OF_CHECK_PASS : OF_CHECK_FAIL, e, bound, selftest::since(t0),
                  "%s %dx%d, DIS defaults (MEDIUM): EPE %.4f (bound %.4f)", synth::case_name(a.c), w, h, e, bound);
    }
}

} // namespace oflow
