// oflow-bench --stream: camera streams (of_push_frame) at 1920x1080 on the CUDA path, in one run,
// every figure beside the plain pairwise F32 run of the same I/O (TV-L1, 3 levels, 1 warp, 10
// iterations, epsilon 0 so that every frame does the same work, U8 frames, planar F32 flow):
//  (a) the transfer floor: pinned host<->device bandwidth (16 MiB cudaMemcpyAsync, median of 9)
//      and host memcpy bandwidth, measured here; a frame's floor is its bytes over them;
//  (b) pairwise (of_process) vs stream (of_push_frame) with frames and flow in device memory,
//      in ordinary (pageable) host memory and in registered host memory (of_register_host): ms per
//      frame (median of 5 runs of 20 frames after 2 warm-up frames; device I/O: CUDA events,
//      host I/O: wall time, the call waits), the overhead outside the device-memory stream and
//      the registered target: within 1.3x of (device-memory stream + transfer floor);
//  (c) cold vs warm start (config.warm_start) on the camera-path sequence (core/synth_sequence,
//      1920x1080, 6 frames): ms per frame and mean EPE at 10 iterations, and the iterations the
//      cold start needs for the warm start's EPE (10, 20, 40 tried): EPE at equal time and time
//      at equal EPE; then the cold 10-iteration row under each robust mode (local-norm, none,
//      level-norm, pick), the default's among them;
//  (d) the flow's output format (of_flow.format F32, F16, S10.5) with host output: ms per frame;
//  (e) the arenas: host, device and stream bytes of F32 and F16 at 3 levels and automatic levels,
//      warm start off and on (of_explain).
// Usage: oflow-bench --stream [--quick] [--smoke] [--json FILE] [--profile (only the pageable runs of (b))]
#include "oflow.h"
#include "samples/bench/bench_stream.hpp"
#include "samples/bench/bench_util.hpp"

#include "core/robust.hpp"
#include "core/synth_sequence.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#if !OF_BENCH_CUDA

int run_stream_bench(int, char**) {
    std::printf("oflow-bench --stream: this build has no CUDA backend\n");
    return 0;
}

#else

namespace {

enum class Io { Device, Pageable, Registered };
const char* io_name(Io io) { return io == Io::Device ? "device" : io == Io::Pageable ? "pageable" : "registered"; }

struct Row {
    std::string what;
    double ms = 0, ratio = 0, extra = 0;
};

of_config base_config(int w, int h) {
    of_config c;
    of_config_init(&c, OF_ALGO_TVL1);
    c.max_width = static_cast<uint32_t>(w);
    c.max_height = static_cast<uint32_t>(h);
    c.backend = OF_BACKEND_CUDA;
    c.precision = OF_PRECISION_F32;
    c.levels = 3;
    c.warps = 1;
    c.iterations = 10;
    c.epsilon = 0.0f;
    return c;
}

of_robust default_robust() {
    of_config c;
    of_config_init(&c, OF_ALGO_TVL1);
    return c.robust;
}

// Host buffers for frames and flow: pageable vectors, optionally registered with the context.
struct HostIo {
    std::vector<unsigned char> f[2];
    std::vector<float> u, v;
};

// ms per frame of `frames` frames (pairs alternate f0 -> f1 and f1 -> f0 in stream mode, so every
// push is a new frame), median of reps; false on a failure (printed).
bool time_mode(of_config c, bool stream, Io io, of_flow_format fmt, const bench::U8Frames& dev, HostIo* host, int frames,
               int reps, double* ms) {
    const int w = static_cast<int>(c.max_width), h = static_cast<int>(c.max_height);
    c.format = OF_PIXEL_U8;
    c.cuda_stream = dev.stream;
    of_context* ctx = nullptr;
    if (of_create(&c, &ctx) != OF_OK) {
        std::fprintf(stderr, "oflow-bench --stream: of_create: %s\n", of_last_error(nullptr));
        return false;
    }
    const bool on_host = io != Io::Device;
    const std::size_t px = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    const std::size_t eb = fmt == OF_FLOW_FORMAT_F32 ? 4u : 2u;
    bool ok = true;
    if (io == Io::Registered) {
        ok = of_register_host(ctx, host->f[0].data(), px) == OF_OK && of_register_host(ctx, host->f[1].data(), px) == OF_OK &&
             of_register_host(ctx, host->u.data(), px * 4) == OF_OK && of_register_host(ctx, host->v.data(), px * 4) == OF_OK;
        if (!ok) std::fprintf(stderr, "oflow-bench --stream: of_register_host: %s\n", of_last_error(ctx));
    }
    of_image img[2];
    for (int i = 0; i < 2; ++i) {
        std::memset(&img[i], 0, sizeof img[i]);
        img[i].struct_size = sizeof img[i];
        img[i].format = OF_PIXEL_U8;
        img[i].memory = on_host ? OF_MEMORY_HOST : OF_MEMORY_CUDA_DEVICE;
        img[i].width = static_cast<uint32_t>(w);
        img[i].height = static_cast<uint32_t>(h);
        img[i].stride = static_cast<std::size_t>(w);
        img[i].data = on_host ? static_cast<const void*>(host->f[i].data()) : dev.dev.f[i];
    }
    of_flow out = bench::planar_flow(w, h, on_host ? OF_MEMORY_HOST : OF_MEMORY_CUDA_DEVICE, eb, fmt,
                                    on_host ? host->u.data() : dev.dev.u,
                                    on_host ? host->v.data() : dev.dev.v);
    int n = 0;
    auto one = [&]() {
        of_status s;
        if (stream) {
            s = of_push_frame(ctx, &img[n & 1], &out);
            if (s == OF_PENDING) s = of_push_frame(ctx, &img[++n & 1], &out);
        } else {
            s = of_process(ctx, &img[0], &img[1], &out);
        }
        ++n;
        return s == OF_OK;
    };
    for (int i = 0; i < 2 && ok; ++i) ok = one();
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<double> per;
    cudaStreamSynchronize(dev.stream);
    for (int r = 0; r < reps && ok; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        cudaEventRecord(e0, dev.stream);
        for (int i = 0; i < frames && ok; ++i) ok = one();
        cudaEventRecord(e1, dev.stream);
        cudaEventSynchronize(e1);
        float ev = 0.0f;
        cudaEventElapsedTime(&ev, e0, e1);
        const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        per.push_back((on_host ? wall : static_cast<double>(ev)) / frames);
    }
    if (!ok) std::fprintf(stderr, "oflow-bench --stream: %s: %s\n", stream ? "of_push_frame" : "of_process", of_last_error(ctx));
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (io == Io::Registered)
        for (const void* p : {static_cast<const void*>(host->f[0].data()), static_cast<const void*>(host->f[1].data()),
                              static_cast<const void*>(host->u.data()), static_cast<const void*>(host->v.data())})
            (void)of_unregister_host(ctx, p);
    of_destroy(ctx);
    *ms = bench::median(per);
    return ok;
}

// Pinned copy bandwidth (GB/s) of `bytes` in direction kind, median of 9 after 2 warm-ups.
double pinned_gbps(std::size_t bytes, cudaMemcpyKind kind, cudaStream_t s) {
    void* h = nullptr;
    void* d = nullptr;
    if (cudaMallocHost(&h, bytes) != cudaSuccess || cudaMalloc(&d, bytes) != cudaSuccess) return 0.0;
    std::memset(h, 1, bytes);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<double> t;
    for (int i = 0; i < 11; ++i) {
        cudaEventRecord(a, s);
        if (kind == cudaMemcpyHostToDevice)
            cudaMemcpyAsync(d, h, bytes, kind, s);
        else
            cudaMemcpyAsync(h, d, bytes, kind, s);
        cudaEventRecord(b, s);
        cudaEventSynchronize(b);
        float ms = 0.0f;
        cudaEventElapsedTime(&ms, a, b);
        if (i >= 2) t.push_back(static_cast<double>(bytes) / (static_cast<double>(ms) * 1e6));
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaFreeHost(h);
    cudaFree(d);
    return bench::median(t);
}

double memcpy_gbps(std::size_t bytes) {
    std::vector<unsigned char> a(bytes, 1), b(bytes, 2);
    std::vector<double> t;
    for (int i = 0; i < 11; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        std::memcpy(b.data(), a.data(), bytes);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (i >= 2) t.push_back(static_cast<double>(bytes) / (ms * 1e6));
    }
    return bench::median(t);
}

// Mean EPE over pairs 0..frames-2 of the camera-path sequence (host frames and flow), and ms per
// pair (wall).
bool sequence_epe(of_config c, const std::vector<std::vector<unsigned char>>& frames,
                  const std::vector<std::vector<float>>& gt, double* epe, double* ms, int* taken) {
    const int w = static_cast<int>(c.max_width), h = static_cast<int>(c.max_height);
    c.format = OF_PIXEL_U8;
    of_context* ctx = nullptr;
    if (of_create(&c, &ctx) != OF_OK) return false;
    const std::size_t px = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    std::vector<float> u(px), v(px);
    of_flow out = bench::planar_flow(w, h, OF_MEMORY_HOST, 4, OF_FLOW_FORMAT_F32, u.data(), v.data());
    double sum = 0.0, t = 0.0;
    int pairs = 0;
    *taken = 0;
    bool ok = true;
    for (std::size_t k = 0; k < frames.size() && ok; ++k) {
        of_image img;
        std::memset(&img, 0, sizeof img);
        img.struct_size = sizeof img;
        img.format = OF_PIXEL_U8;
        img.memory = OF_MEMORY_HOST;
        img.width = out.width;
        img.height = out.height;
        img.stride = static_cast<std::size_t>(w);
        img.data = frames[k].data();
        const auto t0 = std::chrono::steady_clock::now();
        const of_status s = of_push_frame(ctx, &img, &out);
        const double dt = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        ok = s == (k == 0 ? OF_PENDING : OF_OK);
        if (k == 0 || !ok) continue;
        const std::vector<float>& g = gt[k - 1];
        double e = 0.0;
        for (std::size_t i = 0; i < px; ++i) e += std::hypot(u[i] - g[i], v[i] - g[px + i]);
        sum += e / static_cast<double>(px);
        of_info in;
        in.struct_size = sizeof in;
        if (of_get_info(ctx, &in) == OF_OK && in.last_warm == 1) ++*taken;
        t += dt;
        ++pairs;
    }
    of_destroy(ctx);
    *epe = pairs ? sum / pairs : 0.0;
    *ms = pairs ? t / pairs : 0.0;
    return ok;
}

} // namespace

int run_stream_bench(int argc, char** argv) {
    // --profile: only the pageable pairwise and stream runs of (b), for a profiler (nsys) to see
    // where a host round trip's time goes.
    bool profile = false;
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--profile"))
            profile = true;
        else
            args.push_back(argv[i]);
    }
    bench::PartOptions o;
    if (!bench::part_options(static_cast<int>(args.size()), args.data(), "--stream", &o)) return 2;
    const double copy = bench::part_start("--stream", o.smoke);
    if (copy < 0) return 0;
    const int w = o.smoke ? 320 : 1920, h = o.smoke ? 240 : 1080;
    const int frames = o.smoke ? 3 : 20, reps = o.smoke ? 2 : 5;
    bench::U8Frames dev(w, h);
    if (!dev.ok) return 1;
    const std::size_t px = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    HostIo host;
    host.f[0] = dev.f0;
    host.f[1] = dev.f1;
    host.u.assign(px, 0.0f);
    host.v.assign(px, 0.0f);
    std::vector<Row> rows;

    if (profile) {
        double ms[2] = {0, 0};
        const of_config pc = base_config(w, h);
        for (int stream = 0; stream < 2; ++stream)
            if (!time_mode(pc, stream != 0, Io::Pageable, OF_FLOW_FORMAT_F32, dev, &host, frames, 1, &ms[stream])) return 1;
        std::printf("--profile: pageable pairwise %.3f ms, stream %.3f ms per frame\n", ms[0], ms[1]);
        return 0;
    }

    // (a) the floor.
    const double up = pinned_gbps(16u << 20, cudaMemcpyHostToDevice, dev.stream);
    const double down = pinned_gbps(16u << 20, cudaMemcpyDeviceToHost, dev.stream);
    const double mc = memcpy_gbps(16u << 20);
    std::printf("(a) transfer floor: pinned upload %.2f GB/s, download %.2f GB/s; host memcpy %.2f GB/s\n", up, down, mc);
    const auto floor_ms = [&](std::size_t frame_bytes, std::size_t flow_bytes) {
        return static_cast<double>(frame_bytes) / (up * 1e6) + static_cast<double>(flow_bytes) / (down * 1e6);
    };
    rows.push_back({"floor pinned upload GB/s", up, 0, 0});
    rows.push_back({"floor pinned download GB/s", down, 0, 0});

    // (b) pairwise vs stream, device / pageable / registered.
    const of_config c = base_config(w, h);
    std::printf("(b) %dx%d, TV-L1 F32, 3 levels, 1 warp, 10 iterations, epsilon 0, U8 frames, planar F32 flow:\n", w, h);
    std::printf("    %-11s %-9s %9s %9s %11s %10s %9s\n", "memory", "mode", "ms/frame", "x pair", "overhead ms", "floor ms",
                "x target");
    double dev_stream = 0.0, base[3] = {0, 0, 0};
    bool fail = false;
    for (Io io : {Io::Device, Io::Pageable, Io::Registered}) {
        for (int stream = 0; stream < 2; ++stream) {
            double ms = 0.0;
            if (!time_mode(c, stream != 0, io, OF_FLOW_FORMAT_F32, dev, &host, frames, reps, &ms)) {
                fail = true;
                continue;
            }
            const int k = static_cast<int>(io);
            if (!stream) base[k] = ms;
            if (io == Io::Device && stream) dev_stream = ms;
            // Bytes across PCIe: host frames up (both pairwise, one in a stream), the flow down.
            const std::size_t up_bytes = io == Io::Device ? 0 : px * (stream ? 1u : 2u);
            const std::size_t down_bytes = io == Io::Device ? 0 : px * 8u;
            const double fl = floor_ms(up_bytes, down_bytes);
            const double target = dev_stream + fl;
            const double overhead = io == Io::Device ? 0.0 : ms - dev_stream;
            std::printf("    %-11s %-9s %9.3f %9.3f %11.3f %10.3f %9.3f\n", io_name(io), stream ? "stream" : "pairwise", ms,
                        ms / base[k], overhead, fl, io == Io::Device ? 1.0 : ms / target);
            rows.push_back({std::string(io_name(io)) + (stream ? " stream" : " pairwise"), ms, ms / base[k], fl});
        }
    }
    // The copies out of the staging on the context's threads (config.threads 4).
    for (Io io : {Io::Pageable}) {
        of_config t4 = c;
        t4.threads = 4;
        for (int stream = 0; stream < 2; ++stream) {
            double ms = 0.0;
            if (!time_mode(t4, stream != 0, io, OF_FLOW_FORMAT_F32, dev, &host, frames, reps, &ms)) {
                fail = true;
                continue;
            }
            const double fl = floor_ms(px * (stream ? 1u : 2u), px * 8u);
            std::printf("    %-11s %-9s %9.3f %9.3f %11.3f %10.3f %9.3f\n", "pageable 4t", stream ? "stream" : "pairwise", ms,
                        ms / base[1], ms - dev_stream, fl, ms / (dev_stream + fl));
            rows.push_back({std::string("pageable 4 threads") + (stream ? " stream" : " pairwise"), ms, ms / base[1], fl});
        }
    }
    std::printf("    pageable 4t: config.threads 4 (the staging copies on 4 threads); x pair against 1 thread's pairwise\n");
    std::printf("    x pair: against the pairwise run of the same memory; overhead: minus the device-memory stream;\n"
                "    x target: ms / (device-memory stream + floor) (the registered target: <= 1.3)\n");

    // (c) cold vs warm on the camera-path sequence, at the bench's size and at 640x360.
    const auto warm_rows = [&](int sw, int sh) {
        const std::size_t spx = static_cast<std::size_t>(sw) * static_cast<std::size_t>(sh);
        const int seq_frames = o.smoke ? 3 : 6;
        std::vector<std::vector<unsigned char>> seq(static_cast<std::size_t>(seq_frames));
        const auto g0 = std::chrono::steady_clock::now();
        std::vector<std::vector<float>> gt(static_cast<std::size_t>(seq_frames - 1));
        {
            std::vector<float> f(spx);
            for (int k = 0; k < seq_frames; ++k) {
                oflow::synth::sequence_frame(oflow::synth::Sequence::CameraPath, sw, sh, 1, k, f.data(), sw);
                seq[static_cast<std::size_t>(k)].resize(spx);
                for (std::size_t i = 0; i < spx; ++i) seq[static_cast<std::size_t>(k)][i] = static_cast<unsigned char>(f[i] + 0.5f);
                if (k + 1 < seq_frames) {
                    std::vector<float>& g = gt[static_cast<std::size_t>(k)];
                    g.resize(2 * spx);
                    oflow::synth::sequence_flow(oflow::synth::Sequence::CameraPath, sw, sh, 1, k, g.data(), g.data() + spx, sw);
                }
            }
        }
        std::printf("    (the sequence: %.1f s to generate)\n",
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count());
        // Automatic levels here: at 1080p with 3 levels the coarsest (480x270) sees up to ~4 px of the
        // camera path's rotation and zoom, beyond what one warp of 10 iterations resolves (EPE ~9 px
        // cold and warm alike, measured), so the comparison says nothing.
        std::printf("(c) cold vs warm start, camera-path sequence %dx%d, %d pairs, automatic levels, 1 warp, host frames and "
                    "flow (stream):\n",
                    sw, sh, seq_frames - 1);
        std::printf("    %-6s %6s %10s %10s %6s\n", "start", "iters", "EPE", "ms/pair", "taken");
        double warm_epe = 0.0;
        for (int warm = 1; warm >= 0; --warm) {
            for (uint32_t it : {5u, 10u, 20u, 40u}) {
                if (warm && it > 10) continue;
                of_config cc = base_config(sw, sh);
                cc.levels = 0;
                cc.iterations = it;
                cc.warm_start = static_cast<uint32_t>(warm);
                double e = 0.0, ms = 0.0;
                int taken = 0;
                if (!sequence_epe(cc, seq, gt, &e, &ms, &taken)) {
                    fail = true;
                    continue;
                }
                if (warm && it == 10) warm_epe = e;
                std::printf("    %-6s %6u %10.4f %10.3f %6d%s\n", warm ? "warm" : "cold", it, e, ms, taken,
                            !warm && warm_epe > 0 && e <= warm_epe ? "   (<= warm at 10)" : "");
                rows.push_back({std::to_string(sw) + "x" + std::to_string(sh) + (warm ? " warm" : " cold") + " iters " +
                                    std::to_string(it),
                                ms, e, static_cast<double>(taken)});
            }
        }
        // The robust modes at the 10-iteration cold row, the default's among them (docs/accuracy.md
        // section 13: the large motions of the camera path against the light-change invariance).
        std::printf("    cold, 10 iterations, per robust mode (the default: %s):\n", oflow::robust_mode_name(default_robust()));
        for (of_robust r : {OF_ROBUST_LOCAL_NORM, OF_ROBUST_NONE, OF_ROBUST_LEVEL_NORM, OF_ROBUST_PICK}) {
            of_config cc = base_config(sw, sh);
            cc.levels = 0;
            cc.robust = r;
            double e = 0.0, ms = 0.0;
            int taken = 0;
            if (!sequence_epe(cc, seq, gt, &e, &ms, &taken)) {
                fail = true;
                continue;
            }
            std::printf("    %-12s %10.4f %10.3f\n", oflow::robust_mode_name(r), e, ms);
            rows.push_back({std::to_string(sw) + "x" + std::to_string(sh) + " cold iters 10 robust " + oflow::robust_mode_name(r), ms, e, 0.0});
        }
    };
    warm_rows(w, h);
    if (!o.smoke) warm_rows(640, 360);
    double tc = 0, tw = 0;
    of_config cold = c, warmc = c;
    cold.levels = warmc.levels = 0;
    warmc.warm_start = 1;
    if (time_mode(cold, true, Io::Device, OF_FLOW_FORMAT_F32, dev, &host, frames, reps, &tc) &&
        time_mode(warmc, true, Io::Device, OF_FLOW_FORMAT_F32, dev, &host, frames, reps, &tw))
        std::printf("    device-memory stream, automatic levels, 10 iterations: cold %.3f ms, warm %.3f ms per frame (x %.3f)\n",
                    tc, tw, tw / tc);

    // (d) output formats.
    std::printf("(d) flow output format, stream, %s memory:\n", "pageable and registered");
    for (Io io : {Io::Pageable, Io::Registered}) {
        double f32 = 0.0;
        for (of_flow_format f : {OF_FLOW_FORMAT_F32, OF_FLOW_FORMAT_F16, OF_FLOW_FORMAT_S10_5}) {
            double ms = 0.0;
            if (!time_mode(c, true, io, f, dev, &host, frames, reps, &ms)) {
                fail = true;
                continue;
            }
            if (f == OF_FLOW_FORMAT_F32) f32 = ms;
            const char* name = f == OF_FLOW_FORMAT_F32 ? "f32" : f == OF_FLOW_FORMAT_F16 ? "f16" : "s10.5";
            std::printf("    %-11s %-6s %9.3f ms  x %.3f\n", io_name(io), name, ms, ms / f32);
            rows.push_back({std::string(io_name(io)) + " out " + name, ms, ms / f32, 0});
        }
    }

    // (e) arenas.
    std::printf("(e) arenas at %dx%d (of_explain):\n    %-9s %-7s %-5s %12s %12s %12s %12s\n", w, h, "precision", "levels",
                "warm", "host", "device", "stream host", "stream dev");
    for (of_precision p : {OF_PRECISION_F32, OF_PRECISION_F16})
        for (uint32_t lv : {3u, 0u})
            for (uint32_t warm : {0u, 1u}) {
                of_config e = c;
                e.precision = p;
                e.levels = lv;
                e.warm_start = warm;
                of_info in;
                in.struct_size = sizeof in;
                if (of_explain(&e, &in) != OF_OK) {
                    fail = true;
                    continue;
                }
                std::printf("    %-9s %-7s %-5s %12zu %12zu %12zu %12zu\n", p == OF_PRECISION_F32 ? "f32" : "f16",
                            lv ? "3" : "auto", warm ? "on" : "off", in.host_bytes, in.device_bytes, in.stream_host_bytes,
                            in.stream_device_bytes);
                rows.push_back({std::string("arena ") + (p == OF_PRECISION_F32 ? "f32" : "f16") + (lv ? " 3" : " auto") +
                                    (warm ? " warm" : ""),
                                static_cast<double>(in.device_bytes), static_cast<double>(in.host_bytes), 0});
            }
    if (o.json)
        bench::json_rows(o.json, "--stream", copy, rows.size(), [&](FILE* f, std::size_t i) {
            std::fprintf(f, "{\"what\":\"%s\",\"value\":%.6g,\"ratio\":%.6g,\"extra\":%.6g}", rows[i].what.c_str(),
                         rows[i].ms, rows[i].ratio, rows[i].extra);
        });
    return fail ? 1 : 0;
}

#endif
