// Internal hooks into a DIS CUDA context for tests/gpu/gpu_dis.cpp: one stage of
// cuda/dis_frame.cu at level 0 on host planes (packed rows). Not part of the C ABI; these calls
// synchronise, so they are never used on the of_process path. Plain C++ (no CUDA types).
#ifndef OFLOW_CUDA_DIS_HOOKS_HPP
#define OFLOW_CUDA_DIS_HOOKS_HPP

#include "cuda/cuda_backend.hpp"

namespace oflow {
namespace cuda {
namespace hooks {

enum class DisStage {
    Gradient,  // out[0..1] = gx, gy as the later stages read them (F16: rounded to half)
    Sums,      // gradient, then out[0..4] = the patch sums Sxx, Sxy, Syy, Sx, Sy (nx x ny)
    Init,      // out[0..1] = the starts (nx x ny) from u1, u2
    Round,     // gradient, sums, then one round of the context's variant: first (from u1, u2 at the
               // patch centres) or not (propagation from sx, sy, err), `iterations` steps; out[0..3] =
               // flow x, flow y, mean d, E (nx x ny)
    Propagate, // GLOBAL's propagation alone from sx, sy and their E err: out[0..1] (nx x ny)
    Densify,   // from sx, sy, md: out[0..1] = u1, u2 (w x h)
    Refine     // the tensor at the increment du, dv (w x h) of frame 1 warped = i1, flow u1, u2:
               // out[0..4] = J11, J12, J13, J22, J23 (F16: the increment read as half)
};

struct DisStageRun {
    DisStage stage;
    int w, h;
    const float* i0;
    const float* i1;
    const float* u1;
    const float* u2;
    const float* sx; // sparse inputs, nx x ny packed
    const float* sy;
    const float* md;
    const float* err; // sparse: E at (sx, sy) (Propagate, Round not first)
    const float* du;
    const float* dv;
    int iterations;
    bool first;
    float* out[5];
};
of_status run_dis_stage(State* st, DisStageRun* r, const ErrorSink& err);

} // namespace hooks
} // namespace cuda
} // namespace oflow

#endif
