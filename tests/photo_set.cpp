// photo_set: accuracy on real photographs under exact camera motions (tests/photo_cells.hpp),
// beside the synthetic matrix (tests/robust_matrix.cpp): real texture, real flat areas, real
// contrast, 8-bit frames, and a flow known at every pixel.
//
// Every cell (photograph x motion x photometric condition) is one pair, or a stream's 5
// consecutive pairs each run as an independent pair; every pair goes through of_process with the
// algorithm's defaults (of_config_init; threads 2; OF_PIXEL_U8 frames, as a camera gives them),
// one context per cell. A cell's EPE is the mean endpoint error over all pixels (also those whose
// match leaves frame 1), a stream's the mean over its pairs. Checked: every cell's EPE is within
// its bound of tests/data/photo_bounds.tsv (1.3 x the reference path's EPE:
// scripts/photo_bounds.py). OpenCV's EPE on the same 8-bit frames (tests/data/opencv_photo.tsv,
// scripts/compare_opencv.py --photos: DualTVL1 at oflow's TV-L1 schedule for tvl1, hs, clg and
// lk; DISOpticalFlow of the same preset for dis) is printed beside each cell with the ratio
// oflow / OpenCV and their means: not checked yet.
// Printed per cell: EPE, bound, OpenCV's EPE, the ratio, the seconds of_process took (wall,
// every pair of the cell); then the mean EPE per motion and overall, and the final line
// "photo_set ALGO: mean EPE small S medium M large L stream T overall O ..." with the cells,
// pairs, wall and CPU seconds (the process's, rendering included): a measurement tool too.
//
// Time budget (CTest): the quick subset for all five algorithms on one CPU path takes at most
// 90 s of CPU on a 2-core x86-64 (tests/CMakeLists.txt has the figures).
//
// Usage: photo_set --algo tvl1|hs|clg|lk|dis --photo-dir DIR [--photo-dir DIR ...]
//                  [--backend auto|reference|neon|cuda] [--bounds FILE] [--opencv FILE]
//                  [--cells all|quick|sanitize] [--photo NAME] [--motion small|medium|large|stream]
//                  [--photometry none|ramp|gain-noise|vignette] [--size WxH] [--study]
//                  [--robust MODE] [--init none|dis] [--sigma S] [--alpha A] [--lambda L] [--median N]
//                  [--presmooth S] [--min-texture T] [--iterations N] [--warps N] [--threads N]
//                  [--preset ultrafast|fast|medium]
//   --photo-dir  the folders holding the photographs (tests/photo_cells.hpp): the first that has
//                a file is used; a photograph found in none fails the run
//   --cells      all: every photograph x motion x condition (160 cells, 320 pairs); quick (the
//                default): the CTest subset; sanitize: two cells; --photo, --motion and
//                --photometry narrow any of them
//   --robust     the bounds' rows "ALGO:MODE" then (e.g. tvl1:none), else "ALGO"
//   --init       none|dis: config.init; with dis the rows gain "+dis" (e.g. tvl1:census+dis)
//   --study      print, check nothing (and need no bounds)
//   --alpha      HS / CLG: hs.alpha; DIS: dis.refine_alpha. --lambda: TV-L1's tvl1.lambda.
//                --preset: DIS's of_dis_preset (OpenCV's column follows it)
//   --backend cuda with no CUDA device (or build): exit 77 (skipped)
#include "photo_cells.hpp"
#include "photo_tables.hpp"
#include "test_util.hpp"

#include "core/robust.hpp"

#include <sys/resource.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace oftest;
using namespace phototest;

namespace {

struct Options {
    of_algorithm algo = OF_ALGO_TVL1;
    std::string algo_name;
    of_backend backend = OF_BACKEND_AUTO;
    std::string backend_name = "auto";
    std::string bounds, opencv, cells = "quick", photo, motion, photometry;
    std::vector<std::string> dirs;
    int w = kViewWidth, h = kViewHeight;
    bool study = false;
    int robust = -1; // -1: the default
    int init = -1;   // --init none|dis: config.init; -1: the default
    float sigma = -1.0f, alpha = -1.0f, lambda = -1.0f, presmooth = -1.0f, min_texture = -1.0f;
    int median = -1, iterations = -1, warps = -1, threads = 2, preset = -1;
};

const char* const kPresets[] = {"ultrafast", "fast", "medium"};

bool parse(int argc, char** argv, Options* o) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--study") {
            o->study = true;
            continue;
        }
        if (i + 1 >= argc) return false;
        const std::string v = argv[++i];
        const float f = static_cast<float>(std::atof(v.c_str()));
        const int n = std::atoi(v.c_str());
        if (a == "--algo") {
            o->algo_name = v;
            if (v == "tvl1") o->algo = OF_ALGO_TVL1;
            else if (v == "hs") o->algo = OF_ALGO_HS;
            else if (v == "clg") o->algo = OF_ALGO_CLG;
            else if (v == "lk") o->algo = OF_ALGO_LK;
            else if (v == "dis") o->algo = OF_ALGO_DIS;
            else return false;
        } else if (a == "--backend") {
            o->backend_name = v;
            if (v == "auto") o->backend = OF_BACKEND_AUTO;
            else if (v == "reference") o->backend = OF_BACKEND_REFERENCE;
            else if (v == "neon") o->backend = OF_BACKEND_NEON;
            else if (v == "cuda") o->backend = OF_BACKEND_CUDA;
            else return false;
        } else if (a == "--cells") {
            if (!known_subset(v)) return false;
            o->cells = v;
        } else if (a == "--photo") {
            if (photo_index(v) < 0) return false;
            o->photo = v;
        } else if (a == "--motion") {
            if (!move_from_name(v.c_str(), nullptr)) return false;
            o->motion = v;
        } else if (a == "--photometry") {
            if (!light_from_name(v.c_str(), nullptr)) return false;
            o->photometry = v;
        } else if (a == "--size") {
            if (std::sscanf(v.c_str(), "%dx%d", &o->w, &o->h) != 2 || o->w < 16 || o->h < 16) return false;
        } else if (a == "--photo-dir") {
            o->dirs.push_back(v);
        } else if (a == "--bounds") {
            o->bounds = v;
        } else if (a == "--opencv") {
            o->opencv = v;
        } else if (a == "--robust") {
            for (int r = OF_ROBUST_NONE; r <= oflow::kRobustLast; ++r)
                if (v == oflow::robust_mode_name(static_cast<of_robust>(r))) o->robust = r;
            if (o->robust < 0) return false;
        } else if (a == "--init") {
            o->init = v == "none" ? OF_INIT_NONE : v == "dis" ? OF_INIT_DIS : -1;
            if (o->init < 0) return false;
        } else if (a == "--preset") {
            for (int p = 0; p < 3; ++p)
                if (v == kPresets[p]) o->preset = p;
            if (o->preset < 0) return false;
        } else if (a == "--sigma") o->sigma = f;
        else if (a == "--alpha") o->alpha = f;
        else if (a == "--lambda") o->lambda = f;
        else if (a == "--presmooth") o->presmooth = f;
        else if (a == "--min-texture") o->min_texture = f;
        else if (a == "--median") o->median = n;
        else if (a == "--iterations") o->iterations = n;
        else if (a == "--warps") o->warps = n;
        else if (a == "--threads") o->threads = n;
        else return false;
    }
    return !o->algo_name.empty() && !o->dirs.empty();
}

of_config make_config(const Options& o) {
    of_config c = algo_config(o.algo, static_cast<uint32_t>(o.w), static_cast<uint32_t>(o.h));
    if (o.preset >= 0) of_dis_preset(&c, static_cast<of_dis_preset_id>(o.preset));
    c.threads = static_cast<uint32_t>(o.threads);
    c.format = OF_PIXEL_U8;
    c.backend = o.backend;
    if (o.robust >= 0) c.robust = static_cast<of_robust>(o.robust);
    if (o.init >= 0) c.init = static_cast<of_init>(o.init);
    if (o.sigma > 0.0f) c.robust_sigma = o.sigma;
    if (o.alpha > 0.0f) {
        c.hs.alpha = o.alpha;
        c.dis.refine_alpha = o.alpha;
    }
    if (o.lambda > 0.0f) c.tvl1.lambda = o.lambda;
    if (o.presmooth >= 0.0f) c.presmooth_sigma = o.presmooth;
    if (o.min_texture >= 0.0f) c.min_texture = o.min_texture;
    if (o.median >= 0) c.median_size = static_cast<uint32_t>(o.median);
    if (o.iterations > 0) c.iterations = static_cast<uint32_t>(o.iterations);
    if (o.warps > 0) c.warps = static_cast<uint32_t>(o.warps);
    return c;
}

of_image gray8(const std::vector<uint8_t>& px, int w, int h) {
    of_image a;
    std::memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.format = OF_PIXEL_U8;
    a.memory = OF_MEMORY_HOST;
    a.width = static_cast<uint32_t>(w);
    a.height = static_cast<uint32_t>(h);
    a.stride = static_cast<size_t>(w);
    a.data = px.data();
    return a;
}

enum class Run { Ok, Failed, Skipped };

// The cell's EPE (mean over its pairs) into *epe and the of_process seconds into *secs.
Run run_cell(const of_config& cfg, const CellFrames& f, double* epe, double* secs) {
    of_context* ctx = nullptr;
    const of_status s = of_create(&cfg, &ctx);
    if (s == OF_ERR_BACKEND_UNAVAILABLE && cfg.backend == OF_BACKEND_CUDA) return Run::Skipped;
    if (s != OF_OK) {
        std::fprintf(stderr, "of_create: %s: %s\n", st(s), of_last_error(nullptr));
        return Run::Failed;
    }
    const size_t n = static_cast<size_t>(f.w) * static_cast<size_t>(f.h);
    std::vector<float> u(n), v(n);
    of_flow flow = host_planar_flow(u.data(), v.data(), static_cast<uint32_t>(f.w), static_cast<uint32_t>(f.h));
    double sum = 0.0, t = 0.0;
    const size_t pairs = f.gt_u.size();
    for (size_t k = 0; k < pairs; ++k) {
        const of_image a = gray8(f.frames[k], f.w, f.h), b = gray8(f.frames[k + 1], f.w, f.h);
        const auto t0 = std::chrono::steady_clock::now();
        const of_status r = of_process(ctx, &a, &b, &flow);
        t += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (r != OF_OK) {
            std::fprintf(stderr, "of_process: %s: %s\n", st(r), of_last_error(ctx));
            of_destroy(ctx);
            return Run::Failed;
        }
        double e = 0.0;
        for (size_t i = 0; i < n; ++i) {
            const double du = static_cast<double>(u[i]) - f.gt_u[k][i], dv = static_cast<double>(v[i]) - f.gt_v[k][i];
            e += std::sqrt(du * du + dv * dv);
        }
        sum += e / static_cast<double>(n);
    }
    of_destroy(ctx);
    *epe = sum / static_cast<double>(pairs);
    *secs = t;
    return Run::Ok;
}

double cpu_seconds() {
    rusage r;
    getrusage(RUSAGE_SELF, &r);
    return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
           1e-6 * static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

// A running mean of the EPE, of OpenCV's EPE and of the ratio, per motion and overall.
struct Mean {
    double epe = 0.0, cv = 0.0, ratio = 0.0;
    int n = 0, ncv = 0;
    void add(double e, double c) {
        epe += e;
        ++n;
        if (c > 0.0) {
            cv += c;
            ratio += e / c;
            ++ncv;
        }
    }
};

// The photographs, read once and each with its sampler at its scale.
struct Loaded {
    Photo photo;
    double scale = 0.0;
    std::unique_ptr<PhotoSampler> sampler;
};

bool load_photo(const Options& o, int i, Loaded* out) {
    const PhotoEntry& e = photo_entry(i);
    std::string path, err;
    if (!find_photo(o.dirs, e.file, &path)) {
        std::fprintf(stderr, "photo_set: %s (%s) is in none of the --photo-dir folders (Debian: python3-skimage, "
                             "opencv-doc; scripts/test.sh installs them)\n", e.name, e.file);
        return false;
    }
    if (!read_photo(path, &out->photo, &err)) {
        std::fprintf(stderr, "photo_set: %s\n", err.c_str());
        return false;
    }
    out->scale = photo_scale(out->photo.w, out->photo.h, o.w, o.h);
    if (out->scale <= 0.0) {
        std::fprintf(stderr, "photo_set: %s (%dx%d) is too small for a %dx%d view\n", e.name, out->photo.w,
                     out->photo.h, o.w, o.h);
        return false;
    }
    out->sampler.reset(new PhotoSampler(out->photo, out->scale));
    return true;
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse(argc, argv, &o)) {
        std::fprintf(stderr, "usage: photo_set --algo tvl1|hs|clg|lk|dis --photo-dir DIR [--photo-dir DIR] [--backend B] "
                             "[--bounds FILE] [--opencv FILE] [--cells all|quick|sanitize] [--photo P] [--motion M] "
                             "[--photometry L] [--size WxH] [--study] [--robust MODE] [--sigma S] [--alpha A] "
                             "[--lambda L] [--median N] [--presmooth S] [--min-texture T] [--iterations N] "
                             "[--warps N] [--threads N] [--preset P]\n");
        return 2;
    }
    const double cpu0 = cpu_seconds();
    const auto wall0 = std::chrono::steady_clock::now();
    const std::string mode = o.robust >= 0 ? oflow::robust_mode_name(static_cast<of_robust>(o.robust)) : "";
    std::map<std::string, double> bounds, opencv;
    if (!o.study) {
        const std::string key = o.algo_name + (mode.empty() ? "" : ":" + mode) + (o.init == OF_INIT_DIS ? "+dis" : "");
        if (o.bounds.empty() || !read_bounds(o.bounds, key, &bounds)) {
            std::fprintf(stderr, "photo_set: cannot read the bounds table '%s'\n", o.bounds.c_str());
            return 1;
        }
    }
    // OpenCV's peer: DIS of the same preset for DIS (MEDIUM, of_config_init's), DualTVL1 otherwise.
    const std::string column = o.algo == OF_ALGO_DIS ? std::string("dis_") + kPresets[o.preset >= 0 ? o.preset : 2] + "_epe"
                                                     : std::string("tvl1_epe");
    if (!o.opencv.empty() && !read_opencv(o.opencv, column, &opencv)) {
        std::fprintf(stderr, "photo_set: cannot read column %s of OpenCV's table '%s'\n", column.c_str(), o.opencv.c_str());
        return 1;
    }
    const of_config cfg = make_config(o);
    std::printf("photo_set %s, cells %s, %dx%d, backend %s, robust %s, %u threads%s\n", o.algo_name.c_str(),
                o.cells.c_str(), o.w, o.h, o.backend_name.c_str(), oflow::robust_mode_name(cfg.robust), cfg.threads,
                o.study ? " (study: no checks)" : "");
    std::printf("%-11s %-7s %-11s %9s %9s %9s %7s %8s\n", "photo", "motion", "photometry", "EPE", "bound",
                o.algo == OF_ALGO_DIS ? "OpenCV" : "DualTVL1", "ratio", "seconds");
    std::map<int, Loaded> photos;
    Mean per_move[static_cast<int>(Move::Count)], all;
    int cells = 0, pairs = 0;
    std::string above; // the cells above their bound, for the last line
    for (int pi = 0; pi < photo_count(); ++pi) {
        for (int mi = 0; mi < static_cast<int>(Move::Count); ++mi) {
            for (int li = 0; li < static_cast<int>(Light::Count); ++li) {
                CellId c;
                c.photo = pi;
                c.move = static_cast<Move>(mi);
                c.light = static_cast<Light>(li);
                const std::string pn = photo_entry(pi).name, mn = move_name(c.move), ln = light_name(c.light);
                if (!in_subset(o.cells, c) || (!o.photo.empty() && o.photo != pn) ||
                    (!o.motion.empty() && o.motion != mn) || (!o.photometry.empty() && o.photometry != ln))
                    continue;
                if (!photos.count(pi) && !load_photo(o, pi, &photos[pi])) return 1;
                const Loaded& p = photos[pi];
                CellFrames f;
                std::string err;
                if (!render_cell_with(*p.sampler, p.scale, c, o.w, o.h, &f, &err)) {
                    std::fprintf(stderr, "photo_set: %s\n", err.c_str());
                    return 1;
                }
                double e = -1.0, secs = 0.0;
                const Run r = run_cell(cfg, f, &e, &secs);
                if (r == Run::Skipped) {
                    std::printf("photo_set: no CUDA device or build: skipped\n");
                    return 77;
                }
                const std::string k = cell_key(pn, mn, ln);
                const double bound = bounds.count(k) ? bounds[k] : -1.0, cv = opencv.count(k) ? opencv[k] : -1.0;
                std::printf("%-11s %-7s %-11s %9.4f %9.4f %9.4f %7.3f %8.2f\n", pn.c_str(), mn.c_str(), ln.c_str(), e,
                            bound, cv, cv > 0.0 && e >= 0.0 ? e / cv : 0.0, secs);
                std::fflush(stdout);
                ++cells;
                pairs += static_cast<int>(f.gt_u.size());
                if (r == Run::Ok) {
                    per_move[mi].add(e, cv);
                    all.add(e, cv);
                }
                if (o.study) continue;
                CHECK_MSG(r == Run::Ok, "%s: the run failed", k.c_str());
                CHECK_MSG(bound > 0.0, "%s: no bound in %s", k.c_str(), o.bounds.c_str());
                CHECK_MSG(r != Run::Ok || bound <= 0.0 || e <= bound, "%s: EPE %.4f > bound %.4f", k.c_str(), e, bound);
                if (r != Run::Ok || bound <= 0.0 || e > bound) above += (above.empty() ? "" : ", ") + k;
            }
        }
    }
    if (cells == 0) {
        std::fprintf(stderr, "photo_set: no cell matches the selection\n");
        return 1;
    }
    std::printf("%-11s %-7s %5s %9s %9s %9s\n", "mean", "motion", "cells", "EPE", "OpenCV", "ratio");
    std::string line;
    char buf[96];
    for (int mi = 0; mi <= static_cast<int>(Move::Count); ++mi) {
        const bool total = mi == static_cast<int>(Move::Count);
        const Mean& m = total ? all : per_move[mi];
        if (m.n == 0) continue;
        const char* name = total ? "overall" : move_name(static_cast<Move>(mi));
        std::printf("%-11s %-7s %5d %9.4f %9.4f %9.3f\n", "mean", name, m.n, m.epe / m.n, m.ncv ? m.cv / m.ncv : -1.0,
                    m.ncv ? m.ratio / m.ncv : 0.0);
        std::snprintf(buf, sizeof buf, " %s %.4f", name, m.epe / m.n);
        line += buf;
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    std::printf("photo_set %s: mean EPE%s (%d cells, %d pairs; mean ratio to OpenCV %.3f over %d cells; %.1f s wall, "
                "%.1f s CPU)\n", o.algo_name.c_str(), line.c_str(), cells, pairs, all.ncv ? all.ratio / all.ncv : 0.0,
                all.ncv, wall, cpu_seconds() - cpu0);
    if (o.study) return 0;
    if (!above.empty())
        std::printf("photo_set %s: FAILED: cells above their bound (or failed, or without one): %s\n", o.algo_name.c_str(),
                    above.c_str());
    return finish("photo_set");
}
