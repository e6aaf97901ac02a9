// Timings for oflow-tune (tune_measure.hpp): the machine, or the --dry-run model.
#include "tune_measure.hpp"

#include "core/plan.hpp"
#include "core/status.hpp"
#include "cuda/cuda_layout.hpp" // is_variational, the HS kernels' rows (plain C++)
#include "platform/detect.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#if OF_TUNE_CUDA
#include "core/context.hpp"
#include "core/select.hpp"
#include "cuda/cuda_bench.hpp"

#include <cuda_runtime_api.h>
#endif

namespace oflow {
namespace tune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Textured frames for any size (as oflow-bench's): sinusoids and a slow chirp, the second
// frame shifted by (1.3, -0.7) px. F32 on a 0..255 scale, and the same rounded to U8.
struct Frames {
    int n = 0;
    std::vector<float> f[2];
    std::vector<unsigned char> u8[2];
    void make(int side) {
        if (side == n) return;
        n = side;
        const std::size_t count = static_cast<std::size_t>(side) * static_cast<std::size_t>(side);
        auto tex = [](double x, double y) {
            const double v = 128.0 + 50.0 * std::sin(0.31 * x + 0.17 * y) + 40.0 * std::cos(0.07 * x - 0.23 * y) +
                             20.0 * std::sin(0.011 * x * y / (1.0 + 0.001 * (x + y)));
            return v < 0.0 ? 0.0 : (v > 255.0 ? 255.0 : v);
        };
        for (int k = 0; k < 2; ++k) {
            f[k].resize(count);
            u8[k].resize(count);
        }
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x) {
                const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(side) + static_cast<std::size_t>(x);
                const double a = tex(x, y), b = tex(x - 1.3, y + 0.7);
                f[0][i] = static_cast<float>(a);
                f[1][i] = static_cast<float>(b);
                u8[0][i] = static_cast<unsigned char>(std::lround(a));
                u8[1][i] = static_cast<unsigned char>(std::lround(b));
            }
    }
};

// OFLOW_CUDA_F16_ROWS (read by cuda/cuda_layout.cu at of_create): set for TV-L1's F16 MULTI_ITER
// shapes (the HS kernels ignore it), unset otherwise, unset again when the scope ends.
struct RowsEnv {
    RowsEnv(of_algorithm a, of_precision p, const Shape& s) {
        if (a == OF_ALGO_TVL1 && p == OF_PRECISION_F16 && s.variant == platform::kVariantMultiIter) {
            char r[8];
            std::snprintf(r, sizeof r, "%d", s.rows);
            setenv("OFLOW_CUDA_F16_ROWS", r, 1);
        } else {
            unsetenv("OFLOW_CUDA_F16_ROWS");
        }
    }
    ~RowsEnv() { unsetenv("OFLOW_CUDA_F16_ROWS"); }
    RowsEnv(const RowsEnv&) = delete;
    RowsEnv& operator=(const RowsEnv&) = delete;
};

std::string read_text(const char* path, std::size_t cap) {
    std::FILE* f = std::fopen(path, "rb");
    if (!f) return "";
    std::string s(cap, '\0');
    const std::size_t n = std::fread(&s[0], 1, cap, f);
    std::fclose(f);
    s.resize(n);
    return s;
}

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\0' || s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
    std::size_t a = 0;
    while (a < s.size() && (s[a] == ' ' || s[a] == '\t')) ++a;
    return s.substr(a);
}

// The CPU's name: a Jetson's device-tree model, else /proc/cpuinfo's "model name".
std::string cpu_name() {
    std::string m = trim(read_text("/proc/device-tree/model", 256));
    if (!m.empty()) return m;
    const std::string info = read_text("/proc/cpuinfo", 1 << 16);
    const std::size_t at = info.find("model name");
    if (at != std::string::npos) {
        const std::size_t colon = info.find(':', at), eol = info.find('\n', at);
        if (colon != std::string::npos && colon < eol) return trim(info.substr(colon + 1, eol - colon - 1));
    }
#if defined(__aarch64__)
    return "aarch64 CPU";
#elif defined(__x86_64__)
    return "x86-64 CPU";
#else
    return "CPU";
#endif
}

// Algorithm a's defaults at w x h, epsilon 0 (a fixed number of iterations); HS and CLG with the
// Jacobi solver (the table's launch rows are its shapes).
of_config base_config(of_algorithm a, int w, int h) {
    of_config c;
    of_config_init(&c, a);
    c.max_width = static_cast<uint32_t>(w);
    c.max_height = static_cast<uint32_t>(h);
    c.epsilon = 0.0f;
    if (cuda::is_variational(a)) c.hs.solver = OF_SOLVER_JACOBI;
    return c;
}

void set_shape(of_config* c, const Shape& s) {
    of_variant v = OF_VARIANT_AUTO;
    (void)platform::to_of_variant(s.variant, &v);
    c->variant = v;
    c->block_width = static_cast<uint32_t>(s.bw);
    c->block_height = static_cast<uint32_t>(s.bh);
    c->fused_depth = s.variant == platform::kVariantMultiIter ? static_cast<uint32_t>(s.depth) : 0u;
}

of_image host_image(const std::vector<unsigned char>& f, int n) {
    of_image a;
    std::memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.format = OF_PIXEL_U8;
    a.memory = OF_MEMORY_HOST;
    a.width = static_cast<uint32_t>(n);
    a.height = static_cast<uint32_t>(n);
    a.stride = static_cast<std::size_t>(n);
    a.data = f.data();
    return a;
}

struct HostFlow {
    std::vector<float> u, v;
    of_flow flow;
    explicit HostFlow(int n) {
        u.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
        v.resize(u.size());
        std::memset(&flow, 0, sizeof flow);
        flow.struct_size = sizeof flow;
        flow.layout = OF_FLOW_PLANAR;
        flow.memory = OF_MEMORY_HOST;
        flow.width = static_cast<uint32_t>(n);
        flow.height = static_cast<uint32_t>(n);
        flow.stride = static_cast<std::size_t>(n) * 4;
        flow.u = u.data();
        flow.v = v.data();
    }
};

void take_info(of_context* ctx, Runs* r) {
    of_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (of_get_info(ctx, &info) == OF_OK) {
        r->arith = info.precision;
        r->variant = info.variant;
    }
}

#if OF_TUNE_CUDA
// The MULTI_ITER rows per thread a context created from c runs: what of_create selects (the board
// table's row, OFLOW_CUDA_F16_ROWS, else the built-in rows); 0 when the selection fails.
int context_rows(const of_config& c) {
    char buf[kErrorCapacity] = {0};
    Selection sel;
    if (select_for_config(c, sizeof(of_context), ErrorSink{buf}, &sel) != OF_OK) return 0;
    return sel.tuning.rows;
}
#endif

// ---- the machine ------------------------------------------------------------------------------
class Machine : public Measurer {
  public:
    Machine() {
        cpu_.name = cpu_name();
#if OF_TUNE_NEON
        cpu_.backend = OF_BACKEND_NEON;
#else
        cpu_.backend = OF_BACKEND_REFERENCE;
#endif
        const unsigned hw = std::thread::hardware_concurrency();
        cpu_.threads = hw == 0 ? 1u : (hw > 64 ? 64u : hw);
        cpu_.fp16 = platform::detect_cpu_features().fp16_vector;
        gpu_.present = false;
        gpu_.cc_major = gpu_.cc_minor = gpu_.sms = gpu_.regs_per_block = gpu_.shared_per_block = 0;
#if OF_TUNE_CUDA
        int ndev = 0;
        const cudaError_t e = cudaGetDeviceCount(&ndev);
        if (e != cudaSuccess || ndev == 0) {
            gpu_.absent = std::string("no CUDA device (") + (e != cudaSuccess ? cudaGetErrorString(e) : "none found") + ")";
        } else {
            cudaDeviceProp prop;
            std::memset(&prop, 0, sizeof prop);
            if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
                gpu_.absent = "cudaGetDeviceProperties failed";
            } else {
                gpu_.present = true;
                gpu_.name = prop.name;
                gpu_.cc_major = prop.major;
                gpu_.cc_minor = prop.minor;
                gpu_.sms = prop.multiProcessorCount;
                gpu_.regs_per_block = prop.regsPerBlock;
                gpu_.shared_per_block = static_cast<int>(prop.sharedMemPerBlock);
            }
        }
#else
        gpu_.absent = "this build has no CUDA backend (OF_WITH_CUDA=OFF or no nvcc)";
#endif
    }
    const GpuInfo& gpu() const override { return gpu_; }
    const CpuInfo& cpu() const override { return cpu_; }
    bool modelled() const override { return false; }

    Runs gpu_inner(of_algorithm algo, of_precision p, const Shape& s, int n, int iterations, int warmup,
                   int runs) override {
        Runs r;
#if OF_TUNE_CUDA
        if (!gpu_.present) {
            r.why = gpu_.absent;
            return r;
        }
        frames_.make(n);
        const RowsEnv env(algo, p, s);
        of_config c = base_config(algo, n, n);
        c.format = OF_PIXEL_F32;
        c.levels = 1;
        c.warps = 1;
        c.iterations = static_cast<uint32_t>(iterations);
        c.backend = OF_BACKEND_CUDA;
        c.precision = p;
        set_shape(&c, s);
        of_context* ctx = nullptr;
        if (of_create(&c, &ctx) != OF_OK) {
            r.why = std::string("of_create: ") + of_last_error(nullptr);
            return r;
        }
        int bw = 0, bh = 0, depth = 0;
        std::size_t shared = 0;
        cuda::hooks::launch_shape(ctx->cuda, &bw, &bh, &depth, &shared);
        if (bw != s.bw || bh != s.bh || depth != s.depth) {
            char b[160];
            std::snprintf(b, sizeof b, "the context runs %dx%d depth %d, not the shape asked for", bw, bh, depth);
            r.why = b;
            of_destroy(ctx);
            return r;
        }
        if (s.variant == platform::kVariantMultiIter) r.rows = context_rows(c);
        char buf[kErrorCapacity] = {0};
        const ErrorSink err{buf};
        std::vector<float> ms(static_cast<std::size_t>(std::max(runs, warmup)), 0.0f);
        of_status t = cuda::hooks::bench_prepare(ctx->cuda, frames_.f[0].data(), frames_.f[1].data(), n, n, err);
        if (t == OF_OK && warmup > 0) t = cuda::hooks::bench_iterations(ctx->cuda, iterations, warmup, ms.data(), err);
        if (t == OF_OK) t = cuda::hooks::bench_iterations(ctx->cuda, iterations, runs, ms.data(), err);
        take_info(ctx, &r);
        of_destroy(ctx);
        if (t != OF_OK) {
            r.why = buf;
            return r;
        }
        const double px_it = static_cast<double>(n) * static_cast<double>(n) * iterations;
        for (int k = 0; k < runs; ++k) r.v.push_back(static_cast<double>(ms[static_cast<std::size_t>(k)]) * 1e6 / px_it);
        r.ok = true;
#else
        (void)algo;
        (void)p;
        (void)s;
        (void)n;
        (void)iterations;
        (void)warmup;
        (void)runs;
        r.why = gpu_.absent;
#endif
        return r;
    }

    Runs cpu_inner(of_algorithm algo, of_precision p, int n, int it1, int it2, int runs) override {
        Runs r;
        frames_.make(n);
        const of_image a = host_image(frames_.u8[0], n), b = host_image(frames_.u8[1], n);
        HostFlow out(n);
        std::vector<double> t[2];
        const int its[2] = {it1, it2};
        for (int k = 0; k < 2; ++k) {
            of_config c = base_config(algo, n, n);
            c.levels = 1;
            c.warps = 1;
            c.iterations = static_cast<uint32_t>(its[k]);
            c.backend = cpu_.backend;
            c.precision = p;
            c.threads = cpu_.threads;
            of_context* ctx = nullptr;
            if (of_create(&c, &ctx) != OF_OK) {
                r.why = std::string("of_create: ") + of_last_error(nullptr);
                return r;
            }
            bool ok = of_process(ctx, &a, &b, &out.flow) == OF_OK; // warm-up
            for (int i = 0; i < runs && ok; ++i) {
                const Clock::time_point t0 = Clock::now();
                ok = of_process(ctx, &a, &b, &out.flow) == OF_OK;
                t[k].push_back(seconds_since(t0));
            }
            if (!ok) r.why = std::string("of_process: ") + of_last_error(ctx);
            take_info(ctx, &r);
            of_destroy(ctx);
            if (!ok) return r;
        }
        const double base = median(t[0]);
        const double per = static_cast<double>(it2 - it1) * static_cast<double>(n) * static_cast<double>(n);
        for (double x : t[1]) r.v.push_back((x - base) * 1e9 / per);
        if (!(median(r.v) > 0.0)) {
            r.v.clear();
            r.why = "more iterations did not take longer (timer noise): nothing to divide";
            return r;
        }
        for (double& x : r.v) x = std::max(x, 1e-12);
        r.ok = true;
        return r;
    }

    Runs e2e(of_algorithm algo, bool gpu, of_precision p, const Shape& s, int side, const Schedule& sch,
             int runs) override {
        Runs r;
        if (gpu && !gpu_.present) {
            r.why = gpu_.absent;
            return r;
        }
        frames_.make(side);
        const RowsEnv env(algo, gpu ? p : OF_PRECISION_F32, s);
        of_config c = base_config(algo, side, side);
        c.format = OF_PIXEL_U8;
        c.levels = static_cast<uint32_t>(sch.levels);
        c.scale_factor = 0.5f;
        c.warps = static_cast<uint32_t>(sch.warps);
        c.iterations = static_cast<uint32_t>(sch.iterations);
        c.precision = p;
        if (gpu) {
            c.backend = OF_BACKEND_CUDA;
            set_shape(&c, s);
        } else {
            c.backend = cpu_.backend;
            c.threads = cpu_.threads;
        }
        of_context* ctx = nullptr;
        if (of_create(&c, &ctx) != OF_OK) {
            r.why = std::string("of_create: ") + of_last_error(nullptr);
            return r;
        }
        const of_image a = host_image(frames_.u8[0], side), b = host_image(frames_.u8[1], side);
        HostFlow out(side);
        bool ok = of_process(ctx, &a, &b, &out.flow) == OF_OK;
        Clock::time_point t0 = Clock::now();
        ok = ok && of_process(ctx, &a, &b, &out.flow) == OF_OK;
        const double one = seconds_since(t0);
        // A run is a batch of frames of >= 2 ms, so the clock's resolution does not matter.
        const int batch = std::max(1, std::min(64, static_cast<int>(std::ceil(2e-3 / std::max(one, 1e-7)))));
        for (int k = 0; k < runs && ok; ++k) {
            t0 = Clock::now();
            for (int i = 0; i < batch && ok; ++i) ok = of_process(ctx, &a, &b, &out.flow) == OF_OK;
            r.v.push_back(seconds_since(t0) * 1e3 / batch);
        }
        if (!ok) r.why = std::string("of_process: ") + of_last_error(ctx);
        take_info(ctx, &r);
        of_destroy(ctx);
        r.ok = ok;
        return r;
    }

  private:
    GpuInfo gpu_;
    CpuInfo cpu_;
    Frames frames_;
};

// ---- the --dry-run model ------------------------------------------------------------------------
// An H200-like GPU (4 TB/s, 132 SMs, 3 us per launch) and a CPU at 12 ns/it/px for TV-L1 and 8.5
// for HS and CLG. The shapes differ by a small deterministic amount so that the ranking has
// something to order. HS and CLG run the same iteration kernels, so the model times them alike.
// Nothing here is a prediction of any real machine.
class Model : public Measurer {
  public:
    Model() {
        gpu_.present = true;
        gpu_.name = "dry-run model GPU";
        gpu_.cc_major = 9;
        gpu_.cc_minor = 0;
        gpu_.sms = 132;
        gpu_.regs_per_block = 65536;
        gpu_.shared_per_block = 49152;
        cpu_.name = "dry-run model CPU";
        cpu_.backend = OF_BACKEND_REFERENCE;
        cpu_.threads = 8;
        cpu_.fp16 = false;
    }
    const GpuInfo& gpu() const override { return gpu_; }
    const CpuInfo& cpu() const override { return cpu_; }
    bool modelled() const override { return true; }

    // Bytes per pixel and iteration of GLOBAL and of one fused pass (F32; F16 in brackets), and
    // FLOPs per pixel and iteration: TV-L1 88 (56) and 64 (40), 49 FLOPs; HS / CLG 40 (20) both,
    // 26 FLOPs (cuda/cuda_bench.cu's models). HS's FUSED is its MULTI_ITER kernel at depth 1.
    static double inner_ns(of_algorithm a, of_precision p, const Shape& s, int n) {
        const bool h = p == OF_PRECISION_F16;
        const bool hs = cuda::is_variational(a);
        const double pass = hs ? (h ? 20.0 : 40.0) : (h ? 40.0 : 64.0);
        const double flops = hs ? 26.0 : 49.0;
        double bytes = 0.0, redundancy = 1.0, launches = 1.0, tiles = 0.0;
        const double nn = static_cast<double>(n);
        const bool multi = s.variant == platform::kVariantMultiIter || (hs && s.variant == platform::kVariantFused);
        if (s.variant == platform::kVariantGlobal) {
            bytes = hs ? pass : (h ? 56.0 : 88.0);
            launches = hs ? 1.0 : 2.0;
            tiles = std::ceil(nn / s.bw) * std::ceil(nn / s.bh);
        } else if (!multi) { // TV-L1 FUSED: a shared-memory tile with a one-pixel ring
            bytes = pass;
            redundancy = (21.0 * (s.bw + 1) * (s.bh + 1) / (s.bw * s.bh) + 28.0) / 49.0;
            tiles = std::ceil(nn / s.bw) * std::ceil(nn / s.bh);
        } else {
            const bool fused = s.variant == platform::kVariantFused;
            const int depth = fused ? 1 : s.depth;
            const int rows = fused ? (h ? cuda::kHsRowsF16 : cuda::kHsRowsF32) : s.rows;
            const double rw = h ? 64.0 : 32.0, rh = static_cast<double>(s.bh * rows);
            const double tw = rw - 2.0 * depth, th = rh - 2.0 * depth;
            redundancy = rw * rh / (tw * th);
            bytes = pass / depth;
            launches = 1.0 / depth;
            tiles = std::ceil(nn / tw) * std::ceil(nn / th);
            if (!hs && h && s.rows == 8) redundancy *= 1.3; // spills
        }
        double ns = bytes / 4000.0 + flops * redundancy / (h ? 80000.0 : 40000.0);
        ns *= 1.0 + 0.002 * ((s.bw * 7 + s.bh * 13 + s.rows * 3 + s.depth * 5) % 11);
        const double waves = tiles / (2.0 * 132.0);
        if (waves < 1.0) ns /= std::sqrt(std::max(waves, 0.05));
        return ns + 3000.0 * launches / (nn * nn);
    }

    Runs gpu_inner(of_algorithm a, of_precision p, const Shape& s, int n, int iterations, int warmup,
                   int runs) override {
        (void)iterations;
        (void)warmup;
        Runs r;
        const double ns = inner_ns(a, p, s, n);
        for (int k = 0; k < runs; ++k) r.v.push_back(ns * (1.0 + 0.01 * ((k * 3) % 4) / 3.0));
        r.arith = p;
        r.variant = "model";
        r.ok = true;
        return r;
    }
    Runs cpu_inner(of_algorithm a, of_precision p, int n, int it1, int it2, int runs) override {
        (void)p;
        (void)it1;
        (void)it2;
        Runs r;
        const double ns = cpu_ns(a, n);
        for (int k = 0; k < runs; ++k) r.v.push_back(ns * (1.0 + 0.02 * (k % 3)));
        r.arith = OF_PRECISION_F32; // the model CPU has no FP16 (a reference path)
        r.variant = "ref";
        r.ok = true;
        return r;
    }
    // Whole frames: the inner iterations at the large-frame figure (GPU: inner_ns at 4096^2;
    // CPU: cpu_ns at 512^2) on every level, plus fixed, per-pixel, per-launch and per-level terms.
    Runs e2e(of_algorithm a, bool gpu, of_precision p, const Shape& s, int side, const Schedule& sch,
             int runs) override {
        Runs r;
        LevelDims dims[kMaxLevels];
        const int levels = pyramid_dims(side, side, sch.levels, 0.5f, dims);
        double area_sum = 0.0;
        for (int l = 0; l < levels; ++l) area_sum += static_cast<double>(dims[l].w) * dims[l].h;
        const double a0 = static_cast<double>(side) * side;
        const int global_launches = cuda::is_variational(a) ? 1 : 2; // per iteration
        const int launches_per_warp = gpu ? (s.variant == platform::kVariantMultiIter
                                                 ? (sch.iterations + s.depth - 1) / s.depth
                                                 : sch.iterations * (s.variant == platform::kVariantGlobal ? global_launches : 1))
                                          : sch.iterations;
        const double level_runs = static_cast<double>(sch.warps) * levels;
        const double launches = level_runs * launches_per_warp;
        const double it_ns = static_cast<double>(sch.warps) * sch.iterations * area_sum *
                             (gpu ? inner_ns(a, p, s, 4096) : cpu_ns(a, 512));
        const double ns = gpu ? (p == OF_PRECISION_F16 ? 250e3 : 300e3) + 0.1 * a0 + it_ns + 3e3 * launches + 15e3 * level_runs
                              : 10e3 + 2.0 * a0 + it_ns + 2e3 * launches + 1e3 * level_runs;
        for (int k = 0; k < runs; ++k) r.v.push_back(ns * 1e-6 * (1.0 + 0.01 * (k % 3)));
        r.arith = gpu ? p : OF_PRECISION_F32;
        r.variant = "model";
        r.ok = true;
        return r;
    }
    static double cpu_ns(of_algorithm a, int n) { return (cuda::is_variational(a) ? 8.5 : 12.0) * (1.0 + 32.0 / n); }

  private:
    GpuInfo gpu_;
    CpuInfo cpu_;
};

} // namespace

std::unique_ptr<Measurer> machine_measurer() { return std::unique_ptr<Measurer>(new Machine()); }
std::unique_ptr<Measurer> model_measurer() { return std::unique_ptr<Measurer>(new Model()); }

} // namespace tune
} // namespace oflow
