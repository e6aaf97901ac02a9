// lk_study: the measurements behind Lucas-Kanade's scheme and defaults (docs/accuracy.md,
// "Lucas-Kanade"). Runs OF_ALGO_LK through the C API on the seven synthetic cases
// (core/synth.hpp, seed 1: the frames of `oflow-cli --synth all`), with the context's LK kernels
// swapped where a variant is measured (the context is reached through core/context.hpp):
//   grid       EPE over all pixels and over the valid ones, and the valid share, for
//              window x min_eigen (Scharr, the other settings at their defaults)
//   gradient   Scharr against Prewitt for each window (min_eigen at its default)
//   iterations EPE against config.iterations (epsilon 0, and epsilon at its default)
//   flat       the centre quarter of every case without texture (constant, or noise only):
//              what min_eigen rejects there, with either preprocessing
//   robust     the preprocessing: local-norm against none
//   scheme     EPE after n Newton steps per level (one level, and the automatic pyramid) for the
//              library's step, the literal dense step (b = the window sums of g it with each q at
//              its own flow u(q), delta = -G^-1 b, taps clamped, no rule for positions outside the
//              plane) and the library's step without its rule outside the plane ("no-border")
// Not a test: a study tool, built with the suite so it keeps compiling.
// Usage: lk_study grid|flat|gradient|iterations|robust|scheme [WxH]   (default 160x120)
#include "oflow.h"

#include "core/context.hpp"
#include "core/lk_kernels.hpp"
#include "core/synth.hpp"
#include "tests/test_util.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using oflow::Plane;
using oflow::synth::Case;

const int kCases = static_cast<int>(Case::Count);

using oftest::Pair;

// A centred rectangle of half the frame's sides without texture: 128 plus Gaussian noise of
// sigma grey levels, independent in the two frames (sigma 0: constant).
void flatten(Pair* p, double sigma) {
    const int w = static_cast<int>(p->w), h = static_cast<int>(p->h);
    std::vector<float> noise[2];
    for (int f = 0; f < 2; ++f) {
        noise[f].assign(static_cast<size_t>(w) * static_cast<size_t>(h), 128.0f);
        oflow::synth::Exposure e;
        e.noise_sigma = sigma;
        if (sigma > 0.0) oflow::synth::apply_exposure(e, w, h, 11u + static_cast<uint32_t>(f), noise[f].data(), w);
    }
    for (int y = h / 4; y < h / 4 + h / 2; ++y)
        for (int x = w / 4; x < w / 4 + w / 2; ++x) {
            const size_t i = static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x);
            p->i0[i] = noise[0][i];
            p->i1[i] = noise[1][i];
        }
}

// Whether pixel i lies in the flat rectangle, `margin` px inside its edges.
bool in_flat(const Pair& p, size_t i, int margin) {
    const int w = static_cast<int>(p.w), h = static_cast<int>(p.h);
    const int x = static_cast<int>(i % static_cast<size_t>(w)), y = static_cast<int>(i / static_cast<size_t>(w));
    return x >= w / 4 + margin && x < w / 4 + w / 2 - margin && y >= h / 4 + margin && y < h / 4 + h / 2 - margin;
}

// ---- the literal dense step (the scheme the library does not use) -------------------------
inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// The residual at each pixel's own flow, taps clamped, no rule outside the plane; with
// `linearised`, r = it - g.u as the library's (core/lk_kernels.hpp) but without its rule.
template <bool kLinearised>
void clamped_residual(const oflow::LkResidualArgs& a, int y0, int y1) {
    const int w = a.i1.w, h = a.i1.h;
    for (int y = y0; y < y1; ++y)
        for (int x = 0; x < w; ++x) {
            float px = static_cast<float>(x) + a.u1.row(y)[x], py = static_cast<float>(y) + a.u2.row(y)[x];
            px = std::fmax(-1e6f, std::fmin(1e6f, px));
            py = std::fmax(-1e6f, std::fmin(1e6f, py));
            const float fx0 = std::floor(px), fy0 = std::floor(py);
            const int ix = static_cast<int>(fx0), iy = static_cast<int>(fy0);
            const float fx = px - fx0, fy = py - fy0;
            const int xa = clampi(ix, 0, w - 1), xb = clampi(ix + 1, 0, w - 1);
            const float* ra = a.i1.row(clampi(iy, 0, h - 1));
            const float* rb = a.i1.row(clampi(iy + 1, 0, h - 1));
            const float t = ra[xa] + fx * (ra[xb] - ra[xa]), b = rb[xa] + fx * (rb[xb] - rb[xa]);
            float it = (t + fy * (b - t)) - a.i0.row(y)[x];
            if (kLinearised) it -= a.gx.row(y)[x] * a.u1.row(y)[x] + a.gy.row(y)[x] * a.u2.row(y)[x];
            a.bx.row(y)[x] = a.gx.row(y)[x] * it;
            a.by.row(y)[x] = a.gy.row(y)[x] * it;
        }
}

double literal_update(const oflow::LkUpdateArgs& a, int y0, int y1) {
    const double eps2 = static_cast<double>(a.epsilon) * a.epsilon;
    double active = 0.0;
    for (int y = y0; y < y1; ++y)
        for (int x = 0; x < a.u1.w; ++x) {
            float& st = a.state.row(y)[x];
            if (st != 1.0f) continue;
            const double A = a.j[oflow::kG11].row(y)[x], B = a.j[oflow::kG12].row(y)[x], C = a.j[oflow::kG22].row(y)[x];
            const double X = a.ex.row(y)[x], Y = a.ey.row(y)[x], det = A * C - B * B;
            if (!(det > 0.0)) {
                st = 0.0f;
                continue;
            }
            const double du = -(C * X - B * Y) / det, dv = -(A * Y - B * X) / det;
            a.u1.row(y)[x] += static_cast<float>(du);
            a.u2.row(y)[x] += static_cast<float>(dv);
            if (du * du + dv * dv < eps2)
                st = 0.0f;
            else
                active += 1.0;
        }
    return active;
}

// ---- one run ----------------------------------------------------------------------------------
enum class Variant { kLibrary, kPrewitt, kLiteral, kNoBorderRule };

struct Result {
    double epe_all, epe_valid, share;
    double flat_share; // valid share inside the flat rectangle (12 px inside its edges)
    unsigned long long iterations;
    bool ok;
};

Result run(const of_config& cfg, const Pair& p, Variant v) {
    Result r{0, 0, 0, 0, 0, false};
    of_context* ctx = nullptr;
    if (of_create(&cfg, &ctx) != OF_OK) {
        std::fprintf(stderr, "of_create: %s\n", of_last_error(nullptr));
        return r;
    }
    if (v == Variant::kPrewitt) ctx->lk.gradient = ctx->lk.prewitt;
    if (v == Variant::kLiteral) {
        ctx->lk.residual = clamped_residual<false>;
        ctx->lk.update = literal_update;
    }
    if (v == Variant::kNoBorderRule) ctx->lk.residual = clamped_residual<true>;
    const size_t n = static_cast<size_t>(p.w) * static_cast<size_t>(p.h);
    std::vector<float> u(n), vv(n);
    std::vector<unsigned char> mask(n);
    const uint32_t w = p.w, h = p.h;
    const of_image a = oftest::host_f32_image(p.i0.data(), w, h), b = oftest::host_f32_image(p.i1.data(), w, h);
    of_flow f = oftest::host_planar_flow(u.data(), vv.data(), w, h);
    f.valid_format = OF_VALID_MASK_U8;
    f.valid_stride = static_cast<size_t>(p.w);
    f.valid = mask.data();
    if (of_process(ctx, &a, &b, &f) != OF_OK) {
        std::fprintf(stderr, "of_process: %s\n", of_last_error(ctx));
        of_destroy(ctx);
        return r;
    }
    of_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    of_get_info(ctx, &info);
    of_destroy(ctx);
    double all = 0.0, valid = 0.0;
    size_t nv = 0, nf = 0, nfv = 0;
    for (size_t i = 0; i < n; ++i) {
        const double e = std::hypot(static_cast<double>(u[i]) - p.gu[i], static_cast<double>(vv[i]) - p.gv[i]);
        all += e;
        if (mask[i] == 255) {
            valid += e;
            ++nv;
        }
        if (in_flat(p, i, 12)) {
            ++nf;
            nfv += mask[i] == 255;
        }
    }
    r.flat_share = nf ? static_cast<double>(nfv) / static_cast<double>(nf) : 0.0;
    r.epe_all = all / static_cast<double>(n);
    r.epe_valid = nv ? valid / static_cast<double>(nv) : 0.0;
    r.share = static_cast<double>(nv) / static_cast<double>(n);
    r.iterations = info.last_iterations;
    r.ok = true;
    return r;
}

of_config lk_config(int w, int h) {
    of_config c;
    of_config_init(&c, OF_ALGO_LK);
    c.max_width = static_cast<uint32_t>(w);
    c.max_height = static_cast<uint32_t>(h);
    c.format = OF_PIXEL_F32;
    c.backend = OF_BACKEND_REFERENCE;
    return c;
}

void header(const char* first) {
    std::printf("%-24s", first);
    for (int k = 0; k < kCases; ++k) std::printf(" %14s", oflow::synth::case_name(static_cast<Case>(k)));
    std::printf(" %14s\n", "mean");
}

// One row: "all/valid (share%)" per case and the means.
void row(const char* label, const of_config& c, const std::vector<Pair>& pairs, Variant v) {
    std::printf("%-24s", label);
    double sa = 0, sv = 0, ss = 0;
    for (const Pair& p : pairs) {
        const Result r = run(c, p, v);
        std::printf(" %5.3f/%5.3f %2.0f", r.epe_all, r.epe_valid, 100.0 * r.share);
        sa += r.epe_all;
        sv += r.epe_valid;
        ss += r.share;
    }
    const double n = static_cast<double>(pairs.size());
    std::printf(" %5.3f/%5.3f %2.0f\n", sa / n, sv / n, 100.0 * ss / n);
}

// One row of the flat study: "all/valid (share%, flat share%)" per case and the means.
void flat_row(const char* label, const of_config& c, const std::vector<Pair>& pairs) {
    std::printf("%-24s", label);
    double sa = 0, sv = 0, ss = 0, sf = 0;
    for (const Pair& p : pairs) {
        const Result r = run(c, p, Variant::kLibrary);
        std::printf(" %5.3f/%5.3f %2.0f %2.0f", r.epe_all, r.epe_valid, 100.0 * r.share, 100.0 * r.flat_share);
        sa += r.epe_all;
        sv += r.epe_valid;
        ss += r.share;
        sf += r.flat_share;
    }
    const double n = static_cast<double>(pairs.size());
    std::printf(" %5.3f/%5.3f %2.0f %2.0f\n", sa / n, sv / n, 100.0 * ss / n, 100.0 * sf / n);
}

} // namespace

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "grid";
    int w = 160, h = 120;
    if (argc > 2 && std::sscanf(argv[2], "%dx%d", &w, &h) != 2) {
        std::fprintf(stderr, "usage: lk_study grid|flat|gradient|iterations|robust|scheme [WxH]\n");
        return 2;
    }
    std::vector<Pair> pairs;
    for (int k = 0; k < kCases; ++k) pairs.push_back(oftest::synth_pair(static_cast<Case>(k), static_cast<uint32_t>(w), static_cast<uint32_t>(h)));
    const of_config base = lk_config(w, h);
    std::printf("LK, %dx%d, seed 1, reference path; each cell: EPE all / EPE valid, valid %%\n", w, h);
    char label[64];
    if (std::strcmp(mode, "grid") == 0) {
        const unsigned windows[] = {5, 7, 9, 11, 15, 21};
        const float eigens[] = {0.0f, 0.1f, 0.3f, 1.0f, 3.0f, 10.0f};
        header("window min_eigen");
        for (unsigned s : windows)
            for (float e : eigens) {
                of_config c = base;
                c.lk.window = s;
                c.lk.min_eigen = e;
                std::snprintf(label, sizeof label, "%u %g", s, static_cast<double>(e));
                row(label, c, pairs, Variant::kLibrary);
            }
    } else if (std::strcmp(mode, "flat") == 0) {
        // The centre quarter of every case without texture (noise sigma 0, 1, 3 grey levels):
        // each cell EPE all / EPE valid, valid %, valid % of the flat rectangle's inside.
        const float eigens[] = {0.0f, 0.01f, 0.03f, 0.1f, 0.3f, 1.0f, 3.0f};
        for (unsigned s : {9u, 11u, 15u})
            for (double sigma : {0.0, 1.0, 3.0}) {
                std::vector<Pair> flat = pairs;
                for (Pair& p : flat) flatten(&p, sigma);
                std::printf("window %u, flat centre, noise sigma %g\n", s, sigma);
                header("robust min_eigen");
                for (int rb = 0; rb < 2; ++rb)
                    for (float e : eigens) {
                        of_config c = base;
                        c.lk.window = s;
                        c.lk.min_eigen = e;
                        c.robust = rb ? OF_ROBUST_NONE : OF_ROBUST_LOCAL_NORM;
                        std::snprintf(label, sizeof label, "%s %g", rb ? "none" : "local-norm", static_cast<double>(e));
                        flat_row(label, c, flat);
                    }
            }
    } else if (std::strcmp(mode, "gradient") == 0) {
        const unsigned windows[] = {5, 7, 9, 11, 15, 21};
        header("window gradient");
        for (unsigned s : windows)
            for (int g = 0; g < 2; ++g) {
                of_config c = base;
                c.lk.window = s;
                std::snprintf(label, sizeof label, "%u %s", s, g ? "prewitt" : "scharr");
                row(label, c, pairs, g ? Variant::kPrewitt : Variant::kLibrary);
            }
    } else if (std::strcmp(mode, "iterations") == 0) {
        const unsigned its[] = {1, 2, 3, 5, 10, 20, 50};
        header("iterations epsilon");
        for (float eps : {0.0f, base.epsilon})
            for (unsigned it : its) {
                of_config c = base;
                c.iterations = it;
                c.epsilon = eps;
                std::snprintf(label, sizeof label, "%u %g", it, static_cast<double>(eps));
                row(label, c, pairs, Variant::kLibrary);
            }
    } else if (std::strcmp(mode, "robust") == 0) {
        header("robust presmooth");
        for (int rb = 0; rb < 2; ++rb)
            for (float ps : {0.8f, 0.0f}) {
                of_config c = base;
                c.robust = rb ? OF_ROBUST_NONE : OF_ROBUST_LOCAL_NORM;
                c.presmooth_sigma = ps;
                std::snprintf(label, sizeof label, "%s %g", rb ? "none" : "local-norm", static_cast<double>(ps));
                row(label, c, pairs, Variant::kLibrary);
            }
    } else if (std::strcmp(mode, "scheme") == 0) {
        header("scheme levels steps");
        const Variant vs[3] = {Variant::kLibrary, Variant::kLiteral, Variant::kNoBorderRule};
        const char* names[3] = {"library", "literal", "no-border"};
        for (unsigned levels : {1u, 0u})
            for (int v = 0; v < 3; ++v)
                for (unsigned it : {1u, 2u, 3u, 5u, 10u, 20u, 30u}) {
                    of_config c = base;
                    c.levels = levels;
                    c.iterations = it;
                    c.epsilon = 0.0f;
                    std::snprintf(label, sizeof label, "%s %s %u", names[v], levels ? "1" : "auto", it);
                    row(label, c, pairs, vs[v]);
                }
    } else {
        std::fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    return 0;
}
