// Camera streams (of_push_frame, of_reset): one frame per call, the flow from the frame pushed
// before it. What a stream keeps between calls:
//  - the previous frame's pixels as given (format, packed rows): in the host arena on the CPU
//    backends (kBufStreamFrame), in one of the device arena's two upload slots on the CUDA path
//    (DevLayout::raw; the new frame goes to the other, and the slots swap roles). A pair is then
//    the same computation as of_process on the two frames, bit for bit. Not the previous
//    pyramid: the exposure range match (core/robust.hpp) clamps both frames of a pair by ranges
//    chosen from both, so a frame's pyramid depends on its partner.
//  - with config.warm_start, the pair's flow at the warm level (core/schedule.hpp warm_level):
//    the next pair starts that level from it instead of the coarser level's upsampled flow (the
//    cold start) where it explains the new pair better: its mean absolute residual
//    |I1(x + u) - I0(x)| on the level's preprocessed images (bilinear I1, coordinates clamped
//    to the frame) is below the cold start's. A scene cut or a motion that changed leaves the
//    old flow with the larger residual, so the pair starts cold. Only flow is carried: each
//    pair's frames are preprocessed on their own, so an exposure change cannot accumulate.
// of_process ends a stream (its frames would overwrite the CUDA upload slots) and of_reset
// forgets it; both drop the warm flow.
#ifndef OFLOW_CORE_STREAM_HPP
#define OFLOW_CORE_STREAM_HPP

#include "core/plane.hpp"
#include "core/status.hpp"
#include "oflow.h"

#include <cstdint>

struct of_context;

namespace oflow {

struct Frame;

struct StreamState {
    std::uint64_t frames; // frames accepted since create / reset / of_process; 0: no stream
    std::uint32_t w, h;   // size of the kept frame
    bool warm_cpu;        // kBufWarmU1/U2 hold the previous pair's flow of the warm level
    bool kept_cpu;        // the pair running now stored its flow there (warm_keep_cpu)
    bool warm_gpu;        // the device's warm plane does (cuda::StreamStep)
    bool warm_active;     // during a pushed pair with config.warm_start: the drivers choose and keep
    std::uint32_t last_warm; // of_info.last_warm of the last pair
};

/// Forgets the stream (of_reset, of_process, a failed frame that left the kept frame unknown).
void stream_forget(of_context* ctx);

/// of_push_frame after the API's checks of `frame` (and of *out when the frame makes a pair:
/// `out` is null when it does not: the first frame, or a new size).
of_status context_push(of_context* ctx, const of_image& frame, const of_flow* out);

/// The CPU driver's warm start at level l of frame f (core/flow_driver.cpp solve_levels), u1/u2
/// holding the cold start: replaces them by the kept flow where the check above prefers it.
/// Does nothing unless a pushed pair with warm_start runs and the CPU kept a flow.
void warm_enter_cpu(const Frame& f, int l, Plane u1, Plane u2);

/// Keeps level l's solved flow for the next pair (a pushed pair with warm_start only).
void warm_keep_cpu(const Frame& f, int l, Plane u1, Plane u2);

/// Mean absolute residual |I1(x + u) - I0(x)| over the level (bilinear I1, coordinates clamped
/// to the plane), summed in row order in double on one thread: the same value at any thread
/// count. Exposed for the tests.
double warm_residual(Plane i0, Plane i1, Plane u1, Plane u2);

} // namespace oflow

#endif
