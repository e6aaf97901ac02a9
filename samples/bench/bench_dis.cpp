// oflow-bench --dis [--quick] [--smoke] [--json FILE]: Dense Inverse Search on CUDA, whole frames
// (U8 device frames, planar device flow: no host wait inside of_process).
//  (a) presets: 1920x1080, 1280x720 and 640x480 for ULTRAFAST, FAST and MEDIUM: ms per frame of
//      the optimised variant (FUSED, F32 and F16) beside the GLOBAL baseline (a thread per patch)
//      in the same run, their ratio, the bytes a frame must move per pixel (dis_bytes below) and
//      what that makes of the device's copy bandwidth, measured in the same run
//      (bench::part_start). --quick: 1920x1080 only.
//  (b) the frame model: FUSED F32 and F16 frames at 160x120 .. 1920x1080, MEDIUM's geometry at 4
//      and 25 steps and the three presets, beside of_explain's predicted_ms (the table's DIS
//      rows), with the counts the model is made of (the work pixels of core/dis_algorithm.cpp's
//      model, the round launches, the levels) that scripts/fit_frame_model.py --dis fits the
//      table's GPU terms to (--json). Then the CPU reference path (host frames, one thread) at
//      80x60 .. 640x480, which the table's CPU row is fitted to (--section cpu), beside FUSED F32
//      for the crossover.
//  (c) the time budget: 1920x1080 at budgets of 1, 2 and 4 ms: the steps the model buys, the
//      measured ms per frame against the budget.
// --smoke: 160x120, one repetition of each (CI's check that the part runs).
#include "samples/bench/bench_dis.hpp"
#include "samples/bench/bench_util.hpp"

#include "core/algorithm.hpp" // the DIS iteration model (its work pixels)
#include "core/dis_kernels.hpp"
#include "core/plan.hpp"
#include "platform/tuning.hpp" // LevelTerms

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#if OF_BENCH_CUDA

namespace {

struct Row {
    int w, h;
    const char* preset;
    double global_ms, fused_ms, fused16_ms, bytes_px, share;
};

// Compulsory device-memory bytes of one frame per level-0 pixel, F32 storage, each plane read
// once and written once per pass (what a pass could not do with less), summed over the levels:
//  - input: two U8 frames read (2 B), converted and written (8 B);
//  - pyramid, per level and frame: the level blur read + written, the resample read + written
//    (16 B per level pixel for both frames), LEVEL_NORM's normalisation (2 blurs, the square,
//    the combine: 4 passes of read + write, 32 B per level pixel for both frames);
//  - per level: the upsampled flow (read the coarser 8 B x area/4, write 8 B); per solved level
//    the gradient (read 4, write 8), the patch sums (read the 8 B gradient once), the search
//    (each round reads I0, I1 and the gradient once: 16 B per round), the densification (read
//    I0, I1, write the flow: 16 B), and the refinement (warp: read I1 and the flow, write I1w: 16;
//    per fixed-point iteration the tensor: read I0, I1w, the flow and the increment, write the 3
//    coefficient pairs: 48; per SOR iteration read the coefficients and the increment, write it:
//    40) and the increment added (read 16, write 8);
//  - output: the flow written (8 B).
// The sparse patch planes (< 1/9 of a level) are left out.
double dis_bytes(int w, int h, const of_config& c) {
    oflow::LevelDims dims[oflow::kMaxLevels];
    const int levels = oflow::pyramid_dims(w, h, static_cast<int>(c.levels), c.scale_factor, dims);
    const double a0 = static_cast<double>(w) * h;
    double b = 2.0 + 8.0 + 8.0;
    const int rounds = static_cast<int>((c.dis.iterations + oflow::kDisRoundSteps - 1) / oflow::kDisRoundSteps);
    for (int l = 0; l < levels; ++l) {
        const double a = static_cast<double>(dims[l].w) * dims[l].h / a0;
        if (l > 0) b += 16.0 * a;
        b += 32.0 * a; // level norm
        b += 8.0 * a + 2.0 * a; // flow upsampled in (8) from a quarter (2)
        if (l < static_cast<int>(c.dis.finest_level)) continue;
        b += (12.0 + 8.0 + 16.0 * rounds + 16.0) * a;
        if (c.dis.refine_iterations)
            b += (16.0 + c.dis.refine_iterations * (48.0 + 5 * 40.0) + 24.0) * a;
    }
    return b;
}

// Section (b)/(c): one whole-frame row: the measured ms per frame and of_explain's figures.
struct ModelRow {
    std::string section, variant, prec, preset;
    int w = 0, h = 0, levels = 0, steps = 0;
    double launches = 0;  // the model's launches: rounds (ceil(steps / kDisRoundSteps)) and the fixed ones
    double work_px = 0;   // sum over the solved levels of the model's work pixels at one step
    double refine_px = 0; // sum over the solved levels of refine_iterations x the level's pixels
    double ms = 0, predicted = 0, budget = 0;
    bool ok = false;
};

of_config dis_config(of_dis_preset_id preset, int w, int h) {
    of_config c;
    std::memset(&c, 0, sizeof c);
    of_config_init(&c, OF_ALGO_DIS);
    of_dis_preset(&c, preset);
    c.max_width = static_cast<uint32_t>(w);
    c.max_height = static_cast<uint32_t>(h);
    c.backend = OF_BACKEND_CUDA;
    c.format = OF_PIXEL_U8;
    return c;
}

// of_explain's levels and prediction, and the model's counts from its level sizes.
void explain_row(const of_config& c, ModelRow* r) {
    of_info in;
    std::memset(&in, 0, sizeof in);
    in.struct_size = sizeof in;
    if (of_explain(&c, &in) != OF_OK) return;
    r->predicted = in.predicted_ms;
    r->levels = static_cast<int>(in.levels);
    r->steps = static_cast<int>(in.iterations);
    std::uint64_t areas[oflow::kMaxLevels];
    for (uint32_t l = 0; l < in.levels; ++l)
        areas[l] = static_cast<std::uint64_t>(in.level_width[l]) * static_cast<std::uint64_t>(in.level_height[l]);
    oflow::platform::LevelTerms t;
    std::memset(static_cast<void*>(&t), 0, sizeof t);
    oflow::find_algorithm(OF_ALGO_DIS)->iterations->level_terms(c, r->levels, areas, &t);
    const int per = oflow::kDisRoundSteps;
    const double rounds = static_cast<double>((r->steps + per - 1) / per);
    for (int l = 0; l < r->levels; ++l) {
        r->work_px += t.runs[l] * static_cast<double>(areas[l]);
        r->launches += t.runs[l] * rounds + t.fixed_launches[l];
        r->refine_px += t.runs[l] * static_cast<double>(c.dis.refine_iterations) * static_cast<double>(in.level_width[l]) *
                        static_cast<double>(in.level_height[l]);
    }
}

ModelRow model_row(const char* preset_name, of_dis_preset_id preset, int steps, of_precision prec, int w, int h,
                   bool cpu) {
    ModelRow r;
    r.section = cpu ? "cpu" : "model";
    r.variant = cpu ? "ref" : "fused";
    r.prec = prec == OF_PRECISION_F16 ? "f16x2" : "f32";
    r.preset = preset_name;
    r.w = w;
    r.h = h;
    of_config c = dis_config(preset, w, h);
    if (steps > 0) c.dis.iterations = static_cast<uint32_t>(steps);
    c.variant = OF_VARIANT_FUSED;
    c.precision = prec;
    if (cpu) {
        c.backend = OF_BACKEND_REFERENCE;
        c.threads = 1;
    }
    explain_row(c, &r);
    bench::U8Frames f(w, h);
    const int frames = cpu ? 3 : (w * h >= 640 * 480 ? 20 : 50), reps = cpu ? 3 : 7;
    if (cpu)
        r.ok = f.ok && bench::time_frames(c, true, f.f0, f.f1, f.dev, f.stream, frames, reps, &r.ms, nullptr);
    else
        r.ok = f.ok && bench::time_device_frames(c, f, frames, reps, &r.ms);
    return r;
}

void print_model(const ModelRow& r) {
    std::printf("  %-5s %-5s %-9s %4dx%-4d %d levels %3d steps %9.3f ms  table %9.3f ms  measured/table %5.2f%s\n",
                r.variant.c_str(), r.prec.c_str(), r.preset.c_str(), r.w, r.h, r.levels, r.steps, r.ms, r.predicted,
                r.ok && r.predicted > 0 ? r.ms / r.predicted : 0.0, r.ok ? "" : "  (failed)");
}

} // namespace

int run_dis_bench(int argc, char** argv) {
    bench::PartOptions o;
    if (!bench::part_options(argc, argv, "--dis", &o)) return 2;
    const double copy = bench::part_start("--dis", o.smoke);
    if (copy < 0) return 0;
    struct Size {
        int w, h;
    };
    static const Size kAll[3] = {{1920, 1080}, {1280, 720}, {640, 480}};
    static const Size kSmoke[1] = {{160, 120}};
    const Size* sizes = o.smoke ? kSmoke : kAll;
    const int nsizes = o.smoke || o.quick ? 1 : 3;
    const of_dis_preset_id presets[3] = {OF_DIS_ULTRAFAST, OF_DIS_FAST, OF_DIS_MEDIUM};
    const char* names[3] = {"ULTRAFAST", "FAST", "MEDIUM"};
    const int frames = o.smoke ? 2 : 20, reps = o.smoke ? 1 : 7;
    std::vector<Row> rows;
    std::printf("(a) presets\n%-10s %-9s %10s %10s %10s %7s %8s %7s\n", "size", "preset", "GLOBAL ms", "FUSED ms",
                "FUSED16 ms", "ratio", "B/px", "copy%");
    for (int si = 0; si < nsizes; ++si) {
        const Size& s = sizes[si];
        bench::U8Frames f(s.w, s.h);
        if (!f.ok) return 1;
        for (int k = 0; k < 3; ++k) {
            const of_config c = dis_config(presets[k], s.w, s.h);
            Row r{s.w, s.h, names[k], 0, 0, 0, 0, 0};
            const of_variant vs[3] = {OF_VARIANT_GLOBAL, OF_VARIANT_FUSED, OF_VARIANT_FUSED};
            const of_precision ps[3] = {OF_PRECISION_F32, OF_PRECISION_F32, OF_PRECISION_F16};
            double* out[3] = {&r.global_ms, &r.fused_ms, &r.fused16_ms};
            for (int v = 0; v < 3; ++v) {
                of_config cv = c;
                cv.variant = vs[v];
                cv.precision = ps[v];
                if (!bench::time_device_frames(cv, f, frames, reps, out[v])) return 1;
            }
            r.bytes_px = dis_bytes(s.w, s.h, c);
            const double gbps = r.bytes_px * s.w * s.h / (r.fused_ms * 1e6);
            r.share = copy > 0 ? 100.0 * gbps / copy : 0.0;
            rows.push_back(r);
            char size[24];
            std::snprintf(size, sizeof size, "%dx%d", s.w, s.h);
            std::printf("%-10s %-9s %10.4f %10.4f %10.4f %6.2fx %8.1f %6.2f%%\n", size, r.preset, r.global_ms, r.fused_ms,
                        r.fused16_ms, r.global_ms / r.fused_ms, r.bytes_px, r.share);
        }
    }

    // (b) the frame model
    std::printf("\n(b) frame model: whole frames, device U8 frames and flow, FUSED; 'table': of_explain's predicted_ms "
                "(the table's DIS rows)\n");
    std::vector<ModelRow> model;
    const std::vector<Size> msizes = o.smoke ? std::vector<Size>{{160, 120}}
                                             : std::vector<Size>{{160, 120}, {320, 240}, {640, 480}, {1280, 720}, {1920, 1080}};
    for (of_precision p : {OF_PRECISION_F32, OF_PRECISION_F16})
        for (const Size& z : msizes) {
            for (int steps : {4, 25}) {
                model.push_back(model_row("MEDIUM", OF_DIS_MEDIUM, steps, p, z.w, z.h, false));
                print_model(model.back());
            }
            for (int k = 0; k < 2; ++k) {
                model.push_back(model_row(names[k], presets[k], 0, p, z.w, z.h, false));
                print_model(model.back());
            }
        }
    std::printf("  the CPU reference path (host frames, 1 thread; the table's CPU row is fitted to these), beside FUSED "
                "F32 for the crossover:\n");
    const std::vector<Size> csizes = o.smoke ? std::vector<Size>{{160, 120}}
                                             : std::vector<Size>{{80, 60}, {160, 120}, {320, 240}, {640, 480}};
    for (const Size& z : csizes) {
        model.push_back(model_row("MEDIUM", OF_DIS_MEDIUM, 0, OF_PRECISION_F32, z.w, z.h, false));
        print_model(model.back());
        for (int steps : {4, 25}) {
            model.push_back(model_row("MEDIUM", OF_DIS_MEDIUM, steps, OF_PRECISION_F32, z.w, z.h, true));
            print_model(model.back());
        }
        for (int k = 0; k < 2 && !o.smoke; ++k) {
            model.push_back(model_row(names[k], presets[k], 0, OF_PRECISION_F32, z.w, z.h, true));
            print_model(model.back());
        }
    }

    // (c) the time budget
    const int bw = o.smoke ? 160 : 1920, bh = o.smoke ? 120 : 1080;
    std::printf("\n(c) time budget: %dx%d, MEDIUM's geometry, the table's variant and precision; measured ms per frame "
                "against the budget\n",
                bw, bh);
    for (double budget : o.smoke ? std::vector<double>{5.0} : std::vector<double>{1.0, 2.0, 4.0}) {
        ModelRow r;
        r.section = "budget";
        r.variant = "auto";
        r.prec = "auto";
        r.preset = "MEDIUM";
        r.w = bw;
        r.h = bh;
        r.budget = budget;
        of_config c = dis_config(OF_DIS_MEDIUM, bw, bh);
        c.time_budget_ms = static_cast<float>(budget);
        of_info in;
        std::memset(&in, 0, sizeof in);
        in.struct_size = sizeof in;
        const of_status es = of_explain(&c, &in);
        if (es != OF_OK) { // a budget below the frame's floor is refused at create: a row, not a failure
            std::printf("  budget %4.1f ms: refused, %s: %s\n", budget, of_status_string(es), of_last_error(nullptr));
            continue;
        }
        explain_row(c, &r);
        bench::U8Frames bf(bw, bh);
        r.ok = bf.ok && bench::time_device_frames(c, bf, o.smoke ? 2 : 20, o.smoke ? 1 : 7, &r.ms);
        std::printf("  budget %4.1f ms: %d levels x %3d steps (%s %s), table %6.3f ms, measured %6.3f ms (%+5.1f %% of the "
                    "budget)%s\n",
                    budget, r.levels, r.steps, in.variant, in.precision == OF_PRECISION_F16 ? "F16" : "F32", r.predicted,
                    r.ms, r.ok ? 100.0 * (r.ms / budget - 1.0) : 0.0, r.ok ? "" : "  (failed)");
        model.push_back(r);
    }

    if (o.json) {
        const std::size_t n = rows.size() + model.size();
        bench::json_rows(o.json, "--dis", copy, n, [&](FILE* fp, std::size_t i) {
            if (i < rows.size()) {
                const Row& r = rows[i];
                std::fprintf(fp,
                             "{\"section\": \"presets\", \"w\": %d, \"h\": %d, \"preset\": \"%s\", \"global_ms\": %.5f, "
                             "\"fused_ms\": %.5f, \"fused_f16_ms\": %.5f, \"bytes_per_px\": %.2f, \"copy_share\": %.4f}",
                             r.w, r.h, r.preset, r.global_ms, r.fused_ms, r.fused16_ms, r.bytes_px, r.share / 100.0);
                return;
            }
            const ModelRow& r = model[i - rows.size()];
            std::fprintf(fp,
                         "{\"section\": \"%s\", \"variant\": \"%s\", \"precision\": \"%s\", \"preset\": \"%s\", "
                         "\"w\": %d, \"h\": %d, \"ok\": %s, \"ms\": %.4f, \"levels\": %d, \"steps\": %d, "
                         "\"launches\": %.0f, \"work_px\": %.0f, \"refine_px\": %.0f, \"predicted_ms\": %.4f, "
                         "\"budget_ms\": %.2f}",
                         r.section.c_str(), r.variant.c_str(), r.prec.c_str(), r.preset.c_str(), r.w, r.h,
                         r.ok ? "true" : "false", r.ms, r.levels, r.steps, r.launches, r.work_px, r.refine_px, r.predicted,
                         r.budget);
        });
    }
    return 0;
}

#else

int run_dis_bench(int, char**) {
    std::printf("oflow-bench --dis: this build has no CUDA\n");
    return 0;
}

#endif
