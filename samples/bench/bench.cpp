// oflow-bench: how fast the CUDA path is, and how close to the memory system it runs.
//
//  (c) copy bandwidth: a large device-to-device cudaMemcpy, read + write bytes counted.
//  (a) inner loop: ns per iteration per pixel of every variant x precision at 512^2 .. 8192^2
//      (one level, 20 iterations per run, epsilon 0, textured frames), median of >= 20 runs
//      after a warm-up, CUDA events; each row with its ratio to GLOBAL F32 at the same size,
//      the modelled bytes and FLOPs per pixel per iteration (cuda/cuda_bench.cu says how they
//      are counted), achieved GB/s and its share of the copy bandwidth. --sweep adds launch
//      shapes of MULTI_ITER and FUSED at 2048^2 and 4096^2.
//  (b) end to end through of_process with device-memory U8 frames and device flow (copies
//      excluded), for "3 levels x0.5, 1 warp, 10 iterations" and "automatic levels, 3 warps,
//      50 iterations" (epsilon 0: fixed work), for the best variant in F32 and F16 and for
//      GLOBAL F32; plus host frames + host flow for the best F32 (staging copies included),
//      and the host<->device copy time of the two frames and of the flow on their own.
//
// Usage: oflow-bench --cpu ... (CPU path, every build: bench_cpu.cpp)
//        oflow-bench --hs [--quick] [--smoke] [--json FILE] (HS / CLG on CUDA: bench_hs.cpp)
//        oflow-bench --lk [--quick] [--smoke] [--json FILE] (Lucas-Kanade on CUDA: bench_lk.cpp)
//        oflow-bench --dis [--quick] [--smoke] [--json FILE] (Dense Inverse Search on CUDA: bench_dis.cpp)
//        oflow-bench --stream [--quick] [--smoke] [--json FILE] (camera streams at 1080p: bench_stream.cpp)
//        oflow-bench [--quick] [--sweep] [--json FILE] [--smoke (tiny sizes: tests the tool)]
//                    [--shapes N --shape VARIANT,PREC,BH,DEPTH[,F16ROWS[,BOUND]] ...] (launch shapes at N x N
//                    only; BOUND: the MULTI_ITER launch bound, OFLOW_CUDA_MULTI_BOUND, to time one shape
//                    compiled for two bounds in one run)
//                    [--budget MS[,MS...] [--warps N] [--budget-case CASE] [--budget-levels N]]
//                    (time_budget_ms at 1920x1080: ms/frame, warps x iterations, EPE, GLOBAL F32 beside)
//                    [--exposure] (the cost of the illumination-robust preprocessing and of the median
//                    filter at 1920x1080 in one run: ms/frame and EPE of each option set, as ratios to the
//                    same variant without them and to GLOBAL F32 without them)
//                    [--confidence] (the cost of the validity output, the residual confidence, at
//                    640x480 and 1920x1080, TV-L1 defaults: a frame with an OF_VALID_CONFIDENCE_F32
//                    device plane beside the same frame without validity, ms and share of the frame
//                    (target <= 5 %), under robust pick (its judge images reused) and none (both
//                    frames normalised again); and the kernel alone with its bytes per pixel)
//  The e2e rows (b) run with robust none and median 0 (the kernels' own regression check);
//  --exposure times what the defaults add, and the robust modes range-match, level-norm and
//  shade-norm (with the median) beside them.
#include "oflow.h"
#include "samples/bench/bench_cpu.hpp"
#include "samples/bench/bench_hs.hpp"
#include "samples/bench/bench_dis.hpp"
#include "samples/bench/bench_lk.hpp"
#include "samples/bench/bench_stream.hpp"
#include "samples/bench/bench_util.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#if OF_BENCH_CUDA
#include "core/context.hpp"
#include "core/synth.hpp"
#include "cuda/cuda_bench.hpp"

#include <cuda_runtime_api.h>
#endif

using bench::median;
using bench::texture;
#if OF_BENCH_CUDA
using bench::copy_bandwidth;
#endif

namespace {

struct Opts {
    bool quick = false;
    bool smoke = false; // tiny sizes: checks the tool itself, measures nothing useful
    bool sweep = false;
    const char* json = nullptr;
    int shapes_at = 0;               // --shapes N: only the shapes below at N x N (and the baseline)
    std::vector<double> budgets;     // --budget MS[,MS...]: time-budget rows only (1920x1080)
    int budget_warps = 1;            // --warps N: minimum warps of the budget rows
    int budget_levels = 0;           // --budget-levels N: pyramid levels of the budget rows (0 = auto)
    std::string budget_case = "rotation-zoom"; // --budget-case NAME: the synthetic pair
    bool exposure = false;           // --exposure: the robust preprocessing's and the median's cost
    bool confidence = false;         // --confidence: the validity output's cost (residual confidence)
    std::vector<std::string> shapes; // --shape VARIANT,PREC,BH,DEPTH[,F16ROWS]
};

const char* vname(of_variant v) {
    return v == OF_VARIANT_GLOBAL ? "global" : v == OF_VARIANT_FUSED ? "fused" : "multi-iter";
}
const char* pname(of_precision p) { return p == OF_PRECISION_F16 ? "f16x2" : "f32"; }

#if OF_BENCH_CUDA

using bench::cuda_ok;

// ---- (a) inner loop ------------------------------------------------------------------------
struct InnerRow {
    int w, h;
    of_variant v;
    of_precision p;
    bench::Inner t; // the timing and the model (t.ns: per iteration per pixel)
    double ratio;   // GLOBAL F32 ns / this ns (> 1: faster)
    bool ok;
    bool sweep; // a launch shape other than the variant's default
};

InnerRow inner_row(int w, int h, const std::vector<float>& i0, const std::vector<float>& i1, of_variant v, of_precision p,
                   uint32_t bw, uint32_t bh, uint32_t depth, int iters, int runs, double copy_gbps) {
    InnerRow r = InnerRow();
    r.w = w;
    r.h = h;
    r.v = v;
    r.p = p;
    of_config c;
    of_config_init(&c, OF_ALGO_TVL1);
    c.max_width = static_cast<uint32_t>(w);
    c.max_height = static_cast<uint32_t>(h);
    c.format = OF_PIXEL_F32;
    c.levels = 1;
    c.warps = 1;
    c.iterations = static_cast<uint32_t>(iters);
    c.epsilon = 0.0f;
    c.backend = OF_BACKEND_CUDA;
    c.variant = v;
    c.precision = p;
    c.block_width = bw;
    c.block_height = bh;
    c.fused_depth = depth;
    char who[48];
    std::snprintf(who, sizeof who, "%s %s", vname(v), pname(p));
    r.t = bench::time_inner(c, i0, i1, w, h, iters, runs, copy_gbps, who);
    r.ok = r.t.ok;
    return r;
}

void print_inner_header() {
    std::printf("%-11s %-10s %-5s %-7s %2s %9s %8s %7s %8s %6s %8s %6s\n", "size", "variant", "prec", "block", "P", "ns/it/px",
                "speedup", "B/px/it", "GB/s", "%copy", "GFLOP/s", "redund");
}
void print_inner(const InnerRow& r) {
    char size[24], block[16];
    std::snprintf(size, sizeof size, "%dx%d", r.w, r.h);
    std::snprintf(block, sizeof block, "%dx%d", r.t.bw, r.t.bh);
    if (!r.ok) {
        std::printf("%-11s %-10s %-5s   (failed, see stderr)\n", size, vname(r.v), pname(r.p));
        return;
    }
    std::printf("%-11s %-10s %-5s %-7s %2d %9.4f %7.2fx %7.1f %8.1f %5.1f%% %8.1f %6.2f\n", size, vname(r.v), pname(r.p), block,
                r.t.depth, r.t.ns, r.ratio, r.t.bytes, r.t.gbps, 100.0 * r.t.share, r.t.gflops, r.t.redundancy);
}

// ---- (b) end to end --------------------------------------------------------------------------
struct Schedule {
    const char* name;
    uint32_t levels, warps, iterations;
};

struct E2eRow {
    int w, h;
    const char* schedule;
    std::string what;
    double ms;
    bool ok;
};

using bench::DeviceFrames;

E2eRow e2e_row(int w, int h, const Schedule& sc, of_variant v, of_precision p, bool host_io, const std::vector<unsigned char>& f0,
               const std::vector<unsigned char>& f1, const DeviceFrames& dev, cudaStream_t stream, int frames, int reps) {
    E2eRow r;
    r.w = w;
    r.h = h;
    r.schedule = sc.name;
    r.what = std::string(vname(v)) + "-" + pname(p) + (host_io ? " host I/O" : "");
    of_config c;
    of_config_init(&c, OF_ALGO_TVL1);
    c.max_width = static_cast<uint32_t>(w);
    c.max_height = static_cast<uint32_t>(h);
    c.format = OF_PIXEL_U8;
    c.levels = sc.levels;
    c.scale_factor = 0.5f;
    c.warps = sc.warps;
    c.iterations = sc.iterations;
    c.epsilon = 0.0f;
    c.backend = OF_BACKEND_CUDA;
    c.variant = v;
    c.precision = p;
    c.cuda_stream = stream;
    c.robust = OF_ROBUST_NONE; // the kernels alone: --exposure times the options
    c.median_size = 0;
    bool pageable = false;
    r.ok = bench::time_frames(c, host_io, f0, f1, dev, stream, frames, reps, &r.ms, &pageable);
    if (pageable) r.what += " (pageable!)";
    return r;
}

struct CopyRow {
    int w, h;
    double up_ms, down_ms; // two U8 frames host->device; F32 flow (u, v) device->host
};

CopyRow copy_times(int w, int h, int reps) {
    CopyRow r{w, h, 0.0, 0.0};
    const size_t fb = static_cast<size_t>(w) * static_cast<size_t>(h), flow = fb * 8;
    void *hbuf = nullptr, *dbuf = nullptr;
    if (!cuda_ok(cudaMallocHost(&hbuf, flow), "cudaMallocHost") || !cuda_ok(cudaMalloc(&dbuf, flow), "cudaMalloc")) {
        cudaFreeHost(hbuf);
        return r;
    }
    std::memset(hbuf, 0, flow);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<double> up, down;
    for (int i = 0; i < reps + 1; ++i) {
        float ms = 0.0f;
        cudaEventRecord(e0);
        cudaMemcpyAsync(dbuf, hbuf, 2 * fb, cudaMemcpyHostToDevice);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
        if (i) up.push_back(ms);
        cudaEventRecord(e0);
        cudaMemcpyAsync(hbuf, dbuf, flow, cudaMemcpyDeviceToHost);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
        if (i) down.push_back(ms);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFreeHost(hbuf);
    cudaFree(dbuf);
    r.up_ms = median(up);
    r.down_ms = median(down);
    return r;
}

// --shapes N --shape ...: GLOBAL F32 and each named MULTI_ITER/FUSED/GLOBAL launch shape at N x N,
// for kernel work (one run, ratios to the same baseline). F16ROWS sets OFLOW_CUDA_F16_ROWS, BOUND
// OFLOW_CUDA_MULTI_BOUND (cuda/cuda_layout.hpp multi_bound).
int run_shapes(const Opts& o, double copy_gbps) {
    const int n = o.shapes_at, iters = 20, runs = 21;
    std::vector<float> i0, i1;
    texture(n, n, &i0, &i1);
    print_inner_header();
    InnerRow b = inner_row(n, n, i0, i1, OF_VARIANT_GLOBAL, OF_PRECISION_F32, 0, 0, 0, iters, runs, copy_gbps);
    b.ratio = b.ok ? 1.0 : 0.0;
    print_inner(b);
    for (const std::string& sh : o.shapes) {
        char v[16] = {0}, p[8] = {0};
        unsigned bh = 0, depth = 0, rows = 0, bound = 0;
        const int got = std::sscanf(sh.c_str(), "%15[a-z],%7[a-z0-9],%u,%u,%u,%u", v, p, &bh, &depth, &rows, &bound);
        if (got < 4) {
            std::fprintf(stderr, "oflow-bench: bad --shape '%s' (VARIANT,PREC,BH,DEPTH[,F16ROWS[,BOUND]])\n", sh.c_str());
            return 2;
        }
        if (got == 6) {
            char bs[16];
            std::snprintf(bs, sizeof bs, "%u", bound);
            setenv("OFLOW_CUDA_MULTI_BOUND", bs, 1);
        } else {
            unsetenv("OFLOW_CUDA_MULTI_BOUND");
        }
        const of_variant var = !std::strcmp(v, "global") ? OF_VARIANT_GLOBAL
                               : !std::strcmp(v, "fused") ? OF_VARIANT_FUSED : OF_VARIANT_MULTI_ITER;
        const of_precision pr = !std::strcmp(p, "f16") ? OF_PRECISION_F16 : OF_PRECISION_F32;
        if (got >= 5) {
            char r[8];
            std::snprintf(r, sizeof r, "%u", rows);
            setenv("OFLOW_CUDA_F16_ROWS", r, 1);
        } else {
            unsetenv("OFLOW_CUDA_F16_ROWS");
        }
        InnerRow r = inner_row(n, n, i0, i1, var, pr, var == OF_VARIANT_MULTI_ITER ? 32 : 0, bh, depth, iters, runs, copy_gbps);
        r.ratio = r.ok && b.ok ? b.t.ns / r.t.ns : 0.0;
        std::printf("%-12s ", sh.c_str());
        print_inner(r);
    }
    unsetenv("OFLOW_CUDA_F16_ROWS");
    unsetenv("OFLOW_CUDA_MULTI_BOUND");
    return 0;
}

// --budget MS,...: config.time_budget_ms at 1920x1080, CUDA, F32 and F16, U8 device frames of
// a core/synth.hpp pair (--budget-case, default rotation-zoom; --budget-levels, default 0 =
// automatic; --warps, the minimum warps, default 1): measured ms/frame (CUDA events, median of
// 7 batches of 5 frames) against the budget, the schedule the library chose (warps x
// iterations), EPE against the exact flow, and beside it the plain two-kernel GLOBAL F32 path
// run with the same schedule and no budget (the baseline; ratio = its time / the budget row's).
// Rotation-zoom moves 1080p corners by ~80 px: automatic levels reach it, and its EPE keeps
// falling with the work until the linearisation is converged (docs/time-budget.md).
namespace {

struct BudgetRun {
    bool ok;
    double ms;      // median per frame
    double epe;
    of_info info;
};

BudgetRun time_frames(const of_config& c, void* d0, void* d1, void* du, void* dv, const std::vector<float>& gu,
                      const std::vector<float>& gv, cudaStream_t stream) {
    BudgetRun r;
    std::memset(&r, 0, sizeof r);
    const int w = static_cast<int>(c.max_width), h = static_cast<int>(c.max_height);
    const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    of_context* ctx = nullptr;
    if (of_create(&c, &ctx) != OF_OK) return r;
    of_image a;
    std::memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.format = OF_PIXEL_U8;
    a.memory = OF_MEMORY_CUDA_DEVICE;
    a.width = static_cast<uint32_t>(w);
    a.height = static_cast<uint32_t>(h);
    a.stride = static_cast<size_t>(w);
    of_image bb = a;
    a.data = d0;
    bb.data = d1;
    of_flow out;
    std::memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    out.layout = OF_FLOW_PLANAR;
    out.memory = OF_MEMORY_CUDA_DEVICE;
    out.width = a.width;
    out.height = a.height;
    out.stride = static_cast<size_t>(w) * 4;
    out.u = static_cast<float*>(du);
    out.v = static_cast<float*>(dv);
    bool ok = true;
    for (int i = 0; i < 2 && ok; ++i) ok = of_process(ctx, &a, &bb, &out) == OF_OK;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<double> per;
    for (int rep = 0; rep < 7 && ok; ++rep) {
        cudaEventRecord(e0, stream);
        for (int i = 0; i < 5 && ok; ++i) ok = of_process(ctx, &a, &bb, &out) == OF_OK;
        cudaEventRecord(e1, stream);
        cudaEventSynchronize(e1);
        float ms = 0.0f;
        cudaEventElapsedTime(&ms, e0, e1);
        per.push_back(static_cast<double>(ms) / 5.0);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    r.info.struct_size = sizeof r.info;
    of_get_info(ctx, &r.info);
    of_destroy(ctx);
    if (!ok) return r;
    std::vector<float> hu(n), hv(n);
    cudaMemcpy(hu.data(), du, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(hv.data(), dv, n * 4, cudaMemcpyDeviceToHost);
    double epe = 0.0;
    for (std::size_t i = 0; i < n; ++i)
        epe += std::sqrt(static_cast<double>((hu[i] - gu[i]) * (hu[i] - gu[i]) + (hv[i] - gv[i]) * (hv[i] - gv[i])));
    r.epe = epe / static_cast<double>(n);
    r.ms = median(per);
    r.ok = true;
    return r;
}

} // namespace

// A synthetic 8-bit pair with ground truth in device memory (frames U8, flow planes F32) and a
// stream, for the --budget and --exposure rows; released on destruction.
struct DevicePair {
    void *d0 = nullptr, *d1 = nullptr, *du = nullptr, *dv = nullptr;
    std::vector<float> gu, gv;
    cudaStream_t stream = nullptr;
    bool make(oflow::synth::Case c, const oflow::synth::Exposure& e, int w, int h) {
        const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
        std::vector<float> i0(n), i1(n);
        gu.assign(n, 0.0f);
        gv.assign(n, 0.0f);
        oflow::synth::generate_with(c, oflow::synth::Texture::Default, e, w, h, 7u, i0.data(), i1.data(), gu.data(),
                                    gv.data(), w);
        std::vector<unsigned char> f0(n), f1(n);
        for (std::size_t i = 0; i < n; ++i) {
            f0[i] = static_cast<unsigned char>(std::lround(i0[i]));
            f1[i] = static_cast<unsigned char>(std::lround(i1[i]));
        }
        if (!cuda_ok(cudaMalloc(&d0, n), "cudaMalloc") || !cuda_ok(cudaMalloc(&d1, n), "cudaMalloc") ||
            !cuda_ok(cudaMalloc(&du, n * 4), "cudaMalloc") || !cuda_ok(cudaMalloc(&dv, n * 4), "cudaMalloc"))
            return false;
        cudaMemcpy(d0, f0.data(), n, cudaMemcpyHostToDevice);
        cudaMemcpy(d1, f1.data(), n, cudaMemcpyHostToDevice);
        return cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    }
    ~DevicePair() {
        if (stream) cudaStreamDestroy(stream);
        cudaFree(d0);
        cudaFree(d1);
        cudaFree(du);
        cudaFree(dv);
    }
};

int run_budgets(const Opts& o) {
    const int w = 1920, h = 1080;
    oflow::synth::Case sc = oflow::synth::Case::RotationZoom;
    if (!oflow::synth::case_from_name(o.budget_case.c_str(), &sc)) {
        std::fprintf(stderr, "oflow-bench: --budget-case %s: unknown case\n", o.budget_case.c_str());
        return 2;
    }
    DevicePair dp;
    if (!dp.make(sc, oflow::synth::Exposure(), w, h)) return 1;
    void *d0 = dp.d0, *d1 = dp.d1, *du = dp.du, *dv = dp.dv;
    const std::vector<float>&gu = dp.gu, &gv = dp.gv;
    cudaStream_t stream = dp.stream;
    std::printf("\ntime budget: 1920x1080 %s, levels %d (0 = auto) x0.5, warps >= %d, CUDA, U8 device frames (copies "
                "excluded); baseline: GLOBAL F32 with the same schedule\n",
                oflow::synth::case_name(sc), o.budget_levels, o.budget_warps);
    std::printf("%-6s %7s %9s %9s %10s %9s %11s %9s  %s\n", "prec", "budget", "ms/frame", "vs budget", "warps x it", "EPE",
                "global f32", "ratio", "info.reason");
    for (of_precision p : {OF_PRECISION_F32, OF_PRECISION_F16}) {
        for (double b : o.budgets) {
            of_config c;
            of_config_init(&c, OF_ALGO_TVL1);
            c.max_width = w;
            c.max_height = h;
            c.format = OF_PIXEL_U8;
            c.levels = static_cast<uint32_t>(o.budget_levels);
            c.scale_factor = 0.5f;
            c.warps = static_cast<uint32_t>(o.budget_warps);
            c.epsilon = 0.0f;
            c.backend = OF_BACKEND_CUDA;
            c.precision = p;
            c.time_budget_ms = static_cast<float>(b);
            c.cuda_stream = stream;
            const BudgetRun r = time_frames(c, d0, d1, du, dv, gu, gv, stream);
            if (!r.ok) {
                std::printf("%-6s %7.2f   failed: %s\n", pname(p), b, of_last_error(nullptr));
                continue;
            }
            of_config g = c; // the baseline: the budget's schedule on the plain two-kernel path
            g.time_budget_ms = 0.0f;
            g.precision = OF_PRECISION_F32;
            g.variant = OF_VARIANT_GLOBAL;
            g.warps = r.info.warps;
            g.iterations = r.info.iterations;
            const BudgetRun base = time_frames(g, d0, d1, du, dv, gu, gv, stream);
            char sched[24];
            std::snprintf(sched, sizeof sched, "%u x %u", r.info.warps, r.info.iterations);
            std::printf("%-6s %7.2f %9.3f %8.0f%% %10s %9.4f %11.3f %8.2fx  %.70s\n", pname(p), b, r.ms,
                        100.0 * (r.ms / b - 1.0), sched, r.epe, base.ok ? base.ms : 0.0, base.ok ? base.ms / r.ms : 0.0,
                        r.info.reason);
            std::printf("SUMMARY budget %s %s %.2f ms: %.3f ms/frame (%+.0f%%), %u warps x %u iterations (%llu run), "
                        "EPE %.4f; GLOBAL F32 same schedule %.3f ms (%.2fx)\n",
                        oflow::synth::case_name(sc), pname(p), b, r.ms, 100.0 * (r.ms / b - 1.0), r.info.warps,
                        r.info.iterations, static_cast<unsigned long long>(r.info.last_iterations), r.epe,
                        base.ok ? base.ms : 0.0, base.ok ? base.ms / r.ms : 0.0);
        }
    }
    return 0;
}

// --exposure: 1920x1080 smooth-field pair, frame 1 = 1.1 I + 10 + N(0, 2), U8 device frames.
// For two schedules and F32 / F16 (default variant), the option sets {none, local-norm, median 5,
// local-norm + median 5, range-match + median 5, level-norm + median 5, pick + median 5 (the
// defaults)}; every row beside GLOBAL F32 with neither option (the plain
// baseline) and beside the same variant with neither option.
int run_exposure() {
    const int w = 1920, h = 1080;
    oflow::synth::Exposure ex;
    ex.gain = 1.1;
    ex.offset = 10.0;
    ex.noise_sigma = 2.0;
    DevicePair dp;
    if (!dp.make(oflow::synth::Case::SmoothField, ex, w, h)) return 1;
    void *d0 = dp.d0, *d1 = dp.d1, *du = dp.du, *dv = dp.dv;
    const std::vector<float>&gu = dp.gu, &gv = dp.gv;
    cudaStream_t stream = dp.stream;
    std::printf("\nexposure options: 1920x1080 smooth-field, frame 1 = 1.1 I + 10 + N(0, 2), CUDA, U8 device frames "
                "(copies excluded), epsilon 0\n");
    std::printf("%-22s %-5s %-18s %9s %9s %9s %9s\n", "schedule", "prec", "options", "ms/frame", "x same", "x global",
                "EPE");
    const Schedule scheds[] = {{"3 lv x0.5, 1 warp, 10 it", 3, 1, 10}, {"auto lv, 5 warps, 50 it", 0, 5, 50}};
    struct Opt {
        const char* name;
        of_robust r;
        uint32_t median;
    };
    const Opt opts[] = {{"none", OF_ROBUST_NONE, 0},
                        {"local-norm", OF_ROBUST_LOCAL_NORM, 0},
                        {"median 5", OF_ROBUST_NONE, 5},
                        {"local-norm+median", OF_ROBUST_LOCAL_NORM, 5},
                        {"range-match+median", OF_ROBUST_RANGE_MATCH, 5},
                        {"level-norm+median", OF_ROBUST_LEVEL_NORM, 5},
                        {"shade-norm+median", OF_ROBUST_SHADE_NORM, 5},
                        {"pick+median (dflt)", OF_ROBUST_PICK, 5}};
    for (const Schedule& sc : scheds) {
        of_config c;
        of_config_init(&c, OF_ALGO_TVL1);
        c.max_width = w;
        c.max_height = h;
        c.format = OF_PIXEL_U8;
        c.levels = sc.levels;
        c.warps = sc.warps;
        c.iterations = sc.iterations;
        c.epsilon = 0.0f;
        c.backend = OF_BACKEND_CUDA;
        c.cuda_stream = stream;
        of_config g = c;
        g.precision = OF_PRECISION_F32;
        g.variant = OF_VARIANT_GLOBAL;
        g.robust = OF_ROBUST_NONE;
        g.median_size = 0;
        const BudgetRun base = time_frames(g, d0, d1, du, dv, gu, gv, stream);
        std::printf("%-22s %-5s %-18s %9.3f %9s %9s %9.4f\n", sc.name, "f32", "global, none", base.ms, "", "1.00x",
                    base.epe);
        for (of_precision p : {OF_PRECISION_F32, OF_PRECISION_F16}) {
            double plain = 0.0;
            for (const Opt& op : opts) {
                of_config v = c;
                v.precision = p;
                v.robust = op.r;
                v.median_size = op.median;
                const BudgetRun r = time_frames(v, d0, d1, du, dv, gu, gv, stream);
                if (!r.ok) {
                    std::printf("%-22s %-5s %-18s failed: %s\n", sc.name, pname(p), op.name, of_last_error(nullptr));
                    continue;
                }
                if (op.r == OF_ROBUST_NONE && op.median == 0) plain = r.ms;
                std::printf("%-22s %-5s %-18s %9.3f %8.2fx %8.2fx %9.4f\n", sc.name, pname(p), op.name, r.ms,
                            plain > 0 ? r.ms / plain : 0.0, base.ok && r.ms > 0 ? base.ms / r.ms : 0.0, r.epe);
                std::printf("SUMMARY exposure %s %s %s: %.3f ms/frame, %.2fx the same variant without options, "
                            "GLOBAL F32 none %.3f ms (%.2fx), EPE %.4f\n",
                            sc.name, pname(p), op.name, r.ms, plain > 0 ? r.ms / plain : 0.0, base.ms,
                            base.ok && r.ms > 0 ? base.ms / r.ms : 0.0, r.epe);
            }
        }
    }
    return 0;
}

// --confidence: the validity output of TV-L1 (the residual confidence, core/confidence.hpp,
// cuda/confidence_cuda.cu) at 640x480 and 1920x1080, the library's defaults (robust pick: the
// confidence reuses its judge images) and robust none (both frames converted and normalised
// again after the solve), U8 device frames -> device flow (copies excluded). One context per row
// times batches of 5 frames without validity (the baseline) and with an OF_VALID_CONFIDENCE_F32
// device plane, alternated (7 batches each, CUDA events, median per frame); the difference is the
// confidence's cost, also as a share of the baseline frame (target <= 5 %). Then the kernel alone
// (10 launches per timing, median of 11) with its compulsory bytes per pixel: n0 and u read
// (4 + 8), n1's bilinear reads (4: neighbours hit the cache), the confidence written (4) = 20 B,
// and its GB/s against the copy bandwidth.
int run_confidence(const Opts& o, double copy_gbps) {
    struct Size {
        int w, h;
    };
    const std::vector<Size> sizes = o.smoke ? std::vector<Size>{{64, 48}, {96, 64}} : std::vector<Size>{{640, 480}, {1920, 1080}};
    const int reps = o.smoke ? 2 : (o.quick ? 3 : 7), batch = 5, kruns = o.smoke ? 2 : 11, klaunches = 10;
    const double kBytesPerPixel = 20.0;
    std::printf("\nconfidence (validity output): TV-L1 defaults, rotation-zoom, CUDA, U8 device frames -> device flow "
                "(copies excluded); each row: the same frame without validity (baseline) and with OF_VALID_CONFIDENCE_F32\n");
    std::printf("%-10s %-6s %-5s %12s %12s %9s %7s %11s %8s %6s  %s\n", "size", "robust", "prec", "no valid ms", "conf F32 ms",
                "+ms", "share", "kernel ms", "GB/s", "%copy", "target");
    for (const Size& z : sizes) {
        DevicePair dp;
        if (!dp.make(oflow::synth::Case::RotationZoom, oflow::synth::Exposure(), z.w, z.h)) return 1;
        const std::size_t n = static_cast<std::size_t>(z.w) * static_cast<std::size_t>(z.h);
        void* dvalid = nullptr;
        if (!cuda_ok(cudaMalloc(&dvalid, n * 4), "cudaMalloc")) return 1;
        char size[24];
        std::snprintf(size, sizeof size, "%dx%d", z.w, z.h);
        for (of_robust rb : {OF_ROBUST_PICK, OF_ROBUST_NONE})
            for (of_precision p : {OF_PRECISION_F32, OF_PRECISION_F16}) {
                of_config c;
                of_config_init(&c, OF_ALGO_TVL1);
                c.max_width = static_cast<uint32_t>(z.w);
                c.max_height = static_cast<uint32_t>(z.h);
                c.format = OF_PIXEL_U8;
                c.backend = OF_BACKEND_CUDA;
                c.cuda_stream = dp.stream;
                c.robust = rb;
                c.precision = p;
                const char* rn = rb == OF_ROBUST_PICK ? "pick" : "none";
                of_context* ctx = nullptr;
                if (of_create(&c, &ctx) != OF_OK) {
                    std::printf("%-10s %-6s %-5s failed: %s\n", size, rn, pname(p), of_last_error(nullptr));
                    continue;
                }
                of_image a;
                std::memset(&a, 0, sizeof a);
                a.struct_size = sizeof a;
                a.format = OF_PIXEL_U8;
                a.memory = OF_MEMORY_CUDA_DEVICE;
                a.width = static_cast<uint32_t>(z.w);
                a.height = static_cast<uint32_t>(z.h);
                a.stride = static_cast<size_t>(z.w);
                of_image b = a;
                a.data = dp.d0;
                b.data = dp.d1;
                of_flow plain;
                std::memset(&plain, 0, sizeof plain);
                plain.struct_size = sizeof plain;
                plain.layout = OF_FLOW_PLANAR;
                plain.memory = OF_MEMORY_CUDA_DEVICE;
                plain.width = a.width;
                plain.height = a.height;
                plain.stride = static_cast<size_t>(z.w) * 4;
                plain.u = static_cast<float*>(dp.du);
                plain.v = static_cast<float*>(dp.dv);
                of_flow conf = plain;
                conf.valid_format = OF_VALID_CONFIDENCE_F32;
                conf.valid_stride = static_cast<size_t>(z.w) * 4;
                conf.valid = dvalid;
                bool ok = true;
                for (int i = 0; i < 2 && ok; ++i)
                    ok = of_process(ctx, &a, &b, &plain) == OF_OK && of_process(ctx, &a, &b, &conf) == OF_OK;
                cudaEvent_t e[3];
                for (cudaEvent_t& ev : e) cudaEventCreate(&ev);
                std::vector<double> base, with;
                for (int rep = 0; rep < reps && ok; ++rep) {
                    cudaEventRecord(e[0], dp.stream);
                    for (int i = 0; i < batch && ok; ++i) ok = of_process(ctx, &a, &b, &plain) == OF_OK;
                    cudaEventRecord(e[1], dp.stream);
                    for (int i = 0; i < batch && ok; ++i) ok = of_process(ctx, &a, &b, &conf) == OF_OK;
                    cudaEventRecord(e[2], dp.stream);
                    cudaEventSynchronize(e[2]);
                    float m0 = 0.0f, m1 = 0.0f;
                    cudaEventElapsedTime(&m0, e[0], e[1]);
                    cudaEventElapsedTime(&m1, e[1], e[2]);
                    base.push_back(static_cast<double>(m0) / batch);
                    with.push_back(static_cast<double>(m1) / batch);
                }
                for (cudaEvent_t& ev : e) cudaEventDestroy(ev);
                // The kernel alone, on the planes the last frame (with validity) left.
                char buf[oflow::kErrorCapacity] = {0};
                const oflow::ErrorSink err{buf};
                std::vector<float> kms(static_cast<size_t>(kruns), 0.0f);
                const bool kok = ok && oflow::cuda::hooks::bench_confidence(ctx->cuda, z.w, z.h, klaunches, kruns, kms.data(),
                                                                            err) == OF_OK;
                of_destroy(ctx);
                if (!ok) {
                    std::printf("%-10s %-6s %-5s failed: %s\n", size, rn, pname(p), of_last_error(nullptr));
                    continue;
                }
                const double b_ms = median(base), c_ms = median(with), extra = c_ms - b_ms;
                const double share = b_ms > 0.0 ? extra / b_ms : 0.0;
                std::vector<double> kd(kms.begin(), kms.end());
                const double k_ms = kok ? median(kd) / klaunches : 0.0;
                const double gbps = k_ms > 0.0 ? kBytesPerPixel * static_cast<double>(n) / (k_ms * 1.0e6) : 0.0;
                if (!kok) std::fprintf(stderr, "oflow-bench: confidence kernel %s: %s\n", size, buf);
                std::printf("%-10s %-6s %-5s %12.3f %12.3f %9.3f %6.1f%% %11.4f %8.1f %5.0f%%  %s\n", size, rn, pname(p), b_ms,
                            c_ms, extra, 100.0 * share, k_ms, gbps, copy_gbps > 0.0 ? 100.0 * gbps / copy_gbps : 0.0,
                            share <= 0.05 ? "<= 5 %" : "ABOVE 5 %");
                std::printf("SUMMARY confidence %s %s %s: %.3f ms/frame with OF_VALID_CONFIDENCE_F32 vs %.3f without "
                            "(+%.3f ms, %.1f%% of the frame), kernel alone %.4f ms (%.0f B/px, %.1f GB/s)\n",
                            size, rn, pname(p), c_ms, b_ms, extra, 100.0 * share, k_ms, kBytesPerPixel, gbps);
            }
        cudaFree(dvalid);
    }
    return 0;
}

int run(const Opts& o) {
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        std::printf("oflow-bench: no CUDA device\n");
        return 77;
    }
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    std::printf("oflow-bench: %s, sm_%d%d, %d SMs, %.1f GiB, driver %d, runtime %d%s\n", prop.name, prop.major, prop.minor,
                prop.multiProcessorCount, static_cast<double>(prop.totalGlobalMem) / 1073741824.0, driver, runtime,
                o.quick ? " (--quick)" : "");

    // (c) copy bandwidth first: the reference the inner-loop rows are compared with.
    const size_t copy_bytes = o.smoke ? (1u << 20) : (o.quick ? 256u : 1024u) << 20;
    const double copy_gbps = copy_bandwidth(copy_bytes, o.quick ? 5 : 20);
    std::printf("\n(c) device-to-device copy bandwidth: %.1f GB/s (cudaMemcpy of %zu MiB, read + write counted)\n", copy_gbps,
                copy_bytes >> 20);
    if (o.shapes_at > 0) return run_shapes(o, copy_gbps);
    if (!o.budgets.empty()) return run_budgets(o);
    if (o.exposure) return run_exposure();
    if (o.confidence) return run_confidence(o, copy_gbps);

    // (a) inner loop
    const int iters = 20, runs = o.smoke ? 2 : (o.quick ? 5 : 21);
    std::vector<int> sizes = o.smoke   ? std::vector<int>{48, 64}
                             : o.quick ? std::vector<int>{512, 1024, 2048}
                                       : std::vector<int>{512, 1024, 2048, 4096, 8192};
    const of_variant variants[] = {OF_VARIANT_GLOBAL, OF_VARIANT_FUSED, OF_VARIANT_MULTI_ITER};
    const of_precision precs[] = {OF_PRECISION_F32, OF_PRECISION_F16};
    std::printf("\n(a) inner loop: one level, %d iterations per run, epsilon 0, median of %d runs after warm-up (CUDA events)\n"
                "    speedup = GLOBAL F32 ns / row ns at the same size; B/px/it, FLOPs: model of cuda/cuda_bench.cu;\n"
                "    GB/s = modelled bytes / time; %%copy = share of (c); redund = executed / useful pixel updates\n",
                iters, runs);
    print_inner_header();
    std::vector<InnerRow> inner;
    std::vector<float> i0, i1;
    for (int n : sizes) {
        texture(n, n, &i0, &i1);
        double base = 0.0;
        for (of_variant v : variants)
            for (of_precision p : precs) {
                InnerRow r = inner_row(n, n, i0, i1, v, p, 0, 0, 0, iters, runs, copy_gbps);
                if (v == OF_VARIANT_GLOBAL && p == OF_PRECISION_F32) base = r.ok ? r.t.ns : 0.0;
                r.ratio = r.ok && base > 0.0 ? base / r.t.ns : 0.0;
                print_inner(r);
                inner.push_back(r);
            }
        if (o.sweep && (n == 2048 || n == 4096 || (o.smoke && n == 64))) {
            struct Shape {
                of_variant v;
                uint32_t bw, bh, depth;
            };
            // MULTI_ITER blocks are 32 lanes wide x bh warps, 8 rows per thread.
            const Shape shapes[] = {{OF_VARIANT_GLOBAL, 64, 8, 0},      {OF_VARIANT_GLOBAL, 128, 4, 0},
                                    {OF_VARIANT_FUSED, 64, 8, 0},       {OF_VARIANT_FUSED, 32, 16, 0},
                                    {OF_VARIANT_MULTI_ITER, 32, 4, 2},  {OF_VARIANT_MULTI_ITER, 32, 4, 3},
                                    {OF_VARIANT_MULTI_ITER, 32, 8, 2},  {OF_VARIANT_MULTI_ITER, 32, 8, 3},
                                    {OF_VARIANT_MULTI_ITER, 32, 8, 5},  {OF_VARIANT_MULTI_ITER, 32, 8, 6},
                                    {OF_VARIANT_MULTI_ITER, 32, 2, 3},  {OF_VARIANT_MULTI_ITER, 32, 2, 2}};
            for (const Shape& s : shapes)
                for (of_precision p : precs) {
                    InnerRow r = inner_row(n, n, i0, i1, s.v, p, s.bw, s.bh, s.depth, iters, runs, copy_gbps);
                    r.sweep = true;
                    r.ratio = r.ok && base > 0.0 ? base / r.t.ns : 0.0;
                    print_inner(r);
                    inner.push_back(r);
                }
        }
    }
    // The fastest default-shape F32 variant at the largest size measured picks the e2e rows.
    of_variant best = OF_VARIANT_MULTI_ITER;
    double best_ns = 0.0;
    for (const InnerRow& r : inner)
        if (r.ok && !r.sweep && r.w == sizes.back() && r.p == OF_PRECISION_F32 && (best_ns == 0.0 || r.t.ns < best_ns)) {
            best_ns = r.t.ns;
            best = r.v;
        }

    // (b) end to end
    const Schedule schedules[] = {{"3 levels x0.5, 1 warp, 10 it", 3, 1, 10}, {"auto levels, 3 warps, 50 it", 0, 3, 50}};
    struct Sz {
        int w, h;
    };
    std::vector<Sz> e2e_sizes = o.smoke   ? std::vector<Sz>{{64, 48}, {97, 61}}
                                : o.quick ? std::vector<Sz>{{640, 480}, {1920, 1080}}
                                          : std::vector<Sz>{{640, 480}, {1280, 720}, {1920, 1080}, {3840, 2160}};
    const int frames = o.smoke ? 1 : 5, reps = o.smoke ? 1 : (o.quick ? 3 : 7);
    std::printf("\n(b) end to end (of_process, U8 device frames -> device flow, copies excluded; epsilon 0), ms/frame,\n"
                "    median of %d batches of %d back-to-back frames; best variant = %s (fastest F32 default at %d^2);\n"
                "    'host I/O': host frames and host flow through the pinned staging (copies included, wall time)\n",
                reps, frames, vname(best), sizes.back());
    std::printf("%-11s %-30s %-28s %10s\n", "size", "schedule", "variant", "ms/frame");
    std::vector<E2eRow> e2e;
    std::vector<CopyRow> copies;
    cudaStream_t stream = nullptr;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    for (const Sz& z : e2e_sizes) {
        std::vector<float> a, b;
        texture(z.w, z.h, &a, &b);
        std::vector<unsigned char> f0(a.size()), f1(b.size());
        for (size_t i = 0; i < a.size(); ++i) {
            f0[i] = static_cast<unsigned char>(std::lround(a[i]));
            f1[i] = static_cast<unsigned char>(std::lround(b[i]));
        }
        DeviceFrames dev;
        const size_t n = f0.size();
        if (!cuda_ok(cudaMalloc(&dev.f[0], n), "cudaMalloc") || !cuda_ok(cudaMalloc(&dev.f[1], n), "cudaMalloc") ||
            !cuda_ok(cudaMalloc(reinterpret_cast<void**>(&dev.u), n * 4), "cudaMalloc") ||
            !cuda_ok(cudaMalloc(reinterpret_cast<void**>(&dev.v), n * 4), "cudaMalloc"))
            continue;
        cudaMemcpy(dev.f[0], f0.data(), n, cudaMemcpyHostToDevice);
        cudaMemcpy(dev.f[1], f1.data(), n, cudaMemcpyHostToDevice);
        for (const Schedule& sc : schedules) {
            struct Pick {
                of_variant v;
                of_precision p;
                bool host;
            };
            const Pick picks[] = {{best, OF_PRECISION_F32, false},
                                  {best, OF_PRECISION_F16, false},
                                  {OF_VARIANT_GLOBAL, OF_PRECISION_F32, false},
                                  {best, OF_PRECISION_F32, true}};
            for (const Pick& pk : picks) {
                if (&pk == &picks[2] && best == OF_VARIANT_GLOBAL) continue; // same as the first row
                E2eRow r = e2e_row(z.w, z.h, sc, pk.v, pk.p, pk.host, f0, f1, dev, stream, frames, reps);
                char size[24];
                std::snprintf(size, sizeof size, "%dx%d", z.w, z.h);
                if (r.ok)
                    std::printf("%-11s %-30s %-28s %10.3f\n", size, sc.name, r.what.c_str(), r.ms);
                else
                    std::printf("%-11s %-30s %-28s %10s\n", size, sc.name, r.what.c_str(), "failed");
                e2e.push_back(r);
            }
        }
        copies.push_back(copy_times(z.w, z.h, o.smoke ? 1 : (o.quick ? 5 : 20)));
    }
    cudaStreamDestroy(stream);
    std::printf("\n    host<->device copies alone (pinned host memory, CUDA events, median):\n");
    std::printf("%-11s %22s %24s\n", "size", "2 U8 frames up (ms)", "F32 flow u,v down (ms)");
    for (const CopyRow& c : copies) {
        char size[24];
        std::snprintf(size, sizeof size, "%dx%d", c.w, c.h);
        std::printf("%-11s %22.3f %24.3f\n", size, c.up_ms, c.down_ms);
    }

    // Summary lines (scripts/gpu_check.sh greps "^SUMMARY").
    std::printf("\n");
    std::printf("SUMMARY copy_bandwidth_gbps %.1f\n", copy_gbps);
    for (const InnerRow& r : inner)
        if (r.ok && !r.sweep && (r.w == 2048 || r.w == 4096) && r.ratio > 0.0)
            std::printf("SUMMARY inner %d^2 %-10s %-5s %dx%d P%d %.4f ns/it/px %.2fx vs global-f32 %.0f%% of copy BW\n", r.w,
                        vname(r.v), pname(r.p), r.t.bw, r.t.bh, r.t.depth, r.t.ns, r.ratio, 100.0 * r.t.share);
    for (const E2eRow& r : e2e)
        if (r.ok && r.w == 1920) std::printf("SUMMARY e2e 1920x1080 [%s] %-28s %.3f ms/frame\n", r.schedule, r.what.c_str(), r.ms);

    if (o.json) {
        FILE* f = std::fopen(o.json, "w");
        if (!f) {
            std::fprintf(stderr, "oflow-bench: cannot write %s\n", o.json);
            return 1;
        }
        std::fprintf(f, "{\n  \"device\": \"%s\", \"sm\": %d, \"copy_gbps\": %.2f,\n  \"inner\": [\n", prop.name,
                     prop.major * 10 + prop.minor, copy_gbps);
        for (size_t i = 0; i < inner.size(); ++i) {
            const InnerRow& r = inner[i];
            std::fprintf(f,
                         "    {\"size\": %d, \"variant\": \"%s\", \"precision\": \"%s\", \"block\": [%d, %d], \"depth\": %d, "
                         "\"ok\": %s, \"ns_per_iter_px\": %.6f, \"speedup_vs_global_f32\": %.4f, \"bytes_per_px_iter\": %.2f, "
                         "\"flops_per_px_iter\": %.1f, \"gbps\": %.2f, \"copy_share\": %.4f, \"gflops\": %.2f, "
                         "\"redundancy\": %.3f}%s\n",
                         r.w, vname(r.v), pname(r.p), r.t.bw, r.t.bh, r.t.depth, r.ok ? "true" : "false", r.t.ns, r.ratio, r.t.bytes, r.t.flops,
                         r.t.gbps, r.t.share, r.t.gflops, r.t.redundancy, i + 1 < inner.size() ? "," : "");
        }
        std::fprintf(f, "  ],\n  \"e2e\": [\n");
        for (size_t i = 0; i < e2e.size(); ++i) {
            const E2eRow& r = e2e[i];
            std::fprintf(f, "    {\"width\": %d, \"height\": %d, \"schedule\": \"%s\", \"variant\": \"%s\", \"ok\": %s, \"ms\": %.4f}%s\n",
                         r.w, r.h, r.schedule, r.what.c_str(), r.ok ? "true" : "false", r.ms, i + 1 < e2e.size() ? "," : "");
        }
        std::fprintf(f, "  ],\n  \"copies\": [\n");
        for (size_t i = 0; i < copies.size(); ++i)
            std::fprintf(f, "    {\"width\": %d, \"height\": %d, \"frames_up_ms\": %.4f, \"flow_down_ms\": %.4f}%s\n", copies[i].w,
                         copies[i].h, copies[i].up_ms, copies[i].down_ms, i + 1 < copies.size() ? "," : "");
        std::fprintf(f, "  ]\n}\n");
        std::fclose(f);
    }
    return 0;
}

#endif // OF_BENCH_CUDA

} // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // rows appear as they are measured (logs, timeouts)
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--cpu")) return run_cpu_bench(argc - 1, argv + 1);
        if (!std::strcmp(argv[i], "--hs")) return run_hs_bench(argc - 1, argv + 1);
        if (!std::strcmp(argv[i], "--lk")) return run_lk_bench(argc - 1, argv + 1);
        if (!std::strcmp(argv[i], "--dis")) return run_dis_bench(argc - 1, argv + 1);
        if (!std::strcmp(argv[i], "--stream")) return run_stream_bench(argc - 1, argv + 1);
    }
    Opts o;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) {
            o.quick = true;
        } else if (!std::strcmp(argv[i], "--smoke")) {
            o.smoke = true;
        } else if (!std::strcmp(argv[i], "--exposure")) {
            o.exposure = true;
        } else if (!std::strcmp(argv[i], "--confidence")) {
            o.confidence = true;
        } else if (!std::strcmp(argv[i], "--sweep")) {
            o.sweep = true;
        } else if (!std::strcmp(argv[i], "--json") && i + 1 < argc) {
            o.json = argv[++i];
        } else if (!std::strcmp(argv[i], "--shapes") && i + 1 < argc) {
            o.shapes_at = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--shape") && i + 1 < argc) {
            o.shapes.push_back(argv[++i]);
        } else if (!std::strcmp(argv[i], "--warps") && i + 1 < argc) {
            o.budget_warps = std::max(1, std::atoi(argv[++i]));
        } else if (!std::strcmp(argv[i], "--budget-levels") && i + 1 < argc) {
            o.budget_levels = std::max(0, std::atoi(argv[++i]));
        } else if (!std::strcmp(argv[i], "--budget-case") && i + 1 < argc) {
            o.budget_case = argv[++i];
        } else if (!std::strcmp(argv[i], "--budget") && i + 1 < argc) {
            for (char* t = std::strtok(argv[++i], ","); t; t = std::strtok(nullptr, ",")) o.budgets.push_back(std::atof(t));
        } else {
            std::fprintf(stderr, "usage: oflow-bench --cpu [--size WxH] [--threads N] [--reference] [--json FILE] [--smoke]\n       oflow-bench --hs [--quick] [--smoke] [--json FILE]\n       oflow-bench --lk [--quick] [--smoke] [--json FILE]\n       oflow-bench --dis [--quick] [--smoke] [--json FILE]\n       oflow-bench --stream [--quick] [--smoke] [--json FILE]\n       oflow-bench [--quick] [--sweep] [--json FILE] [--smoke] [--shapes N --shape V,P,BH,DEPTH[,ROWS]...] [--budget MS,... [--warps N] [--budget-case C] [--budget-levels N]] [--exposure] [--confidence]\n");
            return 2;
        }
    }
#if OF_BENCH_CUDA
    return run(o);
#else
    (void)o;
    (void)median;
    (void)texture;
    (void)vname;
    (void)pname;
    std::printf("oflow-bench: this build has no CUDA backend (OF_WITH_CUDA=OFF or no nvcc)\n");
    return 0;
#endif
}
