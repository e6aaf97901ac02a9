// Per-board tuning tables as plain data, and the pure functions that read them: which table
// serves this machine (exact board -> same compute capability -> generic), CPU or GPU per
// pyramid level, the kernel variant and launch shape per size bucket, iterations from a time
// budget, and the self-test's timing verdict.
//
// Contract:
//  - The tables come from platform/tables/*.xml (schema: platform/tables/README.md). The host
//    tool oflow-tablegen validates them at build time and compiles them in (builtin_tables());
//    with OF_WITH_TINYXML2 a file may also be loaded at create (platform/table_load.hpp), into
//    the same structs. Nothing here parses XML.
//  - Every function is pure: no allocation, no I/O, no global state (the environment is read
//    only by platform_from_environment()). Inputs that are out of range, a name no table has and
//    a table without a row for the request answer a status and a message (ErrorSink) that names
//    the table file, the line of the row and the field; there is never a silent default.
//  - Areas are in pixels (width x height); level 0 is the finest pyramid level.
#ifndef OFLOW_PLATFORM_TUNING_HPP
#define OFLOW_PLATFORM_TUNING_HPP

#include "core/plan.hpp"
#include "core/schedule.hpp"
#include "core/status.hpp"
#include "oflow.h"

#include <cstddef>
#include <cstdint>

namespace oflow {
namespace platform {

/// Where a pyramid level runs: the CPU path (the NEON kernels where the build has them: aarch64,
/// or x86-64 through SIMDe; the reference path otherwise) or the GPU.
enum Path : int { kPathCpu = 0, kPathGpu = 1, kPathCount = 2 };

/// GPU kernel variants a table may describe: the kernel structures of the thesis (T. Romera,
/// "Adequation algorithme architecture pour flot optique sur GPU embarque", PhD thesis,
/// Sorbonne Universite, 2023, section 4.6.1; platform/tables/README.md maps them onto
/// oflow's). kVariantPipeline is the thesis's Shared_Pipeline (1-D blocks walking row bands,
/// a fixed grid); cuda/ does not implement it yet, so kVariantsCuda leaves it out and no selection returns it.
enum Variant : int {
    kVariantGlobal = 0,
    kVariantFused = 1,
    kVariantMultiIter = 2,
    kVariantPipeline = 3,
    kVariantCount = 4
};
inline unsigned variant_bit(Variant v) { return 1u << static_cast<unsigned>(v); }
/// The variants the CUDA backend implements today (cuda/cuda_layout.hpp).
const unsigned kVariantsCuda = (1u << kVariantGlobal) | (1u << kVariantFused) | (1u << kVariantMultiIter);

/// Image-size buckets of the launch rows: the thesis tuned at 256^2, 512^2, 1024^2 and 2048^2
/// and uses the nearest for other sizes. Nearest in log(area): a bucket reaches up to twice
/// its square (256: area <= 131072, 512: <= 524288, 1024: <= 2097152, 2048: <= 8388608),
/// kBucketLarger is everything above.
enum Bucket : int {
    kBucket256 = 0,
    kBucket512 = 1,
    kBucket1024 = 2,
    kBucket2048 = 3,
    kBucketLarger = 4,
    kBucketCount = 5
};
Bucket bucket_for_area(std::uint64_t area);
/// Largest area of a bucket (kBucketLarger: UINT64_MAX).
std::uint64_t bucket_max_area(Bucket b);

/// The tables' static rule for MULTI_ITER blocks: n threads x 128 registers within the board's
/// per-block limit (a coarse bound checked when a table is read). The kernels' real register
/// counts depend on their launch bound (cuda/cuda_layout.hpp multi_bound_for, up to 255 per
/// thread) and are checked per board from the compiler's report by scripts/jetson_archs.sh.
const int kMultiIterRegistersPerThread = 128;

/// Expected speed of one path for one algorithm x precision, and the self-test's tolerance.
/// The four whole-frame terms are optional in the XML (absent: 0, "not modelled"); with them the
/// time-budget model covers a whole frame, not only the inner iterations (frame_ms()).
///
/// The CPU path (path[kPathCpu]) of a build with NEON has two implementations, the NEON kernels
/// and the reference path (core/ref). The row's own numbers are the NEON kernels' where the build
/// has them, the reference path's otherwise. ref_ns_per_it_px and ref_frame_ns_per_px (optional,
/// <path kind="cpu"> only; a GPU path always has 0) state the reference path's speed beside
/// them: ref_ns_per_it_px replaces ns_per_it_px and ref_frame_ns_per_px replaces frame_ns_per_px
/// for the reference; 0 (absent) = not stated separately: the row's own term stands for the
/// reference too. ref_frame_ns_per_px needs ref_ns_per_it_px. The other terms (frame_us,
/// launch_us, level_us, warn, fail) are shared. cpu_cost() applies this; nothing else reads the
/// ref_* fields. Backend AUTO in a build with NEON runs the reference when the row states
/// ref_ns_per_it_px and the reference's predicted frame is faster (core/select.cpp).
struct PathCost {
    of_precision arith;     // what the path computes in (F32 where the hardware has no F16)
    double ns_per_it_px;    // expected ns per inner iteration per pixel on large frames
    double warn;            // self-test: warn when measured > warn x expected (>= 1)
    double fail;            // self-test: fail when measured > fail x expected (> warn)
    double frame_us;        // fixed cost of one frame in us (uploads, set-up); 0 = not modelled
    double frame_ns_per_px; // per pixel of level 0, once per frame (pyramids, warps, copies); 0 = not modelled
    double launch_us;       // per launch of the iteration kernel on one level and warp (a launch runs
                            // up to `depth` iterations; the CPU path counts one per iteration); 0 = not modelled
    double level_us;        // per level and warp, besides the inner iterations (warp, gradient, upsampling,
                            // clears: launch-bound on small levels); 0 = not modelled
    double ref_ns_per_it_px;    // CPU path only: the reference path's ns_per_it_px where the row's own
                                // numbers are the NEON kernels'; 0 = not stated (the row's stands)
    double ref_frame_ns_per_px; // CPU path only: the reference path's frame_ns_per_px; 0 = not stated
    const char* source;     // where the numbers came from
    int line;               // of its <path> element
};

/// The terms of the CPU path that runs: `reference` true when it is the reference path, false
/// when it is the NEON kernels. Reference: c with ns_per_it_px / frame_ns_per_px replaced by
/// ref_ns_per_it_px / ref_frame_ns_per_px where those are stated (> 0) and arith F32 (the
/// reference computes F32); NEON: c unchanged. The ref_* fields of the answer are c's. A GPU
/// path's cost (ref_* 0) comes back unchanged but for arith when reference is true: pass
/// reference only for the CPU path. A build without NEON runs the reference: reference true.
PathCost cpu_cost(const PathCost& c, bool reference);
/// Whether c states the reference path's speed of its own (ref_ns_per_it_px > 0).
inline bool states_reference(const PathCost& c) { return c.ref_ns_per_it_px > 0.0; }

/// One launch shape of one variant in one size bucket.
struct LaunchRow {
    Variant variant;
    Bucket bucket;
    int rank;            // 1 = first choice in this bucket; unique per bucket
    int block_w, block_h; // threads
    int rows;            // rows per thread (MULTI_ITER: F32 8, F16x2 4/6/8; else 1)
    int grid;            // blocks: 0 = one per output tile (covers the frame); > 0 fixed (pipeline)
    int depth;           // iterations per launch (fused_depth; 1 for GLOBAL and FUSED)
    int bound;           // MULTI_ITER launch bound, threads (128, 256, 512; cuda/cuda_layout.hpp);
                         // 0 = not given: cuda::multi_default_bound
    const char* source;
    int line;
};

/// Everything a board says about one algorithm in one precision.
struct TuningRow {
    of_algorithm algorithm;
    of_precision precision;       // F32 or F16 (F16 = half2 storage on the GPU)
    std::uint64_t crossover_area; // frames (levels) with area >= this run on the GPU; 0 = always
    bool crossover_per_level;     // decide per pyramid level (coarse levels on the CPU)
    const char* crossover_source;
    int crossover_line;
    PathCost path[kPathCount];    // indexed by Path
    const LaunchRow* launches;    // launch_count rows
    int launch_count;
    int line;                     // of its <precision> element
};

/// What OF_PRECISION_AUTO means for an algorithm on a board.
struct AlgorithmDefaults {
    of_algorithm algorithm;
    of_precision auto_precision;
    const char* source;
    int line;
};

/// One board's table.
struct BoardTable {
    const char* name;   // "nano", "tx2", "xavier", "orin", "generic", or a loaded table's name
    const char* title;  // "Jetson AGX Xavier"
    const char* file;   // "platform/tables/xavier.xml", or the path a table was loaded from
    int cc_major, cc_minor; // CUDA compute capability of the board's GPU (generic: the lowest served)
    int sm_count;           // SMs of the GPU the numbers are for
    int regs_per_block;     // 32-bit registers a block may use
    int shared_per_block;   // bytes of shared memory a block may use
    bool cpu_fp16;          // the CPU has FP16 vector arithmetic (ARMv8.2 asimdhp)
    const char* source;
    int line;               // of its <board> element
    const AlgorithmDefaults* algorithms;
    int algorithm_count;
    const TuningRow* rows;
    int row_count;
};

/// A set of tables to search: the compiled-in ones, or those plus a loaded one.
struct TableSet {
    const BoardTable* const* boards;
    int count;
};

/// The tables compiled into the library (generated from platform/tables/*.xml).
TableSet builtin_tables();
/// `first` (a loaded table; NULL: none) followed by the compiled-in tables, so a loaded table
/// named like a compiled-in one wins. storage holds capacity pointers; when it is too small
/// (less than builtin_tables().count + 1) the set holds what fits, `first` included.
TableSet tables_with(const BoardTable* first, const BoardTable** storage, int capacity);

// ---- names (the XML spellings) ---------------------------------------------------------------
const char* algorithm_name(of_algorithm a); // "tvl1", "hs", "clg", "lk"; "?" for others
const char* precision_name(of_precision p); // "f32", "f16", "auto"; "?"
const char* path_name(Path p);              // "cpu", "gpu"
const char* variant_name(Variant v);        // "global", "fused", "multi_iter", "pipeline"
const char* bucket_name(Bucket b);          // "256", "512", "1024", "2048", "larger"
/// of_variant of a table variant; false for kVariantPipeline (no of_variant yet).
bool to_of_variant(Variant v, of_variant* out);
/// Variants a config allows: AUTO -> every variant cuda/ implements, else that one.
unsigned variant_mask_for(of_variant configured);

// ---- lookup -----------------------------------------------------------------------------------
/// The compiled-in table of that name; NULL when there is none.
const BoardTable* find_board(const char* name);
const BoardTable* find_board_in(const TableSet& set, const char* name);
/// The algorithm x precision row; NULL when the table has none.
const TuningRow* find_row(const BoardTable& t, of_algorithm a, of_precision p);

/// How a table was chosen.
enum Match : int {
    kMatchOverride = 0,          // named by OFLOW_PLATFORM or config.platform
    kMatchBoard = 1,             // the detected board has a table of its own
    kMatchComputeCapability = 2, // a table for the same compute capability (nearest SM count)
    kMatchGeneric = 3            // none of the above
};
const char* match_name(Match m);

/// The fallback chain without overrides: the table named `board` (may be NULL or ""), else
/// one with compute capability cc_major.cc_minor (several: the nearest sm_count; 0.0 = no GPU
/// never matches), else "generic". NULL only when the set has no "generic" table.
const BoardTable* fallback(const TableSet& set, const char* board, int cc_major, int cc_minor,
                           int sm_count, Match* how);

/// What detection found (platform/detect.hpp fills it) and the caller's GPU facts.
struct DetectedPlatform {
    char board[16];       // "nano", "tx2", "xavier", "orin", or "" when not a known Jetson
    char evidence[64];    // what named it: the device-tree compatible entry or model text
    int cc_major, cc_minor; // of the CUDA device the context will use; 0.0 = none
    int sm_count;           // its SMs; 0 = none
};

/// The table for a context. Precedence: env_platform (OFLOW_PLATFORM, when non-empty), then
/// config_platform (of_config.platform, when non-NULL and non-empty), then the fallback chain
/// from the detection. "auto" in either override means "detect". A name no table in the set
/// has is OF_ERR_INVALID_ARGUMENT naming the source of the name and the known names.
struct Resolution {
    const BoardTable* table;
    Match how;
    char reason[160]; // for of_info.reason: "xavier (device tree: nvidia,tegra194)"
};
of_status resolve_table(const TableSet& set, const char* config_platform, const char* env_platform,
                        const DetectedPlatform& detected, Resolution* out, const ErrorSink& err);
/// getenv("OFLOW_PLATFORM"), or NULL when unset or empty. Read at create time only.
const char* platform_from_environment();

// ---- selection (pure) -------------------------------------------------------------------------
/// OF_PRECISION_AUTO -> the table's auto_precision for the algorithm; F32/F16 as requested.
/// Either way the table must have that row (else OF_ERR_UNSUPPORTED).
of_status select_precision(const BoardTable& t, of_algorithm a, of_precision requested,
                           of_precision* out, const ErrorSink& err);

/// CPU or GPU per level. level_areas[0..levels) fine to coarse, each >= 1; levels 1..kMaxLevels.
/// No GPU: every level on the CPU. Else with crossover_per_level, level l on the GPU when its
/// area >= crossover_area; without it, the whole frame by level 0's area.
struct PathPlan {
    const TuningRow* row;
    int levels;
    Path path[kMaxLevels];
    int gpu_levels;     // how many levels run on the GPU
    char reason[160];   // "tvl1 f32: levels 0-2 on the GPU, 3-4 on the CPU (crossover 512x512, xavier.xml:20)"
};
of_status select_paths(const BoardTable& t, of_algorithm a, of_precision p,
                       const std::uint64_t* level_areas, int levels, bool gpu_available,
                       PathPlan* out, const ErrorSink& err);

/// Launch shape for a frame (or level) of `area` pixels: among the rows of the area's bucket
/// whose variant is in variant_mask (variant_mask_for(config.variant)), the lowest rank.
struct LaunchChoice {
    const LaunchRow* row;
    Bucket bucket;
};
of_status select_launch(const BoardTable& t, of_algorithm a, of_precision p, std::uint64_t area,
                        unsigned variant_mask, LaunchChoice* out, const ErrorSink& err);

/// Per-level terms of an algorithm whose levels differ beyond their areas (core/algorithm.hpp
/// IterationModel; DIS): runs[l] 1 where level l runs the inner iterations, 0 where it runs none
/// (no iteration cost, no iteration launch; BudgetPlan::iterations still gives the schedule's
/// count there); fixed_launches[l] launches of the level's path besides the iterations'
/// (launch_us each); fixed_work[path][l] work besides the iterations' on that path, in the
/// units of level_areas (ns_per_it_px each: a path whose other work costs another multiple of
/// a step than the other path's). Per warp, like the level term. frame_px: level 0's pixels, which the
/// frame term (frame_ns_per_px) is per where level_areas are work rather than pixels. nullptr:
/// every level runs, nothing fixed, the frame term per level_areas[0].
struct LevelTerms {
    double frame_px;
    double runs[kMaxLevels];
    double fixed_launches[kMaxLevels];
    double fixed_work[kPathCount][kMaxLevels];
};

/// The time model of one frame (ms) with n_l = level_iterations(iterations, growth, l) inner
/// iterations per warp on level l (core/schedule.hpp; growth 0: `iterations` on every level):
///   frame_us*1e3 + frame_ns_per_px*area_0                      (level 0's path: once per frame)
///   + warps * sum_l [ n_l * area_l * ns_per_it_px(path_l)
///                     + launches_l * launch_us(path_l)*1e3
///                     + level_us(path_l)*1e3 ]                 (all in ns, then * 1e-6)
/// launches_l = ceil(n_l / gpu_depth) on GPU levels (the launches cuda_frame.cu makes:
/// at most gpu_depth iterations each), n_l on CPU levels. Terms a table leaves out count
/// 0, so a table with ns_per_it_px alone models the inner iterations only. The level term does not
/// depend on the iterations: with frame_us and frame_ns_per_px it makes BudgetPlan::fixed_ms.
/// terms (optional, LevelTerms): n_l and launches_l times runs[l], and per level and warp
/// fixed_launches[l] * launch_us + fixed_work[path_l][l] * ns_per_it_px added to the level term.
/// Inputs must be valid (iterations_for_budget checks them); gpu_depth 0 counts as 1.
/// cpu_reference: the CPU levels run the reference path, so their terms are
/// cpu_cost(row.path[kPathCpu], true) (the row's ref_* where stated); false: the row's own
/// (the NEON kernels in a build with them). GPU levels always take the GPU path's terms.
double frame_ms(const TuningRow& row, const std::uint64_t* level_areas, const Path* level_paths, int levels,
                std::uint32_t warps, std::uint32_t gpu_depth, std::uint32_t iterations, float growth = 0.0f,
                const LevelTerms* terms = nullptr, bool cpu_reference = false);

/// Inner iterations per level and warp that fit a time budget: the largest finest-level count n
/// in 1..max_iterations with frame_ms(n, growth) <= budget_ms, the coarser levels following the
/// schedule (growth 0: the same count on every level, the thesis's schedule, Table 5.10: 10
/// iterations on each of 3 levels). growth outside [0, kMaxIterationGrowth] is an error.
/// A budget that does not buy one iteration is OF_ERR_INVALID_ARGUMENT saying what a frame with
/// one iteration costs. The overload without gpu_depth counts one launch per iteration.
/// cpu_reference: as frame_ms's (the CPU levels run the reference path).
struct BudgetPlan {
    int levels;
    std::uint32_t warps;                  // per level (iterations_for_budget: the warps given)
    std::uint32_t iterations[kMaxLevels];
    double predicted_ms; // frame_ms at that count
    double fixed_ms;     // the part of it that does not depend on the iterations
};
of_status iterations_for_budget(const BoardTable& t, of_algorithm a, of_precision p,
                                double budget_ms, const std::uint64_t* level_areas,
                                const Path* level_paths, int levels, std::uint32_t warps,
                                std::uint32_t gpu_depth, std::uint32_t max_iterations,
                                BudgetPlan* out, const ErrorSink& err, float growth = 0.0f,
                                const LevelTerms* terms = nullptr, bool cpu_reference = false);
of_status iterations_for_budget(const BoardTable& t, of_algorithm a, of_precision p,
                                double budget_ms, const std::uint64_t* level_areas,
                                const Path* level_paths, int levels, std::uint32_t warps,
                                std::uint32_t max_iterations, BudgetPlan* out,
                                const ErrorSink& err);

/// The time budget's schedule: iterations_for_budget at min_warps; when that buys more than
/// per_warp_cap iterations per warp (cap > 0), the budget buys warps instead: warps grow to
/// ceil(n * min_warps / per_warp_cap) (at most max_warps) and the iterations are recomputed for
/// them. Why: with one linearisation the TV-L1 error stops falling after some 20-30 inner
/// iterations and then rises again (it converges to the solution of the linearised problem);
/// re-warping is what keeps buying accuracy (measured: 1920x1080 rotation-zoom, reference F32,
/// auto levels: 1 warp x 30 iterations EPE 0.205, x 60 0.222, x 100 0.234; 2 warps x 17 0.199,
/// 5 x 20 0.196; docs/time-budget.md). Errors as iterations_for_budget's; max_warps >= min_warps.
of_status schedule_for_budget(const BoardTable& t, of_algorithm a, of_precision p, double budget_ms,
                              const std::uint64_t* level_areas, const Path* level_paths, int levels,
                              std::uint32_t min_warps, std::uint32_t max_warps, std::uint32_t per_warp_cap,
                              std::uint32_t gpu_depth, std::uint32_t max_iterations, BudgetPlan* out,
                              const ErrorSink& err, float growth = 0.0f, const LevelTerms* terms = nullptr,
                              bool cpu_reference = false);

/// The self-test's timing check of a measured ns/iteration/pixel against the row's path.
enum TimingVerdict : int { kTimingOk = 0, kTimingWarn = 1, kTimingFail = 2 };
of_status check_timing(const BoardTable& t, of_algorithm a, of_precision p, Path path,
                       double measured_ns_per_it_px, TimingVerdict* verdict, double* ratio,
                       const ErrorSink& err);

// ---- canonical text (tests, oflow-cli --explain) ----------------------------------------------
/// The whole table, one line per element with every field, doubles as %.17g (exact). Writes
/// at most cap bytes (NUL included) and returns the length the full text needs, like snprintf.
/// oflow-tablegen writes the same text from the XML, so a test compares the two.
std::size_t format_board(const BoardTable& t, char* buf, std::size_t cap);

} // namespace platform
} // namespace oflow

#endif
