// The self-test's kernel checks: every stage of a CPU kernel table (reference or NEON) on small
// planes with odd widths and padded pitches, against closed-form results (a constant stays
// constant under blur, resampling and upsampling; central differences of a ramp are its
// slopes; a warp at zero flow returns I1; the divergence of p11 = x is 1; the dual step of
// u1 = a x is k a / (1 + k |a|)), and, for a table other than the reference, against the
// reference kernels on random data. Each check is one case named after its stage.
//
// Contract: allocates only at self-test time (std::vector), never inside a context's frame.
#include "core/selftest.hpp"

#include "core/kernels.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace oflow {
namespace selftest {
namespace {

const int kW = 37, kH = 23;            // odd sizes: vector tails on every row
const std::ptrdiff_t kPitch = kW + 5;  // padded rows

// A plane in its own storage, with a guard value in the row padding.
struct Buf {
    std::vector<float> v;
    Plane p;
    Buf(int w, int h, std::ptrdiff_t pitch, float fill) : v(static_cast<std::size_t>(pitch * h), fill) {
        p = Plane{v.data(), w, h, pitch};
    }
};

uint32_t next_rand(uint32_t* s) {
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}
void fill_random(Plane p, uint32_t seed, float lo, float hi) {
    for (int y = 0; y < p.h; ++y)
        for (int x = 0; x < p.w; ++x)
            p.row(y)[x] = lo + (hi - lo) * static_cast<float>(next_rand(&seed) & 0xffff) / 65535.0f;
}

// Largest |a - b| over the w x h interior of two planes (border pixels excluded: `margin`).
double max_diff(Plane a, Plane b, int margin = 0) {
    double m = 0.0;
    for (int y = margin; y < a.h - margin; ++y)
        for (int x = margin; x < a.w - margin; ++x) {
            const double d = std::fabs(static_cast<double>(a.row(y)[x]) - static_cast<double>(b.row(y)[x]));
            if (!(d <= m)) m = d; // NaN propagates as a failure
        }
    return m;
}
double max_abs_from(Plane a, float value, int margin = 0) {
    double m = 0.0;
    for (int y = margin; y < a.h - margin; ++y)
        for (int x = margin; x < a.w - margin; ++x) {
            const double d = std::fabs(static_cast<double>(a.row(y)[x]) - value);
            if (!(d <= m)) m = d;
        }
    return m;
}

// IEEE half <-> float by bits (portable; the NEON F16 table stores its duals as halves:
// KernelTable::dual_bytes == 2). Round to nearest even; the values here are small and normal.
uint16_t half_bits(float f) {
    uint32_t x;
    std::memcpy(&x, &f, sizeof x);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const int32_t exp = static_cast<int32_t>((x >> 23) & 0xffu) - 127 + 15;
    uint32_t mant = x & 0x7fffffu;
    if (exp <= 0) return static_cast<uint16_t>(sign); // tiny: zero (none of the values here)
    if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
    uint32_t h = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
    const uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return static_cast<uint16_t>(h);
}
float half_value(uint16_t h) {
    const uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    uint32_t x;
    if (exp == 0) {
        const float v = static_cast<float>(mant) * (1.0f / 16777216.0f); // subnormal: m x 2^-24
        return (h & 0x8000u) ? -v : v;
    }
    if (exp == 31) x = sign | 0x7f800000u | (mant << 13);
    else x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    float f;
    std::memcpy(&f, &x, sizeof f);
    return f;
}
// A dual value of a p plane in the table's storage.
void set_dual(Plane p, int x, int y, float v, std::size_t bytes) {
    if (bytes == 2) {
        const uint16_t h = half_bits(v);
        std::memcpy(reinterpret_cast<unsigned char*>(p.row(y)) + 2 * static_cast<std::size_t>(x), &h, 2);
    } else {
        p.row(y)[x] = v;
    }
}
float get_dual(Plane p, int x, int y, std::size_t bytes) {
    if (bytes == 2) {
        uint16_t h;
        std::memcpy(&h, reinterpret_cast<const unsigned char*>(p.row(y)) + 2 * static_cast<std::size_t>(x), 2);
        return half_value(h);
    }
    return p.row(y)[x];
}

struct Ctx {
    Sink* sink;
    const Path* path;
    const KernelTable* kt;
    const KernelTable* ref; // nullptr when kt is the reference table
    double iter_tol;        // bound of the iteration kernels: 1e-5, or F16's
};

void report(const Ctx& c, const char* stage, double err, double tol, const char* what) {
    c.sink->add(*c.path, "kernel", stage, err <= tol ? OF_CHECK_PASS : OF_CHECK_FAIL, err, tol, 0.0, "%s: max error %.3g (bound %.3g)",
                what, err, tol);
}

void check_blur(const Ctx& c) {
    const Gaussian1D g = make_gaussian(1.2f);
    Buf src(kW, kH, kPitch, -1.0f), dst(kW, kH, kPitch, -1.0f);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) src.p.row(y)[x] = 7.0f;
    c.kt->blur_h(src.p, dst.p, g, 0, kH);
    double e = max_abs_from(dst.p, 7.0f);
    Buf dst2(kW, kH, kPitch, -1.0f);
    c.kt->blur_v(dst.p, dst2.p, g, 0, kH);
    e = std::fmax(e, max_abs_from(dst2.p, 7.0f));
    if (c.ref) {
        fill_random(src.p, 11u, 0.0f, 255.0f);
        Buf r1(kW, kH, kPitch, 0.0f), r2(kW, kH, kPitch, 0.0f);
        c.kt->blur_h(src.p, dst.p, g, 0, kH);
        c.ref->blur_h(src.p, r1.p, g, 0, kH);
        c.kt->blur_v(src.p, dst2.p, g, 0, kH);
        c.ref->blur_v(src.p, r2.p, g, 0, kH);
        e = std::fmax(e, std::fmax(max_diff(dst.p, r1.p), max_diff(dst2.p, r2.p)) / 255.0);
    }
    report(c, "blur", e, 1e-5 * 7.0, c.ref ? "constant 7 stays 7; random vs reference (relative)" : "constant 7 stays 7");
}

void check_resample(const Ctx& c) {
    Buf src(kW, kH, kPitch, 3.5f), dst(19, 12, 23, -1.0f);
    c.kt->resample(src.p, dst.p, 0, dst.p.h);
    double e = max_abs_from(dst.p, 3.5f);
    if (c.ref) {
        fill_random(src.p, 12u, 0.0f, 255.0f);
        Buf r(19, 12, 23, 0.0f);
        c.kt->resample(src.p, dst.p, 0, dst.p.h);
        c.ref->resample(src.p, r.p, 0, r.p.h);
        e = std::fmax(e, max_diff(dst.p, r.p) / 255.0);
    }
    report(c, "resample", e, 1e-5, "constant stays constant at 19x12");
}

void check_gradient(const Ctx& c) {
    Buf src(kW, kH, kPitch, 0.0f), gx(kW, kH, kPitch, -1.0f), gy(kW, kH, kPitch, -1.0f);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) src.p.row(y)[x] = 3.0f * static_cast<float>(x) + 2.0f * static_cast<float>(y);
    c.kt->gradient(src.p, gx.p, gy.p, 0, kH);
    const double e = std::fmax(max_abs_from(gx.p, 3.0f, 1), max_abs_from(gy.p, 2.0f, 1));
    report(c, "gradient", e, 1e-4, "central differences of 3x + 2y are (3, 2) inside");
}

void check_warp(const Ctx& c) {
    Buf i0(kW, kH, kPitch, 0.0f), i1(kW, kH, kPitch, 0.0f), i1x(kW, kH, kPitch, 0.0f), i1y(kW, kH, kPitch, 0.0f);
    Buf u1(kW, kH, kPitch, 0.0f), u2(kW, kH, kPitch, 0.0f);
    Buf w(kW, kH, kPitch, -1.0f), wx(kW, kH, kPitch, -1.0f), wy(kW, kH, kPitch, -1.0f), gr(kW, kH, kPitch, -1.0f),
        rc(kW, kH, kPitch, -1.0f);
    fill_random(i0.p, 21u, 0.0f, 255.0f);
    fill_random(i1.p, 22u, 0.0f, 255.0f);
    c.kt->gradient(i1.p, i1x.p, i1y.p, 0, kH);
    const Tvl1WarpArgs a{i0.p, i1.p, i1x.p, i1y.p, u1.p, u2.p, w.p, wx.p, wy.p, gr.p, rc.p};
    c.kt->tvl1_warp(a, 0, kH);
    // At zero flow the bicubic samples fall on the grid: I1 and its gradient come back.
    double e = std::fmax(max_diff(w.p, i1.p), std::fmax(max_diff(wx.p, i1x.p), max_diff(wy.p, i1y.p))) / 255.0;
    if (c.ref) {
        fill_random(u1.p, 23u, -3.0f, 3.0f);
        fill_random(u2.p, 24u, -3.0f, 3.0f);
        Buf r(kW, kH, kPitch, 0.0f), rx(kW, kH, kPitch, 0.0f), ry(kW, kH, kPitch, 0.0f), rg(kW, kH, kPitch, 0.0f),
            rr(kW, kH, kPitch, 0.0f);
        c.kt->tvl1_warp(a, 0, kH);
        const Tvl1WarpArgs b{i0.p, i1.p, i1x.p, i1y.p, u1.p, u2.p, r.p, rx.p, ry.p, rg.p, rr.p};
        c.ref->tvl1_warp(b, 0, kH);
        e = std::fmax(e, std::fmax(max_diff(w.p, r.p), max_diff(rr.p, rc.p)) / 255.0);
    }
    report(c, "tvl1_warp", e, 1e-5, "zero flow returns I1, I1x, I1y (relative to 255)");
}

// calc_u with p11 = x, everything else 0: div p = 1 at x > 0 (0 at x = 0: no p(x-1)), the data
// term vanishes (zero image gradient), so u1 grows by theta and u2 stays.
void check_calc_u(const Ctx& c) {
    Buf u1(kW, kH, kPitch, 0.5f), u2(kW, kH, kPitch, -0.25f);
    Buf p11(kW, kH, kPitch, 0.0f), p12(kW, kH, kPitch, 0.0f), p21(kW, kH, kPitch, 0.0f), p22(kW, kH, kPitch, 0.0f);
    Buf ix(kW, kH, kPitch, 0.0f), iy(kW, kH, kPitch, 0.0f), gr(kW, kH, kPitch, 0.0f), rc(kW, kH, kPitch, 0.0f);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) set_dual(p11.p, x, y, static_cast<float>(x), c.kt->dual_bytes);
    const float theta = 0.3f;
    const Tvl1IterArgs a{u1.p, u2.p, p11.p, p12.p, p21.p, p22.p, ix.p, iy.p, gr.p, rc.p, 0.15f * theta, theta, 0.25f / theta};
    c.kt->tvl1_calc_u(a, 0, kH);
    double e = 0.0;
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            const double want1 = 0.5 + (x > 0 ? theta : 0.0);
            e = std::fmax(e, std::fabs(u1.p.row(y)[x] - want1));
            e = std::fmax(e, std::fabs(u2.p.row(y)[x] + 0.25));
            if (std::isnan(u1.p.row(y)[x]) || std::isnan(u2.p.row(y)[x])) e = INFINITY;
        }
    report(c, "tvl1_calc_u", e, c.iter_tol, "div p of p11 = x is 1: u1 += theta");
}

// calc_p with u1 = a x, u2 = b y and p = 0: p11 = k a / (1 + k |a|) except on the last column
// (no x difference), p22 = k b / (1 + k |b|) except on the last row, p12 = p21 = 0.
void check_calc_p(const Ctx& c) {
    const float av = 0.7f, bv = -1.3f, theta = 0.3f, k = 0.25f / theta;
    Buf u1(kW, kH, kPitch, 0.0f), u2(kW, kH, kPitch, 0.0f);
    Buf p11(kW, kH, kPitch, 0.0f), p12(kW, kH, kPitch, 0.0f), p21(kW, kH, kPitch, 0.0f), p22(kW, kH, kPitch, 0.0f);
    Buf ix(kW, kH, kPitch, 0.0f), iy(kW, kH, kPitch, 0.0f), gr(kW, kH, kPitch, 0.0f), rc(kW, kH, kPitch, 0.0f);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            u1.p.row(y)[x] = av * static_cast<float>(x);
            u2.p.row(y)[x] = bv * static_cast<float>(y);
        }
    const Tvl1IterArgs a{u1.p, u2.p, p11.p, p12.p, p21.p, p22.p, ix.p, iy.p, gr.p, rc.p, 0.15f * theta, theta, k};
    c.kt->tvl1_calc_p(a, 0, kH);
    const double wa = k * av / (1.0 + k * std::fabs(av)), wb = k * bv / (1.0 + k * std::fabs(bv));
    double e = 0.0;
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            const std::size_t db = c.kt->dual_bytes;
            const double d11 = get_dual(p11.p, x, y, db) - (x + 1 < kW ? wa : 0.0);
            const double d22 = get_dual(p22.p, x, y, db) - (y + 1 < kH ? wb : 0.0);
            const double m = std::fmax(std::fmax(std::fabs(d11), std::fabs(d22)),
                                       std::fmax(std::fabs(get_dual(p12.p, x, y, db)), std::fabs(get_dual(p21.p, x, y, db))));
            e = std::isnan(m) ? INFINITY : std::fmax(e, m);
        }
    report(c, "tvl1_calc_p", e, c.iter_tol, "dual step of u1 = 0.7 x, u2 = -1.3 y");
}

void check_upsample(const Ctx& c) {
    Buf src(19, 12, 23, -0.75f), dst(kW, kH, kPitch, 0.0f);
    c.kt->upsample_flow(src.p, dst.p, 2.0f, 0, kH);
    double e = max_abs_from(dst.p, -1.5f);
    if (c.ref) {
        fill_random(src.p, 31u, -4.0f, 4.0f);
        Buf r(kW, kH, kPitch, 0.0f);
        c.kt->upsample_flow(src.p, dst.p, 2.0f, 0, kH);
        c.ref->upsample_flow(src.p, r.p, 2.0f, 0, kH);
        e = std::fmax(e, max_diff(dst.p, r.p) / 8.0);
    }
    report(c, "upsample_flow", e, 1e-5, "constant -0.75 doubles to -1.5");
}

} // namespace

void check_kernels(Sink* sink, const Path& path, const KernelTable& kt) {
    KernelTable ref;
    kernel_table_init_ref(&ref);
    const bool is_ref = std::memcmp(&kt, &ref, sizeof ref) == 0;
    // F16 duals (half storage, half arithmetic): 3e-3, the NEON kernel checks' bound
    // (tests/neon); F32: 1e-5.
    const Ctx c{sink, &path, &kt, is_ref ? nullptr : &ref, kt.dual_bytes == 2 ? 3e-3 : 1e-5};
    check_blur(c);
    check_resample(c);
    check_gradient(c);
    check_warp(c);
    check_calc_u(c);
    check_calc_p(c);
    check_upsample(c);
}

} // namespace selftest
} // namespace oflow
