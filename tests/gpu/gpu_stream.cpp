// gpu_stream: of_push_frame on the CUDA path (tests/stream.cpp covers the CPU paths).
//  - bit identity with warm_start 0: each pair of a generated sequence pushed on one context
//    equals of_process on another context of the same config, bit for bit: TV-L1 F32 and F16,
//    frames in host, device and mapped memory (each frame's buffer overwritten right after the
//    push: the stream keeps its copy), flow in host and device memory; HS with SOR and LK; a
//    frame split by level (AUTO on the xavier table: coarse levels on the CPU path); every pair
//    with its validity mask, which must be of_process's too (TV-L1 and HS: the residual
//    confidence, computed from the stream's copies of both frames after the solve);
//  - the contract on this path: first frame OF_PENDING with nothing written, a NaN F32 frame in
//    device memory refused with the stream kept, of_process ending the stream;
//  - warm start on the device: taken on the camera path's pairs after the first (of_info.last_warm
//    with host output), lower mean EPE than cold at a short schedule, the first pair after the cut
//    within 10 % of cold, and the stream's device bytes in of_info (the kept frame's upload slot
//    and the warm plane).
#include "gpu_util.hpp"

#include "core/synth_sequence.hpp"

using namespace gputest;
using oflow::synth::Sequence;

namespace {

using Plane = std::vector<float>;

Plane seq_frame(Sequence s, uint32_t w, uint32_t h, int k) {
    Plane p(static_cast<size_t>(w) * h, 0.0f);
    oflow::synth::sequence_frame(s, static_cast<int>(w), static_cast<int>(h), 3, k, p.data(), w);
    return p;
}

double seq_epe(Sequence s, uint32_t w, uint32_t h, int k, const std::vector<float>& f) {
    const size_t n = static_cast<size_t>(w) * h;
    Plane gu(n), gv(n);
    if (!oflow::synth::sequence_flow(s, static_cast<int>(w), static_cast<int>(h), 3, k, gu.data(), gv.data(), w))
        return -1.0;
    double sum = 0.0;
    for (size_t i = 0; i < n; ++i) sum += std::hypot(f[i] - gu[i], f[n + i] - gv[i]);
    return sum / static_cast<double>(n);
}

const char* mem_name(of_memory_kind m) {
    return m == OF_MEMORY_HOST ? "host" : m == OF_MEMORY_CUDA_DEVICE ? "device" : "mapped";
}

// One flow output of kind `out` (host: FlowBuf; device: DevFlow), read back as FlowBuf.
struct Out {
    FlowBuf host;
    DevFlow dev;
    of_memory_kind kind;
    std::vector<unsigned char> valid;
    DevBuf valid_dev;
    Out(uint32_t w, uint32_t h, of_memory_kind k, bool with_mask) : kind(k) {
        if (k == OF_MEMORY_HOST) {
            host = make_flow(w, h);
        } else {
            dev = device_flow(w, h, OF_FLOW_PLANAR, k);
        }
        if (with_mask) {
            of_flow& f = flow();
            f.valid_format = OF_VALID_MASK_U8;
            f.valid_stride = w;
            if (k == OF_MEMORY_HOST) {
                valid.assign(static_cast<size_t>(w) * h, 0x5A);
                f.valid = valid.data();
            } else {
                valid_dev = DevBuf(static_cast<size_t>(w) * h, k == OF_MEMORY_CUDA_MAPPED);
                f.valid = valid_dev.p;
            }
        }
    }
    of_flow& flow() { return kind == OF_MEMORY_HOST ? host.f : dev.f; }
    std::vector<float> get() const { return kind == OF_MEMORY_HOST ? host.extract() : dev.fetch().extract(); }
    std::vector<unsigned char> mask() const {
        if (kind == OF_MEMORY_HOST || !valid_dev.p) return valid;
        std::vector<unsigned char> m(valid_dev.n);
        GPU_CHECK_CUDA(cudaDeviceSynchronize());
        GPU_CHECK_CUDA(cudaMemcpy(m.data(), valid_dev.p, m.size(), cudaMemcpyDefault));
        return m;
    }
};

// A frame of kind `mem` holding `img` (format fmt); for device/mapped memory a device buffer.
struct In {
    Frame host;
    DevFrame dev;
    of_memory_kind kind;
    const of_image* image() const { return kind == OF_MEMORY_HOST ? &host.img : &dev.img; }
};
In make_in(of_pixel_format fmt, uint32_t w, uint32_t h, const Plane& img, of_memory_kind mem) {
    In in;
    in.kind = mem;
    in.host = make_frame(fmt, w, h, img.data(), w);
    if (mem != OF_MEMORY_HOST) in.dev = to_device(in.host, mem);
    return in;
}
// Overwrite the frame's pixels with junk (the stream must hold its own copy).
void scribble(In* in) {
    const size_t bytes = in->host.img.stride * in->host.img.height;
    if (in->kind == OF_MEMORY_HOST) {
        std::memset(in->host.bytes(), 0x3C, bytes);
    } else {
        GPU_CHECK_CUDA(cudaDeviceSynchronize()); // the library's copy is stream-ordered (api/oflow.h)
        GPU_CHECK_CUDA(cudaMemset(in->dev.buf.p, 0x3C, bytes));
    }
}

void identity(const char* what, const of_config& cfg, Sequence s, of_memory_kind in_mem, of_memory_kind out_mem,
              int frames) {
    const uint32_t w = cfg.max_width, h = cfg.max_height;
    of_context* c = create_or_report(cfg, what);
    of_context* r = create_or_report(cfg, what);
    CHECK(c && r);
    if (!c || !r) {
        of_destroy(c);
        of_destroy(r);
        return;
    }
    const bool mask = true; // every algorithm has a validity plane (core/confidence.hpp)
    In first = make_in(cfg.format, w, h, seq_frame(s, w, h, 0), in_mem);
    CHECK(of_push_frame(c, first.image(), nullptr) == OF_PENDING);
    scribble(&first);
    int same = 0;
    for (int k = 1; k < frames; ++k) {
        const Plane a = seq_frame(s, w, h, k - 1), b = seq_frame(s, w, h, k);
        In next = make_in(cfg.format, w, h, b, in_mem);
        Out pushed(w, h, out_mem, mask), ref(w, h, OF_MEMORY_HOST, mask);
        const of_status sp = of_push_frame(c, next.image(), &pushed.flow());
        scribble(&next);
        const Frame fa = make_frame(cfg.format, w, h, a.data(), w), fb = make_frame(cfg.format, w, h, b.data(), w);
        const of_status sr = of_process(r, &fa.img, &fb.img, &ref.flow());
        CHECK_MSG(sp == OF_OK && sr == OF_OK, "%s: pair %d: %s / %s (%s)", what, k, st(sp), st(sr), of_last_error(c));
        const bool ok = same_bits(pushed.get(), ref.get(), what) && pushed.mask() == ref.mask();
        CHECK_MSG(ok, "%s: pair %d differs from of_process", what, k);
        same += ok;
    }
    std::printf("  %-34s frames %-6s flow %-6s %s: %d/%d pairs bit-identical to of_process\n", what, mem_name(in_mem),
                mem_name(out_mem), oflow::synth::sequence_name(s), same, frames - 1);
    of_destroy(c);
    of_destroy(r);
}

of_config cuda_cfg(of_algorithm a, uint32_t w, uint32_t h, of_precision p) {
    of_config c;
    of_config_init(&c, a);
    c = one_solve(c); // splits, warm start, stream bytes (gpu_util.hpp)
    c.max_width = w;
    c.max_height = h;
    c.backend = OF_BACKEND_CUDA;
    c.precision = p;
    if (a != OF_ALGO_LK) {
        c.warps = 2;
        c.iterations = 30;
    }
    return c;
}

void identities() {
    const uint32_t w = small_run() ? 96 : 160, h = small_run() ? 72 : 120;
    const of_memory_kind mems[3] = {OF_MEMORY_HOST, OF_MEMORY_CUDA_DEVICE, OF_MEMORY_CUDA_MAPPED};
    for (of_precision p : {OF_PRECISION_F32, OF_PRECISION_F16}) {
        of_config c = cuda_cfg(OF_ALGO_TVL1, w, h, p);
        for (of_memory_kind in : mems)
            identity(p == OF_PRECISION_F32 ? "tvl1 f32 u8" : "tvl1 f16 u8", c, Sequence::CameraPath, in,
                     in == OF_MEMORY_CUDA_DEVICE ? OF_MEMORY_CUDA_DEVICE : OF_MEMORY_HOST, 4);
        of_config f = c;
        f.format = OF_PIXEL_F32;
        identity(p == OF_PRECISION_F32 ? "tvl1 f32 frames f32" : "tvl1 f16 frames f32", f, Sequence::ExposureRamp,
                 OF_MEMORY_CUDA_DEVICE, OF_MEMORY_HOST, 4);
    }
    of_config hs = cuda_cfg(OF_ALGO_HS, w, h, OF_PRECISION_F32);
    hs.hs.solver = OF_SOLVER_RED_BLACK_SOR;
    identity("hs sor", hs, Sequence::SceneCut, OF_MEMORY_HOST, OF_MEMORY_HOST, 6);
    identity("lk", cuda_cfg(OF_ALGO_LK, w, h, OF_PRECISION_F16), Sequence::MovingObject,
             OF_MEMORY_CUDA_MAPPED, OF_MEMORY_CUDA_MAPPED, 4);
    // A frame split by level: AUTO on the xavier table runs the coarse levels on the CPU path (its
    // per-level crossover, 512x512, puts level 0 of 768x384 on the GPU, the others on the CPU).
    of_config split = cuda_cfg(OF_ALGO_TVL1, 768, 384, OF_PRECISION_F32);
    split.backend = OF_BACKEND_AUTO;
    split.platform = "xavier";
    split.levels = 4;
    of_info info;
    info.struct_size = sizeof info;
    const bool split_ok = of_explain(&split, &info) == OF_OK && info.level_backend[0] == OF_BACKEND_CUDA &&
                          info.level_backend[3] != OF_BACKEND_CUDA;
    CHECK_MSG(split_ok, "xavier table, 768x384, 4 levels: expected level 0 on CUDA and level 3 on the CPU");
    if (split_ok) identity("tvl1 split by level (xavier)", split, Sequence::MovingObject, OF_MEMORY_HOST, OF_MEMORY_HOST, 4);
}

void contract() {
    const uint32_t w = 64, h = 48;
    of_config c = cuda_cfg(OF_ALGO_TVL1, w, h, OF_PRECISION_F32);
    c.format = OF_PIXEL_F32;
    of_context* ctx = create_or_report(c, "contract");
    CHECK(ctx != nullptr);
    if (!ctx) return;
    const Plane a = seq_frame(Sequence::CameraPath, w, h, 0), b = seq_frame(Sequence::CameraPath, w, h, 1);
    In fa = make_in(OF_PIXEL_F32, w, h, a, OF_MEMORY_CUDA_DEVICE), fb = make_in(OF_PIXEL_F32, w, h, b, OF_MEMORY_CUDA_DEVICE);
    Frame nan_host = make_frame(OF_PIXEL_F32, w, h, b.data(), w);
    nan_host.set_f32(3, 4, std::nanf(""));
    DevFrame nan_dev = to_device(nan_host, OF_MEMORY_CUDA_DEVICE);
    FlowBuf out = make_flow(w, h);
    CHECK(of_push_frame(ctx, fa.image(), &out.f) == OF_PENDING);
    CHECK(out.untouched());
    CHECK(of_push_frame(ctx, &nan_dev.img, &out.f) == OF_ERR_NONFINITE);
    CHECK(out.untouched());
    CHECK(of_push_frame(ctx, fb.image(), &out.f) == OF_OK);
    of_context* r = create_or_report(c, "contract ref");
    if (r) {
        FlowBuf ref = make_flow(w, h);
        CHECK(of_process(r, fa.image(), fb.image(), &ref.f) == OF_OK);
        CHECK(same_bits(out.extract(), ref.extract(), "pair after a refused NaN frame"));
        of_destroy(r);
    }
    CHECK(of_process(ctx, fa.image(), fb.image(), &out.f) == OF_OK);
    CHECK(of_push_frame(ctx, fb.image(), &out.f) == OF_PENDING);
    of_destroy(ctx);
}

// Frames and flow in registered host buffers (of_register_host): the same bits as ordinary
// host memory, pairwise and in a stream; the registration's errors.
void registered() {
    const uint32_t w = 160, h = 120;
    of_config c = cuda_cfg(OF_ALGO_TVL1, w, h, OF_PRECISION_F32);
    of_context* a = create_or_report(c, "registered");
    of_context* b = create_or_report(c, "plain");
    CHECK(a && b);
    if (!a || !b) {
        of_destroy(a);
        of_destroy(b);
        return;
    }
    Frame f[3];
    for (int k = 0; k < 3; ++k) f[k] = make_frame(OF_PIXEL_U8, w, h, seq_frame(Sequence::CameraPath, w, h, k).data(), w);
    for (of_flow_layout layout : {OF_FLOW_PLANAR, OF_FLOW_INTERLEAVED}) {
        FlowBuf ra = make_flow(w, h, layout, 3), rb = make_flow(w, h, layout, 3);
        for (int k = 0; k < 3; ++k) CHECK(of_register_host(a, f[k].store.data(), f[k].store.size() * 8) == OF_OK);
        CHECK(of_register_host(a, ra.a.data(), ra.a.size() * 4) == OF_OK);
        if (layout == OF_FLOW_PLANAR) CHECK(of_register_host(a, ra.b.data(), ra.b.size() * 4) == OF_OK);
        // Pairwise, then a stream of the three frames.
        CHECK(of_process(a, &f[0].img, &f[1].img, &ra.f) == OF_OK);
        CHECK(of_process(b, &f[0].img, &f[1].img, &rb.f) == OF_OK);
        CHECK(same_bits(ra.extract(), rb.extract(), "registered pairwise"));
        CHECK(ra.padding_untouched());
        CHECK(of_push_frame(a, &f[0].img, &ra.f) == OF_PENDING);
        for (int k = 1; k < 3; ++k) {
            CHECK(of_push_frame(a, &f[k].img, &ra.f) == OF_OK);
            CHECK(of_process(b, &f[k - 1].img, &f[k].img, &rb.f) == OF_OK);
            CHECK(same_bits(ra.extract(), rb.extract(), "registered stream"));
        }
        CHECK(of_register_host(a, f[0].store.data(), 16) == OF_ERR_INVALID_ARGUMENT); // overlaps
        for (int k = 0; k < 3; ++k) CHECK(of_unregister_host(a, f[k].store.data()) == OF_OK);
        CHECK(of_unregister_host(a, ra.a.data()) == OF_OK);
        if (layout == OF_FLOW_PLANAR) CHECK(of_unregister_host(a, ra.b.data()) == OF_OK);
    }
    CHECK(of_unregister_host(a, f[0].store.data()) == OF_ERR_INVALID_ARGUMENT);
    CHECK(of_register_host(a, nullptr, 16) == OF_ERR_NULL_POINTER);
    CHECK(of_register_host(a, f[0].store.data(), 0) == OF_ERR_INVALID_ARGUMENT);
    std::vector<std::vector<unsigned char>> many(OF_MAX_REGISTERED + 1, std::vector<unsigned char>(4096));
    int ok = 0;
    for (auto& m : many) ok += of_register_host(a, m.data(), m.size()) == OF_OK;
    CHECK(ok == OF_MAX_REGISTERED);
    std::printf("  registered host buffers: pairwise and stream bit-identical to ordinary host memory\n");
    of_destroy(a); // unregisters what is left
    of_destroy(b);
}

void warm() {
    const uint32_t w = 160, h = 120;
    const int frames = 9;
    of_config cold = cuda_cfg(OF_ALGO_TVL1, w, h, OF_PRECISION_F32);
    cold.warps = 1;
    cold.iterations = 10;
    of_config warm = cold;
    warm.warm_start = 1;
    of_info info;
    info.struct_size = sizeof info;
    CHECK(of_explain(&warm, &info) == OF_OK);
    // The kept frame's upload slot (u8: w*h bytes) and the warm plane (level 1, float2 rows of
    // the device pitch).
    CHECK_MSG(info.stream_device_bytes >= static_cast<size_t>(w) * h + static_cast<size_t>(w / 2) * (h / 2) * 8,
              "stream_device_bytes %zu", info.stream_device_bytes);
    for (Sequence s : {Sequence::CameraPath, Sequence::SceneCut}) {
        std::vector<double> e[2];
        int taken = 0;
        for (int m = 0; m < 2; ++m) {
            of_context* c = create_or_report(m ? warm : cold, "warm");
            CHECK(c != nullptr);
            if (!c) return;
            FlowBuf out = make_flow(w, h);
            for (int k = 0; k < frames; ++k) {
                const Frame f = make_frame(OF_PIXEL_U8, w, h, seq_frame(s, w, h, k).data(), w);
                CHECK(of_push_frame(c, &f.img, &out.f) == (k ? OF_OK : OF_PENDING));
                if (!k) continue;
                CHECK(of_get_info(c, &info) == OF_OK);
                if (m) taken += info.last_warm == 1;
                e[m].push_back(seq_epe(s, w, h, k - 1, out.extract()));
            }
            of_destroy(c);
        }
        double sa = 0.0, sb = 0.0;
        std::printf("  warm start %s (cold/warm):", oflow::synth::sequence_name(s));
        for (size_t k = 0; k < e[0].size(); ++k) {
            std::printf(" %.3f/%.3f", e[0][k], e[1][k]);
            if (e[0][k] >= 0) {
                sa += e[0][k];
                sb += e[1][k];
            }
        }
        std::printf("  sums %.3f / %.3f, taken %d\n", sa, sb, taken);
        if (s == Sequence::CameraPath) {
            CHECK_MSG(taken == frames - 2, "warm taken on %d of %d pairs", taken, frames - 2);
            CHECK_MSG(sb < sa, "warm EPE sum %.4f not below cold %.4f", sb, sa);
        } else {
            const int first = oflow::synth::kSceneCutFrame;
            CHECK_MSG(e[1][first] <= 1.1 * e[0][first], "after the cut: warm %.4f vs cold %.4f", e[1][first], e[0][first]);
        }
    }
}

} // namespace

int main() {
    if (!cuda_ready()) return 77;
    contract();
    identities();
    registered();
    warm();
    return finish("gpu_stream");
}
