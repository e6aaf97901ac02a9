// oflow-bench --dis [--quick] [--smoke] [--json FILE]: Dense Inverse Search on CUDA, whole frames
// (U8 device frames, planar device flow: no host wait inside of_process), and on the CPU paths.
//  (a) presets: 1920x1080, 1280x720 and 640x480 for ULTRAFAST, FAST and MEDIUM: ms per frame of
//      the optimised variant (FUSED, F32 and F16) beside the GLOBAL baseline (a thread per patch)
//      in the same run, their ratio, the bytes a frame must move per pixel (dis_bytes below) and
//      what that makes of the device's copy bandwidth, measured in the same run
//      (bench::part_start). --quick: 1920x1080 only.
//  (b) the frame model: FUSED F32 and F16 frames at 160x120 .. 1920x1080, MEDIUM's geometry at 4
//      and 25 steps and the three presets, beside of_explain's predicted_ms (the table's DIS
//      rows), with the counts the model is made of (the work pixels of core/dis_algorithm.cpp's
//      model, the round launches, the levels) that scripts/fit_frame_model.py --dis fits the
//      table's GPU terms to (--json). Then the CPU paths (host frames, one thread) at 80x60 ..
//      640x480, which the table's CPU row is fitted to (--section cpu): the reference path
//      (variant "ref", OF_BACKEND_REFERENCE) and, where the build has them, the NEON kernels
//      (variant "neon", OF_BACKEND_NEON; on x86-64 through SIMDe), each size, preset and step
//      count on both with the ratio ref ms / neon ms, beside FUSED F32 for the crossover.
//  (c) the time budget: 1920x1080 at budgets of 1, 2 and 4 ms: the steps the model buys, the
//      measured ms per frame against the budget.
// Without CUDA in the build or without a device, (a), (b)'s GPU rows and (c) are skipped (one
// line says so) and the CPU rows run alone (copy_gbps 0 in --json).
// --smoke: 160x120, one repetition of each GPU row (CI's check that the part runs).
#include "samples/bench/bench_dis.hpp"
#include "samples/bench/bench_util.hpp"

#include "core/algorithm.hpp" // the DIS iteration model (its work pixels)
#include "core/dis_kernels.hpp"
#include "core/plan.hpp"
#include "platform/tuning.hpp" // LevelTerms

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Section (a): one preset row (GPU only).
struct Row {
    int w, h;
    const char* preset;
    double global_ms, fused_ms, fused16_ms, bytes_px, share;
};

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

void print_model(const ModelRow& r, const char* tail = "") {
    std::printf("  %-5s %-5s %-9s %4dx%-4d %d levels %3d steps %9.3f ms  table %9.3f ms  measured/table %5.2f%s%s\n",
                r.variant.c_str(), r.prec.c_str(), r.preset.c_str(), r.w, r.h, r.levels, r.steps, r.ms, r.predicted,
                r.ok && r.predicted > 0 ? r.ms / r.predicted : 0.0, r.ok ? "" : "  (failed)", tail);
}

// The CPU rows' frames: texture()'s pair as U8 in host memory (no device needed).
struct HostFrames {
    std::vector<unsigned char> f0, f1;
    HostFrames(int w, int h) {
        std::vector<float> a, b;
        bench::texture(w, h, &a, &b);
        f0.resize(a.size());
        f1.resize(b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            f0[i] = static_cast<unsigned char>(a[i] + 0.5f);
            f1[i] = static_cast<unsigned char>(b[i] + 0.5f);
        }
    }
};

// A CPU path's whole frames under c (host U8 frames, host planar F32 flow): two warm-up frames,
// then `reps` runs of `frames` frames, wall time (a CPU frame is done when of_process returns):
// the median ms per frame (bench::time_frames with host I/O, without a device). False (and a
// line on stderr) when create or a frame fails.
bool time_host_frames(const of_config& c, const HostFrames& f, int frames, int reps, double* ms_per_frame) {
    const int w = static_cast<int>(c.max_width), h = static_cast<int>(c.max_height);
    *ms_per_frame = 0.0;
    of_context* ctx = nullptr;
    if (of_create(&c, &ctx) != OF_OK) {
        std::fprintf(stderr, "oflow-bench --dis: CPU frames %dx%d: of_create: %s\n", w, h, of_last_error(nullptr));
        return false;
    }
    of_image a;
    std::memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.format = OF_PIXEL_U8;
    a.memory = OF_MEMORY_HOST;
    a.width = static_cast<uint32_t>(w);
    a.height = static_cast<uint32_t>(h);
    a.stride = static_cast<std::size_t>(w);
    of_image b = a;
    a.data = f.f0.data();
    b.data = f.f1.data();
    std::vector<float> hu(static_cast<std::size_t>(w) * static_cast<std::size_t>(h)), hv(hu.size());
    of_flow out;
    std::memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    out.layout = OF_FLOW_PLANAR;
    out.memory = OF_MEMORY_HOST;
    out.width = a.width;
    out.height = a.height;
    out.stride = static_cast<std::size_t>(w) * 4;
    out.format = OF_FLOW_FORMAT_F32;
    out.u = hu.data();
    out.v = hv.data();
    bool ok = true;
    for (int i = 0; i < 2 && ok; ++i) ok = of_process(ctx, &a, &b, &out) == OF_OK; // warm-up
    std::vector<double> per_frame;
    for (int rep = 0; rep < reps && ok; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < frames && ok; ++i) ok = of_process(ctx, &a, &b, &out) == OF_OK;
        per_frame.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
                            frames);
    }
    if (!ok) std::fprintf(stderr, "oflow-bench --dis: CPU frames %dx%d: of_process: %s\n", w, h, of_last_error(ctx));
    of_destroy(ctx);
    *ms_per_frame = bench::median(per_frame);
    return ok;
}

// A model row's labels, and the FUSED config at preset, steps (0: the preset's) and prec that it
// times.
of_config start_row(const char* section, const char* variant, const char* preset_name, of_dis_preset_id preset,
                    int steps, of_precision prec, int w, int h, ModelRow* r) {
    r->section = section;
    r->variant = variant;
    r->prec = prec == OF_PRECISION_F16 ? "f16x2" : "f32";
    r->preset = preset_name;
    r->w = w;
    r->h = h;
    of_config c = dis_config(preset, w, h);
    if (steps > 0) c.dis.iterations = static_cast<uint32_t>(steps);
    c.variant = OF_VARIANT_FUSED;
    c.precision = prec;
    return c;
}

// One CPU row: variant "ref" (OF_BACKEND_REFERENCE) or "neon" (OF_BACKEND_NEON), one thread, F32,
// host frames.
ModelRow cpu_row(const char* preset_name, of_dis_preset_id preset, int steps, of_backend backend, const HostFrames& f,
                 int w, int h) {
    ModelRow r;
    of_config c = start_row("cpu", backend == OF_BACKEND_NEON ? "neon" : "ref", preset_name, preset, steps,
                            OF_PRECISION_F32, w, h, &r);
    c.backend = backend;
    c.threads = 1;
    explain_row(c, &r);
    r.ok = time_host_frames(c, f, 3, 3, &r.ms);
    return r;
}

// Whether of_create takes OF_BACKEND_NEON for DIS in this build (the NEON kernels, on x86-64
// through SIMDe); *why: of_last_error when it does not.
bool neon_in_build(std::string* why) {
    of_config c = dis_config(OF_DIS_MEDIUM, 160, 120);
    c.backend = OF_BACKEND_NEON;
    c.precision = OF_PRECISION_F32;
    c.threads = 1;
    of_context* ctx = nullptr;
    const of_status s = of_create(&c, &ctx);
    if (s == OF_OK) {
        of_destroy(ctx);
        return true;
    }
    *why = std::string(of_status_string(s)) + ": " + of_last_error(nullptr);
    return false;
}

// The rows file, as bench::json_rows writes it ({"copy_gbps": ..., "rows": [...]}), in every build.
void write_json(const char* path, double copy_gbps, const std::vector<Row>& rows, const std::vector<ModelRow>& model) {
    FILE* fp = std::fopen(path, "w");
    if (!fp) {
        std::fprintf(stderr, "oflow-bench --dis: cannot write %s\n", path);
        return;
    }
    std::fprintf(fp, "{\n  \"copy_gbps\": %.2f,\n  \"rows\": [\n", copy_gbps);
    const std::size_t n = rows.size() + model.size();
    for (std::size_t i = 0; i < n; ++i) {
        std::fprintf(fp, "    ");
        if (i < rows.size()) {
            const Row& r = rows[i];
            std::fprintf(fp,
                         "{\"section\": \"presets\", \"w\": %d, \"h\": %d, \"preset\": \"%s\", \"global_ms\": %.5f, "
                         "\"fused_ms\": %.5f, \"fused_f16_ms\": %.5f, \"bytes_per_px\": %.2f, \"copy_share\": %.4f}",
                         r.w, r.h, r.preset, r.global_ms, r.fused_ms, r.fused16_ms, r.bytes_px, r.share / 100.0);
        } else {
            const ModelRow& r = model[i - rows.size()];
            std::fprintf(fp,
                         "{\"section\": \"%s\", \"variant\": \"%s\", \"precision\": \"%s\", \"preset\": \"%s\", "
                         "\"w\": %d, \"h\": %d, \"ok\": %s, \"ms\": %.4f, \"levels\": %d, \"steps\": %d, "
                         "\"launches\": %.0f, \"work_px\": %.0f, \"refine_px\": %.0f, \"predicted_ms\": %.4f, "
                         "\"budget_ms\": %.2f}",
                         r.section.c_str(), r.variant.c_str(), r.prec.c_str(), r.preset.c_str(), r.w, r.h,
                         r.ok ? "true" : "false", r.ms, r.levels, r.steps, r.launches, r.work_px, r.refine_px, r.predicted,
                         r.budget);
        }
        std::fprintf(fp, "%s\n", i + 1 < n ? "," : "");
    }
    std::fprintf(fp, "  ]\n}\n");
    std::fclose(fp);
}

#if OF_BENCH_CUDA

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

// A GPU row of section (b): FUSED at prec, device U8 frames and flow.
ModelRow model_row(const char* preset_name, of_dis_preset_id preset, int steps, of_precision prec, int w, int h) {
    ModelRow r;
    of_config c = start_row("model", "fused", preset_name, preset, steps, prec, w, h, &r);
    explain_row(c, &r);
    bench::U8Frames f(w, h);
    const int frames = w * h >= 640 * 480 ? 20 : 50, reps = 7;
    r.ok = f.ok && bench::time_device_frames(c, f, frames, reps, &r.ms);
    return r;
}

// Whether the machine has a CUDA device (bench::part_start prints the device and measures the
// copy bandwidth only then).
bool have_cuda_device() {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

#endif // OF_BENCH_CUDA

struct Size {
    int w, h;
};

} // namespace

int run_dis_bench(int argc, char** argv) {
    bench::PartOptions o;
    if (!bench::part_options(argc, argv, "--dis", &o)) return 2;
    std::vector<Row> rows;
    std::vector<ModelRow> model;
    double copy = 0.0;
#if OF_BENCH_CUDA
    const bool gpu = have_cuda_device();
    if (gpu) {
        copy = bench::part_start("--dis", o.smoke);
        if (copy < 0) return 0;
    } else {
        std::printf("oflow-bench --dis: no CUDA device: sections (a), (b)'s GPU rows and (c) skipped; (b)'s CPU rows "
                    "only\n");
    }
#else
    const bool gpu = false;
    std::printf("oflow-bench --dis: this build has no CUDA: sections (a), (b)'s GPU rows and (c) skipped; (b)'s CPU "
                "rows only\n");
#endif
    const of_dis_preset_id presets[3] = {OF_DIS_ULTRAFAST, OF_DIS_FAST, OF_DIS_MEDIUM};
    const char* names[3] = {"ULTRAFAST", "FAST", "MEDIUM"};
#if OF_BENCH_CUDA
    static const Size kAll[3] = {{1920, 1080}, {1280, 720}, {640, 480}};
    static const Size kSmoke[1] = {{160, 120}};
    const Size* sizes = o.smoke ? kSmoke : kAll;
    const int nsizes = !gpu ? 0 : o.smoke || o.quick ? 1 : 3;
    const int frames = o.smoke ? 2 : 20, reps = o.smoke ? 1 : 7;
    if (gpu)
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
    if (gpu) {
        std::printf("\n(b) frame model: whole frames, device U8 frames and flow, FUSED; 'table': of_explain's "
                    "predicted_ms (the table's DIS rows)\n");
        const std::vector<Size> msizes =
            o.smoke ? std::vector<Size>{{160, 120}}
                    : std::vector<Size>{{160, 120}, {320, 240}, {640, 480}, {1280, 720}, {1920, 1080}};
        for (of_precision p : {OF_PRECISION_F32, OF_PRECISION_F16})
            for (const Size& z : msizes) {
                for (int steps : {4, 25}) {
                    model.push_back(model_row("MEDIUM", OF_DIS_MEDIUM, steps, p, z.w, z.h));
                    print_model(model.back());
                }
                for (int k = 0; k < 2; ++k) {
                    model.push_back(model_row(names[k], presets[k], 0, p, z.w, z.h));
                    print_model(model.back());
                }
            }
    }
#endif
    // (b) the CPU paths: ref (and neon where the build has it) on the same sizes, presets, steps.
    std::string no_neon;
    const bool neon = neon_in_build(&no_neon);
    if (!gpu)
        std::printf("\n(b) frame model, the CPU rows; 'table': of_explain's predicted_ms (the table's DIS CPU row)\n");
    std::printf("  the CPU paths (host frames, 1 thread; the table's CPU row is fitted to these)%s: ref = the "
                "reference path (OF_BACKEND_REFERENCE)%s\n",
                gpu ? ", beside FUSED F32 for the crossover" : "",
                neon ? ", neon = the NEON kernels (OF_BACKEND_NEON); ref/neon = ref ms / neon ms" : "");
    if (!neon) std::printf("  no neon rows: OF_BACKEND_NEON: %s\n", no_neon.c_str());
    struct Pair {
        int ref, neon; // indices into model, -1: none
    };
    std::vector<Pair> pairs;
    const std::vector<Size> csizes = o.smoke ? std::vector<Size>{{160, 120}}
                                             : std::vector<Size>{{80, 60}, {160, 120}, {320, 240}, {640, 480}};
    for (const Size& z : csizes) {
#if OF_BENCH_CUDA
        if (gpu) {
            model.push_back(model_row("MEDIUM", OF_DIS_MEDIUM, 0, OF_PRECISION_F32, z.w, z.h));
            print_model(model.back());
        }
#endif
        const HostFrames hf(z.w, z.h);
        auto both = [&](const char* name, of_dis_preset_id preset, int steps) {
            Pair p{-1, -1};
            model.push_back(cpu_row(name, preset, steps, OF_BACKEND_REFERENCE, hf, z.w, z.h));
            p.ref = static_cast<int>(model.size()) - 1;
            print_model(model.back());
            if (neon) {
                const ModelRow r = cpu_row(name, preset, steps, OF_BACKEND_NEON, hf, z.w, z.h);
                model.push_back(r);
                p.neon = static_cast<int>(model.size()) - 1;
                const ModelRow& ref = model[static_cast<std::size_t>(p.ref)];
                char tail[48] = "";
                if (ref.ok && r.ok && r.ms > 0) std::snprintf(tail, sizeof tail, "  ref/neon %5.2fx", ref.ms / r.ms);
                print_model(r, tail);
            }
            pairs.push_back(p);
        };
        for (int steps : {4, 25}) both("MEDIUM", OF_DIS_MEDIUM, steps);
        for (int k = 0; k < 2 && !o.smoke; ++k) both(names[k], presets[k], 0);
    }
    if (neon) {
        std::printf("  side by side, ms per frame (1 thread):\n  %-9s %-9s %3s %5s %10s %10s %9s\n", "size", "preset",
                    "lev", "steps", "ref ms", "neon ms", "ref/neon");
        for (const Pair& p : pairs) {
            const ModelRow& a = model[static_cast<std::size_t>(p.ref)];
            const ModelRow& b = model[static_cast<std::size_t>(p.neon)];
            char size[24];
            std::snprintf(size, sizeof size, "%dx%d", a.w, a.h);
            std::printf("  %-9s %-9s %3d %5d %10.3f %10.3f %8.2fx%s\n", size, a.preset.c_str(), a.levels, a.steps, a.ms,
                        b.ms, a.ok && b.ok && b.ms > 0 ? a.ms / b.ms : 0.0, a.ok && b.ok ? "" : "  (failed)");
        }
    }

#if OF_BENCH_CUDA
    // (c) the time budget
    if (gpu) {
        const int bw = o.smoke ? 160 : 1920, bh = o.smoke ? 120 : 1080;
        std::printf("\n(c) time budget: %dx%d, MEDIUM's geometry, the table's variant and precision; measured ms per "
                    "frame against the budget\n",
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
                std::printf("  budget %4.1f ms: refused, %s: %s\n", budget, of_status_string(es),
                            of_last_error(nullptr));
                continue;
            }
            explain_row(c, &r);
            bench::U8Frames bf(bw, bh);
            r.ok = bf.ok && bench::time_device_frames(c, bf, o.smoke ? 2 : 20, o.smoke ? 1 : 7, &r.ms);
            std::printf("  budget %4.1f ms: %d levels x %3d steps (%s %s), table %6.3f ms, measured %6.3f ms (%+5.1f %% of "
                        "the budget)%s\n",
                        budget, r.levels, r.steps, in.variant, in.precision == OF_PRECISION_F16 ? "F16" : "F32",
                        r.predicted, r.ms, r.ok ? 100.0 * (r.ms / budget - 1.0) : 0.0, r.ok ? "" : "  (failed)");
            model.push_back(r);
        }
    }
#endif

    if (o.json) write_json(o.json, copy, rows, model);
    return 0;
}
