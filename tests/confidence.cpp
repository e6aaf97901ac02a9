// confidence: how good the validity output (of_flow.valid, api/oflow.h; core/confidence.hpp) is,
// as a sparsification test. Every pixel of a pair with a known flow is ranked by the confidence
// the library returns (OF_VALID_CONFIDENCE_F32), and the EPE of the most confident 50 / 80 / 90 /
// 100 % is set beside the same for the perfect ranking (by the true EPE). The area under each
// curve (the mean of the EPEs of the most confident 5, 10, ..., 100 %) and the gap between the
// two areas say how close the ranking is to the perfect one.
//
// Cases (core/synth_matrix.hpp), each at a size that keeps the suite short:
//   occlusion      320x240  two textured layers, one occluding the other
//   stereo         448x256  a rectified pair, disparities 8..60 px, objects occluding each other
//   leaves-frame   384x288  a 30 px translation: a band of frame 0 leaves the frame
//   exposure       320x240  the small smooth field under gain 1.06, offset 4 and noise
//   flat           256x256  rotation and zoom with a flat 64x64 square in the centre
// Checked for every algorithm's defaults on the path the build and OFLOW_FORCE_BACKEND give
// (--backend to choose), against kBounds (the measured gap x 1.3 + 0.01, the largest of the
// reference, NEON and CUDA paths):
//  1. the gap between the areas is within the case's bound;
//  2. the confidence helps: the EPE of the most confident 90 % is below the EPE of all pixels
//     (where the flow has errors to find: EPE of all > 0.05 px);
//  3. every value is in [0, 1], and the mask (OF_VALID_MASK_U8, the same pair) is 255 exactly
//     where the confidence is at least config.min_confidence.
//
// Usage: confidence [--backend auto|reference|neon|cuda] [--precision f32|f16] [--cases all|qemu]
//                   [--only CASE] [--algo tvl1|hs|clg|lk] [--study]
//   --cases qemu: occlusion with TV-L1 and flat with HS, without the mask's second solve (the
//             emulated aarch64 suites); issue: the
//             pairs of the confidence issue's table (occlusion at 640x480, stereo, rotation-zoom
//             at 512x512), as --study
//   --study: also rank by the candidates measured for the choice (computed here, outside the
//            library, from the returned flow; forward-backward solves the swapped pair too) and
//            print the table of docs/accuracy.md "Confidence", and the mask's trade-off at
//            several thresholds; checks nothing
//   --backend cuda with no CUDA device (or build): exit 77 (skipped)
#include "test_util.hpp"

#include "core/ref/kernels_ref.hpp"
#include "core/robust.hpp"
#include "core/synth_matrix.hpp"

#include <algorithm>
#include <numeric>
#include <string>

using namespace oftest;
using oflow::synth::Motion;
using oflow::synth::Photometry;

namespace {

typedef std::vector<float> V;

struct Case {
    const char* name;
    Motion motion;
    Photometry photometry;
    int w, h;
    int flat; // side of a flat square in the centre, 0: none
};

const Case kCases[] = {
    {"occlusion", Motion::Occlusion, Photometry::None, 320, 240, 0},
    {"stereo", Motion::Stereo, Photometry::None, 448, 256, 0},
    {"leaves-frame", Motion::Translation, Photometry::None, 384, 288, 0},
    {"exposure", Motion::Small, Photometry::GainNoise, 320, 240, 0},
    {"flat", Motion::RotationZoom, Photometry::None, 256, 256, 64},
};
const int kCaseCount = static_cast<int>(sizeof(kCases) / sizeof(kCases[0]));

// --cases issue: the pairs of the confidence issue's table (printed with the forward-backward
// check beside the library's confidence; no bounds).
const Case kIssueCases[] = {
    {"occlusion-640", Motion::Occlusion, Photometry::None, 640, 480, 0},
    {"stereo", Motion::Stereo, Photometry::None, 448, 256, 0},
    {"rotation-zoom", Motion::RotationZoom, Photometry::None, 512, 512, 0},
};

const of_algorithm kAlgos[] = {OF_ALGO_TVL1, OF_ALGO_HS, OF_ALGO_CLG, OF_ALGO_LK};
const char* const kAlgoNames[] = {"tvl1", "hs", "clg", "lk"};
const int kAlgoCount = 4;

// The bound on the gap between the areas (px), per case and algorithm (tvl1, hs, clg, lk): the
// largest measured gap of the paths x 1.3 + 0.02. Measured (2026-11-27), reference path x86-64:
//   occlusion     0.049 0.055 0.067 0.108
//   stereo        0.226 0.194 0.299 1.662
//   leaves-frame  0.012 0.057 0.047 0.084
//   exposure      0.033 0.061 0.054 0.045
//   flat          0.017 0.023 0.017 0.027
const double kBounds[5][4] = {
    {0.09, 0.09, 0.11, 0.16}, // occlusion
    {0.32, 0.28, 0.41, 2.20}, // stereo
    {0.04, 0.10, 0.09, 0.13}, // leaves-frame
    {0.07, 0.10, 0.09, 0.08}, // exposure
    {0.05, 0.05, 0.05, 0.06}, // flat
};

struct Options {
    of_backend backend = OF_BACKEND_AUTO;
    of_precision precision = OF_PRECISION_AUTO;
    bool qemu = false;
    bool issue = false;
    bool study = false;
    std::string only, algo; // --only CASE, --algo NAME: that case / algorithm alone
};

// The sparsification curve of a ranking: EPE of the most confident 50/80/90/100 % and the area
// (the mean over the most confident 5 %, 10 %, ..., 100 %). `score`: higher = ranked earlier.
struct Curve {
    double at[4];
    double area;
};

const double kFractions[4] = {0.5, 0.8, 0.9, 1.0};

Curve sparsify(const V& score, const std::vector<double>& epe) {
    const size_t n = epe.size();
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), size_t(0));
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return score[a] > score[b]; });
    std::vector<double> cum(n + 1, 0.0);
    for (size_t i = 0; i < n; ++i) cum[i + 1] = cum[i] + epe[idx[i]];
    Curve c;
    for (int k = 0; k < 4; ++k) {
        const size_t m = std::max<size_t>(1, static_cast<size_t>(kFractions[k] * static_cast<double>(n)));
        c.at[k] = cum[m] / static_cast<double>(m);
    }
    double a = 0.0;
    for (int s = 1; s <= 20; ++s) {
        const size_t m = std::max<size_t>(1, n * static_cast<size_t>(s) / 20);
        a += cum[m] / static_cast<double>(m);
    }
    c.area = a / 20.0;
    return c;
}

// One pair through the public API: the flow and, when `valid` is set, its validity plane in `vf`.
bool solve(const of_config& cfg, const V& i0, const V& i1, int w, int h, V* u, V* v, of_valid_format vf, void* valid,
           of_status* skipped) {
    of_context* ctx = nullptr;
    *skipped = OF_OK;
    const of_status cs = of_create(&cfg, &ctx);
    if (cs != OF_OK) {
        if (cs == OF_ERR_BACKEND_UNAVAILABLE) *skipped = cs;
        else std::fprintf(stderr, "of_create: %s (%s)\n", st(cs), of_last_error(nullptr));
        return false;
    }
    of_image a;
    std::memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.format = OF_PIXEL_F32;
    a.memory = OF_MEMORY_HOST;
    a.width = static_cast<uint32_t>(w);
    a.height = static_cast<uint32_t>(h);
    a.stride = static_cast<size_t>(w) * 4;
    a.data = i0.data();
    of_image b = a;
    b.data = i1.data();
    of_flow f;
    std::memset(&f, 0, sizeof f);
    f.struct_size = sizeof f;
    f.layout = OF_FLOW_PLANAR;
    f.memory = OF_MEMORY_HOST;
    f.width = a.width;
    f.height = a.height;
    f.stride = a.stride;
    f.u = u->data();
    f.v = v->data();
    f.valid_format = vf;
    f.valid = valid;
    f.valid_stride = vf == OF_VALID_MASK_U8 ? static_cast<size_t>(w) : static_cast<size_t>(w) * 4;
    const of_status s = of_process(ctx, &a, &b, &f);
    if (s != OF_OK) std::fprintf(stderr, "of_process: %s (%s)\n", st(s), of_last_error(ctx));
    of_destroy(ctx);
    return s == OF_OK;
}

// ---- the study's candidates (outside the library) -------------------------------------------

void normalise(V& img, int w, int h) {
    using namespace oflow;
    V mean(img.size()), tmp(img.size()), var(img.size());
    const Plane I{img.data(), w, h, w}, M{mean.data(), w, h, w}, T{tmp.data(), w, h, w}, Va{var.data(), w, h, w};
    const Gaussian1D g = make_gaussian(3.0f);
    blur_h_ref(I, T, g, 0, h);
    blur_v_ref(T, M, g, 0, h);
    robust_sq_ref(I, M, Va, 0, h);
    blur_h_ref(Va, T, g, 0, h);
    blur_v_ref(T, Va, g, 0, h);
    robust_combine_ref(I, M, Va, I, kRobustFloor, 0, h);
}

bool inside(int w, int h, float x, float y) {
    return x >= 0.0f && x <= static_cast<float>(w - 1) && y >= 0.0f && y <= static_cast<float>(h - 1);
}

float bilinear(const V& p, int w, int h, float x, float y) {
    const int ix = std::min(std::max(static_cast<int>(std::floor(x)), 0), w - 2);
    const int iy = std::min(std::max(static_cast<int>(std::floor(y)), 0), h - 2);
    const float fx = x - static_cast<float>(ix), fy = y - static_cast<float>(iy);
    const float* r0 = &p[static_cast<size_t>(iy) * static_cast<size_t>(w)];
    const float* r1 = r0 + w;
    const float t = r0[ix] + fx * (r0[ix + 1] - r0[ix]), b = r1[ix] + fx * (r1[ix + 1] - r1[ix]);
    return t + fy * (b - t);
}

V box_mean(const V& a, int w, int h, int r) {
    V t(a.size()), o(a.size());
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double s = 0.0;
            int n = 0;
            for (int k = -r; k <= r; ++k)
                if (x + k >= 0 && x + k < w) {
                    s += a[static_cast<size_t>(y) * w + x + k];
                    ++n;
                }
            t[static_cast<size_t>(y) * w + x] = static_cast<float>(s / n);
        }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double s = 0.0;
            int n = 0;
            for (int k = -r; k <= r; ++k)
                if (y + k >= 0 && y + k < h) {
                    s += t[static_cast<size_t>(y + k) * w + x];
                    ++n;
                }
            o[static_cast<size_t>(y) * w + x] = static_cast<float>(s / n);
        }
    return o;
}

// The candidates' scores (higher = more trustworthy: minus an error estimate), by name.
struct Scores {
    std::vector<std::string> names;
    std::vector<V> score;
    void add(const char* n, const V& err) {
        names.push_back(n);
        V s(err.size());
        for (size_t i = 0; i < err.size(); ++i) s[i] = -err[i];
        score.push_back(s);
    }
};

Scores candidates(const V& i0, const V& i1, int w, int h, const V& u, const V& v, const V& ub, const V& vb) {
    const size_t n = static_cast<size_t>(w) * static_cast<size_t>(h);
    V n0 = i0, n1 = i1;
    normalise(n0, w, h);
    normalise(n1, w, h);
    V res(n), negdiv(n), mult(n), out(n), fb(n), g2(n), count(n, 0.0f);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const size_t i = static_cast<size_t>(y) * w + x;
            const float xs = static_cast<float>(x) + u[i], ys = static_cast<float>(y) + v[i];
            if (!inside(w, h, xs, ys)) continue;
            const int ix = static_cast<int>(std::floor(xs)), iy = static_cast<int>(std::floor(ys));
            const float fx = xs - static_cast<float>(ix), fy = ys - static_cast<float>(iy);
            const auto add = [&](int xx, int yy, float wt) {
                if (xx >= 0 && xx < w && yy >= 0 && yy < h) count[static_cast<size_t>(yy) * w + xx] += wt;
            };
            add(ix, iy, (1 - fx) * (1 - fy));
            add(ix + 1, iy, fx * (1 - fy));
            add(ix, iy + 1, (1 - fx) * fy);
            add(ix + 1, iy + 1, fx * fy);
        }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const size_t i = static_cast<size_t>(y) * w + x;
            const float xs = static_cast<float>(x) + u[i], ys = static_cast<float>(y) + v[i];
            const bool in = inside(w, h, xs, ys);
            res[i] = in ? std::fabs(bilinear(n1, w, h, xs, ys) - n0[i]) : oflow::kPickOutside;
            const int xm = std::max(x - 1, 0), xp = std::min(x + 1, w - 1), ym = std::max(y - 1, 0), yp = std::min(y + 1, h - 1);
            const float div = (u[static_cast<size_t>(y) * w + xp] - u[static_cast<size_t>(y) * w + xm]) / static_cast<float>(std::max(1, xp - xm)) +
                              (v[static_cast<size_t>(yp) * w + x] - v[static_cast<size_t>(ym) * w + x]) / static_cast<float>(std::max(1, yp - ym));
            negdiv[i] = std::max(0.0f, -div);
            mult[i] = in ? bilinear(count, w, h, xs, ys) : 4.0f;
            out[i] = in ? 0.0f : 1.0f;
            fb[i] = in ? std::hypot(u[i] + bilinear(ub, w, h, xs, ys), v[i] + bilinear(vb, w, h, xs, ys)) : 1e3f;
            const float gx = 0.5f * (n0[static_cast<size_t>(y) * w + xp] - n0[static_cast<size_t>(y) * w + xm]);
            const float gy = 0.5f * (n0[static_cast<size_t>(yp) * w + x] - n0[static_cast<size_t>(ym) * w + x]);
            g2[i] = gx * gx + gy * gy;
        }
    const V res5 = box_mean(res, w, h, 2), g5 = box_mean(g2, w, h, 2), nd3 = box_mean(negdiv, w, h, 1);
    V flat(n), c1(n), c2(n), c3(n), c4(n), c5(n);
    for (size_t i = 0; i < n; ++i) {
        flat[i] = 1.0f / (1.0f + g5[i]);
        c1[i] = res5[i] * (1.0f + 2.0f * nd3[i]);
        c2[i] = res5[i] * std::max(1.0f, mult[i]);
        c3[i] = res5[i] + 5.0f * flat[i];
        c4[i] = res5[i] + 20.0f * flat[i];
        c5[i] = fb[i] + 0.2f * res5[i];
    }
    Scores s;
    s.add("residual", res);
    s.add("residual 5x5", res5);
    s.add("neg. divergence", negdiv);
    s.add("multiplicity", mult);
    s.add("out of frame", out);
    s.add("flat (5x5 grad)", flat);
    s.add("forward-backward", fb);
    s.add("res5 x (1+2 negdiv)", c1);
    s.add("res5 x multiplicity", c2);
    s.add("res5 + 5 flat", c3);
    s.add("res5 + 20 flat", c4);
    s.add("fb + 0.2 res5", c5);
    return s;
}

bool parse(int argc, char** argv, Options* o) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool has = i + 1 < argc;
        const std::string v = has ? argv[i + 1] : "";
        if (a == "--study") {
            o->study = true;
        } else if (a == "--backend" && has) {
            o->backend = v == "reference" ? OF_BACKEND_REFERENCE : v == "neon" ? OF_BACKEND_NEON
                         : v == "cuda"    ? OF_BACKEND_CUDA      : OF_BACKEND_AUTO;
            if (o->backend == OF_BACKEND_AUTO && v != "auto") return false;
            ++i;
        } else if (a == "--precision" && has) {
            if (v != "f32" && v != "f16") return false;
            o->precision = v == "f16" ? OF_PRECISION_F16 : OF_PRECISION_F32;
            ++i;
        } else if ((a == "--only" || a == "--algo") && has) {
            (a == "--only" ? o->only : o->algo) = v;
            ++i;
        } else if (a == "--cases" && has) {
            if (v != "all" && v != "qemu" && v != "issue") return false;
            o->qemu = v == "qemu";
            o->issue = v == "issue";
            o->study = o->study || o->issue;
            ++i;
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
        std::fprintf(stderr, "usage: confidence [--backend auto|reference|neon|cuda] [--precision f32|f16] "
                             "[--cases all|qemu] [--study]\n");
        return 2;
    }
    // Mask trade-off (study): per algorithm, pixels with EPE <= 1 px ("good") and above, and the
    // cut e of the error estimate (confidence 2^(-e / kConfHalf) >= 0.5 <=> e <= kConfHalf).
    const double kThresholds[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
    double good_kept[4][9] = {}, bad_cut[4][9] = {}, goods[4] = {}, bads[4] = {};
    int checked = 0;
    const int count = o.issue ? 3 : kCaseCount;
    for (int ci = 0; ci < count; ++ci) {
        const Case& cs = o.issue ? kIssueCases[ci] : kCases[ci];
        if (o.qemu && cs.motion != Motion::Occlusion && cs.flat == 0) continue;
        // (the emulator: occlusion with TV-L1, flat with HS)
        if (!o.only.empty() && o.only != cs.name) continue;
        const int w = cs.w, h = cs.h;
        const size_t n = static_cast<size_t>(w) * static_cast<size_t>(h);
        V i0(n), i1(n), gu(n), gv(n);
        oflow::synth::generate_cell(cs.motion, cs.photometry, w, h, 1u, i0.data(), i1.data(), gu.data(), gv.data(), w);
        for (int y = h / 2 - cs.flat / 2; y < h / 2 + cs.flat / 2; ++y)
            for (int x = w / 2 - cs.flat / 2; x < w / 2 + cs.flat / 2; ++x) {
                i0[static_cast<size_t>(y) * w + x] = 128.0f;
                i1[static_cast<size_t>(y) * w + x] = 128.0f;
            }
        for (int ai = 0; ai < kAlgoCount; ++ai) {
            if (o.qemu && kAlgos[ai] != (cs.flat ? OF_ALGO_HS : OF_ALGO_TVL1)) continue;
            if (!o.algo.empty() && o.algo != kAlgoNames[ai]) continue;
            of_config cfg = algo_config(kAlgos[ai], static_cast<uint32_t>(w), static_cast<uint32_t>(h));
            cfg.format = OF_PIXEL_F32;
            cfg.backend = o.backend;
            cfg.precision = o.precision;
            cfg.threads = 2;
            V u(n), v(n), conf(n);
            std::vector<unsigned char> mask(n, 7);
            of_status skipped = OF_OK;
            if (!solve(cfg, i0, i1, w, h, &u, &v, OF_VALID_CONFIDENCE_F32, conf.data(), &skipped)) {
                if (skipped == OF_ERR_BACKEND_UNAVAILABLE) {
                    std::printf("confidence: backend unavailable: skipped\n");
                    return 77;
                }
                return 1;
            }
            // The mask: a second solve (the emulator skips it: the mask's code is shared by the CPU
            // paths and checked on the host).
            V u2 = u, v2 = v;
            if (!o.qemu) CHECK(solve(cfg, i0, i1, w, h, &u2, &v2, OF_VALID_MASK_U8, mask.data(), &skipped));
            std::vector<double> epe(n);
            V oracle(n);
            for (size_t i = 0; i < n; ++i) {
                epe[i] = std::hypot(static_cast<double>(u[i] - gu[i]), static_cast<double>(v[i] - gv[i]));
                oracle[i] = -static_cast<float>(epe[i]);
            }
            const Curve lib = sparsify(conf, epe), best = sparsify(oracle, epe);
            const double gap = lib.area - best.area;
            std::printf("%-13s %-4s library  EPE@50 %.3f @80 %.3f @90 %.3f @100 %.3f  area %.3f | perfect @90 %.3f area %.3f | "
                        "gap %.3f (bound %.2f)\n",
                        cs.name, kAlgoNames[ai], lib.at[0], lib.at[1], lib.at[2], lib.at[3], lib.area, best.at[2], best.area,
                        gap, o.issue ? 0.0 : kBounds[ci][ai]);
            std::fflush(stdout);
            bool range = true, agree = true;
            size_t mismatched = 0;
            for (size_t i = 0; i < n; ++i) {
                range = range && conf[i] >= 0.0f && conf[i] <= 1.0f;
                // The two solves are the same computation: the same flow, the same confidence.
                const bool want = conf[i] >= cfg.min_confidence;
                if (!o.qemu && ((mask[i] == 255) != want || (mask[i] != 255 && mask[i] != 0))) ++mismatched;
            }
            agree = mismatched == 0 && u == u2 && v == v2;
            if (!o.study) {
                ++checked;
                CHECK_MSG(range, "%s %s: a confidence outside [0, 1]", cs.name, kAlgoNames[ai]);
                CHECK_MSG(agree, "%s %s: the mask differs from confidence >= %g at %zu pixels (or the flows differ)", cs.name,
                          kAlgoNames[ai], static_cast<double>(cfg.min_confidence), mismatched);
                CHECK_MSG(gap <= kBounds[ci][ai], "%s %s: sparsification gap %.3f > %.2f", cs.name, kAlgoNames[ai], gap,
                          kBounds[ci][ai]);
                if (lib.at[3] > 0.05)
                    CHECK_MSG(lib.at[2] < lib.at[3], "%s %s: EPE of the most confident 90 %% %.3f not below all pixels' %.3f",
                              cs.name, kAlgoNames[ai], lib.at[2], lib.at[3]);
                continue;
            }
            for (size_t i = 0; i < n; ++i) {
                const bool good = epe[i] <= 1.0;
                (good ? goods : bads)[ai] += 1.0;
                for (int t = 0; t < 9; ++t) {
                    const bool kept = conf[i] >= kThresholds[t];
                    if (good && kept) good_kept[ai][t] += 1.0;
                    if (!good && !kept) bad_cut[ai][t] += 1.0;
                }
            }
            V ub(n), vb(n);
            CHECK(solve(cfg, i1, i0, w, h, &ub, &vb, OF_VALID_NONE, nullptr, &skipped));
            const Scores sc = candidates(i0, i1, w, h, u, v, ub, vb);
            for (size_t k = 0; k < sc.names.size(); ++k) {
                const Curve c = sparsify(sc.score[k], epe);
                std::printf("%-13s %-4s %-20s EPE@50 %.3f @80 %.3f @90 %.3f @100 %.3f  area %.3f  gap %.3f\n", cs.name,
                            kAlgoNames[ai], sc.names[k].c_str(), c.at[0], c.at[1], c.at[2], c.at[3], c.area, c.area - best.area);
            }
            std::fflush(stdout);
        }
    }
    if (o.study) {
        std::printf("\nmask trade-off over the cases: share of good pixels (EPE <= 1 px) kept / of bad ones cut, per threshold\n");
        for (int ai = 0; ai < kAlgoCount; ++ai) {
            std::printf("%-4s", kAlgoNames[ai]);
            for (int t = 0; t < 9; ++t)
                std::printf("  %.1f: %.2f/%.2f", kThresholds[t], good_kept[ai][t] / std::max(goods[ai], 1.0),
                            bad_cut[ai][t] / std::max(bads[ai], 1.0));
            std::printf("\n");
        }
        return 0;
    }
    CHECK_MSG(checked > 0, "no case ran");
    return oftest::finish("confidence");
}
