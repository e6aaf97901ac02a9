// oflow-bench --lk: the Lucas-Kanade CUDA path (cuda/lk_cuda.cuh), in one run.
//
//  (c) copy bandwidth: a 256 MiB device-to-device cudaMemcpy, read + write counted.
//  (a) the inner step at 2048^2 and 4096^2 (--smoke: 256^2), windows 15 and 11 (the default): ns
//      per Newton step per pixel of every variant x precision (one level, 10 steps per timed run,
//      epsilon 0, every step counting its active pixels as in frames, median of 15 runs after 2
//      warm-up runs, CUDA events), each as a ratio to GLOBAL F32 (the plain per-pixel-window
//      kernel) of the same size and window timed in the same run, with the modelled bytes and
//      FLOPs per pixel per step (cuda/cuda_bench.cu lk_model), achieved GB/s, its share of the
//      copy bandwidth, GFLOP/s and the residual products computed per pixel (redundancy: GLOBAL
//      s^2, the fast variants their tiles' halo).
//  (b) whole frames through of_process at 1920x1080, 3 levels, windows 15 and 11, U8 device frames
//      and device flow (copies excluded), LK's defaults otherwise (local-norm, 10 steps a level)
//      but epsilon 0 (fixed work), every variant x precision, each as a ratio to GLOBAL F32 in
//      the same run; the target: at window 15 the fast path >= 5x GLOBAL F32.
//  (c) the frame model: whole frames (device U8 frames and flow) of FUSED F32 and F16 at 64x48 ..
//      1920x1080, 1 and 3 levels, 2 and 10 steps (window 11, epsilon 0), each beside the time
//      the table predicts for it (of_explain's predicted_ms: platform/tuning.hpp frame_ms, the
//      table's LK gpu row) and their ratio; the rows platform/tables/generic.xml's LK frame terms
//      are fitted to (scripts/fit_frame_model.py reads --json). Then the CPU reference path
//      (host frames, 1 thread) at the small sizes beside the GPU: the crossover's evidence.
//  (d) the time budget: 1920x1080, automatic levels, LK's defaults (variant and precision from the
//      table: FUSED; epsilon 0 so that every bought step runs), config.time_budget_ms 0.5, 1, 2
//      and 4: the steps per level the budget bought (of_explain), the measured ms per frame
//      (device U8 frames and flow, copies excluded, as the model) and its ratio to the budget; a
//      budget below the frame's floor is refused (of_explain's status and message printed).
// Usage: oflow-bench --lk [--quick] [--smoke] [--json FILE]
#include "oflow.h"
#include "samples/bench/bench_lk.hpp"
#include "samples/bench/bench_util.hpp"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#if !OF_BENCH_CUDA

int run_lk_bench(int, char**) {
    std::printf("oflow-bench --lk: this build has no CUDA backend\n");
    return 0;
}

#else

namespace {

const double kTarget = 5.0; // the issue's: 1080p, 3 levels, window 15, fast path vs GLOBAL F32

struct Kind {
    of_variant v;
    of_precision p;
};
// GLOBAL F32 first: the baseline of every ratio.
const Kind kKinds[] = {{OF_VARIANT_GLOBAL, OF_PRECISION_F32},     {OF_VARIANT_GLOBAL, OF_PRECISION_F16},
                       {OF_VARIANT_FUSED, OF_PRECISION_F32},      {OF_VARIANT_FUSED, OF_PRECISION_F16},
                       {OF_VARIANT_MULTI_ITER, OF_PRECISION_F32}, {OF_VARIANT_MULTI_ITER, OF_PRECISION_F16}};

const char* vname(of_variant v) {
    return v == OF_VARIANT_GLOBAL ? "global" : v == OF_VARIANT_FUSED ? "fused" : v == OF_VARIANT_AUTO ? "auto" : "multi-iter";
}
const char* pname(of_precision p) { return p == OF_PRECISION_F16 ? "f16x2" : "f32"; }

struct Row {
    std::string section, variant, prec;
    int w = 0, h = 0, window = 0;
    bench::Inner t; // section "inner"
    double ms = 0;  // sections "frame", "model", "cpu"
    double ratio = 0;
    int levels = 0, steps = 0;
    double predicted = 0; // sections "model", "cpu": of_explain's predicted_ms
    double level_px = 0;  // sections "model", "cpu": the pixels of all levels (of_explain's sizes)
    bool ok = false;
};

of_config lk_config(const Kind& k, int w, int h, int window) {
    of_config c;
    of_config_init(&c, OF_ALGO_LK);
    c.max_width = static_cast<uint32_t>(w);
    c.max_height = static_cast<uint32_t>(h);
    c.backend = OF_BACKEND_CUDA;
    c.variant = k.v;
    c.precision = k.p;
    c.lk.window = static_cast<uint32_t>(window);
    c.epsilon = 0.0f;
    return c;
}

Row row_of(const char* section, const Kind& k, int w, int h, int window) {
    Row r;
    r.section = section;
    r.variant = vname(k.v);
    r.prec = pname(k.p);
    r.w = w;
    r.h = h;
    r.window = window;
    return r;
}

Row inner(const Kind& k, int s, int window, const std::vector<float>& i0, const std::vector<float>& i1, int iters,
          int runs, double copy_gbps) {
    Row r = row_of("inner", k, s, s, window);
    of_config c = lk_config(k, s, s, window);
    c.format = OF_PIXEL_F32;
    c.levels = 1;
    c.iterations = static_cast<uint32_t>(iters);
    c.robust = OF_ROBUST_NONE;
    char who[64];
    std::snprintf(who, sizeof who, "--lk %s %s window %d", r.variant.c_str(), r.prec.c_str(), window);
    r.t = bench::time_inner(c, i0, i1, s, s, iters, runs, copy_gbps, who);
    r.ok = r.t.ok;
    return r;
}

void print_inner(const Row& r) {
    char size[24], block[16];
    std::snprintf(size, sizeof size, "%dx%d", r.w, r.h);
    std::snprintf(block, sizeof block, "%dx%d", r.t.bw, r.t.bh);
    if (!r.ok) {
        std::printf("%-10s %3d %-10s %-6s (failed, see stderr)\n", size, r.window, r.variant.c_str(), r.prec.c_str());
        return;
    }
    std::printf("%-10s %3d %-10s %-6s %-6s %9.5f %7.2fx %7.1f %8.1f %5.1f%% %7.0f %8.1f %7.2f\n", size, r.window,
                r.variant.c_str(), r.prec.c_str(), block, r.t.ns, r.ratio, r.t.bytes, r.t.gbps, 100.0 * r.t.share, r.t.flops,
                r.t.gflops, r.t.redundancy);
}

Row frame(const Kind& k, int w, int h, int window, const bench::U8Frames& f, int frames, int reps) {
    Row r = row_of("frame", k, w, h, window);
    of_config c = lk_config(k, w, h, window);
    c.levels = 3;
    r.ok = bench::time_device_frames(c, f, frames, reps, &r.ms);
    return r;
}

// Section (c): one whole-frame timing of k at w x h, `levels` levels, `steps` Newton steps a level
// (the same on every level), window 11, epsilon 0, beside the table's prediction. cpu: the
// reference path with host frames and one thread instead (k only names the row).
Row model_row(const Kind& k, int w, int h, int levels, int steps, bool cpu) {
    Row r = row_of(cpu ? "cpu" : "model", k, w, h, 11);
    r.levels = levels;
    r.steps = steps;
    of_config c = lk_config(k, w, h, 11);
    c.levels = static_cast<uint32_t>(levels);
    c.iterations = static_cast<uint32_t>(steps);
    c.iteration_growth = 0.0f;
    c.format = OF_PIXEL_U8;
    if (cpu) {
        c.backend = OF_BACKEND_REFERENCE;
        c.threads = 1;
    }
    of_info in;
    std::memset(&in, 0, sizeof in);
    in.struct_size = sizeof in;
    if (of_explain(&c, &in) == OF_OK) {
        r.predicted = in.predicted_ms;
        for (uint32_t l = 0; l < in.levels; ++l)
            r.level_px += static_cast<double>(in.level_width[l]) * static_cast<double>(in.level_height[l]);
    }
    bench::U8Frames f(w, h);
    const int frames = cpu ? 3 : (w * h >= 640 * 480 ? 20 : 50), reps = cpu ? 3 : 7;
    if (cpu) {
        r.ok = f.ok && bench::time_frames(c, true, f.f0, f.f1, f.dev, f.stream, frames, reps, &r.ms, nullptr);
    } else {
        r.ok = f.ok && bench::time_device_frames(c, f, frames, reps, &r.ms);
    }
    r.ratio = r.ok && r.predicted > 0 ? r.ms / r.predicted : 0;
    return r;
}

void print_model(const Row& r) {
    std::printf("  %-6s %-6s %4dx%-4d %d level%s %2d steps %9.3f ms  table %9.3f ms  measured/table %5.2f%s\n",
                r.section == "cpu" ? "cpu" : r.variant.c_str(), r.section == "cpu" ? "ref" : r.prec.c_str(), r.w, r.h,
                r.levels, r.levels == 1 ? " " : "s", r.steps, r.ms, r.predicted, r.ratio, r.ok ? "" : "  (failed)");
}

void json_row(FILE* f, const Row& r) {
    std::fprintf(f,
                 "{\"section\": \"%s\", \"variant\": \"%s\", \"precision\": \"%s\", \"w\": %d, \"h\": %d, \"window\": %d, "
                 "\"block\": [%d, %d], \"ok\": %s, \"ns_per_step_px\": %.6f, \"ratio\": %.4f, \"bytes\": %.2f, \"flops\": "
                 "%.1f, \"gbps\": %.1f, \"redundancy\": %.3f, \"ms\": %.4f, \"levels\": %d, \"steps\": %d, "
                 "\"predicted_ms\": %.4f, \"level_px\": %.0f}",
                 r.section.c_str(), r.variant.c_str(), r.prec.c_str(), r.w, r.h, r.window, r.t.bw, r.t.bh,
                 r.ok ? "true" : "false", r.t.ns, r.ratio, r.t.bytes, r.t.flops, r.t.gbps, r.t.redundancy, r.ms, r.levels,
                 r.steps, r.predicted, r.level_px);
}

} // namespace

int run_lk_bench(int argc, char** argv) {
    bench::PartOptions o;
    if (!bench::part_options(argc, argv, "--lk", &o)) return 2;
    const bool smoke = o.smoke;
    const double copy = bench::part_start("--lk", smoke);
    if (copy < 0) return 0;
    std::vector<Row> rows;
    const int iters = 10, runs = smoke ? 3 : (o.quick ? 7 : 15);
    const std::vector<int> sizes = smoke ? std::vector<int>{256} : std::vector<int>{2048, 4096};
    const int windows[] = {15, 11};

    // (a) the inner step
    std::printf("\n(a) inner step: one level, %d Newton steps per run, epsilon 0, median of %d runs; 'vs base': GLOBAL "
                "F32 of the same size and window / this row\n",
                iters, runs);
    std::printf("%-10s %3s %-10s %-6s %-6s %9s %8s %7s %8s %6s %7s %8s %7s\n", "size", "win", "variant", "prec", "block",
                "ns/st/px", "vs base", "B/px/st", "GB/s", "%copy", "FLOP/px", "GFLOP/s", "redund");
    for (int s : sizes) {
        std::vector<float> i0, i1;
        bench::texture(s, s, &i0, &i1);
        for (int window : windows) {
            double base = 0;
            for (const Kind& k : kKinds) {
                Row r = inner(k, s, window, i0, i1, iters, runs, copy);
                if (k.v == OF_VARIANT_GLOBAL && k.p == OF_PRECISION_F32 && r.ok) base = r.t.ns;
                r.ratio = r.ok && r.t.ns > 0 ? base / r.t.ns : 0;
                print_inner(r);
                rows.push_back(r);
            }
        }
    }

    // (b) whole frames
    const int fw = smoke ? 64 : 1920, fh = smoke ? 48 : 1080;
    std::printf("\n(b) whole frames: of_process %dx%d, 3 levels, U8 device frames and flow, local-norm, 10 steps a level, "
                "epsilon 0 (ms per frame, median; 'vs base': GLOBAL F32 / this)\n",
                fw, fh);
    bench::U8Frames f(fw, fh);
    for (int window : windows) {
        double base = 0, best = 0;
        for (const Kind& k : kKinds) {
            Row r = frame(k, fw, fh, window, f, smoke ? 2 : 20, smoke ? 2 : 7);
            if (k.v == OF_VARIANT_GLOBAL && k.p == OF_PRECISION_F32 && r.ok) base = r.ms;
            r.ratio = r.ok && r.ms > 0 ? base / r.ms : 0;
            if (k.v != OF_VARIANT_GLOBAL && r.ratio > best) best = r.ratio;
            std::printf("  window %2d %-10s %-6s %9.3f ms %6.2fx%s\n", window, r.variant.c_str(), r.prec.c_str(), r.ms,
                        r.ratio, r.ok ? "" : "  (failed)");
            rows.push_back(r);
        }
        if (window == 15)
            std::printf("  target (window 15: the fast path >= %.0fx GLOBAL F32): best %.2fx, %s\n", kTarget, best,
                        best >= kTarget ? "met" : "NOT met");
    }
    // (c) the frame model
    std::printf("\n(c) frame model: whole frames, device U8 frames and flow, window 11, epsilon 0, the steps on every "
                "level; 'table': of_explain's predicted_ms (the table's LK rows)\n");
    struct Size {
        int w, h;
    };
    const std::vector<Size> msizes = smoke ? std::vector<Size>{{64, 48}}
                                           : std::vector<Size>{{64, 48}, {160, 120}, {320, 240}, {640, 480}, {1280, 720}, {1920, 1080}};
    for (const Kind& k : {Kind{OF_VARIANT_FUSED, OF_PRECISION_F32}, Kind{OF_VARIANT_FUSED, OF_PRECISION_F16}})
        for (const Size& z : msizes)
            for (int levels : {1, 3})
                for (int steps : {2, 10}) {
                    const Row r = model_row(k, z.w, z.h, levels, steps, false);
                    print_model(r);
                    rows.push_back(r);
                }
    std::printf("  the CPU reference path (host frames, 1 thread) at the small sizes, for the crossover:\n");
    const std::vector<Size> csizes = smoke ? std::vector<Size>{{64, 48}} : std::vector<Size>{{32, 32}, {64, 48}, {160, 120}};
    for (const Size& z : csizes)
        for (bool cpu : {false, true}) {
            const Row r = model_row(Kind{OF_VARIANT_FUSED, OF_PRECISION_F32}, z.w, z.h, 1, 10, cpu);
            print_model(r);
            rows.push_back(r);
        }
    // (d) the time budget
    std::printf("\n(d) time budget: %s, automatic levels, the table's variant, epsilon 0; measured ms per frame (device U8 "
                "frames and flow) against the budget\n",
                smoke ? "64x48" : "1920x1080");
    for (double budget : smoke ? std::vector<double>{5.0} : std::vector<double>{0.5, 1.0, 2.0, 4.0}) {
        const int bw = smoke ? 64 : 1920, bh = smoke ? 48 : 1080;
        Row r = row_of("budget", Kind{OF_VARIANT_AUTO, OF_PRECISION_F32}, bw, bh, 11);
        of_config c;
        of_config_init(&c, OF_ALGO_LK);
        c.max_width = static_cast<uint32_t>(bw);
        c.max_height = static_cast<uint32_t>(bh);
        c.backend = OF_BACKEND_CUDA;
        c.format = OF_PIXEL_U8;
        c.epsilon = 0.0f;
        c.time_budget_ms = static_cast<float>(budget);
        of_info in;
        std::memset(&in, 0, sizeof in);
        in.struct_size = sizeof in;
        const of_status es = of_explain(&c, &in);
        const bool explained = es == OF_OK;
        if (!explained) { // a budget below the frame's floor is refused at create: a row, not a failure
            std::printf("  budget %4.1f ms: refused, %s: %s\n", budget, of_status_string(es), of_last_error(nullptr));
            continue;
        }
        r.predicted = explained ? in.predicted_ms : 0.0;
        r.steps = explained ? static_cast<int>(in.iterations) : 0;
        r.levels = explained ? static_cast<int>(in.levels) : 0;
        bench::U8Frames bf(bw, bh);
        r.ok = explained && bf.ok && bench::time_device_frames(c, bf, smoke ? 2 : 20, smoke ? 2 : 7, &r.ms);
        r.ratio = r.ok ? r.ms / budget : 0.0;
        std::printf("  budget %4.1f ms: %d levels x %2d steps, table %6.3f ms, measured %6.3f ms (%+5.1f %% of the budget)%s\n",
                    budget, r.levels, r.steps, r.predicted, r.ms, 100.0 * (r.ratio - 1.0), r.ok ? "" : "  (failed)");
        rows.push_back(r);
    }
    if (o.json) bench::json_rows(o.json, "--lk", copy, rows.size(), [&](FILE* out, size_t i) { json_row(out, rows[i]); });
    for (const Row& r : rows)
        if (!r.ok) return 1;
    return 0;
}

#endif
