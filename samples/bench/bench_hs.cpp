// oflow-bench --hs: the Horn-Schunck / CLG CUDA path (cuda/hs_cuda.cuh), in one run.
//
//  (c) copy bandwidth: a 256 MiB device-to-device cudaMemcpy, read + write counted.
//  (a) inner loop at 2048^2 and 4096^2 (--smoke: 256^2): ns per iteration per pixel of every
//      solver x variant x precision (one level, 20 iterations per timed run, epsilon 0, median
//      of 15 runs after 2 warm-up runs, CUDA events), each as a ratio to GLOBAL F32 Jacobi of the
//      same algorithm and size timed in the same run, with the modelled bytes and FLOPs per pixel
//      per iteration (cuda/cuda_bench.cu hs_model), achieved GB/s, its share of the copy
//      bandwidth, GFLOP/s and the halo redundancy. HS and CLG iterate the same kernels (their
//      coefficient planes differ, not the iteration), so CLG's rows check that.
//  (d) fused depth sweep at 4096^2: MULTI_ITER F32 and F16 at depth 2..8 (and rows 4 / 6 / 8).
//  (s) SOR per iteration: one red + black sweep against one GLOBAL F32 Jacobi iteration.
//  (b) whole frames through of_process, U8 device frames and device flow (copies excluded), the
//      library's preprocessing defaults (local-norm, median 5), epsilon 0 (fixed work):
//      CLG at 640x512, 4 levels, seed 000's schedule 60/120/180/240 iterations (iterations 60,
//      iteration_growth 1), 1 warp; HS and CLG at 1920x1080, 3 levels, 1 warp, 10 iterations;
//      each beside GLOBAL F32 Jacobi of the same schedule.
// Usage: oflow-bench --hs [--quick] [--smoke] [--json FILE]
#include "oflow.h"
#include "samples/bench/bench_hs.hpp"
#include "samples/bench/bench_util.hpp"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#if OF_BENCH_CUDA
#include "core/context.hpp"
#include "cuda/cuda_bench.hpp"

#include <cuda_runtime_api.h>
#endif

#if !OF_BENCH_CUDA

int run_hs_bench(int, char**) {
    std::printf("oflow-bench --hs: this build has no CUDA backend\n");
    return 0;
}

#else

namespace {

struct Row {
    std::string section, algo, solver, variant, prec;
    int w = 0, h = 0;
    bench::Inner t; // section "inner" and "depth"
    double ms = 0;  // section "frame"
    double ratio = 0;
    bool ok = false;
};

const char* vname(of_variant v) {
    return v == OF_VARIANT_GLOBAL ? "global" : v == OF_VARIANT_FUSED ? "fused" : "multi-iter";
}
const char* pname(of_precision p) { return p == OF_PRECISION_F16 ? "f16x2" : "f32"; }
const char* aname(of_algorithm a) { return a == OF_ALGO_CLG ? "clg" : "hs"; }
const char* sname(of_solver s) { return s == OF_SOLVER_RED_BLACK_SOR ? "sor" : "jacobi"; }

struct Kind {
    of_algorithm a;
    of_solver s;
    of_variant v;
    of_precision p;
    uint32_t bh, depth;
};

of_config hs_config(const Kind& k, int w, int h) {
    of_config c;
    of_config_init(&c, k.a);
    c.max_width = static_cast<uint32_t>(w);
    c.max_height = static_cast<uint32_t>(h);
    c.hs.solver = k.s;
    c.backend = OF_BACKEND_CUDA;
    c.variant = k.v;
    c.precision = k.p;
    c.block_height = k.bh;
    c.fused_depth = k.depth;
    c.epsilon = 0.0f;
    return c;
}

// A row for kind k at w x h in `section`, not measured yet.
Row row_of(const char* section, const Kind& k, int w, int h) {
    Row r;
    r.section = section;
    r.algo = aname(k.a);
    r.solver = sname(k.s);
    r.variant = vname(k.v);
    r.prec = pname(k.p);
    r.w = w;
    r.h = h;
    return r;
}

Row inner(const Kind& k, int w, int h, const std::vector<float>& i0, const std::vector<float>& i1, int iters, int runs,
          double copy_gbps) {
    Row r = row_of("inner", k, w, h);
    of_config c = hs_config(k, w, h);
    c.format = OF_PIXEL_F32;
    c.levels = 1;
    c.warps = 1;
    c.iterations = static_cast<uint32_t>(iters);
    c.robust = OF_ROBUST_NONE;
    c.median_size = 0;
    char who[96];
    std::snprintf(who, sizeof who, "--hs %s %s %s %s", r.algo.c_str(), r.solver.c_str(), r.variant.c_str(), r.prec.c_str());
    r.t = bench::time_inner(c, i0, i1, w, h, iters, runs, copy_gbps, who);
    r.ok = r.t.ok;
    return r;
}

void print_inner_header() {
    std::printf("%-10s %-4s %-6s %-10s %-6s %-6s %2s %9s %8s %7s %8s %6s %8s %6s\n", "size", "algo", "solver", "variant",
                "prec", "block", "P", "ns/it/px", "vs base", "B/px/it", "GB/s", "%copy", "GFLOP/s", "redund");
}

void print_inner(const Row& r) {
    char size[24], block[16];
    std::snprintf(size, sizeof size, "%dx%d", r.w, r.h);
    std::snprintf(block, sizeof block, "%dx%d", r.t.bw, r.t.bh);
    if (!r.ok) {
        std::printf("%-10s %-4s %-6s %-10s %-6s (failed, see stderr)\n", size, r.algo.c_str(), r.solver.c_str(),
                    r.variant.c_str(), r.prec.c_str());
        return;
    }
    std::printf("%-10s %-4s %-6s %-10s %-6s %-6s %2d %9.5f %7.2fx %7.1f %8.1f %5.1f%% %8.1f %6.2f\n", size, r.algo.c_str(),
                r.solver.c_str(), r.variant.c_str(), r.prec.c_str(), block, r.t.depth, r.t.ns, r.ratio, r.t.bytes, r.t.gbps,
                100.0 * r.t.share, r.t.gflops, r.t.redundancy);
}

Row frame(const Kind& k, int w, int h, uint32_t levels, uint32_t iterations, float growth, const bench::U8Frames& f,
          int frames, int reps) {
    Row r = row_of("frame", k, w, h);
    of_config c = hs_config(k, w, h);
    c.levels = levels;
    c.warps = 1;
    c.iterations = iterations;
    c.iteration_growth = growth;
    r.ok = bench::time_device_frames(c, f, frames, reps, &r.ms);
    return r;
}

void json_row(FILE* f, const Row& r) {
    std::fprintf(f,
                 "{\"section\": \"%s\", \"algo\": \"%s\", \"solver\": \"%s\", \"variant\": \"%s\", \"precision\": \"%s\", "
                 "\"w\": %d, \"h\": %d, \"block\": [%d, %d], \"depth\": %d, \"ok\": %s, \"ns_per_it_px\": %.6f, \"ratio\": "
                 "%.4f, \"bytes\": %.2f, \"flops\": %.1f, \"gbps\": %.1f, \"redundancy\": %.3f, \"ms\": %.4f}",
                 r.section.c_str(), r.algo.c_str(), r.solver.c_str(), r.variant.c_str(), r.prec.c_str(), r.w, r.h, r.t.bw,
                 r.t.bh, r.t.depth, r.ok ? "true" : "false", r.t.ns, r.ratio, r.t.bytes, r.t.flops, r.t.gbps, r.t.redundancy,
                 r.ms);
}

} // namespace

int run_hs_bench(int argc, char** argv) {
    bench::PartOptions o;
    if (!bench::part_options(argc, argv, "--hs", &o)) return 2;
    const bool quick = o.quick, smoke = o.smoke;
    const double copy = bench::part_start("--hs", smoke);
    if (copy < 0) return 0;
    std::vector<Row> rows;
    const int iters = 20, runs = smoke ? 3 : (quick ? 7 : 15);
    std::vector<int> sizes = smoke ? std::vector<int>{256} : std::vector<int>{2048, 4096};

    // (a) inner loop
    const Kind kinds[] = {
        {OF_ALGO_HS, OF_SOLVER_JACOBI, OF_VARIANT_GLOBAL, OF_PRECISION_F32, 0, 0}, // the baseline: first
        {OF_ALGO_HS, OF_SOLVER_JACOBI, OF_VARIANT_GLOBAL, OF_PRECISION_F16, 0, 0},
        {OF_ALGO_HS, OF_SOLVER_JACOBI, OF_VARIANT_FUSED, OF_PRECISION_F32, 0, 0},
        {OF_ALGO_HS, OF_SOLVER_JACOBI, OF_VARIANT_FUSED, OF_PRECISION_F16, 0, 0},
        {OF_ALGO_HS, OF_SOLVER_JACOBI, OF_VARIANT_MULTI_ITER, OF_PRECISION_F32, 0, 0},
        {OF_ALGO_HS, OF_SOLVER_JACOBI, OF_VARIANT_MULTI_ITER, OF_PRECISION_F16, 0, 0},
        {OF_ALGO_HS, OF_SOLVER_RED_BLACK_SOR, OF_VARIANT_GLOBAL, OF_PRECISION_F32, 0, 0},
        {OF_ALGO_HS, OF_SOLVER_RED_BLACK_SOR, OF_VARIANT_GLOBAL, OF_PRECISION_F16, 0, 0},
        {OF_ALGO_HS, OF_SOLVER_RED_BLACK_SOR, OF_VARIANT_FUSED, OF_PRECISION_F32, 0, 0},
        {OF_ALGO_HS, OF_SOLVER_RED_BLACK_SOR, OF_VARIANT_FUSED, OF_PRECISION_F16, 0, 0},
        {OF_ALGO_CLG, OF_SOLVER_JACOBI, OF_VARIANT_GLOBAL, OF_PRECISION_F32, 0, 0},
        {OF_ALGO_CLG, OF_SOLVER_JACOBI, OF_VARIANT_MULTI_ITER, OF_PRECISION_F32, 0, 0},
        {OF_ALGO_CLG, OF_SOLVER_JACOBI, OF_VARIANT_MULTI_ITER, OF_PRECISION_F16, 0, 0},
        {OF_ALGO_CLG, OF_SOLVER_RED_BLACK_SOR, OF_VARIANT_FUSED, OF_PRECISION_F32, 0, 0},
    };
    std::printf("\n(a) inner loop: one level, %d iterations per run, median of %d runs; 'vs base': GLOBAL F32 Jacobi of the "
                "same algorithm and size / this row\n",
                iters, runs);
    print_inner_header();
    for (int s : sizes) {
        std::vector<float> i0, i1;
        bench::texture(s, s, &i0, &i1);
        double base[2] = {0, 0}; // HS, CLG
        for (const Kind& k : kinds) {
            Row r = inner(k, s, s, i0, i1, iters, runs, copy);
            const int ai = k.a == OF_ALGO_CLG ? 1 : 0;
            if (k.s == OF_SOLVER_JACOBI && k.v == OF_VARIANT_GLOBAL && k.p == OF_PRECISION_F32 && r.ok) base[ai] = r.t.ns;
            r.ratio = r.ok && r.t.ns > 0 ? base[ai] / r.t.ns : 0;
            print_inner(r);
            rows.push_back(r);
        }
    }

    // (d) fused depth sweep
    if (!smoke) {
        const int s = 4096;
        std::vector<float> i0, i1;
        bench::texture(s, s, &i0, &i1);
        std::printf("\n(d) MULTI_ITER depth sweep at %dx%d (HS Jacobi; 'vs base' against GLOBAL F32 timed here)\n", s, s);
        print_inner_header();
        Row b = inner(kinds[0], s, s, i0, i1, iters, runs, copy);
        b.ratio = b.ok ? 1.0 : 0.0;
        print_inner(b);
        const int depths[] = {2, 3, 4, 5, 6, 7, 8};
        for (of_precision p : {OF_PRECISION_F32, OF_PRECISION_F16})
            for (int d : depths) {
                if (quick && d % 2) continue;
                Row r = inner({OF_ALGO_HS, OF_SOLVER_JACOBI, OF_VARIANT_MULTI_ITER, p, 0, static_cast<uint32_t>(d)}, s, s,
                              i0, i1, iters, runs, copy);
                r.section = "depth";
                r.ratio = r.ok && b.ok ? b.t.ns / r.t.ns : 0;
                print_inner(r);
                rows.push_back(r);
            }
    }

    // (s) SOR per iteration
    std::printf("\n(s) red-black SOR: one sweep (red + black) over one GLOBAL F32 Jacobi iteration (target <= 1.3)\n");
    for (const Row& r : rows)
        if (r.section == "inner" && r.algo == "hs" && r.solver == "sor" && r.ok) {
            double base = 0;
            for (const Row& q : rows)
                if (q.section == "inner" && q.algo == "hs" && q.solver == "jacobi" && q.variant == "global" &&
                    q.prec == "f32" && q.w == r.w)
                    base = q.t.ns;
            std::printf("  %dx%d %-7s %-6s sweep %.5f ns/px, Jacobi GLOBAL F32 %.5f: %.2fx\n", r.w, r.h, r.variant.c_str(),
                        r.prec.c_str(), r.t.ns, base, base > 0 ? r.t.ns / base : 0.0);
        }

    // (b) whole frames
    struct FrameSet {
        int w, h;
        uint32_t levels, iterations;
        float growth;
        of_algorithm a;
        const char* name;
    };
    const FrameSet sets[] = {
        {640, 512, 4, 60, 1.0f, OF_ALGO_CLG, "CLG 640x512, 4 levels, 60/120/180/240 it, 1 warp"},
        {1920, 1080, 3, 10, 0.0f, OF_ALGO_HS, "HS 1920x1080, 3 levels, 1 warp, 10 it"},
        {1920, 1080, 3, 10, 0.0f, OF_ALGO_CLG, "CLG 1920x1080, 3 levels, 1 warp, 10 it"},
    };
    std::printf("\n(b) whole frames: of_process, U8 device frames and flow, local-norm + median 5, epsilon 0 (ms per "
                "frame, median; 'vs base': GLOBAL F32 Jacobi / this)\n");
    for (const FrameSet& fs : sets) {
        const int w = smoke ? 64 : fs.w, h = smoke ? 48 : fs.h;
        bench::U8Frames f(w, h);
        std::printf("  %s%s\n", fs.name, smoke ? " (smoke: 64x48)" : "");
        double base = 0;
        const Kind fk[] = {{fs.a, OF_SOLVER_JACOBI, OF_VARIANT_GLOBAL, OF_PRECISION_F32, 0, 0},
                           {fs.a, OF_SOLVER_JACOBI, OF_VARIANT_MULTI_ITER, OF_PRECISION_F32, 0, 0},
                           {fs.a, OF_SOLVER_JACOBI, OF_VARIANT_MULTI_ITER, OF_PRECISION_F16, 0, 0},
                           {fs.a, OF_SOLVER_RED_BLACK_SOR, OF_VARIANT_FUSED, OF_PRECISION_F32, 0, 0},
                           {fs.a, OF_SOLVER_RED_BLACK_SOR, OF_VARIANT_FUSED, OF_PRECISION_F16, 0, 0}};
        for (const Kind& k : fk) {
            Row r = frame(k, w, h, fs.levels, fs.iterations, fs.growth, f, smoke ? 2 : 20, smoke ? 2 : 7);
            if (k.v == OF_VARIANT_GLOBAL && r.ok) base = r.ms;
            r.ratio = r.ok && r.ms > 0 ? base / r.ms : 0;
            std::printf("    %-6s %-10s %-6s %9.3f ms %6.2fx%s\n", r.solver.c_str(), r.variant.c_str(), r.prec.c_str(), r.ms,
                        r.ratio, r.ok ? "" : "  (failed)");
            rows.push_back(r);
        }
    }
    if (o.json) bench::json_rows(o.json, "--hs", copy, rows.size(), [&](FILE* out, size_t i) { json_row(out, rows[i]); });
    for (const Row& r : rows)
        if (!r.ok) return 1;
    return 0;
}

#endif
