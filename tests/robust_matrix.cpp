// robust_matrix: the motion x photometry accuracy matrix (core/synth_matrix.hpp), the guard
// against a default that holds on one kind of motion or light and fails another.
//
// Every cell is one frame pair at its motion's native size, run through of_process with the
// algorithm's defaults (of_config_init; threads 2), and checked three ways:
//  1. its EPE (all pixels) is within the cell's bound of tests/data/matrix_bounds.tsv (the
//     reference path's EPE + 30 %);
//  2. TV-L1 only: its EPE is within 1.15 x what OpenCV's DualTVL1 reaches on the same cell at the
//     same schedule (tests/data/opencv_matrix.tsv, written by scripts/compare_opencv.py --matrix),
//     and so is its bound (the table may not allow more than that);
//  3. in every cell without a photometric change, the default is within 1.15 x (+ 0.02 px) the
//     same algorithm with the robust step off (robust none, everything else default): a robust
//     representation may not cost motion accuracy.
// The defaults meet rules 2 and 3 in every cell but two of DIS's (its LEVEL_NORM default against
// robust none on rotation-720p and occlusion: docs/accuracy.md section 15, the table's gap
// column); the single modes (rows "ALGO:MODE") do not, and
// the table's gap column names the rule such a cell misses (a known gap, printed, never silent;
// the cell is still held to its bound).
// Precision F16 (--precision f16) allows its bound x 1.03 + 0.01, as the self-test does.
//
// Usage: robust_matrix --algo tvl1|hs|clg|lk|dis [--cells all|small|large|large-ctest|sanitize|qemu] [--bounds FILE]
//                      [--opencv FILE] [--backend auto|reference|neon|cuda] [--precision f32|f16]
//                      [--robust none|local-norm|range-match|level-norm|pick|shade-norm] [--sigma S] [--only MOTION]
//                      [--init none|dis] [--min-texture F] [--presmooth F] [--median N] [--study]
//   --cells   all: the 28 cells; small: the motions up to 512x512; large: rotation-720p and
//             camera-1080p; large-ctest: four of those eight (rotation-720p without a change and
//             under shading, camera-1080p without a change and under gain-noise); sanitize: translation and stereo, none and gain-noise (the ASan
//             build); qemu: translation, gain-noise (the emulated aarch64 suite, and the NEON
//             kernels' native run on x86-64: robust_matrix_ALGO_neon)
//   --presmooth, --median (study): config.presmooth_sigma, config.median_size
//   --robust  the bounds table's rows "ALGO:MODE" then (e.g. tvl1:level-norm), else "ALGO"
//   --init    none|dis: config.init; with dis the rows gain "+dis" (e.g. tvl1:census+dis)
//   --study   print the EPEs (and the robust-none EPEs) with the given robust mode and sigma,
//             check nothing: the candidate tables of docs/accuracy.md section 13
//   --backend cuda with no CUDA device (or build): exit 77 (skipped)
#include "test_util.hpp"

#include "core/robust.hpp"
#include "core/synth_matrix.hpp"

#include <cstring>
#include <map>
#include <string>

using namespace oftest;
using oflow::synth::Motion;
using oflow::synth::Photometry;

namespace {

struct Options {
    of_algorithm algo = OF_ALGO_TVL1;
    std::string algo_name = "tvl1";
    std::string cells = "all";
    std::string bounds, opencv;
    of_backend backend = OF_BACKEND_AUTO;
    of_precision precision = OF_PRECISION_AUTO;
    bool study = false;
    int robust = -1; // -1: the default
    int init = -1;   // --init none|dis: config.init; -1: the default
    float sigma = 0.0f;
    std::string only; // --only MOTION: that motion's cells alone
    float min_texture = -1.0f; // --min-texture F (study): config.min_texture; -1: the default
    float presmooth = -1.0f;   // --presmooth F (study): config.presmooth_sigma; -1: the default
    int median = -1;           // --median N (study): config.median_size; -1: the default
};

const double kOpenCvRatio = 1.15, kNoneRatio = 1.15;
// Rule 3 also passes within this many px of robust none: a flow 0.01-0.03 px off on a 30 px
// translation reads as 2.6x (the CUDA path's robust none reaches 0.011 there; docs/accuracy.md
// section 13).
const double kNoneAbsolute = 0.02;

using Key = std::pair<std::string, std::string>; // (motion, photometry)

bool in_subset(const std::string& cells, Motion m, Photometry p) {
    const bool large = m == Motion::Rotation720p || m == Motion::CameraPath1080p;
    if (cells == "all") return true;
    if (cells == "small") return !large;
    if (cells == "large") return large;
    if (cells == "large-ctest") // CTest's robust_matrix_large_ALGO: each large motion clean and under one change
        return (m == Motion::Rotation720p && (p == Photometry::None || p == Photometry::Shading)) ||
               (m == Motion::CameraPath1080p && (p == Photometry::None || p == Photometry::GainNoise));
    if (cells == "sanitize") // the ASan build: four cells
        return (m == Motion::Translation || m == Motion::Stereo) && (p == Photometry::None || p == Photometry::GainNoise);
    // qemu (the NEON path under emulation, 20-40x slower; natively on x86-64 the NEON kernels'
    // own run): one cell, the adverse photometry. translation/none is not in it: there pick's
    // judge ties none (EPE 0.55) and level-norm (0.04) within 0.1 %, and which one it keeps
    // depends on each path's rounding (the SIMDe NEON path keeps none).
    return m == Motion::Translation && p == Photometry::GainNoise;
}

// Reads "motion photometry ... value" rows (# comments) into out: column `col` (0-based) of the
// rows whose first column is `algo` when algo is not empty (then the columns after it count);
// with text not null, column text_col's word into *text too.
bool read_table(const std::string& path, const char* algo, int col, std::map<Key, double>* out,
                int text_col = -1, std::map<Key, std::string>* text = nullptr) {
    FILE* f = std::fopen(path.c_str(), "r");
    if (!f) return false;
    char line[512];
    while (std::fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        char* tok[16];
        int n = 0;
        for (char* t = std::strtok(line, " \t\n"); t && n < 16; t = std::strtok(nullptr, " \t\n")) tok[n++] = t;
        int first = 0;
        if (algo) {
            if (n < 1 || std::strcmp(tok[0], algo) != 0) continue;
            first = 1;
        }
        if (n <= first + col || std::strcmp(tok[first], "motion") == 0) continue;
        (*out)[Key(tok[first], tok[first + 1])] = std::atof(tok[first + col]);
        if (text && n > first + text_col) (*text)[Key(tok[first], tok[first + 1])] = tok[first + text_col];
    }
    std::fclose(f);
    return true;
}

struct Cell {
    int w = 0, h = 0;
    std::vector<float> i0, i1, gu, gv;
};

Cell make_cell(Motion m, Photometry p) {
    Cell c;
    oflow::synth::motion_size(m, &c.w, &c.h);
    const std::size_t n = static_cast<std::size_t>(c.w) * static_cast<std::size_t>(c.h);
    c.i0.resize(n);
    c.i1.resize(n);
    c.gu.resize(n);
    c.gv.resize(n);
    oflow::synth::generate_cell(m, p, c.w, c.h, 1u, c.i0.data(), c.i1.data(), c.gu.data(), c.gv.data(), c.w);
    return c;
}

// EPE over all pixels of the cell's flow with config cfg; -1 when the run failed (reported).
double run_epe(const of_config& cfg, const Cell& c, bool* skipped) {
    of_context* ctx = nullptr;
    const of_status s = of_create(&cfg, &ctx);
    if (s == OF_ERR_BACKEND_UNAVAILABLE && cfg.backend == OF_BACKEND_CUDA) {
        *skipped = true;
        return -1.0;
    }
    if (s != OF_OK) {
        std::fprintf(stderr, "of_create: %s: %s\n", st(s), of_last_error(nullptr));
        return -1.0;
    }
    const uint32_t w = static_cast<uint32_t>(c.w), h = static_cast<uint32_t>(c.h);
    const Frame a = make_frame(OF_PIXEL_F32, w, h, c.i0.data(), w), b = make_frame(OF_PIXEL_F32, w, h, c.i1.data(), w);
    std::vector<float> u(c.i0.size()), v(c.i0.size());
    of_flow f = host_planar_flow(u.data(), v.data(), w, h);
    const of_status r = of_process(ctx, &a.img, &b.img, &f);
    if (r != OF_OK) std::fprintf(stderr, "of_process: %s: %s\n", st(r), of_last_error(ctx));
    of_destroy(ctx);
    if (r != OF_OK) return -1.0;
    double sum = 0.0;
    for (std::size_t i = 0; i < u.size(); ++i) {
        const double du = static_cast<double>(u[i]) - c.gu[i], dv = static_cast<double>(v[i]) - c.gv[i];
        sum += std::sqrt(du * du + dv * dv);
    }
    return sum / static_cast<double>(u.size());
}

bool parse(int argc, char** argv, Options* o) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has = i + 1 < argc;
        const std::string v = has ? argv[i + 1] : "";
        if (a == "--study") {
            o->study = true;
            continue;
        }
        if (!has) return false;
        ++i;
        if (a == "--algo") {
            o->algo_name = v;
            if (v == "tvl1") o->algo = OF_ALGO_TVL1;
            else if (v == "hs") o->algo = OF_ALGO_HS;
            else if (v == "clg") o->algo = OF_ALGO_CLG;
            else if (v == "lk") o->algo = OF_ALGO_LK;
            else if (v == "dis") o->algo = OF_ALGO_DIS;
            else return false;
        } else if (a == "--cells") {
            if (v != "all" && v != "small" && v != "large" && v != "large-ctest" && v != "qemu" && v != "sanitize")
                return false;
            o->cells = v;
        } else if (a == "--bounds") {
            o->bounds = v;
        } else if (a == "--opencv") {
            o->opencv = v;
        } else if (a == "--backend") {
            o->backend = v == "reference" ? OF_BACKEND_REFERENCE : v == "neon" ? OF_BACKEND_NEON
                         : v == "cuda"    ? OF_BACKEND_CUDA
                                          : OF_BACKEND_AUTO;
        } else if (a == "--precision") {
            o->precision = v == "f16" ? OF_PRECISION_F16 : OF_PRECISION_F32;
        } else if (a == "--robust") {
            for (int r = OF_ROBUST_NONE; r <= oflow::kRobustLast; ++r)
                if (v == oflow::robust_mode_name(static_cast<of_robust>(r))) o->robust = r;
            if (o->robust < 0) return false;
        } else if (a == "--init") {
            o->init = v == "none" ? OF_INIT_NONE : v == "dis" ? OF_INIT_DIS : -1;
            if (o->init < 0) return false;
        } else if (a == "--min-texture") {
            o->min_texture = static_cast<float>(std::atof(v.c_str()));
        } else if (a == "--only") {
            o->only = v;
        } else if (a == "--sigma") {
            o->sigma = static_cast<float>(std::atof(v.c_str()));
        } else if (a == "--presmooth") {
            o->presmooth = static_cast<float>(std::atof(v.c_str()));
        } else if (a == "--median") {
            o->median = std::atoi(v.c_str());
        } else {
            return false;
        }
    }
    return true;
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse(argc, argv, &o)) {
        std::fprintf(stderr, "usage: robust_matrix --algo tvl1|hs|clg|lk [--cells all|small|large|large-ctest|sanitize|qemu] [--bounds FILE] "
                             "[--opencv FILE] [--backend B] [--precision f32|f16] [--robust R] [--init none|dis] [--sigma S] [--study]\n");
        return 2;
    }
    std::map<Key, double> bounds, opencv;
    std::map<Key, std::string> gaps;
    if (!o.study) {
        // The table's rows for this run: "tvl1" (the defaults) or "tvl1:level-norm" (--robust).
        const std::string mode = o.robust >= 0 ? oflow::robust_mode_name(static_cast<of_robust>(o.robust)) : "";
        const std::string key = o.algo_name + (o.robust >= 0 ? ":" + mode : "") + (o.init == OF_INIT_DIS ? "+dis" : "");
        if (!read_table(o.bounds, key.c_str(), 2, &bounds, 4, &gaps)) {
            std::fprintf(stderr, "robust_matrix: cannot read the bounds table '%s'\n", o.bounds.c_str());
            return 1;
        }
        if (o.algo == OF_ALGO_TVL1 && !read_table(o.opencv, nullptr, 5, &opencv)) {
            std::fprintf(stderr, "robust_matrix: cannot read OpenCV's table '%s'\n", o.opencv.c_str());
            return 1;
        }
    }
    const bool f16 = o.precision == OF_PRECISION_F16;
    std::printf("robust_matrix %s, cells %s, %s%s\n", o.algo_name.c_str(), o.cells.c_str(), f16 ? "F16" : "F32",
                o.study ? " (study: no checks)" : "");
    std::printf("%-14s %-11s %9s %9s %9s %9s %9s\n", "motion", "photometry", "EPE", "bound", "OpenCV", "none EPE",
                "ratio");
    bool skipped = false;
    if (o.backend == OF_BACKEND_CUDA) {
        // Without a CUDA device (or build) skip before any cell is generated: the 720p and
        // 1080p cells take seconds to synthesise, minutes under qemu's gpu test runs.
        of_config probe = algo_config(o.algo, 64, 64);
        probe.backend = OF_BACKEND_CUDA;
        probe.precision = o.precision;
        of_context* ctx = nullptr;
        const of_status s = of_create(&probe, &ctx);
        of_destroy(ctx);
        if (s == OF_ERR_BACKEND_UNAVAILABLE) {
            std::printf("robust_matrix: no CUDA device or build: skipped\n");
            return 77;
        }
    }
    for (int mi = 0; mi < static_cast<int>(Motion::Count); ++mi) {
        for (int pi = 0; pi < static_cast<int>(Photometry::Count); ++pi) {
            const Motion m = static_cast<Motion>(mi);
            const Photometry p = static_cast<Photometry>(pi);
            if (!in_subset(o.cells, m, p) || (!o.only.empty() && o.only != oflow::synth::motion_name(m))) continue;
            const Cell c = make_cell(m, p);
            of_config cfg = algo_config(o.algo, static_cast<uint32_t>(c.w), static_cast<uint32_t>(c.h));
            cfg.threads = 2;
            cfg.format = OF_PIXEL_F32;
            cfg.backend = o.backend;
            cfg.precision = o.precision;
            if (o.robust >= 0) cfg.robust = static_cast<of_robust>(o.robust);
            if (o.init >= 0) cfg.init = static_cast<of_init>(o.init);
            if (o.sigma > 0.0f) cfg.robust_sigma = o.sigma;
            if (o.min_texture >= 0.0f) cfg.min_texture = o.min_texture;
            if (o.presmooth >= 0.0f) cfg.presmooth_sigma = o.presmooth;
            if (o.median >= 0) cfg.median_size = static_cast<uint32_t>(o.median);
            const Key k(oflow::synth::motion_name(m), oflow::synth::photometry_name(p));
            const double e = run_epe(cfg, c, &skipped);
            if (skipped) {
                std::printf("robust_matrix: no CUDA device or build: skipped\n");
                return 77;
            }
            double none = -1.0;
            if (p == Photometry::None) {
                of_config n = cfg;
                n.robust = OF_ROBUST_NONE;
                none = run_epe(n, c, &skipped);
            }
            const auto bi = bounds.find(k);
            const double bound = bi == bounds.end() ? -1.0 : bi->second * (f16 ? 1.03 : 1.0) + (f16 ? 0.01 : 0.0);
            const auto oi = opencv.find(k);
            const double cv = oi == opencv.end() ? -1.0 : oi->second;
            std::printf("%-14s %-11s %9.4f %9.4f %9.4f %9.4f %9.3f\n", k.first.c_str(), k.second.c_str(), e, bound, cv,
                        none, none > 0.0 ? e / none : 0.0);
            std::fflush(stdout);
            if (o.study) continue;
            CHECK_MSG(e >= 0.0, "%s/%s: the run failed", k.first.c_str(), k.second.c_str());
            CHECK_MSG(bound > 0.0, "%s/%s: no bound in %s", k.first.c_str(), k.second.c_str(), o.bounds.c_str());
            CHECK_MSG(e <= bound, "%s/%s: EPE %.4f > bound %.4f", k.first.c_str(), k.second.c_str(), e, bound);
            // A known gap (the table's gap column: opencv, none or both, "-" for none) is a rule
            // this cell does not meet yet (docs/accuracy.md section 13 lists them): reported, and
            // the cell is still held to its bound; every other cell meets both rules.
            const std::string gap = gaps.count(k) ? gaps[k] : "-";
            const bool gap_cv = gap.find("opencv") != std::string::npos, gap_none = gap.find("none") != std::string::npos;
            const double slack = f16 ? 0.01 : 0.0;
            if (o.algo == OF_ALGO_TVL1) {
                CHECK_MSG(cv > 0.0, "%s/%s: no OpenCV figure in %s", k.first.c_str(), k.second.c_str(), o.opencv.c_str());
                const bool ok = e <= kOpenCvRatio * cv * (f16 ? 1.03 : 1.0) + slack;
                if (gap_cv) {
                    std::printf("  known gap: EPE %.4f %s 1.15 x OpenCV %.4f\n", e, ok ? "<=" : ">", cv);
                } else {
                    CHECK_MSG(bi == bounds.end() || bi->second <= kOpenCvRatio * cv,
                              "%s/%s: bound %.4f > 1.15 x OpenCV %.4f", k.first.c_str(), k.second.c_str(), bi->second, cv);
                    CHECK_MSG(ok, "%s/%s: EPE %.4f > 1.15 x OpenCV %.4f", k.first.c_str(), k.second.c_str(), e, cv);
                }
            }
            if (p == Photometry::None) {
                const bool ok = none >= 0.0 && e <= kNoneRatio * none + slack + kNoneAbsolute;
                if (gap_none)
                    std::printf("  known gap: EPE %.4f %s 1.15 x robust none's %.4f\n", e, ok ? "<=" : ">", none);
                else
                    CHECK_MSG(ok, "%s: the default's EPE %.4f > 1.15 x robust none's %.4f", k.first.c_str(), e, none);
            }
        }
    }
    return finish("robust_matrix");
}
