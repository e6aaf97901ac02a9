// Helpers shared by the API-level tests: frames in caller-owned buffers, flow buffers with a
// sentinel pattern (to prove "nothing written on error"), bitwise comparison and synthetic
// pairs. Only the public C ABI plus core/synth.hpp (compiled into liboflow.a) are used.
#ifndef OFLOW_TESTS_TEST_UTIL_HPP
#define OFLOW_TESTS_TEST_UTIL_HPP

#include "oflow.h"

#include "check.hpp"
#include "core/synth.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace oftest {

inline const char* st(of_status s) { return of_status_string(s); }

/// Stores any int into an enum field of a public struct, also values outside the enumerators
/// (for bad-input tests), by its bytes: the test never holds such a value as a C++ enum.
template <class E>
inline void set_raw(E& field, int v) {
    static_assert(sizeof(E) == sizeof(int), "enum is int-sized");
    std::memcpy(&field, &v, sizeof field);
}

inline size_t bytes_per_pixel(of_pixel_format f) {
    return f == OF_PIXEL_U16 ? 2u : (f == OF_PIXEL_F32 ? 4u : 1u);
}

/// The defaults of algorithm a with the given maximum size.
inline of_config algo_config(of_algorithm a, uint32_t max_w, uint32_t max_h) {
    of_config c;
    std::memset(&c, 0, sizeof c);
    of_config_init(&c, a);
    c.max_width = max_w;
    c.max_height = max_h;
    return c;
}

/// TV-L1 defaults with the given maximum size.
inline of_config tvl1_config(uint32_t max_w, uint32_t max_h) { return algo_config(OF_ALGO_TVL1, max_w, max_h); }

/// A single-channel frame in its own buffer. Row padding (stride beyond the row) is filled
/// with `pad` bytes, which for F32 frames can be a NaN pattern the library must not read.
struct Frame {
    std::vector<uint64_t> store; // uint64_t: 8-byte aligned for every pixel type
    of_image img;

    // img.data points into store: moving keeps the buffer, copying would not.
    Frame() = default;
    Frame(Frame&&) = default;
    Frame& operator=(Frame&&) = default;
    Frame(const Frame&) = delete;
    Frame& operator=(const Frame&) = delete;

    unsigned char* bytes() { return reinterpret_cast<unsigned char*>(store.data()); }
    const unsigned char* bytes() const {
        return reinterpret_cast<const unsigned char*>(store.data());
    }
    /// Pointer to the pixel (x, y) as raw bytes.
    unsigned char* at(uint32_t x, uint32_t y) {
        return bytes() + static_cast<size_t>(y) * img.stride +
               static_cast<size_t>(x) * bytes_per_pixel(img.format);
    }
    void set_f32(uint32_t x, uint32_t y, float v) { std::memcpy(at(x, y), &v, sizeof v); }
};

/// Frame of format `fmt` from intensities `val` (w x h floats, rows `pitch` floats apart,
/// 0..255). U8 rounds, U16 stores round(v * 257), F32 stores v. stride 0 = minimal.
inline Frame make_frame(of_pixel_format fmt, uint32_t w, uint32_t h, const float* val,
                        size_t pitch, size_t stride = 0, unsigned char pad = 0xA5) {
    Frame f;
    const size_t bpp = bytes_per_pixel(fmt);
    if (stride == 0) stride = static_cast<size_t>(w) * bpp;
    const size_t total = stride * h + 16;
    f.store.assign((total + 7) / 8, 0);
    std::memset(f.store.data(), pad, f.store.size() * 8);
    std::memset(&f.img, 0, sizeof f.img);
    f.img.struct_size = sizeof(of_image);
    f.img.format = fmt;
    f.img.memory = OF_MEMORY_HOST;
    f.img.width = w;
    f.img.height = h;
    f.img.stride = stride;
    f.img.data = f.store.data();
    for (uint32_t y = 0; y < h; ++y) {
        for (uint32_t x = 0; x < w; ++x) {
            float v = val ? val[static_cast<size_t>(y) * pitch + x] : 0.0f;
            float c = v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v);
            unsigned char* p = f.at(x, y);
            if (fmt == OF_PIXEL_U8) {
                *p = static_cast<unsigned char>(std::lround(c));
            } else if (fmt == OF_PIXEL_U16) {
                uint16_t s = static_cast<uint16_t>(std::lround(static_cast<double>(c) * 257.0));
                std::memcpy(p, &s, sizeof s);
            } else {
                std::memcpy(p, &v, sizeof v);
            }
        }
    }
    return f;
}

/// Output flow in a caller buffer. Everything is first filled with a sentinel bit pattern;
/// untouched() says whether any byte changed, including the row padding.
struct FlowBuf {
    std::vector<float> a, b; // planar: u in a, v in b; interleaved: (u,v) pairs in a
    of_flow f;

    // f.u / f.v point into a / b: moving keeps the buffers, copying would not.
    FlowBuf() = default;
    FlowBuf(FlowBuf&&) = default;
    FlowBuf& operator=(FlowBuf&&) = default;
    FlowBuf(const FlowBuf&) = delete;
    FlowBuf& operator=(const FlowBuf&) = delete;

    static uint32_t sentinel() { return 0xA5C3E17Bu; }

    void fill_sentinel() {
        uint32_t s = sentinel();
        for (float& x : a) std::memcpy(&x, &s, 4);
        for (float& x : b) std::memcpy(&x, &s, 4);
    }
    static bool is_sentinel(const float& x) {
        uint32_t s;
        std::memcpy(&s, &x, 4);
        return s == sentinel();
    }
    bool untouched() const {
        for (const float& x : a)
            if (!is_sentinel(x)) return false;
        for (const float& x : b)
            if (!is_sentinel(x)) return false;
        return true;
    }
    size_t row_floats() const { return f.stride / sizeof(float); }
    float u(uint32_t x, uint32_t y) const {
        return f.layout == OF_FLOW_PLANAR ? a[y * row_floats() + x]
                                          : a[y * row_floats() + 2u * x];
    }
    float v(uint32_t x, uint32_t y) const {
        return f.layout == OF_FLOW_PLANAR ? b[y * row_floats() + x]
                                          : a[y * row_floats() + 2u * x + 1u];
    }
    /// true when every float beyond the row (stride padding) still holds the sentinel.
    bool padding_untouched() const {
        const size_t used = f.layout == OF_FLOW_PLANAR ? f.width : 2u * f.width;
        const size_t rf = row_floats();
        for (uint32_t y = 0; y < f.height; ++y)
            for (size_t x = used; x < rf; ++x) {
                if (!is_sentinel(a[y * rf + x])) return false;
                if (f.layout == OF_FLOW_PLANAR && !is_sentinel(b[y * rf + x])) return false;
            }
        for (size_t i = static_cast<size_t>(f.height) * rf; i < a.size(); ++i)
            if (!is_sentinel(a[i])) return false;
        return true;
    }
    /// u then v, row by row, w*h each (padding dropped).
    std::vector<float> extract() const {
        std::vector<float> out;
        out.reserve(2u * f.width * f.height);
        for (uint32_t y = 0; y < f.height; ++y)
            for (uint32_t x = 0; x < f.width; ++x) out.push_back(u(x, y));
        for (uint32_t y = 0; y < f.height; ++y)
            for (uint32_t x = 0; x < f.width; ++x) out.push_back(v(x, y));
        return out;
    }
};

/// An output descriptor without a validity plane: u, v (NULL when interleaved) in memory `kind`,
/// rows `stride` bytes apart, elements of format fmt.
inline of_flow flow_desc(uint32_t w, uint32_t h, of_flow_layout layout, of_memory_kind kind, size_t stride,
                         of_flow_format fmt, void* u, void* v) {
    of_flow f;
    std::memset(&f, 0, sizeof f);
    f.struct_size = sizeof(of_flow);
    f.layout = layout;
    f.memory = kind;
    f.width = w;
    f.height = h;
    f.stride = stride;
    f.format = fmt;
    f.u = static_cast<float*>(u);
    f.v = layout == OF_FLOW_PLANAR ? static_cast<float*>(v) : nullptr;
    return f;
}

/// extra_floats: padding floats per row beyond the minimum stride.
inline FlowBuf make_flow(uint32_t w, uint32_t h, of_flow_layout layout = OF_FLOW_PLANAR,
                         size_t extra_floats = 0) {
    FlowBuf fb;
    const size_t row = (layout == OF_FLOW_PLANAR ? static_cast<size_t>(w) : 2u * w) +
                       extra_floats;
    fb.a.assign(row * h + 8, 0.0f); // +8: a tail the library must not touch either
    if (layout == OF_FLOW_PLANAR) fb.b.assign(row * h + 8, 0.0f);
    fb.f = flow_desc(w, h, layout, OF_MEMORY_HOST, row * sizeof(float), OF_FLOW_FORMAT_F32, fb.a.data(),
                     layout == OF_FLOW_PLANAR ? fb.b.data() : nullptr);
    fb.fill_sentinel();
    return fb;
}

/// A caller-owned host arena for config c: of_query_memory's host_bytes, 64-byte aligned, attached
/// to c (host_arena / host_arena_size); fill(b) sets every byte, for the tests that show the
/// flow does not depend on the arena's earlier contents. ok false (a failed CHECK) when the
/// query fails.
struct CallerArena {
    std::vector<unsigned char> bytes;
    bool ok = false;
    explicit CallerArena(of_config* c) {
        of_memory m;
        std::memset(&m, 0, sizeof m);
        m.struct_size = sizeof m;
        ok = of_query_memory(c, &m) == OF_OK;
        CHECK_MSG(ok, "of_query_memory: %s", of_last_error(nullptr));
        bytes.assign(m.host_bytes + 64, 0);
        const size_t pad = (64 - reinterpret_cast<uintptr_t>(bytes.data()) % 64) % 64;
        c->host_arena = bytes.data() + pad;
        c->host_arena_size = m.host_bytes;
    }
    void fill(unsigned char b) { std::memset(bytes.data(), b, bytes.size()); }
};

/// An F32 host image over w x h packed floats (stride w * 4), for the studies that feed a
/// context directly.
inline of_image host_f32_image(const float* data, uint32_t w, uint32_t h) {
    of_image a;
    std::memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.format = OF_PIXEL_F32;
    a.memory = OF_MEMORY_HOST;
    a.width = w;
    a.height = h;
    a.stride = static_cast<size_t>(w) * 4;
    a.data = data;
    return a;
}

/// A planar host flow over packed w x h planes u and v (stride w * 4), no validity plane.
inline of_flow host_planar_flow(float* u, float* v, uint32_t w, uint32_t h) {
    return flow_desc(w, h, OF_FLOW_PLANAR, OF_MEMORY_HOST, static_cast<size_t>(w) * 4, OF_FLOW_FORMAT_F32, u, v);
}

inline bool all_finite(const std::vector<float>& v) {
    for (float x : v)
        if (!std::isfinite(x)) return false;
    return true;
}

inline float max_abs(const std::vector<float>& v) {
    float m = 0.0f;
    for (float x : v) m = std::fabs(x) > m ? std::fabs(x) : m;
    return m;
}

/// Bitwise equality of two extracted flows; on mismatch prints where and how much.
inline bool same_bits(const std::vector<float>& x, const std::vector<float>& y,
                      const char* what) {
    if (x.size() != y.size()) {
        std::fprintf(stderr, "%s: sizes differ (%zu vs %zu)\n", what, x.size(), y.size());
        return false;
    }
    if (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0) return true;
    size_t first = x.size(), n = 0;
    double md = 0.0;
    for (size_t i = 0; i < x.size(); ++i) {
        uint32_t a, b;
        std::memcpy(&a, &x[i], 4);
        std::memcpy(&b, &y[i], 4);
        if (a != b) {
            if (first == x.size()) first = i;
            ++n;
            double d = std::fabs(static_cast<double>(x[i]) - static_cast<double>(y[i]));
            md = d > md ? d : md;
        }
    }
    std::fprintf(stderr, "%s: %zu of %zu values differ, first at %zu (%.9g vs %.9g), max |d| %.3g\n",
                 what, n, x.size(), first, static_cast<double>(x[first]),
                 static_cast<double>(y[first]), md);
    return false;
}

/// A synthetic pair with ground truth, as float planes of w*h (pitch w).
struct Pair {
    uint32_t w = 0, h = 0;
    std::vector<float> i0, i1, gu, gv;
};

/// A synthetic pair of case c over texture t with exposure e applied to frame 1.
inline Pair synth_pair_exposed(oflow::synth::Case c, oflow::synth::Texture t, const oflow::synth::Exposure& e,
                               uint32_t w, uint32_t h, uint32_t seed = 1) {
    Pair p;
    p.w = w;
    p.h = h;
    const size_t n = static_cast<size_t>(w) * h;
    p.i0.assign(n, 0.0f);
    p.i1.assign(n, 0.0f);
    p.gu.assign(n, 0.0f);
    p.gv.assign(n, 0.0f);
    oflow::synth::generate_with(c, t, e, static_cast<int>(w), static_cast<int>(h), seed, p.i0.data(), p.i1.data(),
                                p.gu.data(), p.gv.data(), static_cast<std::ptrdiff_t>(w));
    return p;
}

inline Pair synth_pair(oflow::synth::Case c, uint32_t w, uint32_t h, uint32_t seed = 1) {
    return synth_pair_exposed(c, oflow::synth::Texture::Default, oflow::synth::Exposure(), w, h, seed);
}

/// Mean end-point error of a planar flow f (u plane, then v plane, each w*h) against p's truth.
inline double mean_epe(const std::vector<float>& f, const Pair& p) {
    const size_t n = static_cast<size_t>(p.w) * p.h;
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const double du = f[i] - p.gu[i], dv = f[n + i] - p.gv[i];
        s += std::sqrt(du * du + dv * dv);
    }
    return s / static_cast<double>(n);
}

/// Frames of a synthetic pair in format fmt (minimal strides unless given).
struct FramePair {
    Frame prev, next;
};
inline FramePair frames_of(const Pair& p, of_pixel_format fmt, size_t stride = 0) {
    FramePair fp;
    fp.prev = make_frame(fmt, p.w, p.h, p.i0.data(), p.w, stride);
    fp.next = make_frame(fmt, p.w, p.h, p.i1.data(), p.w, stride);
    return fp;
}

/// The backend OFLOW_FORCE_BACKEND imposes on every context, so that ctest runs the whole
/// suite once per path: `asked` (the config's backend) when the variable is unset or empty,
/// OF_BACKEND_AUTO for "auto" or a value the library refuses (then any backend may result).
inline of_backend expected_backend(of_backend asked) {
    const char* v = std::getenv("OFLOW_FORCE_BACKEND");
    if (!v || !v[0]) return asked;
    if (std::strcmp(v, "reference") == 0) return OF_BACKEND_REFERENCE;
    if (std::strcmp(v, "neon") == 0) return OF_BACKEND_NEON;
    if (std::strcmp(v, "cuda") == 0) return OF_BACKEND_CUDA;
    return OF_BACKEND_AUTO;
}

/// A config of one plain solve a pair: robust LOCAL_NORM and no DIS pass (init NONE) pinned. The
/// default (census + init dis) adds a DIS pass per pair, whose iterations, levels and memory are its
/// own, and never splits a frame between CPU and GPU; robust pick (opt-in) solves a pair three times
/// (TV-L1 four), takes no warm start and may keep a different candidate on two paths where the judge
/// nearly ties. A test of iteration counts, frame splits, waits, warm start or path parity pins one
/// plain solve with this. The default's own tests are census, init_dis, robust_matrix and photo_set
/// (and tests/gpu: gpu_census, gpu_init_dis, gpu_matrix_*); pick's are robust_pick.
inline of_config one_solve(of_config c) {
    c.robust = OF_ROBUST_LOCAL_NORM;
    c.init = OF_INIT_NONE;
    return c;
}

/// Whether OFLOW_FORCE_BACKEND is set (not empty): the config's backend is then not the one used.
inline bool backend_forced() {
    const char* v = std::getenv("OFLOW_FORCE_BACKEND");
    return v && v[0];
}

/// Create a context or report why not (returns nullptr on failure).
inline of_context* create_or_report(const of_config& cfg, const char* what) {
    of_context* ctx = nullptr;
    of_status s = of_create(&cfg, &ctx);
    if (s != OF_OK) {
        std::fprintf(stderr, "%s: of_create failed: %s (%s)\n", what, st(s), of_last_error(nullptr));
        return nullptr;
    }
    return ctx;
}

} // namespace oftest

#endif
