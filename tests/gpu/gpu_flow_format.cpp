// gpu_flow_format: the compact flow outputs (of_flow.format) on the CUDA path, converted on the
// device (cuda/flow_format_cuda.cu) before any download.
//
// For TV-L1 at CUDA F32 and F16 precision (epsilon 0: every frame runs the same iterations), on
// a 97x61 rotation-zoom pair (an odd width: 16-bit planar rows of 194 bytes, not a multiple of
// 4), the same context first writes its F32 flow to a packed host plane, then every format
// (F32, F16, S10.5) x memory (host, device, mapped) x layout (planar, interleaved) with 3
// padding elements a row: each element equals the host conversion (core/flow_format.hpp) of the
// F32 flow bit for bit (F32: the same floats), and no byte outside the rows' elements changes
// (each buffer holds 0xA5 first). Then the validity mask with the compact formats, Lucas-Kanade's
// and TV-L1's (the residual confidence of the F32 flow): the F32 run's mask; and one frame split by level (AUTO on the xavier table: the coarse levels on
// the CPU path, whose internal hand-over stays F32), S10.5 against that context's F32 output.
// Returns 77 without a CUDA device.
#include "gpu_util.hpp"

#include "core/flow_format.hpp"

#include <cstring>
#include <string>

using namespace gputest;

namespace {

const unsigned char kFill = 0xA5;

unsigned elem_bytes(of_flow_format f) { return f == OF_FLOW_FORMAT_F32 ? 4u : 2u; }

const char* fmt_name(of_flow_format f) {
    return f == OF_FLOW_FORMAT_F32 ? "f32" : (f == OF_FLOW_FORMAT_F16 ? "f16" : "s10.5");
}

const char* mem_name(of_memory_kind m) {
    return m == OF_MEMORY_HOST ? "host" : (m == OF_MEMORY_CUDA_DEVICE ? "device" : "mapped");
}

// One output plane in host, device or mapped memory, every byte kFill first.
struct Plane {
    std::vector<unsigned char> host;
    DevBuf dev;
    std::size_t bytes = 0;
    Plane() = default;
    Plane(std::size_t n, of_memory_kind kind) : bytes(n) {
        if (kind == OF_MEMORY_HOST) {
            host.assign(n, kFill);
        } else {
            dev = DevBuf(n, kind == OF_MEMORY_CUDA_MAPPED);
            if (dev.p) GPU_CHECK_CUDA(cudaMemset(dev.p, kFill, n));
        }
    }
    void* ptr() { return host.empty() ? dev.p : host.data(); }
    std::vector<unsigned char> fetch() const {
        if (!host.empty()) return host;
        std::vector<unsigned char> out(bytes, 0);
        GPU_CHECK_CUDA(cudaDeviceSynchronize());
        if (dev.p) GPU_CHECK_CUDA(cudaMemcpy(out.data(), dev.p, bytes, cudaMemcpyDefault));
        return out;
    }
};

// An output flow of the given format, memory and layout, `extra` padding elements a row.
struct Out {
    Plane a, b;
    of_flow f;
    std::size_t row_bytes = 0;
    Out(uint32_t w, uint32_t h, of_flow_format fmt, of_memory_kind kind, of_flow_layout layout, std::size_t extra) {
        const bool planar = layout == OF_FLOW_PLANAR;
        const std::size_t eb = elem_bytes(fmt);
        row_bytes = static_cast<std::size_t>(w) * eb * (planar ? 1 : 2);
        const std::size_t stride = row_bytes + extra * eb;
        a = Plane(stride * h + 64, kind);
        if (planar) b = Plane(stride * h + 64, kind);
        f = flow_desc(w, h, layout, kind, stride, fmt, a.ptr(), planar ? b.ptr() : nullptr);
    }
};

// The element bits the output should hold for the F32 flow value v.
uint32_t expected(of_flow_format fmt, float v) {
    if (fmt == OF_FLOW_FORMAT_F16) return oflow::flow_to_f16(v);
    if (fmt == OF_FLOW_FORMAT_S10_5) return static_cast<uint16_t>(oflow::flow_to_s10_5(v));
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
}

uint32_t element(const std::vector<unsigned char>& buf, std::size_t stride, unsigned eb, std::size_t i, uint32_t y) {
    uint32_t e = 0;
    if (eb == 4) {
        std::memcpy(&e, buf.data() + y * stride + 4 * i, 4);
    } else {
        uint16_t s;
        std::memcpy(&s, buf.data() + y * stride + 2 * i, 2);
        e = s;
    }
    return e;
}

// o's contents against the conversion of ref (a packed planar F32 host flow); padding kept.
void compare(const Out& o, const FlowBuf& ref, const std::string& what) {
    const std::vector<unsigned char> a = o.a.fetch();
    const std::vector<unsigned char> b = o.f.layout == OF_FLOW_PLANAR ? o.b.fetch() : std::vector<unsigned char>();
    const of_flow_format fmt = o.f.format;
    const unsigned eb = elem_bytes(fmt);
    const bool planar = o.f.layout == OF_FLOW_PLANAR;
    int bad = 0;
    for (uint32_t y = 0; y < o.f.height; ++y)
        for (uint32_t x = 0; x < o.f.width; ++x) {
            const uint32_t gu = planar ? element(a, o.f.stride, eb, x, y) : element(a, o.f.stride, eb, 2 * x, y);
            const uint32_t gv = planar ? element(b, o.f.stride, eb, x, y) : element(a, o.f.stride, eb, 2 * x + 1, y);
            const uint32_t wu = expected(fmt, ref.u(x, y)), wv = expected(fmt, ref.v(x, y));
            if (gu != wu || gv != wv) {
                if (bad++ < 3)
                    std::fprintf(stderr, "%s: (%u,%u): got 0x%x 0x%x, want 0x%x 0x%x (f32 %.9g %.9g)\n", what.c_str(), x,
                                 y, gu, gv, wu, wv, static_cast<double>(ref.u(x, y)), static_cast<double>(ref.v(x, y)));
            }
        }
    CHECK_MSG(bad == 0, "%s: %d pixels differ from the host conversion of the f32 flow", what.c_str(), bad);
    int stray = 0;
    for (const std::vector<unsigned char>* buf : {&a, &b})
        for (std::size_t i = 0; i < buf->size(); ++i) {
            const std::size_t y = i / o.f.stride, x = i % o.f.stride;
            if (!(y < o.f.height && x < o.row_bytes) && (*buf)[i] != kFill) ++stray;
        }
    CHECK_MSG(stray == 0, "%s: %d bytes outside the rows were written", what.c_str(), stray);
    std::printf("%-48s %s\n", what.c_str(), bad == 0 && stray == 0 ? "ok" : "FAIL");
}

// The F32 reference of ctx for the pair (packed planar host), optionally with a validity mask.
bool f32_of(of_context* ctx, const FramePair& fp, FlowBuf* ref, std::vector<unsigned char>* mask,
            const std::string& what) {
    *ref = make_flow(fp.prev.img.width, fp.prev.img.height, OF_FLOW_PLANAR);
    if (mask) {
        mask->assign(static_cast<std::size_t>(fp.prev.img.width) * fp.prev.img.height, 7);
        ref->f.valid_format = OF_VALID_MASK_U8;
        ref->f.valid_stride = fp.prev.img.width;
        ref->f.valid = mask->data();
    }
    const of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &ref->f);
    CHECK_MSG(s == OF_OK, "%s: f32 reference: %s (%s)", what.c_str(), st(s), of_last_error(ctx));
    return s == OF_OK;
}

void test_tvl1(of_precision prec) {
    const uint32_t w = 97, h = 61;
    const Pair p = synth_pair(oflow::synth::Case::RotationZoom, w, h);
    const FramePair fp = frames_of(p, OF_PIXEL_U8);
    of_config c = tvl1_config(w, h);
    c.backend = OF_BACKEND_CUDA;
    c.precision = prec;
    c.epsilon = 0.0f;
    c.warps = 3;
    c.iterations = 30;
    const std::string tag = std::string("tvl1 ") + (prec == OF_PRECISION_F16 ? "F16" : "F32");
    of_context* ctx = create_or_report(c, tag.c_str());
    CHECK(ctx != nullptr);
    if (!ctx) return;
    FlowBuf ref;
    if (f32_of(ctx, fp, &ref, nullptr, tag)) {
        for (of_flow_format fmt : {OF_FLOW_FORMAT_F32, OF_FLOW_FORMAT_F16, OF_FLOW_FORMAT_S10_5})
            for (of_memory_kind kind : {OF_MEMORY_HOST, OF_MEMORY_CUDA_DEVICE, OF_MEMORY_CUDA_MAPPED})
                for (of_flow_layout layout : {OF_FLOW_PLANAR, OF_FLOW_INTERLEAVED}) {
                    const std::string what = tag + " " + fmt_name(fmt) + " " + mem_name(kind) +
                                             (layout == OF_FLOW_PLANAR ? " planar" : " interleaved");
                    Out o(w, h, fmt, kind, layout, 3);
                    const of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &o.f);
                    CHECK_MSG(s == OF_OK, "%s: %s (%s)", what.c_str(), st(s), of_last_error(ctx));
                    if (s == OF_OK) compare(o, ref, what);
                }
    }
    of_destroy(ctx);
}

// The validity mask next to a compact flow is the F32 run's mask (LK's from its lambda plane,
// TV-L1's the residual confidence of the F32 flow, which the compact output only rounds).
void test_mask(of_algorithm a) {
    const uint32_t w = 97, h = 61;
    const Pair p = synth_pair(oflow::synth::Case::SmoothField, w, h);
    const FramePair fp = frames_of(p, OF_PIXEL_U8);
    of_config c = algo_config(a, w, h);
    c.backend = OF_BACKEND_CUDA;
    c.precision = OF_PRECISION_F32;
    c.epsilon = 0.0f;
    if (a == OF_ALGO_LK) {
        c.lk.min_eigen = 50.0f;
    } else {
        c.warps = 3;
        c.iterations = 30;
    }
    const char* an = a == OF_ALGO_LK ? "lk" : "tvl1";
    of_context* ctx = create_or_report(c, an);
    CHECK(ctx != nullptr);
    if (!ctx) return;
    FlowBuf ref;
    std::vector<unsigned char> mask_ref;
    if (f32_of(ctx, fp, &ref, &mask_ref, an)) {
        for (of_memory_kind kind : {OF_MEMORY_HOST, OF_MEMORY_CUDA_DEVICE})
            for (of_flow_format fmt : {OF_FLOW_FORMAT_F16, OF_FLOW_FORMAT_S10_5}) {
                const std::string what = std::string(an) + " " + fmt_name(fmt) + " " + mem_name(kind) + " with mask";
                Out o(w, h, fmt, kind, OF_FLOW_PLANAR, 1);
                Plane m(static_cast<std::size_t>(w) * h, kind);
                o.f.valid_format = OF_VALID_MASK_U8;
                o.f.valid_stride = w;
                o.f.valid = m.ptr();
                const of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &o.f);
                CHECK_MSG(s == OF_OK, "%s: %s (%s)", what.c_str(), st(s), of_last_error(ctx));
                if (s != OF_OK) continue;
                compare(o, ref, what);
                CHECK_MSG(m.fetch() == mask_ref, "%s: the mask differs from the f32 run's", what.c_str());
            }
    }
    of_destroy(ctx);
}

// A frame split by level: AUTO on the xavier table (coarse levels on the CPU path): its per-level
// crossover (512x512) puts level 0 of a 768x384 frame on the GPU and the others on the CPU.
void test_split() {
    const uint32_t w = 768, h = 384;
    const Pair p = synth_pair(oflow::synth::Case::SmoothField, w, h);
    const FramePair fp = frames_of(p, OF_PIXEL_U8);
    of_config c = tvl1_config(w, h);
    c.backend = OF_BACKEND_AUTO;
    c.platform = "xavier";
    c.precision = OF_PRECISION_F32;
    c.levels = 5;
    c.epsilon = 0.0f;
    c.warps = 2;
    c.iterations = 20;
    of_context* ctx = create_or_report(c, "split");
    CHECK(ctx != nullptr);
    if (!ctx) return;
    FlowBuf ref;
    if (f32_of(ctx, fp, &ref, nullptr, "split")) {
        of_info in;
        std::memset(&in, 0, sizeof in);
        in.struct_size = sizeof in;
        CHECK(of_get_info(ctx, &in) == OF_OK);
        const bool split = in.level_backend[0] == OF_BACKEND_CUDA && in.level_backend[in.levels - 1] != OF_BACKEND_CUDA;
        std::printf("split frame: level 0 on %s, level %u on %s%s\n", in.level_backend[0] == OF_BACKEND_CUDA ? "CUDA" : "CPU",
                    in.levels - 1, in.level_backend[in.levels - 1] == OF_BACKEND_CUDA ? "CUDA" : "CPU",
                    split ? "" : " (not split on this device: the comparison still holds)");
        for (of_memory_kind kind : {OF_MEMORY_HOST, OF_MEMORY_CUDA_DEVICE}) {
            const std::string what = std::string("split s10.5 interleaved ") + mem_name(kind);
            Out o(w, h, OF_FLOW_FORMAT_S10_5, kind, OF_FLOW_INTERLEAVED, 0);
            const of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &o.f);
            CHECK_MSG(s == OF_OK, "%s: %s (%s)", what.c_str(), st(s), of_last_error(ctx));
            if (s == OF_OK) compare(o, ref, what);
        }
    }
    of_destroy(ctx);
}

} // namespace

int main() {
    if (!cuda_ready()) return 77;
    test_tvl1(OF_PRECISION_F32);
    test_tvl1(OF_PRECISION_F16);
    test_mask(OF_ALGO_LK);
    test_mask(OF_ALGO_TVL1);
    test_split();
    return oftest::finish("gpu_flow_format");
}
