// Lucas-Kanade's entry in the algorithm registry (core/algorithm.hpp): the validation of
// config.lk (and of warps, which LK does not have), the work planes and level solver
// (core/lk_level_cpu.cpp), the LK kernel family (core/lk_kernels.hpp) and the validity output
// (the finest level's confidence), and its CUDA driver (cuda/lk_cuda.cuh: cuda::lk_plan /
// lk_create with the shared process and destroy).
#include "core/algorithms.hpp"
#include "core/context.hpp"
#include "core/lk_level_cpu.hpp"

#include <cmath>

#if OF_HAVE_NEON
#include "neon/kernels_neon.hpp"
#endif

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

void lk_kernels_init(of_context* ctx, of_backend cpu, bool) {
    lk_kernels_init_ref(&ctx->lk);
    // NEON overrides every entry, in F32 whatever the precision (cpu_f16 false below, so f16 is
    // never set for LK: neon/lk_stages_neon.cpp says why no LK kernel runs in F16).
#if OF_HAVE_NEON
    if (cpu == OF_BACKEND_NEON) lk_kernels_init_neon(&ctx->lk);
#else
    (void)cpu;
#endif
}

float lk_confidence_half(const of_config& cfg) { return cfg.lk.min_eigen; }

#if OF_HAVE_CUDA
const CudaDriver kLkCuda = {cuda::lk_resolve_tuning, cuda::lk_plan, cuda::lk_create, cuda::process, cuda::destroy, cuda::push,
                                  cuda::register_host, cuda::unregister_host, cuda::last_pick};
#define OF_LK_CUDA (&kLkCuda)
#else
#define OF_LK_CUDA nullptr
#endif

} // namespace

// The reference kernels on the reference path; NEON: every LK kernel in F32 (neon/lk_*_neon.cpp).
// No F16 kernels (cpu_f16 false: of_info says F32 when F16 is asked for): F16 overflows the
// window sums, costs the sampled residual EPE and the gradient the confidence output's accuracy,
// and where it is accurate (the tensor products, the interpolation relative to a tap) it saves
// no instruction (neon/lk_stages_neon.cpp's top comment, kernel by kernel, with the numbers of
// tests/neon/lk_f16_study). CUDA: the whole frame on the device (cuda/lk_frame.cu, gpu_path),
// F16 storage of the gradient pairs there (cuda/lk_cuda.cuh); the validity plane from the
// device's level-0 confidence.
const Algorithm kLk = {
    OF_ALGO_LK,
    "lk",
    check_lk,
    lk_work_planes,
    lk_work_plane_name,
    lk_solve_level_cpu,
    lk_kernels_init,
    false, // no F16 kernels (above)
    true, // CUDA path
    OF_LK_CUDA,
    lk_selftest,
    kLkConf, // the validity output: level 0's lambda, mapped against config.lk.min_eigen
    lk_confidence_half,
    1, // no warps
    nullptr, // every level is solved
    nullptr, // the shared iteration model: its Newton steps are config.iterations
    0,       // LEVEL_NORM: every level at its own scale
};

} // namespace oflow
