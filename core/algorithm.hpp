// The algorithm seam: one entry per flow algorithm, and everything the rest of the library
// needs from it. api/ never names an algorithm: of_create, of_query_memory, of_explain and
// of_process reach it through find_algorithm() (config check, selection, plan, context,
// dispatch: core/). The shared parts (conversion, exposure matching, robust preprocessing,
// pyramids, the coarse-to-fine loop with upsampling, the sanity bound, the median filter, the
// output) are core/flow_driver.cpp's, written once; an algorithm brings:
//   - check_params: the validation of its own config fields (config.tvl1, config.hs, ...);
//   - its CPU work planes (how many, their names) and solve_level_cpu, which refines the flow
//     of one pyramid level on them (warps and inner iterations) through its kernel family;
//   - kernels_init: its kernel family for the CPU path chosen (reference, then NEON overrides);
//   - gpu_path / cuda: whether a CUDA path exists for it, and its driver in this build;
//   - its validity output (of_flow.valid): the work plane holding the finest level's raw
//     confidence and the value that maps to 0.5, or none (the shared residual confidence of
//     core/confidence.hpp);
//   - max_warps: whether config.warps means anything to it (the time budget buys warps only
//     up to it).
// Adding an algorithm: its files, one line in core/algorithms.cpp (the registry), its table
// rows (platform/tables), its self-test cases and bench entries; docs/design.md has the steps.
#ifndef OFLOW_CORE_ALGORITHM_HPP
#define OFLOW_CORE_ALGORITHM_HPP

#include "core/plan.hpp" // kMaxWorkPlanes
#include "core/status.hpp"
#include "cuda/cuda_backend.hpp" // plain C++: the CUDA driver's types, defined in every build
#include "oflow.h"

#include <cstdint>

struct of_context;

namespace oflow {

struct LevelJob;
namespace platform {
struct LevelTerms;
} // namespace platform
namespace selftest {
class Sink;
struct Path;
} // namespace selftest

/// The shared pyramid code uses work planes 0..kScratchPlanes-1 as scratch while it builds the
/// pyramids (before any level is solved): every algorithm asks for at least that many.
const int kScratchPlanes = 3;

/// An algorithm's CUDA path (cuda/cuda_backend.hpp has each call's contract).
struct CudaDriver {
    of_status (*resolve_tuning)(const of_config& cfg, const cuda::LaunchDefaults* defaults, cuda::Tuning* t,
                                const ErrorSink& err);
    of_status (*plan)(const of_config& cfg, const cuda::LaunchDefaults* defaults, cuda::Need* need,
                      const ErrorSink& err);
    of_status (*create)(void* state_slot, void* pinned_slot, const of_config& cfg, const cuda::LaunchDefaults* defaults,
                        const cuda::CpuLevels& cpu, std::size_t init_device_bytes, const ErrorSink& err,
                        cuda::State** out);
    of_status (*process)(cuda::State* st, const of_image& prev, const of_image& next, const of_flow& out,
                         const ErrorSink& err, uint64_t* iterations, int* levels, int* coarsest);
    void (*destroy)(cuda::State* st);
    of_status (*push)(cuda::State* st, const of_image& frame, const of_flow* out, cuda::StreamStep* step,
                      const ErrorSink& err, uint64_t* iterations, int* levels, int* coarsest);
    of_status (*register_host)(cuda::State* st, void* p, std::size_t bytes, const ErrorSink& err);
    of_status (*unregister_host)(cuda::State* st, const void* p, const ErrorSink& err);
    of_robust (*last_pick)(const cuda::State* st); // OF_ROBUST_PICK's kept candidate (cuda_backend.hpp)
};

/// How an algorithm's iterations enter the time model, the time budget and of_info
/// (core/select.cpp). The shared model (Algorithm::iterations nullptr): config.iterations inner
/// iterations on every level by core/schedule.hpp's level_iterations, a level's work its pixels,
/// one GPU launch per tuning depth of iterations, the budget's bound kMaxLevelIterations.
struct IterationModel {
    /// The count the model speaks of, and the budget's way to set it (DIS: config.dis.iterations).
    uint32_t (*get)(const of_config& cfg);
    void (*set)(of_config* cfg, uint32_t n);
    uint32_t max; // the most the budget may set (the algorithm's own bound)
    /// The iterations level l runs at count n (of_info.level_iterations; 0: the level only
    /// carries the flow down).
    uint32_t (*at_level)(const of_config& cfg, uint32_t n, int level);
    /// In: each level's pixels (levels of them); out: the work a table row's ns_per_it_px is per
    /// (at least 1 on every level: the model's levels are never empty) and the model's per-level
    /// terms (platform/tuning.hpp LevelTerms: which levels run the iterations, the launches and
    /// work each level has besides them).
    void (*level_terms)(const of_config& cfg, int levels, uint64_t* areas, platform::LevelTerms* terms);
    /// Iterations per GPU launch on every variant (0: the tuning's depth on MULTI_ITER, else 1).
    uint32_t gpu_per_launch;
};

struct Algorithm {
    of_algorithm id;
    const char* name; // "tvl1": platform::algorithm_name(id)
    /// Validates the config fields that belong to this algorithm; check_config has validated the
    /// shared ones first. A message naming the field on failure.
    of_status (*check_params)(const of_config& cfg, const ErrorSink& err);
    /// CPU work planes for cfg (kScratchPlanes..kMaxWorkPlanes), each planned the size of the
    /// finest level the CPU solves (plan slot kBufWork0 + i), and the name of plane i (the
    /// plan's buffer name: a static string).
    int (*work_planes)(const of_config& cfg);
    const char* (*work_plane_name)(const of_config& cfg, int i);
    /// Refines job.u1/u2, the flow of one level (zero at the coarsest solved level, else the
    /// coarser level's upsampled), in place: warps and inner iterations. Adds the inner
    /// iterations run to *job.iterations. Runs on the context's pool; allocates nothing.
    void (*solve_level_cpu)(const LevelJob& job);
    /// Fills the context's kernel family of the algorithm for the CPU path `cpu` (REFERENCE or
    /// NEON; f16: NEON with FP16 arithmetic), after the shared KernelTable is filled.
    void (*kernels_init)(of_context* ctx, of_backend cpu, bool f16);
    /// Its NEON kernels compute in F16 where the CPU has FP16 arithmetic (precision F16 on such
    /// a CPU selects them); false: the CPU paths compute in F32 whatever the precision, and
    /// of_info says so.
    bool cpu_f16;
    /// A CUDA path exists for this algorithm (in CUDA builds; of_explain may assume it for a
    /// named board on a build without CUDA). false: backend CUDA is OF_ERR_UNSUPPORTED and AUTO
    /// runs the CPU path whatever the table says.
    bool gpu_path;
    /// Its driver in this build; nullptr without CUDA (or without gpu_path).
    const CudaDriver* cuda;
    /// Its of_selftest cases on one path (nullptr: none beyond the shared ones, which are
    /// TV-L1's); called only for paths that run it (CUDA: gpu_path; F16: cpu_f16 or GPU).
    /// `full`: of_selftest_options.full; threads: the CPU threads to use.
    void (*selftest)(selftest::Sink* sink, const selftest::Path& path, bool full, uint32_t threads);
    /// The validity output (of_flow.valid, api/oflow.h) on the CPU path (core/confidence.hpp).
    /// confidence_plane: the work plane that holds, after solve_level_cpu of level 0, each
    /// pixel's raw confidence value v at level 0 (finite, >= 0; its own rule: valid when
    /// v >= confidence_half(cfg)), mapped to [0, 1] by plane_confidence(v, confidence_half(cfg)).
    /// The validity output is the shared residual confidence of the final flow, combined with
    /// that one where there is one (combined_confidence). -1: none; confidence_half is nullptr.
    int confidence_plane;
    float (*confidence_half)(const of_config& cfg);
    /// The most warps it runs per level (config.warps is checked against it by check_params;
    /// a time budget buys warps up to it): 100 for the variational algorithms, 1 for an
    /// algorithm without re-linearisations of its own (LK: its Newton steps are iterations).
    uint32_t max_warps;
    /// The finest pyramid level its solver reads (nullptr: 0, every level). Levels finer than it
    /// only carry the flow down (upsampled), so the frame driver skips their per-level
    /// normalisation (OF_ROBUST_LEVEL_NORM) when no warm start reads them. DIS: dis.finest_level.
    uint32_t (*finest_read_level)(const of_config& cfg);
    /// Its iterations in the time model (nullptr: the shared model, IterationModel's comment).
    const IterationModel* iterations;
    /// Under OF_ROBUST_LEVEL_NORM: levels 0 .. level_norm_fine - 1 of both pyramids (never the
    /// two coarsest: level_norm_fine_levels, core/robust.hpp) are resampled from one fine level
    /// (level_norm_fine_base) normalised with the frame's window (robust_sigma frame px, floor
    /// kRobustFloor, as OF_ROBUST_LOCAL_NORM), the coarser levels built from the frames as they
    /// are and normalised at their own scale. 0: every level at its own scale.
    int level_norm_fine;
};

/// The registered algorithms, in registry order: i in 0..algorithm_count()-1.
int algorithm_count();
const Algorithm* algorithm_at(int i);

/// The registered algorithm of id, or nullptr (an algorithm of the enum that is not built
/// yet, or an unknown value).
const Algorithm* find_algorithm(int32_t id);

/// True for the values of of_algorithm (built or not).
bool algorithm_known(int32_t id);

} // namespace oflow

#endif
