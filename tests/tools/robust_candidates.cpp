// robust_candidates: the measurement behind OF_ROBUST_LOCAL_NORM (docs/accuracy.md). Each
// candidate preprocessing is applied to both frames outside the library, which then runs with
// robust none (median and texture rule as given), on pairs with and without exposure changes:
// (preprocessing time: the candidate's own, outside the library; local-norm's is inside the
// frame's time and shows as 0.)
//   none               the frames as they are
//   structure-texture  Wedel et al. 2009: ROF denoising by Chambolle's projection (theta 0.125,
//                      100 iterations), texture = I - 0.95 structure, x2 around 128
//   high-pass          I - 0.95 Gaussian(I, sigma 4), x2 around 128 (a cheap stand-in for ROF)
//   local-norm         the library's own OF_ROBUST_LOCAL_NORM (exposure range matching, then
//                      128 + 20 (I - mean) / (sd + 4) over a Gaussian of sigma 3), inside of_process
// --matrix: the accuracy matrix's cells up to 512x512 (core/synth_matrix.hpp) with the
// candidates structure-texture (as above), rank-5x5 (the census family as an image: rank5()),
// and the library's local-norm and level-norm, for one algorithm's defaults.
// Not a test: a study tool, built with the suite so it keeps compiling.
// Usage: robust_candidates [WxH] [warps iterations]   (default 320x240, 5 x 300)
//        robust_candidates --matrix [tvl1|hs|clg|lk] [MOTION]
#include "oflow.h"

#include "core/synth.hpp"
#include "core/synth_matrix.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using Img = std::vector<float>;

void gauss(Img& img, int w, int h, float sigma) {
    const int r = static_cast<int>(std::ceil(3.0f * sigma));
    std::vector<float> k(static_cast<size_t>(r) + 1);
    float sum = 0.0f;
    for (int i = 0; i <= r; ++i) {
        k[static_cast<size_t>(i)] = std::exp(-static_cast<float>(i * i) / (2.0f * sigma * sigma));
        sum += i ? 2.0f * k[static_cast<size_t>(i)] : k[0];
    }
    for (float& x : k) x /= sum;
    Img t(img.size());
    auto at = [&](const Img& a, int x, int y) {
        x = std::min(std::max(x, 0), w - 1);
        y = std::min(std::max(y, 0), h - 1);
        return a[static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)];
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float s = 0.0f;
            for (int i = -r; i <= r; ++i) s += k[static_cast<size_t>(std::abs(i))] * at(img, x + i, y);
            t[static_cast<size_t>(y * w + x)] = s;
        }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float s = 0.0f;
            for (int i = -r; i <= r; ++i) s += k[static_cast<size_t>(std::abs(i))] * at(t, x, y + i);
            img[static_cast<size_t>(y * w + x)] = s;
        }
}

// ROF: s = I - theta div p, p by Chambolle's projection (step 0.249).
Img rof(const Img& in, int w, int h, float theta, int iters) {
    const size_t n = in.size();
    Img px(n, 0.0f), py(n, 0.0f), d(n);
    auto div = [&](int x, int y) {
        const size_t k = static_cast<size_t>(y * w + x);
        float v = px[k] - (x > 0 ? px[k - 1] : 0.0f) + py[k] - (y > 0 ? py[k - static_cast<size_t>(w)] : 0.0f);
        if (x == w - 1) v -= px[k];
        if (y == h - 1) v -= py[k];
        return v;
    };
    for (int it = 0; it < iters; ++it) {
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) d[static_cast<size_t>(y * w + x)] = div(x, y) - in[static_cast<size_t>(y * w + x)] / theta;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const size_t k = static_cast<size_t>(y * w + x);
                const float gx = x < w - 1 ? d[k + 1] - d[k] : 0.0f;
                const float gy = y < h - 1 ? d[k + static_cast<size_t>(w)] - d[k] : 0.0f;
                const float nrm = 1.0f + 0.249f * std::sqrt(gx * gx + gy * gy);
                px[k] = (px[k] + 0.249f * gx) / nrm;
                py[k] = (py[k] + 0.249f * gy) / nrm;
            }
    }
    Img s(n);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) s[static_cast<size_t>(y * w + x)] = in[static_cast<size_t>(y * w + x)] - theta * div(x, y);
    return s;
}

void prefilter(int mode, Img& img, int w, int h) {
    if (mode == 1) {
        const Img s = rof(img, w, h, 0.125f, 100);
        for (size_t k = 0; k < img.size(); ++k) img[k] = 128.0f + 2.0f * (img[k] - 0.95f * s[k]);
    } else if (mode == 2) {
        Img m = img;
        gauss(m, w, h, 4.0f);
        for (size_t k = 0; k < img.size(); ++k) img[k] = 128.0f + 2.0f * (img[k] - 0.95f * m[k]) - 0.05f * 128.0f;
    }
}

// Mean EPE of cfg's flow from frame a to b (w x h F32) against (gu, gv); -1 on failure (printed).
double flow_epe(const of_config& cfg, const Img& a, const Img& b, const Img& gu, const Img& gv, int w, int h) {
    of_context* ctx = nullptr;
    if (of_create(&cfg, &ctx) != OF_OK) {
        std::fprintf(stderr, "%s\n", of_last_error(nullptr));
        return -1.0;
    }
    const size_t n = a.size();
    of_image fa = {sizeof(of_image), OF_PIXEL_F32, OF_MEMORY_HOST, static_cast<uint32_t>(w),
                   static_cast<uint32_t>(h), static_cast<size_t>(w) * 4, a.data()};
    of_image fb = fa;
    fb.data = b.data();
    Img u(n), v(n);
    of_flow f = {sizeof(of_flow), OF_FLOW_PLANAR, OF_MEMORY_HOST, static_cast<uint32_t>(w),
                 static_cast<uint32_t>(h), static_cast<size_t>(w) * 4, u.data(), v.data(),
                 OF_VALID_NONE, 0, nullptr, OF_FLOW_FORMAT_F32};
    const of_status r = of_process(ctx, &fa, &fb, &f);
    if (r != OF_OK) std::fprintf(stderr, "%s\n", of_last_error(ctx));
    of_destroy(ctx);
    if (r != OF_OK) return -1.0;
    double epe = 0.0;
    for (size_t k = 0; k < n; ++k) epe += std::hypot(u[k] - gu[k], v[k] - gv[k]);
    return epe / static_cast<double>(n);
}

// Census family as an image: the rank transform (Zabih and Woodfill 1994) over a 5x5 window,
// the number of the 24 neighbours darker than the centre by more than 1 grey level, scaled to
// 0..240. Unchanged by any monotonic brightness change (gain, offset, gamma) where the
// neighbours differ by more than the tolerance.
void rank5(Img& img, int w, int h) {
    const Img in = img;
    auto at = [&](int x, int y) {
        x = std::min(std::max(x, 0), w - 1);
        y = std::min(std::max(y, 0), h - 1);
        return in[static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)];
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const float c = at(x, y);
            int r = 0;
            for (int dy = -2; dy <= 2; ++dy)
                for (int dx = -2; dx <= 2; ++dx) r += (dx || dy) && at(x + dx, y + dy) < c - 1.0f;
            img[static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)] = 10.0f * static_cast<float>(r);
        }
}

// --matrix: the motion x photometry matrix (core/synth_matrix.hpp) cells up to 512x512, each
// candidate applied to both frames outside the library, then algorithm `algo` with its defaults
// but robust none; beside them the library's own modes (docs/accuracy.md section 13).
int run_matrix(of_algorithm algo, const char* only) {
    using oflow::synth::Motion;
    using oflow::synth::Photometry;
    const char* names[] = {"none", "structure-texture", "rank-5x5", "local-norm", "level-norm"};
    std::printf("matrix candidates (reference path, algorithm %d defaults, 2 threads); EPE\n%-26s", static_cast<int>(algo),
                "cell");
    for (const char* nm : names) std::printf(" %17s", nm);
    std::printf("\n");
    for (int mi = 0; mi < static_cast<int>(Motion::Count); ++mi)
        for (int pi = 0; pi < static_cast<int>(Photometry::Count); ++pi) {
            const Motion m = static_cast<Motion>(mi);
            if (m == Motion::Rotation720p || m == Motion::CameraPath1080p) continue;
            if (only && std::strcmp(only, oflow::synth::motion_name(m)) != 0) continue;
            int w = 0, h = 0;
            oflow::synth::motion_size(m, &w, &h);
            const size_t n = static_cast<size_t>(w) * static_cast<size_t>(h);
            Img i0(n), i1(n), gu(n), gv(n);
            oflow::synth::generate_cell(m, static_cast<Photometry>(pi), w, h, 1, i0.data(), i1.data(), gu.data(),
                                        gv.data(), w);
            char label[64];
            std::snprintf(label, sizeof label, "%s/%s", oflow::synth::motion_name(m),
                          oflow::synth::photometry_name(static_cast<Photometry>(pi)));
            std::printf("%-26s", label);
            for (int mode = 0; mode < 5; ++mode) {
                Img a = i0, b = i1;
                if (mode == 1) {
                    prefilter(1, a, w, h);
                    prefilter(1, b, w, h);
                } else if (mode == 2) {
                    rank5(a, w, h);
                    rank5(b, w, h);
                }
                of_config cfg;
                of_config_init(&cfg, algo);
                cfg.max_width = static_cast<uint32_t>(w);
                cfg.max_height = static_cast<uint32_t>(h);
                cfg.format = OF_PIXEL_F32;
                cfg.backend = OF_BACKEND_REFERENCE;
                cfg.threads = 2;
                cfg.robust = mode == 3 ? OF_ROBUST_LOCAL_NORM : mode == 4 ? OF_ROBUST_LEVEL_NORM : OF_ROBUST_NONE;
                std::printf(" %17.3f", flow_epe(cfg, a, b, gu, gv, w, h));
                std::fflush(stdout);
            }
            std::printf("\n");
        }
    return 0;
}

struct CaseDef {
    const char* label;
    oflow::synth::Case c;
    double gain, offset, sigma;
};

} // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--matrix") == 0) {
        const char* a = argc > 2 ? argv[2] : "tvl1";
        const of_algorithm algo = std::strcmp(a, "hs") == 0    ? OF_ALGO_HS
                                  : std::strcmp(a, "clg") == 0 ? OF_ALGO_CLG
                                  : std::strcmp(a, "lk") == 0  ? OF_ALGO_LK
                                                               : OF_ALGO_TVL1;
        return run_matrix(algo, argc > 3 ? argv[3] : nullptr);
    }
    int w = 320, h = 240;
    uint32_t warps = 5, iters = 300;
    if (argc > 1 && std::sscanf(argv[1], "%dx%d", &w, &h) != 2) return 2;
    if (argc > 3) {
        warps = static_cast<uint32_t>(std::atoi(argv[2]));
        iters = static_cast<uint32_t>(std::atoi(argv[3]));
    }
    const CaseDef cases[] = {
        {"translation", oflow::synth::Case::Translation, 1, 0, 0},
        {"rotation-zoom", oflow::synth::Case::RotationZoom, 1, 0, 0},
        {"occlusion", oflow::synth::Case::Occlusion, 1, 0, 0},
        {"camera-motion", oflow::synth::Case::CameraMotion, 1, 0, 0},
        {"camera 1.015", oflow::synth::Case::CameraMotion, 1.015, 0, 0},
        {"fine 1.06+4 s3", oflow::synth::Case::FineTexture, 1.06, 4, 3},
        {"fine 0.8-20 s3", oflow::synth::Case::FineTexture, 0.8, -20, 3},
        {"smooth 1.25+20 s3", oflow::synth::Case::SmoothField, 1.25, 20, 3},
        {"smooth 0.8-20 s3", oflow::synth::Case::SmoothField, 0.8, -20, 3},
    };
    const char* names[] = {"none", "structure-texture", "high-pass", "local-norm"};
    std::printf("robust candidates, %dx%d, auto levels, %u warps x %u iterations, median 5, reference path; EPE "
                "(preprocessing ms per frame)\n%-18s", w, h, warps, iters, "case");
    for (const char* n : names) std::printf(" %18s", n);
    std::printf("\n");
    const size_t n = static_cast<size_t>(w) * static_cast<size_t>(h);
    for (const CaseDef& cd : cases) {
        Img i0(n), i1(n), gu(n), gv(n);
        oflow::synth::Exposure e;
        e.gain = cd.gain;
        e.offset = cd.offset;
        e.noise_sigma = cd.sigma;
        oflow::synth::generate_with(cd.c, oflow::synth::Texture::Default, e, w, h, 1, i0.data(), i1.data(), gu.data(),
                                    gv.data(), w);
        std::printf("%-18s", cd.label);
        for (int mode = 0; mode < 4; ++mode) {
            Img a = i0, b = i1;
            const auto t0 = std::chrono::steady_clock::now();
            prefilter(mode, a, w, h);
            prefilter(mode, b, w, h);
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / 2;
            of_config cfg;
            of_config_init(&cfg, OF_ALGO_TVL1);
            cfg.max_width = static_cast<uint32_t>(w);
            cfg.max_height = static_cast<uint32_t>(h);
            cfg.format = OF_PIXEL_F32;
            cfg.backend = OF_BACKEND_REFERENCE;
            cfg.warps = warps;
            cfg.iterations = iters;
            cfg.robust = mode == 3 ? OF_ROBUST_LOCAL_NORM : OF_ROBUST_NONE;
            const double epe = flow_epe(cfg, a, b, gu, gv, w, h);
            if (epe < 0.0) return 1;
            std::printf(" %9.3f (%5.1f ms)", epe, ms);
        }
        std::printf("\n");
    }
    return 0;
}
