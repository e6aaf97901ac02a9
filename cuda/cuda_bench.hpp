// Internal hooks into a CUDA context for the GPU tests (tests/gpu) and oflow-bench: run one
// stage on planes the caller gives, time the inner loop alone, and the traffic/FLOP model of
// the configured variant. Not part of the C ABI; these calls synchronise and may allocate
// (host-side temporaries), so they are never used on the of_process path.
// Plain C++ (no CUDA types). Get the State of a context with `ctx->cuda` (core/context.hpp).
#ifndef OFLOW_CUDA_CUDA_BENCH_HPP
#define OFLOW_CUDA_CUDA_BENCH_HPP

#include "cuda/cuda_backend.hpp"

namespace oflow {
namespace cuda {
namespace hooks {

enum class Stage {
    BlurH,
    BlurV,
    Resample,
    Warp,
    Upsample,
    Iterate,
    Blur,
    HsPrepare,
    HsTensor,
    HsSolve,
    LkGradient,
    LkTensor,
    LkConfidence,
    LkStep,
    CensusTvl1,
    CensusTensor,
    LkCensus
};

/// One stage on host planes (packed rows: pitch = width). Sizes must fit the context's maximum.
///  BlurH, BlurV: in[0] (w x h) -> out[0] (w x h), Gaussian make_gaussian(sigma)
///  Blur:         in[0] (w x h) -> out[0] (w x h), both passes fused (launch_blur, the frame path's)
///  Resample:     in[0] (w x h) -> out[0] (w2 x h2)
///  Warp:         in = I0, I1, I1x, I1y, u1, u2 -> out = I1wx, I1wy, |g|^2, rho_c as the
///                iterations will read them (F16: g rounded to half, |g|^2 formed from it). The
///                kernel takes I1's gradient itself (gradient_ref's), so I1x, I1y (in[2..3]) are
///                not read; an F16 context stores I0 and I1 rounded to half (its pyramids)
///  Upsample:     in = u1, u2 (w x h) -> out = mx * u1, my * u2 upsampled to w2 x h2
///  Iterate:      in = u1, u2, I1wx, I1wy, |g|^2, rho_c; p starts at 0; runs `iterations` of
///                the context's variant (epsilon as given, stop slot 0) -> out = u1, u2, p11,
///                p12, p21, p22, and the I1wx, I1wy the kernels read (F16: rounded);
///                iterations_run = what epsilon let run.
/// HS / CLG contexts (the steps of one warp of cuda/hs_frame.cu at level 0, from in = I0, I1,
/// u1, u2):
///  HsPrepare:    out = I1w, Ix, Iy, It (the warp and the cube derivatives)
///  HsTensor:     out = the five smoothed tensor channels j11, j12, j13, j22, j23 (CLG, rho > 0)
///  HsSolve:      `iterations` of the context's solver and variant from du = 0 (epsilon as
///                given, stop slot 0) -> out = du, dv; iterations_run as for Iterate.
/// LK contexts (the level steps of cuda/lk_frame.cu at level 0, from in[0] = I0 and, for LkStep,
/// in[1] = I1, in[2], in[3] = u1, u2; the context's window and min_eigen):
///  LkGradient:   out = gx, gy as the later stages read them (F16: rounded to half)
///  LkTensor:     out = the tensor's window sums g11, g12, g22 (G)
///  LkConfidence: out[0] = the confidence, out[1] = the state (1 valid, 0 not), out[2..4] = what
///                the context's steps read: G (GLOBAL) or the F32 coefficients k11, k12, k22 of
///                -G^-1 (FUSED, MULTI_ITER; 0 where not valid or det <= 0)
///  LkStep:       the setup, then up to `iterations` Newton steps of the context's variant
///                (epsilon as given, stop slot 0) -> out[0..1] = u1, u2, out[2] = the state,
///                out[3..4] = the window sums (X, Y) the last step that ran a pixel used there
///                (0 where no step ran); iterations_run = the steps the level ran (the
///                level ends when no pixel is active).
/// OF_ROBUST_CENSUS contexts (one level's census at level 0, from in = I0, I1, u1, u2; the pair's
/// scalars computed on the device first, as a frame does: rms0 and eta come back):
///  CensusTvl1:   (TV-L1) the warp and the census channels -> out[0] = I1w, out[1..2] = the warped
///                gradient (I1wx, I1wy), out[3..4] = the major channel (ax, ay), out[5] = its |a|^2,
///                out[6] = its rho_c, out[7..8] = the minor channel's q and rho_c
///  CensusTensor: (HS / CLG) the warp and the census tensor -> out[0] = I1w, out[1..5] = j11, j12,
///                j13, j22, j23 before CLG's smoothing
///  LkCensus:     (LK) up to `iterations` census Newton steps of the level from (u1, u2)
///                (lk_census_cuda.cuh; epsilon as given, stop slot 0) -> out[0..1] = u1, u2,
///                out[2] = the state, out[3] = the confidence (from the first step's G),
///                out[4..5] = the window sums (X, Y) of the last step that ran, at every pixel
///                (when iterations_run is 0 they are not the sums: no step ran),
///                out[6] = I1w of the last warp (each step's; steps past the level's end still
///                warp, at the final flow); iterations_run = the steps the level ran
struct StageRun {
    Stage stage;
    int w, h;
    int w2, h2;
    float sigma;
    float mx, my;
    int iterations;
    float epsilon;
    const float* in[6];
    float* out[9];
    int iterations_run;
    double rms0[2]; // census stages: each frame's level-0 RMS gradient (Ctrl::census_rms0)
    float eta[2];   // census stages: each frame's eta at the level (Ctrl::census_eta)
};
of_status run_stage(State* st, StageRun* r, const ErrorSink& err);

/// Inner-loop benchmark: the context must have format F32. Uploads the frames (w x h, packed,
/// 0..255), builds level 0 (presmooth), the gradient and the warp constants at u = 0, p = 0
/// (HS / CLG: the warp, derivatives, tensor and coefficients at u = 0, du = 0; LK: the level's
/// setup, gradient, tensor and confidence, at u = 0; LK's timed iterations are Newton steps,
/// each with its count of active pixels as in frames).
of_status bench_prepare(State* st, const float* i0, const float* i1, int w, int h, const ErrorSink& err);
/// `runs` timings (CUDA events, ms) of `iterations` inner iterations each, epsilon 0, on the
/// prepared level (u and p carry over from run to run).
of_status bench_iterations(State* st, int iterations, int runs, float* ms, const ErrorSink& err);

/// The residual confidence's kernel alone (launch_confidence, cuda/confidence_cuda.cu) on the
/// planes a frame of w x h left (cuda_state.cuh conf_planes, with the flow in u[graph_ucur], or
/// u[0] without a graph; the values only move the bilinear reads), `runs` timings (CUDA events,
/// ms), `launches` launches each (LK: combined with its lambda plane, as frames do).
of_status bench_confidence(State* st, int w, int h, int launches, int runs, float* ms, const ErrorSink& err);

/// config.init OF_INIT_DIS's fusion kernels (cuda/init_fuse_cuda.cu, both of them, as a frame
/// enqueues them at the fused level) on planes the caller put in device memory, on the default
/// stream, waited for: i0, i1 a level's frames (F32, or F16 bits when half), u its flow and diff
/// a scratch plane (all w x h, pitch elements a row; u float2 pairs), dis DIS's level-0 flow
/// (float2 pairs, dis_w x dis_h, dis_pitch pairs a row). Writes diff = cost(u) - cost(d) and u = d
/// where the window sum is positive (core/ref/init_fuse_ref.cpp's init_* in sequence).
struct InitFuseRun {
    const void* i0;
    const void* i1;
    bool half;
    float* u;
    float* diff;
    const float* dis;
    int w, h, pitch;
    int dis_w, dis_h, dis_pitch;
};
of_status init_fuse(const InitFuseRun& r, const ErrorSink& err);

/// Traffic and arithmetic of one inner iteration per pixel for the context's variant, averaged
/// over `iterations` iterations split into launches as cuda_frame.cu splits them.
struct Model {
    double bytes;      // compulsory DRAM bytes per pixel per iteration (see cuda_bench.cu)
    double flops;      // useful floating-point operations per pixel per iteration
    double redundancy; // executed / useful pixel updates (halo recomputation), >= 1
};
Model model(const State* st, int w, int h, int iterations);

/// Whether the staging region could be page-locked at create (else host I/O copies are pageable).
bool staging_pinned(const State* st);

/// The launch shape the context runs: block, depth (1 unless MULTI_ITER), dynamic shared bytes.
void launch_shape(const State* st, int* bw, int* bh, int* depth, std::size_t* shared_bytes);

} // namespace hooks
} // namespace cuda
} // namespace oflow

#endif
