// The memory plan: one pure function from a validated config to every buffer the context
// needs, with its size, alignment and offset in the host (or device) block. of_query_memory
// sums it and of_create carves exactly it (zstd's estimate/initStatic pattern): the two can
// not disagree because both call make_plan().
//
// Invariants: every level-l plane of a frame smaller than the maximum fits in the level-l
// slot planned for the maximum (level sizes are monotone in the input size), so one arena
// serves every frame size up to the maximum.
#ifndef OFLOW_CORE_PLAN_HPP
#define OFLOW_CORE_PLAN_HPP

#include "oflow.h"

#include <cstddef>
#include <cstdint>

namespace oflow {

const int kMaxLevels = 16;
const std::size_t kHostAlign = 64;
const std::size_t kDeviceAlign = 256;
const int kPyramidMinSide = 16; // the automatic level count's smallest side (px), by default

/// Size of one pyramid level; pitch in elements (a multiple of 16 floats = 64 bytes).
struct LevelDims {
    int w, h;
    std::ptrdiff_t pitch;
};

/// Level count and sizes for a w x h frame. levels_cfg 0 = automatic: as many levels as keep
/// the coarsest side >= min_side px (at least 1; pyramid_min_side()). Sides shrink as
/// max(1, (int)(side*factor + 0.5)).
int pyramid_dims(int w, int h, int levels_cfg, float factor, LevelDims* dims, int min_side = kPyramidMinSide);

/// The automatic level count's smallest side under robust mode r: kPyramidMinSide, or
/// OF_ROBUST_CENSUS's kCensusMinSide (core/census.hpp).
int pyramid_min_side(of_robust r);

/// Pitch in floats of a host plane w floats wide: w rounded up to 16 (64 bytes).
std::ptrdiff_t host_pitch(int w);

/// The most CPU work planes an algorithm may ask for (core/algorithm.hpp: work_planes), and the
/// plan's slots for them (kBufWork0 ..).
const int kMaxWorkPlanes = 16;

/// Host buffers. The planes of the CPU path (level-0-sized unless noted) are the shared ones
/// below plus the algorithm's work planes (core/algorithm.hpp: kBufWork0 + i, i < its
/// work_planes(cfg); the other work slots are empty). A CUDA plan with a split
/// (PlanInputs::split_from > 0) carves them for the CPU's levels only: pyramids of levels
/// split_from.. (level_offset as for the whole pyramid, levels below split_from unused) and
/// planes the size of level split_from.
enum HostBuf : int {
    kBufContext = 0, // the of_context object itself
    kBufPyr0,        // pyramid of frame 0, all levels
    kBufPyr1,        // pyramid of frame 1, all levels
    kBufU1, kBufU2,  // flow at the current level
    kBufTmp,         // separable blur scratch
    kBufPrevU1, kBufPrevU2,           // flow of the coarser level (level-1-sized)
    kBufBandSums,                     // one 64-byte slot per thread band (reductions)
    kBufCudaState,                    // cuda::State (CUDA backend only)
    kBufStaging,                      // pinned upload/download staging (CUDA backend only)
    kBufTable,                        // platform::LoadedTable (only with config.tuning_path)
    kBufSplitFlow,                    // CUDA split: level split_from's flow, interleaved u1,u2 (else 0)
    kBufStreamFrame,                  // CPU backends: the stream's previous frame, packed rows (of_push_frame)
    kBufWarmU1, kBufWarmU2,           // where the CPU solves the warm level with config.warm_start: the
                                      // previous pair's flow there (core/stream.hpp)
    kBufExposureHist,                 // CPU paths with robust preprocessing: per thread band, two
                                      // kExposureBins histograms (core/robust.hpp), else 0
    kBufPickU1, kBufPickU2, kBufPickConf, // OF_ROBUST_PICK on the CPU path: the best candidate's flow
                                      // and confidence plane so far (level 0), else 0
    kBufPickN0, kBufPickN1,           // OF_ROBUST_PICK: both frames normalised as LOCAL_NORM, the
                                      // images the candidates are judged on, else 0
    kBufInitArena,                    // config.init OF_INIT_DIS (every backend): the DIS pass's own
                                      // context and host arena (PlanInputs::init_host_bytes), else 0
    kBufInitU1, kBufInitU2,           // OF_INIT_DIS, CPU paths: DIS's flow of the pair (level 0), else 0
                                      // (CUDA: cuda_layout.hpp DevLayout::init_flow)
    kBufInitD1, kBufInitD2,           // OF_INIT_DIS: that flow area-averaged to the fused level
                                      // (level-0-sized: the fused level may be level 0)
    kBufInitCost,                     // OF_INIT_DIS: the fused level's per-pixel cost difference
    kBufWork0,                        // the algorithm's work planes: kBufWork0 .. + kMaxWorkPlanes - 1
    kHostBufCount = kBufWork0 + kMaxWorkPlanes
};

struct BufferSpec {
    const char* name;
    std::size_t bytes;
    std::size_t align;
    std::size_t offset; // from the start of its block
};

/// What the plan needs besides the config: the resolved backend and the sizes that other
/// parts own (the context object, the CUDA path's state, staging and device arena).
struct PlanInputs {
    of_backend backend;            // resolved: REFERENCE, NEON or CUDA (never AUTO)
    std::size_t context_bytes;     // sizeof(of_context)
    std::size_t cuda_state_bytes;  // cuda::Need, zero unless CUDA
    std::size_t pinned_bytes;
    std::size_t device_bytes;
    std::size_t table_bytes;       // sizeof(platform::LoadedTable) with config.tuning_path, else 0
    int split_from;                // CUDA only: levels >= split_from run on the CPU (0 = none; 1..levels-1)
    std::size_t init_host_bytes;   // config.init OF_INIT_DIS: the DIS pass's host arena (its plan's
                                   // host_bytes, core/init_dis.hpp), else 0
};

struct Plan {
    of_backend backend;               // resolved backend the plan is for
    int split_from;                   // CUDA: levels >= split_from run on the CPU path (0 = none);
                                      // CPU backends: 0
    int levels;                       // at the maximum size
    LevelDims dims[kMaxLevels];       // at the maximum size
    std::size_t level_offset[kMaxLevels]; // of level l inside a pyramid buffer
    BufferSpec host[kHostBufCount];
    std::size_t host_bytes;   // total, including alignment padding of the block start
    std::size_t stream_host_bytes; // of host_bytes: kBufStreamFrame + kBufWarmU1/U2 (of_info)
    std::size_t device_bytes; // device arena (CUDA only)
};

/// What host buffer id (a HostBuf) holds, for of_explain_buffers: a static string.
const char* host_buffer_holds(int id);

/// Builds the plan for a validated config (its algorithm registered: core/algorithm.hpp). The
/// CPU planes are planned for the CPU backends only; the CUDA backend keeps its planes in the
/// device arena. Returns OF_ERR_OVERFLOW when a size does not fit in size_t,
/// OF_ERR_INVALID_ARGUMENT for a split outside the pyramid or an unregistered algorithm.
of_status make_plan(const of_config& cfg, const PlanInputs& in, Plan* plan);

} // namespace oflow

#endif
