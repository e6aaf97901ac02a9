// of_selftest cases of Horn-Schunck and CLG on one path, CPU or CUDA (Algorithm::selftest of the
// HS entry; group "hs"): accuracy of each algorithm x solver on a synthetic pair with known flow,
// the two solvers' common fixed point, CLG with rho = 0 against HS, and each algorithm's validity
// mask on occluding layers (most occluded pixels invalid; its bounds: selftest.cpp). The EPE bounds are the
// measured values plus about 30 % (reference path, x86-64, 2026-11-23; the NEON path runs the
// same HS kernels on its own pyramid kernels; the CUDA path's F32 flow is within 1e-4 px of the
// reference's on these cases, tests/gpu/gpu_hs.cpp).
#include "core/hs_level_cpu.hpp"
#include "core/selftest.hpp"

#include <algorithm>
#include <cstdio>

namespace oflow {
namespace {

of_config hs_config(const selftest::Path& p, of_algorithm a, of_solver s, int w, int h, uint32_t threads) {
    of_config c = selftest::path_config(p, a, w, h, threads);
    c.warps = 3;
    c.iterations = 150;
    c.epsilon = 0.002f;
    c.hs.solver = s;
    return c;
}

struct Accuracy {
    of_algorithm a;
    of_solver s;
    const char* check;
    double quick, full; // EPE bounds at 96x72 and 160x120
};

// Measured (quick / full): HS Jacobi 0.0618 / 0.0485, HS SOR 0.0532 / 0.0397, CLG Jacobi
// 0.0466 / 0.0366, CLG SOR 0.0456 / 0.0342.
const Accuracy kAccuracy[] = {
    {OF_ALGO_HS, OF_SOLVER_JACOBI, "hs-jacobi", 0.081, 0.064},
    {OF_ALGO_HS, OF_SOLVER_RED_BLACK_SOR, "hs-sor", 0.070, 0.052},
    {OF_ALGO_CLG, OF_SOLVER_JACOBI, "clg-jacobi", 0.061, 0.048},
    {OF_ALGO_CLG, OF_SOLVER_RED_BLACK_SOR, "clg-sor", 0.060, 0.045},
};

// Jacobi and SOR run to convergence on one level of a small pair; with rho = 0 for both
// algorithms, so the same run also compares CLG with HS.
void check_fixed_point(selftest::Sink* sink, const selftest::Path& p, uint32_t threads) {
    const selftest::Clock::time_point t0 = selftest::Clock::now();
    const selftest::Pair pr = selftest::make_pair(synth::Case::SmoothField, 32, 24);
    selftest::Flow f[2][2];
    char why[320] = "";
    bool ok = true;
    const of_algorithm algos[2] = {OF_ALGO_HS, OF_ALGO_CLG};
    const of_solver solvers[2] = {OF_SOLVER_JACOBI, OF_SOLVER_RED_BLACK_SOR};
    for (int a = 0; a < 2 && ok; ++a)
        for (int s = 0; s < 2 && ok; ++s) {
            of_config c = hs_config(p, algos[a], solvers[s], 32, 24, threads);
            c.levels = 1;
            c.warps = 1;
            c.epsilon = 0.0f;
            c.iterations = s == 0 ? 2500 : 800;
            c.median_size = 0;
            c.hs.rho = 0.0f;
            c.hs.alpha = 8.0f;
            c.hs.omega = 1.5f;
            ok = selftest::run_flow(c, pr, &f[a][s], why, sizeof why) == OF_OK;
        }
    if (!ok) {
        sink->add(p, "hs", "fixed-point", OF_CHECK_FAIL, 0.0, 1e-4, selftest::since(t0), "%s", why);
        return;
    }
    // F32: both converge to ~1e-6 px of each other (a tenth of the iterations leaves 2e-4);
    // F16 arithmetic rounds each update to 2^-11 of its terms (NEON: the means only); the CUDA
    // path also stores the increment and the coefficients in F16, so its two solvers meet the F16
    // system's fixed point: measured 5.9e-3 px apart (H100, 2026-11-24, tests/gpu/gpu_hs.cpp).
    const double tol = p.precision != OF_PRECISION_F16 ? 1e-4 : (p.backend == OF_BACKEND_CUDA ? 2e-2 : 5e-3);
    const double js = selftest::max_delta(f[0][0], f[0][1]);
    const double cr = std::max(selftest::max_delta(f[0][0], f[1][0]), selftest::max_delta(f[0][1], f[1][1]));
    sink->add(p, "hs", "fixed-point", js <= tol ? OF_CHECK_PASS : OF_CHECK_FAIL, js, tol, selftest::since(t0),
              "one level 32x24, alpha 8: Jacobi (2500 it) vs SOR (800 it, omega 1.5) max |d| %.2e px", js);
    sink->add(p, "hs", "clg-rho0", cr <= tol ? OF_CHECK_PASS : OF_CHECK_FAIL, cr, tol, 0.0,
              "CLG with rho 0 vs HS, both solvers: max |d| %.2e px", cr);
}

} // namespace

void hs_selftest(selftest::Sink* sink, const selftest::Path& p, bool full, uint32_t threads) {
    const int w = full ? 160 : 96, h = full ? 120 : 72;
    const selftest::Pair pr = selftest::make_pair(synth::Case::SmoothField, w, h);
    for (const Accuracy& a : kAccuracy) {
        const selftest::Clock::time_point t0 = selftest::Clock::now();
        const double bound = full ? a.full : a.quick;
        selftest::Flow f;
        char why[320];
        const of_config c = hs_config(p, a.a, a.s, w, h, threads);
        if (selftest::run_flow(c, pr, &f, why, sizeof why) != OF_OK) {
            sink->add(p, "hs", a.check, OF_CHECK_FAIL, 0.0, bound, selftest::since(t0), "%s", why);
            continue;
        }
        const double e = selftest::epe(f, pr.gu, pr.gv);
        sink->add(p, "hs", a.check, e <= bound ? OF_CHECK_PASS : OF_CHECK_FAIL, e, bound, selftest::since(t0),
                  "smooth-field %dx%d, auto levels, 3 warps x <= 150 iterations: EPE %.4f (bound %.4f)", w, h, e, bound);
    }
    check_fixed_point(sink, p, threads);
    // The validity mask on occluding layers (selftest.cpp check_occlusion_confidence, which has the
    // measurements and bounds): each algorithm's defaults on hs_config's schedule, robust local-norm
    // (one solve, as the shared cases: pick keeps local-norm here, at three times the time).
    const struct {
        of_algorithm a;
        const char* check;
    } conf[] = {{OF_ALGO_HS, "hs-occlusion-confidence"}, {OF_ALGO_CLG, "clg-occlusion-confidence"}};
    for (const auto& k : conf) {
        of_config c = hs_config(p, k.a, selftest::path_config(p, k.a, w, h, threads).hs.solver, w, h, threads);
        c.robust = OF_ROBUST_LOCAL_NORM;
        selftest::check_occlusion_confidence(sink, p, "hs", k.check, c, full);
    }
}

} // namespace oflow
