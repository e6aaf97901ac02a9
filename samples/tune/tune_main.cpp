// oflow-tune: measures the TV-L1, Horn-Schunck and CLG paths of this machine and writes a board
// tuning table (schema 1, platform/tables/README.md) that oflow-tablegen and the OF_WITH_TINYXML2
// loader accept. Each algorithm is learned the same way (config.algorithm set; HS and CLG with
// the Jacobi solver, whose shapes the hs and clg launch rows are):
//
//  GPU (CUDA builds with a device): for each algorithm, F32 and F16 and each size bucket (256^2,
//    512^2, 1024^2, 2048^2 and 4096^2 for "larger"; --quick: up to 2048^2), every launch shape
//    oflow-tune tries (tune_core.hpp candidate_shapes: TV-L1 GLOBAL and FUSED blocks, MULTI_ITER
//    warps x rows x depth 2..8; HS GLOBAL blocks, FUSED 32 x warps, MULTI_ITER warps x depth
//    2..12) is timed with the CUDA bench hooks (one level, epsilon 0, median of 11 runs after 2
//    warm-ups; --quick: 7 after 1). Per bucket each variant's best shape becomes a <launch> row,
//    the variants ranked by it (rank 1 = fastest); the three best shapes of each variant are
//    listed in a comment above the rows (the schema allows one row per variant and bucket).
//    CLG iterates HS's kernels (cuda/hs_cuda.cuh): below the largest bucket its rows are HS's
//    (and say so); at the largest bucket HS's three best shapes of each variant are timed on CLG.
//  CPU: ns/iteration/pixel of the CPU path (the NEON kernels where the build has them: aarch64,
//    or x86-64 through SIMDe; else the reference; every core) from of_process at one level and
//    one warp with 4 and 24 iterations: the difference cancels the pyramid and the warp. At
//    256^2 and 512^2; the table takes 512^2. The reference path's own terms beside NEON's
//    (ref_ns_per_it_px, ref_frame_ns_per_px) are not timed: a NEON build copies them from the
//    --base row where it states them (and says so in the source); a build without NEON times
//    the reference itself, so its row's own figure is the reference's and no ref_* is written.
//  GPU figure: the rank-1 shape of the largest bucket timed.
//  Crossover: end to end (3 levels x0.5, 1 warp, 10 iterations, epsilon 0, U8 host frames, host
//    flow) GPU against CPU, bisecting the side of a square frame between 16 and 1024.
//  warn/fail: tune_core.hpp warn_fail (the rule is also written into each <path>'s source).
//  Whole-frame terms of <path> (frame_us, frame_ns_per_px, launch_us, level_us), where the
//    library's schema has them: fitted to whole frames at 64^2..1024^2 and four schedules that
//    vary levels, warps and launches per level (tune_core.hpp kTermSchedules, fit_frame_terms);
//    left out when the model misses a frame by more than 25%.
//
// Without a GPU to time (no CUDA in the build, or no device) the GPU rows, the board's GPU
// facts and the crossover of every algorithm are copied from --base (HS and CLG: the
// precisions the base has of them; an algorithm the base lacks is left out and named); the CPU
// rows are measured; without --base it refuses (exit 2). The base's other algorithms are copied
// whole where this board can hold them.
// --quick without --base fills the "larger" bucket from the 2048^2 timings and says so.
// --dry-run fills every timing from a deterministic model (tune_measure.hpp) and measures
// nothing: it tests the tool end to end (tests/tune).
//
// Exit status: 0 written; 1 a measurement or the validation failed (nothing written, or the
// rejected text next to --out as FILE.rejected); 2 bad usage or nothing to copy GPU rows from.
#include "tune_core.hpp"
#include "tune_measure.hpp"
#include "tune_table.hpp"

#include "core/plan.hpp"
#include "core/status.hpp"
#include "oflow.h"
#include "platform/tuning.hpp"
#if OF_TUNE_TINYXML2
#include "platform/table_load.hpp"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

using namespace oflow;
using namespace oflow::tune;
using platform::Bucket;

const int kBucketSide[platform::kBucketCount] = {256, 512, 1024, 2048, 4096};
const int kKeep = 3;                     // shapes listed per variant and bucket
const int kCrossLo = 16, kCrossHi = 1024; // sides the crossover bisection searches
const int kCpuSmall = 256, kCpuLarge = 512, kCpuIt1 = 4, kCpuIt2 = 24;

struct Opts {
    std::string out, base, name = "tuned", csv;
    bool quick = false, dry_run = false, verbose = false;
    std::string options; // as given without the leading dashes (XML comments cannot hold "--")
};

int usage(const char* why) {
    if (why) std::fprintf(stderr, "oflow-tune: %s\n", why);
    std::fprintf(stderr,
                 "usage: oflow-tune [--out FILE] [--name NAME] [--base TABLE.xml|BUILTIN] [--quick] [--dry-run]\n"
                 "                  [--csv FILE] [--verbose]\n"
                 "  --out FILE     the table to write (default NAME.xml)\n"
                 "  --name NAME    board name, [a-z0-9_]{1,15}, not \"auto\" (default tuned)\n"
                 "  --base TABLE   rows not measured here are copied from it: a schema-1 file (builds with\n"
                 "                 OF_WITH_TINYXML2) or a built-in table (nano, tx2, xavier, orin, generic)\n"
                 "  --quick        buckets 256..2048 only, fewer runs\n"
                 "  --dry-run      model every timing (deterministic, measures nothing): tests the tool\n"
                 "  --csv FILE     every timing, one line each\n"
                 "  --verbose      print every timing as it is taken\n");
    return 2;
}

bool valid_name(const std::string& n) {
    if (n.empty() || n.size() > 15 || n == "auto") return false;
    for (char c : n)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

std::string today() {
    const std::time_t t = std::time(nullptr);
    std::tm tm;
    std::memset(&tm, 0, sizeof tm);
    gmtime_r(&t, &tm);
    char b[16];
    std::strftime(b, sizeof b, "%Y-%m-%d", &tm);
    return b;
}

std::string fmt(const char* f, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
std::string fmt(const char* f, ...) {
    char b[1024];
    va_list ap;
    va_start(ap, f);
    std::vsnprintf(b, sizeof b, f, ap);
    va_end(ap);
    return b;
}

// x to 3 significant digits (what the table states).
double sig3(double x) { return std::strtod(fmt("%.3g", x).c_str(), nullptr); }

const char* pname(of_precision p) { return p == OF_PRECISION_F16 ? "f16" : "f32"; }
const char* backend_name(of_backend b) { return b == OF_BACKEND_NEON ? "NEON" : "reference"; }

bool file_exists(const std::string& p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0;
}

std::string stem(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    std::string s = slash == std::string::npos ? path : path.substr(slash + 1);
    const std::size_t dot = s.rfind('.');
    return dot == std::string::npos ? s : s.substr(0, dot);
}

bool write_text(const std::string& path, const std::string& text) {
    const std::string tmp = path + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) return false;
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (std::fclose(f) != 0 || !ok) {
        std::remove(tmp.c_str());
        return false;
    }
    return std::rename(tmp.c_str(), path.c_str()) == 0;
}

// ---- what was measured ---------------------------------------------------------------------------
struct BucketData {
    bool measured = false;
    int n = 0;
    std::vector<Timing> timings;
    std::vector<VariantRanking> ranking;
    // CLG (twin_of): "hs" when these are HS's timings, borrowed (CLG not timed at this bucket), or
    // when the shapes timed were HS's best of each variant (CLG's largest bucket); else empty.
    std::string borrowed, shapes_from;
    std::vector<Timing> twin; // shapes_from: that algorithm's timings of this bucket (the check)
};

struct CpuData {
    bool ok = false;
    std::string why;
    double ns[2] = {0.0, 0.0};     // at kCpuSmall, kCpuLarge
    double spread = 1.0;           // p90/median, the larger of the two sizes'
    of_precision arith = OF_PRECISION_F32;
    std::string variant;
};

struct CrossData {
    bool measured = false;
    std::string why;
    Crossover x{false, 0, 0, 0};
    std::map<int, std::pair<double, double>> probes; // side -> (gpu ms, cpu ms)
    std::map<int, std::string> shapes;               // side -> GPU shape timed
};

// The whole-frame terms of one path (fit_frame_terms), when the schema has them.
struct TermsData {
    bool attempted = false;
    bool measured = false;
    std::string why;
    FrameFit fit{false, 0.0, 0.0, 0.0, 0.0, 0.0};
    int points = 0;
};

struct PrecData {
    of_algorithm a;
    of_precision p;
    BucketData b[platform::kBucketCount];
    CpuData cpu;
    CrossData cross;
    TermsData terms[platform::kPathCount]; // indexed by platform::Path
};

// One algorithm oflow-tune learns: its precisions, F32 first (TV-L1: F32 and F16; HS, CLG: F32
// and F16 when the GPU is timed, else the precisions the base table has of them).
struct AlgoData {
    of_algorithm a;
    std::vector<PrecData> pd;
};

// The algorithms a run learns, in table order. TV-L1 always; HS and CLG where the GPU is timed,
// else where the base table has them (their GPU rows copied, their CPU rows measured).
std::vector<AlgoData> learned_algorithms(bool gpu, const platform::BoardTable* base) {
    std::vector<AlgoData> out;
    for (of_algorithm a : {OF_ALGO_TVL1, OF_ALGO_HS, OF_ALGO_CLG}) {
        AlgoData ad;
        ad.a = a;
        for (of_precision p : {OF_PRECISION_F32, OF_PRECISION_F16})
            if (gpu || a == OF_ALGO_TVL1 || (base && platform::find_row(*base, a, p))) {
                PrecData d;
                d.a = a;
                d.p = p;
                ad.pd.push_back(d);
            }
        if (!ad.pd.empty()) out.push_back(ad);
    }
    return out;
}

bool learned(const std::vector<AlgoData>& all, of_algorithm a) {
    for (const AlgoData& ad : all)
        if (ad.a == a) return true;
    return false;
}

// Every (algorithm, precision) learned, in table order.
std::vector<PrecData*> each(std::vector<AlgoData>& all) {
    std::vector<PrecData*> out;
    for (AlgoData& ad : all)
        for (PrecData& d : ad.pd) out.push_back(&d);
    return out;
}

// The F32 data of d's algorithm (NULL: none learned).
const PrecData* f32_of(const std::vector<AlgoData>& all, const PrecData& d) {
    for (const AlgoData& ad : all)
        for (const PrecData& x : ad.pd)
            if (x.a == d.a && x.p == OF_PRECISION_F32) return &x;
    return nullptr;
}

// "tvl1 f32", "clg f16": what a line of progress is about.
std::string tag(const PrecData& d) { return std::string(platform::algorithm_name(d.a)) + " " + pname(d.p); }

const Timing* best_of(const BucketData& b) {
    return b.measured && !b.ranking.empty() ? &b.ranking[0].top[0] : nullptr;
}

// The GPU figure: the rank-1 shape of the largest bucket timed (NULL: none); *bucket its bucket.
const Timing* gpu_figure(const PrecData& d, int* bucket) {
    const Timing* t = nullptr;
    for (int b = 0; b < platform::kBucketCount; ++b)
        if (best_of(d.b[b])) {
            t = best_of(d.b[b]);
            if (bucket) *bucket = b;
        }
    return t;
}

const Timing* find_timing(const BucketData& b, const Shape& s) {
    for (const Timing& t : b.timings)
        if (t.ok && t.shape == s) return &t;
    return nullptr;
}

// CLG iterates HS's kernels (cuda/hs_cuda.cuh: the coefficient planes differ, the iterations do
// not): HS's data of d's precision when d is CLG's and HS's GPU rows are timed, else NULL.
const PrecData* twin_of(const std::vector<AlgoData>& all, const PrecData& d) {
    if (d.a != OF_ALGO_CLG) return nullptr;
    for (const AlgoData& ad : all)
        for (const PrecData& h : ad.pd)
            if (ad.a == OF_ALGO_HS && h.p == d.p) return &h;
    return nullptr;
}

// ---- measuring -----------------------------------------------------------------------------------
// Times `shapes` for d at bucket b (side kBucketSide[b]) and ranks them; MULTI_ITER shapes carry
// the rows their context ran (Runs::rows).
void time_bucket(Measurer& m, const Opts& o, PrecData& d, int b, const std::vector<Shape>& shapes, int warmup, int runs) {
    BucketData& bd = d.b[b];
    const int n = kBucketSide[b];
    bd.n = n;
    const auto t0 = std::chrono::steady_clock::now();
    int failed = 0;
    for (const Shape& s : shapes) {
        const Runs r = m.gpu_inner(d.a, d.p, s, n, iterations_for(s), warmup, runs);
        Timing t{s, r.ok, 0.0, 1.0, runs, r.why};
        if (r.rows > 0) t.shape.rows = r.rows;
        if (r.ok) {
            t.ns = median(r.v);
            t.spread = t.ns > 0.0 ? percentile90(r.v) / t.ns : 1.0;
            t.ok = t.ns > 0.0 && std::isfinite(t.ns);
        } else {
            ++failed;
        }
        if (o.verbose || !r.ok) {
            if (r.ok)
                std::printf("  %s %4d^2 %-26s %10.5f ns/it/px  p90/med %.3f\n", tag(d).c_str(), n, shape_text(t.shape).c_str(),
                            t.ns, t.spread);
            else
                std::printf("  %s %4d^2 %-26s failed: %s\n", tag(d).c_str(), n, shape_text(s).c_str(), r.why.c_str());
        }
        bd.timings.push_back(t);
    }
    bd.ranking = rank_bucket(bd.timings, kKeep);
    bd.measured = !bd.ranking.empty();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const Timing* best = best_of(bd);
    if (best)
        std::printf("  %s %4dx%-4d %3zu shapes (%d failed) in %5.1f s: best %-24s %.5f ns/it/px\n", tag(d).c_str(), n, n,
                    shapes.size(), failed, secs, shape_text(best->shape).c_str(), best->ns);
    else
        std::printf("  %s %4dx%-4d: every shape failed\n", tag(d).c_str(), n, n);
}

// The shapes of each variant's top list of a ranked bucket (fastest first per variant).
std::vector<Shape> top_shapes(const BucketData& b) {
    std::vector<Shape> out;
    for (const VariantRanking& r : b.ranking)
        for (const Timing& t : r.top) out.push_back(t.shape);
    return out;
}

// CLG's check at its largest bucket: whether its fastest shape is HS's, and the two times.
void twin_check(const BucketData& bd, const BucketData& twin, const std::string& who) {
    const Timing* mine = best_of(bd);
    const Timing* theirs = best_of(twin);
    if (!mine || !theirs) return;
    const Timing* same = find_timing(twin, mine->shape);
    std::printf("  %s %4dx%-4d: fastest %s %s %s's (%s's time for it %s)\n", who.c_str(), bd.n, bd.n,
                shape_text(mine->shape).c_str(), mine->shape == theirs->shape ? "as" : "NOT as", bd.shapes_from.c_str(),
                bd.shapes_from.c_str(), same ? fmt("%.5f ns/it/px", same->ns).c_str() : "unknown");
}

// Every learned algorithm and precision at buckets 0..buckets-1: candidate_shapes, except CLG
// (twin_of): below the largest bucket it borrows HS's timings, and at the largest it times HS's
// kKeep best shapes of each variant there (a check that the shapes carry over).
void measure_gpu(Measurer& m, const Opts& o, std::vector<AlgoData>& all, int buckets, int warmup, int runs) {
    const GpuInfo& g = m.gpu();
    std::printf("\nGPU inner loop (one level, epsilon 0, median of %d runs after %d warm-up%s; CUDA events)\n", runs, warmup,
                warmup == 1 ? "" : "s");
    for (AlgoData& ad : all)
        for (int b = 0; b < buckets; ++b)
            for (PrecData& d : ad.pd) {
                const PrecData* hs = twin_of(all, d);
                const BucketData* twin = hs && hs->b[b].measured ? &hs->b[b] : nullptr;
                if (twin && b + 1 < buckets) {
                    d.b[b] = *twin;
                    d.b[b].borrowed = platform::algorithm_name(hs->a);
                    std::printf("  %s %4dx%-4d: %s's timings (the same iteration kernels)\n", tag(d).c_str(), twin->n,
                                twin->n, d.b[b].borrowed.c_str());
                    continue;
                }
                if (twin) {
                    d.b[b].shapes_from = platform::algorithm_name(hs->a);
                    d.b[b].twin = twin->timings;
                }
                time_bucket(m, o, d, b, twin ? top_shapes(*twin) : candidate_shapes(d.a, d.p, g.regs_per_block), warmup,
                            runs);
                if (twin) twin_check(d.b[b], *twin, tag(d));
            }
}

void measure_cpu(Measurer& m, std::vector<AlgoData>& all, int runs) {
    const CpuInfo& c = m.cpu();
    std::printf("\nCPU inner loop (%s, %u threads; of_process at 1 level, 1 warp, %d minus %d iterations, median of %d)\n",
                backend_name(c.backend), c.threads, kCpuIt2, kCpuIt1, runs);
    for (PrecData* dp : each(all)) {
        PrecData& d = *dp;
        // A CPU without F16 runs an F16 request in F32: the F32 figure serves both.
        const PrecData* f32 = f32_of(all, d);
        if (d.p == OF_PRECISION_F16 && !c.fp16 && f32 && f32->cpu.ok) {
            d.cpu = f32->cpu;
            std::printf("  %s: this CPU path has no F16 arithmetic; the f32 figure serves (%s)\n", tag(d).c_str(),
                        d.cpu.variant.c_str());
            continue;
        }
        const int sides[2] = {kCpuSmall, kCpuLarge};
        for (int k = 0; k < 2; ++k) {
            const Runs r = m.cpu_inner(d.a, d.p, sides[k], kCpuIt1, kCpuIt2, runs);
            if (!r.ok) {
                d.cpu.ok = false;
                d.cpu.why = fmt("%dx%d: %s", sides[k], sides[k], r.why.c_str());
                std::printf("  %s %dx%d: failed: %s\n", tag(d).c_str(), sides[k], sides[k], r.why.c_str());
                break;
            }
            d.cpu.ns[k] = median(r.v);
            d.cpu.spread = std::max(d.cpu.spread, percentile90(r.v) / d.cpu.ns[k]);
            d.cpu.arith = r.arith;
            d.cpu.variant = r.variant;
            d.cpu.ok = true;
            std::printf("  %s %dx%d: %.4g ns/it/px (%s, p90/median %.3f)\n", tag(d).c_str(), sides[k], sides[k], d.cpu.ns[k],
                        r.variant.c_str(), percentile90(r.v) / d.cpu.ns[k]);
        }
    }
}

// The shape the GPU runs a side x side frame with: the rank-1 row of its bucket.
bool crossover_shape(const PrecData& d, int side, Shape* s) {
    const Bucket b = platform::bucket_for_area(static_cast<std::uint64_t>(side) * static_cast<std::uint64_t>(side));
    const Timing* t = best_of(d.b[b]);
    if (!t) return false;
    *s = t->shape;
    return true;
}

void measure_crossover(Measurer& m, const Opts& o, std::vector<AlgoData>& all, int runs) {
    std::printf("\nCrossover: end to end, 3 levels x0.5, 1 warp, 10 iterations, U8 host frames and host flow, median of %d;\n"
                "           bisection of the side between %d and %d (GPU: the rank-1 shape of the frame's bucket)\n",
                runs, kCrossLo, kCrossHi);
    for (PrecData* dp : each(all)) {
        PrecData& d = *dp;
        CrossData& x = d.cross;
        auto probe = [&](int side, bool* gpu_faster) {
            Shape s;
            if (!crossover_shape(d, side, &s)) {
                x.why = fmt("no GPU shape timed for %dx%d", side, side);
                return false;
            }
            const Runs g = m.e2e(d.a, true, d.p, s, side, kCrossoverSchedule, runs);
            const Runs c = g.ok ? m.e2e(d.a, false, d.p, s, side, kCrossoverSchedule, runs) : Runs();
            if (!g.ok || !c.ok) {
                x.why = fmt("%dx%d %s: %s", side, side, g.ok ? "CPU" : "GPU", (g.ok ? c.why : g.why).c_str());
                return false;
            }
            const double gm = median(g.v), cm = median(c.v);
            x.probes[side] = std::make_pair(gm, cm);
            x.shapes[side] = shape_text(s);
            *gpu_faster = gm < cm;
            if (o.verbose)
                std::printf("  %s %4dx%-4d GPU %.3f ms (%s), CPU %.3f ms: %s\n", tag(d).c_str(), side, side, gm,
                            shape_text(s).c_str(), cm, gm < cm ? "GPU" : "CPU");
            return true;
        };
        x.x = bisect_crossover(kCrossLo, kCrossHi, probe);
        x.measured = x.x.ok;
        if (!x.measured) {
            std::printf("  %s: failed: %s\n", tag(d).c_str(), x.why.c_str());
            continue;
        }
        if (x.x.gpu_side == 0)
            std::printf("  %s: the CPU is faster up to %dx%d (%d probes)\n", tag(d).c_str(), kCrossHi, kCrossHi, x.x.probes);
        else if (x.x.cpu_side == 0)
            std::printf("  %s: the GPU is faster already at %dx%d\n", tag(d).c_str(), kCrossLo, kCrossLo);
        else
            std::printf("  %s: GPU faster from %dx%d (%.3f vs %.3f ms), CPU at %dx%d (%.3f vs %.3f ms); %d probes\n",
                        tag(d).c_str(), x.x.gpu_side, x.x.gpu_side, x.probes[x.x.gpu_side].first,
                        x.probes[x.x.gpu_side].second, x.x.cpu_side, x.x.cpu_side, x.probes[x.x.cpu_side].first,
                        x.probes[x.x.cpu_side].second, x.x.probes);
    }
}

// Whole frames for the optional <path> terms: sides x kTermSchedules on each path, fitted with
// the path's ns_per_it_px held at the figure the table states.
const double kMaxFitError = 0.25;

// The terms of one path of d (k: platform::Path) from whole frames at `sides`.
void frame_terms(Measurer& m, const Opts& o, PrecData& d, int k, const std::vector<int>& sides, int runs) {
    TermsData& td = d.terms[k];
    const bool on_gpu = k == platform::kPathGpu;
    double ns = 0.0;
    if (on_gpu) {
        const Timing* t = gpu_figure(d, nullptr);
        if (t) ns = sig3(t->ns);
    } else if (d.cpu.ok) {
        ns = sig3(d.cpu.ns[1]);
    }
    if (!(ns > 0.0)) {
        td.why = "no ns_per_it_px figure";
        return;
    }
    td.attempted = true;
    const char* path = platform::path_name(static_cast<platform::Path>(k));
    std::vector<FramePoint> pts;
    for (int side : sides)
        for (const Schedule& sch : kTermSchedules) {
            Shape s = baseline_shape();
            if (on_gpu && !crossover_shape(d, side, &s)) {
                td.why = fmt("no GPU shape timed for %dx%d", side, side);
                break;
            }
            const Runs r = m.e2e(d.a, on_gpu, d.p, s, side, sch, runs);
            if (!r.ok) {
                td.why = fmt("%dx%d: %s", side, side, r.why.c_str());
                break;
            }
            const FramePoint fp = frame_point(side, sch, on_gpu ? s.depth : 1, ns, median(r.v) * 1e6);
            pts.push_back(fp);
            if (o.verbose)
                std::printf("  %s %s %4dx%-4d %d/%d/%-2d (%g levels x warps) %.4f ms\n", tag(d).c_str(), path, side, side,
                            sch.levels, sch.warps, sch.iterations, fp.level_runs, fp.t_ns * 1e-6);
        }
    if (!td.why.empty()) {
        std::printf("  %s %s: failed: %s\n", tag(d).c_str(), path, td.why.c_str());
        return;
    }
    td.fit = fit_frame_terms(pts);
    td.points = static_cast<int>(pts.size());
    // A model that misses a frame by more than kMaxFitError, or has no term at all, is left out.
    td.measured = td.fit.ok && td.fit.worst_rel_error <= kMaxFitError &&
                  (td.fit.frame_us > 0.0 || td.fit.frame_ns_per_px > 0.0 || td.fit.launch_us > 0.0 || td.fit.level_us > 0.0);
    if (!td.measured) {
        td.why = td.fit.ok ? fmt("the model does not fit (worst error %.0f%%, terms %.3g us, %.3g ns/px, %.3g us, "
                                 "%.3g us): left out",
                                 100.0 * td.fit.worst_rel_error, td.fit.frame_us, td.fit.frame_ns_per_px, td.fit.launch_us,
                                 td.fit.level_us)
                           : std::string("the fit failed");
        std::printf("  %s %s: %s\n", tag(d).c_str(), path, td.why.c_str());
        return;
    }
    std::printf("  %s %s: frame_us %.4g, frame_ns_per_px %.4g, launch_us %.4g, level_us %.4g (worst error %.1f%% over "
                "%d frames)\n",
                tag(d).c_str(), path, td.fit.frame_us, td.fit.frame_ns_per_px, td.fit.launch_us, td.fit.level_us,
                100.0 * td.fit.worst_rel_error, td.points);
}

void measure_frame_terms(Measurer& m, const Opts& o, std::vector<AlgoData>& all, bool gpu, int runs) {
    const std::vector<int> sides = o.quick ? std::vector<int>{64, 128, 256, 512} : std::vector<int>{64, 128, 256, 512, 1024};
    std::printf("\nWhole-frame terms (frame_us, frame_ns_per_px, launch_us, level_us): %d sides %d..%d x schedules "
                "(levels/warps/it) %s, U8 host frames, median of %d; least squares, ns_per_it_px held\n",
                static_cast<int>(sides.size()), sides.front(), sides.back(), term_schedules_text().c_str(), runs);
    for (PrecData* dp : each(all))
        for (int k : {platform::kPathGpu, platform::kPathCpu}) {
            PrecData& d = *dp;
            if (k == platform::kPathGpu && !gpu) continue;
            const PrecData* f32 = f32_of(all, d);
            if (k == platform::kPathCpu && d.p == OF_PRECISION_F16 && !m.cpu().fp16 && f32 && f32->terms[k].attempted) {
                d.terms[k] = f32->terms[k]; // the same F32 path
                continue;
            }
            frame_terms(m, o, d, k, sides, runs);
        }
}


// ---- the table -----------------------------------------------------------------------------------
struct Context {
    const Opts* o;
    const Measurer* m;
    std::string date;
    std::string tool;    // "oflow-tune" or "oflow-tune --quick"
    const platform::BoardTable* base = nullptr;
    std::string base_from; // how --base was given
    int gpu_runs = 0, cpu_runs = 0, e2e_runs = 0;
};

std::string by(const Context& c, const std::string& device) {
    return (c.m->modelled() ? "DRY RUN, modelled (not measured) for " : "measured on ") + device + ", " + c.tool + ", " +
           c.date;
}

std::string shape_list(const VariantRanking& r) {
    std::string s;
    for (std::size_t i = 0; i < r.top.size(); ++i) {
        const Shape& sh = r.top[i].shape;
        s += (i ? ", " : "") + fmt("%dx%d", sh.bw, sh.bh);
        if (sh.variant == platform::kVariantMultiIter) s += fmt(" r%d d%d", sh.rows, sh.depth);
        s += fmt(" %.4g", r.top[i].ns);
    }
    return s;
}

// <launch> rows of one measured bucket; `as` is the bucket they are written for (the same, or
// "larger" filled from 2048 under --quick without --base). CLG's borrowed buckets are written
// from HS's timings and say so.
void launch_rows(const Context& c, const PrecData& d, int b, Bucket as, XPrecision* xp) {
    const BucketData& bd = d.b[b];
    const int n = bd.n;
    const std::string with = bd.shapes_from.empty() ? std::string()
                                                    : fmt(", with %s's %d best shapes per variant there: the same kernels",
                                                          bd.shapes_from.c_str(), kKeep);
    std::string head = fmt("bucket %s (timed at %dx%d%s), median ns/it/px of %d runs, the %d best shapes per variant "
                           "(block, rows per thread r, depth d):",
                           platform::bucket_name(as), n, n, with.c_str(), c.gpu_runs, kKeep);
    if (as != static_cast<Bucket>(b))
        head = fmt("bucket larger: not timed (quick run, no base table); the rows repeat bucket %s's, timed at %dx%d:",
                   platform::bucket_name(static_cast<Bucket>(b)), n, n);
    // What the rows of a CLG bucket rest on (empty for the others).
    std::string note;
    if (!bd.borrowed.empty()) {
        head = fmt("%s's rows and timings (CLG iterates the same kernels, cuda/hs_cuda.cuh; timed at the largest "
                   "bucket only): ",
                   bd.borrowed.c_str()) +
               head;
        note = fmt("; %s's timing: CLG iterates the same kernels (cuda/hs_cuda.cuh), timed at the largest bucket only",
                   bd.borrowed.c_str());
    } else if (!bd.shapes_from.empty()) {
        note = fmt("; the shapes tried: %s's %d best of the variant here (the same kernels)", bd.shapes_from.c_str(), kKeep);
    }
    xp->comments[as].push_back(head);
    for (const VariantRanking& r : bd.ranking)
        xp->comments[as].push_back(fmt("  %s: %s", platform::variant_name(r.variant), shape_list(r).c_str()));
    for (const VariantRanking& r : bd.ranking) {
        const Timing& t = r.top[0];
        int tried = 0;
        for (const Timing& x : bd.timings) tried += x.shape.variant == r.variant ? 1 : 0;
        std::string src = by(c, c.m->gpu().name) + fmt(", median of %d: %.4g ns/it/px at %dx%d (%d iterations per run, "
                                                        "p90/median %.3f), the fastest of %d %s shapes",
                                                        t.runs, t.ns, n, n, iterations_for(t.shape), t.spread, tried,
                                                        platform::variant_name(r.variant)) +
                          note;
        const Timing* twin = nullptr;
        for (const Timing& x : bd.twin)
            if (x.ok && x.shape == t.shape) twin = &x;
        if (twin) src += fmt(", %s's time %.4g", bd.shapes_from.c_str(), twin->ns);
        if (as != static_cast<Bucket>(b))
            src += fmt("; written for bucket larger from the %dx%d timing (--quick without --base)", n, n);
        xp->launches.push_back(XLaunch{r.variant, as, r.rank, t.shape.bw, t.shape.bh, t.shape.rows, 0, t.shape.depth, 0, src});
    }
}

// The whole-frame terms into a path, and a note for its source.
std::string add_terms(const Context& c, const TermsData& td, XPath* p) {
    if (!td.measured) return "";
    p->has_frame_terms = true;
    p->frame_us = sig3(td.fit.frame_us);
    p->frame_ns_per_px = sig3(td.fit.frame_ns_per_px);
    p->launch_us = sig3(td.fit.launch_us);
    p->level_us = sig3(td.fit.level_us);
    return fmt("; frame terms fit to %d frames (64^2..%d^2 x %d schedules, see the header; host I/O; median of %d): "
               "worst error %.1f%%",
               td.points, c.o->quick ? 512 : 1024, kTermScheduleCount, c.e2e_runs, 100.0 * td.fit.worst_rel_error);
}

// The GPU <path>: the rank-1 shape of the largest bucket timed.
bool gpu_path(const Context& c, const PrecData& d, XPath* out, std::string* why) {
    int largest = -1;
    const Timing* figure = gpu_figure(d, &largest);
    if (!figure) {
        *why = "no bucket was timed";
        return false;
    }
    const Timing& t = *figure;
    // The self-test times the GPU at 1024^2 (quick) and 2048^2 (full): their slowdown against
    // the figure goes into warn.
    // (CLG: HS's timings there, the same kernels; the header says so.)
    double size_ratio = 1.0;
    for (int b : {platform::kBucket1024, platform::kBucket2048}) {
        const Timing* s = best_of(d.b[b]);
        if (s && b <= largest) size_ratio = std::max(size_ratio, s->ns / t.ns);
    }
    const Factors f = warn_fail(t.spread, size_ratio);
    out->arith = d.p;
    out->ns_per_it_px = sig3(t.ns);
    out->warn = f.warn;
    out->fail = f.fail;
    out->source = by(c, c.m->gpu().name) +
                  fmt(", median of %d: %s at %dx%d (rank 1 of the largest bucket); ", t.runs, shape_text(t.shape).c_str(),
                      d.b[largest].n, d.b[largest].n) +
                  warn_fail_text(t.spread, size_ratio, f);
    out->source += add_terms(c, d.terms[platform::kPathGpu], out);
    return true;
}

XPath cpu_path(const Context& c, const PrecData& d) {
    const CpuInfo& cpu = c.m->cpu();
    const double ratio = d.cpu.ns[0] / d.cpu.ns[1];
    const Factors f = warn_fail(d.cpu.spread, ratio);
    XPath p;
    p.arith = d.cpu.arith;
    p.ns_per_it_px = sig3(d.cpu.ns[1]);
    p.warn = f.warn;
    p.fail = f.fail;
    p.source = by(c, cpu.name) + fmt(", median of %d: %s path, %u threads, 1 level, 1 warp, %d-%d iterations at %dx%d "
                                     "(%dx%d: %.4g); ",
                                     c.cpu_runs, d.cpu.variant.c_str(), cpu.threads, kCpuIt2, kCpuIt1,
                                     kCpuLarge, kCpuLarge, kCpuSmall, kCpuSmall, d.cpu.ns[0]) +
               warn_fail_text(d.cpu.spread, ratio, f);
    p.source += add_terms(c, d.terms[platform::kPathCpu], &p);
    return p;
}

void crossover(const Context& c, const PrecData& d, XPrecision* xp) {
    const CrossData& x = d.cross;
    const std::string who = by(c, c.m->gpu().name + " and " + c.m->cpu().name) +
                            fmt(", median of %d frames each, end to end (3 levels, 1 warp, 10 it, U8 host frames, host flow): ",
                                c.e2e_runs);
    xp->per_level = false;
    if (x.x.gpu_side == 0) {
        const auto& p = x.probes.at(kCrossHi);
        xp->crossover_area = static_cast<std::uint64_t>(kCrossHi) * kCrossHi;
        xp->crossover_source = who + fmt("the CPU was faster at every side up to %dx%d (GPU %.3f ms, CPU %.3f ms): the area "
                                         "is that bound, the crossover lies above it; per_level no: whole frames were timed",
                                         kCrossHi, kCrossHi, p.first, p.second);
    } else if (x.x.cpu_side == 0) {
        const auto& p = x.probes.at(kCrossLo);
        xp->crossover_area = static_cast<std::uint64_t>(kCrossLo) * kCrossLo;
        xp->crossover_source = who + fmt("the GPU was faster already at %dx%d (GPU %.3f ms with %s, CPU %.3f ms), the smallest "
                                         "side timed; per_level no: whole frames were timed",
                                         kCrossLo, kCrossLo, p.first, x.shapes.at(kCrossLo).c_str(), p.second);
    } else {
        const auto& g = x.probes.at(x.x.gpu_side);
        const auto& p = x.probes.at(x.x.cpu_side);
        xp->crossover_area = static_cast<std::uint64_t>(x.x.gpu_side) * static_cast<std::uint64_t>(x.x.gpu_side);
        xp->crossover_source =
            who + fmt("GPU (%s) faster at %dx%d (%.3f vs %.3f ms), CPU at %dx%d (%.3f vs %.3f ms); bisection of the side "
                      "over %d..%d, %d probes; per_level no: whole frames timed",
                      x.shapes.at(x.x.gpu_side).c_str(), x.x.gpu_side, x.x.gpu_side, g.first, g.second, x.x.cpu_side,
                      x.x.cpu_side, p.first, p.second, kCrossLo, kCrossHi, x.x.probes);
    }
}

// Whether a copied <launch> row can run on a board with regs_per_block registers per block.
bool launch_fits(const XLaunch& l, int regs_per_block) {
    return l.variant != platform::kVariantMultiIter ||
           l.block_w * l.block_h * platform::kMultiIterRegistersPerThread <= regs_per_block;
}

// The <board> element: the GPU's facts when it is timed, else the base table's.
void board(const Context& c, bool gpu_timed, XTable* t) {
    const GpuInfo& g = c.m->gpu();
    const CpuInfo& cpu = c.m->cpu();
    const platform::BoardTable* base = c.base;
    t->name = c.o->name;
    if (gpu_timed) {
        t->title = g.name + " with " + cpu.name;
        t->cc_major = g.cc_major;
        t->cc_minor = g.cc_minor;
        t->sms = g.sms;
        t->regs_per_block = g.regs_per_block;
        t->shared_per_block = g.shared_per_block;
        t->source = by(c, g.name) + (c.m->modelled() ? ": cc, SMs, registers and shared memory of the model"
                                                     : ": cc, SMs, registers and shared memory per block (without opt-in) "
                                                       "from cudaGetDeviceProperties") +
                    "; cpu_fp16: FP16 vector arithmetic of this CPU (HWCAP asimdhp)";
    } else {
        t->title = std::string("GPU rows of ") + base->name + ", CPU " + cpu.name;
        t->cc_major = base->cc_major;
        t->cc_minor = base->cc_minor;
        t->sms = base->sm_count;
        t->regs_per_block = base->regs_per_block;
        t->shared_per_block = base->shared_per_block;
        t->source = "cc, sms, registers and shared memory copied from " + c.base_from + " (" + g.absent + ", oflow-tune, " +
                    c.date + "); cpu_fp16: FP16 vector arithmetic of this CPU (HWCAP asimdhp)";
    }
    t->cpu_fp16 = cpu.fp16;
}

// The base's algorithms this run does not learn come along unchanged where this board can hold
// them (their CPU rows need FP16 if they say f16; their MULTI_ITER rows must fit the registers);
// those left out, and HS / CLG when neither timed nor in the base, are named in the header.
void copy_other_algorithms(const Context& c, const std::vector<AlgoData>& all, XTable* t) {
    for (of_algorithm a : {OF_ALGO_HS, OF_ALGO_CLG})
        if (!learned(all, a))
            t->header.push_back(std::string(platform::algorithm_name(a)) + ": not in this table (" + c.m->gpu().absent +
                                ", and the base table has no " + platform::algorithm_name(a) + " entry to copy).");
    if (!c.base) return;
    const XTable copy = copy_board(*c.base, c.base_from);
    for (const XAlgorithm& xa : copy.algorithms) {
        if (learned(all, xa.algorithm)) continue;
        std::string no;
        for (const XPrecision& xp : xa.precisions) {
            if (xp.path[platform::kPathCpu].arith == OF_PRECISION_F16 && !t->cpu_fp16)
                no = "its CPU rows compute in F16, this CPU has no FP16 vector arithmetic";
            for (const XLaunch& l : xp.launches)
                if (!launch_fits(l, t->regs_per_block))
                    no = fmt("its %s %dx%d row needs more registers than this board's %d", platform::variant_name(l.variant),
                             l.block_w, l.block_h, t->regs_per_block);
        }
        if (no.empty())
            t->algorithms.push_back(xa);
        else
            t->header.push_back(std::string(platform::algorithm_name(xa.algorithm)) + ": not copied from " + c.base_from +
                                ": " + no + ".");
    }
}

// The <launch> rows of bucket b: timed here, else copied from the base row br, else (bucket
// larger, --quick without --base) 2048's timings; false with *why when none of these exists.
bool bucket_rows(const Context& c, const PrecData& d, int b, const platform::TuningRow* br, bool gpu_timed, int buckets,
                 int regs_per_block, XPrecision* xp, std::string* why) {
    if (gpu_timed && b < buckets && d.b[b].measured) {
        launch_rows(c, d, b, static_cast<Bucket>(b), xp);
        return true;
    }
    bool copied = false;
    if (br) {
        xp->comments[b].push_back(fmt("bucket %s: not timed here (%s); rows copied from %s",
                                      platform::bucket_name(static_cast<Bucket>(b)),
                                      !gpu_timed ? c.m->gpu().absent.c_str() : (b >= buckets ? "quick run" : "every shape failed"),
                                      c.base_from.c_str()));
        for (int i = 0; i < br->launch_count; ++i)
            if (br->launches[i].bucket == b) {
                const XLaunch l = copy_launch(br->launches[i], c.base_from);
                if (!launch_fits(l, regs_per_block)) {
                    xp->comments[b].push_back(fmt("not copied: %s %dx%d (more registers than this board's %d)",
                                                  platform::variant_name(l.variant), l.block_w, l.block_h, regs_per_block));
                    continue;
                }
                xp->launches.push_back(l);
                copied = true;
            }
    }
    if (!copied && gpu_timed && b == platform::kBucketLarger && d.b[platform::kBucket2048].measured) {
        launch_rows(c, d, platform::kBucket2048, platform::kBucketLarger, xp);
        copied = true;
    }
    if (!copied)
        *why = fmt("%s bucket %s: no launch shape timed and none to copy (give --base)", tag(d).c_str(),
                   platform::bucket_name(static_cast<Bucket>(b)));
    return copied;
}

// One <precision> of a learned algorithm: what was measured, the rest copied from the base's
// row; false with *why when a row can be neither measured nor copied.
bool precision_entry(const Context& c, const PrecData& d, bool gpu_timed, int buckets, int regs_per_block, XPrecision* xp,
                     std::string* why) {
    const std::string& absent = c.m->gpu().absent;
    const platform::TuningRow* br = c.base ? platform::find_row(*c.base, d.a, d.p) : nullptr;
    xp->precision = d.p;
    // crossover
    if (d.cross.measured) {
        crossover(c, d, xp);
    } else if (br) {
        xp->crossover_area = br->crossover_area;
        xp->per_level = br->crossover_per_level;
        xp->crossover_source = clip("copied from " + c.base_from + " (" + (gpu_timed ? d.cross.why : absent) + "): " +
                                        br->crossover_source,
                                    kMaxSourceBytes);
    } else {
        *why = fmt("%s: the crossover was not measured (%s) and no --base row to copy", tag(d).c_str(),
                   gpu_timed ? d.cross.why.c_str() : absent.c_str());
        return false;
    }
    // paths
    std::string gwhy;
    if (!(gpu_timed && gpu_path(c, d, &xp->path[platform::kPathGpu], &gwhy))) {
        if (!br) {
            *why = fmt("%s: no GPU figure (%s) and no --base row to copy", tag(d).c_str(),
                       gpu_timed ? gwhy.c_str() : absent.c_str());
            return false;
        }
        xp->path[platform::kPathGpu] = copy_path(br->path[platform::kPathGpu], c.base_from);
    }
    if (!d.cpu.ok) {
        *why = fmt("%s: the CPU path was not measured: %s", tag(d).c_str(), d.cpu.why.c_str());
        return false;
    }
    xp->path[platform::kPathCpu] = cpu_path(c, d);
    // The reference path's terms beside NEON's: not timed here, carried from the base.
    if (br && c.m->cpu().backend == OF_BACKEND_NEON && platform::states_reference(br->path[platform::kPathCpu])) {
        const platform::PathCost& bc = br->path[platform::kPathCpu];
        XPath& xc = xp->path[platform::kPathCpu];
        xc.ref_ns_per_it_px = bc.ref_ns_per_it_px;
        xc.ref_frame_ns_per_px = bc.ref_frame_ns_per_px;
        xc.source = clip(xc.source + "; ref_* (the reference path's) copied from " + c.base_from + ":" +
                             std::to_string(bc.line),
                         kMaxSourceBytes);
    }
    // launch rows, bucket by bucket
    for (int b = 0; b < platform::kBucketCount; ++b)
        if (!bucket_rows(c, d, b, br, gpu_timed, buckets, regs_per_block, xp, why)) return false;
    return true;
}

// The <algorithm> of a learned algorithm. auto_precision is not measured: the base's, else f32.
bool algorithm_entry(const Context& c, const AlgoData& ad, bool gpu_timed, int buckets, int regs_per_block,
                     XAlgorithm* xa, std::string* why) {
    xa->algorithm = ad.a;
    xa->auto_precision = OF_PRECISION_F32;
    xa->source = "auto_precision f32: the library's default; oflow-tune times the paths, it does not judge accuracy "
                 "(for the F16 trade-off: T. Romera, \"Adequation algorithme architecture pour flot optique sur "
                 "GPU embarque\", PhD thesis, 2023, section 5.2.3); " + c.tool + ", " + c.date;
    if (c.base)
        for (int a = 0; a < c.base->algorithm_count; ++a)
            if (c.base->algorithms[a].algorithm == ad.a) {
                xa->auto_precision = c.base->algorithms[a].auto_precision;
                xa->source = clip("auto_precision copied from " + c.base_from + ": " + c.base->algorithms[a].source,
                                  kMaxSourceBytes);
            }
    for (const PrecData& d : ad.pd) {
        XPrecision xp;
        if (!precision_entry(c, d, gpu_timed, buckets, regs_per_block, &xp, why)) return false;
        xa->precisions.push_back(xp);
    }
    return true;
}

// Builds the table: the learned algorithms in order, then the base's others; false with *why
// when a row can be neither measured nor copied.
bool build_table(const Context& c, const std::vector<AlgoData>& all, bool gpu_timed, int buckets, XTable* t,
                 std::string* why) {
    board(c, gpu_timed, t);
    for (const AlgoData& ad : all) {
        XAlgorithm xa;
        if (!algorithm_entry(c, ad, gpu_timed, buckets, t->regs_per_block, &xa, why)) return false;
        t->algorithms.push_back(xa);
    }
    copy_other_algorithms(c, all, t);
    return true;
}

// ---- the summary ---------------------------------------------------------------------------------
// The best shape of each bucket timed for one algorithm, against its GLOBAL F32 baseline there
// (CLG's borrowed buckets are HS's, marked so).
void shape_summary(const AlgoData& ad, int buckets) {
    const PrecData* f32 = nullptr;
    for (const PrecData& d : ad.pd)
        if (d.p == OF_PRECISION_F32) f32 = &d;
    for (const PrecData& d : ad.pd)
        for (int b = 0; b < buckets; ++b) {
            const Timing* best = best_of(d.b[b]);
            const char* bucket = platform::bucket_name(static_cast<Bucket>(b));
            if (!best) {
                std::printf("  %-8s %-7s %4dx%-5d %s\n", tag(d).c_str(), bucket, d.b[b].n, d.b[b].n, "(nothing timed)");
                continue;
            }
            const Timing* g = f32 ? find_timing(f32->b[b], baseline_shape()) : nullptr;
            std::string ratio = g ? fmt("%.2fx", g->ns / best->ns) : std::string("-");
            std::printf("  %-8s %-7s %4dx%-5d %-26s %11.5f %9s%s\n", tag(d).c_str(), bucket, d.b[b].n, d.b[b].n,
                        shape_text(best->shape).c_str(), best->ns, ratio.c_str(),
                        d.b[b].borrowed.empty() ? "" : (" (" + d.b[b].borrowed + "'s)").c_str());
        }
}

void summary(const std::vector<AlgoData>& all, const XTable& t, int buckets, bool gpu_timed) {
    std::printf("\nSummary (ratio: GLOBAL F32 %s of the same algorithm and bucket / the shape's time; > 1 is faster)\n",
                shape_text(baseline_shape()).c_str());
    if (gpu_timed) {
        std::printf("  %-8s %-7s %-10s %-26s %11s %9s\n", "", "bucket", "size", "best shape", "ns/it/px", "vs GLOBAL");
        for (const AlgoData& ad : all) shape_summary(ad, buckets);
    }
    for (const XAlgorithm& a : t.algorithms) {
        if (!learned(all, a.algorithm)) continue;
        for (const XPrecision& p : a.precisions) {
            const XPath& g = p.path[platform::kPathGpu];
            const XPath& c = p.path[platform::kPathCpu];
            const double side = std::sqrt(static_cast<double>(p.crossover_area));
            std::printf("  %s %s: GPU %s ns/it/px (warn %s, fail %s)%s; CPU %s ns/it/px %s (warn %s, fail %s); crossover area %llu "
                        "(%.0fx%.0f)%s\n",
                        platform::algorithm_name(a.algorithm), platform::precision_name(p.precision),
                        decimal(g.ns_per_it_px).c_str(), decimal(g.warn).c_str(), decimal(g.fail).c_str(),
                        gpu_timed ? "" : " [copied]", decimal(c.ns_per_it_px).c_str(), platform::precision_name(c.arith),
                        decimal(c.warn).c_str(), decimal(c.fail).c_str(), static_cast<unsigned long long>(p.crossover_area),
                        side, side, p.crossover_source.compare(0, 12, "copied from ") == 0 ? " [copied]" : "");
            if (c.ref_ns_per_it_px > 0.0)
                std::printf("      cpu reference path: ref_ns_per_it_px %s, ref_frame_ns_per_px %s [copied]\n",
                            decimal(c.ref_ns_per_it_px).c_str(), decimal(c.ref_frame_ns_per_px).c_str());
            for (int k : {platform::kPathGpu, platform::kPathCpu}) {
                const XPath& x = p.path[k];
                if (x.has_frame_terms)
                    std::printf("      %s whole frame: frame_us %s, frame_ns_per_px %s, launch_us %s, level_us %s\n",
                                platform::path_name(static_cast<platform::Path>(k)), decimal(x.frame_us).c_str(),
                                decimal(x.frame_ns_per_px).c_str(), decimal(x.launch_us).c_str(),
                                decimal(x.level_us).c_str());
            }
        }
    }
}

// Every timing taken, one line each (CLG's borrowed buckets are HS's lines: not repeated).
bool write_csv(const std::string& path, const std::vector<AlgoData>& all) {
    std::string s = "algorithm,precision,bucket,side,variant,block_w,block_h,rows,depth,ok,median_ns_per_it_px,p90_over_median,"
                    "runs,error\n";
    for (const AlgoData& ad : all)
        for (const PrecData& d : ad.pd)
            for (int b = 0; b < platform::kBucketCount; ++b) {
                if (!d.b[b].borrowed.empty()) continue;
                for (const Timing& t : d.b[b].timings) {
                    std::string why = t.why;
                    for (char& ch : why)
                        if (ch == ',' || ch == '\n' || ch == '"') ch = ' ';
                    s += fmt("%s,%s,%s,%d,%s,%d,%d,%d,%d,%d,%.6g,%.4f,%d,%s\n", platform::algorithm_name(d.a), pname(d.p),
                             platform::bucket_name(static_cast<Bucket>(b)), d.b[b].n, platform::variant_name(t.shape.variant),
                             t.shape.bw, t.shape.bh, t.shape.rows, t.shape.depth, t.ok ? 1 : 0, t.ns, t.spread, t.runs,
                             why.c_str());
                }
            }
    return write_text(path, s);
}

// The base table: a file (OF_WITH_TINYXML2 builds) or a built-in name.
struct Base {
#if OF_TUNE_TINYXML2
    std::unique_ptr<platform::LoadedTable> loaded;
#endif
    const platform::BoardTable* table = nullptr;
};

bool load_base(const std::string& arg, Base* b, std::string* why) {
    // A built-in name unless it looks like a path.
    const bool path = arg.find('/') != std::string::npos || arg.find(".xml") != std::string::npos;
    if (!path) {
        b->table = platform::find_board(arg.c_str());
        if (b->table) return true;
    }
    if (path || file_exists(arg)) {
#if OF_TUNE_TINYXML2
        b->loaded.reset(new platform::LoadedTable());
        char msg[kErrorCapacity] = {0};
        const ErrorSink err{msg};
        if (platform::load_table_file(arg.c_str(), b->loaded.get(), err) != OF_OK) {
            *why = std::string("--base: ") + msg;
            return false;
        }
        b->table = &b->loaded->board;
        return true;
#else
        *why = "--base " + arg + ": this build cannot read table files (configure with -DOF_WITH_TINYXML2=ON); name a "
               "built-in table instead (nano, tx2, xavier, orin, generic)";
        return false;
#endif
    }
    const platform::TableSet set = platform::builtin_tables();
    std::string names;
    for (int i = 0; i < set.count; ++i) names += std::string(i ? ", " : "") + set.boards[i]->name;
    *why = "--base " + arg + ": no such file and no built-in table of that name (" + names + ")";
    return false;
}

int run(const Opts& o) {
    const auto t_start = std::chrono::steady_clock::now();
    // The tool picks every backend itself: an override would time something else.
    if (const char* f = std::getenv("OFLOW_FORCE_BACKEND")) {
        if (*f) std::printf("oflow-tune: ignoring OFLOW_FORCE_BACKEND=%s (the tool times each path itself)\n", f);
        unsetenv("OFLOW_FORCE_BACKEND");
    }
    unsetenv("OFLOW_CUDA_F16_ROWS");

    Base base;
    std::string why;
    if (!o.base.empty() && !load_base(o.base, &base, &why)) {
        std::fprintf(stderr, "oflow-tune: %s\n", why.c_str());
        return 2;
    }
    std::unique_ptr<Measurer> m = o.dry_run ? model_measurer() : machine_measurer();
    const GpuInfo& g = m->gpu();
    const CpuInfo& cpu = m->cpu();
    if (!g.present && !base.table) {
        std::fprintf(stderr,
                     "oflow-tune: %s: the GPU rows (launch shapes, GPU figure, crossover) cannot be measured here.\n"
                     "  Give --base TABLE.xml or --base NAME (a built-in table) to copy them from; the CPU rows are\n"
                     "  measured either way.\n",
                     g.absent.c_str());
        return 2;
    }
    Context c;
    c.o = &o;
    c.m = m.get();
    c.date = today();
    c.tool = std::string("oflow-tune") + (o.dry_run ? " --dry-run" : "") + (o.quick ? " --quick" : "");
    c.base = base.table;
    c.base_from = base.table ? (base.table->file ? std::string(base.table->file) : o.base) : std::string();
    c.gpu_runs = o.quick ? 7 : 11;
    c.cpu_runs = o.quick ? 5 : 9;
    c.e2e_runs = o.quick ? 5 : 9;
    const int warmup = o.quick ? 1 : 2;
    const int buckets = o.quick ? 4 : 5;

    std::printf("oflow-tune%s: GPU %s; CPU %s (%s path, %u threads%s)\n", o.dry_run ? " (DRY RUN: modelled timings)" : "",
                g.present ? fmt("%s (sm_%d%d, %d SMs)", g.name.c_str(), g.cc_major, g.cc_minor, g.sms).c_str() : g.absent.c_str(),
                cpu.name.c_str(), backend_name(cpu.backend), cpu.threads, cpu.fp16 ? ", FP16" : "");
    if (base.table) std::printf("  base table: %s (%s)\n", base.table->name, c.base_from.c_str());

    std::vector<AlgoData> all = learned_algorithms(g.present, base.table);
    if (g.present) measure_gpu(*m, o, all, buckets, warmup, c.gpu_runs);
    measure_cpu(*m, all, c.cpu_runs);
    if (g.present) measure_crossover(*m, o, all, c.e2e_runs);
    if (kSchemaFrameTerms) measure_frame_terms(*m, o, all, g.present, c.e2e_runs);

    XTable t;
    if (!build_table(c, all, g.present, buckets, &t, &why)) {
        std::fprintf(stderr, "oflow-tune: %s\n", why.c_str());
        return 1;
    }
    std::vector<std::string> head; // before the notes build_table left
    head.push_back(fmt("%s: written by oflow-tune on %s (%s).", o.name.c_str(), c.date.c_str(),
                           o.dry_run ? "DRY RUN: every timing is modelled, nothing was measured; a test artefact, not a table"
                                     : "measured on this machine"));
    head.push_back("Options: " + (o.options.empty() ? std::string("none") : o.options) + ".");
    head.push_back("GPU: " + (g.present ? fmt("%s, sm_%d%d, %d SMs", g.name.c_str(), g.cc_major, g.cc_minor, g.sms)
                                            : g.absent + "; GPU rows copied from " + c.base_from));
    head.push_back(fmt("CPU: %s, %s path, %u threads%s.", cpu.name.c_str(), backend_name(cpu.backend), cpu.threads,
                           cpu.fp16 ? ", FP16 vector arithmetic" : ""));
    head.push_back(fmt("Launch rows: every shape oflow-tune tries (samples/tune/tune_core.hpp) timed per bucket with the CUDA "
                           "bench hooks (one level, epsilon 0, median of %d runs after %d warm-up); each variant's fastest shape "
                           "is its row, the variants ranked by it. The %d best shapes per variant are listed above each bucket's "
                           "rows (the schema holds one row per variant and bucket).",
                           c.gpu_runs, warmup, kKeep));
    std::string algos = "Algorithms: tvl1, hs and clg, each timed on its own paths (config.algorithm; HS and CLG with the "
                        "Jacobi solver). The hs and clg launch rows are the Jacobi solver's shapes (red-black SOR takes "
                        "their GLOBAL and FUSED rows; a MULTI_ITER row gives SOR FUSED with the built-in block).";
    if (g.present)
        algos += fmt(" MULTI_ITER rows per thread are the ones the context ran (an HS / CLG context takes them from its "
                     "board table's row, else the built-in 8). CLG iterates HS's kernels (cuda/hs_cuda.cuh): its rows "
                     "below the largest bucket are HS's, and at the largest bucket HS's %d best shapes per variant were "
                     "timed on CLG.",
                     kKeep);
    head.push_back(algos);
    head.push_back("warn/fail: warn = max(1.5, 1.2 x p90/median of the figure's runs (CPU: the larger of 256^2's and "
                       "512^2's), 1.2 x the slowest ns/it/px at the self-test's sizes (GPU 1024^2, 2048^2, for CLG HS's "
                       "timings there; CPU 256^2) / the figure), rounded up to 0.01; fail = 3 x warn.");
    head.push_back(fmt("Crossover: end to end (%d levels x0.5, %d warp, %d iterations, U8 host frames and host flow) on the GPU "
                           "with the rank-1 shape of the frame's bucket against the CPU path, bisecting the side of a square "
                           "frame over %d..%d; the area is the smallest side where the GPU was faster, squared.",
                           kCrossoverSchedule.levels, kCrossoverSchedule.warps, kCrossoverSchedule.iterations, kCrossLo, kCrossHi));
    if (kSchemaFrameTerms)
        head.push_back("Whole-frame terms of each <path> (frame_us, frame_ns_per_px, launch_us, level_us): least squares of "
                       "the relative error over whole frames (U8 host frames and host flow, copies included; levels/warps/it " +
                       term_schedules_text() +
                       ") with ns_per_it_px held, every term >= 0 (one the fit wants negative is held at 0); launches and "
                       "levels counted as platform/tuning.hpp frame_ms counts them; left out when the model misses a frame "
                       "by more than 25%.");
    head.push_back("Schema: platform/tables/README.md. To compile it in: platform/tables/" + o.name +
                       ".xml and its name in OF_TABLE_NAMES (platform/CMakeLists.txt).");
    if (base.table) head.push_back("Base: " + c.base_from + " (rows not measured here are copied from it and say so).");
    t.header.insert(t.header.begin(), head.begin(), head.end());

    const std::string text = write_xml(t);
    const std::string out = o.out.empty() ? o.name + ".xml" : o.out;
#if OF_TUNE_TINYXML2
    {
        std::unique_ptr<platform::LoadedTable> check(new platform::LoadedTable());
        char msg[kErrorCapacity] = {0};
        const ErrorSink err{msg};
        if (platform::parse_table_text(text.data(), text.size(), out.c_str(), check.get(), err) != OF_OK) {
            const std::string rejected = out + ".rejected";
            const bool saved = write_text(rejected, text);
            std::fprintf(stderr, "oflow-tune: the table does not validate: %s\n  (nothing written to %s%s%s)\n", msg,
                         out.c_str(), saved ? "; the text is in " : "", saved ? rejected.c_str() : "");
            return 1;
        }
        std::printf("\nValidated with platform::parse_table_text (the reader oflow-tablegen uses).\n");
    }
#else
    std::printf("\nNOT validated: this build has no OF_WITH_TINYXML2; check it with oflow-tablegen --check %s\n", out.c_str());
#endif
    if (!write_text(out, text)) {
        std::fprintf(stderr, "oflow-tune: cannot write %s\n", out.c_str());
        return 1;
    }
    if (!o.csv.empty() && !write_csv(o.csv, all)) {
        std::fprintf(stderr, "oflow-tune: cannot write %s\n", o.csv.c_str());
        return 1;
    }
    summary(all, t, buckets, g.present);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    std::printf("\nWrote %s (board \"%s\", %zu bytes) in %.1f s.\n", out.c_str(), o.name.c_str(), text.size(), secs);
    if (stem(out) != o.name)
        std::printf("Note: oflow-tablegen generates a table only from a file named after its board: %s.xml\n", o.name.c_str());
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // progress appears as it is measured
    Opts o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        o.options += (o.options.empty() ? "" : ", ") + (a.compare(0, 2, "--") == 0 ? a.substr(2) : a);
        const bool has_value = i + 1 < argc;
        if (a == "--quick") {
            o.quick = true;
        } else if (a == "--dry-run") {
            o.dry_run = true;
        } else if (a == "--verbose") {
            o.verbose = true;
        } else if (a == "--help" || a == "-h") {
            usage(nullptr);
            return 0;
        } else if ((a == "--out" || a == "--name" || a == "--base" || a == "--csv") && has_value) {
            const std::string v = argv[++i];
            // File names only: a table must not carry the measuring machine's directories.
            const std::size_t slash = v.find_last_of('/');
            o.options += " " + (a == "--name" || slash == std::string::npos ? v : v.substr(slash + 1));
            if (v.empty()) return usage((a + ": empty value").c_str());
            (a == "--out" ? o.out : a == "--name" ? o.name : a == "--base" ? o.base : o.csv) = v;
        } else {
            return usage(("unknown or incomplete argument '" + a + "'").c_str());
        }
    }
    if (!valid_name(o.name)) return usage(("--name " + o.name + ": 1-15 characters of a-z, 0-9, _ and not \"auto\"").c_str());
    return run(o);
}
