// oflow-bench's shared helpers (bench_util.hpp).
#include "samples/bench/bench_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <chrono>
#include <cstring>

#if OF_BENCH_CUDA
#include "core/context.hpp"
#include "cuda/cuda_bench.hpp"

#include <cuda_runtime_api.h>
#endif

namespace bench {

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Textured frames for any size (the synthetic cases of core/synth cost microseconds per pixel):
// sinusoids and a slow chirp, the second frame shifted by (1.3, -0.7) px.
void texture(int w, int h, std::vector<float>* i0, std::vector<float>* i1) {
    const size_t n = static_cast<size_t>(w) * static_cast<size_t>(h);
    i0->resize(n);
    i1->resize(n);
    auto tex = [](double x, double y) {
        const double v = 128.0 + 50.0 * std::sin(0.31 * x + 0.17 * y) + 40.0 * std::cos(0.07 * x - 0.23 * y) +
                         20.0 * std::sin(0.011 * x * y / (1.0 + 0.001 * (x + y)));
        return static_cast<float>(v < 0.0 ? 0.0 : (v > 255.0 ? 255.0 : v));
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const size_t k = static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x);
            (*i0)[k] = tex(x, y);
            (*i1)[k] = tex(x - 1.3, y + 0.7);
        }
}

bool part_options(int argc, char** argv, const char* flag, PartOptions* o) {
    for (int i = 0; i < argc; ++i) {
        if (!std::strcmp(argv[i], flag)) continue;
        if (!std::strcmp(argv[i], "--quick")) {
            o->quick = true;
        } else if (!std::strcmp(argv[i], "--smoke")) {
            o->smoke = true;
        } else if (!std::strcmp(argv[i], "--json") && i + 1 < argc) {
            o->json = argv[++i];
        } else {
            std::fprintf(stderr, "usage: oflow-bench %s [--quick] [--smoke] [--json FILE]\n", flag);
            return false;
        }
    }
    return true;
}

#if OF_BENCH_CUDA

bool cuda_ok(int e, const char* what) {
    if (e == static_cast<int>(cudaSuccess)) return true;
    std::fprintf(stderr, "oflow-bench: %s: %s\n", what, cudaGetErrorString(static_cast<cudaError_t>(e)));
    return false;
}

double copy_bandwidth(size_t bytes, int reps) {
    void *a = nullptr, *b = nullptr;
    if (!cuda_ok(cudaMalloc(&a, bytes), "cudaMalloc") || !cuda_ok(cudaMalloc(&b, bytes), "cudaMalloc")) {
        cudaFree(a);
        return 0.0;
    }
    cudaMemset(a, 1, bytes);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<double> gbps;
    for (int i = 0; i < reps + 2; ++i) {
        cudaEventRecord(e0);
        cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms = 0.0f;
        cudaEventElapsedTime(&ms, e0, e1);
        if (i >= 2) gbps.push_back(2.0 * static_cast<double>(bytes) / (static_cast<double>(ms) * 1e-3) / 1e9);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(a);
    cudaFree(b);
    return median(gbps);
}


of_flow planar_flow(int w, int h, of_memory_kind memory, std::size_t elem_bytes, of_flow_format fmt, float* u, float* v) {
    of_flow out;
    std::memset(&out, 0, sizeof out);
    out.struct_size = sizeof out;
    out.layout = OF_FLOW_PLANAR;
    out.memory = memory;
    out.width = static_cast<uint32_t>(w);
    out.height = static_cast<uint32_t>(h);
    out.stride = static_cast<std::size_t>(w) * elem_bytes;
    out.format = fmt;
    out.u = u;
    out.v = v;
    return out;
}

bool time_frames(const of_config& c, bool host_io, const std::vector<unsigned char>& f0,
                 const std::vector<unsigned char>& f1, const DeviceFrames& dev, cudaStream_t stream, int frames, int reps,
                 double* ms_per_frame, bool* pageable) {
    const int w = static_cast<int>(c.max_width), h = static_cast<int>(c.max_height);
    *ms_per_frame = 0.0;
    of_context* ctx = nullptr;
    if (of_create(&c, &ctx) != OF_OK) {
        std::fprintf(stderr, "oflow-bench: frames %dx%d: of_create: %s\n", w, h, of_last_error(nullptr));
        return false;
    }
    if (pageable) *pageable = host_io && !oflow::cuda::hooks::staging_pinned(ctx->cuda);
    of_image a;
    std::memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.format = c.format;
    a.memory = host_io ? OF_MEMORY_HOST : OF_MEMORY_CUDA_DEVICE;
    a.width = static_cast<uint32_t>(w);
    a.height = static_cast<uint32_t>(h);
    a.stride = static_cast<size_t>(w) * (c.format == OF_PIXEL_F32 ? 4u : c.format == OF_PIXEL_U16 ? 2u : 1u);
    of_image b = a;
    a.data = host_io ? static_cast<const void*>(f0.data()) : dev.f[0];
    b.data = host_io ? static_cast<const void*>(f1.data()) : dev.f[1];
    std::vector<float> hu(host_io ? static_cast<size_t>(w) * static_cast<size_t>(h) : 0), hv(hu.size());
    of_flow out = planar_flow(w, h, host_io ? OF_MEMORY_HOST : OF_MEMORY_CUDA_DEVICE, 4, OF_FLOW_FORMAT_F32,
                                    host_io ? hu.data() : dev.u, host_io ? hv.data() : dev.v);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    bool ok = true;
    for (int i = 0; i < 2 && ok; ++i) ok = of_process(ctx, &a, &b, &out) == OF_OK; // warm-up
    cudaStreamSynchronize(stream);
    std::vector<double> per_frame;
    for (int rep = 0; rep < reps && ok; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        cudaEventRecord(e0, stream);
        for (int i = 0; i < frames && ok; ++i) ok = of_process(ctx, &a, &b, &out) == OF_OK;
        cudaEventRecord(e1, stream);
        cudaEventSynchronize(e1);
        float ms = 0.0f;
        cudaEventElapsedTime(&ms, e0, e1);
        const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        // Host I/O frames wait inside of_process: wall time is the truth there.
        per_frame.push_back((host_io ? wall : static_cast<double>(ms)) / frames);
    }
    if (!ok) std::fprintf(stderr, "oflow-bench: frames %dx%d: of_process: %s\n", w, h, of_last_error(ctx));
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    of_destroy(ctx);
    *ms_per_frame = median(per_frame);
    return ok;
}

double part_start(const char* flag, bool smoke) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        std::printf("oflow-bench %s: no CUDA device\n", flag);
        return -1.0;
    }
    const double copy = copy_bandwidth(smoke ? (8u << 20) : (256u << 20), smoke ? 3 : 9);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    std::printf("oflow-bench %s on %s (%d SMs): copy bandwidth %.1f GB/s (device-to-device, read + write)\n", flag,
                prop.name, prop.multiProcessorCount, copy);
    return copy;
}

void json_rows(const char* path, const char* flag, double copy_gbps, std::size_t n,
               const std::function<void(FILE*, std::size_t)>& row) {
    FILE* f = std::fopen(path, "w");
    if (!f) {
        std::fprintf(stderr, "oflow-bench %s: cannot write %s\n", flag, path);
        return;
    }
    std::fprintf(f, "{\n  \"copy_gbps\": %.2f,\n  \"rows\": [\n", copy_gbps);
    for (std::size_t i = 0; i < n; ++i) {
        std::fprintf(f, "    ");
        row(f, i);
        std::fprintf(f, "%s\n", i + 1 < n ? "," : "");
    }
    std::fprintf(f, "  ]\n}\n");
    std::fclose(f);
}

U8Frames::U8Frames(int w, int h) {
    std::vector<float> a, b;
    texture(w, h, &a, &b);
    const size_t n = a.size();
    f0.resize(n);
    f1.resize(n);
    for (size_t i = 0; i < n; ++i) {
        f0[i] = static_cast<unsigned char>(a[i] + 0.5f);
        f1[i] = static_cast<unsigned char>(b[i] + 0.5f);
    }
    ok = cuda_ok(cudaMalloc(&dev.f[0], n), "cudaMalloc") && cuda_ok(cudaMalloc(&dev.f[1], n), "cudaMalloc") &&
         cuda_ok(cudaMalloc(reinterpret_cast<void**>(&dev.u), n * 4), "cudaMalloc") &&
         cuda_ok(cudaMalloc(reinterpret_cast<void**>(&dev.v), n * 4), "cudaMalloc") &&
         cuda_ok(cudaMemcpy(dev.f[0], f0.data(), n, cudaMemcpyHostToDevice), "cudaMemcpy") &&
         cuda_ok(cudaMemcpy(dev.f[1], f1.data(), n, cudaMemcpyHostToDevice), "cudaMemcpy") &&
         cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
}

U8Frames::~U8Frames() {
    if (stream) cudaStreamDestroy(stream);
}

bool time_device_frames(of_config c, const U8Frames& f, int frames, int reps, double* ms_per_frame) {
    c.format = OF_PIXEL_U8;
    c.cuda_stream = f.stream;
    bool pageable = false;
    return f.ok && time_frames(c, false, f.f0, f.f1, f.dev, f.stream, frames, reps, ms_per_frame, &pageable);
}

Inner time_inner(const of_config& c, const std::vector<float>& i0, const std::vector<float>& i1, int w, int h, int iters,
                 int runs, double copy_gbps, const char* who) {
    Inner r;
    of_context* ctx = nullptr;
    if (of_create(&c, &ctx) != OF_OK) {
        std::fprintf(stderr, "oflow-bench: %s %dx%d: of_create: %s\n", who, w, h, of_last_error(nullptr));
        return r;
    }
    char buf[oflow::kErrorCapacity] = {0};
    const oflow::ErrorSink err{buf};
    std::vector<float> ms(static_cast<size_t>(runs), 0.0f);
    of_status t = oflow::cuda::hooks::bench_prepare(ctx->cuda, i0.data(), i1.data(), w, h, err);
    if (t == OF_OK) t = oflow::cuda::hooks::bench_iterations(ctx->cuda, iters, 2, ms.data(), err);
    if (t == OF_OK) t = oflow::cuda::hooks::bench_iterations(ctx->cuda, iters, runs, ms.data(), err);
    if (t != OF_OK) {
        std::fprintf(stderr, "oflow-bench: %s %dx%d: %s\n", who, w, h, buf);
        of_destroy(ctx);
        return r;
    }
    std::size_t shared = 0;
    oflow::cuda::hooks::launch_shape(ctx->cuda, &r.bw, &r.bh, &r.depth, &shared);
    const oflow::cuda::hooks::Model m = oflow::cuda::hooks::model(ctx->cuda, w, h, iters);
    of_destroy(ctx);
    const double med = median(std::vector<double>(ms.begin(), ms.end()));
    const double px_it = static_cast<double>(w) * static_cast<double>(h) * iters;
    r.ns = med * 1e6 / px_it;
    r.bytes = m.bytes;
    r.flops = m.flops;
    r.redundancy = m.redundancy;
    r.gbps = m.bytes * px_it / (med * 1e-3) / 1e9;
    r.share = copy_gbps > 0 ? r.gbps / copy_gbps : 0;
    r.gflops = m.flops * px_it / (med * 1e-3) / 1e9;
    r.ok = true;
    return r;
}

#endif

} // namespace bench
