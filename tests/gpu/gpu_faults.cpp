// gpu_faults: every CUDA error path of of_create and of_process, walked one check at a time with
// the backend's fault injection (cuda/cuda_faults.hpp: the n-th OF_CUDA_TRY check fails with a
// real runtime error, cudaErrorInvalidDevice, instead of running its call).
//
// For each configuration (graph F32 planar output; graph F16 interleaved output; F32 frames in
// device memory, whose finiteness check waits; a frame split by level between the CPU and the
// GPU, no graph):
//  - of_create with the n-th check failing, n = 1, 2, ... until a create passes every check:
//    OF_ERR_DEVICE, no context, of_last_error(NULL) carries CUDA's name and text; afterwards the
//    device's free memory is what it was (nothing leaked by the failed creates, 8 MiB slack);
//  - of_process with the n-th check failing, n = 1, 2, ... until a frame passes every check:
//    OF_ERR_DEVICE, of_last_error(ctx) carries CUDA's name and text, host output untouched
//    (sentinel) unless the fault hit one of the frame's last waits after the first row band of the
//    flow was copied out (the documented exception), and the same context's next frame is OK and bit-identical to the frame before
//    the faults; the context is destroyed at the end.
#include "gpu_util.hpp"

#include "cuda/cuda_faults.hpp"
#include "cuda/cuda_layout.hpp"

#include <cstring>
#include <string>

using namespace gputest;
using oflow::synth::Case;

namespace {

// The row bands of a host flow's download.
const int kFlowBands = oflow::cuda::kFlowChunks;

struct Setup {
    const char* name;
    uint32_t w, h;
    of_precision precision;
    of_flow_layout layout;
    bool device_frames; // F32 frames in device memory
    bool split;         // backend AUTO on the xavier table: coarse levels on the CPU
};

of_config config_of(const Setup& s) {
    of_config c = tvl1_config(s.w, s.h);
    c.backend = s.split ? OF_BACKEND_AUTO : OF_BACKEND_CUDA;
    c.precision = s.precision;
    c.format = s.device_frames ? OF_PIXEL_F32 : OF_PIXEL_U8;
    c.warps = 2;
    c.iterations = 6;
    c.epsilon = 0.0f;
    if (s.split) c.platform = "xavier";
    return c;
}

bool names_cuda_error(const char* msg) {
    const std::string m = msg ? msg : "";
    return m.find(cudaGetErrorName(cudaErrorInvalidDevice)) != std::string::npos &&
           m.find(cudaGetErrorString(cudaErrorInvalidDevice)) != std::string::npos;
}

size_t free_device_bytes() {
    size_t f = 0, t = 0;
    if (cudaMemGetInfo(&f, &t) != cudaSuccess) (void)cudaGetLastError();
    return f;
}

// Stride of the walks: 1, or 5 (create) and 2 (process) under the sanitizers.
int create_stride() { return small_run() ? 5 : 1; }
int process_stride() { return small_run() ? 2 : 1; }
bool under_sanitizer() {
    const char* e = std::getenv("OFLOW_GPU_SANITIZER");
    return e && e[0] == '1';
}

// Walks the checks of of_create (every create_stride()-th); returns how many there were.
int walk_create(const of_config& c, const char* what) {
    const size_t before = free_device_bytes();
    int n = 1;
    for (;; n += create_stride()) {
        oflow::cuda::arm_fault(n);
        of_context* ctx = nullptr;
        const of_status s = of_create(&c, &ctx);
        const bool fired = oflow::cuda::fault_pending() == 0;
        oflow::cuda::arm_fault(0);
        if (!fired) {
            CHECK_MSG(s == OF_OK, "%s: create with no fault: %s (%s)", what, st(s), of_last_error(nullptr));
            of_destroy(ctx);
            break;
        }
        CHECK_MSG(s == OF_ERR_DEVICE, "%s: create, fault at check %d: %s, want OF_ERR_DEVICE", what, n, st(s));
        CHECK_MSG(ctx == nullptr, "%s: create, fault at check %d: a context came back", what, n);
        CHECK_MSG(names_cuda_error(of_last_error(nullptr)), "%s: create, fault at check %d: message '%s'", what, n,
                  of_last_error(nullptr));
        if (ctx) of_destroy(ctx);
        if (n > 100000) {
            CHECK_MSG(false, "%s: create never finished its checks", what);
            break;
        }
    }
    const size_t after = free_device_bytes();
    if (!under_sanitizer())
        CHECK_MSG(after + (8u << 20) >= before, "%s: %zu bytes of device memory lost over %d failed creates", what,
              before - after, n - 1);
    return n - 1;
}

struct Frames {
    FramePair host;
    DevBuf d0, d1;
    of_image i0, i1;
};

// Walks the checks of of_process on one context (every process_stride()-th); returns how many
// there were.
int walk_process(const of_config& c, const Setup& s, const Frames& fr, const char* what) {
    of_context* ctx = create_or_report(c, what);
    CHECK_MSG(ctx != nullptr, "%s: create", what);
    if (!ctx) return 0;
    FlowBuf base = make_flow(s.w, s.h, s.layout);
    of_status r = of_process(ctx, &fr.i0, &fr.i1, &base.f);
    CHECK_MSG(r == OF_OK, "%s: first frame: %s (%s)", what, st(r), of_last_error(ctx));
    const std::vector<float> want = base.extract();
    // The checks of a whole frame: the last kFlowChunks of them are the row bands' waits after
    // the first and the frame's end (cuda/cuda_backend.cu process_frame). A fault there comes
    // after the first band was copied out: the host flow is then partly written (api/oflow.h).
    oflow::cuda::arm_fault(1 << 30);
    r = of_process(ctx, &fr.i0, &fr.i1, &base.f);
    const int total = (1 << 30) - oflow::cuda::fault_pending();
    oflow::cuda::arm_fault(0);
    CHECK_MSG(r == OF_OK && total > kFlowBands, "%s: counting frame: %s, %d checks", what, st(r), total);
    int n = 1;
    for (;; n += process_stride()) {
        FlowBuf out = make_flow(s.w, s.h, s.layout);
        out.fill_sentinel();
        oflow::cuda::arm_fault(n);
        r = of_process(ctx, &fr.i0, &fr.i1, &out.f);
        const bool fired = oflow::cuda::fault_pending() == 0;
        oflow::cuda::arm_fault(0);
        if (!fired) {
            CHECK_MSG(r == OF_OK, "%s: frame with no fault: %s (%s)", what, st(r), of_last_error(ctx));
            CHECK_MSG(out.extract() == want, "%s: frame with no fault differs from the first", what);
            break;
        }
        CHECK_MSG(r == OF_ERR_DEVICE, "%s: fault at check %d: %s, want OF_ERR_DEVICE", what, n, st(r));
        CHECK_MSG(names_cuda_error(of_last_error(ctx)), "%s: fault at check %d: message '%s'", what, n,
                  of_last_error(ctx));
        const bool after_first_band = n > total - kFlowBands;
        CHECK_MSG(out.untouched() || after_first_band, "%s: fault at check %d of %d: the output was written", what, n, total);
        // The same context, next frame: as before the fault.
        FlowBuf again = make_flow(s.w, s.h, s.layout);
        r = of_process(ctx, &fr.i0, &fr.i1, &again.f);
        CHECK_MSG(r == OF_OK, "%s: frame after the fault at check %d: %s (%s)", what, n, st(r), of_last_error(ctx));
        if (r == OF_OK) CHECK_MSG(again.extract() == want, "%s: frame after the fault at check %d differs", what, n);
        if (n > 100000) {
            CHECK_MSG(false, "%s: process never finished its checks", what);
            break;
        }
    }
    of_destroy(ctx);
    return n - 1;
}

} // namespace

int main() {
    if (!cuda_ready()) return 77;
    const Setup setups[] = {
        {"graph F32 planar", 96, 64, OF_PRECISION_F32, OF_FLOW_PLANAR, false, false},
        {"graph F16 interleaved", 80, 48, OF_PRECISION_F16, OF_FLOW_INTERLEAVED, false, false},
        {"F32 device frames", 64, 48, OF_PRECISION_F32, OF_FLOW_PLANAR, true, false},
        {"split xavier F32", 768, 384, OF_PRECISION_F32, OF_FLOW_PLANAR, false, true},
    };
    std::printf("%-22s %14s %15s\n", "configuration", "create checks", "process checks");
    for (const Setup& s : setups) {
        const of_config c = config_of(s);
        const Pair p = synth_pair(Case::RotationZoom, s.w, s.h, 3);
        Frames fr{frames_of(p, s.device_frames ? OF_PIXEL_F32 : OF_PIXEL_U8), DevBuf(), DevBuf(), {}, {}};
        fr.i0 = fr.host.prev.img;
        fr.i1 = fr.host.next.img;
        if (s.device_frames) {
            const size_t bytes = static_cast<size_t>(s.w) * s.h * 4;
            fr.d0 = DevBuf(bytes);
            fr.d1 = DevBuf(bytes);
            CHECK(fr.d0.p && fr.d1.p);
            if (!fr.d0.p || !fr.d1.p) continue;
            for (int k = 0; k < 2; ++k) {
                const of_image& h = k == 0 ? fr.host.prev.img : fr.host.next.img;
                of_image& d = k == 0 ? fr.i0 : fr.i1;
                void* dst = k == 0 ? fr.d0.p : fr.d1.p;
                GPU_CHECK_CUDA(cudaMemcpy2D(dst, static_cast<size_t>(s.w) * 4, h.data, h.stride,
                                            static_cast<size_t>(s.w) * 4, s.h, cudaMemcpyHostToDevice));
                d.data = dst;
                d.stride = static_cast<size_t>(s.w) * 4;
                d.memory = OF_MEMORY_CUDA_DEVICE;
            }
        }
        const int nc = walk_create(c, s.name);
        const int np = walk_process(c, s, fr, s.name);
        std::printf("%-22s %14d %15d\n", s.name, nc, np);
        CHECK_MSG(nc > 0 && np > 0, "%s: no CUDA check was walked", s.name);
    }
    return oftest::finish("gpu_faults");
}
