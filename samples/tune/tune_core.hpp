// oflow-tune's pure parts: the launch shapes it tries, statistics of timing runs, the ranking
// of shapes per size bucket, the warn/fail rule and the crossover bisection. No I/O, no
// timing: tests/tune/tune_unit.cpp checks them directly.
#ifndef OFLOW_SAMPLES_TUNE_TUNE_CORE_HPP
#define OFLOW_SAMPLES_TUNE_TUNE_CORE_HPP

#include "oflow.h"
#include "platform/tuning.hpp"

#include <functional>
#include <string>
#include <vector>

namespace oflow {
namespace tune {

/// One launch shape of one CUDA variant, as a <launch> row spells it.
struct Shape {
    platform::Variant variant;
    int bw, bh;  // threads per block
    int rows;    // rows per thread (MULTI_ITER: F32 8, F16 4/6/8; else 1)
    int depth;   // iterations per launch (1 unless MULTI_ITER)
};
bool operator==(const Shape& a, const Shape& b);

/// "multi_iter 32x8 r6 d7", "global 64x4".
std::string shape_text(const Shape& s);

/// The shapes the schema (platform/tables/README.md) and cuda/cuda_layout.hpp allow that
/// oflow-tune tries for algorithm a in precision p on a GPU with regs_per_block registers per
/// block, in a fixed order (equal times rank in it: rank_bucket).
///  TV-L1:
///   global, fused: 32x4, 32x8, 32x16, 64x4, 64x8, 128x4 (FUSED also within the shared memory
///                  every board allows, cuda/cuda_layout.hpp kMaxDynamicShared);
///   multi_iter:    32 x {2, 4, 8} warps (F16 also 16), F32 8 rows, F16 4/6/8 rows, depth 2..8,
///                  where the region exceeds 2 x depth on each side and the block's registers fit.
///  HS, CLG (the Jacobi solver's kernels, cuda/cuda_layout.hpp hs_resolve_tuning; red-black SOR
///  takes the GLOBAL and FUSED rows of the same table):
///   global:        the same six blocks;
///   fused:         32 x {2, 4, 8} (the MULTI_ITER kernel at depth 1; rows 1, as the schema
///                  writes FUSED rows);
///   multi_iter:    32 x {2, 4, 8} warps, the built-in rows (cuda::kHsRowsF32 / kHsRowsF16: a
///                  context takes other rows from its board table's row only, never from the
///                  config), depth 2..cuda::kHsCoarseDepth where the region (32 x hs_multi_cols
///                  columns, warps x rows rows) exceeds 2 x depth on each side;
///   fused and multi_iter where the block's registers fit. CLG's list is HS's (the same kernels).
std::vector<Shape> candidate_shapes(of_algorithm a, of_precision p, int regs_per_block);

/// The shape of GLOBAL F32 the ratios of the summary are taken against (the library default).
Shape baseline_shape();

/// Statistics of timing runs (any unit).
double median(std::vector<double> v);
double percentile90(std::vector<double> v); // nearest rank: the ceil(0.9 n)-th smallest

/// Iterations per timed run for a shape: 24 for GLOBAL/FUSED; for MULTI_ITER the smallest
/// multiple of depth >= 24, so every launch runs the full depth (any algorithm).
int iterations_for(const Shape& s);

/// One shape measured in one bucket.
struct Timing {
    Shape shape;
    bool ok;
    double ns;     // median ns/iteration/pixel
    double spread; // p90 / median of the runs (>= 1)
    int runs;
    std::string why; // when !ok
};

/// Per bucket: each variant's shapes fastest first, and the variants ranked by their best.
struct VariantRanking {
    platform::Variant variant;
    int rank;                  // 1 = the fastest variant's best shape
    std::vector<Timing> top;   // at most keep entries, fastest first
};
std::vector<VariantRanking> rank_bucket(const std::vector<Timing>& timings, int keep);

/// The warn/fail rule of the <path> rows:
///   warn = max(1.5, 1.2 x spread, 1.2 x size_ratio), rounded up to 0.01, at most 300;
///   fail = 3 x warn.
/// spread = p90/median of the runs of the path's figure; size_ratio = the slowest ns/it/px
/// the self-test's frame sizes showed over the path's figure (the self-test times smaller
/// frames than the figure's; >= 1).
struct Factors {
    double warn, fail;
};
Factors warn_fail(double spread, double size_ratio);
/// The rule in words, with the numbers, for the source attribute.
std::string warn_fail_text(double spread, double size_ratio, const Factors& f);

/// Crossover bisection on the side of a square frame. probe(side, &gpu_faster) measures both
/// paths at side x side; false = the measurement failed (the bisection stops with false).
/// Result: gpu_side = the smallest side measured where the GPU was faster (0 when it was not
/// even at hi), cpu_side = the largest side measured where the CPU was (0 when the GPU was
/// faster already at lo). Assumes one crossing (CPU faster below, GPU above).
/// The search halves [lo, hi] geometrically until hi/lo <= 1.05 or hi - lo <= 1.
struct Crossover {
    bool ok;
    int gpu_side; // 0: the GPU was not faster even at hi
    int cpu_side; // 0: the GPU was faster already at lo
    int probes;
};
Crossover bisect_crossover(int lo, int hi, const std::function<bool(int side, bool* gpu_faster)>& probe);

/// A whole-frame schedule: pyramid levels (x0.5; 0 = automatic, the coarsest side >= 16 px, as
/// of_config.levels 0), warps per level, iterations per warp.
struct Schedule {
    int levels, warps, iterations;
};

/// Whole-frame terms of a <path> (optional in the schema: frame_us, frame_ns_per_px, launch_us,
/// level_us; platform/tuning.hpp frame_ms) fitted to whole-frame times with ns_per_it_px held:
///   t_ns = frame_us*1e3 + frame_ns_per_px*area0 + iteration_ns + launch_us*1e3*launches
///          + level_us*1e3*level_runs
/// where iteration_ns = warps * iterations * sum_l area_l * ns_per_it_px, launches =
/// warps * levels * (GPU: ceil(iterations / depth); CPU: iterations) and level_runs =
/// warps * levels.
struct FramePoint {
    double t_ns;         // measured time of the frame
    double area0;        // pixels of level 0
    double iteration_ns; // the inner iterations at the path's ns_per_it_px
    double launches;     // warps * levels * launches per level and warp
    double level_runs;   // warps * levels
};
/// The point of a side x side frame run with schedule sch (launches of up to depth iterations;
/// the CPU path: depth 1) on a path of ns_per_it_px, measured at t_ns.
FramePoint frame_point(int side, const Schedule& sch, int depth, double ns_per_it_px, double t_ns);

/// The schedules oflow-tune times whole frames with, at each side, for the whole-frame terms.
/// Four terms need schedules that move them apart: 3 levels at 1 and 3 warps (10 and 30
/// iterations) set launches per level apart from levels; 1 level and automatic levels (3 at
/// 64^2 to 7 at 1024^2) set levels apart from the fixed cost; 4 iterations at 2 warps are one
/// launch per level on the GPU. The two small schedules cost little next to 3/3/30.
const Schedule kTermSchedules[] = {{3, 1, 10}, {3, 3, 30}, {1, 1, 10}, {0, 2, 4}};
const int kTermScheduleCount = static_cast<int>(sizeof kTermSchedules / sizeof kTermSchedules[0]);
/// "3/1/10, 3/3/30, 1/1/10, auto/2/4" (levels/warps/iterations).
std::string term_schedules_text();

/// Least squares of the relative error, every term >= 0: a term the unconstrained fit wants
/// negative is fixed at 0 and the others are refitted. Done as the best of the fits over every
/// subset of the four terms whose terms are all >= 0 (a term left out is 0), which is the
/// non-negative least-squares optimum. ok is false with fewer than 4 points or non-finite input.
struct FrameFit {
    bool ok;
    double frame_us, frame_ns_per_px, launch_us, level_us;
    double worst_rel_error; // max |model - t| / t over the points
};
FrameFit fit_frame_terms(const std::vector<FramePoint>& points);

} // namespace tune
} // namespace oflow

#endif
