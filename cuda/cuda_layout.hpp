// The CUDA path's sizing: kernel variant and launch shape resolved from the config (Tuning),
// and every device buffer and pinned staging region with its offset (DevLayout). One pure
// function each, called by plan() (what of_query_memory reports) and by create() (what is
// carved), so the two cannot disagree. Plain C++: no CUDA types.
#ifndef OFLOW_CUDA_CUDA_LAYOUT_HPP
#define OFLOW_CUDA_CUDA_LAYOUT_HPP

#include "core/plan.hpp"
#include "core/robust.hpp"
#include "core/status.hpp"
#include "oflow.h"

#include <cstddef>

namespace oflow {
namespace cuda {

const int kMaxWarps = 100; // config_check's upper bound on warps
const int kStopSlots = kMaxLevels * kMaxWarps;
/// Iteration launches per frame (levels x warps x launches per warp, at the maximum size) above
/// which create() captures no solver graph: each frame then enqueues its launches (a few us of
/// host time each). Capturing 100000 iterations x 100 warps took minutes inside of_create.
const long long kGraphMaxLaunches = 20000;
/// The warm-up frame's schedule: at most this many warps, and this many launches per warp (it
/// loads and runs every kernel once; the configured length adds nothing to that).
const int kWarmUpWarps = 2;
const int kWarmUpLaunches = 4;
const int kNotStopped = 0x7f7f7f7f; // a stop slot filled with the byte 0x7f: "ran to the end"
/// Ints of the pinned stage_ctrl region (DevLayout) after the stop slots.
const int kStageNonfinite = kStopSlots;
const int kStageTop = kStopSlots + 1;
const int kStageWarm = kStopSlots + 2; // Ctrl::warm_taken
/// OF_ROBUST_PICK: ints per candidate of DevLayout::pick_stop / stage_pick (its stop slots, then
/// its coarsest level Ctrl::top).
const int kPickStopInts = kStopSlots + 1;
/// Row bands of a host-output flow download through the staging: each band's copy out of the
/// staging overlaps the next band's download (cuda_backend.cu process_frame).
const int kFlowChunks = 8;
/// Blocks of the warm start's residual reduction (fixed: the sums, so the choice, do not depend
/// on the device).
const int kWarmBlocks = 128;
/// Blocks per level of the texture-energy reduction (robust_cuda.cu): block b sums rows
/// b, b + kTexBlocks, ... of its level into Ctrl::tex[level * kTexBlocks + b].
const int kTexBlocks = 64;

/// Dynamic shared memory a block may use on every supported board (Nano/TX2: 48 KB per block),
/// leaving room for the kernels' static shared memory (reductions).
const std::size_t kMaxDynamicShared = 48 * 1024 - 1024;

/// Thread blocks of the fixed-shape kernels: kPlaneBlockX x kPlaneBlockY for one thread per
/// pixel (conversion, pyramid, warp, robust stages, output, the ping-pong repair), and
/// kReduceThreads for the histogram and texture reductions; each such kernel is declared with
/// __launch_bounds__ of that many threads. The Jetson resource check
/// (tests/tools/jetson_resources.cpp) reads the same constants.
const int kPlaneBlockX = 32, kPlaneBlockY = 8;
const int kReduceThreads = 256;

/// MULTI_ITER launch shape (tvl1_multi_cuda.cu): 32 lanes = 32 columns, kMultiRows* rows per
/// thread, block_height warps (at most kMultiMaxWarps). F32 (H200, 2048^2, 8 warps, 128
/// registers): 8 rows 2.73x GLOBAL F32, 6 rows 2.48x, 4 rows 2.23x. F16x2 (two pixels per lane,
/// 64-column regions; H200, 4096^2, 8 warps, 128 registers): 6 rows depth 7 5.34x, depth 5
/// 5.18x; 4 rows depth 4 4.76x; 8 rows depth 6 3.90x (spills); 16 warps x 4 rows depth 5 4.03x.
/// Depth is the most iterations per launch: a level's iterations are spread evenly over the
/// fewest launches (cuda_frame.cu).
const int kMultiRowsF32 = 8;
const int kMultiRowsF16 = 6;
const int kMultiDepthF32 = 4;
const int kMultiDepthF16 = 7;
inline int multi_region_w(of_precision p) { return p == OF_PRECISION_F16 ? 64 : 32; }
const int kMultiMaxWarps = 8;     // F32: 256 threads
const int kMultiMaxWarpsF16 = 16; // F16x2: 512 threads
inline int multi_rows(of_precision p) { return p == OF_PRECISION_F16 ? kMultiRowsF16 : kMultiRowsF32; }
inline int multi_max_warps(of_precision p) { return p == OF_PRECISION_F16 ? kMultiMaxWarpsF16 : kMultiMaxWarps; }

/// Launch bound of the MULTI_ITER kernels: each rows count is compiled once per bound B in
/// {128, 256, 512} threads (F32: 128 and 256), as __launch_bounds__(B, F32 ? 2 : 1); a context
/// uses one (Tuning::bound), which must hold its block. ptxas gives each thread
/// min(255, 65536 / (B x min blocks), registers per block / B) registers:
///
///   bound  F32 (min 2 blocks)   F16x2 (min 1 block)    registers per thread
///   128    255                  255                    every board
///   256    128                  255 (Nano/TX2: 128)    32768 registers per block on Nano/TX2
///   512    -                    128 (Nano/TX2: 64)
///
/// Compiled (docs/jetson-resources.md): F32 8 rows needs about 160-210 registers; F16x2 4 rows
/// about 155, 6 rows 237, 8 rows 255. So a small bound buys registers instead of spilling, and
/// costs occupancy. On an H100 occupancy wins (4096^2, ratio to GLOBAL F32, docs/cuda-
/// performance.md: F16x2 6 rows 32x8 depth 7 7.43x at 512 (128 registers) vs 5.31x at 256 (231);
/// F32 32x4 depth 6 3.12x at 256 (40-byte spill) vs 2.33x at 128), so the default is the widest bound, F32 256 and
/// F16x2 512 (multi_default_bound); the Jetson tables name smaller ones per <launch> row
/// (`bound`) so that nothing they select spills (tests/tools/jetson_resources.cpp checks it).
inline int multi_default_bound(of_precision p) { return p == OF_PRECISION_F16 ? 512 : 256; }
/// A bound the kernels are compiled for, holding `threads` threads.
inline bool multi_bound_ok(of_precision p, int bound, int threads) {
    return (bound == 128 || bound == 256 || (bound == 512 && p == OF_PRECISION_F16)) && threads <= bound;
}
/// The bound a block of `threads` threads runs with: a table row's `bound` (0: none) where it
/// holds the block, else multi_default_bound. resolve_tuning and the Jetson resource check
/// (tests/tools/jetson_resources.cpp) both call it.
inline int multi_bound_for(of_precision p, int row_bound, int threads) {
    return row_bound && multi_bound_ok(p, row_bound, threads) ? row_bound : multi_default_bound(p);
}

/// OF_ROBUST_CENSUS's reductions (census_stats_cuda.cu): kCensusBlocks blocks of kReduceThreads
/// threads per frame, thread t of block b owning rows b * kReduceThreads + t + k * kCensusBlocks *
/// kReduceThreads (k = 0, 1, ...), each row summed alone from left to right as the reference sums
/// it; the rows' sums are added in a fixed order (block_sum_fixed, then the blocks in order): the
/// result does not depend on the device.
const int kCensusBlocks = 16;

/// Device-side control block (at DevLayout::ctrl).
struct Ctrl {
    unsigned int counter; // blocks done in the current reduction; back to 0 after each launch
    int nonfinite;        // set to 1 by the finiteness check
    int pad[62];          // stop[] on its own 256-byte line
    int stop[kStopSlots]; // per (level, warp): launch after which epsilon stopped the warp
    int top;              // coarsest level to solve (texture rule, core/robust.hpp); written per
                          // frame by launch_texture_top, read by launch_finish_level, only when
                          // the rule is on (SolveInfo::top < 0)
    double tex[kMaxLevels * kTexBlocks]; // per-(level, block) partial texture energies
    // Exposure range matching (core/robust.hpp; every robust mode but NONE), per frame in
    // solve(): histograms of both converted frames (frame f's at f * kExposureBins; zeroed
    // by a memset before the histogram launch), then the match the one-thread kernel chose,
    // read by the clamp kernel.
    unsigned int exposure_hist[2 * kExposureBins];
    ExposureMatch exposure;
    // Warm start (config.warm_start, core/stream.hpp): set by the host before each frame (nonzero:
    // the warm plane holds the previous pair's flow of the warm level); the residual partial sums
    // of the cold and the warm start (kWarmBlocks each); the choice (1 warm, 0 cold).
    int warm_ready;
    int warm_taken;
    double warm_part[2 * kWarmBlocks];
    // OF_ROBUST_PICK (robust_pick_cuda.cu; outside the per-solve memset, like the rest from
    // stop on): the judge's partial sums of the candidate just solved, the lowest judge so far,
    // whether the last candidate was taken, the index (pick_candidates) kept and its coarsest
    // level (Ctrl::top when it was taken).
    double pick_part[kWarmBlocks];
    double pick_best;
    int pick_take;
    int pick_kept;
    int pick_top;
    // OF_ROBUST_CENSUS (core/census.hpp, census_stats_cuda.cu; outside the per-solve memset, each
    // written before it is read): the reductions' per-block partial sums (frame f's at
    // f * kCensusBlocks), each frame's level-0 RMS gradient (once per pair, Frame::census_rms0 on
    // the CPU) and each frame's eta at the level being solved (written at the level's start).
    double census_part[2 * kCensusBlocks];
    double census_rms0[2];
    float census_eta[2];
};

/// Dynamic shared memory of a FUSED block of bw x bh threads: new u on the tile plus its right
/// and bottom halo (float2), p1 and p2 on the tile plus a halo of 1 on every side (T2).
inline std::size_t fused_shared_bytes(of_precision p, int bw, int bh) {
    const std::size_t pair = p == OF_PRECISION_F16 ? 4u : 8u; // sizeof(T2)
    const std::size_t w = static_cast<std::size_t>(bw), h = static_cast<std::size_t>(bh);
    return (w + 1) * (h + 1) * 8 + 2 * (w + 2) * (h + 2) * pair;
}

/// Variant and launch shape of the inner iterations.
struct Tuning {
    of_variant variant;       // GLOBAL, FUSED or MULTI_ITER (never AUTO)
    of_precision precision;   // F32 or F16 (never AUTO)
    int bw, bh;               // thread block of the iteration kernels
    int depth;                // iterations per launch: fused_depth for MULTI_ITER, else 1
    int rows;                 // MULTI_ITER rows per thread (F32: 8; F16x2: 4, 6 or 8), else 1
    int bound;                // MULTI_ITER launch bound (128, 256 or 512; see multi_default_bound), else 0
    int tile_w, tile_h;       // output pixels per block (MULTI_ITER: 32 - 2 depth, bh*rows - 2 depth)
    int region_w, region_h;   // pixels a block computes (tile + halo), for the redundancy model
    std::size_t shared_bytes; // dynamic shared memory per block of the iteration kernel
};

/// Launch defaults a board table gives (platform::select_launch for the size bucket of the
/// maximum frame, core/select.cpp): they fill what the config leaves open (variant AUTO,
/// block_width / block_height / fused_depth 0). has == false: no table row applies, and the
/// built-in defaults hold.
struct LaunchDefaults {
    bool has;
    of_variant variant; // GLOBAL, FUSED or MULTI_ITER
    int bw, bh;         // thread block
    int rows;           // MULTI_ITER rows per thread (F32 8; F16x2 4, 6 or 8); else 1
    int depth;          // MULTI_ITER iterations per launch; else 1
    int bound;          // MULTI_ITER launch bound the row names; 0 = multi_default_bound
};

/// The launch shape before resolve_tuning's checks: each of variant, block, depth and rows from
/// the config where it sets one, else from the table's defaults (when they are for the variant
/// the config asks for), else built in (AUTO -> MULTI_ITER; blocks 32x8; MULTI_ITER F32 8 rows
/// depth 4, F16x2 6 rows depth 7). Precision F16 when the config says F16, else F32. Sets
/// variant, precision, bw, bh, depth and rows only; ignores OFLOW_CUDA_F16_ROWS. Plain inline
/// code, so core/ can show a launch shape (of_explain) in builds without CUDA.
inline void default_shape(const of_config& cfg, const LaunchDefaults* d, Tuning* t) {
    t->variant = cfg.variant != OF_VARIANT_AUTO ? cfg.variant : (d && d->has ? d->variant : OF_VARIANT_MULTI_ITER);
    t->precision = cfg.precision == OF_PRECISION_F16 ? OF_PRECISION_F16 : OF_PRECISION_F32;
    const bool table = d && d->has && d->variant == t->variant;
    const bool multi = t->variant == OF_VARIANT_MULTI_ITER;
    t->bw = cfg.block_width ? static_cast<int>(cfg.block_width) : (table ? d->bw : 32);
    t->bh = cfg.block_height ? static_cast<int>(cfg.block_height) : (table ? d->bh : 8);
    const int multi_depth = t->precision == OF_PRECISION_F16 ? kMultiDepthF16 : kMultiDepthF32;
    t->depth = !multi ? 1 : cfg.fused_depth ? static_cast<int>(cfg.fused_depth) : (table ? d->depth : multi_depth);
    t->rows = !multi ? 1 : table ? d->rows : multi_rows(t->precision);
}

/// The config TV-L1's CUDA iterations run: cfg itself, but under OF_ROBUST_CENSUS variant GLOBAL
/// and precision F32 whatever cfg asks (the census iteration is the GLOBAL F32 two-kernel one
/// with the minor channel, cuda/tvl1_global_cuda.cu; the CPU runs F32 under census too), so the
/// Tuning, and of_info's variant and precision, say what runs.
inline of_config tvl1_run_config(const of_config& cfg) {
    of_config c = cfg;
    if (c.robust == OF_ROBUST_CENSUS) {
        c.variant = OF_VARIANT_GLOBAL;
        c.precision = OF_PRECISION_F32;
    }
    return c;
}

/// default_shape of tvl1_run_config(cfg), then OFLOW_CUDA_F16_ROWS (4, 6 or 8: a tuning knob for oflow-bench and
/// oflow-tune, read at plan time; it wins over the table) and the checks of the launch shape
/// (threads, shared memory, depth vs block, MULTI_ITER rows), and the MULTI_ITER launch bound:
/// the table row's bound (a MULTI_ITER row) when it holds the block, whether the table or the
/// config set the block, else multi_default_bound; OFLOW_CUDA_MULTI_BOUND (128, 256 or 512,
/// holding the block) wins: a knob for oflow-bench, to time one shape at two bounds in one run.
/// defaults may be NULL.
of_status resolve_tuning(const of_config& cfg, const LaunchDefaults* defaults, Tuning* t, const ErrorSink& err);

/// "cuda-global-f32", "cuda-fused-f16x2", "cuda-multi-iter-f32", ...
inline const char* variant_label(of_variant v, of_precision p) {
    const bool h = p == OF_PRECISION_F16;
    switch (v) {
    case OF_VARIANT_GLOBAL: return h ? "cuda-global-f16x2" : "cuda-global-f32";
    case OF_VARIANT_FUSED: return h ? "cuda-fused-f16x2" : "cuda-fused-f32";
    case OF_VARIANT_MULTI_ITER:
    default: return h ? "cuda-multi-iter-f16x2" : "cuda-multi-iter-f32";
    }
}
inline const char* tuning_name(const Tuning& t) { return variant_label(t.variant, t.precision); }

/// Row pitch of every device plane of width w, in elements (of whatever type): a multiple of
/// 64, so rows of float, float2 and half2 planes all start 256-byte aligned.
std::ptrdiff_t dev_pitch(int w);

/// Level sizes of a w x h frame as the reference computes them (pyramid_dims), with device
/// pitches. Returns the level count.
int dev_pyramid_dims(int w, int h, const of_config& cfg, LevelDims* dims);

/// Offsets (bytes) in the device arena and in the pinned staging region. Work planes are
/// level-0 sized at the maximum frame size; a smaller frame or a coarser level uses the first
/// pitch*h elements of the same slot.
struct DevLayout {
    int levels;                      // at the maximum size
    LevelDims dims[kMaxLevels];      // at the maximum size, device pitches
    std::size_t level_off[kMaxLevels]; // level l inside a pyramid buffer
    std::size_t pyr_elem;            // bytes per pyramid element: 4 (F32), or 2 (F16) for TV-L1 at
                                     // F16 precision (half_pyramids)
    std::size_t pyr[2];              // pyramids of both frames
    std::size_t raw[2];              // uploaded host frames (packed rows of width*bpp)
    std::size_t raw_bytes;
    std::size_t warm;                // float2 flow of the warm level (core/schedule.hpp warm_level) kept
                                     // for the next pair of a stream (config.warm_start; else 0 bytes)
    std::size_t warm_bytes;
    std::size_t scratch;             // 2 F32 planes: converted frames (before the presmooth),
                                     // then the blurred level before resampling. TV-L1: the bytes
                                     // of u[0] (nothing reads u before the pyramids are built)
    std::size_t out_scratch;         // 2 F32 planes for the host output's packed rows after the
                                     // solve. TV-L1: from px[0] on (free once the solve ends;
                                     // the flow is in u); HS, LK: = scratch
    std::size_t u[2];                // float2 (u1, u2), ping-pong; TV-L1: u[1] right after u[0]
    std::size_t px[2], py[2];        // T2 (p11, p21) and (p12, p22); [1] = [0] for GLOBAL
    std::size_t g;                   // T2 (I1wx, I1wy)
    std::size_t rc;                  // F32 rho_c
    std::size_t gr;                  // F32 |grad I1w|^2 (F32 precision only; else 0 bytes)
    std::size_t robust;              // 3 F32 planes of the local normalisation, free until a
                                     // level's first stage reads the slot (TV-L1: from u[1] on,
                                     // spanning into px[0]; HS: hs_deriv; LK: lk_box)
    std::size_t work_end;            // TV-L1: end of u[0] .. gr, the region scratch, robust and
                                     // out_scratch reuse (make_layout checks they fit); else 0
    // TV-L1 under OF_ROBUST_CENSUS (carved after work_end; 0 bytes otherwise), per warp: the warp
    // writes frame 1 warped and its warped gradient here, the census channels (census_cuda.cu)
    // read them and write the major channel into g, gr, rc and the minor one into tv_minor.
    std::size_t tv_i1w;              // F32 I1 at x + u
    std::size_t tv_census_g;         // float2 (I1wx, I1wy) at x + u (0 where x + u leaves the level)
    std::size_t tv_minor;            // float2 (q, rho_c) of the minor channel (Tvl1Minor)
    // HS / CLG (config.algorithm OF_ALGO_HS or OF_ALGO_CLG; every TV-L1 slot above from px to gr
    // is then 0 bytes, and these are 0 bytes for TV-L1). Slots are level-0 sized; an SOR solve
    // keeps its coefficient and increment planes in the split layout (hs_cuda.cuh: red half plane
    // at the slot's start, black after it, each hs_half_pitch(w) elements per row).
    std::size_t hs_i1w;              // F32 frame 1 warped by the current flow
    std::size_t hs_deriv;            // float4 (Ix, Iy, It, 0)
    std::size_t hs_tensor;           // kHsChannels F32 planes, the smoothed tensor (CLG, rho > 0), or
                                     // under OF_ROBUST_CENSUS the census tensor the solver reads
    std::size_t hs_census;           // OF_ROBUST_CENSUS with CLG's rho > 0: kHsChannels F32 planes, the
                                     // census tensor before its blur into hs_tensor; else 0 bytes
    std::size_t hs_coef[3];          // T2 coefficient pairs: diag, off, rhs
    std::size_t hs_du[2];            // T2 (du, dv), ping-pong
    std::size_t hs_slot;             // bytes of one hs_coef / hs_du slot
    // Lucas-Kanade (config.algorithm OF_ALGO_LK, lk_cuda.cuh; 0 bytes for the others, and every
    // TV-L1 and HS slot above is 0 bytes for LK). Level-0 sized like the rest.
    std::size_t lk_g;                // T2 (gx, gy): frame 0's Scharr gradient at the current level
    std::size_t lk_box;              // 4 F32 planes: the tensor's horizontal box sums (planes 0..2);
                                     // as float2 planes, pair 0 = FUSED's horizontal sums of the
                                     // residual products, pair 1 = the window sums a test hook asks
                                     // for; before the first level also the local normalisation's
    std::size_t lk_tensor;           // 3 F32 planes: G (GLOBAL) or the coefficients of -G^-1 (FUSED,
                                     // MULTI_ITER) of the current level
    std::size_t lk_conf;             // F32 confidence of the current level: after a frame, level 0's
                                     // (the validity output)
    std::size_t lk_state;            // uint8 per pixel (pitch bytes a row): 1 valid and stepping, 0 not
    // Dense Inverse Search (config.algorithm OF_ALGO_DIS, dis_cuda.cuh; 0 bytes for the others).
    // Its refinement reuses HS's slots hs_i1w, hs_coef[3] and hs_du[2] in the SOR's split layout
    // (hs_slot bytes each). The patch planes are sparse: dis_sp_h rows of dis_sp_pitch elements,
    // the largest patch grid of any level of the maximum frame (core/dis_kernels.hpp DisGrid).
    std::size_t dis_g;               // T2 (gx, gy): frame 0's gradient at the current level
    std::size_t dis_sum;             // kDisSums sparse F32 planes: the patch sums (per level)
    std::size_t dis_s;               // float2 sparse: the patches' starts (GLOBAL: after propagation)
    std::size_t dis_t[2];            // float2 sparse: the patches' flows after a round (FUSED ping-pongs)
    std::size_t dis_md;              // F32 sparse: the patches' mean error at their flow
    std::size_t dis_err;             // F32 sparse: the patches' E at their flow (the next propagation's own)
    std::size_t dis_sp_plane;        // bytes of one sparse F32 plane
    int dis_sp_pitch, dis_sp_h;      // sparse planes: elements per row, rows
    std::size_t ctrl;                // Ctrl
    std::size_t partials;            // F32 per-block partial sums of the epsilon reduction
    std::size_t red_partials;        // HS GLOBAL SOR: the red half-sweep's (partial_count floats), else 0
    // OF_ROBUST_PICK (config.robust; 0 bytes otherwise), cuda_frame.cu solve_pick: both converted
    // frames as converted (each candidate starts from them), both frames normalised as
    // LOCAL_NORM (the judge), the kept flow (float2) and confidence (LK: F32), all level-0
    // planes; and per candidate its stop slots and coarsest level (kPickStopInts ints each).
    // The residual confidence reuses the judge images under pick (cuda_frame.cu conf_planes).
    std::size_t pick_frame[2];
    std::size_t pick_judge[2];
    std::size_t pick_u;
    std::size_t pick_conf;
    std::size_t pick_stop;
    // config.init OF_INIT_DIS (core/init_dis.hpp, cuda/init_dis_cuda.cu; 0 bytes otherwise): DIS's
    // float2 flow of the pair (level 0), written per pair by the DIS pass (a context of its own
    // whose device arena follows this layout's bytes: init_child_offset) and read by the fusion at
    // the fused level. The fusion's cost plane carves nothing: it is the first F32 half of the flow
    // plane the level does not start in (u[ucur ^ 1], free from the upsampling to the level's solve).
    std::size_t init_flow;
    // The residual confidence (core/confidence.hpp) of every algorithm, computed after the
    // solve when a frame asks for of_flow.valid (cuda_frame.cu conf_planes, residual_confidence),
    // carves nothing: it runs in 6 level-0 F32 planes the solve leaves free, the flow plane it
    // does not end in (u[ucur ^ 1], 2 planes) and kConfWorkPlanes from conf_work on (not
    // carved: TV-L1 px[0] onwards, make_layout checks the span ends by work_end; HS/CLG
    // hs_deriv; LK lk_box).
    std::size_t conf_work;
    std::size_t partial_count;
    std::size_t device_bytes;        // total
    // Pinned staging: both frames on the way in, then (reused) the flow on the way out as
    // packed (u, v) pairs, and a copy of Ctrl::stop[], Ctrl::nonfinite and Ctrl::top.
    std::size_t stage_frame[2];
    std::size_t stage_flow;
    std::size_t stage_ctrl;          // kStopSlots + 3 ints: stop[], then nonfinite at index
                                     // kStageNonfinite, top at kStageTop, warm_taken at kStageWarm
    std::size_t stage_valid;         // the level-0 confidence plane (the validity output) on its way
                                     // to a host validity plane (max_width x max_height floats, packed rows)
    std::size_t stage_pick;          // OF_ROBUST_PICK: pick_stop's ints, then Ctrl::pick_kept; else 0 bytes
    std::size_t pinned_bytes;
};

/// Level-0 F32 planes of DevLayout::conf_work (the residual confidence's N0, N1 and two planes
/// of its normalisation's scratch).
const int kConfWorkPlanes = 4;

/// Whether a context's pyramids are F16 (DevLayout::pyr_elem 2): TV-L1 with F16 storage. Its
/// warp, texture rule and warm start read them widened to F32; the CPU levels of a split frame
/// get them widened on the host. HS / CLG and LK keep F32 pyramids at either precision.
inline bool half_pyramids(const of_config& cfg, const Tuning& t) {
    return cfg.algorithm == OF_ALGO_TVL1 && t.precision == OF_PRECISION_F16;
}

/// OF_ERR_OVERFLOW when a size does not fit in size_t. Carves the buffers of cfg.algorithm's
/// CUDA path (TV-L1's, HS/CLG's: is_variational, or LK's: is_lk).
of_status make_layout(const of_config& cfg, const Tuning& t, DevLayout* l);

/// One buffer of a layout, for of_explain_buffers: a static name and a static line on what it
/// holds and when (a buffer that reuses another's bytes names it), its offset in its block (the
/// device arena, or the pinned staging) and its bytes.
struct LayoutRow {
    const char* name;
    const char* holds;
    std::size_t offset;
    std::size_t bytes;
};
const int kMaxLayoutRows = 40;
/// The buffers of l with a nonzero size, in carving order (a buffer that reuses another's bytes
/// after or before the one it reuses; padding to the next slot counted with the slot before it):
/// the device arena's into dev (*ndev of them), the staging's into pinned (*npinned). Each array
/// holds kMaxLayoutRows.
void layout_rows(const DevLayout& l, LayoutRow* dev, int* ndev, LayoutRow* pinned, int* npinned);

/// HS and CLG: the variational family of hs_cuda.cuh (its layout, tuning and frame steps).
inline bool is_variational(of_algorithm a) { return a == OF_ALGO_HS || a == OF_ALGO_CLG; }
/// Lucas-Kanade (lk_cuda.cuh: its layout, tuning and frame steps).
inline bool is_lk(of_algorithm a) { return a == OF_ALGO_LK; }
/// Dense Inverse Search (dis_cuda.cuh: its layout, tuning and frame steps).
inline bool is_dis(of_algorithm a) { return a == OF_ALGO_DIS; }

/// Dense Inverse Search launch shapes (dis_cuda.cuh has the kernels). Both variants run the same
/// steps and differ in how a patch's sums are formed:
///  - GLOBAL: one thread per patch (kDisPatchThreads a block) summing its p x p pixels alone in
///    the reference's order (bit for bit), a launch per search round and per propagation; the
///    refinement's SOR one launch per half-sweep (bw x bh, default 32 x 8);
///  - FUSED: kDisLanes lanes per patch (rows split over the lanes, the sums reduced by
///    shuffles), the propagation and the round's steps in one launch (the first round also
///    takes the starts); the refinement's SOR red and black in one launch (HS's FUSED SOR).
/// MULTI_ITER asked for explicitly is OF_ERR_UNSUPPORTED; a table's MULTI_ITER row gives FUSED.
/// AUTO without a table row: FUSED.
const int kDisPatchThreads = 128;
const int kDisLanes = 8;
of_status dis_resolve_tuning(const of_config& cfg, const LaunchDefaults* defaults, Tuning* t, const ErrorSink& err);

/// HS / CLG launch shapes (hs_cuda.cuh). Jacobi: GLOBAL (one launch per iteration, any block
/// up to 1024 threads, default 32x8), FUSED (the MULTI_ITER kernel at depth 1, kHsRowsFused
/// rows) and MULTI_ITER
/// (32 lanes x block_height warps (1..kMultiMaxWarps), kHsRows* rows per thread (4, 6 or 8),
/// fused_depth iterations per launch, default kHsDepth*). Red-black SOR: GLOBAL (one launch per
/// half-sweep) and FUSED (red and black in one launch: blocks of bw x bh threads own 2 bw x bh
/// pixels); MULTI_ITER asked for explicitly is OF_ERR_UNSUPPORTED, and a table's MULTI_ITER row
/// (its rows are Jacobi's) gives SOR the FUSED kernel with the built-in block. Under
/// OF_ROBUST_CENSUS the precision is F32 whatever the config asks (the variant as configured).
const int kHsRowsF32 = 8, kHsRowsF16 = 8, kHsRowsFused = 4;
const int kHsDepthF32 = 5, kHsDepthF16 = 7;
/// Columns per thread of the MULTI_ITER Jacobi kernel (hs_multi_cuda.cu): F16 pairs take half
/// the registers, so each thread holds two columns (a 64-column region).
inline int hs_multi_cols(of_precision p) { return p == OF_PRECISION_F16 ? 2 : 1; }
/// The deepest fused depth a coarse level's launches take (hs_frame.cu): a level whose grid at
/// the configured depth would not give every SM a block is launch-bound, not bound by its
/// pixels, so its launches run up to this many iterations each.
const int kHsCoarseDepth = 12;
const int kHsSorBlockX = 32, kHsSorBlockY = 8;
of_status hs_resolve_tuning(const of_config& cfg, const LaunchDefaults* defaults, Tuning* t, const ErrorSink& err);

/// Lucas-Kanade launch shapes (lk_cuda.cuh has the kernels). Every variant runs the same Newton
/// steps; they differ in how a step's window sums are formed:
///  - GLOBAL: one launch per step, one thread per pixel summing its s x s window directly (every
///    bilinear sample of the window recomputed: s^2 per pixel), any block up to 1024 threads,
///    default 32x8 (the plain baseline);
///  - FUSED: two launches per step, separable passes: the residual products of a row segment of
///    kLkFusedCols columns (plus the window's halo) with their horizontal box sums, one warp a
///    row; then the vertical box sums of a 32 x (bh * kLkFusedRows) tile from shared memory with
///    the Newton update, in place;
///  - MULTI_ITER: one launch per step, a shared-memory tile: the residual products of a
///    (32 + 2r) x (bh * rows + 2r) region, its horizontal then vertical box sums, the update of
///    the 32 x (bh * rows) tile; rows = kLkTileRows, halved while the tile's shared memory
///    exceeds kMaxDynamicShared (window 33: 2 rows at 8 warps). LK has no temporal blocking
///    (a step's window reaches r pixels, so P steps in one launch would need a halo of P r).
/// FUSED and MULTI_ITER blocks are 32 x bh, bh 1..kLkMaxWarps (default 8); the table's block
/// applies when its row is for the variant that runs (and, for those two, 32 wide), a row's
/// `rows` (1, 2, 4 or 8) sets MULTI_ITER's rows. depth is 1. AUTO without a table row: FUSED
/// (measured fastest; the tables' LK rows say FUSED too).
const int kLkMaxWarps = 8;
const int kLkFusedCols = 128;
const int kLkFusedRows = 4;
const int kLkTileRows = 4;
/// Dynamic shared memory of LK's kernels for box radius r and bh warps (rows: MULTI_ITER's).
inline std::size_t lk_tile_shared_bytes(int bh, int rows, int r) {
    const std::size_t th = static_cast<std::size_t>(bh) * static_cast<std::size_t>(rows) + 2u * static_cast<std::size_t>(r);
    return 8u * th * (64u + 2u * static_cast<std::size_t>(r)); // residual products (32 + 2r) x th, their row sums 32 x th
}
inline std::size_t lk_fused_shared_bytes(int bh, int r) {
    const std::size_t rows = static_cast<std::size_t>(bh), rr = 2u * static_cast<std::size_t>(r);
    const std::size_t residual = 8u * rows * (static_cast<std::size_t>(kLkFusedCols) + rr);
    const std::size_t update = 8u * 32u * (rows * static_cast<std::size_t>(kLkFusedRows) + rr);
    return residual > update ? residual : update;
}
of_status lk_resolve_tuning(const of_config& cfg, const LaunchDefaults* defaults, Tuning* t, const ErrorSink& err);

/// Where the DIS pass of config.init OF_INIT_DIS (a context of its own, cuda/init_dis_cuda.cu)
/// has its device memory: the parent's device arena from this offset on, after the parent's own
/// layout of `parent_bytes` (DevLayout::device_bytes), 256-byte aligned like every region.
inline std::size_t init_child_offset(std::size_t parent_bytes) { return (parent_bytes + 255u) / 256u * 256u; }

/// Bytes per pixel of an input format.
std::size_t format_bytes(of_pixel_format f);

} // namespace cuda
} // namespace oflow

#endif
