// of_selftest: whether this build works on this board, fast enough (api/oflow.h).
//
// For every available backend x precision ("path"), on built-in frames with known flow
// (core/synth.hpp), no files needed:
//   kernel      CPU paths: every stage of the context's kernel table (selftest_kernels.cpp);
//   parity      NEON and CUDA: the whole flow against the reference path's (F32: max |d| <=
//               1e-3 px; F16: EPE <= 1.03 x the reference's + 0.01);
//   accuracy    seven cases on synthetic frames (translation, rotation-zoom, smooth field,
//               occlusion, noise + gain, camera motion, an exposure change), EPE against
//               the ground truth, bounded per case; the validity mask on occluding layers
//               (most occluded pixels invalid, most visible ones valid; TV-L1 here, HS and
//               CLG in hs_selftest.cpp, not LK);
//   arena       a caller arena of exactly of_query_memory's bytes works and one byte less is
//               refused; no heap growth over frames (glibc mallinfo), no device memory taken
//               by frames (cudaMemGetInfo);
//   determinism the same frame twice gives the same bits; CPU: 1 and 3 threads agree bitwise;
//   timing      inner-loop ns per iteration per pixel against the board table's figure: warn
//               past its warn factor, fail past its fail factor;
//   device      (CUDA) a device is present, this build covers its compute capability, and it
//               has the memory the self-test's contexts need.
// Quick: small frames (under 5 s on a Nano-class board); full: larger frames, more iterations.
#include "core/selftest.hpp"

#include "core/algorithm.hpp"

#include "core/context.hpp"
#include "core/enum_raw.hpp"
#include "core/select.hpp"
#include "core/status.hpp"
#include "core/synth.hpp"
#include "core/synth_matrix.hpp"

#if OF_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#include "cuda/cuda_bench.hpp"
#endif

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace oflow {
namespace selftest {

void Sink::add_v(const char* name, const char* group, of_backend b, of_precision pr, of_check_result res, double value,
                 double limit, double seconds, const char* fmt, va_list ap) {
    switch (res) {
    case OF_CHECK_PASS: ++r_->passed; break;
    case OF_CHECK_WARN: ++r_->warned; break;
    case OF_CHECK_FAIL: ++r_->failed; break;
    default: ++r_->skipped; break;
    }
    const uint32_t i = r_->case_count++;
    if (i >= r_->case_capacity || !r_->cases) return;
    of_selftest_case& c = r_->cases[i];
    std::memset(&c, 0, sizeof c);
    std::snprintf(c.name, sizeof c.name, "%s", name);
    std::snprintf(c.group, sizeof c.group, "%s", group);
    c.backend = b;
    c.precision = pr;
    c.result = res;
    c.value = value;
    c.limit = limit;
    c.seconds = seconds;
    std::vsnprintf(c.message, sizeof c.message, fmt, ap);
}

void Sink::set_board(const char* board) {
    if (!r_->board[0]) std::snprintf(r_->board, sizeof r_->board, "%s", board);
}

void Sink::add(const Path& p, const char* group, const char* check, of_check_result res, double value, double limit,
               double seconds, const char* fmt, ...) {
    char name[64];
    std::snprintf(name, sizeof name, "%s/%s/%s", p.name, group, check);
    va_list ap;
    va_start(ap, fmt);
    add_v(name, group, p.backend, p.precision, res, value, limit, seconds, fmt, ap);
    va_end(ap);
}

void Sink::add_named(const char* name, const char* group, of_backend b, of_precision pr, of_check_result res, double value,
                     double limit, double seconds, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    add_v(name, group, b, pr, res, value, limit, seconds, fmt, ap);
    va_end(ap);
}

// ---- flow helpers shared with the algorithms' self-test cases (selftest.hpp) ----
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

const char* backend_label(of_backend b) {
    switch (b) {
    case OF_BACKEND_NEON: return "neon";
    case OF_BACKEND_CUDA: return "cuda";
    default: return "reference";
    }
}

namespace {
// A pair of w x h planes, zero, for a generator to fill.
Pair blank_pair(int w, int h) {
    Pair p;
    p.w = w;
    p.h = h;
    const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    p.i0.resize(n);
    p.i1.resize(n);
    p.gu.resize(n);
    p.gv.resize(n);
    return p;
}
} // namespace

Pair make_pair(synth::Case c, int w, int h, const synth::Exposure& e) {
    Pair p = blank_pair(w, h);
    synth::generate_with(c, synth::Texture::Default, e, w, h, 7u, p.i0.data(), p.i1.data(), p.gu.data(), p.gv.data(),
                         w);
    return p;
}


static of_image image_of(const std::vector<float>& px, int w, int h) {
    of_image im;
    std::memset(&im, 0, sizeof im);
    im.struct_size = sizeof im;
    im.format = OF_PIXEL_F32;
    im.memory = OF_MEMORY_HOST;
    im.width = static_cast<uint32_t>(w);
    im.height = static_cast<uint32_t>(h);
    im.stride = static_cast<std::size_t>(w) * sizeof(float);
    im.data = px.data();
    return im;
}
static of_flow flow_of(Flow* f, int w, int h) {
    const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    f->u.assign(n, 0.0f);
    f->v.assign(n, 0.0f);
    f->valid.assign(n, 0);
    of_flow o;
    std::memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.layout = OF_FLOW_PLANAR;
    o.memory = OF_MEMORY_HOST;
    o.width = static_cast<uint32_t>(w);
    o.height = static_cast<uint32_t>(h);
    o.stride = static_cast<std::size_t>(w) * sizeof(float);
    o.u = f->u.data();
    o.v = f->v.data();
    o.valid_format = OF_VALID_MASK_U8;
    o.valid_stride = static_cast<std::size_t>(w);
    o.valid = f->valid.data();
    return o;
}

// One frame pair through a fresh context. why: the message when it fails.
of_status run_flow(const of_config& cfg, const Pair& p, Flow* out, char* why, std::size_t why_len) {
    of_context* ctx = nullptr;
    of_status s = of_create(&cfg, &ctx);
    if (s != OF_OK) {
        std::snprintf(why, why_len, "of_create: %s", of_last_error(nullptr));
        return s;
    }
    const of_image a = image_of(p.i0, p.w, p.h), b = image_of(p.i1, p.w, p.h);
    of_flow f = flow_of(out, p.w, p.h);
    s = of_process(ctx, &a, &b, &f);
    if (s != OF_OK) std::snprintf(why, why_len, "of_process: %s", of_last_error(ctx));
    of_destroy(ctx);
    return s;
}

double epe(const Flow& f, const std::vector<float>& gu, const std::vector<float>& gv) {
    double sum = 0.0;
    for (std::size_t i = 0; i < f.u.size(); ++i) {
        const double du = static_cast<double>(f.u[i]) - gu[i], dv = static_cast<double>(f.v[i]) - gv[i];
        sum += std::sqrt(du * du + dv * dv);
    }
    return f.u.empty() ? 0.0 : sum / static_cast<double>(f.u.size());
}
double max_delta(const Flow& a, const Flow& b) {
    double m = 0.0;
    for (std::size_t i = 0; i < a.u.size(); ++i) {
        const double d = std::fmax(std::fabs(static_cast<double>(a.u[i]) - b.u[i]), std::fabs(static_cast<double>(a.v[i]) - b.v[i]));
        if (!(d <= m)) m = d;
    }
    return m;
}
bool same_bits(const Flow& a, const Flow& b) {
    return a.u.size() == b.u.size() && std::memcmp(a.u.data(), b.u.data(), a.u.size() * sizeof(float)) == 0 &&
           std::memcmp(a.v.data(), b.v.data(), a.v.size() * sizeof(float)) == 0;
}

// ---- confidence against occlusions, every algorithm but LK ----------------------------------
// The accuracy matrix's occlusion (core/synth_matrix.hpp, seed 7): a background (blocks texture)
// moving (6.3, 2.7) px behind a rectangle moving (-13.6, 9.4) px. The generator keeps an occluded
// pixel's own layer's gt, so the classes come from the gt: the background is the gt of pixel
// (0, 0) (the rectangle stays inside the frame), the rectangle any other gt. A background pixel x
// is occluded when the frame-1 point x + gt_bg is covered by the rectangle, i.e. when the
// frame-0 point x + gt_bg - gt_fg lies in the rectangle: all four pixels around that point are
// rectangle pixels (none of them: visible; some: on the rectangle's edge, not counted). Pixels
// whose target leaves the frame are not counted either (the confidence marks them too, but they
// are not occlusions), nor, being never occluded, do rectangle pixels count as occluded: they
// are visible.
//
// Bounds: measured on the reference path (x86-64, gcc 12; core/confidence.hpp with kConfHalf 5),
// quick (96x72) / full (160x120), occluded pixels invalid / visible pixels valid: TV-L1 91.9 % /
// 95.9 %, 79.9 % / 85.7 %; HS 79.4 % / 90.7 %, 83.1 % / 87.1 %; CLG 86.7 % / 95.4 %, 81.9 % /
// 86.3 % (with kConfHalf 3 the first shares were 95.5..100 %, the second 68.5..80.3 %: the
// bounds hold for both). The NEON path (F32, under qemu, kConfHalf 3) gave the same shares. The
// visible pixels called invalid are mostly where the flow is wrong (around the rectangle at
// these sizes, kConfHalf 3: their EPE 6.6..10.7 px, the valid ones' 0.04..0.45 px), so the second
// share follows the solve's accuracy. Each bound is about the lowest measured share less a quarter.
namespace {
const double kOccludedInvalidMin = 0.60;                    // quick and full
const double kVisibleValidMinQuick = 0.50, kVisibleValidMinFull = 0.60;
enum : unsigned char { kVisible = 0, kOccluded = 1, kUncounted = 2 };

std::vector<unsigned char> occlusion_classes(const Pair& p) {
    const float bu = p.gu[0], bv = p.gv[0];
    float fu = bu, fv = bv;
    for (std::size_t i = 0; i < p.gu.size(); ++i)
        if (p.gu[i] != bu || p.gv[i] != bv) {
            fu = p.gu[i];
            fv = p.gv[i];
            break;
        }
    auto front = [&](int x, int y) {
        if (x < 0 || y < 0 || x >= p.w || y >= p.h) return false;
        const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(p.w) + static_cast<std::size_t>(x);
        return p.gu[i] != bu || p.gv[i] != bv;
    };
    std::vector<unsigned char> cls(p.gu.size(), kVisible);
    for (int y = 0; y < p.h; ++y)
        for (int x = 0; x < p.w; ++x) {
            if (front(x, y)) continue;
            unsigned char& c = cls[static_cast<std::size_t>(y) * static_cast<std::size_t>(p.w) + static_cast<std::size_t>(x)];
            const double tx = x + static_cast<double>(bu), ty = y + static_cast<double>(bv);
            if (tx < 0.0 || ty < 0.0 || tx > p.w - 1 || ty > p.h - 1) {
                c = kUncounted;
                continue;
            }
            const double sx = tx - static_cast<double>(fu), sy = ty - static_cast<double>(fv);
            const int x0 = static_cast<int>(std::floor(sx)), y0 = static_cast<int>(std::floor(sy));
            const int k = front(x0, y0) + front(x0 + 1, y0) + front(x0, y0 + 1) + front(x0 + 1, y0 + 1);
            c = k == 4 ? kOccluded : (k == 0 ? kVisible : kUncounted);
        }
    return cls;
}
} // namespace

void check_occlusion_confidence(Sink* sink, const Path& p, const char* group, const char* check, of_config cfg,
                                bool full) {
    const Clock::time_point t0 = Clock::now();
    const int w = full ? 160 : 96, h = full ? 120 : 72;
    const double visible_min = full ? kVisibleValidMinFull : kVisibleValidMinQuick;
    Pair pr = blank_pair(w, h);
    synth::generate_cell(synth::Motion::Occlusion, synth::Photometry::None, w, h, 7u, pr.i0.data(), pr.i1.data(),
                         pr.gu.data(), pr.gv.data(), w);
    cfg.max_width = static_cast<uint32_t>(w);
    cfg.max_height = static_cast<uint32_t>(h);
    Flow f;
    char why[320];
    if (run_flow(cfg, pr, &f, why, sizeof why) != OF_OK) {
        sink->add(p, group, check, OF_CHECK_FAIL, 0.0, kOccludedInvalidMin, since(t0), "%s", why);
        return;
    }
    const std::vector<unsigned char> cls = occlusion_classes(pr);
    std::size_t occluded = 0, occluded_invalid = 0, visible = 0, visible_valid = 0;
    for (std::size_t i = 0; i < cls.size(); ++i) {
        if (cls[i] == kOccluded) {
            ++occluded;
            occluded_invalid += f.valid[i] != 255;
        } else if (cls[i] == kVisible) {
            ++visible;
            visible_valid += f.valid[i] == 255;
        }
    }
    const double inv = occluded ? static_cast<double>(occluded_invalid) / static_cast<double>(occluded) : 0.0;
    const double val = visible ? static_cast<double>(visible_valid) / static_cast<double>(visible) : 0.0;
    const bool ok = occluded > 0 && inv >= kOccludedInvalidMin && val >= visible_min;
    sink->add(p, group, check, ok ? OF_CHECK_PASS : OF_CHECK_FAIL, inv, kOccludedInvalidMin, since(t0),
              "occlusion %dx%d, mask at %g: %.1f%% of %zu occluded px invalid (want >= %.0f%%), %.1f%% of %zu "
              "visible valid (want >= %.0f%%)",
              w, h, static_cast<double>(cfg.min_confidence), 100.0 * inv, occluded, 100.0 * kOccludedInvalidMin,
              100.0 * val, visible, 100.0 * visible_min);
}

// ---- device health (CUDA, once) --------------------------------------------------------------
namespace {

struct Options {
    bool full;
    uint32_t threads;
    uint32_t threads_given; // of_selftest_options.threads as given (0: default)
    const char* platform;
};

of_config base_config(const Path& p, const Options& o, int w, int h) {
    of_config c;
    of_config_init(&c, OF_ALGO_TVL1);
    c.max_width = static_cast<uint32_t>(w);
    c.max_height = static_cast<uint32_t>(h);
    c.format = OF_PIXEL_F32;
    c.backend = p.backend;
    c.precision = p.precision;
    c.threads = o.threads;
    c.levels = 0;
    c.warps = 5;
    c.iterations = o.full ? 100 : 50;
    c.epsilon = 0.01f;
    // One solve a pair: the checks compare a path with the reference and the kernels' results
    // with their bounds. The default, OF_ROBUST_PICK, chooses among three (TV-L1: four) solves by a
    // judge whose choice may differ between paths where two candidates score alike, which would read as a
    // parity failure. Pick's own checks are the suite's (tests/robust_pick, tests/robust_matrix,
    // tests/gpu/gpu_robust_pick).
    c.robust = OF_ROBUST_LOCAL_NORM;
    return c;
}

bool check_device(Sink* sink, const Options& o) {
#if OF_HAVE_CUDA
    const Clock::time_point t0 = Clock::now();
    char why[160] = {0};
    if (!cuda::available(why, sizeof why)) {
        sink->add_named("cuda/device/present", "device", OF_BACKEND_CUDA, OF_PRECISION_F32, OF_CHECK_SKIP, 0.0, 0.0, since(t0),
                        "no usable CUDA device: %s", why);
        return false;
    }
    sink->add_named("cuda/device/present", "device", OF_BACKEND_CUDA, OF_PRECISION_F32, OF_CHECK_PASS, 1.0, 1.0, since(t0),
                    "device present and covered by this build's architectures");
    std::size_t free_b = 0, total_b = 0;
    const int big = o.full ? 1024 : 512;
    of_config c;
    of_config_init(&c, OF_ALGO_TVL1);
    c.max_width = c.max_height = static_cast<uint32_t>(big);
    c.backend = OF_BACKEND_CUDA;
    c.format = OF_PIXEL_F32;
    of_memory need;
    need.struct_size = sizeof need;
    const bool q = of_query_memory(&c, &need) == OF_OK;
    const bool m = cuda::memory_info(&free_b, &total_b);
    const bool ok = q && m && free_b >= need.device_bytes;
    sink->add_named("cuda/device/memory", "device", OF_BACKEND_CUDA, OF_PRECISION_F32, ok ? OF_CHECK_PASS : OF_CHECK_FAIL,
                    static_cast<double>(free_b), static_cast<double>(need.device_bytes), since(t0),
                    "%.1f MiB free of %.1f MiB; a %dx%d context needs %.1f MiB", static_cast<double>(free_b) / 1048576.0,
                    static_cast<double>(total_b) / 1048576.0, big, big, static_cast<double>(need.device_bytes) / 1048576.0);
    return ok;
#else
    (void)o;
    sink->add_named("cuda/device/present", "device", OF_BACKEND_CUDA, OF_PRECISION_F32, OF_CHECK_SKIP, 0.0, 0.0, 0.0,
                    "this build has no CUDA backend");
    return false;
#endif
}

// ---- kernels (CPU paths) -------------------------------------------------------------------
void check_kernel_table(Sink* sink, const Path& p, const Options& o) {
    of_config c = base_config(p, o, 64, 48);
    of_context* ctx = nullptr;
    if (of_create(&c, &ctx) != OF_OK) {
        sink->add(p, "kernel", "create", OF_CHECK_FAIL, 0.0, 0.0, 0.0, "of_create: %s", of_last_error(nullptr));
        return;
    }
    check_kernels(sink, p, ctx->kt);
    of_destroy(ctx);
}

// ---- parity with the reference path --------------------------------------------------------
void check_parity(Sink* sink, const Path& p, const Options& o) {
    const Clock::time_point t0 = Clock::now();
    const Pair pr = make_pair(synth::Case::SmoothField, o.full ? 160 : 96, o.full ? 120 : 64);
    of_config c = base_config(p, o, pr.w, pr.h);
    c.warps = 3;
    c.iterations = 30;
    c.epsilon = 0.0f;
    of_config r = c;
    r.backend = OF_BACKEND_REFERENCE;
    r.precision = OF_PRECISION_F32;
    Flow fp, fr;
    char why[320];
    if (run_flow(c, pr, &fp, why, sizeof why) != OF_OK || run_flow(r, pr, &fr, why, sizeof why) != OF_OK) {
        sink->add(p, "parity", "smooth-field", OF_CHECK_FAIL, 0.0, 0.0, since(t0), "%s", why);
        return;
    }
    if (p.precision == OF_PRECISION_F32) {
        const double d = max_delta(fp, fr);
        sink->add(p, "parity", "smooth-field", d <= 1e-3 ? OF_CHECK_PASS : OF_CHECK_FAIL, d, 1e-3, since(t0),
                  "%dx%d, 3 warps x 30 iterations: max |flow - reference| %.3g px", pr.w, pr.h, d);
    } else {
        const double e = epe(fp, pr.gu, pr.gv), er = epe(fr, pr.gu, pr.gv), bound = 1.03 * er + 0.01;
        sink->add(p, "parity", "smooth-field", e <= bound ? OF_CHECK_PASS : OF_CHECK_FAIL, e, bound, since(t0),
                  "%dx%d: EPE %.4f vs reference F32 %.4f (bound 1.03 x + 0.01)", pr.w, pr.h, e, er);
    }
}

// ---- accuracy --------------------------------------------------------------------------------
// EPE bounds per case: what the reference path reaches with the library's defaults but robust
// local-norm (base_config: one solve; median 5) plus about 30 % (x86-64, seed 7). "exposure" is smooth-field with
// frame 1 = 0.9 I + 15 + N(0, 2): the illumination-robust preprocessing must hold it near the
// unchanged pair. Measured quick (96x72 x 50) / full (160x120 x 100): translation 0.0350 /
// 0.0256, rotation-zoom 0.1296 / 0.0963, smooth-field 0.0590 / 0.0463, occlusion 0.2439 / 0.1212,
// noise-gain 0.0417 / 0.0328, camera-motion 0.0602 / 0.0352, exposure 0.0693 / 0.0628.
struct Bound {
    synth::Case c;
    const char* name;
    synth::Exposure e;
    double quick, full;
};
synth::Exposure exposure(double gain, double offset, double sigma) {
    synth::Exposure e;
    e.gain = gain;
    e.offset = offset;
    e.noise_sigma = sigma;
    return e;
}
const Bound kAccuracy[] = {
    {synth::Case::Translation, "translation", exposure(1, 0, 0), 0.046, 0.034},
    {synth::Case::RotationZoom, "rotation-zoom", exposure(1, 0, 0), 0.17, 0.125},
    {synth::Case::SmoothField, "smooth-field", exposure(1, 0, 0), 0.077, 0.060},
    {synth::Case::Occlusion, "occlusion", exposure(1, 0, 0), 0.32, 0.16},
    {synth::Case::NoiseGain, "noise-gain", exposure(1, 0, 0), 0.055, 0.043},
    {synth::Case::CameraMotion, "camera-motion", exposure(1, 0, 0), 0.078, 0.046},
    {synth::Case::SmoothField, "exposure", exposure(0.9, 15, 2), 0.090, 0.082},
};

void check_accuracy(Sink* sink, const Path& p, const Options& o) {
    const int w = o.full ? 160 : 96, h = o.full ? 120 : 72;
    for (const Bound& b : kAccuracy) {
        const Clock::time_point t0 = Clock::now();
        const Pair pr = make_pair(b.c, w, h, b.e);
        Flow f;
        char why[320];
        const of_config c = base_config(p, o, w, h);
        const double bound = (o.full ? b.full : b.quick) * (p.precision == OF_PRECISION_F16 ? 1.03 : 1.0) +
                             (p.precision == OF_PRECISION_F16 ? 0.01 : 0.0);
        if (run_flow(c, pr, &f, why, sizeof why) != OF_OK) {
            sink->add(p, "accuracy", b.name, OF_CHECK_FAIL, 0.0, bound, since(t0), "%s", why);
            continue;
        }
        const double e = epe(f, pr.gu, pr.gv);
        sink->add(p, "accuracy", b.name, e <= bound ? OF_CHECK_PASS : OF_CHECK_FAIL, e, bound, since(t0),
                  "%dx%d, auto levels, 5 warps x %u iterations: EPE %.4f (bound %.4f)", w, h, c.iterations, e, bound);
    }
}

// ---- confidence (TV-L1; HS and CLG: hs_selftest.cpp) ----------------------------------------
// of_flow.valid on the occluding layers (check_occlusion_confidence above), base_config's schedule
// and robust local-norm (one solve) at the mask's default threshold. LK has no such case: its
// confidence is its eigenvalue rule (texture), which does not target occlusions (lk_selftest.cpp
// checks that rule on a textureless half instead).
void check_confidence(Sink* sink, const Path& p, const Options& o) {
    const int w = o.full ? 160 : 96, h = o.full ? 120 : 72;
    check_occlusion_confidence(sink, p, "accuracy", "occlusion-confidence", base_config(p, o, w, h), o.full);
}

// ---- large motion, every algorithm ---------------------------------------------------------
// The accuracy matrix's translation (core/synth_matrix.hpp: (26.4, -15.3) px, 30.5 px, blocks
// texture) at its native 384x288 (5 levels: 1.9 px at the coarsest), each algorithm's defaults
// but robust OF_ROBUST_LEVEL_NORM (the mode that keeps the coarse levels' signal: LOCAL_NORM
// loses this motion, 13-29 px off; docs/accuracy.md section 13; one solve, as base_config) and a shorter
// schedule. Quick and full alike: a smaller frame has fewer levels and leaves 3.8 px to its
// coarsest, which HS and CLG do not find. Bounds: the reference path's EPE (x86-64, gcc 12,
// seed 7: TV-L1 0.0349, HS 1.35, CLG 0.932, LK 0.186, DIS 0.645) plus about 30 %; F16 x 1.03 + 0.01.
struct LargeMotion {
    of_algorithm a;
    const char* group;
    double bound;
};
const LargeMotion kLargeMotion[] = {
    {OF_ALGO_TVL1, "accuracy", 0.046},
    {OF_ALGO_HS, "hs", 1.76},
    {OF_ALGO_CLG, "clg", 1.22},
    {OF_ALGO_LK, "lk", 0.24},
    {OF_ALGO_DIS, "dis", 0.84}, // measured 0.6446 (DIS defaults, MEDIUM); 0.4645 since its LEVEL_NORM's fine levels
};

void check_large_motion(Sink* sink, const Path& p, const Options& o) {
    const int w = 384, h = 288;
    Pair pr = blank_pair(w, h);
    synth::generate_cell(synth::Motion::Translation, synth::Photometry::None, w, h, 7u, pr.i0.data(), pr.i1.data(),
                         pr.gu.data(), pr.gv.data(), w);
    for (const LargeMotion& m : kLargeMotion) {
        const Algorithm* a = find_algorithm(m.a);
        if (!a || (p.backend == OF_BACKEND_CUDA && !a->gpu_path) ||
            (p.precision == OF_PRECISION_F16 && p.backend != OF_BACKEND_CUDA && !a->cpu_f16))
            continue;
        const Clock::time_point t0 = Clock::now();
        of_config c = path_config(p, m.a, w, h, o.threads);
        c.robust = OF_ROBUST_LEVEL_NORM;
        if (m.a == OF_ALGO_TVL1) c.iterations = o.full ? 100 : 50;
        if (m.a == OF_ALGO_HS || m.a == OF_ALGO_CLG) {
            c.warps = 3;
            c.iterations = 150;
        }
        const bool f16 = p.precision == OF_PRECISION_F16;
        const double bound = m.bound * (f16 ? 1.03 : 1.0) + (f16 ? 0.01 : 0.0);
        Flow f;
        char why[320];
        if (run_flow(c, pr, &f, why, sizeof why) != OF_OK) {
            sink->add(p, m.group, "large-motion", OF_CHECK_FAIL, 0.0, bound, since(t0), "%s", why);
            continue;
        }
        const double e = epe(f, pr.gu, pr.gv);
        if (m.a == OF_ALGO_DIS)
            sink->add(p, m.group, "large-motion", e <= bound ? OF_CHECK_PASS : OF_CHECK_FAIL, e, bound, since(t0),
                      "dis, translation (26.4, -15.3) px at %dx%d, robust level-norm, MEDIUM (%u steps per patch): EPE "
                      "%.4f (bound %.4f)",
                      w, h, c.dis.iterations, e, bound);
        else
            sink->add(p, m.group, "large-motion", e <= bound ? OF_CHECK_PASS : OF_CHECK_FAIL, e, bound, since(t0),
                      "%s, translation (26.4, -15.3) px at %dx%d, robust level-norm, %u warps x %u iterations: EPE %.4f "
                      "(bound %.4f)",
                      a->name, w, h, c.warps, c.iterations, e, bound);
    }
}

// ---- arena -----------------------------------------------------------------------------------
std::size_t heap_in_use() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
#elif defined(__GLIBC__)
    const struct mallinfo m = mallinfo();
    return static_cast<std::size_t>(static_cast<unsigned>(m.uordblks)) + static_cast<std::size_t>(static_cast<unsigned>(m.hblkhd));
#else
    return 0;
#endif
}

void check_arena(Sink* sink, const Path& p, const Options& o) {
    const Clock::time_point t0 = Clock::now();
    const Pair pr = make_pair(synth::Case::Translation, 80, 60);
    of_config c = base_config(p, o, pr.w, pr.h);
    c.iterations = 10;
    of_memory need;
    std::memset(&need, 0, sizeof need);
    need.struct_size = sizeof need;
    if (of_query_memory(&c, &need) != OF_OK) {
        sink->add(p, "arena", "query_equals_use", OF_CHECK_FAIL, 0.0, 0.0, since(t0), "of_query_memory: %s", of_last_error(nullptr));
        return;
    }
    // The caller's arena: exactly the queried bytes (aligned), then one byte less.
    std::vector<unsigned char> store(need.host_bytes + need.host_alignment);
    unsigned char* base = store.data();
    const std::size_t mis = reinterpret_cast<std::uintptr_t>(base) % need.host_alignment;
    if (mis) base += need.host_alignment - mis;
    of_config exact = c;
    exact.host_arena = base;
    exact.host_arena_size = need.host_bytes;
    of_context* ctx = nullptr;
    if (of_create(&exact, &ctx) != OF_OK) {
        sink->add(p, "arena", "query_equals_use", OF_CHECK_FAIL, static_cast<double>(need.host_bytes), 0.0, since(t0),
                  "of_create with the %zu queried bytes: %s", need.host_bytes, of_last_error(nullptr));
        return;
    }
    // Frames: no heap growth (glibc's count; transient allocations are the CTest no_alloc test's
    // business) and, on CUDA, no device memory taken.
    const of_image a = image_of(pr.i0, pr.w, pr.h), b = image_of(pr.i1, pr.w, pr.h);
    Flow f;
    of_flow out = flow_of(&f, pr.w, pr.h);
    of_status s = of_process(ctx, &a, &b, &out); // warm: first frame
    // Device memory is shared with every other process on the GPU, so a change of the free
    // amount is re-measured: a frame that allocates shows every time, a neighbour rarely does.
    std::size_t heap0 = 0, heap1 = 0;
    bool dev_same = true;
    for (int attempt = 0; attempt < 3; ++attempt) {
        heap0 = heap_in_use();
#if OF_HAVE_CUDA
        std::size_t free0 = 0, free1 = 0, total = 0;
        const bool dev = p.backend == OF_BACKEND_CUDA && cuda::memory_info(&free0, &total);
#endif
        for (int k = 0; k < 3 && s == OF_OK; ++k) s = of_process(ctx, &a, &b, &out);
        heap1 = heap_in_use();
#if OF_HAVE_CUDA
        if (dev) dev_same = cuda::memory_info(&free1, &total) && free1 == free0;
#endif
        if (dev_same || s != OF_OK) break;
    }
    of_destroy(ctx);
    of_config small = exact;
    small.host_arena_size = need.host_bytes - 1;
    of_context* ctx_small = nullptr;
    const of_status s_small2 = of_create(&small, &ctx_small);
    of_destroy(ctx_small);
    sink->add(p, "arena", "query_equals_use", s_small2 == OF_ERR_ARENA ? OF_CHECK_PASS : OF_CHECK_FAIL,
              static_cast<double>(need.host_bytes), static_cast<double>(need.host_bytes), since(t0),
              "a caller arena of the %zu queried bytes works; %zu bytes: %s", need.host_bytes, need.host_bytes - 1,
              s_small2 == OF_ERR_ARENA ? "refused (OF_ERR_ARENA)" : of_status_string(s_small2));
#if defined(__GLIBC__) && !defined(OF_SELFTEST_SANITIZED)
    const bool frames_ok = s == OF_OK && heap1 == heap0 && dev_same;
    sink->add(p, "arena", "no_alloc_per_frame", frames_ok ? OF_CHECK_PASS : OF_CHECK_FAIL, static_cast<double>(heap1) - static_cast<double>(heap0),
              0.0, since(t0), "3 frames: heap in use %+ld bytes%s%s", static_cast<long>(heap1) - static_cast<long>(heap0),
              dev_same ? "" : ", device memory taken", s == OF_OK ? "" : ", of_process failed");
#else
    (void)heap0;
    (void)heap1;
    sink->add(p, "arena", "no_alloc_per_frame", s == OF_OK && dev_same ? OF_CHECK_SKIP : OF_CHECK_FAIL, 0.0, 0.0, since(t0),
              "no glibc heap statistics here (other C library, or a sanitizer's allocator)%s",
              s == OF_OK ? "" : "; of_process failed");
#endif
}

// ---- determinism ----------------------------------------------------------------------------
void check_determinism(Sink* sink, const Path& p, const Options& o) {
    const Clock::time_point t0 = Clock::now();
    const Pair pr = make_pair(synth::Case::RotationZoom, 96, 64);
    of_config c = base_config(p, o, pr.w, pr.h);
    c.iterations = 20;
    c.epsilon = 0.0f;
    Flow a, b;
    char why[320];
    if (run_flow(c, pr, &a, why, sizeof why) != OF_OK || run_flow(c, pr, &b, why, sizeof why) != OF_OK) {
        sink->add(p, "determinism", "repeat", OF_CHECK_FAIL, 0.0, 0.0, since(t0), "%s", why);
        return;
    }
    const bool same = same_bits(a, b);
    sink->add(p, "determinism", "repeat", same ? OF_CHECK_PASS : OF_CHECK_FAIL, same ? 0.0 : max_delta(a, b), 0.0, since(t0),
              "the same pair twice: %s", same ? "bitwise equal" : "results differ");
    if (p.backend == OF_BACKEND_CUDA) return;
    const Clock::time_point t1 = Clock::now();
    of_config c1 = c, c3 = c;
    c1.threads = 1;
    c3.threads = 3;
    Flow f1, f3;
    if (run_flow(c1, pr, &f1, why, sizeof why) != OF_OK || run_flow(c3, pr, &f3, why, sizeof why) != OF_OK) {
        sink->add(p, "determinism", "threads", OF_CHECK_FAIL, 0.0, 0.0, since(t1), "%s", why);
        return;
    }
    const bool same_t = same_bits(f1, f3);
    sink->add(p, "determinism", "threads", same_t ? OF_CHECK_PASS : OF_CHECK_FAIL, same_t ? 0.0 : max_delta(f1, f3), 0.0,
              since(t1), "1 and 3 worker threads: %s", same_t ? "bitwise equal" : "results differ");
}

// ---- timing ----------------------------------------------------------------------------------
// Inner-loop ns per iteration per pixel. CPU: two one-level frames of n1 and n2 iterations,
// the difference divided by (n2 - n1) x pixels (the pyramid and warp cancel out), best of
// three. CUDA: the solver alone, timed with CUDA events (cuda/cuda_bench.hpp), median.
bool measure_inner(const Path& p, const Options& o, int n, double* ns, char* why, std::size_t why_len) {
    const Pair pr = make_pair(synth::Case::SmoothField, n, n);
    of_config c = base_config(p, o, n, n);
    // The tables' CPU figures are for the whole CPU: every core unless the caller said.
    if (o.threads_given == 0) {
        const unsigned hw = std::thread::hardware_concurrency();
        c.threads = hw == 0 ? 1u : (hw > 64 ? 64u : hw);
    }
    c.levels = 1;
    c.warps = 1;
    c.epsilon = 0.0f;
#if OF_HAVE_CUDA
    if (p.backend == OF_BACKEND_CUDA) {
        c.iterations = 20;
        of_context* ctx = nullptr;
        if (of_create(&c, &ctx) != OF_OK) {
            std::snprintf(why, why_len, "of_create: %s", of_last_error(nullptr));
            return false;
        }
        char buf[kErrorCapacity] = {0};
        const ErrorSink err{buf};
        const int runs = 7;
        float ms[runs];
        of_status s = cuda::hooks::bench_prepare(ctx->cuda, pr.i0.data(), pr.i1.data(), n, n, err);
        if (s == OF_OK) s = cuda::hooks::bench_iterations(ctx->cuda, 20, 2, ms, err);
        if (s == OF_OK) s = cuda::hooks::bench_iterations(ctx->cuda, 20, runs, ms, err);
        of_destroy(ctx);
        if (s != OF_OK) {
            std::snprintf(why, why_len, "%s", buf);
            return false;
        }
        std::sort(ms, ms + runs);
        *ns = static_cast<double>(ms[runs / 2]) * 1e6 / (20.0 * n * n);
        return true;
    }
#endif
    const int n1 = 4, n2 = o.full ? 40 : 20;
    double best[2] = {1e300, 1e300};
    const int iters[2] = {n1, n2};
    for (int k = 0; k < 2; ++k) {
        c.iterations = static_cast<uint32_t>(iters[k]);
        of_context* ctx = nullptr;
        if (of_create(&c, &ctx) != OF_OK) {
            std::snprintf(why, why_len, "of_create: %s", of_last_error(nullptr));
            return false;
        }
        const of_image a = image_of(pr.i0, n, n), b = image_of(pr.i1, n, n);
        Flow f;
        of_flow out = flow_of(&f, n, n);
        for (int r = 0; r < 3; ++r) {
            const Clock::time_point t0 = Clock::now();
            const of_status s = of_process(ctx, &a, &b, &out);
            const double t = since(t0);
            if (s != OF_OK) {
                std::snprintf(why, why_len, "of_process: %s", of_last_error(ctx));
                of_destroy(ctx);
                return false;
            }
            best[k] = std::min(best[k], t);
        }
        of_destroy(ctx);
    }
    *ns = std::max(best[1] - best[0], 0.0) * 1e9 / (static_cast<double>(n2 - n1) * n * n);
    return true;
}

void check_timing(Sink* sink, const Path& p, const Options& o) {
    const Clock::time_point t0 = Clock::now();
    const int n = p.backend == OF_BACKEND_CUDA ? (o.full ? 2048 : 1024) : (o.full ? 512 : 256);
    Expectation e;
    std::memset(&e, 0, sizeof e);
    char none[200];
    if (!expected_timing(o.platform, p.backend, p.precision, &e, none, sizeof none)) {
        sink->add(p, "timing", "inner_loop", OF_CHECK_SKIP, 0.0, 0.0, since(t0), "no expected figure: %s", none);
        return;
    }
    double ns = 0.0;
    char why[320];
    if (!measure_inner(p, o, n, &ns, why, sizeof why)) {
        sink->add(p, "timing", "inner_loop", OF_CHECK_FAIL, 0.0, e.ns_per_iter_px * e.fail_factor, since(t0), "%s", why);
        return;
    }
    sink->set_board(e.board);
    const double ratio = ns / e.ns_per_iter_px;
    const of_check_result r = ratio > e.fail_factor ? OF_CHECK_FAIL : (ratio > e.warn_factor ? OF_CHECK_WARN : OF_CHECK_PASS);
    sink->add(p, "timing", "inner_loop", r, ns, e.ns_per_iter_px * e.fail_factor, since(t0),
              "%dx%d: %.4g ns/it/px, %.2fx the %s table's %.4g (warn > %.1fx, fail > %.1fx; %s)", n, n, ns, ratio, e.board,
              e.ns_per_iter_px, e.warn_factor, e.fail_factor, e.source);
}

// Whether a path exists here, and the precision it really computes in.
bool path_available(of_backend b, of_precision want, of_precision* got) {
    of_config c;
    of_config_init(&c, OF_ALGO_TVL1);
    c.max_width = 32;
    c.max_height = 24;
    c.backend = b;
    c.precision = want;
    of_context* ctx = nullptr;
    if (of_create(&c, &ctx) != OF_OK) return false;
    of_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    const bool ok = of_get_info(ctx, &info) == OF_OK;
    *got = info.precision;
    of_destroy(ctx);
    return ok && info.backend == b;
}

} // namespace
} // namespace selftest
} // namespace oflow

using oflow::selftest::Path;

OF_API void of_selftest_options_init(of_selftest_options* o) {
    if (!o) return;
    std::memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->backend = OF_BACKEND_AUTO;
    o->full = 0;
    o->platform = nullptr;
    o->threads = 0;
}

OF_API of_status of_selftest(const of_selftest_options* opt, of_selftest_report* rep) {
    using namespace oflow;
    using namespace oflow::selftest;
    const ErrorSink err{thread_error_buffer()};
    err.clear();
    try {
        if (!opt) return err.fail(OF_ERR_NULL_POINTER, "of_selftest: options is NULL");
        if (!rep) return err.fail(OF_ERR_NULL_POINTER, "of_selftest: report is NULL");
        if (opt->struct_size != sizeof(of_selftest_options))
            return err.fail(OF_ERR_STRUCT_SIZE, "of_selftest: options.struct_size %u, expected %zu", opt->struct_size,
                            sizeof(of_selftest_options));
        if (rep->struct_size != sizeof(of_selftest_report))
            return err.fail(OF_ERR_STRUCT_SIZE, "of_selftest: report.struct_size %u, expected %zu", rep->struct_size,
                            sizeof(of_selftest_report));
        if (!rep->cases && rep->case_capacity != 0)
            return err.fail(OF_ERR_NULL_POINTER, "of_selftest: report.cases is NULL with case_capacity %u", rep->case_capacity);
        const int32_t b = raw_enum(opt->backend);
        if (b < OF_BACKEND_AUTO || b > OF_BACKEND_CUDA)
            return err.fail(OF_ERR_INVALID_ARGUMENT, "of_selftest: backend %d is not an of_backend", b);
        if (opt->full > 1) return err.fail(OF_ERR_INVALID_ARGUMENT, "of_selftest: full must be 0 or 1, not %u", opt->full);
        if (opt->threads > 64) return err.fail(OF_ERR_INVALID_ARGUMENT, "of_selftest: threads %u > 64", opt->threads);
        of_selftest_case* cases = rep->cases;
        const uint32_t cap = rep->case_capacity;
        std::memset(rep, 0, sizeof *rep);
        rep->struct_size = sizeof *rep;
        rep->cases = cases;
        rep->case_capacity = cap;

        const ForceOverrideOff no_force; // every path on purpose, whatever the test suite forces
        const Options o{opt->full != 0, opt->threads ? opt->threads : 1u, opt->threads, opt->platform};
        const std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
        Sink sink(rep);
        const of_backend wanted[] = {OF_BACKEND_REFERENCE, OF_BACKEND_NEON, OF_BACKEND_CUDA};
        int paths = 0;
        for (of_backend be : wanted) {
            if (opt->backend != OF_BACKEND_AUTO && opt->backend != be) continue;
            if (be == OF_BACKEND_CUDA && !check_device(&sink, o)) {
                if (opt->backend == OF_BACKEND_CUDA)
                    return err.fail(OF_ERR_BACKEND_UNAVAILABLE, "of_selftest: the CUDA backend is unavailable here (see the device cases)");
                continue;
            }
            for (of_precision pr : {OF_PRECISION_F32, OF_PRECISION_F16}) {
                of_precision got = OF_PRECISION_F32;
                if (!path_available(be, pr, &got)) {
                    if (opt->backend == be && pr == OF_PRECISION_F32)
                        return err.fail(OF_ERR_BACKEND_UNAVAILABLE, "of_selftest: backend %s unavailable: %s",
                                        selftest::backend_label(be), of_last_error(nullptr));
                    break;
                }
                if (got != pr) continue; // an F16 request this path runs in F32: nothing new to test
                Path p;
                p.backend = be;
                p.precision = pr;
                std::snprintf(p.name, sizeof p.name, "%s/%s", selftest::backend_label(be), pr == OF_PRECISION_F16 ? "f16" : "f32");
                ++paths;
                if (be != OF_BACKEND_CUDA) check_kernel_table(&sink, p, o);
                if (be != OF_BACKEND_REFERENCE) check_parity(&sink, p, o);
                check_accuracy(&sink, p, o);
                check_confidence(&sink, p, o);
                check_large_motion(&sink, p, o);
                check_arena(&sink, p, o);
                check_determinism(&sink, p, o);
                check_timing(&sink, p, o);
                // The other algorithms' cases, on the paths that run them (core/algorithm.hpp).
                for (int i = 0; i < algorithm_count(); ++i) {
                    const Algorithm* a = algorithm_at(i);
                    if (!a->selftest || (be == OF_BACKEND_CUDA && !a->gpu_path) ||
                        (pr == OF_PRECISION_F16 && be != OF_BACKEND_CUDA && !a->cpu_f16))
                        continue;
                    a->selftest(&sink, p, o.full, o.threads);
                }
            }
        }
        rep->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::snprintf(rep->summary, sizeof rep->summary, "%s: %u cases on %d paths: %u passed, %u warned, %u failed, %u skipped (%.2f s)",
                      rep->failed ? "FAIL" : "PASS", rep->case_count, paths, rep->passed, rep->warned, rep->failed, rep->skipped,
                      rep->seconds);
        return OF_OK;
    } catch (...) {
        return err.fail(OF_ERR_INTERNAL, "of_selftest: unexpected exception");
    }
}
