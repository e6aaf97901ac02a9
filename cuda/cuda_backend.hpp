// The CUDA path as the core sees it: plain C++, no CUDA types, so core/ compiles without the
// toolkit. Implemented in cuda/*.cu (+ host launchers); only built when OF_HAVE_CUDA.
//
// Contract:
//  - plan() is pure (apart from reading the device's properties) and is what of_query_memory
//    reports and create() uses: device arena bytes, pinned staging bytes (carved from the host
//    arena and page-locked with cudaHostRegister at create), and the bytes of State.
//  - create() does every allocation and set-up of the path (device arena unless the caller
//    gave one, stream unless the caller gave one, kernel loading/warm-up), so the first
//    process() is as fast as the second.
//  - process() runs the whole frame on the device (upload, pyramid, warps, iterations,
//    upsampling, download) on the context's stream: no allocation, no synchronisation except
//    (a) when the output flow is in host memory, one wait per row band of its download through
//    the staging (kFlowChunks bands: each band's copy into the caller's planes overlaps the next
//    band's download), then one at the end (output in registered buffers, of_register_host: the
//    end's only, the flow goes there by DMA), and (b) one wait after the finiteness check of F32
//    frames that are in device memory. Host frames in registered buffers are uploaded by DMA
//    straight from them (no staging copy). Device-memory output returns
//    at once; the flow is complete when the stream reaches that point.
//    Mapped-memory output (OF_MEMORY_CUDA_MAPPED) is host memory: it gets the end-of-frame
//    wait like host output. Host frames are staged through the pinned slot; a host frame
//    arriving while the previous frame's upload out of that slot is still in flight (only
//    after a device-output frame) waits for that upload first.
//  - Split frames (CpuLevels::from > 0, the board table's per-level crossover): the GPU builds
//    both pyramids, levels from.. of them go down to the host (cudaMemcpy2DAsync into the
//    core's host pyramids), the stream is waited for once, CpuLevels::solve runs those levels
//    on the CPU path, and level `from`'s flow goes up once; the GPU does levels from-1..0. Such
//    a frame is not a captured graph. Frames whose pyramid has no level `from` run all on the GPU.
//  - Exposure-robust stages (core/robust.hpp): the local normalisation, the median filter and
//    the sanity bound run on the device like the CPU path's. The texture rule's coarsest level
//    is decided on the device per frame (no wait): levels above it still run there and their
//    flow is zeroed at their end, which gives the CPU path's result (it starts from zero at
//    that level). A split frame hands the level to the CPU solve after its one wait.
//  - Iteration counts: exact whenever the frame ends with a wait (host or mapped output);
//    with device output the scheduled count (levels x warps x iterations), exact for
//    epsilon == 0. Epsilon stops a warp on the device: per iteration for GLOBAL and FUSED,
//    per launch (fused_depth iterations) for MULTI_ITER.
//  - Every CUDA error becomes OF_ERR_DEVICE with cudaGetErrorString's text in err; never an
//    abort. destroy() is safe after any failure of create().
#ifndef OFLOW_CUDA_CUDA_BACKEND_HPP
#define OFLOW_CUDA_CUDA_BACKEND_HPP

#include "core/status.hpp"
#include "cuda/cuda_layout.hpp"
#include "oflow.h"

#include <cstddef>
#include <cstdint>

namespace oflow {
namespace cuda {

/// True when a CUDA device is present and this build has code for its architecture; otherwise
/// false with the reason in why (e.g. "no CUDA device: cudaErrorNoDevice").
bool available(char* why, std::size_t why_len);

/// Free and total memory of the current device (cudaMemGetInfo); false on a CUDA error.
bool memory_info(std::size_t* free_bytes, std::size_t* total_bytes);

/// Compute capability (major * 10 + minor) and multiprocessor count of the current device;
/// false when there is none.
bool device_caps(int* cc, int* sm_count);

struct Need {
    std::size_t device_bytes; // device arena (256-byte aligned planes)
    std::size_t pinned_bytes; // host staging, page-locked at create
    std::size_t state_bytes;  // sizeof(State), placed in the host arena
    std::size_t stream_bytes; // of device_bytes: what a stream keeps (the uploaded-frame slot that holds the
                              // previous frame, and the warm flow)
    // Every buffer (layout_rows): of the device arena, and of the pinned staging (of_explain_buffers).
    LayoutRow device_rows[kMaxLayoutRows];
    int device_count;
    LayoutRow pinned_rows[kMaxLayoutRows];
    int pinned_count;
};

/// What the CUDA path needs for a validated cfg whose backend resolved to CUDA; defaults (may be
/// NULL) are the board table's launch defaults (cuda_layout.hpp LaunchDefaults). Pure: it does
/// not touch the device, so it also serves of_explain on machines without one.
of_status plan(const of_config& cfg, const LaunchDefaults* defaults, Need* need, const ErrorSink& err);

struct State;

/// The CPU side of a split frame (levels >= from on the CPU path), as the core sets it up:
/// where the coarse pyramid levels go and the call that solves them.
struct CpuLevels {
    int from;                           // first level on the CPU; 0 = no split
    float* pyr[2];                      // host pyramids of both frames (plan kBufPyr0/kBufPyr1)
    std::size_t level_off[kMaxLevels];  // byte offset of level l >= from in them; rows host_pitch(w) floats
    const float* flow_xy;               // level from's flow after solve(): (u1, u2) pairs, rows of 2w floats
    /// Solves levels [from, levels) of a w x h frame from the host pyramids, writes flow_xy, adds
    /// its inner iterations to *iterations; a status with the message in the core's error.
    of_status (*solve)(void* user, int w, int h, int top, std::uint64_t* iterations); // top: coarsest level to solve
    /// Runs fn(arg, y0, y1) over the rows [0, n) on the core's thread pool (config.threads; set for
    /// every context, split or not): host output's copies out of the staging. May be null (one
    /// thread, here).
    void (*rows)(void* user, int n, void (*fn)(void* arg, int y0, int y1), void* arg);
    void* user;
};

/// Constructs State in state_slot (need.state_bytes, 64-byte aligned) using pinned_slot
/// (need.pinned_bytes, 64-byte aligned) as staging; cfg and defaults as given to plan(); cpu
/// (copied) says which levels run on the CPU, from 0 for none. init_device_bytes: with
/// config.init OF_INIT_DIS, the DIS pass's device bytes (its plan's), which the device arena holds
/// after the path's own from init_child_offset(need.device_bytes) on (a caller's device_arena_size
/// must hold both; an arena create allocates is that size); 0 otherwise. *out
/// is set even on failure when the state was constructed, so the caller can destroy() it.
of_status create(void* state_slot, void* pinned_slot, const of_config& cfg, const LaunchDefaults* defaults,
                 const CpuLevels& cpu, std::size_t init_device_bytes, const ErrorSink& err, State** out);

/// config.init OF_INIT_DIS (cuda/init_dis_cuda.cu). The DIS pass is a context of its own (core/
/// init_dis.hpp) created by the core after the parent's create(): on the parent's stream
/// (stream_handle, as config.cuda_stream) with the parent's arena from init_child_offset on as its
/// device_arena (init_device_arena); attach_init then makes the parent's process() and push() run
/// it on each pair's device frames before the solve (its flow into DevLayout::init_flow, on the
/// stream: no wait, no allocation). The child must be destroyed before the parent.
void* init_device_arena(State* parent); // null without init_device_bytes
void* stream_handle(State* st);         // the context's cudaStream_t
void attach_init(State* parent, State* child);

/// One frame pair; arguments already validated by the API (sizes, strides, memory kinds).
/// Writes the number of inner iterations run (of the levels at or below *coarsest), the levels
/// used and the coarsest level solved (config.min_texture's texture rule). The texture rule is
/// decided on the device: with device output (no wait) *coarsest is levels - 1 unless the
/// frame was split (the split's wait brings it back), and the count then includes every level.
of_status process(State* st, const of_image& prev, const of_image& next, const of_flow& out,
                  const ErrorSink& err, uint64_t* iterations, int* levels, int* coarsest);

/// HS and CLG (config.algorithm OF_ALGO_HS / OF_ALGO_CLG): plan() and create() of their CUDA path
/// (hs_cuda.cuh), with the same contracts; process() and destroy() are shared, and so is
/// resolve_tuning's contract (hs_resolve_tuning, cuda_layout.hpp).
of_status hs_plan(const of_config& cfg, const LaunchDefaults* defaults, Need* need, const ErrorSink& err);
of_status hs_create(void* state_slot, void* pinned_slot, const of_config& cfg, const LaunchDefaults* defaults,
                    const CpuLevels& cpu, std::size_t init_device_bytes, const ErrorSink& err, State** out);

/// Lucas-Kanade (config.algorithm OF_ALGO_LK): plan() and create() of its CUDA path (lk_cuda.cuh),
/// with the same contracts; process() and destroy() are shared, and so is resolve_tuning's
/// contract (lk_resolve_tuning, cuda_layout.hpp). process() writes the validity plane (the
/// residual confidence combined with its rejection rule, core/confidence.hpp) with the waits
/// above: none more.
of_status lk_plan(const of_config& cfg, const LaunchDefaults* defaults, Need* need, const ErrorSink& err);
of_status lk_create(void* state_slot, void* pinned_slot, const of_config& cfg, const LaunchDefaults* defaults,
                    const CpuLevels& cpu, std::size_t init_device_bytes, const ErrorSink& err, State** out);

/// Dense Inverse Search (config.algorithm OF_ALGO_DIS): plan() and create() of its CUDA path
/// (dis_cuda.cuh), with the same contracts; process() and destroy() are shared, and so is
/// resolve_tuning's contract (dis_resolve_tuning, cuda_layout.hpp).
of_status dis_plan(const of_config& cfg, const LaunchDefaults* defaults, Need* need, const ErrorSink& err);
of_status dis_create(void* state_slot, void* pinned_slot, const of_config& cfg, const LaunchDefaults* defaults,
                     const CpuLevels& cpu, std::size_t init_device_bytes, const ErrorSink& err, State** out);

/// One frame of a stream (of_push_frame, core/stream.hpp). The frame is copied into the upload
/// slot that does not hold the kept frame (host frames through the staging, device and mapped
/// frames by a device copy), so the caller's buffer is free when the call returns. With
/// step->pair the pair (kept frame, this frame) then runs exactly as process() would run it on
/// the two frames, and out receives the flow; without it nothing else happens (OF_PENDING is the
/// core's). On success the slots swap roles; on failure the kept frame stays the kept one.
/// Warm start (config.warm_start): step->warm_ready says the device's warm plane holds the
/// previous pair's flow of the warm level; the device decides per frame whether to start from
/// it (no host wait), and keeps this pair's.
struct StreamStep {
    bool pair;       // in: the frame makes a pair with the kept frame
    bool warm_ready; // in: the warm plane holds the previous pair's flow (warm_start only)
    int warm_taken;  // out: 1 warm, 0 cold, 2 decided on the device without a wait (device output)
    bool warm_kept;  // out: the warm plane now holds this pair's flow
};
of_status push(State* st, const of_image& frame, const of_flow* out, StreamStep* step, const ErrorSink& err,
               uint64_t* iterations, int* levels, int* coarsest);

/// OF_ROBUST_PICK: the candidate mode the last frame of process() or push() kept (of_info.last_pick),
/// or OF_ROBUST_PICK when the host does not know it (device output: the choice stays on the
/// device, nothing waits for it).
of_robust last_pick(const State* st);

/// of_register_host / of_unregister_host (api/oflow.h): page-locks the caller's buffer
/// (cudaHostRegister) and records it; frames and flow planes wholly inside a recorded buffer go
/// by DMA straight from / to it. destroy() unregisters what is left.
of_status register_host(State* st, void* p, std::size_t bytes, const ErrorSink& err);
of_status unregister_host(State* st, const void* p, const ErrorSink& err);

/// Releases what create() took; NULL-safe.
void destroy(State* st);

/// The variant and precision actually run, for of_get_info: e.g. "cuda-global-f32".
const char* variant_name(const State* st);
of_precision precision(const State* st);

} // namespace cuda
} // namespace oflow

#endif
