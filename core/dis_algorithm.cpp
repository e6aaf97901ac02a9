// Dense Inverse Search's entry in the algorithm registry (core/algorithm.hpp): the validation of
// config.dis (and of warps, which DIS does not have), the work planes and level solver
// (core/dis_level_cpu.cpp), the DIS kernel family (core/dis_kernels.hpp) with the red-black SOR
// of the HS family for its refinement, and its self-test cases. The validity output is the
// shared residual confidence (core/confidence.hpp): DIS has no rule of its own.
#include "core/algorithms.hpp"
#include "core/context.hpp"
#include "core/dis_level_cpu.hpp"
#include "platform/tuning.hpp" // LevelTerms

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
    if (d.iterations < 1 || d.iterations > kDisMaxIterations)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: dis.iterations %u not in 1..%u", d.iterations,
                        kDisMaxIterations);
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

// The time model's DIS (core/algorithm.hpp IterationModel, platform/tuning.hpp frame_ms): its
// count is the Gauss-Newton steps per patch on each level it solves (config.dis.iterations;
// config.iterations and iteration_growth do not apply); levels finer than finest_level run none.
//  - work: a table row's ns_per_it_px is one step per pixel at MEDIUM's geometry (patch 8,
//    stride 3: (8 / 3)^2 patch pixels per frame pixel); a step costs (patch / stride)^2 patch
//    pixels per frame pixel, so a solved level's work is its pixels scaled by that ratio (an
//    unsolved level's is 1, the model's smallest: it runs no step);
//  - launches: on the GPU a launch runs a round of kDisRoundSteps steps (FUSED: propagation and
//    steps in one launch), and a solved level adds the FUSED path's others (cuda/dis_frame.cu
//    dis_launches): gradient, patch sums, densification, and with refinement the warp, the
//    increment's clear and add, and per fixed-point iteration the tensor and kDisSorIterations
//    SOR launches (GLOBAL makes more; the row is FUSED's);
//  - work besides the steps: the refinement, kDisRefineWork[path] step-equivalents per level
//    pixel and fixed-point iteration.
// kDisRefineWork: one fixed-point iteration (tensor, 5 red-black SOR sweeps) per level pixel
// against one MEDIUM step per work pixel, fitted with the table terms to whole frames of
// oflow-bench --dis (b) (2026-11-27): on the GPU 1.27 F32, 1.35 F16 storage (H200 FUSED, 44
// frames 80x60..1920x1080, the three presets, 4 and 25 steps; worst error 6 %); on the CPU
// reference path 20 (one thread of the H200 machine's x86 CPU, 16 frames 80x60..640x480; the
// tensor's warped gradients cost there what the GPU hides under its bandwidth).
const double kDisRefineWork[platform::kPathCount] = {20.0, 1.3}; // kPathCpu, kPathGpu

uint32_t dis_model_get(const of_config& cfg) { return cfg.dis.iterations; }
void dis_model_set(of_config* cfg, uint32_t n) { cfg->dis.iterations = n; }
uint32_t dis_model_at_level(const of_config& cfg, uint32_t n, int level) {
    return level >= static_cast<int>(cfg.dis.finest_level) ? n : 0u;
}
void dis_model_terms(const of_config& cfg, int levels, uint64_t* areas, platform::LevelTerms* t) {
    const double ps = static_cast<double>(cfg.dis.patch_size) / static_cast<double>(cfg.dis.patch_stride);
    const double scale = ps * ps / (64.0 / 9.0);
    const double refine = static_cast<double>(cfg.dis.refine_iterations);
    const double launches = 3.0 + (refine > 0.0 ? 3.0 + refine * (1.0 + kDisSorIterations) : 0.0);
    t->frame_px = static_cast<double>(areas[0]);
    for (int l = 0; l < levels; ++l) {
        const bool solved = l >= static_cast<int>(cfg.dis.finest_level);
        const double px = static_cast<double>(areas[l]);
        const double a = solved ? px * scale : 1.0;
        areas[l] = a < 1.0 ? 1u : static_cast<uint64_t>(a + 0.5);
        t->runs[l] = solved ? 1.0 : 0.0;
        t->fixed_launches[l] = solved ? launches : 0.0;
        for (int p = 0; p < platform::kPathCount; ++p)
            t->fixed_work[p][l] = solved ? refine * px * kDisRefineWork[p] : 0.0;
    }
}
const IterationModel kDisModel = {dis_model_get, dis_model_set, kDisMaxIterations, dis_model_at_level,
                                  dis_model_terms, static_cast<uint32_t>(kDisRoundSteps)};

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

// Under its default OF_ROBUST_LEVEL_NORM, DIS takes pyramid levels 0, 1 and 2 (the finest
// levels its presets solve: MEDIUM 1, FAST and ULTRAFAST 2) from one fine level normalised with
// the frame's window (robust_sigma frame px), and only the coarser levels, which must keep their
// coarse structure for large motion, normalised at their own scale (Algorithm::level_norm_fine,
// core/robust.hpp level_norm_fine_levels and level_norm_fine_base). That normalisation's
// band-pass keeps the detail at the scale the finest levels match; normalised at their own
// scale (window 3 level px: 12 px of the frame at level 2) those levels kept less of it.
// Measured (docs/accuracy.md section 15, reference path): Middlebury RubberWhale RMSE
// ULTRAFAST / FAST / MEDIUM 0.934 / 0.773 / 0.549 -> 0.789 / 0.667 / 0.475 (OpenCV 4.6: 0.845 /
// 0.731 / 0.476), the six real pairs' mean EPE 0.749 / 0.613 / 0.450 -> 0.685 / 0.586 / 0.420, the
// accuracy matrix 0.942 -> 0.853 (its photometric cells 0.973 -> 0.881), the photograph set
// 4.338 -> 4.271. Fine levels 0-1 only: RubberWhale ULTRAFAST 0.934 (its level 2 at its own
// scale again); 0-3: 0.793 with level 0 as the base.
const int kDisLevelNormFine = 3;

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
// the refinement's SOR pairs there: cuda/dis_cuda.cuh). Every built-in board table has a DIS
// entry (platform/tables); a loaded table without one refuses DIS as it refuses any GPU algorithm
// it does not describe.
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
    &kDisModel,
    kDisLevelNormFine,
};

} // namespace oflow
