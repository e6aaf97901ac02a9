// Horn-Schunck and CLG entries of the algorithm registry (core/algorithm.hpp): the validation of
// config.hs, the work planes and level solver (core/hs_level_cpu.cpp), the HS kernel family
// (core/hs_kernels.hpp), and the CUDA path (cuda/hs_cuda.cuh: cuda::hs_plan / hs_create with the
// shared process and destroy).
#include "core/algorithms.hpp"
#include "core/context.hpp"
#include "core/enum_raw.hpp"
#include "core/hs_level_cpu.hpp"

#if OF_HAVE_NEON
#include "neon/kernels_neon.hpp"
#endif

namespace oflow {
namespace {

// alpha^2 and alpha^4 (the 2x2 determinant's floor) stay finite and normal in F32; rho's
// Gaussian fits the blur radius the kernels hold (3 rho <= kMaxBlurRadius + margin).
// omega: the half-sweeps read the same colour's diagonal neighbours from before the sweep
// (core/hs_kernels.hpp), a Jacobi coupling that lowers SOR's bound below 2. Measured (HS, 96x72
// synthetic cases, 3 levels x 3 warps x 150 iterations): alpha 8 and 15 diverge at 1.6, alpha 50
// at 1.55; 1.5 converged for alpha 1..1000. So (0, 1.5].
const float kMaxOmega = 1.5f;
of_status check_hs(const of_config& cfg, const ErrorSink& err) {
    const char* algo = cfg.algorithm == OF_ALGO_CLG ? "CLG" : "HS";
    if (!(cfg.hs.alpha >= 0.01f && cfg.hs.alpha <= 1000.0f))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: hs.alpha %g not in [0.01, 1000]",
                        static_cast<double>(cfg.hs.alpha));
    if (cfg.algorithm == OF_ALGO_HS && cfg.hs.rho != 0.0f)
        return err.fail(OF_ERR_INVALID_ARGUMENT,
                        "config: hs.rho %g with OF_ALGO_HS: Horn-Schunck has no tensor smoothing (rho must be 0; "
                        "use OF_ALGO_CLG)",
                        static_cast<double>(cfg.hs.rho));
    if (!(cfg.hs.rho >= 0.0f && cfg.hs.rho <= 10.0f))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: hs.rho %g not in [0, 10]", static_cast<double>(cfg.hs.rho));
    const int32_t solver = raw_enum(cfg.hs.solver);
    if (solver != OF_SOLVER_JACOBI && solver != OF_SOLVER_RED_BLACK_SOR)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: unknown hs.solver %d (0 Jacobi, 1 red-black SOR)", solver);
    if (!(cfg.hs.omega > 0.0f && cfg.hs.omega <= kMaxOmega))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: hs.omega %g not in (0, %.1f] (%s, SOR over-relaxation)",
                        static_cast<double>(cfg.hs.omega), static_cast<double>(kMaxOmega), algo);
    return OF_OK;
}

void hs_kernels_init(of_context* ctx, of_backend cpu, bool f16) {
    hs_kernels_init_ref(&ctx->hs);
    // NEON overrides the entries it vectorises (all but the plain point Jacobi); f16 selects the
    // F16 Jacobi updates only where the CPU has FP16 arithmetic (neon/kernels_neon.hpp).
#if OF_HAVE_NEON
    if (cpu == OF_BACKEND_NEON) hs_kernels_init_neon(&ctx->hs, f16);
#else
    (void)cpu;
    (void)f16;
#endif
    ctx->rho_blur = make_gaussian(ctx->cfg.algorithm == OF_ALGO_CLG ? ctx->cfg.hs.rho : 0.0f);
}

#if OF_HAVE_CUDA
const CudaDriver kHsCuda = {cuda::hs_resolve_tuning, cuda::hs_plan, cuda::hs_create, cuda::process, cuda::destroy, cuda::push,
                                  cuda::register_host, cuda::unregister_host, cuda::last_pick};
#define OF_HS_CUDA (&kHsCuda)
#else
#define OF_HS_CUDA nullptr
#endif

} // namespace

// NEON: every stage and solver in F32 (neon/hs_stages_neon.cpp, neon/hs_solvers_neon.cpp); with
// precision F16 on a CPU with FP16 arithmetic, the Jacobi updates compute their 9-point means in
// F16 (neon/hs_f16_neon.cpp: cpu_f16 true), while the red-black SOR half-sweep and the per-warp
// stages stay F32 (that file says why). CUDA: the whole frame on the device (gpu_path). One
// self-test function serves both (it runs HS and CLG cases: core/hs_selftest.cpp); only HS's
// entry points at it.
// Neither has a rule of its own: the validity output is the residual confidence
// (core/confidence.hpp). Warps up to config_check's bound.
const Algorithm kHs = {OF_ALGO_HS,      "hs", check_hs, hs_work_planes, hs_work_plane_name, hs_solve_level_cpu,
                       hs_kernels_init, true, true,     OF_HS_CUDA,     hs_selftest,        -1,
                       nullptr,         100, nullptr, nullptr, 0};
const Algorithm kClg = {OF_ALGO_CLG,     "clg", check_hs, hs_work_planes, hs_work_plane_name, hs_solve_level_cpu,
                        hs_kernels_init, true,  true,     OF_HS_CUDA,     nullptr,            -1,
                        nullptr,         100, nullptr, nullptr, 0};

} // namespace oflow
