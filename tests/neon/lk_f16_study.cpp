// lk_f16_study: the measurements behind "no LK kernel in F16" (neon/lk_stages_neon.cpp's top
// comment). Each variant swaps one kernel of the context's LK family (reached through
// core/context.hpp, as tests/tools/lk_study.cpp does) for a scalar one that rounds its inputs
// and every operation to F16 (float16_t conversions: round to nearest even, overflow to inf; a
// fused multiply-add rounded once), on the reference path, and compares the flow and the
// confidence output with the F32 reference's:
//   gradient     Scharr of the F16-rounded pixels, in F16
//   tensor       the three products rounded to F16
//   sampling     the four taps, the bilinear interpolation and it = I1w - I0 in F16; r and the
//                products in F32
//   residual     the same, and r = it - g.u and its products in F16 (overflow counted)
//   sampling-rel the interpolation relative to the first tap: a - I0 in F32, the corrections
//                fx (b - a), ... in F16 (the accurate form)
// Cases: the seven synthetic pairs at 160x120 (seed 1, LK defaults), the same with lk_study's
// textureless centre (a centred rectangle of half the sides, 128 plus noise of sigma 1 or 3
// grey levels: confidences near min_eigen), and a 6 px translation (frame 0 of the
// translation case cropped 6 px apart). Printed per variant: the largest |value| it rounds to
// F16 at its output (F16's largest finite value is 65504) and the overflows.
// Not a test: a study tool, built with the NEON checks (float16_t: neon/neon_arch.hpp) so it keeps compiling.
// Usage: lk_f16_study   (prints one table per setting and the means)
#include "oflow.h"

#include "core/context.hpp"
#include "core/lk_kernels.hpp"
#include "core/synth.hpp"
#include "neon/neon_arch.hpp" // float16_t
#include "tests/test_util.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

using oflow::Plane;

inline float h16(float x) { return static_cast<float>(static_cast<float16_t>(x)); }
inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

long g_overflow = 0;  // F16 results that overflowed (inf) in the last run
double g_largest = 0; // the largest |output| (before its rounding to F16) in the last run

inline float out16(float v) {
    g_largest = std::fmax(g_largest, std::fabs(static_cast<double>(v)));
    const float r = h16(v);
    g_overflow += std::isfinite(r) ? 0 : 1;
    return r;
}

// ---- the F16 variants --------------------------------------------------------------------------
void scharr16(Plane src, Plane gx, Plane gy, int y0, int y1) {
    const int w = src.w, h = src.h;
    auto op = [](float a0, float a1, float b0, float b1, float c0, float c1) {
        const float d0 = h16(h16(a1) - h16(a0)), d1 = h16(h16(b1) - h16(b0)), d2 = h16(h16(c1) - h16(c0));
        float t = h16(10.0f * d1);
        t = h16(t + 3.0f * d0);
        t = h16(t + 3.0f * d2);
        return out16(t * (1.0f / 32.0f));
    };
    for (int y = y0; y < y1; ++y) {
        const float* up = src.row(clampi(y - 1, 0, h - 1));
        const float* c = src.row(y);
        const float* dn = src.row(clampi(y + 1, 0, h - 1));
        for (int x = 0; x < w; ++x) {
            const int l = clampi(x - 1, 0, w - 1), r = clampi(x + 1, 0, w - 1);
            gx.row(y)[x] = op(up[l], up[r], c[l], c[r], dn[l], dn[r]);
            gy.row(y)[x] = op(up[l], dn[l], up[x], dn[x], up[r], dn[r]);
        }
    }
}

void tensor16(const oflow::LkTensorArgs& a, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
        for (int x = 0; x < a.gx.w; ++x) {
            const float gx = a.gx.row(y)[x], gy = a.gy.row(y)[x];
            a.j[0].row(y)[x] = out16(gx * gx);
            a.j[1].row(y)[x] = out16(gx * gy);
            a.j[2].row(y)[x] = out16(gy * gy);
        }
}

enum class Res { kSampling, kResidual, kRelative };

template <Res kMode>
void residual16(const oflow::LkResidualArgs& a, int y0, int y1) {
    const int w = a.i1.w, h = a.i1.h;
    for (int y = y0; y < y1; ++y)
        for (int x = 0; x < w; ++x) {
            const float u1 = a.u1.row(y)[x], u2 = a.u2.row(y)[x];
            const float px = std::fmax(-1e6f, std::fmin(1e6f, static_cast<float>(x) + u1));
            const float py = std::fmax(-1e6f, std::fmin(1e6f, static_cast<float>(y) + u2));
            const float fx0 = std::floor(px), fy0 = std::floor(py);
            const int ix = static_cast<int>(fx0), iy = static_cast<int>(fy0);
            const float fx = h16(px - fx0), fy = h16(py - fy0);
            const int xa = clampi(ix, 0, w - 1), xb = clampi(ix + 1, 0, w - 1);
            const float* ra = a.i1.row(clampi(iy, 0, h - 1));
            const float* rb = a.i1.row(clampi(iy + 1, 0, h - 1));
            const bool inside = px >= 0.0f && px <= static_cast<float>(w - 1) && py >= 0.0f &&
                                py <= static_cast<float>(h - 1);
            const float i0 = a.i0.row(y)[x];
            float it;
            if (kMode == Res::kRelative) {
                const float A = ra[xa], B = ra[xb], C = rb[xa], D = rb[xb];
                const float t = h16(fx * h16(B - A)), b = h16(h16(C - A) + fx * h16(D - C));
                it = inside ? (A - i0) + h16(t + fy * h16(b - t)) : 0.0f;
            } else {
                const float A = h16(ra[xa]), B = h16(ra[xb]), C = h16(rb[xa]), D = h16(rb[xb]);
                const float t = h16(A + fx * h16(B - A)), b = h16(C + fx * h16(D - C));
                it = inside ? h16(h16(t + fy * h16(b - t)) - h16(i0)) : 0.0f;
            }
            const float gx = a.gx.row(y)[x], gy = a.gy.row(y)[x];
            if (kMode == Res::kResidual) {
                const float rc = h16(it - h16(h16(gy * u2) + gx * u1));
                a.bx.row(y)[x] = out16(gx * rc);
                a.by.row(y)[x] = out16(gy * rc);
            } else {
                const float rc = it - (gx * u1 + gy * u2);
                a.bx.row(y)[x] = gx * rc;
                a.by.row(y)[x] = gy * rc;
            }
        }
}

enum Variant { kF32, kGrad16, kTensor16, kSample16, kResidual16, kSampleRel16, kVariants };
const char* const kNames[kVariants] = {"F32 reference", "gradient", "tensor", "sampling", "residual", "sampling-rel"};

// ---- one run ----------------------------------------------------------------------------------------
using oftest::Pair;

struct Out {
    std::vector<float> u, v, conf;
    long overflow = 0;
    double largest = 0;
    bool ok = false;
};

Out run(const Pair& p, Variant var) {
    Out o;
    of_config cfg;
    of_config_init(&cfg, OF_ALGO_LK);
    cfg.max_width = p.w;
    cfg.max_height = p.h;
    cfg.format = OF_PIXEL_F32;
    cfg.backend = OF_BACKEND_REFERENCE;
    of_context* ctx = nullptr;
    if (of_create(&cfg, &ctx) != OF_OK) return o;
    if (var == kGrad16) ctx->lk.gradient = scharr16;
    if (var == kTensor16) ctx->lk.tensor = tensor16;
    if (var == kSample16) ctx->lk.residual = residual16<Res::kSampling>;
    if (var == kResidual16) ctx->lk.residual = residual16<Res::kResidual>;
    if (var == kSampleRel16) ctx->lk.residual = residual16<Res::kRelative>;
    const size_t n = static_cast<size_t>(p.w) * static_cast<size_t>(p.h);
    o.u.resize(n);
    o.v.resize(n);
    o.conf.resize(n);
    const uint32_t w = p.w, h = p.h;
    const of_image a = oftest::host_f32_image(p.i0.data(), w, h), b = oftest::host_f32_image(p.i1.data(), w, h);
    of_flow f = oftest::host_planar_flow(o.u.data(), o.v.data(), w, h);
    f.valid_format = OF_VALID_CONFIDENCE_F32;
    f.valid_stride = f.stride;
    f.valid = o.conf.data();
    g_overflow = 0;
    g_largest = 0;
    o.ok = of_process(ctx, &a, &b, &f) == OF_OK;
    o.overflow = g_overflow;
    o.largest = g_largest;
    of_destroy(ctx);
    return o;
}

// ---- the pairs ----------------------------------------------------------------------------------------
// lk_study's flat centre (tests/tools/lk_study.cpp flatten).
void flatten(Pair* p, double sigma) {
    const int w = static_cast<int>(p->w), h = static_cast<int>(p->h);
    std::vector<float> noise[2];
    for (int f = 0; f < 2; ++f) {
        noise[f].assign(p->i0.size(), 128.0f);
        oflow::synth::Exposure e;
        e.noise_sigma = sigma;
        oflow::synth::apply_exposure(e, w, h, 11u + static_cast<uint32_t>(f), noise[f].data(), w);
    }
    for (int y = h / 4; y < h / 4 + h / 2; ++y)
        for (int x = w / 4; x < w / 4 + w / 2; ++x) {
            const size_t i = static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x);
            p->i0[i] = noise[0][i];
            p->i1[i] = noise[1][i];
        }
}

// Frame 0 of the translation case at (w + shift) x h, cropped: frame 0 from column shift on,
// frame 1 from column 0: the flow is (shift, 0) everywhere.
Pair shifted_pair(int w, int h, int shift) {
    const Pair big = oftest::synth_pair(oflow::synth::Case::Translation, static_cast<uint32_t>(w + shift), static_cast<uint32_t>(h));
    Pair p;
    p.w = static_cast<uint32_t>(w);
    p.h = static_cast<uint32_t>(h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const size_t i = static_cast<size_t>(y) * static_cast<size_t>(w + shift);
            p.i0.push_back(big.i0[i + static_cast<size_t>(x) + static_cast<size_t>(shift)]);
            p.i1.push_back(big.i0[i + static_cast<size_t>(x)]);
            p.gu.push_back(static_cast<float>(shift));
            p.gv.push_back(0.0f);
        }
    return p;
}

struct Sums {
    double epe = 0, flips = 0, du = 0, du_max = 0, conf = 0, conf_max = 0, largest = 0;
    long overflow = 0;
};

// One setting: every variant on every pair, against the F32 reference; the means.
void setting(const char* title, const std::vector<Pair>& pairs) {
    const float min_eigen = 1.0f; // the default
    Sums s[kVariants];
    for (const Pair& p : pairs) {
        const Out base = run(p, kF32);
        for (int var = 0; var < kVariants; ++var) {
            const Out o = var == kF32 ? base : run(p, static_cast<Variant>(var));
            if (!o.ok || !base.ok) continue;
            double epe = 0, du = 0, cr = 0;
            long nv = 0, flips = 0, both = 0, nc = 0;
            for (size_t i = 0; i < o.u.size(); ++i) {
                const bool v = o.conf[i] >= min_eigen, vb = base.conf[i] >= min_eigen;
                if (v) {
                    epe += std::hypot(static_cast<double>(o.u[i]) - p.gu[i], static_cast<double>(o.v[i]) - p.gv[i]);
                    ++nv;
                }
                flips += v != vb ? 1 : 0;
                if (v && vb) {
                    const double d = std::hypot(static_cast<double>(o.u[i]) - base.u[i],
                                                static_cast<double>(o.v[i]) - base.v[i]);
                    du += d;
                    s[var].du_max = std::fmax(s[var].du_max, d);
                    ++both;
                }
                if (base.conf[i] > 0.1f) { // relative change of the confidence output
                    const double r = std::fabs(static_cast<double>(o.conf[i]) / base.conf[i] - 1.0);
                    cr += r;
                    s[var].conf_max = std::fmax(s[var].conf_max, r);
                    ++nc;
                }
            }
            s[var].epe += nv ? epe / static_cast<double>(nv) : 0.0;
            s[var].flips += static_cast<double>(flips) / static_cast<double>(o.u.size());
            s[var].du += both ? du / static_cast<double>(both) : 0.0;
            s[var].conf += nc ? cr / static_cast<double>(nc) : 0.0;
            s[var].overflow += o.overflow;
            s[var].largest = std::fmax(s[var].largest, o.largest);
        }
    }
    const double n = static_cast<double>(pairs.size());
    std::printf("%s (%zu pairs, means over them)\n", title, pairs.size());
    std::printf("  %-14s %10s %9s %9s %11s %10s %11s %10s %9s\n", "F16 in", "EPE valid", "vs F32", "validity",
                "mean |du|", "max |du|", "conf rel.", "max |out|", "overflow");
    for (int var = 0; var < kVariants; ++var)
        std::printf("  %-14s %10.4f %+9.4f %8.3f%% %11.2e %10.2e %11.2e %10.4g %9ld\n", kNames[var], s[var].epe / n,
                    (s[var].epe - s[kF32].epe) / n, 100.0 * s[var].flips / n, s[var].du / n, s[var].du_max,
                    s[var].conf_max, s[var].largest, s[var].overflow);
}

} // namespace

int main() {
    const int w = 160, h = 120;
    std::vector<Pair> pairs;
    for (int k = 0; k < static_cast<int>(oflow::synth::Case::Count); ++k)
        pairs.push_back(oftest::synth_pair(static_cast<oflow::synth::Case>(k), static_cast<uint32_t>(w), static_cast<uint32_t>(h)));
    std::printf("lk_f16_study: LK defaults, %dx%d, reference path with one kernel in emulated F16\n", w, h);
    std::printf("(validity: share of pixels whose validity changed; |du|: over pixels valid on both; conf rel.: "
                "largest relative change of the confidence where it is > 0.1)\n");
    setting("synthetic cases", pairs);
    for (double sigma : {1.0, 3.0}) {
        std::vector<Pair> flat = pairs;
        for (Pair& p : flat) flatten(&p, sigma);
        char title[96];
        std::snprintf(title, sizeof title, "synthetic cases, textureless centre with noise sigma %g", sigma);
        setting(title, flat);
    }
    setting("a 6 px translation", std::vector<Pair>{shifted_pair(w, h, 6)});
    return 0;
}
