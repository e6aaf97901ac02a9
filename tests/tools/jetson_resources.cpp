// oflow-jetson-resources: the resource check of the Jetson stage (scripts/jetson_archs.sh).
//
// Input: ptxas reports (nvcc --resource-usage, kept per object by scripts/ptxas_log.sh) of the
// CUDA sources compiled for sm_53 (Nano), sm_62 (TX2), sm_72 (Xavier) and sm_87 (Orin). For
// each such board it takes every kernel the board can run:
//  - the fixed-shape kernels (conversion, pyramid, warp, robust stages, output, the HS/CLG
//    per-warp stages, self-test hooks), at their fixed blocks (cuda/cuda_layout.hpp
//    kPlaneBlockX x kPlaneBlockY, kReduceThreads; one thread for the two single-thread kernels);
//  - the TV-L1 iteration kernel of every tvl1 <launch> row of the board's built-in table, at the
//    row's block, rows per thread, launch bound (the row's `bound`, else
//    cuda::multi_default_bound) and dynamic shared memory, as cuda::default_shape and
//    resolve_tuning resolve them for a config that asks for that variant and precision;
//  - the HS/CLG iteration kernel of every hs and clg <launch> row, for each solver (Jacobi and
//    red-black SOR), at the shape the library's own resolution (cuda::hs_resolve_tuning, reached
//    through the algorithm registry as core/select.cpp does) gives a config of that algorithm,
//    precision, variant and solver with the row as its table defaults;
//  - the Lucas-Kanade step kernels of every lk <launch> row at the shape cuda::lk_resolve_tuning
//    (reached the same way) gives, with the most dynamic shared memory any window (3..33) takes;
// and fails when, on that board's architecture:
//  - the kernel has no code;
//  - registers x threads exceed the board's registers per block (registers allocated per warp
//    in units of 256: per thread, rounded up to a multiple of 8);
//  - static + dynamic shared memory exceed the board's shared memory per block;
//  - the stack frame (spilled registers and local arrays) exceeds 128 bytes per thread;
//  - (HS/CLG) the resolution refuses the row, so a context would not create.
// A kernel in the reports that the registry below does not know is an error too, so a new
// kernel cannot pass unchecked. Rows of variants without CUDA kernels (pipeline), and of an
// algorithm whose registry entry has no CUDA path, are listed, not checked. In a build of the
// library without CUDA (the suite also runs this tool's fixture tests there) the HS/CLG/LK
// resolutions do not exist: their rows are then listed as not checked, and --require-cuda makes
// that an error for every algorithm whose entry says it has a CUDA path (gpu_path; the Jetson
// stage passes it).
//
// Output: a Markdown report on stdout (--markdown FILE: also written there; the stage keeps it
// as docs/jetson-resources.md). Exit status: 0 all fit, 1 a check failed, 2 usage or input error.
// Usage: oflow-jetson-resources [--require-cuda] [--markdown FILE] REPORT...
#include "oflow.h"

#include "core/algorithm.hpp"
#include "core/lk_kernels.hpp"
#include "cuda/cuda_layout.hpp"
#include "platform/tuning.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace oflow;

const int kMaxStack = 128; // bytes per thread

struct Res {
    int regs = 0, stack = 0, spill = 0, smem = 0;
};
// (architecture "sm_53", kernel "k_multi_f16x2<4, 128>") -> resources
using ResMap = std::map<std::pair<std::string, std::string>, Res>;

// "void oflow::cuda::(anonymous namespace)::k_multi_f16x2<4, 128>(oflow::cuda::IterArgs<...>, int)"
// -> "k_multi_f16x2<4, 128>"
std::string short_name(const std::string& mangled) {
    int st = 0;
    char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &st);
    std::string s = st == 0 && d ? d : mangled;
    std::free(d);
    for (const char* cut : {"oflow::cuda::", "(anonymous namespace)::", "oflow::"}) {
        for (std::size_t p; (p = s.find(cut)) != std::string::npos;) s.erase(p, std::strlen(cut));
    }
    if (s.compare(0, 5, "void ") == 0) s.erase(0, 5);
    // Drop the parameter list: the last top-level '(' (template arguments may hold parentheses).
    int depth = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '<') ++depth;
        if (s[i] == '>') --depth;
        if (s[i] == '(' && depth == 0) return s.substr(0, i);
    }
    return s;
}

std::string base_of(const std::string& k) { return k.substr(0, k.find('<')); }

int number_before(const std::string& line, const char* what) {
    const std::size_t p = line.find(what);
    if (p == std::string::npos) return -1;
    std::size_t b = p;
    while (b > 0 && line[b - 1] == ' ') --b;
    std::size_t a = b;
    while (a > 0 && line[a - 1] >= '0' && line[a - 1] <= '9') --a;
    return a == b ? -1 : std::atoi(line.substr(a, b - a).c_str());
}

// Reads one ptxas report: "Compiling entry function 'NAME' for 'sm_XX'", then "N bytes stack
// frame, S bytes spill stores, ...", then "Used R registers, ..., M bytes smem, ...".
bool read_report(const char* path, ResMap* out, std::set<std::string>* archs) {
    std::ifstream f(path);
    if (!f) {
        std::fprintf(stderr, "oflow-jetson-resources: cannot read %s\n", path);
        return false;
    }
    std::string line, name, arch;
    Res r;
    while (std::getline(f, line)) {
        const std::size_t e = line.find("Compiling entry function '");
        if (e != std::string::npos) {
            const std::size_t a = e + std::strlen("Compiling entry function '");
            const std::size_t b = line.find('\'', a);
            const std::size_t c = line.find("for '", b);
            if (b == std::string::npos || c == std::string::npos) continue;
            name = short_name(line.substr(a, b - a));
            arch = line.substr(c + 5, line.find('\'', c + 5) - (c + 5));
            r = Res();
            continue;
        }
        if (name.empty()) continue;
        if (line.find("bytes stack frame") != std::string::npos) {
            r.stack = number_before(line, "bytes stack frame");
            r.spill = number_before(line, "bytes spill stores");
        } else if (line.find("Used ") != std::string::npos && line.find(" registers") != std::string::npos) {
            r.regs = number_before(line, "registers");
            r.smem = std::max(0, number_before(line, "bytes smem"));
            (*out)[{arch, name}] = r;
            archs->insert(arch);
            name.clear();
        }
    }
    return true;
}

// ---- the registry: every kernel cuda/ defines, and how it is launched -------------------------
const int kPlane = cuda::kPlaneBlockX * cuda::kPlaneBlockY;
struct Fixed {
    const char* base;
    int threads;
    std::size_t dyn_shared; // most dynamic shared memory per block
};
const Fixed kFixed[] = {
    {"k_convert", kPlane, 0},
    {"k_nonfinite", kPlane, 0},
    {"k_blur_h", kPlane, 0},
    {"k_blur_v", kPlane, 0},
    {"k_blur", kPlane, cuda::kMaxDynamicShared}, // blur_rows keeps the tile within it
    {"k_resample", kPlane, 0},
    {"k_upsample_flow", kPlane, 0},
    {"k_write_planar", kPlane, 0},
    {"k_warp", kPlane, 0},
    {"k_pingpong_fixup", kPlane, 0},
    {"k_robust_sq", kPlane, 0},
    {"k_robust_combine", kPlane, 0},
    {"k_median_flow", kPlane, 0},
    {"k_finish_level", kPlane, 0},
    {"k_map_range", kPlane, 0},
    {"k_texture_partial", cuda::kReduceThreads, 0},
    {"k_exposure_hist", cuda::kReduceThreads, 0},
    {"k_texture_top", 1, 0},
    {"k_exposure_match", 1, 0},
    {"hooks::k_pack", kPlane, 0}, // self-test and bench hooks (cuda_bench.cu)
    {"hooks::k_unpack", kPlane, 0},
    {"hooks::k_unpack4", kPlane, 0},
    // HS / CLG per-warp stages (hs_stages_cuda.cu, hs_jacobi_cuda.cu; hs_cuda.cuh).
    {"k_hs_warp_image", kPlane, 0},
    {"k_hs_derivatives", kPlane, 0},
    {"k_hs_tensor_blur", kPlane, cuda::kMaxDynamicShared}, // tensor_blur_rows keeps the tile within it
    {"k_hs_coef", kPlane, 0},
    {"k_hs_add_increment", kPlane, 0},
    {"k_hs_fixup", kPlane, 0},
    {"k_unpack_increment", kPlane, 0}, // HS test hook (hs_frame.cu hs_unpack_increment)
    // LK per-level setup (lk_stages_cuda.cu) and the validity output (pyramid_cuda.cu).
    {"k_lk_gradient", kPlane, 0},
    {"k_lk_tensor_h", kPlane, 0},
    {"k_lk_confidence", kPlane, 0},
    {"k_write_validity", kPlane, 0},
    // Dense Inverse Search (dis_stages_cuda.cu, dis_global_cuda.cu, dis_fused_cuda.cu): fixed
    // blocks, a thread per pixel or kDisPatchThreads a block over the patches (FUSED: kDisLanes
    // lanes a patch); its refinement's SOR is HS's (k_hs_sor_half / k_hs_sor_fused, below).
    {"k_dis_gradient", kPlane, 0},
    {"k_dis_patch_sums", cuda::kDisPatchThreads, 0},
    {"k_dis_init", cuda::kDisPatchThreads, 0},
    {"k_dis_densify", kPlane, 0},
    {"k_dis_refine_coef", kPlane, 0},
    {"k_dis_search_global", cuda::kDisPatchThreads, 0},
    {"k_dis_propagate_global", cuda::kDisPatchThreads, 0},
    {"k_dis_round_fused", cuda::kDisPatchThreads, 0},
    {"k_dis_round_fused8", cuda::kDisPatchThreads, 0}, // patch side 8: frame 0's row in registers
    // The compact flow outputs (flow_format_cuda.cu).
    {"k_write_flow16", kPlane, 0},
    // A stream's warm start (warm_start_cuda.cu): residual sums and the choice in 256-thread
    // blocks, the copy per pixel.
    {"k_warm_residual", 256, 0},
    {"k_warm_decide", 256, 0},
    {"k_warm_select", kPlane, 0},
    // Robust pick's judge (robust_pick_cuda.cu): residual sums and the choice in 256-thread
    // blocks, the kept flow's copy per pixel.
    {"k_pick_residual", 256, 0},
    {"k_pick_select", 256, 0},
    {"k_pick_keep", kPlane, 0},
    // Robust shade-norm (shade_norm_cuda.cu): the box passes, a thread per 64 outputs of a row or
    // column in 128-thread blocks (kShadeThreads there), the division per pixel.
    {"k_shade_rows", 128, 0},
    {"k_shade_cols", 128, 0},
    {"k_shade_divide", kPlane, 0},
    // The residual confidence (confidence_cuda.cu): a 32x8 tile per block, its halo in static
    // shared memory (6528 bytes).
    {"k_confidence", kPlane, 0},
    // Robust census (census_cuda.cu, census_stats_cuda.cu): the per-warp channels and tensor per
    // pixel, the rows' reductions in kReduceThreads blocks, the scalars in one thread; CLG's blur
    // of the census tensor (hs_stages_cuda.cu); TV-L1's census calc_u (tvl1_global_cuda.cu) at the
    // built-in 32x8 block (under census TV-L1 runs GLOBAL F32 whatever its row's variant: a GLOBAL
    // F32 row's block, checked with the rows below, else 32x8).
    {"k_census_tvl1", kPlane, 0},
    {"k_census_tensor", kPlane, 0},
    {"k_census_rows", cuda::kReduceThreads, 0},
    {"k_census_rms0", 1, 0},
    {"k_census_eta", 1, 0},
    {"k_init_cost", kPlane, 0},   // init_fuse_cuda.cu (config.init OF_INIT_DIS)
    {"k_init_choose", kPlane, 0},
    {"k_hs_planes_blur", kPlane, cuda::kMaxDynamicShared}, // tensor_blur_rows keeps the tile within it
    {"k_global_calc_u2", kPlane, 0},
    // LK's census steps (lk_census_cuda.cu) at the built-in 32x8 block: under census LK runs them
    // at GLOBAL's shape whatever its row's variant (a GLOBAL F32 row's block, checked with the rows
    // below, else 32x8).
    {"k_lk_census_rows", kPlane, 0},
    {"k_lk_census_step", kPlane, 0},
};
// Iteration kernels: their blocks come from the tables. TV-L1's (tvl1_*_cuda.cu), HS/CLG's
// (hs_jacobi_cuda.cu, hs_multi_cuda.cu, hs_sor_cuda.cu), then LK's Newton steps (lk_global_cuda.cu,
// lk_fused_cuda.cu, lk_tile_cuda.cu).
const char* const kIteration[] = {"k_global_calc_u",     "k_global_calc_p",   "k_fused",       "k_multi",
                                  "k_multi_f16x2",       "k_hs_jacobi_global", "k_hs_multi",   "k_hs_sor_half",
                                  "k_hs_sor_fused",      "k_lk_global",        "k_lk_fused_residual",
                                  "k_lk_fused_update",   "k_lk_tile"};

const Fixed* fixed_of(const std::string& base) {
    for (const Fixed& f : kFixed)
        if (base == f.base) return &f;
    return nullptr;
}
bool is_iteration(const std::string& base) {
    for (const char* k : kIteration)
        if (base == k) return true;
    return false;
}

// Which rows launched a kernel: each family has its own section of the report.
enum Family : int { kTvl1Rows = 0, kHsRows = 1, kLkRows = 2 };

// One kernel as a board launches it.
struct Use {
    std::string kernel; // short name; empty: the row cannot run (refused: why)
    int threads;
    std::size_t dyn;    // dynamic shared memory
    std::string why;    // "fixed", or the table rows: "f16 multi_iter 32x4 r4 d3 b128: 512,1024"
    int family;         // Family of the row
    std::string refused; // kernel empty: why the library refuses the row
};

// The config a <launch> row is resolved with: the algorithm's defaults under a non-census robust
// mode without the DIS pass. The default (census + init dis) runs every iteration kernel as GLOBAL
// F32 whatever a row asks, which would leave the rows' own kernels (F16, FUSED, MULTI_ITER) checked
// against no board; census's kernels are added to the rows that launch them explicitly below.
of_config row_config(of_algorithm algo) {
    of_config cfg;
    of_config_init(&cfg, algo);
    cfg.robust = OF_ROBUST_LEVEL_NORM;
    cfg.init = OF_INIT_NONE;
    return cfg;
}

const char* pair_type(of_precision p) { return p == OF_PRECISION_F16 ? "__half2" : "float2"; }

// The iteration kernels one tvl1 <launch> row selects. *desc: the row as resolved, "f32 global
// 64x8" or "f16 multi_iter 32x4 r4 d3 b512".
std::vector<Use> row_uses(of_precision prec, const platform::LaunchRow& l, std::string* desc) {
    std::vector<Use> u;
    of_variant v;
    if (!platform::to_of_variant(l.variant, &v)) return u;
    of_config cfg = row_config(OF_ALGO_TVL1);
    cfg.variant = v;
    cfg.precision = prec;
    cuda::LaunchDefaults d = {true, v, l.block_w, l.block_h, l.rows, l.depth, l.bound};
    cuda::Tuning t;
    cuda::default_shape(cfg, &d, &t);
    const int threads = t.bw * t.bh;
    char buf[96];
    const std::string T2 = pair_type(prec);
    switch (v) {
    case OF_VARIANT_GLOBAL:
        std::snprintf(buf, sizeof buf, "%dx%d", t.bw, t.bh);
        u.push_back({"k_global_calc_u<" + T2 + ">", threads, 0, "", kTvl1Rows, ""});
        u.push_back({"k_global_calc_p<" + T2 + ">", threads, 0, "", kTvl1Rows, ""});
        if (prec == OF_PRECISION_F32) // robust census's calc_u at the row's block
            u.push_back({"k_global_calc_u2", threads, 0, "", kTvl1Rows, ""});
        break;
    case OF_VARIANT_FUSED:
        std::snprintf(buf, sizeof buf, "%dx%d", t.bw, t.bh);
        u.push_back({"k_fused<" + T2 + ">", threads, cuda::fused_shared_bytes(prec, t.bw, t.bh), "", kTvl1Rows, ""});
        break;
    case OF_VARIANT_MULTI_ITER:
    default: {
        const int bound = cuda::multi_bound_for(prec, l.bound, threads); // as resolve_tuning
        std::snprintf(buf, sizeof buf, "%dx%d r%d d%d b%d", t.bw, t.bh, t.rows, t.depth, bound);
        char k[64];
        if (prec == OF_PRECISION_F16)
            std::snprintf(k, sizeof k, "k_multi_f16x2<%d, %d>", t.rows, bound);
        else
            std::snprintf(k, sizeof k, "k_multi<float2, %d, %d>", t.rows, bound);
        u.push_back({k, threads, 0, "", kTvl1Rows, ""});
        break;
    }
    }
    *desc = std::string(platform::precision_name(prec)) + " " + platform::variant_name(l.variant) + " " + buf;
    return u;
}

// HS/CLG: the solvers every row is checked for, and their names in the report.
const of_solver kHsSolvers[] = {OF_SOLVER_JACOBI, OF_SOLVER_RED_BLACK_SOR};
const char* solver_name(of_solver s) { return s == OF_SOLVER_RED_BLACK_SOR ? "sor" : "jacobi"; }

// The library's HS/CLG launch-shape resolution (cuda::hs_resolve_tuning), reached as
// core/select.cpp reaches it: through the algorithm registry. nullptr in a build of the library
// without CUDA (the function is not compiled there, so naming it would not link).
using Resolve = of_status (*)(const of_config&, const cuda::LaunchDefaults*, cuda::Tuning*, const ErrorSink&);
Resolve hs_resolution(of_algorithm a) {
    const Algorithm* alg = find_algorithm(a);
    return alg && alg->cuda && cuda::is_variational(a) ? alg->cuda->resolve_tuning : nullptr;
}

// The kernel (T2: pair_type) and threads a resolved HS/CLG shape launches (hs_cuda.cuh):
//  - Jacobi GLOBAL: k_hs_jacobi_global<T2>, bw x bh;
//  - Jacobi FUSED and MULTI_ITER: k_hs_multi<T2, rows>, 32 x bh (FUSED: depth 1);
//  - SOR GLOBAL: k_hs_sor_half<T2>, bw x bh (one launch per colour);
//  - SOR FUSED (also what a MULTI_ITER row resolves to): k_hs_sor_fused<T2>, bw x bh, with
//    t.shared_bytes of dynamic shared memory.
Use hs_kernel(of_solver solver, const cuda::Tuning& t) {
    const std::string T2 = pair_type(t.precision);
    const int threads = t.bw * t.bh;
    if (solver == OF_SOLVER_RED_BLACK_SOR)
        return t.variant == OF_VARIANT_GLOBAL ? Use{"k_hs_sor_half<" + T2 + ">", threads, 0, "", kHsRows, ""}
                                              : Use{"k_hs_sor_fused<" + T2 + ">", threads, t.shared_bytes, "", kHsRows, ""};
    if (t.variant == OF_VARIANT_GLOBAL) return Use{"k_hs_jacobi_global<" + T2 + ">", threads, 0, "", kHsRows, ""};
    return Use{"k_hs_multi<" + T2 + ", " + std::to_string(t.rows) + ">", threads, 0, "", kHsRows, ""};
}

// The iteration kernel one hs or clg <launch> row selects for one solver: the shape `resolve`
// gives a config of that algorithm, precision, variant and solver whose table defaults are the
// row (the row's block where it is for the kernel that runs, else the built-in one). SOR with a
// multi_iter row: the config leaves the variant AUTO, the only way such a row reaches an SOR
// context (it then runs FUSED; a config that names MULTI_ITER for SOR is refused whatever the
// table says). *desc: the row and what it resolved to, "hs f16 fused (jacobi) 32x8 r8 d1". A
// shape the resolution refuses is a Use without kernel and with the library's message.
std::vector<Use> hs_row_uses(Resolve resolve, of_algorithm algo, of_precision prec, of_solver solver,
                             const platform::LaunchRow& l, std::string* desc) {
    of_variant v;
    if (!platform::to_of_variant(l.variant, &v)) return {};
    of_config cfg = row_config(algo);
    cfg.variant = solver == OF_SOLVER_RED_BLACK_SOR && v == OF_VARIANT_MULTI_ITER ? OF_VARIANT_AUTO : v;
    cfg.precision = prec;
    cfg.hs.solver = solver;
    const cuda::LaunchDefaults d = {true, v, l.block_w, l.block_h, l.rows, l.depth, l.bound};
    cuda::Tuning t;
    char msg[kErrorCapacity] = "";
    *desc = std::string(platform::algorithm_name(algo)) + " " + platform::precision_name(prec) + " " +
            platform::variant_name(l.variant) + " (" + solver_name(solver) + ")";
    if (resolve(cfg, &d, &t, ErrorSink{msg}) != OF_OK) return {Use{"", 0, 0, "", kHsRows, msg}};
    char buf[64];
    if (t.variant == OF_VARIANT_GLOBAL || solver == OF_SOLVER_RED_BLACK_SOR)
        std::snprintf(buf, sizeof buf, " %dx%d", t.bw, t.bh);
    else
        std::snprintf(buf, sizeof buf, " %dx%d r%d d%d", t.bw, t.bh, t.rows, t.depth);
    *desc += buf;
    return {hs_kernel(solver, t)};
}

// The library's LK launch-shape resolution (cuda::lk_resolve_tuning) through the registry, as
// hs_resolution; nullptr without CUDA or while LK's entry has no CUDA path.
Resolve lk_resolution() {
    const Algorithm* alg = find_algorithm(OF_ALGO_LK);
    return alg && alg->cuda ? alg->cuda->resolve_tuning : nullptr;
}

// The kernels one lk <launch> row selects (lk_cuda.cuh), at the shape `resolve` gives a config of
// that precision and variant with the row as its table defaults, for every window 3..33: the
// threads do not depend on the window, the dynamic shared memory does (FUSED and MULTI_ITER: the
// window's halo), so each kernel is checked with the most any window takes.
//  - GLOBAL: k_lk_global<T2>, bw x bh;
//  - FUSED: k_lk_fused_residual<T2> and k_lk_fused_update, 32 x bh, t.shared_bytes each;
//  - MULTI_ITER: k_lk_tile<T2>, 32 x bh, t.shared_bytes (rows halved where the window needs it).
// *desc: "lk f32 multi_iter 32x8 r4 (window 33: r2)". A refused shape: a Use without kernel.
std::vector<Use> lk_row_uses(Resolve resolve, of_precision prec, const platform::LaunchRow& l, std::string* desc) {
    of_variant v;
    if (!platform::to_of_variant(l.variant, &v)) return {};
    const std::string T2 = pair_type(prec);
    *desc = std::string("lk ") + platform::precision_name(prec) + " " + platform::variant_name(l.variant);
    const cuda::LaunchDefaults d = {true, v, l.block_w, l.block_h, l.rows, l.depth, l.bound};
    cuda::Tuning t{}, most{};
    int rows_lo = 0, rows_hi = 0, worst = 0;
    for (int w = 3; w <= kLkMaxWindow; w += 2) {
        of_config cfg = row_config(OF_ALGO_LK);
        cfg.variant = v;
        cfg.precision = prec;
        cfg.lk.window = static_cast<uint32_t>(w);
        char msg[kErrorCapacity] = "";
        if (resolve(cfg, &d, &t, ErrorSink{msg}) != OF_OK) return {Use{"", 0, 0, "", kLkRows, msg}};
        if (w == 3 || t.shared_bytes > most.shared_bytes) {
            most = t;
            worst = w;
        }
        rows_hi = w == 3 ? t.rows : rows_hi;
        rows_lo = t.rows;
    }
    char buf[96];
    if (most.variant == OF_VARIANT_MULTI_ITER)
        std::snprintf(buf, sizeof buf, " %dx%d r%d (window 33: r%d; most shared at window %d)", most.bw, most.bh, rows_hi,
                      rows_lo, worst);
    else if (most.variant == OF_VARIANT_FUSED)
        std::snprintf(buf, sizeof buf, " %dx%d (most shared at window %d)", most.bw, most.bh, worst);
    else
        std::snprintf(buf, sizeof buf, " %dx%d", most.bw, most.bh);
    *desc += buf;
    const int threads = most.bw * most.bh;
    switch (most.variant) {
    case OF_VARIANT_GLOBAL: {
        std::vector<Use> u = {Use{"k_lk_global<" + T2 + ">", threads, 0, "", kLkRows, ""}};
        if (prec == OF_PRECISION_F32) { // robust census's steps at the row's block
            u.push_back(Use{"k_lk_census_rows", threads, 0, "", kLkRows, ""});
            u.push_back(Use{"k_lk_census_step", threads, 0, "", kLkRows, ""});
        }
        return u;
    }
    case OF_VARIANT_FUSED:
        return {Use{"k_lk_fused_residual<" + T2 + ">", threads, most.shared_bytes, "", kLkRows, ""},
                Use{"k_lk_fused_update", threads, most.shared_bytes, "", kLkRows, ""}};
    default: return {Use{"k_lk_tile<" + T2 + ">", threads, most.shared_bytes, "", kLkRows, ""}};
    }
}

// Adds x, launched by a row described as `desc` in bucket b, to uses; rows that launch the same
// kernel at the same shape become one entry listing their buckets.
void add_use(std::vector<Use>* uses, std::map<std::string, std::size_t>* at, Use x, const std::string& desc,
             platform::Bucket b) {
    const std::string key = x.kernel + "/" + std::to_string(x.threads) + "/" + desc;
    const auto it = at->find(key);
    if (it != at->end()) {
        (*uses)[it->second].why += std::string(",") + platform::bucket_name(b);
        return;
    }
    x.why = desc + ": " + platform::bucket_name(b);
    (*at)[key] = uses->size();
    uses->push_back(x);
}

// Every kernel board b launches: the fixed-shape kernels of the reports, then those of its table's
// rows. Rows that launch nothing checkable go to notes.
std::vector<Use> board_uses(const platform::BoardTable& b, const std::set<std::string>& kernels,
                            std::vector<std::string>* notes) {
    std::vector<Use> uses;
    for (const std::string& k : kernels)
        if (const Fixed* f = fixed_of(base_of(k))) uses.push_back({k, f->threads, f->dyn_shared, "fixed", kTvl1Rows, ""});
    std::map<std::string, std::size_t> at;
    char n[200];
    for (int ri = 0; ri < b.row_count; ++ri) {
        const platform::TuningRow& row = b.rows[ri];
        const char* an = platform::algorithm_name(row.algorithm);
        const char* pn = platform::precision_name(row.precision);
        const bool tvl1 = row.algorithm == OF_ALGO_TVL1, lk = cuda::is_lk(row.algorithm);
        const Resolve resolve = tvl1 ? nullptr : lk ? lk_resolution() : hs_resolution(row.algorithm);
        if (!tvl1 && !resolve) {
            const Algorithm* alg = find_algorithm(row.algorithm);
            if (alg && alg->gpu_path)
                std::snprintf(n, sizeof n, "%s: %s %s rows not checked (this build of the library has no CUDA path to "
                              "resolve their shapes with)", b.name, an, pn);
            else
                std::snprintf(n, sizeof n, "%s: %s %s rows not checked (the registry's %s entry has no CUDA path)",
                              b.name, an, pn, an);
            notes->push_back(n);
            continue;
        }
        for (int li = 0; li < row.launch_count; ++li) {
            const platform::LaunchRow& l = row.launches[li];
            of_variant v;
            if (!platform::to_of_variant(l.variant, &v)) {
                std::snprintf(n, sizeof n, "%s: %s %s %s rows: no CUDA kernel for that variant (never selected)", b.name,
                              an, pn, platform::variant_name(l.variant));
                notes->push_back(n);
                continue;
            }
            std::string desc;
            if (tvl1 || lk) {
                const std::vector<Use> xs = tvl1 ? row_uses(row.precision, l, &desc) : lk_row_uses(resolve, row.precision, l, &desc);
                for (const Use& x : xs) add_use(&uses, &at, x, desc, l.bucket);
                continue;
            }
            for (const of_solver solver : kHsSolvers)
                for (const Use& x : hs_row_uses(resolve, row.algorithm, row.precision, solver, l, &desc))
                    add_use(&uses, &at, x, desc, l.bucket);
        }
    }
    return uses;
}

struct Line {
    std::string board, arch, kernel, why;
    int threads;
    std::size_t dyn;
    bool found;
    Res r;
    int regs_block; // allocated registers x threads
    std::vector<std::string> fails;
    int family; // Family of the row
};

// Use u of board b (architecture arch) against the board's limits, from the reports.
Line check_use(const platform::BoardTable& b, const char* arch, const Use& u, const ResMap& res) {
    Line ln{b.name, arch, u.kernel, u.why, u.threads, u.dyn, false, Res(), 0, {}, u.family};
    if (u.kernel.empty()) {
        ln.fails.push_back("the library refuses the row: " + u.refused);
        return ln;
    }
    const auto it = res.find({arch, u.kernel});
    ln.found = it != res.end();
    if (!ln.found) {
        ln.fails.push_back("no " + std::string(arch) + " code");
        return ln;
    }
    ln.r = it->second;
    const int alloc = (ln.r.regs + 7) / 8 * 8;
    ln.regs_block = alloc * u.threads;
    if (ln.regs_block > b.regs_per_block)
        ln.fails.push_back(std::to_string(alloc) + " registers x " + std::to_string(u.threads) + " threads > " +
                           std::to_string(b.regs_per_block) + " per block");
    if (static_cast<std::size_t>(ln.r.smem) + u.dyn > static_cast<std::size_t>(b.shared_per_block))
        ln.fails.push_back("shared memory " + std::to_string(ln.r.smem + u.dyn) + " > " +
                           std::to_string(b.shared_per_block) + " per block");
    if (ln.r.stack > kMaxStack)
        ln.fails.push_back("stack frame " + std::to_string(ln.r.stack) + " bytes (spill stores " +
                           std::to_string(ln.r.spill) + ") > " + std::to_string(kMaxStack));
    return ln;
}

std::string md_escape(std::string s) {
    for (std::size_t p = 0; (p = s.find('<', p)) != std::string::npos; p += 4) s.replace(p, 1, "&lt;");
    for (std::size_t p = 0; (p = s.find('>', p)) != std::string::npos; p += 4) s.replace(p, 1, "&gt;");
    return s;
}

std::string md_check(const std::vector<std::string>& fails) {
    std::string s = fails.empty() ? "ok" : "";
    for (std::size_t i = 0; i < fails.size(); ++i) s += (i ? "; " : "**FAIL**: ") + fails[i];
    return s;
}

// The table of the iteration kernels of one family of rows the tables select.
void md_iteration_table(std::ostream& md, const std::vector<Line>& lines, int family, const char* rows_head) {
    md << "| board | arch | kernel | " << rows_head << " | threads | registers | registers x threads | "
       << "stack (spill stores) B | shared B (static + dynamic) | check |\n";
    md << "|---|---|---|---|---|---|---|---|---|---|\n";
    for (const Line& l : lines) {
        if (l.why == "fixed" || l.family != family) continue;
        md << "| " << l.board << " | " << l.arch << " | " << (l.kernel.empty() ? "-" : "`" + l.kernel + "`") << " | "
           << md_escape(l.why) << " | " << l.threads << " | " << (l.found ? std::to_string(l.r.regs) : "-") << " | "
           << l.regs_block << " | " << (l.found ? std::to_string(l.r.stack) + " (" + std::to_string(l.r.spill) + ")" : "-")
           << " | " << (l.found ? std::to_string(l.r.smem) + " + " + std::to_string(l.dyn) : "-") << " | "
           << md_check(l.fails) << " |\n";
    }
}

// What the HS/CLG rows select (hs_cuda.cuh, cuda_layout.hpp hs_resolve_tuning), in words.
void md_hs_intro(std::ostream& md) {
    md << "Every `hs` and `clg` row is resolved for both solvers (`config.hs.solver` Jacobi and red-black SOR) by "
          "the library's `cuda::hs_resolve_tuning`, with the row as the table's defaults: the shape a context on "
          "that board takes. Jacobi: `global` rows run `k_hs_jacobi_global` at the row's block; `fused` rows run "
          "the register-tiled `k_hs_multi<T2, rows>` at depth 1, with the row's block only when it is 32 wide "
          "(else the built-in 32x8) and "
       << cuda::kHsRowsFused
       << " rows (cuda::kHsRowsFused, either precision: a fused row names none); `multi_iter` rows run `k_hs_multi` at the row's block, rows and "
          "depth. Red-black SOR: `global` rows run `k_hs_sor_half` (a launch per colour) at the row's block, "
          "`fused` rows `k_hs_sor_fused` at the row's block with (2 bw + 2)(bh + 2) pairs of dynamic shared "
          "memory, and `multi_iter` rows (Jacobi's shapes) give SOR `k_hs_sor_fused` with the built-in "
       << cuda::kHsSorBlockX << "x" << cuda::kHsSorBlockY
       << " block. T2 is float2 in F32, __half2 in F16. `k_hs_multi` is compiled with __launch_bounds__(256, 2) "
          "(at most 128 registers per thread, so on Nano and TX2 a 256-thread block takes all 32768 registers of "
          "a block), the other three with __launch_bounds__(1024); `pipeline` rows have no kernel (Not checked).\n\n";
}

// What the LK rows select (lk_cuda.cuh, cuda_layout.hpp lk_resolve_tuning), in words.
void md_lk_intro(std::ostream& md, bool resolved) {
    md << "Every `lk` row is resolved by the library's `cuda::lk_resolve_tuning` with the row as the table's "
          "defaults, for every window 3..33 (`config.lk.window`): the threads do not depend on the window, the "
          "dynamic shared memory of FUSED and MULTI_ITER does, so each kernel is checked with the most any window "
          "takes. `global` rows run `k_lk_global` (one thread per pixel, its window summed directly) at the row's "
          "block; `fused` rows run `k_lk_fused_residual` and `k_lk_fused_update` (separable passes) and "
          "`multi_iter` rows `k_lk_tile` (the whole step on a shared-memory tile, rows halved where a wide window "
          "needs it), both 32 x bh with the row's block when it is 32 wide (else the built-in 32x8). The three "
          "step kernels are compiled with __launch_bounds__(1024) (GLOBAL) and __launch_bounds__(256).";
    if (!resolved)
        md << " This build's registry has no CUDA path for LK, so its rows are listed under Not checked.";
    md << "\n\n";
}

// Per board: the HS/CLG kernels its rows select, their largest registers x threads against the
// board's limit, and their largest stack frame.
void md_hs_summary(std::ostream& md, const std::vector<Line>& lines, const platform::TableSet& ts) {
    md << "| board | arch | kernels | most registers x threads (limit) | largest stack (spill stores) B "
          "(limit " << kMaxStack << ") | check |\n|---|---|---|---|---|---|\n";
    for (int bi = 0; bi < ts.count; ++bi) {
        const platform::BoardTable& b = *ts.boards[bi];
        std::set<std::string> ks;
        int regs = 0, stack = 0, spill = 0, fails = 0;
        std::string arch;
        for (const Line& l : lines) {
            if (l.board != b.name || l.family != kHsRows) continue;
            arch = l.arch;
            if (!l.kernel.empty()) ks.insert(l.kernel);
            regs = std::max(regs, l.regs_block);
            if (l.r.stack > stack) {
                stack = l.r.stack;
                spill = l.r.spill;
            }
            fails += l.fails.empty() ? 0 : 1;
        }
        if (arch.empty()) continue;
        md << "| " << b.name << " | " << arch << " | " << ks.size() << " | " << regs << " (" << b.regs_per_block
           << ") | " << stack << " (" << spill << ") | "
           << (fails ? "**" + std::to_string(fails) + " failed**" : std::string("ok")) << " |\n";
    }
}

} // namespace

int main(int argc, char** argv) {
    const char* md_path = nullptr;
    bool require_cuda = false;
    std::vector<const char*> reports;
    const char* usage = "usage: oflow-jetson-resources [--require-cuda] [--markdown FILE] REPORT...\n";
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--markdown") && i + 1 < argc)
            md_path = argv[++i];
        else if (!std::strcmp(argv[i], "--require-cuda"))
            require_cuda = true;
        else if (argv[i][0] == '-') {
            std::fputs(usage, stderr);
            return 2;
        } else
            reports.push_back(argv[i]);
    }
    if (reports.empty()) {
        std::fputs(usage, stderr);
        return 2;
    }
    // Every algorithm whose entry says it has a CUDA path must bring its driver (HS, CLG, and LK
    // once its entry installs kLkCuda): else its rows could not be resolved.
    for (int i = 0; require_cuda && i < algorithm_count(); ++i) {
        const Algorithm* a = algorithm_at(i);
        if (a->gpu_path && !a->cuda) {
            std::fprintf(stderr, "oflow-jetson-resources: --require-cuda: this build of the library has no CUDA path, so "
                                 "the %s rows cannot be resolved (build the tool with OF_WITH_CUDA=ON)\n",
                         a->name);
            return 2;
        }
    }
    ResMap res;
    std::set<std::string> archs;
    for (const char* r : reports)
        if (!read_report(r, &res, &archs)) return 2;
    if (res.empty()) {
        std::fprintf(stderr, "oflow-jetson-resources: no kernel in the reports (compiled without --resource-usage?)\n");
        return 2;
    }

    int failures = 0;
    std::ostringstream md;
    std::vector<std::string> unknown;
    std::set<std::string> kernels; // every kernel seen
    for (const auto& e : res) {
        kernels.insert(e.first.second);
        const std::string b = base_of(e.first.second);
        if (!fixed_of(b) && !is_iteration(b) &&
            std::find(unknown.begin(), unknown.end(), e.first.second) == unknown.end())
            unknown.push_back(e.first.second);
    }

    // Per board: what it launches, checked on its architecture.
    std::vector<Line> lines;
    std::vector<std::string> notes;
    const platform::TableSet ts = platform::builtin_tables();
    for (int bi = 0; bi < ts.count; ++bi) {
        const platform::BoardTable& b = *ts.boards[bi];
        char arch[16];
        std::snprintf(arch, sizeof arch, "sm_%d%d", b.cc_major, b.cc_minor);
        if (!std::strcmp(b.name, "generic")) continue; // desktop GPUs: not a Jetson
        for (const Use& u : board_uses(b, kernels, &notes)) {
            lines.push_back(check_use(b, arch, u, res));
            failures += lines.back().fails.empty() ? 0 : 1;
        }
    }

    md << "<!-- Generated by scripts/jetson_archs.sh --write-doc (tests/tools/jetson_resources.cpp); do not edit. -->\n";
    md << "# Jetson resource check\n\n";
    md << "Every kernel each Jetson board can launch, compiled for its architecture (sm_53/62/72 with "
          "Debian's CUDA 11.8, sm_87 with the main toolkit; `scripts/jetson_archs.sh`), against the board "
          "table's limits (`platform/tables/*.xml`). A row fails when registers x threads exceed the "
          "registers per block (allocated per thread in multiples of 8), static + dynamic shared memory "
          "exceed the shared memory per block, or the stack frame (spills) exceeds "
       << kMaxStack << " bytes per thread.\n\n";
    md << "## TV-L1 iteration kernels the tables select\n\n";
    md_iteration_table(md, lines, false, "table rows (precision variant block rows depth bound: buckets)");
    md << "\n## HS/CLG iteration kernels the tables select\n\n";
    md_hs_intro(md);
    md_iteration_table(md, lines, true, "table rows (algorithm precision variant (solver) block rows depth: buckets)");
    md << "\nPer board (every HS/CLG row above):\n\n";
    md_hs_summary(md, lines, ts);
    md << "\n## LK step kernels the tables select\n\n";
    md_lk_intro(md, lk_resolution() != nullptr);
    md_iteration_table(md, lines, kLkRows, "table rows (algorithm precision variant block rows: buckets)");
    // "registers / stack" of one kernel in each architecture's column.
    const auto arch_cells = [&](const std::string& k) {
        for (const std::string& a : archs) {
            auto it = res.find({a, k});
            md << " " << (it == res.end() ? std::string("-") : std::to_string(it->second.regs) + " / " +
                                                                   std::to_string(it->second.stack))
               << " |";
        }
    };
    // A table head: `first` columns, one per architecture, `last`; then its rule line.
    const auto arch_header = [&](const char* first, const char* last, const char* rule_first, const char* rule_last) {
        md << first;
        for (const std::string& a : archs) md << " " << a << " |";
        md << last << "\n" << rule_first;
        for (std::size_t i = 0; i < archs.size(); ++i) md << "---|";
        md << rule_last << "\n";
    };
    md << "\n## Fixed-shape kernels (every board)\n\n";
    md << "registers / stack bytes per architecture; threads per block as launched.\n\n";
    arch_header("| kernel | threads |", " check |", "|---|---|", "---|");
    std::set<std::string> shown;
    for (const Line& l : lines) {
        if (l.why != "fixed" || shown.count(l.kernel)) continue;
        shown.insert(l.kernel);
        md << "| `" << l.kernel << "` | " << l.threads << " |";
        arch_cells(l.kernel);
        std::string fails;
        for (const Line& m : lines)
            if (m.kernel == l.kernel && m.why == "fixed" && !m.fails.empty())
                for (const std::string& f : m.fails) fails += (fails.empty() ? "" : "; ") + m.board + ": " + f;
        md << " " << (fails.empty() ? "ok" : "**FAIL**: " + fails) << " |\n";
    }
    md << "\n## Compiled, not selected by any Jetson table\n\n";
    md << "Other launch bounds and rows counts of the iteration kernels (desktop tables, tuning knobs).\n\n";
    arch_header("| kernel |", "", "|---|", "");
    for (const std::string& k : kernels) {
        if (!is_iteration(base_of(k))) continue;
        bool used = false;
        for (const Line& l : lines) used = used || l.kernel == k;
        if (used) continue;
        md << "| `" << k << "` |";
        arch_cells(k);
        md << "\n";
    }
    if (!notes.empty()) {
        md << "\n## Not checked\n\n";
        std::vector<std::string> seen;
        for (const std::string& n : notes)
            if (std::find(seen.begin(), seen.end(), n) == seen.end()) {
                seen.push_back(n);
                md << "- " << n << "\n";
            }
    }
    for (const std::string& u : unknown) {
        ++failures;
        md << "\n**FAIL**: kernel `" << u << "` is not in the registry of tests/tools/jetson_resources.cpp: "
           << "add its launch shape there.\n";
    }
    md << "\n" << (failures ? "**" + std::to_string(failures) + " failed**" : std::string("All fit.")) << "\n";

    const std::string text = md.str();
    std::fputs(text.c_str(), stdout);
    if (md_path) {
        std::ofstream o(md_path);
        o << text;
        if (!o) {
            std::fprintf(stderr, "oflow-jetson-resources: cannot write %s\n", md_path);
            return 2;
        }
    }
    std::fprintf(stderr, "oflow-jetson-resources: %zu kernels x %zu architectures, %d failed\n", kernels.size(),
                 archs.size(), failures);
    return failures ? 1 : 0;
}
