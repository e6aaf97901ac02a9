// Selection and planning (select.hpp): table, precision, backend per level, launch defaults,
// iterations from a time budget, and the memory plan; then what of_info says about it.
#include "core/select.hpp"
#include "core/init_dis.hpp"
#include "core/schedule.hpp"

#include "core/algorithm.hpp"
#include "core/robust.hpp"

#include "platform/detect.hpp"
#include "platform/table_load.hpp"

#if OF_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#endif
#if OF_HAVE_NEON
#include "neon/kernels_neon.hpp"
#endif

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace oflow {
namespace {

const char kForceVar[] = "OFLOW_FORCE_BACKEND";
const std::uint32_t kMaxIterations = kMaxLevelIterations; // config_check's bounds
// Whether CUDA can run here; why (why_len bytes) says why not.
bool cuda_usable(char* why, std::size_t why_len) {
#if OF_HAVE_CUDA
    return cuda::available(why, why_len);
#else
    std::snprintf(why, why_len, "this build has no CUDA backend (OF_WITH_CUDA was OFF or nvcc was missing)");
    return false;
#endif
}

// Compute capability (major*10+minor) and SMs of the current CUDA device; false when none.
bool cuda_caps(int* cc, int* sms) {
#if OF_HAVE_CUDA
    return cuda::device_caps(cc, sms);
#else
    (void)cc;
    (void)sms;
    return false;
#endif
}

// Whether NEON can run here; why (why_len bytes) says why not.
bool neon_usable(char* why, std::size_t why_len) {
#if OF_HAVE_NEON
    if (neon_available()) return true;
    std::snprintf(why, why_len, "this CPU has no Advanced SIMD");
    return false;
#else
    std::snprintf(why, why_len, "this build has no NEON backend (not aarch64, or OF_WITH_NEON=OFF)");
    return false;
#endif
}

bool neon_f16_arith() {
#if OF_HAVE_NEON
    return neon_has_f16_arith();
#else
    return false;
#endif
}

thread_local bool t_ignore_force = false; // set by of_selftest (ForceOverrideOff)

// The backend to resolve: cfg.backend, or OFLOW_FORCE_BACKEND when it is set and not empty
// (*forced then points at its value). An unknown value is an error, never ignored.
of_status requested_backend(const of_config& cfg, const ErrorSink& err, of_backend* out,
                            const char** forced) {
    *out = cfg.backend;
    *forced = nullptr;
    if (t_ignore_force) return OF_OK;
    const char* v = std::getenv(kForceVar);
    if (!v || v[0] == '\0') return OF_OK;
    struct Name {
        const char* name;
        of_backend backend;
    };
    static const Name kNames[] = {{"reference", OF_BACKEND_REFERENCE},
                                  {"neon", OF_BACKEND_NEON},
                                  {"cuda", OF_BACKEND_CUDA},
                                  {"auto", OF_BACKEND_AUTO}};
    for (const Name& n : kNames)
        if (std::strcmp(v, n.name) == 0) {
            *out = n.backend;
            *forced = n.name;
            return OF_OK;
        }
    return err.fail(OF_ERR_INVALID_ARGUMENT,
                    "%s=\"%.40s\": unknown backend (use reference, neon, cuda or auto)", kForceVar, v);
}

// A platform name that overrides detection (resolve_table's rule): non-empty and not "auto".
bool names_platform(const char* p) { return p && *p && std::strcmp(p, "auto") != 0; }

// The table for this machine (detection only where no name decides).
of_status resolve(const of_config& cfg, const platform::BoardTable* loaded, Selection* o, const ErrorSink& err) {
    const platform::BoardTable* storage[16];
    const platform::TableSet set = platform::tables_with(loaded, storage, 16);
    const char* env = platform::platform_from_environment();
    platform::DetectedPlatform det;
    platform::detect_platform(nullptr, 0, 0, 0, &det);
    // The CUDA device's facts matter only when no name and no table of the detected board decide.
    const bool named = names_platform(env) || (!env && names_platform(cfg.platform));
    if (!named && !platform::find_board_in(set, det.board)) {
        int cc = 0, sms = 0;
        if (cuda_caps(&cc, &sms)) platform::detect_platform(nullptr, cc / 10, cc % 10, sms, &det);
    }
    platform::Resolution r;
    const of_status s = platform::resolve_table(set, cfg.platform, env, det, &r, err);
    if (s != OF_OK) return s;
    o->table = r.table;
    o->match = r.how;
    std::snprintf(o->table_reason, sizeof o->table_reason, "%s", r.reason);
    return OF_OK;
}

// "auto: ..." for a backend the table chose; pp is select_paths' answer (GPU assumed present).
void auto_reason(const Selection& o, const platform::PathPlan& pp, const char* tag, bool gpu_present,
                 const char* cuda_why, char* out, std::size_t cap) {
    const char* cpu = o.cpu_backend == OF_BACKEND_NEON ? "NEON" : "reference";
    if (pp.gpu_levels == 0) { // short: an F16 note may follow (selection_info)
        const char* file = std::strrchr(o.table->file, '/');
        file = file ? file + 1 : o.table->file;
        const int side = static_cast<int>(std::sqrt(static_cast<double>(pp.row->crossover_area)) + 0.5);
        std::snprintf(out, cap, "%s: %s path: %s %s frame below the crossover %dx%d (%.40s:%d)", tag, cpu,
                      platform::algorithm_name(pp.row->algorithm), platform::precision_name(pp.row->precision), side,
                      side, file, pp.row->crossover_line);
    }
    else if (!gpu_present)
        std::snprintf(out, cap, "%s: %s path; the table wants the GPU on %d of %d levels, but %.70s", tag, cpu,
                      pp.gpu_levels, pp.levels, cuda_why);
    else
        std::snprintf(out, cap, "%s: %.140s", tag, pp.reason);
}

// Backend AUTO's CPU path in a build with NEON. The reference path where the row that models a
// reference run states its speed (ref_ns_per_it_px) and platform::frame_ms predicts its frame
// faster than NEON's; else NEON. Both frames are modelled alike: every level on the CPU, the
// config's levels, iterations, warps and schedule (a time budget's iterations depend on the
// path, so the comparison stays at the config's count); NEON with neon_row's own CPU terms, the
// reference with ref_row's platform::cpu_cost(.., true) (its ref_* terms). The iteration term,
// n_l x area_l x ns_per_it_px per level and warp, is linear in each level's pixels and the
// other per-level terms (launch_us, level_us) are shared, so a level-by-level comparison prefers
// the same path on every level: "per level" and "per frame" choose alike. Only the frame term
// (frame_ns_per_px, once on level 0) is not per level; the frame time counts it, so a split CUDA
// frame, whose CPU levels exclude level 0, takes the path the whole frame prefers.
struct CpuChoice {
    bool stated;      // the reference row states ref_ns_per_it_px (else NEON, as without it)
    bool reference;   // the reference path is faster
    double neon_ns, ref_ns; // ns/it/px of each
    double neon_ms, ref_ms; // predicted frame of each
};

CpuChoice choose_cpu_path(const platform::TuningRow& neon_row, const platform::TuningRow* ref_row,
                          const std::uint64_t* areas, int levels, std::uint32_t warps, std::uint32_t iterations,
                          float growth, const platform::LevelTerms* terms) {
    CpuChoice c;
    std::memset(static_cast<void*>(&c), 0, sizeof c);
    if (!ref_row || !platform::states_reference(ref_row->path[platform::kPathCpu])) return c;
    platform::Path cpu[kMaxLevels];
    for (int l = 0; l < kMaxLevels; ++l) cpu[l] = platform::kPathCpu;
    c.stated = true;
    c.neon_ns = platform::cpu_cost(neon_row.path[platform::kPathCpu], false).ns_per_it_px;
    c.ref_ns = platform::cpu_cost(ref_row->path[platform::kPathCpu], true).ns_per_it_px;
    c.neon_ms = platform::frame_ms(neon_row, areas, cpu, levels, warps, 1, iterations, growth, terms, false);
    c.ref_ms = platform::frame_ms(*ref_row, areas, cpu, levels, warps, 1, iterations, growth, terms, true);
    c.reference = c.ref_ms < c.neon_ms;
    return c;
}

// Why AUTO's CPU path is the one it is, for the reason ("" when the table states no reference
// speed, or this build has no NEON: the CPU path has nothing to weigh). The ns/it/px of each,
// or, where the frame term decides against them, the predicted frames.
void cpu_choice_text(const CpuChoice& c, char* out, std::size_t cap) {
    out[0] = '\0';
    if (!c.stated) return;
    const bool by_iterations = c.reference ? c.ref_ns < c.neon_ns : c.neon_ns <= c.ref_ns;
    const double mine = by_iterations ? (c.reference ? c.ref_ns : c.neon_ns) : (c.reference ? c.ref_ms : c.neon_ms);
    const double other = by_iterations ? (c.reference ? c.neon_ns : c.ref_ns) : (c.reference ? c.neon_ms : c.ref_ms);
    std::snprintf(out, cap, "%s (%.3g %s against %.3g)",
                  c.reference ? "the table's reference row is faster" : "NEON is faster than the table's reference row",
                  mine, by_iterations ? "ns/it/px" : "ms a frame", other);
}

// Appends "; text" to the reason (cut at its end when it does not fit).
void append_reason(char* reason, std::size_t cap, const char* text) {
    if (!text[0]) return;
    const std::size_t n = std::strlen(reason);
    if (n + 3 >= cap) return;
    const int room = static_cast<int>(cap - n - 3); // "; " and the NUL
    std::snprintf(reason + n, cap - n, "; %.*s", room, text);
}

} // namespace

ForceOverrideOff::ForceOverrideOff() : was_(t_ignore_force) { t_ignore_force = true; }
ForceOverrideOff::~ForceOverrideOff() { t_ignore_force = was_; }

of_status load_tuning_table(const char* path, platform::LoadedTable* storage, const ErrorSink& err) {
#if OF_HAVE_TINYXML2
    return platform::load_table_file(path, storage, err);
#else
    (void)storage;
    return err.fail(OF_ERR_UNSUPPORTED,
                    "config: tuning_path \"%.80s\": this library was built without OF_WITH_TINYXML2 (no XML "
                    "reader): use a compiled-in table (config.platform) or rebuild with -DOF_WITH_TINYXML2=ON",
                    path);
#endif
}

of_status select_and_plan(const of_config& cfg, std::size_t context_bytes, const platform::BoardTable* loaded,
                          SelectFor why, const ErrorSink& err, Selection* out) {
    Selection& o = *out;
    std::memset(static_cast<void*>(&o), 0, sizeof o);
    o.cfg = cfg;
    of_backend want = OF_BACKEND_AUTO;
    const char* forced = nullptr;
    of_status s = requested_backend(cfg, err, &want, &forced);
    if (s != OF_OK) return s;
    s = resolve(cfg, loaded, &o, err);
    if (s != OF_OK) return s;

    const Algorithm* alg = find_algorithm(cfg.algorithm);
    if (!alg) return err.fail(OF_ERR_INVALID_ARGUMENT, "config: algorithm %d is not registered", static_cast<int>(cfg.algorithm));

    // Precision, and the table's row for it.
    const of_algorithm algo = cfg.algorithm;
    of_precision prec = cfg.precision;
    o.precision_from_table = prec == OF_PRECISION_AUTO;
    bool described = false; // the table has an <algorithm> entry for it
    for (int i = 0; i < o.table->algorithm_count; ++i) described = described || o.table->algorithms[i].algorithm == algo;
    // A CPU-only algorithm the table does not describe runs F32 on the CPU path, unmodelled
    // (no row: no time budget, no predicted time); a GPU algorithm needs its table entry.
    const bool gpu_path = alg->gpu_path;
    const bool unmodelled = !described && !gpu_path;
    if (o.precision_from_table && unmodelled) {
        prec = OF_PRECISION_F32;
    } else if (o.precision_from_table) {
        s = platform::select_precision(*o.table, algo, OF_PRECISION_AUTO, &prec, err);
        if (s != OF_OK) return s;
    }
    o.cfg.precision = prec;
    // An algorithm without a CUDA path computes in F16 only on NEON with its F16 kernels and a
    // CPU with FP16 arithmetic; elsewhere it runs F32 whatever was asked (of_info notes the
    // wish), and its F32 row models the run: the paths, the predicted time, the time budget.
    char unused_why[96];
    // Under OF_ROBUST_CENSUS the CPU iteration is F32 (its two-channel threshold reads F32 duals,
    // KernelTable::tvl1_calc_u2).
    const bool cpu_f16_runs = alg->cpu_f16 && cfg.robust != OF_ROBUST_CENSUS && want != OF_BACKEND_REFERENCE &&
                              neon_usable(unused_why, sizeof unused_why) && neon_f16_arith();
    of_precision model_prec = !gpu_path && !cpu_f16_runs ? OF_PRECISION_F32 : prec;
    o.row = platform::find_row(*o.table, algo, model_prec);

    // Levels of the maximum frame, and the table's wish for each (its GPU assumed present).
    LevelDims dims[kMaxLevels];
    const int levels = pyramid_dims(static_cast<int>(cfg.max_width), static_cast<int>(cfg.max_height),
                                    static_cast<int>(cfg.levels), cfg.scale_factor, dims, pyramid_min_side(cfg.robust));
    std::uint64_t areas[kMaxLevels];
    for (int l = 0; l < levels; ++l) areas[l] = static_cast<std::uint64_t>(dims[l].w) * static_cast<std::uint64_t>(dims[l].h);
    // The algorithm's iterations in the model (core/algorithm.hpp IterationModel; nullptr: the
    // shared one). An algorithm with a model of its own has no iteration growth.
    const IterationModel* im = alg->iterations;
    const float growth = im ? 0.0f : cfg.iteration_growth;
    std::uint64_t model_areas[kMaxLevels];
    for (int l = 0; l < levels; ++l) model_areas[l] = areas[l];
    platform::LevelTerms terms;
    std::memset(static_cast<void*>(&terms), 0, sizeof terms);
    if (im) im->level_terms(cfg, levels, model_areas, &terms);
    const platform::LevelTerms* lt = im ? &terms : nullptr;

    // This build's CPU path: NEON where it is built and usable, else the reference. Under AUTO a
    // NEON build weighs the reference against it by the table (choose_cpu_path), here: after the
    // row is known, before the paths, the backend, the F16 choice and the model read it. An
    // explicit backend (config or OFLOW_FORCE_BACKEND) is never overridden.
    char neon_why[96] = {0};
    const bool neon_ok = neon_usable(neon_why, sizeof neon_why);
    o.cpu_backend = neon_ok ? OF_BACKEND_NEON : OF_BACKEND_REFERENCE;
    CpuChoice cpu_choice;
    std::memset(static_cast<void*>(&cpu_choice), 0, sizeof cpu_choice);
    if (neon_ok && want == OF_BACKEND_AUTO && o.row) {
        // The reference computes F32: an algorithm without a CUDA path models it by its F32 row
        // (as an explicit REFERENCE would), one with a CUDA path by the requested precision's.
        const of_precision ref_prec = gpu_path ? prec : OF_PRECISION_F32;
        const platform::TuningRow* ref_row = platform::find_row(*o.table, algo, ref_prec);
        cpu_choice = choose_cpu_path(*o.row, ref_row, model_areas, levels, cfg.warps, im ? im->get(cfg) : cfg.iterations,
                                     growth, lt);
        if (cpu_choice.reference) {
            o.cpu_backend = OF_BACKEND_REFERENCE;
            model_prec = ref_prec;
            o.row = ref_row;
        }
    }
    platform::PathPlan pp;
    std::memset(static_cast<void*>(&pp), 0, sizeof pp);
    if (o.row || (want == OF_BACKEND_AUTO && !unmodelled)) { // AUTO without a row: select_paths says what is missing
        s = platform::select_paths(*o.table, algo, model_prec, areas, levels, true, &pp, err);
        if (s != OF_OK) return s;
        o.have_wanted = true;
        for (int l = 0; l < kMaxLevels; ++l) o.wanted[l] = pp.path[l];
    }

    // The backend.
    char who[48];
    if (forced)
        std::snprintf(who, sizeof(who), "%s=%s", kForceVar, forced);
    else
        std::snprintf(who, sizeof(who), "config");
    const char* how = forced ? "forced by " : "requested";
    char why_not[160] = {0};
    const bool named = o.match == platform::kMatchOverride;
    bool cuda_ok = false;
    if (!gpu_path) { // no CUDA path for this algorithm: AUTO runs the CPU path
        if (want == OF_BACKEND_CUDA)
            return err.fail(OF_ERR_UNSUPPORTED, "%s: backend CUDA: %s has no CUDA path in this version (CPU paths only)",
                            who, alg->name);
        std::snprintf(why_not, sizeof why_not, "%s has no CUDA path in this version", alg->name);
    } else if (want == OF_BACKEND_CUDA || want == OF_BACKEND_AUTO) {
        cuda_ok = cuda_usable(why_not, sizeof why_not);
        o.gpu_assumed = !cuda_ok && why == SelectFor::kExplain && named;
    }
    of_backend backend = OF_BACKEND_REFERENCE;
    switch (want) {
    case OF_BACKEND_REFERENCE:
        std::snprintf(o.reason, sizeof o.reason, "reference %s%s", how, forced ? kForceVar : "");
        break;
    case OF_BACKEND_NEON:
        if (!neon_ok)
            return err.fail(OF_ERR_BACKEND_UNAVAILABLE, "%s: backend NEON unavailable: %s", who, neon_why);
        backend = OF_BACKEND_NEON;
        std::snprintf(o.reason, sizeof o.reason, "NEON %s%s", how, forced ? kForceVar : "");
        break;
    case OF_BACKEND_CUDA:
        if (!cuda_ok && !o.gpu_assumed)
            return err.fail(OF_ERR_BACKEND_UNAVAILABLE, "%s: backend CUDA unavailable: %s", who, why_not);
        backend = OF_BACKEND_CUDA;
        std::snprintf(o.reason, sizeof o.reason, "CUDA %s%s", how, forced ? kForceVar : "");
        break;
    case OF_BACKEND_AUTO:
    default: {
        const bool gpu_present = cuda_ok || o.gpu_assumed;
        backend = gpu_present && o.have_wanted && o.wanted[0] == platform::kPathGpu ? OF_BACKEND_CUDA : o.cpu_backend;
        if (o.have_wanted)
            auto_reason(o, pp, forced ? "auto (forced)" : "auto", gpu_present, why_not, o.reason, sizeof o.reason);
        else // unmodelled: a CPU-only algorithm the table has no entry for
            std::snprintf(o.reason, sizeof o.reason, "%s: %s path: %s%s table %s has no %s entry",
                          forced ? "auto (forced)" : "auto", o.cpu_backend == OF_BACKEND_NEON ? "NEON" : "reference",
                          alg->name, gpu_path ? ":" : " has no CUDA path and", o.table->name, alg->name);
        if (backend != OF_BACKEND_CUDA) { // the CPU path runs the frame: why this one
            char why_cpu[160];
            cpu_choice_text(cpu_choice, why_cpu, sizeof why_cpu);
            append_reason(o.reason, sizeof o.reason, why_cpu);
        }
        break;
    }
    }
    if (o.gpu_assumed && backend == OF_BACKEND_CUDA) {
        const std::size_t n = std::strlen(o.reason);
#if OF_HAVE_CUDA
        std::snprintf(o.reason + n, sizeof o.reason - n, "; GPU assumed");
#else
        std::snprintf(o.reason + n, sizeof o.reason - n, "; GPU assumed, CUDA not built");
#endif
    }
    // AUTO on CUDA where the table wants coarse levels on the CPU: split the frame there (the
    // levels wanted on the CPU are a suffix: areas shrink with the level). Not under robust pick:
    // its candidates' solves run back to back in one graph, with no host wait between them. Not
    // under robust census either: its per-pair and per-level scalars (core/census.hpp: each
    // frame's level-0 RMS gradient, each level's eta) live on the device, which the CPU levels
    // of a split frame would not see. Not with init dis either (cuda/init_dis_cuda.cu): DIS's flow
    // is on the device and the fused level (1) could be one of the CPU's; the GPU runs it all.
    o.split_from = 0;
    if (want == OF_BACKEND_AUTO && backend == OF_BACKEND_CUDA && o.have_wanted && cfg.robust != OF_ROBUST_PICK &&
        cfg.robust != OF_ROBUST_CENSUS && cfg.init != OF_INIT_DIS)
        for (int l = 1; l < levels; ++l)
            if (o.wanted[l] == platform::kPathCpu) {
                o.split_from = l;
                break;
            }
    if (o.split_from > 0 && cpu_choice.stated) { // the coarse levels run the CPU path: which, and why (short: the
                                                 // reason already holds the split)
        const CpuChoice& c = cpu_choice;
        char text[96];
        if (c.reference)
            std::snprintf(text, sizeof text, "CPU levels: reference path (%.3g ns/it/px against NEON's %.3g)", c.ref_ns,
                          c.neon_ns);
        else
            std::snprintf(text, sizeof text, "CPU levels: NEON (%.3g ns/it/px against the reference's %.3g)", c.neon_ns,
                          c.ref_ns);
        append_reason(o.reason, sizeof o.reason, text);
    }
    const bool cpu_neon = backend == OF_BACKEND_NEON || (o.split_from > 0 && o.cpu_backend == OF_BACKEND_NEON);
    o.cpu_f16 = cpu_neon && prec == OF_PRECISION_F16 && neon_f16_arith() && alg->cpu_f16 && cfg.robust != OF_ROBUST_CENSUS;
    // The CPU levels' terms in the model (platform::cpu_cost): the reference's where the reference
    // runs them (explicitly, by AUTO's choice, or in a build without NEON), else NEON's.
    const bool cpu_reference = backend == OF_BACKEND_REFERENCE ||
                               (backend == OF_BACKEND_CUDA && o.cpu_backend == OF_BACKEND_REFERENCE);

    // CUDA launch shape: the table's defaults for the maximum frame, what the config sets wins.
    if (backend == OF_BACKEND_CUDA) {
        if (o.row) {
            char quiet[kErrorCapacity];
            platform::LaunchChoice lc;
            of_variant v = OF_VARIANT_AUTO;
            // Under census the iterations run F32 whatever was asked, TV-L1's GLOBAL
            // (cuda::tvl1_run_config, cuda::hs_resolve_tuning): the table's defaults for that.
            const of_config run = algo == OF_ALGO_TVL1 ? cuda::tvl1_run_config(cfg) : cfg;
            const of_precision launch_prec = cfg.robust == OF_ROBUST_CENSUS ? OF_PRECISION_F32 : prec;
            if (platform::select_launch(*o.table, algo, launch_prec, areas[0], platform::variant_mask_for(run.variant), &lc,
                                        ErrorSink{quiet}) == OF_OK &&
                platform::to_of_variant(lc.row->variant, &v))
                o.launch = cuda::LaunchDefaults{true,           v,           lc.row->block_w, lc.row->block_h,
                                                lc.row->rows,   lc.row->depth, lc.row->bound};
        }
        if (alg->cuda) {
            s = alg->cuda->resolve_tuning(o.cfg, &o.launch, &o.tuning, err);
            if (s != OF_OK) return s;
        } else { // gpu_assumed on a build without CUDA: the shape it would have
            cuda::default_shape(o.cfg.algorithm == OF_ALGO_TVL1 ? cuda::tvl1_run_config(o.cfg) : o.cfg, &o.launch,
                                &o.tuning);
        }
    }

    // Iterations: the budget's, on the paths that run.
    platform::Path run[kMaxLevels];
    for (int l = 0; l < kMaxLevels; ++l)
        run[l] = backend == OF_BACKEND_CUDA && (o.split_from == 0 || l < o.split_from) ? platform::kPathGpu
                                                                                      : platform::kPathCpu;
    std::uint32_t depth = 1;
    if (backend == OF_BACKEND_CUDA && im && im->gpu_per_launch)
        depth = im->gpu_per_launch;
    else if (backend == OF_BACKEND_CUDA && o.tuning.variant == OF_VARIANT_MULTI_ITER)
        depth = static_cast<std::uint32_t>(o.tuning.depth);
    const std::uint32_t max_iterations = im ? im->max : kMaxIterations;
    if (cfg.time_budget_ms > 0.0f) {
        platform::BudgetPlan b;
        // Robust pick solves the pair robust_passes() times: each solve gets its share.
        const double passes = static_cast<double>(robust_passes(cfg.robust, cfg.algorithm));
        s = platform::schedule_for_budget(*o.table, algo, model_prec, static_cast<double>(cfg.time_budget_ms) / passes,
                                          model_areas, run, levels, cfg.warps, alg->max_warps,
                                          OF_BUDGET_ITERATIONS_PER_WARP, depth, max_iterations, &b, err, growth, lt,
                                          cpu_reference);
        if (s != OF_OK) return s;
        if (im)
            im->set(&o.cfg, b.iterations[0]);
        else
            o.cfg.iterations = b.iterations[0];
        o.cfg.warps = b.warps;
        o.predicted_ms = b.predicted_ms * passes;
    } else if (o.row) {
        o.predicted_ms = platform::frame_ms(*o.row, model_areas, run, levels, cfg.warps, depth,
                                            im ? im->get(cfg) : cfg.iterations, growth, lt, cpu_reference) *
                         static_cast<double>(robust_passes(cfg.robust, cfg.algorithm));
    }
    o.iterations = im ? im->get(o.cfg) : o.cfg.iterations;

    // Memory.
    PlanInputs in{backend, context_bytes, 0, 0, 0, cfg.tuning_path ? sizeof(platform::LoadedTable) : 0, o.split_from, 0};
    o.memory_planned = true;
    if (backend == OF_BACKEND_CUDA) {
        if (alg->cuda) {
            cuda::Need need{};
            s = alg->cuda->plan(o.cfg, &o.launch, &need, err);
            if (s != OF_OK) return s;
            in.cuda_state_bytes = need.state_bytes;
            in.pinned_bytes = need.pinned_bytes;
            in.device_bytes = need.device_bytes;
            o.stream_device_bytes = need.stream_bytes;
            for (int i = 0; i < need.device_count; ++i) o.device_rows[i] = need.device_rows[i];
            for (int i = 0; i < need.pinned_count; ++i) o.pinned_rows[i] = need.pinned_rows[i];
            o.device_count = need.device_count;
            o.pinned_count = need.pinned_count;
        } else {
            o.memory_planned = false; // only with gpu_assumed: nothing in this build could run it
        }
    }
    // config.init OF_INIT_DIS: its DIS pass's own plan (core/init_dis.hpp), on the same backend: its
    // host bytes in kBufInitArena; on CUDA its device bytes after the path's own in the device arena
    // (cuda/init_dis_cuda.cu), so of_query_memory counts both.
    if (cfg.init == OF_INIT_DIS && o.memory_planned) {
        const of_config d = init_dis_config(o.cfg, backend);
        Selection ds;
        // On CUDA it runs on the parent's board (init_dis_config): the parent's loaded table too.
        s = select_and_plan(d, context_bytes, backend == OF_BACKEND_CUDA ? loaded : nullptr, why, err, &ds);
        if (s != OF_OK) return s;
        in.init_host_bytes = ds.plan.host_bytes;
        if (backend == OF_BACKEND_CUDA) {
            o.init_device_bytes = ds.plan.device_bytes;
            const std::size_t off = cuda::init_child_offset(in.device_bytes);
            if (ds.plan.device_bytes > SIZE_MAX - off)
                return err.fail(OF_ERR_OVERFLOW, "config: CUDA memory plan for %ux%u overflows size_t", cfg.max_width,
                                cfg.max_height);
            in.device_bytes = off + ds.plan.device_bytes;
            if (o.device_count < cuda::kMaxLayoutRows)
                o.device_rows[o.device_count++] =
                    cuda::LayoutRow{"init_dis", "init dis: the DIS pass's own device arena (its context's planes)", off,
                                    ds.plan.device_bytes};
        }
    }
    if (make_plan(o.cfg, in, &o.plan) != OF_OK)
        return err.fail(OF_ERR_OVERFLOW, "config: memory plan for %ux%u overflows size_t",
                        cfg.max_width, cfg.max_height);
    return OF_OK;
}

void selection_info(const Selection& s, of_info* info) {
    of_info in;
    std::memset(&in, 0, sizeof in);
    in.struct_size = sizeof(of_info);
    in.algorithm = s.cfg.algorithm;
    const of_backend b = s.plan.backend;
    in.backend = b;
    const bool cuda = b == OF_BACKEND_CUDA;
    const Algorithm* alg = find_algorithm(s.cfg.algorithm);
    const IterationModel* im = alg ? alg->iterations : nullptr;
    in.precision = cuda ? s.tuning.precision : s.cpu_f16 ? OF_PRECISION_F16 : OF_PRECISION_F32;
    if (cuda)
        std::snprintf(in.variant, sizeof in.variant, "%s", cuda::tuning_name(s.tuning));
    else if (b == OF_BACKEND_NEON)
        std::snprintf(in.variant, sizeof in.variant, "%s", s.cpu_f16 ? "neon_f16" : "neon");
    else
        std::snprintf(in.variant, sizeof in.variant, "ref");
    in.levels = static_cast<uint32_t>(s.plan.levels);
    in.threads = s.cfg.threads;
    in.host_bytes = s.memory_planned ? s.plan.host_bytes : 0;
    in.device_bytes = s.memory_planned ? s.plan.device_bytes : 0;
    // An F16 wish the path cannot honour is noted after the reason (cut to make room for it).
    char note[96] = "";
    const char* asked = s.precision_from_table ? "F16 by the table" : "F16 requested";
    if (s.cfg.precision == OF_PRECISION_F16 && in.precision != OF_PRECISION_F16)
        std::snprintf(note, sizeof note, "; %s, %s", asked,
                      b != OF_BACKEND_NEON ? "this path computes in F32"
                      : neon_f16_arith()   ? "no F16 NEON kernels for this algorithm; runs F32"
                                           : "this CPU has no FP16 vector arithmetic; runs F32");
    const int room = static_cast<int>(sizeof in.reason - 1 - std::strlen(note));
    std::snprintf(in.reason, sizeof in.reason, "%.*s%s", room, s.reason, note);
    std::snprintf(in.board, sizeof in.board, "%s", s.table->name);
    std::snprintf(in.board_match, sizeof in.board_match, "%s", platform::match_name(s.match));
    std::snprintf(in.board_reason, sizeof in.board_reason, "%s", s.table_reason);
    in.iterations = s.iterations;
    in.warps = s.cfg.warps;
    in.predicted_ms = s.predicted_ms;
    in.robust = s.cfg.robust;
    in.last_pick = s.cfg.robust; // OF_ROBUST_PICK: each frame sets the candidate it kept
    in.robust_sigma = s.cfg.robust_sigma;
    in.median_size = s.cfg.median_size;
    in.min_texture = texture_rule_applies(s.cfg.levels, s.cfg.min_texture, s.cfg.robust) ? s.cfg.min_texture : 0.0f;
    const bool hs = s.cfg.algorithm == OF_ALGO_HS || s.cfg.algorithm == OF_ALGO_CLG;
    in.solver = hs ? s.cfg.hs.solver : OF_SOLVER_PRIMAL_DUAL;
    in.omega = hs && s.cfg.hs.solver == OF_SOLVER_RED_BLACK_SOR ? s.cfg.hs.omega : 0.0f;
    in.alpha = hs ? s.cfg.hs.alpha : 0.0f;
    in.rho = s.cfg.algorithm == OF_ALGO_CLG ? s.cfg.hs.rho : 0.0f;
    in.iteration_growth = s.cfg.iteration_growth;
    in.warm_start = s.cfg.robust == OF_ROBUST_PICK ? 0u : s.cfg.warm_start; // pick: not applied
    in.stream_host_bytes = s.memory_planned ? s.plan.stream_host_bytes : 0;
    in.stream_device_bytes = s.memory_planned ? s.stream_device_bytes : 0;
    if (cuda) {
        in.block_width = static_cast<uint32_t>(s.tuning.bw);
        in.block_height = static_cast<uint32_t>(s.tuning.bh);
        in.rows_per_thread = static_cast<uint32_t>(s.tuning.rows);
        in.fused_depth = static_cast<uint32_t>(s.tuning.depth);
    }
    for (int l = 0; l < s.plan.levels && l < OF_MAX_LEVELS; ++l) {
        in.level_width[l] = static_cast<uint32_t>(s.plan.dims[l].w);
        in.level_height[l] = static_cast<uint32_t>(s.plan.dims[l].h);
        in.level_wanted[l] = !s.have_wanted ? OF_BACKEND_AUTO
                             : s.wanted[l] == platform::kPathGpu ? OF_BACKEND_CUDA
                                                                 : s.cpu_backend;
        in.level_backend[l] = s.split_from > 0 && l >= s.split_from ? s.cpu_backend : b;
        in.level_iterations[l] = im ? im->at_level(s.cfg, s.iterations, l)
                                    : level_iterations(s.iterations, s.cfg.iteration_growth, l);
    }
    *info = in;
}

} // namespace oflow
