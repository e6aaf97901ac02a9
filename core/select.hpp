// Selection and planning: the one function behind of_query_memory, of_create and of_explain,
// so the bytes a query reports are the bytes create takes, and what explain shows is what
// create does.
//
// Contract of select_and_plan():
//  - The board table (platform/tuning.hpp resolve_table): OFLOW_PLATFORM, then config.platform,
//    then detection (the device tree's board; the CUDA device's compute capability and SM count,
//    read only when the board alone does not name a table); a table loaded from
//    config.tuning_path joins the set ahead of the built-in ones. An unknown name is
//    OF_ERR_INVALID_ARGUMENT listing the known ones.
//  - Precision AUTO -> the table's auto_precision. Explicit precisions are kept (a CPU path
//    without F16 arithmetic still runs F32; selection_info says so).
//  - The backend is cfg.backend, or OFLOW_FORCE_BACKEND (reference|neon|cuda|auto) when it is
//    set and not empty. An unknown value is OF_ERR_INVALID_ARGUMENT; a backend this build or
//    machine lacks is OF_ERR_BACKEND_UNAVAILABLE (config or variable named in the message);
//    neither ever falls back. AUTO: the table's crossover on the level areas of the maximum
//    frame (platform::select_paths, as if the board's GPU were there: level_wanted). Level 0's
//    wish picks the backend: CUDA when it is the GPU and a CUDA device is usable, else the CPU
//    path for every level. The CPU path (cpu_backend): the reference in a build without usable
//    NEON; with NEON, AUTO runs the reference when the row's CPU <path> states the reference
//    path's speed (ref_ns_per_it_px, platform/tuning.hpp PathCost) and platform::frame_ms
//    predicts a frame on it (platform::cpu_cost's terms, every level on the CPU, the config's
//    iterations) faster than on NEON (the row's own terms), else NEON; the reason says which and
//    why. Explicit backends are never overridden. On CUDA, the coarse
//    levels the table wants on the CPU (a per-level crossover) run there: split_from is the
//    first of them (cuda/cuda_backend.hpp CpuLevels: one download of their pyramids, one wait,
//    one flow upload). Explicit backends (config or OFLOW_FORCE_BACKEND) never split.
//  - CUDA launch defaults: the table's launch row (platform::select_launch) for the maximum
//    frame's size bucket among the variants the config allows; what the config sets wins
//    (cuda/cuda_layout.hpp default_shape). No row: the built-in defaults.
//  - The model (budget and predicted_ms) takes the CPU levels' terms from the CPU path that runs
//    them: the reference's ref_* where the reference runs (explicitly, by AUTO, or without NEON)
//    and they are stated, the row's own otherwise.
//  - time_budget_ms > 0: platform::schedule_for_budget on the running paths replaces
//    cfg.iterations (1..100000) and, past OF_BUDGET_ITERATIONS_PER_WARP, raises cfg.warps
//    (Selection::cfg, up to 100); otherwise the model only predicts.
//  - kExplain differs from kCreate in one point: for a platform named by OFLOW_PLATFORM or
//    config.platform the board's GPU is assumed present (a CUDA backend this build lacks is
//    reported, with its memory not planned).
//  - No allocation, no thread, no GPU work: at most the CUDA runtime's device queries.
#ifndef OFLOW_CORE_SELECT_HPP
#define OFLOW_CORE_SELECT_HPP

#include "core/plan.hpp"
#include "core/status.hpp"
#include "cuda/cuda_layout.hpp" // LaunchDefaults, Tuning, default_shape: plain C++ in every build
#include "platform/tuning.hpp"

#include <cstdint>

namespace oflow {

namespace platform {
struct LoadedTable;
}

/// While alive, OFLOW_FORCE_BACKEND is ignored on this thread: of_selftest creates contexts of
/// each backend on purpose and compares them, which the test suite's override must not undo.
class ForceOverrideOff {
public:
    ForceOverrideOff();
    ~ForceOverrideOff();
    ForceOverrideOff(const ForceOverrideOff&) = delete;
    ForceOverrideOff& operator=(const ForceOverrideOff&) = delete;

private:
    bool was_;
};

enum class SelectFor { kCreate, kExplain };

/// Everything of_create needs to know before it allocates, and what of_info reports.
struct Selection {
    of_config cfg;                     // effective config: precision F32|F16 (never AUTO), iterations
                                       // (the budget's), the rest as given (pointers not owned)
    Plan plan;                         // plan.backend: what runs level 0 (every level unless split)
    int split_from;                    // CUDA: levels >= split_from on cpu_backend (0 = none)
    const platform::BoardTable* table; // may point into the caller's LoadedTable
    platform::Match match;
    char table_reason[160];
    const platform::TuningRow* row;    // algorithm x precision in the table; NULL: none (explicit backends)
    bool precision_from_table;         // config said AUTO
    bool have_wanted;                  // row != NULL
    platform::Path wanted[kMaxLevels]; // per level, the table's wish (GPU assumed present)
    of_backend cpu_backend;            // AUTO's CPU path: NEON or REFERENCE (NEON builds: by the table's
                                       // ref_* terms under AUTO, else NEON; no NEON: REFERENCE)
    bool cpu_f16;                      // NEON runs F16 arithmetic
    bool gpu_assumed;                  // kExplain: the named board's GPU stands in for a missing one
    bool memory_planned;               // false: a CUDA backend this build lacks (kExplain only)
    cuda::LaunchDefaults launch;       // the table's launch defaults (has == false: none)
    cuda::Tuning tuning;               // the CUDA launch shape (plan.backend == CUDA only)
    std::uint32_t iterations;          // per warp and level (== cfg.iterations)
    double predicted_ms;               // platform::frame_ms at that count; 0 without a row
    std::size_t stream_device_bytes;   // cuda::Need::stream_bytes (CUDA backend), else 0
    std::size_t init_device_bytes;     // config.init OF_INIT_DIS on CUDA: the DIS pass's device bytes (its own
                                       // plan's), in plan.device_bytes after the path's own from
                                       // cuda::init_child_offset on; else 0
    // The CUDA path's buffers (cuda::Need::device_rows / pinned_rows; counts 0 without CUDA):
    // of_explain_buffers lists them.
    cuda::LayoutRow device_rows[cuda::kMaxLayoutRows];
    int device_count;
    cuda::LayoutRow pinned_rows[cuda::kMaxLayoutRows];
    int pinned_count;
    char reason[160];
};

/// cfg must have passed check_config. loaded: the table of config.tuning_path, or NULL.
of_status select_and_plan(const of_config& cfg, std::size_t context_bytes, const platform::BoardTable* loaded,
                          SelectFor why, const ErrorSink& err, Selection* out);

/// The of_info of a selection (last_* zero), as of_create and of_explain report it.
void selection_info(const Selection& s, of_info* info);

/// Reads config.tuning_path into *storage (the same validation as the build's generator). Builds
/// without OF_WITH_TINYXML2: OF_ERR_UNSUPPORTED.
of_status load_tuning_table(const char* path, platform::LoadedTable* storage, const ErrorSink& err);

} // namespace oflow

#endif
