// Lucas-Kanade's entry in the algorithm registry (core/algorithm.hpp): the validation of
// config.lk (and of warps, which LK does not have), the work planes and level solver
// (core/lk_level_cpu.cpp), the LK kernel family (core/lk_kernels.hpp) and the validity output
// (the finest level's confidence). CPU paths only: the CUDA path is not written yet (gpu_path
// false: backend CUDA is OF_ERR_UNSUPPORTED, AUTO runs the CPU path).
#include "core/algorithms.hpp"
#include "core/context.hpp"
#include "core/lk_level_cpu.hpp"

#include <cmath>

namespace oflow {
namespace {

// window: odd (centred), 3..33 (kLkMaxWindow: a window sums 1089 squared gradients, at most about
// 2e6 each after the local normalisation, 1e12 for raw F32 pixels of 1e6: far below F32's range).
// min_eigen: any finite value >= 0 (0: every window is valid, the singular ones are guarded).
of_status check_lk(const of_config& cfg, const ErrorSink& err) {
    if (cfg.warps != 1)
        return err.fail(OF_ERR_INVALID_ARGUMENT,
                        "config: warps %u with OF_ALGO_LK: LK has no warps (its Newton steps per level are "
                        "config.iterations); warps must be 1",
                        cfg.warps);
    if (cfg.lk.window < 3 || cfg.lk.window > static_cast<uint32_t>(kLkMaxWindow) || cfg.lk.window % 2 == 0)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: lk.window %u is not an odd side in 3..%d", cfg.lk.window,
                        kLkMaxWindow);
    if (!(cfg.lk.min_eigen >= 0.0f) || !std::isfinite(cfg.lk.min_eigen))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: lk.min_eigen %g must be finite and >= 0",
                        static_cast<double>(cfg.lk.min_eigen));
    return OF_OK;
}

void lk_kernels_init(of_context* ctx, of_backend, bool) { lk_kernels_init_ref(&ctx->lk); }

float lk_min_confidence(const of_config& cfg) { return cfg.lk.min_eigen; }

} // namespace

// Reference kernels on every CPU path (NEON has no LK kernels yet: it runs the same code, and
// of_info says F32 when F16 is asked for: cpu_f16 false). No CUDA path (a later task).
const Algorithm kLk = {
    OF_ALGO_LK,
    "lk",
    check_lk,
    lk_work_planes,
    lk_work_plane_name,
    lk_solve_level_cpu,
    lk_kernels_init,
    false, // no F16 kernels
    false, // no CUDA path
    nullptr,
    lk_selftest,
    kLkConf, // the validity output: level 0's confidence against config.lk.min_eigen
    lk_min_confidence,
    1, // no warps
};

} // namespace oflow
