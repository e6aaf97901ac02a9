// Dense Inverse Search's entry in the algorithm registry (core/algorithm.hpp): the validation of
// config.dis (and of warps, which DIS does not have), the work planes and level solver
// (core/dis_level_cpu.cpp), the DIS kernel family (core/dis_kernels.hpp) with the red-black SOR
// of the HS family for its refinement, and its self-test cases. The validity output is the
// shared residual confidence (core/confidence.hpp): DIS has no rule of its own.
#include "core/algorithms.hpp"
#include "core/context.hpp"
#include "core/dis_level_cpu.hpp"

#include <cmath>

#if OF_HAVE_NEON
#include "neon/kernels_neon.hpp"
#endif

namespace oflow {
namespace {

bool weight_ok(float v, float lo, float hi) { return std::isfinite(v) && v >= lo && v <= hi; }

// patch_size 4..32 (a 32-px patch sums 1024 squared gradients: far inside F32's range; the
// window sums' ring of core/ref/dis_ref.cpp holds p / s + 2 <= 34 open windows), stride
// 1..patch_size (a larger step leaves pixels outside every patch), iterations 1..1000,
// finest_level 0..15 (a level the pyramid does not have is never solved: the flow stays zero),
// refine_iterations 0..100, weights finite in their ranges.
of_status check_dis(const of_config& cfg, const ErrorSink& err) {
    const of_dis_params& d = cfg.dis;
    if (cfg.warps != 1)
        return err.fail(OF_ERR_INVALID_ARGUMENT,
                        "config: warps %u with OF_ALGO_DIS: DIS has no warps (its Gauss-Newton steps are "
                        "config.dis.iterations); warps must be 1",
                        cfg.warps);
    if (d.patch_size < 4 || d.patch_size > 32)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: dis.patch_size %u not in 4..32", d.patch_size);
    if (d.patch_stride < 1 || d.patch_stride > d.patch_size)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: dis.patch_stride %u not in 1..patch_size (%u)",
                        d.patch_stride, d.patch_size);
    if (d.iterations < 1 || d.iterations > 1000)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: dis.iterations %u not in 1..1000", d.iterations);
    if (d.finest_level > 15)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: dis.finest_level %u not in 0..15", d.finest_level);
    if (d.refine_iterations > 100)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: dis.refine_iterations %u not in 0..100",
                        d.refine_iterations);
    if (!weight_ok(d.refine_alpha, 0.01f, 1000.0f))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: dis.refine_alpha %g not in [0.01, 1000]",
                        static_cast<double>(d.refine_alpha));
    if (!weight_ok(d.refine_delta, 0.0f, 1000.0f))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: dis.refine_delta %g not in [0, 1000]",
                        static_cast<double>(d.refine_delta));
    if (!weight_ok(d.refine_gamma, 0.0f, 1000.0f))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: dis.refine_gamma %g not in [0, 1000]",
                        static_cast<double>(d.refine_gamma));
    return OF_OK;
}

uint32_t dis_finest_read_level(const of_config& cfg) { return cfg.dis.finest_level; }

void dis_kernels_init(of_context* ctx, of_backend cpu, bool) {
    dis_kernels_init_ref(&ctx->dis);
    hs_kernels_init_ref(&ctx->hs); // the refinement's red-black SOR
#if OF_HAVE_NEON
    if (cpu == OF_BACKEND_NEON) {
        hs_kernels_init_neon(&ctx->hs, false);
        dis_kernels_init_neon(&ctx->dis);
    }
#else
    (void)cpu;
#endif
}

#if OF_HAVE_CUDA
const CudaDriver kDisCuda = {cuda::dis_resolve_tuning, cuda::dis_plan, cuda::dis_create, cuda::process, cuda::destroy,
                             cuda::push, cuda::register_host, cuda::unregister_host, cuda::last_pick};
#define OF_DIS_CUDA (&kDisCuda)
#else
#define OF_DIS_CUDA nullptr
#endif

} // namespace

// The reference kernels on the reference path; NEON: the refinement's SOR in F32 and the DIS
// kernels of neon/dis_*_neon.cpp (F32; box sums and starts stay the reference's). No F16 kernels
// on the CPU (cpu_f16 false: neon/dis_patch_neon.cpp's top comment says why). CUDA: the whole
// pyramid on the device (cuda/dis_frame.cu, gpu_path; F16 storage of the gradient pairs and of
// the refinement's SOR pairs there: cuda/dis_cuda.cuh). A board table without a DIS entry: AUTO
// runs the CPU path (core/select.cpp), backend CUDA the built-in launch defaults
// (cuda_layout.hpp dis_resolve_tuning).
const Algorithm kDis = {
    OF_ALGO_DIS,
    "dis",
    check_dis,
    dis_work_planes,
    dis_work_plane_name,
    dis_solve_level_cpu,
    dis_kernels_init,
    false, // no F16 kernels
    true, // CUDA path
    OF_DIS_CUDA,
    dis_selftest,
    -1,      // the shared residual confidence
    nullptr,
    1, // no warps
    dis_finest_read_level,
};

} // namespace oflow
