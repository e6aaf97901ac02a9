// Lookup, fallback and selection over the tuning tables (tuning.hpp). Pure functions: no
// allocation, no I/O; only platform_from_environment() reads the environment.
#include "platform/tuning.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace oflow {
namespace platform {
namespace {

bool same(const char* a, const char* b) { return a && b && std::strcmp(a, b) == 0; }
bool empty(const char* s) { return !s || !*s; }

// "nano, tx2, ..." into buf.
void list_names(const TableSet& set, char* buf, std::size_t cap) {
    std::size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < set.count && len < cap; ++i) {
        const int n = std::snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", set.boards[i]->name);
        if (n < 0) break;
        len += static_cast<std::size_t>(n);
    }
}

// "global|fused|multi_iter" into buf.
void list_variants(unsigned mask, char* buf, std::size_t cap) {
    std::size_t len = 0;
    buf[0] = '\0';
    for (int v = 0; v < kVariantCount && len < cap; ++v) {
        if (!(mask & variant_bit(static_cast<Variant>(v)))) continue;
        const int n = std::snprintf(buf + len, cap - len, "%s%s", len ? "|" : "",
                                    variant_name(static_cast<Variant>(v)));
        if (n < 0) break;
        len += static_cast<std::size_t>(n);
    }
    if (!buf[0]) std::snprintf(buf, cap, "(none)");
}

// "tvl1 f32, tvl1 f16, hs f32" into buf.
void list_rows(const BoardTable& t, char* buf, std::size_t cap) {
    std::size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < t.row_count && len < cap; ++i) {
        const int n = std::snprintf(buf + len, cap - len, "%s%s %s", i ? ", " : "",
                                    algorithm_name(t.rows[i].algorithm), precision_name(t.rows[i].precision));
        if (n < 0) break;
        len += static_cast<std::size_t>(n);
    }
    if (!buf[0]) std::snprintf(buf, cap, "none");
}

// The row, or a status naming the table file and what it does have.
of_status need_row(const BoardTable& t, of_algorithm a, of_precision p, const TuningRow** out,
                   const ErrorSink& err) {
    if (p != OF_PRECISION_F32 && p != OF_PRECISION_F16)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "tuning: precision %s must be resolved to f32 or f16 first",
                        precision_name(p));
    *out = find_row(t, a, p);
    if (*out) return OF_OK;
    char have[96];
    list_rows(t, have, sizeof have);
    return err.fail(OF_ERR_UNSUPPORTED, "%s:%d: table %s has no row for %s %s (it has: %s)", t.file, t.line, t.name,
                    algorithm_name(a), precision_name(p), have);
}

of_status check_levels(const std::uint64_t* areas, int levels, const ErrorSink& err) {
    if (!areas) return err.fail(OF_ERR_NULL_POINTER, "tuning: level areas are NULL");
    if (levels < 1 || levels > kMaxLevels)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "tuning: levels %d out of range 1..%d", levels, kMaxLevels);
    for (int l = 0; l < levels; ++l)
        if (areas[l] == 0) return err.fail(OF_ERR_INVALID_ARGUMENT, "tuning: level %d has area 0", l);
    return OF_OK;
}

int rounded_side(std::uint64_t area) {
    return static_cast<int>(std::sqrt(static_cast<double>(area)) + 0.5);
}

} // namespace

const BoardTable* find_board_in(const TableSet& set, const char* name) {
    if (empty(name)) return nullptr;
    for (int i = 0; i < set.count; ++i)
        if (same(set.boards[i]->name, name)) return set.boards[i];
    return nullptr;
}

const BoardTable* find_board(const char* name) { return find_board_in(builtin_tables(), name); }

TableSet tables_with(const BoardTable* first, const BoardTable** storage, int capacity) {
    int n = 0;
    if (first && n < capacity) storage[n++] = first;
    const TableSet builtin = builtin_tables();
    for (int i = 0; i < builtin.count && n < capacity; ++i) storage[n++] = builtin.boards[i];
    return TableSet{storage, n};
}

const TuningRow* find_row(const BoardTable& t, of_algorithm a, of_precision p) {
    for (int i = 0; i < t.row_count; ++i)
        if (t.rows[i].algorithm == a && t.rows[i].precision == p) return &t.rows[i];
    return nullptr;
}

const BoardTable* fallback(const TableSet& set, const char* board, int cc_major, int cc_minor,
                           int sm_count, Match* how) {
    if (const BoardTable* t = find_board_in(set, board)) {
        if (how) *how = kMatchBoard;
        return t;
    }
    if (cc_major > 0) {
        const BoardTable* best = nullptr;
        long best_gap = 0;
        for (int i = 0; i < set.count; ++i) {
            const BoardTable* t = set.boards[i];
            if (t->cc_major != cc_major || t->cc_minor != cc_minor || same(t->name, "generic")) continue;
            const long gap = std::labs(static_cast<long>(t->sm_count) - static_cast<long>(sm_count));
            if (!best || gap < best_gap) {
                best = t;
                best_gap = gap;
            }
        }
        if (best) {
            if (how) *how = kMatchComputeCapability;
            return best;
        }
    }
    const BoardTable* g = find_board_in(set, "generic");
    if (how) *how = kMatchGeneric;
    return g;
}

const char* platform_from_environment() {
    const char* e = std::getenv("OFLOW_PLATFORM");
    return empty(e) ? nullptr : e;
}

of_status resolve_table(const TableSet& set, const char* config_platform, const char* env_platform,
                        const DetectedPlatform& detected, Resolution* out, const ErrorSink& err) {
    const char* name = nullptr;
    const char* origin = nullptr;
    if (!empty(env_platform) && !same(env_platform, "auto")) {
        name = env_platform;
        origin = "OFLOW_PLATFORM";
    } else if (empty(env_platform) && !empty(config_platform) && !same(config_platform, "auto")) {
        name = config_platform;
        origin = "config.platform";
    }
    if (name) {
        const BoardTable* t = find_board_in(set, name);
        if (!t) {
            char known[96];
            list_names(set, known, sizeof known);
            return err.fail(OF_ERR_INVALID_ARGUMENT, "%s: unknown platform '%s' (known: %s, auto)", origin,
                            name, known);
        }
        out->table = t;
        out->how = kMatchOverride;
        std::snprintf(out->reason, sizeof out->reason, "table %s from %s", t->name, origin);
        return OF_OK;
    }
    Match how = kMatchGeneric;
    const BoardTable* t =
        fallback(set, detected.board, detected.cc_major, detected.cc_minor, detected.sm_count, &how);
    if (!t)
        return err.fail(OF_ERR_INTERNAL, "tuning: the table set has no 'generic' table to fall back to");
    out->table = t;
    out->how = how;
    switch (how) {
    case kMatchBoard:
        std::snprintf(out->reason, sizeof out->reason, "table %s: board detected (%s)", t->name,
                      detected.evidence);
        break;
    case kMatchComputeCapability:
        std::snprintf(out->reason, sizeof out->reason,
                      "table %s: same compute capability %d.%d (%d SMs here, %d in the table)%s%s", t->name,
                      detected.cc_major, detected.cc_minor, detected.sm_count, t->sm_count,
                      detected.board[0] ? "; no table for board " : "", detected.board);
        break;
    default:
        if (detected.cc_major > 0)
            std::snprintf(out->reason, sizeof out->reason,
                          "table generic: no table for %s compute capability %d.%d",
                          detected.board[0] ? detected.board : "this GPU,", detected.cc_major,
                          detected.cc_minor);
        else
            std::snprintf(out->reason, sizeof out->reason, "table generic: no CUDA device%s%s",
                          detected.board[0] ? ", no table for board " : "", detected.board);
        break;
    }
    return OF_OK;
}

of_status select_precision(const BoardTable& t, of_algorithm a, of_precision requested,
                           of_precision* out, const ErrorSink& err) {
    of_precision p = requested;
    if (requested == OF_PRECISION_AUTO) {
        const AlgorithmDefaults* d = nullptr;
        for (int i = 0; i < t.algorithm_count; ++i)
            if (t.algorithms[i].algorithm == a) d = &t.algorithms[i];
        if (!d)
            return err.fail(OF_ERR_UNSUPPORTED, "%s: table %s has no <algorithm name=\"%s\">", t.file, t.name,
                            algorithm_name(a));
        p = d->auto_precision;
    }
    const TuningRow* row = nullptr;
    const of_status s = need_row(t, a, p, &row, err);
    if (s != OF_OK) return s;
    *out = p;
    return OF_OK;
}

of_status select_paths(const BoardTable& t, of_algorithm a, of_precision p,
                       const std::uint64_t* level_areas, int levels, bool gpu_available,
                       PathPlan* out, const ErrorSink& err) {
    const TuningRow* row = nullptr;
    of_status s = need_row(t, a, p, &row, err);
    if (s != OF_OK) return s;
    s = check_levels(level_areas, levels, err);
    if (s != OF_OK) return s;
    out->row = row;
    out->levels = levels;
    out->gpu_levels = 0;
    for (int l = 0; l < kMaxLevels; ++l) out->path[l] = kPathCpu;
    const int side = rounded_side(row->crossover_area);
    if (!gpu_available) {
        std::snprintf(out->reason, sizeof out->reason, "%s %s: every level on the CPU (no GPU)",
                      algorithm_name(a), precision_name(p));
        return OF_OK;
    }
    for (int l = 0; l < levels; ++l) {
        const std::uint64_t decide = row->crossover_per_level ? level_areas[l] : level_areas[0];
        out->path[l] = decide >= row->crossover_area ? kPathGpu : kPathCpu;
        if (out->path[l] == kPathGpu) ++out->gpu_levels;
    }
    const char* tail = std::strrchr(t.file, '/');
    tail = tail ? tail + 1 : t.file;
    if (out->gpu_levels == levels && row->crossover_area == 0)
        std::snprintf(out->reason, sizeof out->reason, "%s %s: every level on the GPU (it always wins, %s:%d)",
                      algorithm_name(a), precision_name(p), tail, row->crossover_line);
    else if (out->gpu_levels == levels)
        std::snprintf(out->reason, sizeof out->reason, "%s %s: every level on the GPU (crossover %dx%d, %s:%d)",
                      algorithm_name(a), precision_name(p), side, side, tail, row->crossover_line);
    else if (out->gpu_levels == 0)
        std::snprintf(out->reason, sizeof out->reason,
                      "%s %s: every level on the CPU (frame below the crossover %dx%d, %s:%d)",
                      algorithm_name(a), precision_name(p), side, side, tail, row->crossover_line);
    else {
        char gpu[24], cpu[16];
        if (out->gpu_levels == 1)
            std::snprintf(gpu, sizeof gpu, "level 0");
        else
            std::snprintf(gpu, sizeof gpu, "levels 0-%d", out->gpu_levels - 1);
        if (out->gpu_levels == levels - 1)
            std::snprintf(cpu, sizeof cpu, "%d", levels - 1);
        else
            std::snprintf(cpu, sizeof cpu, "%d-%d", out->gpu_levels, levels - 1);
        std::snprintf(out->reason, sizeof out->reason,
                      "%s %s: %s on the GPU, %s on the CPU (crossover %dx%d per level, %s:%d)", algorithm_name(a),
                      precision_name(p), gpu, cpu, side, side, tail, row->crossover_line);
    }
    return OF_OK;
}

of_status select_launch(const BoardTable& t, of_algorithm a, of_precision p, std::uint64_t area,
                        unsigned variant_mask, LaunchChoice* out, const ErrorSink& err) {
    const TuningRow* row = nullptr;
    const of_status s = need_row(t, a, p, &row, err);
    if (s != OF_OK) return s;
    if (area == 0) return err.fail(OF_ERR_INVALID_ARGUMENT, "tuning: launch for an area of 0 pixels");
    const Bucket b = bucket_for_area(area);
    const LaunchRow* best = nullptr;
    for (int i = 0; i < row->launch_count; ++i) {
        const LaunchRow& l = row->launches[i];
        if (l.bucket != b || !(variant_mask & variant_bit(l.variant))) continue;
        if (!best || l.rank < best->rank) best = &l;
    }
    if (!best) {
        char vs[64];
        list_variants(variant_mask, vs, sizeof vs);
        return err.fail(OF_ERR_UNSUPPORTED, "%s:%d: %s %s has no launch row for bucket %s among variants %s",
                        t.file, row->line, algorithm_name(a), precision_name(p), bucket_name(b), vs);
    }
    out->row = best;
    out->bucket = b;
    return OF_OK;
}

PathCost cpu_cost(const PathCost& c, bool reference) {
    PathCost r = c;
    if (!reference) return r;
    r.arith = OF_PRECISION_F32; // core/ref computes F32 whatever the precision
    if (c.ref_ns_per_it_px > 0.0) r.ns_per_it_px = c.ref_ns_per_it_px;
    if (c.ref_frame_ns_per_px > 0.0) r.frame_ns_per_px = c.ref_frame_ns_per_px;
    return r;
}

namespace {

// The terms of `path` on a row: the GPU's, or the CPU path that runs (cpu_cost).
PathCost cost_on(const TuningRow& row, Path path, bool cpu_reference) {
    return path == kPathCpu ? cpu_cost(row.path[kPathCpu], cpu_reference) : row.path[path];
}

// frame_ms() in ns, split into the part fixed per frame and the part per iteration count; level
// l runs level_iterations(n, growth, l) (core/schedule.hpp) of the n that at() is asked for.
struct FrameModel {
    double fixed_ns; // frame_us, frame_ns_per_px * area_0, warps * sum_l level_us(path_l)
    int levels;
    float growth;
    std::uint32_t depth;
    double per_it_ns[kMaxLevels];     // warps * (area_l * ns_per_it_px + CPU launch_us: one per iteration)
    double gpu_launch_ns[kMaxLevels]; // warps * launch_us on a GPU level (one launch per depth iterations)

    double at(std::uint32_t n) const {
        double t = fixed_ns;
        for (int l = 0; l < levels; ++l) {
            const std::uint64_t nl = level_iterations(n, growth, l);
            const double launches = static_cast<double>((nl + depth - 1) / depth);
            t += static_cast<double>(nl) * per_it_ns[l] + launches * gpu_launch_ns[l];
        }
        return t;
    }
};

FrameModel model_of(const TuningRow& row, const std::uint64_t* areas, const Path* paths, int levels,
                    std::uint32_t warps, std::uint32_t gpu_depth, float growth, const LevelTerms* terms,
                    bool cpu_reference) {
    FrameModel m;
    std::memset(static_cast<void*>(&m), 0, sizeof m);
    m.levels = levels;
    m.growth = growth;
    m.depth = gpu_depth ? gpu_depth : 1u;
    const PathCost cost[kPathCount] = {cost_on(row, kPathCpu, cpu_reference), cost_on(row, kPathGpu, cpu_reference)};
    const PathCost& first = cost[paths[0]];
    const double px0 = terms ? terms->frame_px : static_cast<double>(areas[0]);
    m.fixed_ns = first.frame_us * 1e3 + first.frame_ns_per_px * px0;
    const double w = static_cast<double>(warps);
    double level_ns = 0.0; // sum over the levels of level_us, per warp
    for (int l = 0; l < levels; ++l) {
        const PathCost& c = cost[paths[l]];
        const bool gpu = paths[l] == kPathGpu;
        const double runs = terms ? terms->runs[l] : 1.0;
        m.per_it_ns[l] = runs * w * (static_cast<double>(areas[l]) * c.ns_per_it_px + (gpu ? 0.0 : c.launch_us * 1e3));
        m.gpu_launch_ns[l] = gpu ? runs * w * c.launch_us * 1e3 : 0.0;
        level_ns += c.level_us * 1e3;
        if (terms)
            level_ns += terms->fixed_launches[l] * c.launch_us * 1e3 + terms->fixed_work[paths[l]][l] * c.ns_per_it_px;
    }
    m.fixed_ns += w * level_ns;
    return m;
}

} // namespace

double frame_ms(const TuningRow& row, const std::uint64_t* level_areas, const Path* level_paths, int levels,
                std::uint32_t warps, std::uint32_t gpu_depth, std::uint32_t iterations, float growth,
                const LevelTerms* terms, bool cpu_reference) {
    return model_of(row, level_areas, level_paths, levels, warps, gpu_depth, growth, terms, cpu_reference)
               .at(iterations) *
           1e-6;
}

of_status iterations_for_budget(const BoardTable& t, of_algorithm a, of_precision p,
                                double budget_ms, const std::uint64_t* level_areas,
                                const Path* level_paths, int levels, std::uint32_t warps,
                                std::uint32_t gpu_depth, std::uint32_t max_iterations,
                                BudgetPlan* out, const ErrorSink& err, float growth, const LevelTerms* terms,
                                bool cpu_reference) {
    const TuningRow* row = nullptr;
    of_status s = need_row(t, a, p, &row, err);
    if (s != OF_OK) return s;
    s = check_levels(level_areas, levels, err);
    if (s != OF_OK) return s;
    if (!level_paths) return err.fail(OF_ERR_NULL_POINTER, "tuning: level paths are NULL");
    if (!(budget_ms > 0.0) || !std::isfinite(budget_ms))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "time_budget_ms %g: must be finite and > 0", budget_ms);
    if (warps < 1) return err.fail(OF_ERR_INVALID_ARGUMENT, "tuning: warps 0: must be >= 1");
    if (max_iterations < 1) return err.fail(OF_ERR_INVALID_ARGUMENT, "tuning: max_iterations 0: must be >= 1");
    for (int l = 0; l < levels; ++l)
        if (level_paths[l] != kPathCpu && level_paths[l] != kPathGpu)
            return err.fail(OF_ERR_INVALID_ARGUMENT, "tuning: level %d: path %d is neither cpu nor gpu", l,
                            static_cast<int>(level_paths[l]));
    if (!(growth >= 0.0f && growth <= kMaxIterationGrowth))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "tuning: iteration growth %g not in [0, %g]",
                        static_cast<double>(growth), static_cast<double>(kMaxIterationGrowth));
    const FrameModel m =
        model_of(*row, level_areas, level_paths, levels, warps, gpu_depth, growth, terms, cpu_reference);
    const double budget_ns = budget_ms * 1e6;
    if (m.at(1) > budget_ns) {
        if (m.fixed_ns > 0.0)
            return err.fail(OF_ERR_INVALID_ARGUMENT,
                            "time_budget_ms %g buys no iteration: a frame with one iteration on each of %d levels x "
                            "%u warps costs %.3g ms (%.3g ms of it fixed: the frame and level terms; %s:%d)",
                            budget_ms, levels, warps, m.at(1) * 1e-6, m.fixed_ns * 1e-6, t.file,
                            row->path[level_paths[0]].line);
        return err.fail(OF_ERR_INVALID_ARGUMENT,
                        "time_budget_ms %g buys no iteration: one iteration on each of %d levels x %u warps "
                        "costs %.3g ms (%s:%d)",
                        budget_ms, levels, warps, m.at(1) * 1e-6, t.file, row->line);
    }
    // Largest n with at(n) <= budget: at() never decreases with n.
    std::uint32_t lo = 1, hi = max_iterations;
    if (m.at(hi) <= budget_ns) lo = hi;
    while (lo < hi) {
        const std::uint32_t mid = lo + (hi - lo + 1) / 2;
        if (m.at(mid) <= budget_ns)
            lo = mid;
        else
            hi = mid - 1;
    }
    out->levels = levels;
    out->warps = warps;
    for (int l = 0; l < kMaxLevels; ++l) out->iterations[l] = l < levels ? level_iterations(lo, growth, l) : 0;
    out->predicted_ms = m.at(lo) * 1e-6;
    out->fixed_ms = m.fixed_ns * 1e-6;
    return OF_OK;
}

of_status iterations_for_budget(const BoardTable& t, of_algorithm a, of_precision p,
                                double budget_ms, const std::uint64_t* level_areas,
                                const Path* level_paths, int levels, std::uint32_t warps,
                                std::uint32_t max_iterations, BudgetPlan* out,
                                const ErrorSink& err) {
    return iterations_for_budget(t, a, p, budget_ms, level_areas, level_paths, levels, warps, 1u, max_iterations,
                                 out, err);
}

of_status schedule_for_budget(const BoardTable& t, of_algorithm a, of_precision p, double budget_ms,
                              const std::uint64_t* level_areas, const Path* level_paths, int levels,
                              std::uint32_t min_warps, std::uint32_t max_warps, std::uint32_t per_warp_cap,
                              std::uint32_t gpu_depth, std::uint32_t max_iterations, BudgetPlan* out,
                              const ErrorSink& err, float growth, const LevelTerms* terms, bool cpu_reference) {
    if (max_warps < min_warps)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "tuning: max_warps %u < min_warps %u", max_warps, min_warps);
    of_status s = iterations_for_budget(t, a, p, budget_ms, level_areas, level_paths, levels, min_warps, gpu_depth,
                                        max_iterations, out, err, growth, terms, cpu_reference);
    if (s != OF_OK || per_warp_cap == 0 || out->iterations[0] <= per_warp_cap) return s;
    const std::uint64_t total = static_cast<std::uint64_t>(out->iterations[0]) * min_warps;
    std::uint64_t w = (total + per_warp_cap - 1) / per_warp_cap;
    if (w > max_warps) w = max_warps;
    if (w <= min_warps) return OF_OK;
    // More warps cost more launches, so the per-warp count is recomputed, not divided. Should
    // the extra launches leave no iteration for w warps, the min_warps plan stands.
    BudgetPlan more;
    char quiet[kErrorCapacity];
    if (iterations_for_budget(t, a, p, budget_ms, level_areas, level_paths, levels, static_cast<std::uint32_t>(w),
                              gpu_depth, max_iterations, &more, ErrorSink{quiet}, growth, terms, cpu_reference) == OF_OK)
        *out = more;
    return OF_OK;
}

of_status check_timing(const BoardTable& t, of_algorithm a, of_precision p, Path path,
                       double measured_ns_per_it_px, TimingVerdict* verdict, double* ratio,
                       const ErrorSink& err) {
    const TuningRow* row = nullptr;
    const of_status s = need_row(t, a, p, &row, err);
    if (s != OF_OK) return s;
    if (path != kPathCpu && path != kPathGpu)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "tuning: path %d is neither cpu nor gpu", static_cast<int>(path));
    if (!(measured_ns_per_it_px > 0.0) || !std::isfinite(measured_ns_per_it_px))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "tuning: measured %g ns/iteration/pixel: must be finite and > 0",
                        measured_ns_per_it_px);
    const PathCost& c = row->path[path];
    const double r = measured_ns_per_it_px / c.ns_per_it_px;
    if (ratio) *ratio = r;
    *verdict = r > c.fail ? kTimingFail : r > c.warn ? kTimingWarn : kTimingOk;
    return OF_OK;
}

} // namespace platform
} // namespace oflow
