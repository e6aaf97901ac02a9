// The CUDA path's entry points (cuda_backend.hpp): availability, plan, create (every
// allocation, registration, stream, kernel loading and a warm-up frame), process (upload,
// pipeline, output, at most the waits the contract allows) and destroy.
//
// Waits inside process():
//  - host or mapped output: one cudaStreamSynchronize at the end; host output is then copied
//    from the staging region to the caller (so nothing is written on error). The iteration
//    count is exact (the stop slots come back with the flow).
//  - the validity plane (of_flow.valid, core/confidence.hpp): the residual confidence of the
//    final flow, computed only when asked for, on the stream after the solve (residual_confidence:
//    under a robust mode other than pick both frames are converted and normalised again from
//    src[], then k_confidence, which combines it with LK's own lambda plane, AlgoOps::confidence)
//    into a plane the solve left free (conf_planes: half of the flow plane it did not end in). Host
//    output downloads the plane into the pinned staging (stage_valid) before the one wait and
//    writes the mask or the confidence from there after it; device and mapped output get it
//    from k_write_validity on the stream. No wait and no allocation of its own.
//  - device output: none; the flow is complete when the stream reaches that point, and the
//    iteration count is the scheduled one (exact when epsilon == 0).
//  - F32 frames in device memory: one wait after the finiteness check kernel.
//  - host frames while the previous frame's upload out of the staging region is still in
//    flight (only possible after a frame with device output): one wait for that upload.
#include "cuda/cuda_check.cuh"
#include "cuda/cuda_state.cuh"
#include "cuda/hs_cuda.cuh"
#include "cuda/dis_cuda.cuh"
#include "cuda/lk_census_cuda.cuh"
#include "cuda/lk_cuda.cuh"

#include "core/algorithm.hpp" // IterationModel
#include "core/confidence.hpp"
#include "core/ref/kernels_ref.hpp"
#include "core/schedule.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>

namespace oflow {
namespace cuda {

std::atomic<int> g_fault_countdown{0};

void arm_fault(int n) { g_fault_countdown.store(n > 0 ? n : 0, std::memory_order_relaxed); }

int fault_pending() { return g_fault_countdown.load(std::memory_order_relaxed); }

cudaError_t injected_fault() {
    int v = 0;
    return cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, -1);
}

namespace {

// The inner iterations level lv is scheduled per warp: the algorithm's own count where it has
// one (core/algorithm.hpp IterationModel; DIS: dis.iterations on the levels it solves, 0 on the
// finer ones), else the shared schedule (core/schedule.hpp).
uint32_t scheduled_iterations(const of_config& cfg, int lv) {
    const Algorithm* a = find_algorithm(cfg.algorithm);
    const IterationModel* im = a ? a->iterations : nullptr;
    return im ? im->at_level(cfg, im->get(cfg), lv) : level_iterations(cfg.iterations, cfg.iteration_growth, lv);
}

void all_kernels(KernelList* l) {
    l->n = 0;
    l->dropped = 0;
    list_pyramid_kernels(l);
    list_warp_kernels(l);
    list_global_kernels(l);
    list_fused_kernels(l);
    list_multi_kernels(l);
    list_multi_f16x2_kernels(l);
    list_robust_kernels(l);
    list_warm_kernels(l);
    list_pick_kernels(l);
    list_confidence_kernels(l);
    list_census_kernels(l);
    list_census_stats_kernels(l);
    list_init_kernels(l);
    list_hs_stage_kernels(l);
    list_hs_jacobi_kernels(l);
    list_hs_multi_kernels(l);
    list_hs_sor_kernels(l);
    list_lk_stage_kernels(l);
    list_lk_global_kernels(l);
    list_lk_fused_kernels(l);
    list_lk_tile_kernels(l);
    list_lk_census_kernels(l);
    list_dis_stage_kernels(l);
    list_dis_global_kernels(l);
    list_dis_fused_kernels(l);
    list_flow_format_kernels(l);
}

// Makes st's device current for the duration of a call, and puts the caller's back.
struct DeviceScope {
    int prev = -1;
    bool switched = false;
    explicit DeviceScope(int dev) {
        if (cudaGetDevice(&prev) == cudaSuccess && prev != dev) switched = cudaSetDevice(dev) == cudaSuccess;
        (void)cudaGetLastError();
    }
    ~DeviceScope() {
        if (switched) (void)cudaSetDevice(prev);
    }
};

std::size_t stage_bytes(const of_image& img) {
    return static_cast<std::size_t>(img.width) * static_cast<std::size_t>(img.height) *
           format_bytes(img.format);
}

// Device-readable address of an image or flow plane.
of_status device_view(const void* p, of_memory_kind kind, const void** out, const char* name,
                      const ErrorSink& err) {
    if (kind == OF_MEMORY_CUDA_MAPPED) {
        void* d = nullptr;
        const cudaError_t e = cudaHostGetDevicePointer(&d, const_cast<void*>(p), 0);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return err.fail(OF_ERR_DEVICE, "cuda: %s: cudaHostGetDevicePointer: %s: %s (is it mapped host memory?)",
                            name, cudaGetErrorName(e), cudaGetErrorString(e));
        }
        *out = d;
    } else {
        *out = p;
    }
    return OF_OK;
}

// Sets st.cfg's schedule to the warm-up's (kWarmUpWarps, kWarmUpLaunches launches per warp) and
// puts the configured one back when it goes out of scope.
struct WarmUpSchedule {
    of_config& cfg;
    const uint32_t warps, iterations;
    const float growth;
    WarmUpSchedule(of_config& c, const Tuning& t)
        : cfg(c), warps(c.warps), iterations(c.iterations), growth(c.iteration_growth) {
        cfg.iteration_growth = 0.0f;
        const uint32_t per_launch = t.variant == OF_VARIANT_MULTI_ITER ? static_cast<uint32_t>(t.depth) : 1u;
        const uint32_t most = per_launch * static_cast<uint32_t>(kWarmUpLaunches);
        cfg.warps = warps < static_cast<uint32_t>(kWarmUpWarps) ? warps : static_cast<uint32_t>(kWarmUpWarps);
        cfg.iterations = iterations < most ? iterations : most;
    }
    ~WarmUpSchedule() {
        cfg.warps = warps;
        cfg.iterations = iterations;
        cfg.iteration_growth = growth;
    }
    WarmUpSchedule(const WarmUpSchedule&) = delete;
    WarmUpSchedule& operator=(const WarmUpSchedule&) = delete;
};

of_status warm_up(State& st, const ErrorSink& err) {
    // One small frame through the whole path (uploads from the staging region, pyramid, warps,
    // iterations with the configured epsilon, download), so that nothing is left to set up
    // lazily for the first real frame. A short schedule: every kernel runs, the configured
    // length would only add time (100000 iterations x 100 warps took minutes).
    const WarmUpSchedule schedule(st.cfg, st.tun);
    const int w = static_cast<int>(st.cfg.max_width < 64 ? st.cfg.max_width : 64);
    const int h = static_cast<int>(st.cfg.max_height < 64 ? st.cfg.max_height : 64);
    const std::size_t row = static_cast<std::size_t>(w) * format_bytes(st.cfg.format);
    const DevLayout& l = st.lay;
    for (int f = 0; f < 2; ++f) {
        std::memset(st.pinned + l.stage_frame[f], 0, row * static_cast<std::size_t>(h));
        OF_CUDA_TRY(cudaMemcpyAsync(st.arena + l.raw[f], st.pinned + l.stage_frame[f], row * static_cast<std::size_t>(h),
                                    cudaMemcpyHostToDevice, st.stream),
                    "warm-up upload");
    }
    if (st.cfg.warm_start) { // no stream yet: nothing kept (the residual launch still reads the plane)
        OF_CUDA_TRY(cudaMemsetAsync(&st.ctrl()->warm_ready, 0, sizeof(int), st.stream), "cudaMemsetAsync(warm_ready)");
        OF_CUDA_TRY(cudaMemsetAsync(st.arena + l.warm, 0, l.warm_bytes, st.stream), "cudaMemsetAsync(warm)");
    }
    SolveInfo info;
    of_status s = run_frame(st, Src{st.arena + l.raw[0], row}, Src{st.arena + l.raw[1], row}, w, h, err, &info);
    if (s != OF_OK) return s;
    const LevelDims& d = info.dims[0];
    OF_CUDA_TRY(cudaMemcpy2DAsync(st.pinned + l.stage_flow, static_cast<std::size_t>(w) * 8, st.arena + l.u[info.ucur],
                                  static_cast<std::size_t>(d.pitch) * 8, static_cast<std::size_t>(w) * 8,
                                  static_cast<std::size_t>(h), cudaMemcpyDeviceToHost, st.stream),
                "warm-up download");
    OF_CUDA_TRY(cudaMemcpyAsync(st.pinned + l.stage_ctrl, st.ctrl()->stop, sizeof(int) * kStopSlots,
                                cudaMemcpyDeviceToHost, st.stream),
                "warm-up download");
    OF_CUDA_TRY(cudaStreamSynchronize(st.stream), "warm-up frame");
    return OF_OK;
}

// plan() of every algorithm's CUDA path: resolve is its launch-shape rule.
of_status plan_with(of_status (*resolve)(const of_config&, const LaunchDefaults*, Tuning*, const ErrorSink&),
                    const of_config& cfg, const LaunchDefaults* defaults, Need* need, const ErrorSink& err) {
    Tuning t;
    of_status s = resolve(cfg, defaults, &t, err);
    if (s != OF_OK) return s;
    DevLayout l;
    if (make_layout(cfg, t, &l) != OF_OK)
        return err.fail(OF_ERR_OVERFLOW, "config: CUDA memory plan for %ux%u overflows size_t", cfg.max_width,
                        cfg.max_height);
    need->device_bytes = l.device_bytes;
    need->pinned_bytes = l.pinned_bytes;
    need->state_bytes = sizeof(State);
    need->stream_bytes = l.raw_bytes + l.warm_bytes;
    layout_rows(l, need->device_rows, &need->device_count, need->pinned_rows, &need->pinned_count);
    return OF_OK;
}

} // namespace

bool available(char* why, std::size_t why_len) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n <= 0) {
        std::snprintf(why, why_len, "no CUDA device (%s)", e != cudaSuccess ? cudaGetErrorName(e) : "0 devices");
        (void)cudaGetLastError();
        return false;
    }
    KernelList kl;
    all_kernels(&kl);
    cudaFuncAttributes fa;
    e = cudaFuncGetAttributes(&fa, kl.fn[0]);
    if (e != cudaSuccess) {
        int dev = 0, major = 0, minor = 0;
        (void)cudaGetDevice(&dev);
        (void)cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
        (void)cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
        std::snprintf(why, why_len, "this build has no code for the device (sm_%d%d): %s", major, minor,
                      cudaGetErrorName(e));
        (void)cudaGetLastError();
        return false;
    }
    return true;
}

bool memory_info(std::size_t* free_bytes, std::size_t* total_bytes) {
    const cudaError_t e = cudaMemGetInfo(free_bytes, total_bytes);
    if (e != cudaSuccess) (void)cudaGetLastError();
    return e == cudaSuccess;
}

bool device_caps(int* cc, int* sm_count) {
    int dev = 0, major = 0, minor = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    *cc = major * 10 + minor;
    *sm_count = sms;
    return true;
}

of_status plan(const of_config& cfg, const LaunchDefaults* defaults, Need* need, const ErrorSink& err) {
    return plan_with(resolve_tuning, cfg, defaults, need, err);
}

namespace {

// create() of every algorithm's CUDA path: ops are its steps, resolve its launch shapes.
of_status create_with(const AlgoOps* ops,
                      of_status (*resolve)(const of_config&, const LaunchDefaults*, Tuning*, const ErrorSink&),
                      void* state_slot, void* pinned_slot, const of_config& cfg, const LaunchDefaults* defaults,
                      const CpuLevels& cpu, std::size_t init_device_bytes, const ErrorSink& err, State** out) {
    *out = nullptr;
    State* st = new (state_slot) State();
    *out = st;
    st->ops = ops;
    st->cfg = cfg;
    if (cfg.robust == OF_ROBUST_PICK) st->cfg.warm_start = 0; // pick: no warm start (api/oflow.h)
    st->pick_kept = -1;
    st->cfg.platform = nullptr;
    st->cfg.tuning_path = nullptr;
    st->stream = nullptr;
    st->own_stream = false;
    st->event_ok = false;
    st->arena = nullptr;
    st->own_arena = false;
    st->pinned = static_cast<unsigned char*>(pinned_slot);
    st->registered = false;
    st->device = 0;
    st->sm_count = 1;
    st->graph = nullptr;
    st->graph_ucur = 0;
    st->bench_w = st->bench_h = 0;
    st->bench_ucur = st->bench_pcur = 0;
    st->init = nullptr;
    st->init_off = 0;
    st->cpu = cpu;
    if (cpu.from > 0 && (!cpu.solve || !cpu.pyr[0] || !cpu.pyr[1] || !cpu.flow_xy))
        return err.fail(OF_ERR_INTERNAL, "cuda: split at level %d without its host buffers", cpu.from);
    of_status s = resolve(cfg, defaults, &st->tun, err);
    if (s != OF_OK) return s;
    if (make_layout(cfg, st->tun, &st->lay) != OF_OK)
        return err.fail(OF_ERR_OVERFLOW, "config: CUDA memory plan for %ux%u overflows size_t", cfg.max_width,
                        cfg.max_height);
    st->presmooth = make_gaussian(cfg.presmooth_sigma);
    st->robust_blur = make_gaussian(cfg.robust_sigma);
    st->rho_blur = make_gaussian(cfg.algorithm == OF_ALGO_CLG ? cfg.hs.rho : 0.0f);
    const float f = cfg.scale_factor;
    st->level_blur = make_gaussian(0.6f * std::sqrt(1.0f / (f * f) - 1.0f));
    OF_CUDA_TRY(cudaGetDevice(&st->device), "cudaGetDevice");
    OF_CUDA_TRY(cudaDeviceGetAttribute(&st->sm_count, cudaDevAttrMultiProcessorCount, st->device),
                "cudaDeviceGetAttribute(multiprocessors)");

    // Device arena first: when it does not fit, fail before pinning host memory. With config.init
    // OF_INIT_DIS the DIS pass's bytes follow the layout's (init_child_offset).
    const DevLayout& l = st->lay;
    if ((cfg.init == OF_INIT_DIS) != (init_device_bytes > 0))
        return err.fail(OF_ERR_INTERNAL, "cuda: init %d with %zu device bytes for its DIS pass", static_cast<int>(cfg.init),
                        init_device_bytes);
    st->init_off = init_device_bytes ? init_child_offset(l.device_bytes) : 0;
    const std::size_t arena_bytes = init_device_bytes ? st->init_off + init_device_bytes : l.device_bytes;
    if (cfg.device_arena) {
        if (cfg.device_arena_size < arena_bytes)
            return err.fail(OF_ERR_ARENA, "config: device_arena_size %zu < %zu bytes needed", cfg.device_arena_size,
                            arena_bytes);
        st->arena = static_cast<unsigned char*>(cfg.device_arena);
    } else {
        void* p = nullptr;
        const cudaError_t e = cudaMalloc(&p, arena_bytes);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return err.fail(OF_ERR_DEVICE, "cuda: cudaMalloc(%zu bytes) for the device arena: %s: %s", arena_bytes,
                            cudaGetErrorName(e), cudaGetErrorString(e));
        }
        st->arena = static_cast<unsigned char*>(p);
        st->own_arena = true;
    }
    // Staging: page-locked so that uploads and downloads are true DMA. When registration fails
    // (not supported on older Tegra drivers, a page already registered by a neighbouring small
    // context's arena, a memlock limit) the copies still work from pageable memory.
    {
        const cudaError_t e = cudaHostRegister(st->pinned, l.pinned_bytes, cudaHostRegisterDefault);
        st->registered = e == cudaSuccess;
        if (e != cudaSuccess) (void)cudaGetLastError();
    }
    if (cfg.cuda_stream) {
        st->stream = static_cast<cudaStream_t>(cfg.cuda_stream);
    } else {
        OF_CUDA_TRY(cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking), "cudaStreamCreate");
        st->own_stream = true;
    }
    OF_CUDA_TRY(cudaEventCreateWithFlags(&st->uploaded, cudaEventDisableTiming), "cudaEventCreate");
    st->event_ok = true;
    for (int b = 0; b < kFlowChunks; ++b) {
        OF_CUDA_TRY(cudaEventCreateWithFlags(&st->flow_band[b], cudaEventDisableTiming), "cudaEventCreate");
        st->flow_bands = b + 1;
    }

    // Load every kernel now (lazy module loading would otherwise do it in the first frame) and
    // check the configured block against what the iteration kernels can launch.
    KernelList kl;
    all_kernels(&kl);
    if (kl.dropped > 0)
        return err.fail(OF_ERR_INTERNAL, "cuda: %d kernels do not fit KernelList::kCap = %d (cuda/cuda_kernels.cuh)",
                        kl.dropped, KernelList::kCap);
    for (int i = 0; i < kl.n; ++i) {
        cudaFuncAttributes fa;
        const cudaError_t e = cudaFuncGetAttributes(&fa, kl.fn[i]);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return err.fail(OF_ERR_DEVICE, "cuda: loading kernel %s: %s: %s", kl.name[i], cudaGetErrorName(e),
                            cudaGetErrorString(e));
        }
        // The selected variant's iteration kernels must launch the configured block (their
        // __launch_bounds__ and register use set maxThreadsPerBlock); other variants' do not matter.
        char prefix[40];
        st->ops->iteration_kernels(*st, prefix, sizeof prefix);
        const bool iteration_kernel = std::strncmp(kl.name[i], prefix, std::strlen(prefix)) == 0;
        if (iteration_kernel && st->tun.bw * st->tun.bh > fa.maxThreadsPerBlock)
            return err.fail(OF_ERR_INVALID_ARGUMENT, "config: block %dx%d exceeds the %d threads kernel %s can launch",
                            st->tun.bw, st->tun.bh, fa.maxThreadsPerBlock, kl.name[i]);
    }
    // config.init: no DIS pass is attached yet; the warm-up and the captured graph's fusion read a
    // defined (zero) flow until the first pair writes it.
    if (cfg.init == OF_INIT_DIS)
        OF_CUDA_TRY(cudaMemsetAsync(st->arena + l.init_flow, 0,
                                    static_cast<std::size_t>(l.dims[0].pitch) * 8 * static_cast<std::size_t>(l.dims[0].h),
                                    st->stream),
                    "cudaMemsetAsync(init_flow)");
    s = warm_up(*st, err);
    // A frame split by level waits for the CPU in the middle: no graph (each frame enqueues).
    const bool split_max = st->cpu.from > 0 && st->cpu.from < st->lay.levels;
    if (s == OF_OK && !split_max) s = capture_solver(*st, err);
    if (s != OF_OK) return s;
    return OF_OK;
}

} // namespace

of_status create(void* state_slot, void* pinned_slot, const of_config& cfg, const LaunchDefaults* defaults,
                 const CpuLevels& cpu, std::size_t init_device_bytes, const ErrorSink& err, State** out) {
    return create_with(&kTvl1Ops, resolve_tuning, state_slot, pinned_slot, cfg, defaults, cpu, init_device_bytes, err, out);
}

of_status hs_create(void* state_slot, void* pinned_slot, const of_config& cfg, const LaunchDefaults* defaults,
                    const CpuLevels& cpu, std::size_t init_device_bytes, const ErrorSink& err, State** out) {
    return create_with(&kHsOps, hs_resolve_tuning, state_slot, pinned_slot, cfg, defaults, cpu, init_device_bytes, err, out);
}

of_status hs_plan(const of_config& cfg, const LaunchDefaults* defaults, Need* need, const ErrorSink& err) {
    return plan_with(hs_resolve_tuning, cfg, defaults, need, err);
}

of_status lk_create(void* state_slot, void* pinned_slot, const of_config& cfg, const LaunchDefaults* defaults,
                    const CpuLevels& cpu, std::size_t init_device_bytes, const ErrorSink& err, State** out) {
    return create_with(&kLkOps, lk_resolve_tuning, state_slot, pinned_slot, cfg, defaults, cpu, init_device_bytes, err, out);
}

of_status lk_plan(const of_config& cfg, const LaunchDefaults* defaults, Need* need, const ErrorSink& err) {
    return plan_with(lk_resolve_tuning, cfg, defaults, need, err);
}

of_status dis_create(void* state_slot, void* pinned_slot, const of_config& cfg, const LaunchDefaults* defaults,
                     const CpuLevels& cpu, std::size_t init_device_bytes, const ErrorSink& err, State** out) {
    return create_with(&kDisOps, dis_resolve_tuning, state_slot, pinned_slot, cfg, defaults, cpu, init_device_bytes, err, out);
}

of_status dis_plan(const of_config& cfg, const LaunchDefaults* defaults, Need* need, const ErrorSink& err) {
    return plan_with(dis_resolve_tuning, cfg, defaults, need, err);
}

namespace {

// The validity plane of host output, after the wait, with the flow, from `plane` (the level-0
// confidence, packed rows of out.width floats) by write_validity's rule (core/flow_driver.cpp),
// as k_write_validity does on the device: the mask confidence_mask(c, min_conf) or c.
void fill_valid_host(const of_flow& out, const float* plane, float min_conf) {
    if (out.valid_format == OF_VALID_NONE) return;
    unsigned char* base = static_cast<unsigned char*>(out.valid);
    const bool mask = out.valid_format == OF_VALID_MASK_U8;
    for (uint32_t y = 0; y < out.height; ++y) {
        unsigned char* row = base + static_cast<std::size_t>(y) * out.valid_stride;
        const float* k = plane + static_cast<std::size_t>(y) * out.width;
        float* c = reinterpret_cast<float*>(row);
        for (uint32_t x = 0; x < out.width; ++x) {
            const float v = k[x];
            if (mask)
                row[x] = confidence_mask(v, min_conf);
            else
                c[x] = v;
        }
    }
}

// The finiteness check of F32 frames in device memory (bit 1 << f for frame f of n, named
// names[f]): on the device, one wait.
of_status check_device_frames(State* st, const of_image* const* img, const Src* src, const char* const* names, int n,
                              const ErrorSink& err) {
    bool any = false;
    for (int f = 0; f < n; ++f) any = any || img[f]->memory == OF_MEMORY_CUDA_DEVICE;
    if (st->cfg.format != OF_PIXEL_F32 || !any) return OF_OK;
    const cudaStream_t s = st->stream;
    const int w = static_cast<int>(img[0]->width), h = static_cast<int>(img[0]->height);
    int* flag = &st->ctrl()->nonfinite;
    int* back = reinterpret_cast<int*>(st->pinned + st->lay.stage_ctrl) + kStageNonfinite;
    OF_CUDA_TRY(cudaMemsetAsync(flag, 0, sizeof(int), s), "cudaMemsetAsync(nonfinite)");
    for (int f = 0; f < n; ++f)
        if (img[f]->memory == OF_MEMORY_CUDA_DEVICE)
            OF_CUDA_TRY(launch_nonfinite(src[f].p, src[f].stride, w, h, flag, 1 << f, s), "finiteness check launch");
    OF_CUDA_TRY(cudaMemcpyAsync(back, flag, sizeof(int), cudaMemcpyDeviceToHost, s), "finiteness flag download");
    OF_CUDA_TRY(cudaStreamSynchronize(s), "finiteness check");
    for (int f = 0; f < n; ++f)
        if (*back & (1 << f)) return fail_invalid_pixels(err, names[f]);
    return OF_OK;
}

// Before host frames go into the staging region: the previous frame's upload out of it must be
// done (only in flight after a frame with device output).
of_status staging_free(State* st, const ErrorSink& err) {
    const cudaError_t q = cudaEventQuery(st->uploaded);
    if (q == cudaErrorNotReady) {
        (void)cudaGetLastError(); // "not ready" is an answer, not an error to report later
        OF_CUDA_TRY(cudaEventSynchronize(st->uploaded), "waiting for the previous upload");
    } else if (q != cudaSuccess) {
        return device_fail(err, "previous upload", q);
    }
    return OF_OK;
}

// Bytes from a plane's first row to the end of its last: (h - 1) * stride + row.
std::size_t span_bytes(std::size_t stride, uint32_t h, std::size_t row) {
    return stride * (static_cast<std::size_t>(h) - 1) + row;
}

// A host frame in a registered buffer (of_register_host): straight into upload slot `slot` by DMA.
bool upload_registered(State* st, const of_image& img, int slot, Src* src, of_status* r, const ErrorSink& err) {
    const std::size_t row = static_cast<std::size_t>(img.width) * format_bytes(img.format);
    if (!st->in_registered(img.data, span_bytes(img.stride, img.height, row))) return false;
    const cudaError_t e = cudaMemcpy2DAsync(st->arena + st->lay.raw[slot], row, img.data, img.stride, row, img.height,
                                            cudaMemcpyHostToDevice, st->stream);
    *r = e == cudaSuccess ? OF_OK : device_fail(err, "frame upload (registered)", e);
    *src = Src{st->arena + st->lay.raw[slot], row};
    return true;
}

// Rows [a, b) of a host frame (rows `stride` bytes apart) into the staging (packed rows of `row`
// bytes).
struct FrameCopy {
    unsigned char* dst;
    const unsigned char* from;
    std::size_t row, stride;
};
void copy_frame_rows(void* arg, int a, int b) {
    const FrameCopy& c = *static_cast<const FrameCopy*>(arg);
    if (c.stride == c.row) {
        std::memcpy(c.dst + c.row * static_cast<std::size_t>(a), c.from + c.row * static_cast<std::size_t>(a),
                    c.row * static_cast<std::size_t>(b - a));
        return;
    }
    for (int y = a; y < b; ++y)
        std::memcpy(c.dst + c.row * static_cast<std::size_t>(y), c.from + c.stride * static_cast<std::size_t>(y), c.row);
}

/// Frames of at least this many bytes are copied into the staging on the context's threads
/// (config.threads); below it waking the pool costs more than the copy.
const std::size_t kPoolCopyBytes = 256 * 1024;

// A host frame through staging slot `stage` into upload slot `slot`; returns its device view.
// The copy into the staging runs on the context's threads (config.threads) for large frames.
of_status upload_host_frame(State* st, const of_image& img, int stage, int slot, Src* src, const ErrorSink& err) {
    const DevLayout& l = st->lay;
    const int h = static_cast<int>(img.height);
    const std::size_t row = static_cast<std::size_t>(img.width) * format_bytes(img.format);
    FrameCopy copy{st->pinned + l.stage_frame[stage], static_cast<const unsigned char*>(img.data), row, img.stride};
    if (st->cpu.rows && row * static_cast<std::size_t>(h) >= kPoolCopyBytes)
        st->cpu.rows(st->cpu.user, h, &copy_frame_rows, &copy);
    else
        copy_frame_rows(&copy, 0, h);
    unsigned char* dst = copy.dst;
    OF_CUDA_TRY(cudaMemcpyAsync(st->arena + l.raw[slot], dst, stage_bytes(img), cudaMemcpyHostToDevice, st->stream),
                "frame upload");
    *src = Src{st->arena + l.raw[slot], row};
    return OF_OK;
}

// Steps 1-3 of a pair: the frames checked and where the device can read them (host frames
// uploaded into raw[0] / raw[1]).
of_status stage_pair(State* st, const of_image& prev, const of_image& next, Src* src, const ErrorSink& err) {
    const of_image* img[2] = {&prev, &next};
    const char* const names[2] = {"prev", "next"};

    // 1. F32 frames the host can read: check them before anything is enqueued.
    for (int f = 0; f < 2; ++f)
        if (img[f]->memory != OF_MEMORY_CUDA_DEVICE && !image_pixels_valid(*img[f]))
            return fail_invalid_pixels(err, names[f]);

    for (int f = 0; f < 2; ++f) {
        const void* p = nullptr;
        of_status r = device_view(img[f]->data, img[f]->memory, &p, names[f], err);
        if (r != OF_OK) return r;
        src[f] = Src{p, img[f]->stride};
    }

    // 2. F32 frames in device memory: finiteness on the device (bit 1: prev, bit 2: next), one wait.
    of_status r = check_device_frames(st, img, src, names, 2, err);
    if (r != OF_OK) return r;

    // 3. Host frames go up by DMA from a registered buffer, else through the staging region.
    bool staged = false;
    for (int f = 0; f < 2; ++f) {
        if (img[f]->memory != OF_MEMORY_HOST) continue;
        if (upload_registered(st, *img[f], f, &src[f], &r, err)) {
            if (r != OF_OK) return r;
            continue;
        }
        if (!staged) {
            r = staging_free(st, err);
            if (r != OF_OK) return r;
            staged = true;
        }
        r = upload_host_frame(st, *img[f], f, f, &src[f], err);
        if (r != OF_OK) return r;
    }
    if (staged) OF_CUDA_TRY(cudaEventRecord(st->uploaded, st->stream), "cudaEventRecord");
    return OF_OK;
}

// Rows [y0 + a, y0 + b) of a host flow from the staging (packed rows of `row` bytes; planar: the
// v plane v_off bytes after u) into the caller's planes.
struct BandCopy {
    const unsigned char* stage;
    unsigned char* u;
    unsigned char* v; // null when interleaved
    std::size_t stride, row, v_off;
    int y0;
};
void copy_band_rows(void* arg, int a, int b) {
    const BandCopy& c = *static_cast<const BandCopy*>(arg);
    for (int y = c.y0 + a; y < c.y0 + b; ++y) {
        const std::size_t yo = static_cast<std::size_t>(y);
        std::memcpy(c.u + yo * c.stride, c.stage + yo * c.row, c.row);
        if (c.v) std::memcpy(c.v + yo * c.stride, c.stage + c.v_off + yo * c.row, c.row);
    }
}

// One frame pair whose frames the device can read at src[0], src[1] (stage_pair, or a stream's
// upload slots); prev gives the size (process() below adds the clean-up after a device error).
// *warm_taken: Ctrl::warm_taken when the frame waited (config.warm_start), else 2 when the
// warm plane was offered, 0 when not; *gpu_levels: the levels the device solved.
of_status process_frame(State* st, const of_image& prev, const Src* src, const of_flow& out, bool warm_ready,
                        const ErrorSink& err, uint64_t* iterations, int* levels, int* coarsest, int* warm_taken,
                        int* gpu_levels) {
    DeviceScope scope(st->device);
    const DevLayout& l = st->lay;
    const cudaStream_t s = st->stream;
    const int w = static_cast<int>(prev.width), h = static_cast<int>(prev.height);
    *warm_taken = 0;
    if (st->cfg.warm_start)
        OF_CUDA_TRY(cudaMemsetAsync(&st->ctrl()->warm_ready, warm_ready ? 1 : 0, sizeof(int), s),
                    "cudaMemsetAsync(warm_ready)");

    // 4. config.init OF_INIT_DIS: the DIS pass on the same device frames, then the solver.
    of_status r = init_dis_run(*st, src, w, h, err);
    if (r != OF_OK) return r;
    SolveInfo info;
    r = run_frame(*st, src[0], src[1], w, h, err, &info);
    if (r != OF_OK) return r;
    *gpu_levels = info.gpu_levels;
    const bool warm_here = st->cfg.warm_start && warm_ready && warm_level(info.levels) < info.gpu_levels;
    if (warm_here) *warm_taken = 2;
    const DPlane<float2> u = st->plane<float2>(l.u[info.ucur], info.dims[0]);
    const std::size_t row8 = static_cast<std::size_t>(w) * 8;
    // The validity output's level-0 confidence plane (core/confidence.hpp), when asked for: the
    // residual confidence of the final flow, enqueued here after the solve and before the
    // output, combined with the algorithm's own plane where it has one (LK's lambda; half: the
    // value that maps to 0.5).
    const bool want_valid = out.valid_format != OF_VALID_NONE;
    const float min_conf = st->cfg.min_confidence;
    DPlane<float> plane{nullptr, w, h, static_cast<int>(info.dims[0].pitch)};
    if (want_valid) {
        float half = 0.0f;
        const float* own = st->ops->confidence ? st->ops->confidence(*st, &half) : nullptr;
        r = residual_confidence(*st, src, info.dims[0], info.ucur, DPlane<const float>{own, w, h, plane.pitch}, half, &plane,
                                err);
        if (r != OF_OK) return r;
    }
    const DPlane<const float> conf{plane.p, w, h, plane.pitch};
    *levels = info.levels;
    // Coarsest level solved: known to the host unless the device decided it (texture rule, no
    // split); then levels - 1 until the wait below brings the device's value back. With device
    // output nothing waits, and levels - 1 is what is reported.
    *coarsest = info.top >= 0 ? info.top : info.levels - 1;
    // GPU levels that count: those at or below the coarsest level solved (the ones above it run
    // and are discarded, and the CPU path does not run them).
    const auto counted = [&info](int top) { return top + 1 < info.gpu_levels ? top + 1 : info.gpu_levels; };
    uint64_t scheduled = info.cpu_iterations; // the CPU levels' count is exact
    for (int lv = 0; lv < counted(*coarsest); ++lv)
        scheduled += static_cast<uint64_t>(st->cfg.warps) * scheduled_iterations(st->cfg, lv);
    const bool pick = st->cfg.robust == OF_ROBUST_PICK;
    st->pick_kept = -1; // known after the wait below
    *iterations = pick ? scheduled * static_cast<uint64_t>(pick_count(st->cfg.algorithm)) : scheduled;

    // 5. Output. Compact formats (of_flow.format F16, S10.5) are converted on the device
    // (launch_write_flow16, core/flow_format.hpp): host output downloads 2 bytes per component,
    // device and mapped output are written in the format directly. The staging holds the F32
    // flow (8 bytes a pixel), so the compact one (4) fits.
    const std::size_t plane4 = static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 4;
    const of_flow_format fmt = out.format;
    const bool compact = fmt != OF_FLOW_FORMAT_F32;
    const bool planar_out = out.layout == OF_FLOW_PLANAR;
    const std::size_t eb = compact ? 2 : 4; // bytes per element of the output
    const std::size_t plane_e = static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * eb;
    // Host output: the packed rows on the device (out_src: F32 planar and compact formats in the free
    // output scratch planes (DevLayout::out_scratch), v at out_v; F32 interleaved straight from the u plane), then either one DMA
    // straight into the caller's planes when they lie in registered buffers (of_register_host), or
    // kFlowChunks row bands through the staging, each band's copy out of the staging overlapping the
    // next band's download (one wait per band: cuda_backend.hpp).
    const std::size_t out_row = static_cast<std::size_t>(w) * eb * (planar_out ? 1 : 2);
    const unsigned char* out_src = nullptr;
    const unsigned char* out_v = nullptr;
    std::size_t out_pitch = out_row;
    bool direct = false;
    int bands = 0;
    if (out.memory == OF_MEMORY_HOST) {
        unsigned char* sc = st->arena + l.out_scratch;
        if (compact) {
            OF_CUDA_TRY(launch_write_flow16({u.p, u.w, u.h, u.pitch}, fmt, sc, planar_out ? sc + plane_e : nullptr,
                                            static_cast<std::size_t>(w) * (planar_out ? 2 : 4), s),
                        "flow output launch");
            out_src = sc;
            out_v = planar_out ? sc + plane_e : nullptr;
        } else if (planar_out) {
            float* su = reinterpret_cast<float*>(sc);
            OF_CUDA_TRY(launch_write_planar({u.p, u.w, u.h, u.pitch}, su, su + plane4 / 4, static_cast<std::size_t>(w) * 4, s),
                        "flow output launch");
            out_src = sc;
            out_v = sc + plane4;
        } else {
            out_src = reinterpret_cast<const unsigned char*>(u.p);
            out_pitch = static_cast<std::size_t>(u.pitch) * 8;
        }
        const std::size_t span = span_bytes(out.stride, out.height, out_row);
        direct = st->in_registered(out.u, span) && (!planar_out || st->in_registered(out.v, span));
        if (direct) {
            OF_CUDA_TRY(cudaMemcpy2DAsync(out.u, out.stride, out_src, out_pitch, out_row, static_cast<std::size_t>(h),
                                          cudaMemcpyDeviceToHost, s),
                        "flow download (registered)");
            if (planar_out)
                OF_CUDA_TRY(cudaMemcpy2DAsync(out.v, out.stride, out_v, out_pitch, out_row, static_cast<std::size_t>(h),
                                              cudaMemcpyDeviceToHost, s),
                            "flow download (registered)");
        } else {
            unsigned char* stage = st->pinned + l.stage_flow;
            bands = h < kFlowChunks ? h : kFlowChunks;
            for (int b = 0; b < bands; ++b) {
                const int y0 = h * b / bands, y1 = h * (b + 1) / bands;
                const std::size_t rows = static_cast<std::size_t>(y1 - y0), yo = static_cast<std::size_t>(y0);
                OF_CUDA_TRY(cudaMemcpy2DAsync(stage + yo * out_row, out_row, out_src + yo * out_pitch, out_pitch, out_row, rows,
                                              cudaMemcpyDeviceToHost, s),
                            "flow download");
                if (planar_out)
                    OF_CUDA_TRY(cudaMemcpy2DAsync(stage + plane_e + yo * out_row, out_row, out_v + yo * out_pitch, out_pitch,
                                                  out_row, rows, cudaMemcpyDeviceToHost, s),
                                "flow download");
                OF_CUDA_TRY(cudaEventRecord(st->flow_band[b], s), "cudaEventRecord(flow band)");
            }
        }
    } else {
        const void* du = nullptr;
        const void* dv = nullptr;
        const void* dvalid = nullptr;
        r = device_view(out.u, out.memory, &du, "flow.u", err);
        if (r == OF_OK && out.layout == OF_FLOW_PLANAR) r = device_view(out.v, out.memory, &dv, "flow.v", err);
        if (r == OF_OK && out.valid_format != OF_VALID_NONE) r = device_view(out.valid, out.memory, &dvalid, "flow.valid", err);
        if (r != OF_OK) return r;
        if (compact) {
            OF_CUDA_TRY(launch_write_flow16({u.p, u.w, u.h, u.pitch}, fmt, const_cast<void*>(du),
                                            planar_out ? const_cast<void*>(dv) : nullptr, out.stride, s),
                        "flow output launch");
        } else if (out.layout == OF_FLOW_INTERLEAVED) {
            OF_CUDA_TRY(cudaMemcpy2DAsync(const_cast<void*>(du), out.stride, u.p, static_cast<std::size_t>(u.pitch) * 8, row8,
                                          static_cast<std::size_t>(h), cudaMemcpyDeviceToDevice, s),
                        "flow copy");
        } else {
            OF_CUDA_TRY(launch_write_planar({u.p, u.w, u.h, u.pitch}, static_cast<float*>(const_cast<void*>(du)),
                                            static_cast<float*>(const_cast<void*>(dv)), out.stride, s),
                        "flow output launch");
        }
        if (want_valid)
            OF_CUDA_TRY(launch_write_validity(conf, min_conf, out.valid_format == OF_VALID_MASK_U8, const_cast<void*>(dvalid),
                                              out.valid_stride, s),
                        "validity launch");
        if (out.memory == OF_MEMORY_CUDA_DEVICE) return OF_OK; // complete when the stream gets there
    }
    const bool valid_host = out.memory == OF_MEMORY_HOST && want_valid;
    if (valid_host)
        OF_CUDA_TRY(cudaMemcpy2DAsync(st->pinned + l.stage_valid, static_cast<std::size_t>(w) * 4, conf.p,
                                      static_cast<std::size_t>(conf.pitch) * 4, static_cast<std::size_t>(w) * 4,
                                      static_cast<std::size_t>(h), cudaMemcpyDeviceToHost, s),
                    "confidence download");
    OF_CUDA_TRY(cudaMemcpyAsync(st->pinned + l.stage_ctrl, st->ctrl()->stop, sizeof(int) * kStopSlots,
                                cudaMemcpyDeviceToHost, s),
                "stop slots download");
    const int* stop = reinterpret_cast<const int*>(st->pinned + l.stage_ctrl);
    if (warm_here)
        OF_CUDA_TRY(cudaMemcpyAsync(st->pinned + l.stage_ctrl + sizeof(int) * kStageWarm, &st->ctrl()->warm_taken,
                                    sizeof(int), cudaMemcpyDeviceToHost, s),
                    "warm start choice download");
    if (info.top < 0)
        OF_CUDA_TRY(cudaMemcpyAsync(st->pinned + l.stage_ctrl + sizeof(int) * kStageTop, &st->ctrl()->top, sizeof(int),
                                    cudaMemcpyDeviceToHost, s),
                    "coarsest level download");
    const std::size_t pick_ints = static_cast<std::size_t>(pick_count(st->cfg.algorithm)) * kPickStopInts;
    const int* pick_stop = reinterpret_cast<const int*>(st->pinned + l.stage_pick);
    if (pick) {
        OF_CUDA_TRY(cudaMemcpyAsync(st->pinned + l.stage_pick, st->arena + l.pick_stop, sizeof(int) * pick_ints,
                                    cudaMemcpyDeviceToHost, s),
                    "robust pick download");
        OF_CUDA_TRY(cudaMemcpyAsync(st->pinned + l.stage_pick + sizeof(int) * pick_ints, &st->ctrl()->pick_kept,
                                    sizeof(int), cudaMemcpyDeviceToHost, s),
                    "robust pick download");
    }
    // The bands' copies out of the staging, each as soon as its download is done, on the
    // context's threads (config.threads).
    BandCopy copy{st->pinned + l.stage_flow, static_cast<unsigned char*>(static_cast<void*>(out.u)),
                  static_cast<unsigned char*>(static_cast<void*>(out.v)), out.stride, out_row, planar_out ? plane_e : 0, 0};
    for (int b = 0; b < bands; ++b) {
        OF_CUDA_TRY(cudaEventSynchronize(st->flow_band[b]), "flow download");
        copy.y0 = h * b / bands;
        const int n = h * (b + 1) / bands - copy.y0;
        if (st->cpu.rows)
            st->cpu.rows(st->cpu.user, n, &copy_band_rows, &copy);
        else
            copy_band_rows(&copy, 0, n);
    }
    OF_CUDA_TRY(cudaStreamSynchronize(s), "frame");

    if (info.top < 0) *coarsest = stop[kStageTop];
    if (warm_here) *warm_taken = stop[kStageWarm] != 0 ? 1 : 0;
    // Iterations run: of each candidate's levels at or below its own coarsest level under pick.
    const auto ran_of = [&](const int* slots, int top) {
        uint64_t n = 0;
        for (int lv = 0; lv < counted(top); ++lv)
            for (uint32_t wp = 0; wp < st->cfg.warps; ++wp)
                n += static_cast<uint64_t>(
                    iterations_run(*st, info.dims[lv], slots[lv * kMaxWarps + static_cast<int>(wp)],
                                   static_cast<int>(scheduled_iterations(st->cfg, lv))));
        return n;
    };
    uint64_t ran = 0;
    if (pick) {
        for (int c = 0; c < pick_count(st->cfg.algorithm); ++c) {
            const int* slots = pick_stop + static_cast<std::size_t>(c) * kPickStopInts;
            ran += ran_of(slots, info.top < 0 ? slots[kStopSlots] : info.top);
        }
        const int kept = pick_stop[pick_ints];
        st->pick_kept = kept >= 0 && kept < pick_count(st->cfg.algorithm) ? kept : -1;
    } else {
        ran = ran_of(stop, *coarsest);
    }
    *iterations = ran + info.cpu_iterations;

    if (valid_host) fill_valid_host(out, reinterpret_cast<const float*>(st->pinned + l.stage_valid), min_conf);
    return OF_OK;
}

} // namespace

of_status process(State* st, const of_image& prev, const of_image& next, const of_flow& out, const ErrorSink& err,
                  uint64_t* iterations, int* levels, int* coarsest) {
    if (!st) return err.fail(OF_ERR_INTERNAL, "cuda: process without a state");
    of_status r;
    {
        DeviceScope scope(st->device);
        Src src[2];
        r = stage_pair(st, prev, next, src, err);
        int warm = 0, gpu_levels = 0;
        if (r == OF_OK)
            r = process_frame(st, prev, src, out, false, err, iterations, levels, coarsest, &warm, &gpu_levels);
    }
    if (r == OF_ERR_DEVICE) {
        // Work enqueued before the failure may still be running: wait for it (errors ignored: the
        // status already says what failed), so that the next frame starts on an idle stream with
        // the staging region free. Only on this error path.
        DeviceScope scope(st->device);
        (void)cudaStreamSynchronize(st->stream);
        (void)cudaGetLastError();
    }
    return r;
}

namespace {

of_status push_frame(State* st, const of_image& frame, const of_flow* out, StreamStep* step, const ErrorSink& err,
                     uint64_t* iterations, int* levels, int* coarsest) {
    DeviceScope scope(st->device);
    const DevLayout& l = st->lay;
    const int h = static_cast<int>(frame.height);
    const std::size_t row = static_cast<std::size_t>(frame.width) * format_bytes(frame.format);
    const int slot = st->keep_slot ^ 1; // the kept frame's slot stays untouched until the swap
    const of_image* img[1] = {&frame};
    const char* const names[1] = {"frame"};
    if (frame.memory != OF_MEMORY_CUDA_DEVICE && !image_pixels_valid(frame)) return fail_invalid_pixels(err, "frame");
    const void* p = nullptr;
    of_status r = device_view(frame.data, frame.memory, &p, "frame", err);
    if (r != OF_OK) return r;
    Src in{p, frame.stride};
    r = check_device_frames(st, img, &in, names, 1, err);
    if (r != OF_OK) return r;
    Src src[2];
    src[0] = Src{st->arena + l.raw[st->keep_slot], row};
    if (frame.memory == OF_MEMORY_HOST && upload_registered(st, frame, slot, &src[1], &r, err)) {
        if (r != OF_OK) return r;
    } else if (frame.memory == OF_MEMORY_HOST) {
        r = staging_free(st, err);
        if (r == OF_OK) r = upload_host_frame(st, frame, 0, slot, &src[1], err);
        if (r != OF_OK) return r;
        OF_CUDA_TRY(cudaEventRecord(st->uploaded, st->stream), "cudaEventRecord");
    } else { // device or mapped memory: a device copy on the stream (api/oflow.h: reuse in stream order)
        OF_CUDA_TRY(cudaMemcpy2DAsync(st->arena + l.raw[slot], row, p, frame.stride, row, static_cast<std::size_t>(h),
                                      cudaMemcpyDeviceToDevice, st->stream),
                    "frame copy");
        src[1] = Src{st->arena + l.raw[slot], row};
    }
    if (!step->pair) {
        st->keep_slot = slot;
        return OF_OK;
    }
    int gpu_levels = 0;
    r = process_frame(st, frame, src, *out, step->warm_ready, err, iterations, levels, coarsest, &step->warm_taken,
                      &gpu_levels);
    if (r != OF_OK) return r;
    step->warm_kept = st->cfg.warm_start != 0 && warm_level(*levels) < gpu_levels;
    st->keep_slot = slot;
    return OF_OK;
}

} // namespace

of_robust last_pick(const State* st) {
    return st && st->pick_kept >= 0 ? pick_candidates(st->cfg.algorithm)[st->pick_kept] : OF_ROBUST_PICK;
}

of_status push(State* st, const of_image& frame, const of_flow* out, StreamStep* step, const ErrorSink& err,
               uint64_t* iterations, int* levels, int* coarsest) {
    if (!st) return err.fail(OF_ERR_INTERNAL, "cuda: push without a state");
    if (step->pair && !out) return err.fail(OF_ERR_INTERNAL, "cuda: a stream pair without a flow");
    const of_status r = push_frame(st, frame, out, step, err, iterations, levels, coarsest);
    if (r == OF_ERR_DEVICE) {
        DeviceScope scope(st->device);
        (void)cudaStreamSynchronize(st->stream);
        (void)cudaGetLastError();
    }
    return r;
}

of_status register_host(State* st, void* p, std::size_t bytes, const ErrorSink& err) {
    if (!st) return err.fail(OF_ERR_INTERNAL, "cuda: register without a state");
    const unsigned char* b = static_cast<const unsigned char*>(p);
    int slot = -1;
    for (int i = 0; i < OF_MAX_REGISTERED; ++i) {
        const State::HostRange& r = st->reg[i];
        if (!r.n) {
            if (slot < 0) slot = i;
            continue;
        }
        if (b < r.p + r.n && r.p < b + bytes)
            return err.fail(OF_ERR_INVALID_ARGUMENT, "of_register_host: %zu bytes at %p overlap the registered %zu at %p",
                            bytes, p, r.n, static_cast<const void*>(r.p));
    }
    if (slot < 0)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "of_register_host: %d buffers are registered already (OF_MAX_REGISTERED)",
                        OF_MAX_REGISTERED);
    DeviceScope scope(st->device);
    const cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterDefault);
    if (e != cudaSuccess) return device_fail(err, "of_register_host: cudaHostRegister", e);
    st->reg[slot] = State::HostRange{b, bytes};
    return OF_OK;
}

of_status unregister_host(State* st, const void* p, const ErrorSink& err) {
    if (!st) return err.fail(OF_ERR_INTERNAL, "cuda: unregister without a state");
    for (State::HostRange& r : st->reg) {
        if (!r.n || r.p != p) continue;
        DeviceScope scope(st->device);
        // Transfers from or to it may still be in flight (device output returns at once).
        (void)cudaStreamSynchronize(st->stream);
        const cudaError_t e = cudaHostUnregister(const_cast<unsigned char*>(r.p));
        r = State::HostRange{nullptr, 0};
        if (e != cudaSuccess) return device_fail(err, "of_unregister_host: cudaHostUnregister", e);
        return OF_OK;
    }
    return err.fail(OF_ERR_INVALID_ARGUMENT, "of_unregister_host: %p is not a registered buffer", p);
}

void destroy(State* st) {
    if (!st) return;
    DeviceScope scope(st->device);
    if (st->stream) (void)cudaStreamSynchronize(st->stream);
    for (State::HostRange& r : st->reg)
        if (r.n) (void)cudaHostUnregister(const_cast<unsigned char*>(r.p));
    if (st->graph) (void)cudaGraphExecDestroy(st->graph);
    if (st->event_ok) (void)cudaEventDestroy(st->uploaded);
    for (int b = 0; b < st->flow_bands; ++b) (void)cudaEventDestroy(st->flow_band[b]);
    if (st->own_stream && st->stream) (void)cudaStreamDestroy(st->stream);
    if (st->registered) (void)cudaHostUnregister(st->pinned);
    if (st->own_arena && st->arena) (void)cudaFree(st->arena);
    (void)cudaGetLastError();
    st->~State();
}

const char* variant_name(const State* st) { return st ? tuning_name(st->tun) : "cuda"; }

of_precision precision(const State* st) { return st ? st->tun.precision : OF_PRECISION_F32; }

} // namespace cuda
} // namespace oflow
