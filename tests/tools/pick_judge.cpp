// pick_judge: OF_ROBUST_PICK's judge, cell by cell (docs/accuracy.md section 13, "On CUDA, and
// the judge's margin"). For every (motion, photometry) cell of the accuracy matrix
// (core/synth_matrix.hpp, native sizes, seed 1) and every algorithm asked for, the pair is solved
// under each pick candidate (core/robust.hpp pick_candidates: local-norm, none, level-norm; TV-L1
// none, level-norm, range-match and shade-norm, the last two at median 3) with the algorithm's
// defaults otherwise, and each flow's EPE and judge are printed: the judge as the library computes
// it (core/robust.hpp pick_term over both frames normalised as LOCAL_NORM with kRobustFloor, the
// reference kernels), unweighted, so that a margin (kPickNoneMargin) can be studied on the figures.
// Not a test: a study tool, built with the suite so it keeps compiling.
//
// Usage: pick_judge [--backend reference|cuda] [--precision f32|f16] [--algo tvl1|hs|clg|lk]
//                   [--min-texture T] [--median 0|3|5] [--only MOTION] [--extra MODE[:MEDIAN]]
// --extra adds a column: the pair solved under robust MODE (none, local-norm, range-match,
// level-norm, shade-norm), with median size MEDIAN if given (a study of a further candidate).
// Without --min-texture each candidate runs with the texture rule pick gives it
// (core/robust.hpp pick_min_texture); --min-texture T sets T for all three.
// One line per (algorithm, cell): ALGO MOTION PHOTOMETRY, then per candidate EPE and judge.
#include "oflow.h"
#include "test_util.hpp"

#include "core/ref/kernels_ref.hpp"
#include "core/robust.hpp"
#include "core/synth_matrix.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using oflow::synth::Motion;
using oflow::synth::Photometry;

// img normalised in place as LOCAL_NORM with kRobustFloor (core/flow_driver.cpp normalize_plane).
void normalise(std::vector<float>& img, int w, int h, float sigma) {
    std::vector<float> mean(img.size()), tmp(img.size()), var(img.size());
    const oflow::Plane i{img.data(), w, h, w}, m{mean.data(), w, h, w}, t{tmp.data(), w, h, w}, v{var.data(), w, h, w};
    const oflow::Gaussian1D g = oflow::make_gaussian(sigma);
    oflow::blur_h_ref(i, t, g, 0, h);
    oflow::blur_v_ref(t, m, g, 0, h);
    oflow::robust_sq_ref(i, m, v, 0, h);
    oflow::blur_h_ref(v, t, g, 0, h);
    oflow::blur_v_ref(t, v, g, 0, h);
    oflow::robust_combine_ref(i, m, v, i, oflow::kRobustFloor, 0, h);
}

double judge(const std::vector<float>& n0, const std::vector<float>& n1, const std::vector<float>& u,
             const std::vector<float>& v, int w, int h) {
    double acc = 0.0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t k = static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x);
            acc += oflow::pick_term(n1.data(), w, w, h, static_cast<float>(x) + u[k], static_cast<float>(y) + v[k], n0[k]);
        }
    return acc / (static_cast<double>(w) * static_cast<double>(h));
}

struct Options {
    of_backend backend = OF_BACKEND_REFERENCE;
    of_precision precision = OF_PRECISION_F32;
    std::string algo; // empty: all four
    float min_texture = -1.0f;
    int median = -1;
    std::string only;
    int extra = -1;        // --extra: a fourth candidate's of_robust value, -1: none
    int extra_median = -1; // its median size, -1: as the others
};

bool parse(int argc, char** argv, Options* o) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) return false;
        const std::string v = argv[++i];
        if (a == "--backend" && (v == "reference" || v == "cuda"))
            o->backend = v == "cuda" ? OF_BACKEND_CUDA : OF_BACKEND_REFERENCE;
        else if (a == "--precision" && (v == "f32" || v == "f16"))
            o->precision = v == "f16" ? OF_PRECISION_F16 : OF_PRECISION_F32;
        else if (a == "--algo" && (v == "tvl1" || v == "hs" || v == "clg" || v == "lk"))
            o->algo = v;
        else if (a == "--min-texture")
            o->min_texture = static_cast<float>(std::atof(v.c_str()));
        else if (a == "--median" && (v == "0" || v == "3" || v == "5"))
            o->median = std::atoi(v.c_str());
        else if (a == "--only" && oflow::synth::motion_from_name(v.c_str(), nullptr))
            o->only = v;
        else if (a == "--extra") {
            const std::string mode = v.substr(0, v.find(':'));
            for (int k = OF_ROBUST_NONE; k <= oflow::kRobustLast; ++k)
                if (k != OF_ROBUST_PICK && mode == oflow::robust_mode_name(static_cast<of_robust>(k))) o->extra = k;
            if (o->extra < 0) return false;
            if (v.find(':') != std::string::npos) {
                const std::string med = v.substr(v.find(':') + 1);
                if (med != "0" && med != "3" && med != "5") return false;
                o->extra_median = std::atoi(med.c_str());
            }
        } else
            return false;
    }
    return true;
}

// The flow of one pair under cfg into u, v; false (and a message) on failure.
bool solve(const of_config& cfg, const std::vector<float>& i0, const std::vector<float>& i1, int w, int h,
           std::vector<float>* u, std::vector<float>* v) {
    of_context* ctx = nullptr;
    if (of_create(&cfg, &ctx) != OF_OK) {
        std::fprintf(stderr, "pick_judge: of_create: %s\n", of_last_error(nullptr));
        return false;
    }
    const of_image a = oftest::host_f32_image(i0.data(), static_cast<uint32_t>(w), static_cast<uint32_t>(h));
    const of_image b = oftest::host_f32_image(i1.data(), static_cast<uint32_t>(w), static_cast<uint32_t>(h));
    of_flow f = oftest::host_planar_flow(u->data(), v->data(), static_cast<uint32_t>(w), static_cast<uint32_t>(h));
    const of_status s = of_process(ctx, &a, &b, &f);
    if (s != OF_OK) std::fprintf(stderr, "pick_judge: of_process: %s\n", of_last_error(ctx));
    of_destroy(ctx);
    return s == OF_OK;
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse(argc, argv, &o)) {
        std::fprintf(stderr, "usage: pick_judge [--backend reference|cuda] [--precision f32|f16] [--algo tvl1|hs|clg|lk]\n"
                             "                  [--min-texture T] [--median 0|3|5] [--only MOTION] [--extra MODE[:MEDIAN]]\n");
        return 2;
    }
    const of_algorithm algos[] = {OF_ALGO_TVL1, OF_ALGO_HS, OF_ALGO_CLG, OF_ALGO_LK};
    const char* const names[] = {"tvl1", "hs", "clg", "lk"};
    std::printf("# algo motion photometry, then per candidate (");
    std::printf("pick_candidates(algorithm)");
    if (o.extra >= 0) std::printf(", extra %d median %d", o.extra, o.extra_median);
    std::printf("): EPE judge\n");
    for (int m = 0; m < static_cast<int>(Motion::Count); ++m) {
        if (!o.only.empty() && o.only != oflow::synth::motion_name(static_cast<Motion>(m))) continue;
        for (int p = 0; p < static_cast<int>(Photometry::Count); ++p) {
            int w = 0, h = 0;
            oflow::synth::motion_size(static_cast<Motion>(m), &w, &h);
            const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
            std::vector<float> i0(n), i1(n), gu(n), gv(n);
            oflow::synth::generate_cell(static_cast<Motion>(m), static_cast<Photometry>(p), w, h, 1u, i0.data(), i1.data(),
                                        gu.data(), gv.data(), w);
            for (int a = 0; a < 4; ++a) {
                if (!o.algo.empty() && o.algo != names[a]) continue;
                of_config c;
                of_config_init(&c, algos[a]);
                std::vector<float> n0 = i0, n1 = i1;
                normalise(n0, w, h, c.robust_sigma);
                normalise(n1, w, h, c.robust_sigma);
                std::printf("%s %s %s", names[a], oflow::synth::motion_name(static_cast<Motion>(m)),
                            oflow::synth::photometry_name(static_cast<Photometry>(p)));
                const int count = oflow::pick_count(algos[a]) + (o.extra >= 0 ? 1 : 0);
                for (int k = 0; k < count; ++k) {
                    const bool extra = k == oflow::pick_count(algos[a]);
                    c.max_width = static_cast<uint32_t>(w);
                    c.max_height = static_cast<uint32_t>(h);
                    c.threads = 2;
                    c.format = OF_PIXEL_F32;
                    c.backend = o.backend;
                    c.precision = o.precision;
                    c.robust = extra ? static_cast<of_robust>(o.extra) : oflow::pick_candidates(algos[a])[k];
                    of_config d;
                    of_config_init(&d, algos[a]);
                    c.min_texture = o.min_texture >= 0.0f ? o.min_texture : oflow::pick_min_texture(c.robust, d.min_texture);
                    c.median_size = oflow::pick_median(algos[a], c.robust, d.median_size);
                    if (o.median >= 0) c.median_size = static_cast<uint32_t>(o.median);
                    if (extra && o.extra_median >= 0) c.median_size = static_cast<uint32_t>(o.extra_median);
                    std::vector<float> u(n), v(n);
                    if (!solve(c, i0, i1, w, h, &u, &v)) return 1;
                    double e = 0.0;
                    for (std::size_t i = 0; i < n; ++i) e += std::hypot(u[i] - gu[i], v[i] - gv[i]);
                    std::printf(" %.4f %.5f", e / static_cast<double>(n), judge(n0, n1, u, v, w, h));
                }
                std::printf("\n");
                std::fflush(stdout);
            }
        }
    }
    return 0;
}
