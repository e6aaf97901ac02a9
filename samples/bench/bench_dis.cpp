// oflow-bench --dis [--quick] [--smoke] [--json FILE]: Dense Inverse Search on CUDA, whole frames
// (U8 device frames, planar device flow: no host wait inside of_process) at 1920x1080, 1280x720
// and 640x480 for the presets ULTRAFAST, FAST and MEDIUM: ms per frame of the optimised variant
// (FUSED, F32 and F16) beside the GLOBAL baseline (a thread per patch) in the same run, their
// ratio, the bytes a frame must move per pixel (dis_bytes below) and what that makes of the
// device's copy bandwidth, measured in the same run (bench::part_start). --quick: 1920x1080 only;
// --smoke: 160x120, one repetition (CI's check that the part runs).
#include "samples/bench/bench_dis.hpp"
#include "samples/bench/bench_util.hpp"

#include "core/dis_kernels.hpp"
#include "core/plan.hpp"

#include <cstdio>
#include <cstring>
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
    std::printf("%-10s %-9s %10s %10s %10s %7s %8s %7s\n", "size", "preset", "GLOBAL ms", "FUSED ms", "FUSED16 ms", "ratio",
                "B/px", "copy%");
    for (int si = 0; si < nsizes; ++si) {
        const Size& s = sizes[si];
        bench::U8Frames f(s.w, s.h);
        if (!f.ok) return 1;
        for (int k = 0; k < 3; ++k) {
            of_config c;
            std::memset(&c, 0, sizeof c);
            of_config_init(&c, OF_ALGO_DIS);
            of_dis_preset(&c, presets[k]);
            c.max_width = static_cast<uint32_t>(s.w);
            c.max_height = static_cast<uint32_t>(s.h);
            c.backend = OF_BACKEND_CUDA;
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
    if (o.json)
        bench::json_rows(o.json, "--dis", copy, rows.size(), [&](FILE* fp, std::size_t i) {
            const Row& r = rows[i];
            std::fprintf(fp,
                         "{\"w\": %d, \"h\": %d, \"preset\": \"%s\", \"global_ms\": %.5f, \"fused_ms\": %.5f, "
                         "\"fused_f16_ms\": %.5f, \"bytes_per_px\": %.2f, \"copy_share\": %.4f}",
                         r.w, r.h, r.preset, r.global_ms, r.fused_ms, r.fused16_ms, r.bytes_px, r.share / 100.0);
        });
    return 0;
}

#else

int run_dis_bench(int, char**) {
    std::printf("oflow-bench --dis: this build has no CUDA\n");
    return 0;
}

#endif
