// Compact flow outputs (of_flow.format, api/oflow.h of_flow_format) on the CPU paths:
//  1. the conversions of core/flow_format.hpp on edge values (rounding ties, the clamps, tiny
//     values, subnormal halves) and against independent references: S10.5 against
//     nearbyint(double(v) * 32) clamped, F16 as the nearest half (ties to even) of every input,
//     every half decoded and re-encoded to itself;
//  2. end to end: the same pair processed twice on one context, F32 then F16 / S10.5, planar and
//     interleaved, minimal and padded strides (odd element counts: strides that are multiples of
//     2, not of 4): every element equals the conversion of the F32 output bit for bit, and no
//     byte outside the rows' elements is written; LK's validity plane is the same for every format;
//  3. bad formats, strides and alignments refused (OF_ERR_FORMAT, OF_ERR_STRIDE,
//     OF_ERR_INVALID_ARGUMENT) with nothing written.
// Runs on whatever backend OFLOW_FORCE_BACKEND gives (reference and NEON in the aarch64 suites).
#include "test_util.hpp"

#include "core/flow_format.hpp"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace oftest;
using oflow::f16_to_float;
using oflow::flow_to_f16;
using oflow::flow_to_s10_5;
using oflow::s10_5_to_float;

namespace {

float bits_float(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

// ---- 1. the conversions ----------------------------------------------------------------------

int16_t s10_5_reference(float v) {
    const double q = std::nearbyint(static_cast<double>(v) * 32.0); // exact product; ties to even
    return static_cast<int16_t>(q < -32768.0 ? -32768.0 : (q > 32767.0 ? 32767.0 : q));
}

void check_s10_5_edges() {
    struct Case {
        float v;
        int q;
    };
    const Case cases[] = {
        {0.0f, 0},          {-0.0f, 0},           {1.0f / 32, 1},       {-1.0f / 32, -1},
        {1.0f / 64, 0},     {-1.0f / 64, 0},      {3.0f / 64, 2},       {-3.0f / 64, -2},
        {5.0f / 64, 2},     {-5.0f / 64, -2},     {7.0f / 64, 4},       {0.5f, 16},
        {1.0f, 32},         {-2.375f, -76},       {1023.96875f, 32767}, {1023.953125f, 32766}, // 32766.5: even
        {1023.984375f, 32767}, // 32767.5 rounds to 32768: clamped
        {1023.99f, 32767},  {1024.0f, 32767},     {-1024.0f, -32768},   {-1023.984375f, -32768},
        {-1025.0f, -32768}, {70000.0f, 32767},    {-70000.0f, -32768},  {FLT_MAX, 32767},
        {-FLT_MAX, -32768}, {1e-30f, 0},          {-1e-30f, 0},         {bits_float(1), 0}, // denormal float
        {std::nextafter(1.0f / 64, 1.0f), 1},     {std::nextafter(1.0f / 64, 0.0f), 0},
        {std::nextafter(-1.0f / 64, -1.0f), -1},  {511.515625f, 16368}, // 16368.5: tie to even
    };
    for (const Case& c : cases) {
        const int got = flow_to_s10_5(c.v);
        CHECK_MSG(got == c.q, "s10.5(%.9g) = %d, want %d", static_cast<double>(c.v), got, c.q);
        CHECK_MSG(s10_5_reference(c.v) == c.q, "reference s10.5(%.9g) != %d (the table is wrong)",
                  static_cast<double>(c.v), c.q);
    }
    CHECK(s10_5_to_float(32767) == 1023.96875f);
    CHECK(s10_5_to_float(-32768) == -1024.0f);
    CHECK(s10_5_to_float(-76) == -2.375f);
}

void check_f16_edges() {
    struct Case {
        float v;
        uint16_t h;
    };
    const float u24 = std::ldexp(1.0f, -24); // the smallest subnormal half
    const Case cases[] = {
        {0.0f, 0x0000},
        {-0.0f, 0x8000},
        {1.0f, 0x3C00},
        {-2.0f, 0xC000},
        {0.5f, 0x3800},
        {65504.0f, 0x7BFF},
        {65519.0f, 0x7BFF},
        {65520.0f, 0x7BFF}, // IEEE rounding gives Inf: clamped
        {70000.0f, 0x7BFF},
        {-70000.0f, 0xFBFF},
        {FLT_MAX, 0x7BFF},
        {-FLT_MAX, 0xFBFF},
        {1.0f + std::ldexp(1.0f, -11), 0x3C00},        // tie, to even
        {1.0f + 3.0f * std::ldexp(1.0f, -11), 0x3C02}, // tie, to even (up)
        {1.0f + std::ldexp(1.0f, -10), 0x3C01},
        {std::ldexp(1.0f, -14), 0x0400},               // the smallest normal half
        {std::ldexp(1.0f, -14) - u24, 0x03FF},         // the largest subnormal
        {u24, 0x0001},
        {-u24, 0x8001},
        {std::ldexp(1.0f, -25), 0x0000},               // half the smallest subnormal: tie to 0
        {std::nextafter(std::ldexp(1.0f, -25), 1.0f), 0x0001},
        {1.5f * u24, 0x0002},                          // tie between 1 and 2 units: even
        {2.5f * u24, 0x0002},
        {1e-10f, 0x0000},
        {-1e-10f, 0x8000},
        {bits_float(1), 0x0000},                       // denormal float
        {2047.0f, 0x67FF},
        {2049.0f, 0x6800},                             // tie between 2048 and 2050: even (2048)
        {2051.0f, 0x6802},                             // tie between 2050 and 2052: even (2052)
        {1023.97f, 0x6400},                            // steps of 0.5 below 1024: rounds up to 1024
        {1023.6f, 0x63FF},                             // 1023.5
    };
    for (const Case& c : cases) {
        const uint16_t got = flow_to_f16(c.v);
        CHECK_MSG(got == c.h, "f16(%.9g) = 0x%04x, want 0x%04x", static_cast<double>(c.v), got, c.h);
    }
    CHECK(f16_to_float(0x7BFF) == 65504.0f);
    CHECK(f16_to_float(0x0001) == u24);
    CHECK(f16_to_float(0x03FF) == std::ldexp(1023.0f, -24));
    CHECK(f16_to_float(0x3555) == 0.333251953125f);
    CHECK(std::signbit(f16_to_float(0x8000)));
}

// Every finite half decodes to a float that encodes back to it; decoding is monotone in the
// magnitude (so "nearest" below is well defined).
void check_f16_roundtrip() {
    int bad = 0;
    float prev = -1.0f;
    for (uint32_t m = 0; m <= 0x7BFF; ++m) {
        for (uint32_t s = 0; s <= 0x8000; s += 0x8000) {
            const uint16_t h = static_cast<uint16_t>(s | m);
            if (flow_to_f16(f16_to_float(h)) != h) ++bad;
        }
        const float f = f16_to_float(static_cast<uint16_t>(m));
        if (!(f > prev)) ++bad;
        prev = f;
    }
    CHECK_MSG(bad == 0, "%d halves do not round-trip or are not monotone", bad);
}

// h is the nearest half to v (ties to the even one), or the clamp for |v| > 65504.
bool nearest_half(float v, uint16_t h) {
    const double a = std::fabs(static_cast<double>(v));
    const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
    if ((h & 0x8000) != sign) return false;
    const uint32_t m = h & 0x7FFF;
    if (m > 0x7BFF) return false;
    if (a >= 65504.0) return m == 0x7BFF;
    const double d = std::fabs(a - f16_to_float(static_cast<uint16_t>(m)));
    for (int k = -1; k <= 1; k += 2) {
        const int n = static_cast<int>(m) + k;
        if (n < 0 || n > 0x7BFF) continue;
        const double dn = std::fabs(a - f16_to_float(static_cast<uint16_t>(n)));
        if (dn < d || (dn == d && (m & 1u))) return false;
    }
    return true;
}

void check_random(uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<uint32_t> any_bits;
    std::uniform_real_distribution<float> flow(-1100.0f, 1100.0f);
    std::uniform_int_distribution<int> grid(-36000, 36000);
    int bad_s = 0, bad_h = 0;
    for (int i = 0; i < 300000; ++i) {
        float v;
        switch (i % 4) {
        case 0: v = flow(rng); break;
        case 1: v = static_cast<float>(grid(rng)) / 64.0f; break; // the ties of S10.5 and near them
        case 2: v = std::ldexp(flow(rng), -static_cast<int>(any_bits(rng) % 30)); break;
        default: {
            v = bits_float(any_bits(rng));
            if (!std::isfinite(v)) v = 0.0f;
        }
        }
        if (flow_to_s10_5(v) != s10_5_reference(v)) {
            if (bad_s++ < 5)
                std::fprintf(stderr, "s10.5(%.9g) = %d, reference %d\n", static_cast<double>(v), flow_to_s10_5(v),
                             s10_5_reference(v));
        }
        if (!nearest_half(v, flow_to_f16(v))) {
            if (bad_h++ < 5)
                std::fprintf(stderr, "f16(%.9g) = 0x%04x is not the nearest half\n", static_cast<double>(v),
                             flow_to_f16(v));
        }
    }
    CHECK_MSG(bad_s == 0, "%d S10.5 conversions differ from the reference", bad_s);
    CHECK_MSG(bad_h == 0, "%d F16 conversions are not the nearest half", bad_h);
}

// ---- 2. end to end ---------------------------------------------------------------------------

const unsigned char kFill = 0xA5;

// A 16-bit flow output in caller bytes, every byte kFill first; `shift` bytes moves u (and v)
// off the buffers' alignment.
struct Out16 {
    std::vector<unsigned char> a, b;
    of_flow f;
    std::size_t row_bytes = 0; // the bytes of one row the library writes
    Out16(uint32_t w, uint32_t h, of_flow_layout layout, of_flow_format fmt, std::size_t extra_elems,
          std::size_t shift_u = 0, std::size_t shift_v = 0) {
        const bool planar = layout == OF_FLOW_PLANAR;
        row_bytes = static_cast<std::size_t>(w) * (planar ? 2u : 4u);
        const std::size_t stride = row_bytes + 2 * extra_elems;
        a.assign(stride * h + 16, kFill);
        if (planar) b.assign(stride * h + 16, kFill);
        f = flow_desc(w, h, layout, OF_MEMORY_HOST, stride, fmt, a.data() + shift_u,
                      planar ? b.data() + shift_v : nullptr);
    }
    static bool all_fill(const std::vector<unsigned char>& v) {
        for (unsigned char c : v)
            if (c != kFill) return false;
        return true;
    }
    bool untouched() const { return all_fill(a) && all_fill(b); }
    uint16_t at(const std::vector<unsigned char>& buf, uint32_t x, uint32_t y) const {
        uint16_t e;
        std::memcpy(&e, buf.data() + y * f.stride + 2u * x, 2);
        return e;
    }
    uint16_t u(uint32_t x, uint32_t y) const { return f.layout == OF_FLOW_PLANAR ? at(a, x, y) : at(a, 2 * x, y); }
    uint16_t v(uint32_t x, uint32_t y) const { return f.layout == OF_FLOW_PLANAR ? at(b, x, y) : at(a, 2 * x + 1, y); }
    // Every byte outside the rows' elements still kFill.
    bool padding_untouched() const {
        for (const std::vector<unsigned char>* buf : {&a, &b}) {
            for (std::size_t i = 0; i < buf->size(); ++i) {
                const std::size_t y = i / f.stride, x = i % f.stride;
                const bool used = y < f.height && x < row_bytes;
                if (!used && (*buf)[i] != kFill) return false;
            }
        }
        return true;
    }
};

uint16_t convert(of_flow_format fmt, float v) {
    return fmt == OF_FLOW_FORMAT_F16 ? flow_to_f16(v) : static_cast<uint16_t>(flow_to_s10_5(v));
}

const char* fmt_name(of_flow_format f) { return f == OF_FLOW_FORMAT_F16 ? "f16" : "s10.5"; }

// The pair p on ctx: F32 planar first, then fmt in layout with extra padding elements; every
// element the conversion of the F32 one, nothing outside the rows written. mask_f32: LK's
// validity mask of both runs compared (when non-empty, both calls ask for a mask).
void check_frames(of_context* ctx, const Pair& p, of_flow_format fmt, of_flow_layout layout, std::size_t extra,
                  bool with_mask, const char* what) {
    FramePair fr = frames_of(p, OF_PIXEL_U8);
    FlowBuf ref = make_flow(p.w, p.h, OF_FLOW_PLANAR);
    std::vector<unsigned char> mask_ref(static_cast<std::size_t>(p.w) * p.h, 7), mask(mask_ref.size(), 9);
    if (with_mask) {
        ref.f.valid_format = OF_VALID_MASK_U8;
        ref.f.valid_stride = p.w;
        ref.f.valid = mask_ref.data();
    }
    of_status s = of_process(ctx, &fr.prev.img, &fr.next.img, &ref.f);
    CHECK_MSG(s == OF_OK, "%s: f32: %s (%s)", what, st(s), of_last_error(ctx));
    if (s != OF_OK) return;
    Out16 o(p.w, p.h, layout, fmt, extra);
    if (with_mask) {
        o.f.valid_format = OF_VALID_MASK_U8;
        o.f.valid_stride = p.w;
        o.f.valid = mask.data();
    }
    s = of_process(ctx, &fr.prev.img, &fr.next.img, &o.f);
    CHECK_MSG(s == OF_OK, "%s: %s: %s (%s)", what, fmt_name(fmt), st(s), of_last_error(ctx));
    if (s != OF_OK) return;
    int bad = 0, zero = 0;
    for (uint32_t y = 0; y < p.h; ++y)
        for (uint32_t x = 0; x < p.w; ++x) {
            const float fu = ref.u(x, y), fv = ref.v(x, y);
            const uint16_t wu = convert(fmt, fu), wv = convert(fmt, fv);
            if (o.u(x, y) != wu || o.v(x, y) != wv) {
                if (bad++ < 3)
                    std::fprintf(stderr, "%s: (%u,%u): got 0x%04x 0x%04x, want 0x%04x 0x%04x (f32 %.9g %.9g)\n", what, x,
                                 y, o.u(x, y), o.v(x, y), wu, wv, static_cast<double>(fu), static_cast<double>(fv));
            }
            zero += wu == 0 && wv == 0;
        }
    CHECK_MSG(bad == 0, "%s: %d pixels differ from the conversion of the f32 flow", what, bad);
    CHECK_MSG(zero < static_cast<int>(p.w * p.h) / 2, "%s: the flow is mostly zero (a vacuous comparison)", what);
    CHECK_MSG(o.padding_untouched(), "%s: bytes outside the rows were written", what);
    if (with_mask) {
        CHECK_MSG(mask == mask_ref, "%s: the validity mask depends on the format", what);
        std::size_t valid = 0;
        for (unsigned char m : mask_ref) valid += m == 255;
        CHECK_MSG(valid > 0 && valid < mask_ref.size(), "%s: %zu of %zu pixels valid: want a mix", what, valid,
                  mask_ref.size());
    }
}

of_config small_cfg(of_algorithm algo, uint32_t w, uint32_t h) {
    of_config c = algo_config(algo, w, h);
    c.levels = 2;
    if (algo != OF_ALGO_LK) {
        c.warps = 2;
        c.iterations = 20;
    }
    return c;
}

void check_end_to_end() {
    const uint32_t w = 45, h = 34; // odd width: planar 16-bit rows of 90 bytes, not a multiple of 4
    const oflow::synth::Case cases[] = {oflow::synth::Case::Translation, oflow::synth::Case::RotationZoom,
                                        oflow::synth::Case::SmoothField};
    of_config cfg = small_cfg(OF_ALGO_TVL1, w, h);
    of_context* ctx = create_or_report(cfg, "flow_format tvl1");
    CHECK(ctx != nullptr);
    if (!ctx) return;
    for (oflow::synth::Case c : cases) {
        const Pair p = synth_pair(c, w, h);
        for (of_flow_format fmt : {OF_FLOW_FORMAT_F16, OF_FLOW_FORMAT_S10_5})
            for (of_flow_layout layout : {OF_FLOW_PLANAR, OF_FLOW_INTERLEAVED})
                for (std::size_t extra : {std::size_t(0), std::size_t(3)}) {
                    std::string what = std::string("tvl1 ") + oflow::synth::case_name(c) + " " + fmt_name(fmt) +
                                       (layout == OF_FLOW_PLANAR ? " planar" : " interleaved") + " +" +
                                       std::to_string(extra);
                    check_frames(ctx, p, fmt, layout, extra, false, what.c_str());
                }
    }
    of_destroy(ctx);

    // LK: a rejection rule, so a validity mask with zeros; the mask does not depend on the format.
    of_config lk = small_cfg(OF_ALGO_LK, w, h);
    lk.lk.min_eigen = 15.0f; // 1288 of the 1530 pixels valid
    ctx = create_or_report(lk, "flow_format lk");
    CHECK(ctx != nullptr);
    if (!ctx) return;
    const Pair p = synth_pair(oflow::synth::Case::SmoothField, w, h);
    check_frames(ctx, p, OF_FLOW_FORMAT_S10_5, OF_FLOW_PLANAR, 1, true, "lk s10.5 planar +1 with mask");
    check_frames(ctx, p, OF_FLOW_FORMAT_F16, OF_FLOW_INTERLEAVED, 0, true, "lk f16 interleaved with mask");
    of_destroy(ctx);
}

// ---- 3. refusals -----------------------------------------------------------------------------

void check_refusals() {
    const uint32_t w = 17, h = 12;
    of_config cfg = small_cfg(OF_ALGO_TVL1, w, h);
    of_context* ctx = create_or_report(cfg, "flow_format refusals");
    CHECK(ctx != nullptr);
    if (!ctx) return;
    const Pair p = synth_pair(oflow::synth::Case::Translation, w, h);
    FramePair fr = frames_of(p, OF_PIXEL_U8);
    auto refused = [&](Out16& o, of_status want, const char* needle, const char* what) {
        const of_status s = of_process(ctx, &fr.prev.img, &fr.next.img, &o.f);
        CHECK_MSG(s == want, "%s: got %s, want %s", what, st(s), st(want));
        CHECK_MSG(std::strstr(of_last_error(ctx), needle) != nullptr, "%s: message '%s' lacks '%s'", what,
                  of_last_error(ctx), needle);
        CHECK_MSG(o.untouched(), "%s: refused, but the output was written", what);
    };
    for (int bad : {3, -1, 255, 0x7FFFFFFF}) {
        Out16 o(w, h, OF_FLOW_PLANAR, OF_FLOW_FORMAT_F16, 0);
        set_raw(o.f.format, bad);
        const std::string what = "format " + std::to_string(bad);
        refused(o, OF_ERR_FORMAT, "unknown format", what.c_str());
    }
    {
        Out16 o(w, h, OF_FLOW_PLANAR, OF_FLOW_FORMAT_S10_5, 0);
        o.f.stride = 2 * w - 2;
        refused(o, OF_ERR_STRIDE, "stride", "s10.5 planar stride below the row");
    }
    {
        Out16 o(w, h, OF_FLOW_PLANAR, OF_FLOW_FORMAT_F16, 1);
        o.f.stride = 2 * w + 1;
        refused(o, OF_ERR_STRIDE, "multiple of 2", "f16 odd stride");
    }
    {
        Out16 o(w, h, OF_FLOW_INTERLEAVED, OF_FLOW_FORMAT_F16, 0);
        o.f.stride = 4 * w - 2; // a planar row's bytes would fit, an interleaved one's not
        refused(o, OF_ERR_STRIDE, "stride", "f16 interleaved stride below the row");
    }
    {
        // The 16-bit row in F32: the stride is too small for floats.
        Out16 o(w, h, OF_FLOW_PLANAR, OF_FLOW_FORMAT_F32, 2 * w);
        o.f.stride = 2 * w + 2;
        refused(o, OF_ERR_STRIDE, "stride", "f32 with a 16-bit stride");
    }
    {
        Out16 o(w, h, OF_FLOW_PLANAR, OF_FLOW_FORMAT_S10_5, 0, 1, 0);
        refused(o, OF_ERR_INVALID_ARGUMENT, "2-byte aligned", "s10.5 u at an odd address");
    }
    {
        Out16 o(w, h, OF_FLOW_PLANAR, OF_FLOW_FORMAT_F16, 0, 0, 1);
        refused(o, OF_ERR_INVALID_ARGUMENT, "2-byte aligned", "f16 v at an odd address");
    }
    {
        Out16 o(w, h, OF_FLOW_INTERLEAVED, OF_FLOW_FORMAT_F16, 0, 1);
        refused(o, OF_ERR_INVALID_ARGUMENT, "2-byte aligned", "f16 interleaved at an odd address");
    }
    {
        // 2-byte but not 4-byte aligned is fine for a 16-bit format, and so is an odd-width stride.
        Out16 o(w, h, OF_FLOW_PLANAR, OF_FLOW_FORMAT_S10_5, 0, 2, 2);
        const of_status s = of_process(ctx, &fr.prev.img, &fr.next.img, &o.f);
        CHECK_MSG(s == OF_OK, "s10.5 at 2-byte alignment, stride %zu: %s (%s)", o.f.stride, st(s), of_last_error(ctx));
        CHECK(!o.untouched());
    }
    of_destroy(ctx);
}

} // namespace

int main() {
    check_s10_5_edges();
    check_f16_edges();
    check_f16_roundtrip();
    check_random(1);
    check_end_to_end();
    check_refusals();
    return finish("flow_format");
}
