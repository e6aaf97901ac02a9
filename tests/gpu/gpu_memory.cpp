// gpu_memory: what the CUDA path does with memory and time.
//  - After of_create, of_process neither allocates device/pinned/managed memory nor waits more
//    than the contract says. The binary is linked with --wrap for cudaMalloc, cudaMallocHost,
//    cudaHostAlloc, cudaMallocManaged, cudaMallocAsync (CUDA >= 11.2), cudaHostRegister and
//    for cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize: liboflow.a's
//    references land in the counters below (cudart is linked statically). Host allocations
//    are counted too (tests/alloc_counter.cpp). Expected per frame:
//        device U8 frames + device flow:  0 allocations, 0 waits
//        host frames + host flow:          0 allocations, 9 waits (kHostFlowWaits: one per row band
//                                          of the flow's download through the staging, then the
//                                          frame's end)
//        device F32 frames + device flow:  0 allocations, 1 wait (the finiteness check)
//        host F32 frames + host flow:      0 allocations, 9 waits
//        a frame split by level (AUTO, xavier table): one more wait (the coarse pyramids)
//    and the same for HS / CLG and for Lucas-Kanade; the validity plane (in the flow's memory:
//    LK's from its level-0 confidence, TV-L1's, HS's and CLG's the residual confidence computed
//    after the solve, under robust pick from its judge images, else from both frames converted
//    and normalised again) adds neither a wait nor an allocation.
//  - A caller device arena: create allocates no device memory; too small -> OF_ERR_ARENA.
//  - A caller stream is used (work is on it).
//  - Out of device memory at create (32768 x 32768; a second one on GPUs big enough for the
//    first) -> OF_ERR_DEVICE or OF_ERR_OUT_OF_MEMORY with a message; the next create works.
//  - No lazy set-up: the first of_process after create takes at most twice the second.
#include "alloc_counter.hpp"
#include "gpu_util.hpp"

#include "core/algorithm.hpp"
#include "cuda/cuda_layout.hpp"

#include <atomic>
#include <chrono>

using namespace gputest;

// ---- counting wrappers --------------------------------------------------------------------
namespace {

// Waits of a frame with host flow output: one per row band of the download through the staging
// (kFlowChunks; frames here have at least that many rows), then the end.
const long kHostFlowWaits = oflow::cuda::kFlowChunks + 1;
std::atomic<bool> g_armed{false};
std::atomic<long> g_dev_allocs{0}, g_waits{0};
const char* volatile g_first_alloc = nullptr;
const char* volatile g_first_wait = nullptr;

void count_alloc(const char* fn) {
    if (!g_armed.load()) return;
    if (g_dev_allocs.fetch_add(1) == 0) g_first_alloc = fn;
}
void count_wait(const char* fn) {
    if (!g_armed.load()) return;
    if (g_waits.fetch_add(1) == 0) g_first_wait = fn;
}
} // namespace

extern "C" {
cudaError_t __real_cudaMalloc(void** p, size_t n);
cudaError_t __real_cudaMallocHost(void** p, size_t n);
cudaError_t __real_cudaHostAlloc(void** p, size_t n, unsigned int flags);
cudaError_t __real_cudaMallocManaged(void** p, size_t n, unsigned int flags);
cudaError_t __real_cudaHostRegister(void* p, size_t n, unsigned int flags);
cudaError_t __real_cudaStreamSynchronize(cudaStream_t s);
cudaError_t __real_cudaDeviceSynchronize(void);
cudaError_t __real_cudaEventSynchronize(cudaEvent_t e);

cudaError_t __wrap_cudaMalloc(void** p, size_t n) {
    count_alloc("cudaMalloc");
    return __real_cudaMalloc(p, n);
}
cudaError_t __wrap_cudaMallocHost(void** p, size_t n) {
    count_alloc("cudaMallocHost");
    return __real_cudaMallocHost(p, n);
}
cudaError_t __wrap_cudaHostAlloc(void** p, size_t n, unsigned int flags) {
    count_alloc("cudaHostAlloc");
    return __real_cudaHostAlloc(p, n, flags);
}
cudaError_t __wrap_cudaMallocManaged(void** p, size_t n, unsigned int flags) {
    count_alloc("cudaMallocManaged");
    return __real_cudaMallocManaged(p, n, flags);
}
cudaError_t __wrap_cudaHostRegister(void* p, size_t n, unsigned int flags) {
    count_alloc("cudaHostRegister");
    return __real_cudaHostRegister(p, n, flags);
}
cudaError_t __wrap_cudaStreamSynchronize(cudaStream_t s) {
    count_wait("cudaStreamSynchronize");
    return __real_cudaStreamSynchronize(s);
}
cudaError_t __wrap_cudaDeviceSynchronize(void) {
    count_wait("cudaDeviceSynchronize");
    return __real_cudaDeviceSynchronize();
}
cudaError_t __wrap_cudaEventSynchronize(cudaEvent_t e) {
    count_wait("cudaEventSynchronize");
    return __real_cudaEventSynchronize(e);
}
#if OF_TEST_WRAP_MALLOC_ASYNC
cudaError_t __real_cudaMallocAsync(void** p, size_t n, cudaStream_t s);
cudaError_t __wrap_cudaMallocAsync(void** p, size_t n, cudaStream_t s) {
    count_alloc("cudaMallocAsync");
    return __real_cudaMallocAsync(p, n, s);
}
#endif
} // extern "C"

namespace {

struct Counts {
    long dev_allocs, waits, host_allocs;
};

void arm() {
    g_dev_allocs = 0;
    g_waits = 0;
    g_first_alloc = nullptr;
    g_first_wait = nullptr;
    oftest::alloc::arm();
    g_armed = true;
}
Counts disarm() {
    g_armed = false;
    const long h = oftest::alloc::disarm();
    return Counts{g_dev_allocs.load(), g_waits.load(), h};
}

void test_wrappers_active() {
    // The wrappers must see liboflow's calls: create allocates and registers.
    of_config c = tvl1_config(64, 48);
    c.backend = OF_BACKEND_CUDA;
    arm();
    of_context* ctx = create_or_report(c, "wrapper check");
    const Counts k = disarm();
    CHECK(ctx != nullptr);
    std::printf("of_create: %ld device/pinned allocations or registrations, %ld waits\n", k.dev_allocs, k.waits);
    CHECK_MSG(k.dev_allocs >= 2, "the --wrap counters saw %ld allocations in of_create (expected the arena and the "
                                 "staging registration): the wrappers are not linked in",
              k.dev_allocs);
    of_destroy(ctx);
}

void run_frames(of_pixel_format fmt, bool device_io, long expect_waits_per_frame, bool split = false,
                of_algorithm algo = OF_ALGO_TVL1, of_solver solver = OF_SOLVER_JACOBI,
                of_valid_format vf = OF_VALID_NONE, of_robust robust = OF_ROBUST_LOCAL_NORM) {
    // split: backend AUTO on the xavier table, whose per-level crossover (512x512; TV-L1 and HS)
    // puts every level of a 768x384 frame but the first on the CPU: one more wait per frame. LK's
    // (32x32, per level) does that to a 64x48 frame.
    const bool lk = algo == OF_ALGO_LK;
    const uint32_t w = split ? (lk ? 64 : 768) : 160, h = split ? (lk ? 48 : 384) : 120;
    const int frames = 4;
    of_config c = one_solve(tvl1_config(w, h)); // splits and waits: one solve (gpu_util.hpp)
    if (algo != OF_ALGO_TVL1) {
        of_config_init(&c, algo);
        c = one_solve(c);
        c.max_width = w;
        c.max_height = h;
        c.hs.solver = solver;
        c.epsilon = 0.0f;
        c.precision = OF_PRECISION_F32; // xavier's HS F16 row puts every level on the GPU: no split
    }
    const bool lk_cuda = lk && oflow::find_algorithm(OF_ALGO_LK) && oflow::find_algorithm(OF_ALGO_LK)->cuda;
    if (lk && !lk_cuda) {
        std::printf("LK rows skipped: LK's registry entry has no CUDA path in this build\n");
        return;
    }
    c.robust = robust; // one_solve's LOCAL_NORM unless asked (pick: its judge images serve the confidence)
    c.backend = split ? OF_BACKEND_AUTO : OF_BACKEND_CUDA;
    c.platform = split ? "xavier" : nullptr;
    c.format = fmt;
    c.warps = lk ? 1 : 3; // LK has no warps
    c.iterations = 20;
    char what[128];
    std::snprintf(what, sizeof what, "%s%s format %d, %s frames and flow%s%s%s",
                  algo == OF_ALGO_TVL1 ? "TV-L1" : (algo == OF_ALGO_HS ? "HS" : (lk ? "LK" : "CLG")),
                  algo == OF_ALGO_TVL1 || lk ? "" : (solver == OF_SOLVER_JACOBI ? " Jacobi" : " SOR"), static_cast<int>(fmt),
                  device_io ? "device" : "host", vf == OF_VALID_NONE ? "" : " + validity", split ? ", split" : "",
                  robust == OF_ROBUST_PICK ? ", pick" : "");
    of_context* ctx = create_or_report(c, what);
    CHECK(ctx != nullptr);
    if (!ctx) return;
    if (split) {
        const of_info in = info_of(ctx);
        CHECK_MSG(in.levels > 1 && in.level_backend[0] == OF_BACKEND_CUDA && in.level_backend[1] != OF_BACKEND_CUDA,
                  "%s: not split (levels %u, level 1 on %d)", what, in.levels, static_cast<int>(in.level_backend[1]));
    }
    const Pair p = synth_pair(oflow::synth::Case::SmoothField, w, h, 8);
    const FramePair fp = frames_of(p, fmt);
    const DevFrame a = to_device(fp.prev, OF_MEMORY_CUDA_DEVICE), b = to_device(fp.next, OF_MEMORY_CUDA_DEVICE);
    DevFlow df = device_flow(w, h, OF_FLOW_PLANAR, OF_MEMORY_CUDA_DEVICE);
    FlowBuf hf = make_flow(w, h);
    // The validity plane (mask or confidence, row stride w * 4 fits both) in the flow's memory.
    const size_t vstride = static_cast<size_t>(w) * 4;
    DevBuf dvalid;
    if (vf != OF_VALID_NONE) dvalid = DevBuf(vstride * h);
    std::vector<unsigned char> hvalid(vf == OF_VALID_NONE ? 0 : vstride * h);
    if (vf != OF_VALID_NONE) {
        df.f.valid_format = hf.f.valid_format = vf;
        df.f.valid_stride = hf.f.valid_stride = vstride;
        df.f.valid = dvalid.p;
        hf.f.valid = hvalid.data();
    }
    // One frame before arming, like a camera loop's first iteration.
    of_status s = device_io ? of_process(ctx, &a.img, &b.img, &df.f) : of_process(ctx, &fp.prev.img, &fp.next.img, &hf.f);
    CHECK_MSG(s == OF_OK, "%s: %s (%s)", what, st(s), of_last_error(ctx));
    GPU_CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<of_status> got(frames, OF_OK);
    arm();
    for (int i = 0; i < frames; ++i)
        got[static_cast<size_t>(i)] =
            device_io ? of_process(ctx, &a.img, &b.img, &df.f) : of_process(ctx, &fp.prev.img, &fp.next.img, &hf.f);
    const Counts k = disarm();
    for (int i = 0; i < frames; ++i)
        CHECK_MSG(got[static_cast<size_t>(i)] == OF_OK, "%s: frame %d: %s", what, i, st(got[static_cast<size_t>(i)]));
    std::printf("%-42s %d frames: %ld device allocations, %ld waits (expected %ld), %ld host allocations\n", what, frames,
                k.dev_allocs, k.waits, expect_waits_per_frame * frames, k.host_allocs);
    CHECK_MSG(k.dev_allocs == 0, "%s: %ld device/pinned allocations in of_process, first %s", what, k.dev_allocs,
              g_first_alloc ? g_first_alloc : "?");
    CHECK_MSG(k.waits == expect_waits_per_frame * frames, "%s: %ld waits in %d frames, expected %ld (first %s)", what, k.waits,
              frames, expect_waits_per_frame * frames, g_first_wait ? g_first_wait : "none");
    CHECK_MSG(k.host_allocs == 0, "%s: %ld host allocations in of_process", what, k.host_allocs);
    if (k.host_allocs) oftest::alloc::print_first(what);
    if (device_io) {
        const FlowBuf f = df.fetch();
        CHECK_MSG(all_finite(f.extract()), "%s: non-finite device flow", what);
    } else {
        CHECK_MSG(all_finite(hf.extract()), "%s: non-finite host flow", what);
    }
    of_destroy(ctx);
}

void test_caller_arena_and_stream() {
    const uint32_t w = 96, h = 64;
    of_config c = tvl1_config(w, h);
    c.backend = OF_BACKEND_CUDA;
    c.warps = 2;
    c.iterations = 10;
    of_memory need;
    std::memset(&need, 0, sizeof need);
    need.struct_size = sizeof need;
    of_status s = of_query_memory(&c, &need);
    CHECK_MSG(s == OF_OK && need.device_bytes > 0, "query: %s, device_bytes %zu", st(s), need.device_bytes);
    if (s != OF_OK) return;
    DevBuf arena(need.device_bytes);
    cudaStream_t stream = nullptr;
    GPU_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    if (!arena.p || !stream) return;
    // Too small first.
    of_config small = c;
    small.device_arena = arena.p;
    small.device_arena_size = need.device_bytes - 256;
    of_context* ctx = nullptr;
    s = of_create(&small, &ctx);
    CHECK_MSG(s == OF_ERR_ARENA && ctx == nullptr, "device arena %zu < %zu: got %s (%s)", small.device_arena_size,
              need.device_bytes, st(s), of_last_error(nullptr));
    of_destroy(ctx);
    c.device_arena = arena.p;
    c.device_arena_size = need.device_bytes;
    c.cuda_stream = stream;
    arm();
    ctx = create_or_report(c, "caller arena + stream");
    const Counts k = disarm();
    CHECK(ctx != nullptr);
    CHECK_MSG(k.dev_allocs == 1, "create with a caller device arena: %ld allocations/registrations (expected only the staging "
                                 "registration), first %s",
              k.dev_allocs, g_first_alloc ? g_first_alloc : "?");
    if (ctx) {
        const Pair p = synth_pair(oflow::synth::Case::Translation, w, h, 3);
        const FramePair fp = frames_of(p, OF_PIXEL_U8);
        const DevFrame a = to_device(fp.prev, OF_MEMORY_CUDA_DEVICE), b = to_device(fp.next, OF_MEMORY_CUDA_DEVICE);
        DevFlow df = device_flow(w, h, OF_FLOW_INTERLEAVED, OF_MEMORY_CUDA_DEVICE);
        s = of_process(ctx, &a.img, &b.img, &df.f);
        CHECK_MSG(s == OF_OK, "caller arena + stream: %s (%s)", st(s), of_last_error(ctx));
        // The work went to the caller's stream: waiting on it completes the flow.
        GPU_CHECK_CUDA(cudaStreamSynchronize(stream));
        std::vector<float> first(2);
        GPU_CHECK_CUDA(cudaMemcpy(first.data(), df.a.p, 8, cudaMemcpyDeviceToHost));
        CHECK_MSG(std::isfinite(first[0]) && std::isfinite(first[1]), "caller stream: flow not written after the stream wait");
        const FlowBuf f = df.fetch();
        CHECK(all_finite(f.extract()));
        of_destroy(ctx);
    }
    (void)cudaStreamDestroy(stream);
}

void test_out_of_memory() {
    of_config c = tvl1_config(32768, 32768);
    c.backend = OF_BACKEND_CUDA;
    of_memory need;
    std::memset(&need, 0, sizeof need);
    need.struct_size = sizeof need;
    of_status s = of_query_memory(&c, &need);
    CHECK_MSG(s == OF_OK, "query 32768x32768: %s (%s)", st(s), of_last_error(nullptr));
    size_t free_b = 0, total_b = 0;
    GPU_CHECK_CUDA(cudaMemGetInfo(&free_b, &total_b));
    std::printf("32768x32768 needs %.1f GiB of device memory and %.1f GiB of host arena; the device has %.1f GiB free\n",
                static_cast<double>(need.device_bytes) / 1073741824.0, static_cast<double>(need.host_bytes) / 1073741824.0,
                static_cast<double>(free_b) / 1073741824.0);
    of_context* big[2] = {nullptr, nullptr};
    of_status got = OF_OK;
    for (int i = 0; i < 2 && got == OF_OK; ++i) {
        got = of_create(&c, &big[i]);
        if (got == OF_OK) std::printf("  32768x32768 context %d fits on this device\n", i + 1);
    }
    const char* msg = of_last_error(nullptr);
    std::printf("  out of device memory: %s \"%s\"\n", st(got), msg);
    CHECK_MSG(got == OF_ERR_DEVICE || got == OF_ERR_OUT_OF_MEMORY, "out of device memory at create: got %s (%s)", st(got), msg);
    CHECK_MSG(msg[0] != '\0', "out of device memory: empty message");
    of_destroy(big[0]);
    of_destroy(big[1]);
    // The next create works and processes.
    of_config ok = tvl1_config(64, 48);
    ok.backend = OF_BACKEND_CUDA;
    of_context* ctx = create_or_report(ok, "create after out of memory");
    CHECK_MSG(ctx != nullptr, "create after an out-of-memory create failed");
    if (ctx) {
        const Pair p = synth_pair(oflow::synth::Case::Translation, 64, 48, 3);
        const FramePair fp = frames_of(p, OF_PIXEL_U8);
        FlowBuf f = make_flow(64, 48);
        if (run_host(ctx, fp, f, "after out of memory")) CHECK(all_finite(f.extract()));
        of_destroy(ctx);
    }
}

void test_first_frame() {
    const uint32_t w = 1280, h = 720;
    of_config c = tvl1_config(w, h);
    c.backend = OF_BACKEND_CUDA;
    c.warps = 3;
    c.iterations = 30;
    c.epsilon = 0.0f;
    of_context* ctx = create_or_report(c, "first frame");
    CHECK(ctx != nullptr);
    if (!ctx) return;
    const Pair p = fast_pair(w, h);
    const FramePair fp = frames_of(p, OF_PIXEL_U8);
    FlowBuf f = make_flow(w, h);
    double t[3];
    for (int i = 0; i < 3; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &f.f);
        t[i] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        CHECK_MSG(s == OF_OK, "first-frame test frame %d: %s (%s)", i, st(s), of_last_error(ctx));
    }
    std::printf("1280x720, 3 warps x 30 iterations: first of_process %.2f ms, second %.2f ms, third %.2f ms\n", t[0], t[1],
                t[2]);
    CHECK_MSG(t[1] >= 0.5 * t[0], "first of_process %.2f ms > 2 x second %.2f ms: set-up left for the first frame", t[0], t[1]);
    of_destroy(ctx);
}

} // namespace

int main() {
    if (!cuda_ready()) return 77;
    test_wrappers_active();
    run_frames(OF_PIXEL_U8, true, 0);
    run_frames(OF_PIXEL_U8, false, kHostFlowWaits);
    run_frames(OF_PIXEL_F32, true, 1);
    run_frames(OF_PIXEL_F32, false, kHostFlowWaits);
    run_frames(OF_PIXEL_U8, true, 1, true);   // the split's one wait for the coarse pyramids
    run_frames(OF_PIXEL_U8, false, kHostFlowWaits + 1, true);
    // HS and CLG: the same contract (no allocation, the same waits) on every solver.
    run_frames(OF_PIXEL_U8, true, 0, false, OF_ALGO_HS, OF_SOLVER_JACOBI);
    run_frames(OF_PIXEL_U8, false, kHostFlowWaits, false, OF_ALGO_HS, OF_SOLVER_RED_BLACK_SOR);
    run_frames(OF_PIXEL_F32, true, 1, false, OF_ALGO_CLG, OF_SOLVER_JACOBI);
    run_frames(OF_PIXEL_U8, true, 0, false, OF_ALGO_CLG, OF_SOLVER_RED_BLACK_SOR);
    run_frames(OF_PIXEL_U8, false, kHostFlowWaits + 1, true, OF_ALGO_HS, OF_SOLVER_JACOBI);
    // Their validity plane, the residual confidence (both frames normalised again after the solve,
    // or robust pick's judge images): neither a wait nor an allocation more, split frames included.
    run_frames(OF_PIXEL_U8, true, 0, false, OF_ALGO_TVL1, OF_SOLVER_JACOBI, OF_VALID_MASK_U8);
    run_frames(OF_PIXEL_U8, false, kHostFlowWaits, false, OF_ALGO_TVL1, OF_SOLVER_JACOBI, OF_VALID_CONFIDENCE_F32);
    run_frames(OF_PIXEL_U8, true, 0, false, OF_ALGO_TVL1, OF_SOLVER_JACOBI, OF_VALID_CONFIDENCE_F32, OF_ROBUST_PICK);
    run_frames(OF_PIXEL_U8, false, kHostFlowWaits, false, OF_ALGO_TVL1, OF_SOLVER_JACOBI, OF_VALID_MASK_U8, OF_ROBUST_PICK);
    run_frames(OF_PIXEL_U8, false, kHostFlowWaits + 1, true, OF_ALGO_TVL1, OF_SOLVER_JACOBI, OF_VALID_MASK_U8);
    run_frames(OF_PIXEL_F32, true, 1, false, OF_ALGO_HS, OF_SOLVER_RED_BLACK_SOR, OF_VALID_CONFIDENCE_F32);
    run_frames(OF_PIXEL_U8, false, kHostFlowWaits, false, OF_ALGO_CLG, OF_SOLVER_JACOBI, OF_VALID_MASK_U8, OF_ROBUST_PICK);
    // Lucas-Kanade: the same contract, with and without its validity plane (host output downloads
    // the confidence before the frame's one wait; device output writes it on the stream).
    run_frames(OF_PIXEL_U8, true, 0, false, OF_ALGO_LK);
    run_frames(OF_PIXEL_U8, true, 0, false, OF_ALGO_LK, OF_SOLVER_JACOBI, OF_VALID_MASK_U8);
    run_frames(OF_PIXEL_U8, false, kHostFlowWaits, false, OF_ALGO_LK, OF_SOLVER_JACOBI, OF_VALID_CONFIDENCE_F32);
    run_frames(OF_PIXEL_F32, true, 1, false, OF_ALGO_LK, OF_SOLVER_JACOBI, OF_VALID_CONFIDENCE_F32);
    run_frames(OF_PIXEL_F32, false, kHostFlowWaits, false, OF_ALGO_LK, OF_SOLVER_JACOBI, OF_VALID_MASK_U8);
    run_frames(OF_PIXEL_U8, true, 1, true, OF_ALGO_LK, OF_SOLVER_JACOBI, OF_VALID_MASK_U8);
    run_frames(OF_PIXEL_U8, false, kHostFlowWaits + 1, true, OF_ALGO_LK, OF_SOLVER_JACOBI, OF_VALID_MASK_U8);
    test_caller_arena_and_stream();
    test_first_frame();
    test_out_of_memory();
    return oftest::finish("gpu_memory");
}
