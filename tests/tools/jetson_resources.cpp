// oflow-jetson-resources: the resource check of the Jetson stage (scripts/jetson_archs.sh).
//
// Input: ptxas reports (nvcc --resource-usage, kept per object by scripts/ptxas_log.sh) of the
// CUDA sources compiled for sm_53 (Nano), sm_62 (TX2), sm_72 (Xavier) and sm_87 (Orin). For
// each such board it takes every kernel the board can run:
//  - the fixed-shape kernels (conversion, pyramid, warp, robust stages, output, self-test
//    hooks), at their fixed blocks (cuda/cuda_layout.hpp kPlaneBlockX x kPlaneBlockY,
//    kReduceThreads; one thread for the two single-thread kernels);
//  - the iteration kernel of every <launch> row of the board's built-in table, at the row's
//    block, rows per thread, launch bound (the row's `bound`, else cuda::multi_default_bound)
//    and dynamic shared memory, as cuda::default_shape and resolve_tuning resolve them for a
//    config that asks for that variant and precision;
// and fails when, on that board's architecture:
//  - the kernel has no code;
//  - registers x threads exceed the board's registers per block (registers allocated per warp
//    in units of 256: per thread, rounded up to a multiple of 8);
//  - static + dynamic shared memory exceed the board's shared memory per block;
//  - the stack frame (spilled registers and local arrays) exceeds 128 bytes per thread.
// A kernel in the reports that the registry below does not know is an error too, so a new
// kernel cannot pass unchecked. Rows of algorithms without CUDA kernels are listed, not checked.
//
// Output: a Markdown report on stdout (--markdown FILE: also written there; the stage keeps it
// as docs/jetson-resources.md). Exit status: 0 all fit, 1 a check failed, 2 usage or input error.
// Usage: oflow-jetson-resources [--markdown FILE] REPORT...
#include "oflow.h"

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
    {"k_gradient", kPlane, 0},
    {"k_write_planar", kPlane, 0},
    {"k_warp", kPlane, 0},
    {"k_pingpong_fixup", kPlane, 0},
    {"k_robust_sq", kPlane, 0},
    {"k_robust_combine", kPlane, 0},
    {"k_median_flow", kPlane, 0},
    {"k_finish_level", kPlane, 0},
    {"k_clamp_range", kPlane, 0},
    {"k_texture_partial", cuda::kReduceThreads, 0},
    {"k_exposure_hist", cuda::kReduceThreads, 0},
    {"k_texture_top", 1, 0},
    {"k_exposure_match", 1, 0},
    {"hooks::k_pack", kPlane, 0}, // self-test and bench hooks (cuda_bench.cu)
    {"hooks::k_unpack", kPlane, 0},
    {"hooks::k_pack4", kPlane, 0},
    {"hooks::k_unpack4", kPlane, 0},
};
// Iteration kernels: their blocks come from the tables.
const char* const kIteration[] = {"k_global_calc_u", "k_global_calc_p", "k_fused", "k_multi", "k_multi_f16x2"};

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

// One kernel as a board launches it.
struct Use {
    std::string kernel;    // short name
    int threads;
    std::size_t dyn;       // dynamic shared memory
    std::string why;       // "fixed", or the table rows: "f16 multi_iter 512,1024 32x4 r4"
};

const char* pair_type(of_precision p) { return p == OF_PRECISION_F16 ? "__half2" : "float2"; }

// The iteration kernels one <launch> row selects.
std::vector<Use> row_uses(of_precision prec, const platform::LaunchRow& l, std::string* shape) {
    std::vector<Use> u;
    of_variant v;
    if (!platform::to_of_variant(l.variant, &v)) return u;
    of_config cfg;
    of_config_init(&cfg, OF_ALGO_TVL1);
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
        u.push_back({"k_global_calc_u<" + T2 + ">", threads, 0, ""});
        u.push_back({"k_global_calc_p<" + T2 + ">", threads, 0, ""});
        break;
    case OF_VARIANT_FUSED:
        std::snprintf(buf, sizeof buf, "%dx%d", t.bw, t.bh);
        u.push_back({"k_fused<" + T2 + ">", threads, cuda::fused_shared_bytes(prec, t.bw, t.bh), ""});
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
        u.push_back({k, threads, 0, ""});
        break;
    }
    }
    *shape = buf;
    return u;
}

struct Line {
    std::string board, arch, kernel, why;
    int threads;
    std::size_t dyn;
    bool found;
    Res r;
    int regs_block; // allocated registers x threads
    std::vector<std::string> fails;
};

std::string md_escape(std::string s) {
    for (std::size_t p = 0; (p = s.find('<', p)) != std::string::npos; p += 4) s.replace(p, 1, "&lt;");
    for (std::size_t p = 0; (p = s.find('>', p)) != std::string::npos; p += 4) s.replace(p, 1, "&gt;");
    return s;
}

} // namespace

int main(int argc, char** argv) {
    const char* md_path = nullptr;
    std::vector<const char*> reports;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--markdown") && i + 1 < argc)
            md_path = argv[++i];
        else if (argv[i][0] == '-') {
            std::fprintf(stderr, "usage: oflow-jetson-resources [--markdown FILE] REPORT...\n");
            return 2;
        } else
            reports.push_back(argv[i]);
    }
    if (reports.empty()) {
        std::fprintf(stderr, "usage: oflow-jetson-resources [--markdown FILE] REPORT...\n");
        return 2;
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
        std::vector<Use> uses;
        for (const std::string& k : kernels)
            if (const Fixed* f = fixed_of(base_of(k))) uses.push_back({k, f->threads, f->dyn_shared, "fixed"});
        std::map<std::string, std::size_t> at; // kernel + threads -> index in uses (merge buckets)
        for (int ri = 0; ri < b.row_count; ++ri) {
            const platform::TuningRow& row = b.rows[ri];
            if (row.algorithm != OF_ALGO_TVL1) {
                char n[160];
                std::snprintf(n, sizeof n, "%s: %s %s rows not checked (no CUDA kernels for %s yet)", b.name,
                              platform::algorithm_name(row.algorithm), platform::precision_name(row.precision),
                              platform::algorithm_name(row.algorithm));
                notes.push_back(n);
                continue;
            }
            for (int li = 0; li < row.launch_count; ++li) {
                const platform::LaunchRow& l = row.launches[li];
                std::string shape;
                const std::vector<Use> u = row_uses(row.precision, l, &shape);
                if (u.empty()) {
                    char n[160];
                    std::snprintf(n, sizeof n, "%s: %s %s rows: no CUDA kernel for that variant (never selected)", b.name,
                                  platform::precision_name(row.precision), platform::variant_name(l.variant));
                    notes.push_back(n);
                }
                for (const Use& x : u) {
                    const std::string key = x.kernel + "/" + std::to_string(x.threads) + "/" + shape;
                    const std::string why = std::string(platform::precision_name(row.precision)) + " " +
                                            platform::variant_name(l.variant) + " " + shape + ": " +
                                            platform::bucket_name(l.bucket);
                    auto it = at.find(key);
                    if (it == at.end()) {
                        at[key] = uses.size();
                        uses.push_back({x.kernel, x.threads, x.dyn, why});
                    } else {
                        uses[it->second].why += std::string(",") + platform::bucket_name(l.bucket);
                    }
                }
            }
        }
        for (const Use& u : uses) {
            Line ln;
            ln.board = b.name;
            ln.arch = arch;
            ln.kernel = u.kernel;
            ln.why = u.why;
            ln.threads = u.threads;
            ln.dyn = u.dyn;
            auto it = res.find({arch, u.kernel});
            ln.found = it != res.end();
            ln.regs_block = 0;
            if (!ln.found) {
                ln.fails.push_back("no " + std::string(arch) + " code");
            } else {
                ln.r = it->second;
                const int alloc = (ln.r.regs + 7) / 8 * 8;
                ln.regs_block = alloc * u.threads;
                if (ln.regs_block > b.regs_per_block)
                    ln.fails.push_back(std::to_string(alloc) + " registers x " + std::to_string(u.threads) +
                                       " threads > " + std::to_string(b.regs_per_block) + " per block");
                if (static_cast<std::size_t>(ln.r.smem) + u.dyn > static_cast<std::size_t>(b.shared_per_block))
                    ln.fails.push_back("shared memory " + std::to_string(ln.r.smem + u.dyn) + " > " +
                                       std::to_string(b.shared_per_block) + " per block");
                if (ln.r.stack > kMaxStack)
                    ln.fails.push_back("stack frame " + std::to_string(ln.r.stack) + " bytes (spill stores " +
                                       std::to_string(ln.r.spill) + ") > " + std::to_string(kMaxStack));
            }
            failures += ln.fails.empty() ? 0 : 1;
            lines.push_back(ln);
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
    md << "## Iteration kernels the tables select\n\n";
    md << "| board | arch | kernel | table rows (precision variant block rows depth bound: buckets) | threads | registers | "
          "registers x threads | stack (spill stores) B | shared B (static + dynamic) | check |\n";
    md << "|---|---|---|---|---|---|---|---|---|---|\n";
    for (const Line& l : lines) {
        if (l.why == "fixed") continue;
        md << "| " << l.board << " | " << l.arch << " | `" << l.kernel << "` | " << md_escape(l.why) << " | " << l.threads
           << " | " << (l.found ? std::to_string(l.r.regs) : "-") << " | " << l.regs_block << " | "
           << (l.found ? std::to_string(l.r.stack) + " (" + std::to_string(l.r.spill) + ")" : "-") << " | "
           << (l.found ? std::to_string(l.r.smem) + " + " + std::to_string(l.dyn) : "-") << " | ";
        if (l.fails.empty())
            md << "ok";
        else
            for (std::size_t i = 0; i < l.fails.size(); ++i) md << (i ? "; " : "**FAIL**: ") << l.fails[i];
        md << " |\n";
    }
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
