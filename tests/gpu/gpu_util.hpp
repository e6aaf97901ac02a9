// Helpers of the GPU tests: device presence (skip with 77 otherwise), device and mapped
// buffers, frames and flows in those memories, reference runs and error measures.
// Only compiled when the build has CUDA (tests/gpu/CMakeLists.txt).
#ifndef OFLOW_TESTS_GPU_GPU_UTIL_HPP
#define OFLOW_TESTS_GPU_GPU_UTIL_HPP

#include "test_util.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace gputest {

using namespace oftest;

/// True when a device is present and the CUDA backend can be created; prints why not.
inline bool cuda_ready() {
    // Line-buffered stdout: a run killed by a time limit (compute-sanitizer step) still shows
    // how far it got.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        std::printf("skip: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorName(e) : "0 devices");
        (void)cudaGetLastError();
        return false;
    }
    of_config c = tvl1_config(32, 32);
    c.backend = OF_BACKEND_CUDA;
    of_context* ctx = nullptr;
    const of_status s = of_create(&c, &ctx);
    if (s == OF_ERR_BACKEND_UNAVAILABLE) {
        std::printf("skip: CUDA backend unavailable: %s\n", of_last_error(nullptr));
        return false;
    }
    of_destroy(ctx);
    if (s != OF_OK) {
        // A device is there but the backend fails: that is a failure, not a skip.
        std::fprintf(stderr, "CUDA backend create failed: %s (%s)\n", st(s), of_last_error(nullptr));
        return true;
    }
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) == cudaSuccess)
        std::printf("device: %s (sm_%d%d, %.1f GiB)\n", p.name, p.major, p.minor,
                    static_cast<double>(p.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0));
    return true;
}

/// OFLOW_GPU_SMALL=1: the compute-sanitizer step (scripts/gpu_check.sh) asks the tests whose
/// full size would take minutes under instrumentation for their small variant.
// Tests of one solve a pair pin it with oftest::one_solve (tests/test_util.hpp). Pick's own tests
// are gpu_robust_pick and gpu_matrix_*.
using oftest::one_solve;

inline bool small_run() {
    const char* e = std::getenv("OFLOW_GPU_SMALL");
    return e && e[0] == '1';
}

#define GPU_CHECK_CUDA(expr)                                                                 \
    do {                                                                                     \
        const cudaError_t e_ = (expr);                                                       \
        CHECK_MSG(e_ == cudaSuccess, "%s: %s", #expr, cudaGetErrorString(e_));               \
    } while (0)

/// cudaMalloc'd (or cudaHostAlloc'd mapped) bytes; freed on destruction.
struct DevBuf {
    void* p = nullptr;
    size_t n = 0;
    bool mapped = false;
    DevBuf() = default;
    DevBuf(size_t bytes, bool host_mapped = false) : n(bytes), mapped(host_mapped) {
        const cudaError_t e = host_mapped ? cudaHostAlloc(&p, bytes, cudaHostAllocMapped) : cudaMalloc(&p, bytes);
        if (e != cudaSuccess) {
            std::fprintf(stderr, "DevBuf(%zu, %s): %s\n", bytes, host_mapped ? "mapped" : "device", cudaGetErrorString(e));
            p = nullptr;
        }
    }
    DevBuf(DevBuf&& o) noexcept : p(o.p), n(o.n), mapped(o.mapped) { o.p = nullptr; }
    DevBuf& operator=(DevBuf&& o) noexcept {
        std::swap(p, o.p);
        std::swap(n, o.n);
        std::swap(mapped, o.mapped);
        return *this;
    }
    DevBuf(const DevBuf&) = delete;
    DevBuf& operator=(const DevBuf&) = delete;
    ~DevBuf() {
        if (p) (void)(mapped ? cudaFreeHost(p) : cudaFree(p));
    }
};

/// A frame copied into device (or mapped) memory with the host frame's stride.
struct DevFrame {
    DevBuf buf;
    of_image img;
};
inline DevFrame to_device(const Frame& f, of_memory_kind kind) {
    DevFrame d;
    const size_t bytes = f.img.stride * f.img.height;
    d.buf = DevBuf(bytes, kind == OF_MEMORY_CUDA_MAPPED);
    d.img = f.img;
    d.img.memory = kind;
    d.img.data = d.buf.p;
    if (d.buf.p) GPU_CHECK_CUDA(cudaMemcpy(d.buf.p, f.store.data(), bytes, cudaMemcpyDefault));
    return d;
}

/// An output flow in device or mapped memory, poisoned with 0xFF bytes (NaN) first.
struct DevFlow {
    DevBuf a, b;
    of_flow f;
    std::vector<float> ha, hb;
    /// Copies back into host vectors laid out as FlowBuf (same stride).
    FlowBuf fetch() const {
        FlowBuf fb = make_flow(f.width, f.height, f.layout, f.stride / 4 - (f.layout == OF_FLOW_PLANAR ? f.width : 2 * f.width));
        GPU_CHECK_CUDA(cudaDeviceSynchronize());
        GPU_CHECK_CUDA(cudaMemcpy(fb.a.data(), a.p, f.stride * f.height, cudaMemcpyDefault));
        if (f.layout == OF_FLOW_PLANAR) GPU_CHECK_CUDA(cudaMemcpy(fb.b.data(), b.p, f.stride * f.height, cudaMemcpyDefault));
        return fb;
    }
};
inline DevFlow device_flow(uint32_t w, uint32_t h, of_flow_layout layout, of_memory_kind kind, size_t extra_floats = 0) {
    DevFlow d;
    const size_t row = (layout == OF_FLOW_PLANAR ? static_cast<size_t>(w) : 2u * w) + extra_floats;
    const size_t bytes = row * 4 * h;
    const bool mapped = kind == OF_MEMORY_CUDA_MAPPED;
    d.a = DevBuf(bytes, mapped);
    if (layout == OF_FLOW_PLANAR) d.b = DevBuf(bytes, mapped);
    if (d.a.p) GPU_CHECK_CUDA(cudaMemset(d.a.p, 0xFF, bytes));
    if (d.b.p) GPU_CHECK_CUDA(cudaMemset(d.b.p, 0xFF, bytes));
    std::memset(&d.f, 0, sizeof d.f);
    d.f.struct_size = sizeof(of_flow);
    d.f.layout = layout;
    d.f.memory = kind;
    d.f.width = w;
    d.f.height = h;
    d.f.stride = row * 4;
    d.f.u = static_cast<float*>(d.a.p);
    d.f.v = layout == OF_FLOW_PLANAR ? static_cast<float*>(d.b.p) : nullptr;
    return d;
}

/// A fast textured pair for large frames (synth::generate costs microseconds per pixel):
/// sinusoids plus hashed noise, and the same texture shifted by (1.3, -0.7) px.
inline Pair fast_pair(uint32_t w, uint32_t h) {
    Pair p;
    p.w = w;
    p.h = h;
    const size_t n = static_cast<size_t>(w) * h;
    p.i0.resize(n);
    p.i1.resize(n);
    p.gu.assign(n, 1.3f);
    p.gv.assign(n, -0.7f);
    auto tex = [](double x, double y) {
        const double v = 128.0 + 50.0 * std::sin(0.31 * x + 0.17 * y) + 40.0 * std::cos(0.07 * x - 0.23 * y) +
                         20.0 * std::sin(0.011 * x * y / (1.0 + 0.001 * (x + y)));
        return static_cast<float>(v < 0.0 ? 0.0 : (v > 255.0 ? 255.0 : v));
    };
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            const size_t k = static_cast<size_t>(y) * w + x;
            p.i0[k] = tex(x, y);
            p.i1[k] = tex(x - 1.3, y + 0.7);
        }
    return p;
}

/// Mean endpoint error of a flow against the pair's ground truth.
inline double epe(const FlowBuf& f, const Pair& p) {
    double s = 0.0;
    for (uint32_t y = 0; y < p.h; ++y)
        for (uint32_t x = 0; x < p.w; ++x) {
            const size_t k = static_cast<size_t>(y) * p.w + x;
            const double du = f.u(x, y) - p.gu[k], dv = f.v(x, y) - p.gv[k];
            s += std::sqrt(du * du + dv * dv);
        }
    return s / (static_cast<double>(p.w) * p.h);
}

/// Largest |a - b| over two extracted flows (inf when sizes differ or a value is not finite).
inline double max_diff(const std::vector<float>& a, const std::vector<float>& b, size_t* where = nullptr) {
    if (a.size() != b.size()) return INFINITY;
    double m = 0.0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double d = std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
        if (!(d <= m)) {
            m = std::isfinite(d) ? d : INFINITY;
            if (where) *where = i;
            if (!std::isfinite(d)) return INFINITY;
        }
    }
    return m;
}

inline const char* variant_str(of_variant v) {
    switch (v) {
    case OF_VARIANT_GLOBAL: return "GLOBAL";
    case OF_VARIANT_FUSED: return "FUSED";
    case OF_VARIANT_MULTI_ITER: return "MULTI_ITER";
    default: return "AUTO";
    }
}
inline const char* precision_str(of_precision p) { return p == OF_PRECISION_F16 ? "F16" : (p == OF_PRECISION_F32 ? "F32" : "AUTO"); }

/// Runs one pair through a context and returns the host flow (empty on failure, reported).
inline bool run_host(of_context* ctx, const FramePair& fp, FlowBuf& out, const char* what) {
    const of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &out.f);
    CHECK_MSG(s == OF_OK, "%s: of_process: %s (%s)", what, st(s), of_last_error(ctx));
    return s == OF_OK;
}

inline of_info info_of(of_context* ctx) {
    of_info i;
    std::memset(&i, 0, sizeof i);
    i.struct_size = sizeof i;
    of_get_info(ctx, &i);
    return i;
}

/// Flow of one pair under cfg (host frames and flow); false (and a failed check) when create or
/// process fails, or the flow is not finite.
inline bool flow_of(const of_config& cfg, const FramePair& fp, FlowBuf& out, of_info* info, const char* what) {
    of_context* ctx = create_or_report(cfg, what);
    CHECK_MSG(ctx != nullptr, "%s: of_create failed", what);
    if (!ctx) return false;
    out = make_flow(fp.prev.img.width, fp.prev.img.height);
    const bool ok = run_host(ctx, fp, out, what);
    if (info) *info = info_of(ctx);
    of_destroy(ctx);
    if (ok) CHECK_MSG(all_finite(out.extract()), "%s: non-finite flow", what);
    return ok;
}

} // namespace gputest

#endif
