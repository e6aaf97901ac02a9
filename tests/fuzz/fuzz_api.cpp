// fuzz_api: libFuzzer target over the C API. Bytes -> an of_config (every field, raw enum values,
// raw float bit patterns: NaN, Inf, denormals; tiny and odd sizes), two image descriptors and an
// output descriptor (sizes above the maximum, strides below the row, zero sizes, mismatched
// formats; the validity plane's format, pointer and stride; the flow's element format: F32, F16,
// S10.5 or a raw value, with strides sized for floats or for 16-bit elements) and the pixels -> of_query_memory,
// of_create, of_get_info, of_process (or of_reset and two of_push_frame), of_destroy. LK's parameters when the input picks LK.
//
// The contract, checked with a crash (abort) where it breaks:
//  - a failing call returns a non-OK status with a non-empty of_last_error, and leaves the
//    output buffers (the validity plane included) byte for byte as they were (a canary pattern);
//  - an OK of_process writes a validity mask of 0 / 255 or finite confidences >= 0;
//  - an OK of_process gives finite flow over the whole frame, with every correspondence within the
//    frame extended by its longer side M: x + u in [-M, w - 1 + M], y + v in [-M, h - 1 + M]
//    (api/oflow.h, of_process; a compact format's elements decoded, with its rounding as slack);
//  - of_query_memory == what of_create plans (of_get_info host_bytes), and of_explain accepts
//    exactly the configs of_query_memory accepts.
// The reference backend only (NEON and CUDA paths are tested against it elsewhere), and a cap on
// the work of one input so that the fuzzer keeps its pace. OFLOW_FUZZ_VERBOSE=1 prints what each
// input runs (config, frame and flow descriptors) before of_process, to reproduce a finding.
#include "oflow.h"

#include "byte_source.hpp"
#include "core/flow_format.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// An enum field's value as stored (the fuzzer stores values outside the enumerators: reading them
// as the enum type would itself be undefined behaviour).
template <class E>
int32_t raw_of(const E& e) {
    int32_t v;
    std::memcpy(&v, &e, sizeof v);
    return v;
}

const unsigned char kCanary = 0xA5;
const of_config* g_cfg = nullptr; // the input's config, printed with a broken contract

void print_config(const of_config& c) {
    std::fprintf(stderr,
                     "  config: max %ux%u levels %u scale %g warps %u iterations %u epsilon %g presmooth %g "
                     "threads %u budget %g tau %g lambda %g theta %g robust %d sigma %g median %u min_texture %g growth %g\n",
                     c.max_width, c.max_height, c.levels, static_cast<double>(c.scale_factor), c.warps, c.iterations,
                     static_cast<double>(c.epsilon), static_cast<double>(c.presmooth_sigma), c.threads,
                     static_cast<double>(c.time_budget_ms), static_cast<double>(c.tvl1.tau),
                     static_cast<double>(c.tvl1.lambda), static_cast<double>(c.tvl1.theta), static_cast<int>(raw_of(c.robust)),
                     static_cast<double>(c.robust_sigma), c.median_size, static_cast<double>(c.min_texture),
                     static_cast<double>(c.iteration_growth));
    std::fprintf(stderr, "  format %d precision %d variant %d block %ux%u depth %u\n", raw_of(c.format),
                 raw_of(c.precision), raw_of(c.variant), c.block_width, c.block_height, c.fused_depth);
}

[[noreturn]] void broken(const char* what, const char* detail) {
    std::fprintf(stderr, "fuzz_api: contract broken: %s (%s)\n", what, detail ? detail : "");
    if (g_cfg) print_config(*g_cfg);
    std::abort();
}

// A float from the bytes: mostly plausible values, sometimes a raw bit pattern.
float any_float(fuzz::ByteSource& d, float lo, float hi) {
    switch (d.in_range<int>(0, 3)) {
    case 0: return d.any_bits_float();
    case 1: return d.pick<float>({0.0f, -0.0f, 1e-41f, 1.2e-38f, 1e-30f, 1e30f, 3.4e38f, -1.0f, 0.5f, 1.0f});
    default: return d.float_in(lo, hi);
    }
}

// One output element of format fmt (F32, F16 or S10.5) at p, as a float.
float element(const unsigned char* p, int32_t fmt) {
    if (fmt == OF_FLOW_FORMAT_F32) {
        float f;
        std::memcpy(&f, p, 4);
        return f;
    }
    uint16_t e;
    std::memcpy(&e, p, 2);
    return fmt == OF_FLOW_FORMAT_F16 ? oflow::f16_to_float(e) : oflow::s10_5_to_float(static_cast<int16_t>(e));
}

template <class E>
void raw_enum(fuzz::ByteSource& d, E* e, int32_t lo, int32_t hi) {
    const int32_t v = d.boolean() ? d.in_range<int32_t>(lo, hi) : d.raw<int32_t>();
    std::memcpy(e, &v, sizeof v);
}

uint32_t small_or_raw(fuzz::ByteSource& d, uint32_t lo, uint32_t hi) {
    return d.in_range<int>(0, 7) == 0 ? d.raw<uint32_t>() : d.in_range<uint32_t>(lo, hi);
}

size_t bytes_per_pixel(int32_t f) { return f == OF_PIXEL_U16 ? 2 : f == OF_PIXEL_F32 ? 4 : 1; }

void fill_config(fuzz::ByteSource& d, of_config* c) {
    of_config_init(c, OF_ALGO_TVL1);
    if (d.in_range<int>(0, 15) == 0) raw_enum(d, &c->algorithm, -1, 6);
    c->max_width = small_or_raw(d, 0, 48);
    c->max_height = small_or_raw(d, 0, 40);
    raw_enum(d, &c->format, 0, 4);
    c->levels = small_or_raw(d, 0, 17);
    c->scale_factor = any_float(d, 0.0f, 1.0f);
    c->warps = small_or_raw(d, 0, 4);
    c->iterations = small_or_raw(d, 0, 12);
    c->epsilon = any_float(d, 0.0f, 0.1f);
    c->presmooth_sigma = any_float(d, 0.0f, 9.0f);
    c->backend = OF_BACKEND_REFERENCE;
    raw_enum(d, &c->precision, 0, 3);
    c->threads = small_or_raw(d, 0, 3);
    c->time_budget_ms = d.in_range<int>(0, 7) == 0 ? any_float(d, 0.0f, 5.0f) : 0.0f;
    c->tvl1.tau = any_float(d, 0.0f, 0.3f);
    c->tvl1.lambda = any_float(d, 0.0f, 2.0f);
    c->tvl1.theta = any_float(d, 0.0f, 2.0f);
    raw_enum(d, &c->variant, 0, 4);
    c->block_width = small_or_raw(d, 0, 64);
    c->block_height = small_or_raw(d, 0, 16);
    c->fused_depth = small_or_raw(d, 0, 17);
    raw_enum(d, &c->robust, 0, 7); // every mode (4: pick, several solves; 6: census, not DIS), and 7 refused
    c->robust_sigma = any_float(d, 0.0f, 11.0f);
    c->median_size = small_or_raw(d, 0, 6);
    c->min_texture = any_float(d, 0.0f, 10.0f);
    c->iteration_growth = any_float(d, 0.0f, 3.0f);
    // LK's own fields, drawn only when the input picked LK (other inputs read the same bytes as
    // before LK existed): one warp mostly, any window, any threshold.
    if (raw_of(c->algorithm) == OF_ALGO_LK) {
        if (d.in_range<int>(0, 3) != 0) c->warps = 1;
        c->lk.window = d.boolean() ? 2 * d.in_range<uint32_t>(1, 8) + 1 : small_or_raw(d, 0, 35);
        c->lk.min_eigen = any_float(d, 0.0f, 5.0f);
    }
    // DIS's fields, likewise only when the input picked DIS: any patch, stride, steps, finest
    // level and refinement, raw values beyond the ranges included.
    if (raw_of(c->algorithm) == OF_ALGO_DIS) {
        if (d.in_range<int>(0, 3) != 0) c->warps = 1;
        c->dis.patch_size = small_or_raw(d, 0, 34);
        c->dis.patch_stride = small_or_raw(d, 0, 10);
        c->dis.iterations = small_or_raw(d, 0, 6);
        c->dis.finest_level = small_or_raw(d, 0, 4);
        c->dis.refine_iterations = small_or_raw(d, 0, 3);
        c->dis.refine_alpha = any_float(d, 0.0f, 400.0f);
        c->dis.refine_delta = any_float(d, 0.0f, 10.0f);
        c->dis.refine_gamma = any_float(d, 0.0f, 10.0f);
    }
}

struct Frame {
    of_image img;
    std::vector<unsigned char> bytes;
};

// An image descriptor near the config's, broken in one of several ways or not at all.
void fill_image(fuzz::ByteSource& d, const of_config& c, uint32_t w, uint32_t h, Frame* f) {
    of_image& im = f->img;
    std::memset(&im, 0, sizeof im);
    im.struct_size = d.in_range<int>(0, 31) == 0 ? d.raw<uint32_t>() : sizeof(of_image);
    im.format = c.format;
    if (d.in_range<int>(0, 15) == 0) raw_enum(d, &im.format, 0, 4);
    im.memory = OF_MEMORY_HOST;
    if (d.in_range<int>(0, 31) == 0) raw_enum(d, &im.memory, 0, 3);
    im.width = w;
    im.height = h;
    const size_t bpp = bytes_per_pixel(raw_of(im.format));
    const size_t row = static_cast<size_t>(w) * bpp;
    switch (d.in_range<int>(0, 9)) {
    case 0: im.stride = row > 0 ? row - 1 : 0; break;                      // below the row
    case 1: im.stride = d.in_range<size_t>(0, 4 * row + 8); break; // anything
    default: im.stride = row + bpp * d.in_range<size_t>(0, 3); break;
    }
    // The buffer always holds what the descriptor claims (stride x height, capped): the API
    // cannot know a buffer's size, so a caller lying about it is outside the contract.
    const size_t need = im.stride * h + row + 16;
    if (need > (1u << 20)) {
        im.data = nullptr;
        return;
    }
    f->bytes.resize(need);
    const std::vector<uint8_t> px = d.bytes(need);
    for (size_t i = 0; i < need; ++i) f->bytes[i] = i < px.size() ? px[i] : static_cast<unsigned char>(i * 37);
    im.data = d.in_range<int>(0, 31) == 0 ? nullptr : f->bytes.data();
}

bool untouched(const std::vector<unsigned char>& b) {
    for (unsigned char x : b)
        if (x != kCanary) return false;
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz::ByteSource d(data, size);
    of_config cfg;
    fill_config(d, &cfg);
    g_cfg = &cfg;

    of_memory need;
    std::memset(&need, 0, sizeof need);
    need.struct_size = sizeof need;
    const of_status q = of_query_memory(&cfg, &need);
    if (q != OF_OK && of_last_error(nullptr)[0] == '\0') broken("of_query_memory failed without a message", nullptr);

    // A valid config may plan gigabytes (32768 x 32768): the fuzzer's malloc limit would report
    // that as a crash, so such plans stop at the query.
    if (q == OF_OK && need.host_bytes > (256u << 20)) return 0;
    {
        of_info ex;
        std::memset(&ex, 0, sizeof ex);
        ex.struct_size = sizeof ex;
        const of_status x = of_explain(&cfg, &ex);
        if ((x == OF_OK) != (q == OF_OK)) broken("of_explain and of_query_memory disagree", of_last_error(nullptr));
    }
    of_context* ctx = nullptr;
    const of_status s = of_create(&cfg, &ctx);
    if (s != OF_OK) {
        if (ctx != nullptr) broken("of_create failed but returned a context", of_last_error(nullptr));
        if (of_last_error(nullptr)[0] == '\0') broken("of_create failed without a message", nullptr);
        if (q == OF_OK) broken("of_query_memory accepted what of_create refused", of_last_error(nullptr));
        return 0;
    }
    if (q != OF_OK) broken("of_create accepted what of_query_memory refused", nullptr);
    of_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (of_get_info(ctx, &info) != OF_OK) broken("of_get_info failed on a live context", of_last_error(ctx));
    if (info.host_bytes != need.host_bytes) broken("of_query_memory != of_create's plan", nullptr);

    // Work cap: pixels x levels x warps x iterations of one frame.
    const double work = static_cast<double>(cfg.max_width) * cfg.max_height * info.levels * info.warps * info.iterations;
    const int frames = work > 4e6 ? 0 : d.in_range<int>(1, 2);
    for (int k = 0; k < frames; ++k) {
        uint32_t w = cfg.max_width, h = cfg.max_height;
        if (d.boolean()) {
            w = small_or_raw(d, 0, cfg.max_width + 2);
            h = small_or_raw(d, 0, cfg.max_height + 2);
        }
        if (static_cast<uint64_t>(w) * h > (1u << 16)) w = h = 1;
        Frame f0, f1;
        fill_image(d, cfg, w, h, &f0);
        fill_image(d, cfg, d.in_range<int>(0, 15) == 0 ? w + 1 : w, h, &f1);
        of_flow fl;
        std::memset(&fl, 0, sizeof fl);
        fl.struct_size = sizeof fl;
        fl.layout = d.boolean() ? OF_FLOW_INTERLEAVED : OF_FLOW_PLANAR;
        if (d.in_range<int>(0, 31) == 0) raw_enum(d, &fl.layout, 0, 3);
        fl.memory = OF_MEMORY_HOST;
        fl.width = d.in_range<int>(0, 15) == 0 ? w + 1 : w;
        fl.height = h;
        const bool inter = raw_of(fl.layout) == OF_FLOW_INTERLEAVED;
        const size_t per = inter ? 8 : 4;
        fl.stride = static_cast<size_t>(w) * per + 4 * d.in_range<size_t>(0, 2);
        if (d.in_range<int>(0, 15) == 0) fl.stride = d.in_range<size_t>(0, 64);
        const size_t plane = fl.stride * h + 64;
        if (plane > (1u << 22)) continue; // the harness's own buffers stay small
        std::vector<unsigned char> ub(plane, kCanary), vb(plane, kCanary);
        fl.u = reinterpret_cast<float*>(ub.data());
        fl.v = inter ? nullptr : reinterpret_cast<float*>(vb.data());
        if (d.in_range<int>(0, 31) == 0) fl.v = reinterpret_cast<float*>(vb.data());
        // The validity plane: none, a mask or a confidence plane (stride at, above or below the
        // row), sometimes a raw format, a missing or a stray pointer, an odd address.
        const int vk = d.in_range<int>(0, 7);
        const size_t vbpp = vk == 2 ? 4 : 1;
        size_t vstride = static_cast<size_t>(w) * vbpp + vbpp * d.in_range<size_t>(0, 2);
        if (d.in_range<int>(0, 15) == 0) vstride = d.in_range<size_t>(0, 64);
        const size_t vplane = vstride * h + 64;
        if (vplane > (1u << 22)) continue;
        std::vector<unsigned char> valid(vplane + 4, kCanary);
        if (vk == 1 || vk == 2) {
            fl.valid_format = vk == 1 ? OF_VALID_MASK_U8 : OF_VALID_CONFIDENCE_F32;
            fl.valid_stride = vstride;
            fl.valid = valid.data() + (d.in_range<int>(0, 31) == 0 ? 1 : 0);
            if (d.in_range<int>(0, 31) == 0) fl.valid = nullptr;
        } else if (vk == 3) {
            raw_enum(d, &fl.valid_format, -1, 4);
            fl.valid_stride = vstride;
            fl.valid = d.boolean() ? valid.data() : nullptr;
        }

        // The element format, chosen last (an input that ends earlier keeps F32): F16 or S10.5,
        // sometimes with the stride of 16-bit rows instead of float rows, or a raw value.
        const int ff = d.in_range<int>(0, 7);
        if (ff == 1 || ff == 2) {
            fl.format = ff == 1 ? OF_FLOW_FORMAT_F16 : OF_FLOW_FORMAT_S10_5;
            // 16-bit rows, 0..2 elements of padding, sometimes an odd byte count; only ever
            // narrower than the stride the buffers above were sized for.
            if (d.boolean()) {
                const size_t s16 = static_cast<size_t>(w) * per / 2 + 2 * d.in_range<size_t>(0, 2) +
                                   (d.in_range<int>(0, 15) == 0 ? 1 : 0);
                if (s16 < fl.stride) fl.stride = s16;
            }
        } else if (ff == 3) {
            raw_enum(d, &fl.format, -1, 4);
        }
        const int32_t fmt = raw_of(fl.format);
        const size_t eb = fmt == OF_FLOW_FORMAT_F32 ? 4 : 2;
        if (std::getenv("OFLOW_FUZZ_VERBOSE")) { // reproducing a finding: what this input runs
            print_config(cfg);
            std::fprintf(stderr, "  frame %ux%u formats %d/%d strides %zu/%zu, flow %ux%u layout %d format %d stride %zu\n", w,
                         h, raw_of(f0.img.format), raw_of(f1.img.format), f0.img.stride, f1.img.stride, fl.width,
                         fl.height, raw_of(fl.layout), fmt, fl.stride);
        }
        // A quarter of the inputs go through a stream instead: the two frames pushed after a reset
        // (the first must be OF_PENDING or an error, and write nothing either way).
        of_status p;
        if (d.in_range<int>(0, 3) == 0) {
            if (of_reset(ctx) != OF_OK) broken("of_reset failed", of_last_error(ctx));
            p = of_push_frame(ctx, &f0.img, &fl);
            if (p == OF_OK) broken("the first frame of a stream gave a flow", nullptr);
            if (!untouched(ub) || !untouched(vb) || !untouched(valid))
                broken("the first frame of a stream wrote to the output", of_last_error(ctx));
            if (p == OF_PENDING) p = of_push_frame(ctx, &f1.img, &fl);
        } else {
            p = of_process(ctx, &f0.img, &f1.img, &fl);
        }
        if (p != OF_OK) {
            if (of_last_error(ctx)[0] == '\0') broken("of_process failed without a message", nullptr);
            if (!untouched(ub) || !untouched(vb) || !untouched(valid))
                broken("of_process failed but wrote to the output", of_last_error(ctx));
            continue;
        }
        // OK: the validity plane holds a mask of 0 / 255, or confidences that are finite and >= 0
        // (FLT_MAX for an algorithm without a rejection rule).
        if (raw_of(fl.valid_format) != OF_VALID_NONE) {
            const unsigned char* vbase = static_cast<const unsigned char*>(fl.valid);
            const bool mask = raw_of(fl.valid_format) == OF_VALID_MASK_U8;
            for (uint32_t y = 0; y < h; ++y)
                for (uint32_t x = 0; x < w; ++x) {
                    const unsigned char* px = vbase + y * fl.valid_stride + (mask ? x : 4 * x);
                    if (mask) {
                        if (*px != 0 && *px != 255) broken("OK validity mask is neither 0 nor 255", nullptr);
                    } else {
                        float c;
                        std::memcpy(&c, px, 4);
                        if (!(c >= 0.0f) || std::isinf(c)) broken("OK confidence is not finite and >= 0", nullptr);
                    }
                }
        }
        // OK: finite flow over the whole frame, every correspondence within the frame extended
        // by its longer side.
        const float m = static_cast<float>(w > h ? w : h);
        for (uint32_t y = 0; y < h; ++y)
            for (uint32_t x = 0; x < w; ++x) {
                const unsigned char* r = ub.data() + y * fl.stride;
                const unsigned char* pu = inter ? r + 2 * eb * x : r + eb * x;
                const unsigned char* pv = inter ? pu + eb : vb.data() + y * fl.stride + eb * x;
                const float u = element(pu, fmt), v = element(pv, fmt);
                if (!std::isfinite(u) || !std::isfinite(v)) broken("OK flow is not finite", nullptr);
                const float fx = static_cast<float>(x) + u, fy = static_cast<float>(y) + v;
                // Slack: 1e-3 px, and a compact format's rounding (S10.5 1/64 px, F16 2^-11 relative).
                const float sx = 1e-3f + (eb == 2 ? 1.0f / 64 + std::fabs(u) / 1024 : 0.0f);
                const float sy = 1e-3f + (eb == 2 ? 1.0f / 64 + std::fabs(v) / 1024 : 0.0f);
                if (fx < -m - sx || fx > static_cast<float>(w - 1) + m + sx || fy < -m - sy ||
                    fy > static_cast<float>(h - 1) + m + sy) {
                    char b[96];
                    std::snprintf(b, sizeof b, "(%g, %g) at (%u, %u) of %ux%u", static_cast<double>(u),
                                  static_cast<double>(v), x, y, w, h);
                    broken("OK flow leaves the frame extended by its longer side", b);
                }
            }
    }
    of_destroy(ctx);
    return 0;
}
