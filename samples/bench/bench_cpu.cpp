// oflow-bench --cpu: timings of the CPU paths' kernels and whole frames, in every build (with
// or without CUDA).
//
// Paths. The reference path always; on aarch64 builds also NEON F32, and NEON F16 where the
// CPU has FP16 arithmetic (the context then reports precision F16 and installs the half-dual
// TV-L1 kernels, KernelTable::dual_bytes 2). Each path's kernels come from real contexts:
// of_create with config.backend REFERENCE or NEON (precision F16 for the third) and the
// algorithm in question (TV-L1; HS for HS Jacobi; CLG for the coupled and the plain Jacobi and
// the per-warp stages; CLG with red-black SOR for the SOR row; LK for the LK rows), then its
// ctx->kt / ctx->hs / ctx->lk entries are called directly over the whole plane, on one thread. A kernel that a path
// installs later is timed without a change here. --reference keeps the reference path only.
//
// Kernel rows, ns per pixel per iteration (per call for the per-warp stages), the median of
// repeats after a warm-up, on a textured random pair at --size (default 640x480): the derived
// planes are what the kernels themselves make of it (tvl1_warp at flow 0 for TV-L1's
// linearisation; warp_image, derivatives, tensor and the rho blur for HS/CLG), and the
// iterations run on from zero as the drivers' would.
//   - the plain two-kernel F32 TV-L1 iteration (tvl1_calc_u then tvl1_calc_p): the baseline,
//     printed first; every row is also given as its time over the baseline's (the F16 path's
//     baseline is the NEON F32 one);
//   - TV-L1 fused row pipeline (tvl1_iter_rows over all rows: one whole iteration), where the
//     path has one (the reference has none: it says so);
//   - HS Jacobi (hs_jacobi), CLG pointwise-coupled Jacobi (clg_jacobi), plain point Jacobi
//     (clg_jacobi_plain);
//   - red-black SOR: one iteration = the red and the black sor_half_sweep on split planes
//     (core/hs_level_cpu.cpp's layout: both halves of a row in one plane, hs_split_views);
//   - per-warp stages: warp_image, derivatives, tensor, blur_h_multi + blur_v_multi of the 5
//     tensor channels at rho 2 (the CLG context's rho_blur), rb_split of the 5 channels.
//   - LK (core/lk_kernels.hpp), every entry core/lk_level_cpu.cpp calls, at the LK context's
//     window s (of_config_init's 11; box radius r = (s - 1) / 2): per Newton step the whole step
//     as the level solver runs it (residual, box_h_multi and box_v_multi of the 2 residual
//     channels, update), then each of the four alone; per call (once per level) the gradient
//     (Scharr, LkKernels::gradient), the tensor, box_h_multi and box_v_multi of the 3 tensor
//     channels and the confidence. Inputs: the same pair; the stages once, untimed, give the step
//     its G and state, the steps run from flow 0 with epsilon 0 (every valid pixel keeps
//     stepping: the cost of a level's first steps; a stopped pixel costs the update only its
//     state read), and each entry alone runs on the flow the step reached, its outputs in planes
//     it does not read.
//
// Bytes per pixel per iteration (compulsory traffic): every plane a kernel streams is counted
// once per pixel for each read and once for each write; neighbours (rows y-1, y+1, x-1, x+1,
// the bicubic and Gaussian taps) come from cache. Write-allocate reads of written planes are
// not counted (they would add 4 B per written F32 plane where the store misses). Per kernel:
//   calc_u   reads u1 u2, p11 p12 p21 p22, i1wx i1wy grad rho_c; writes u1 u2
//   calc_p   reads u1 u2, p11..p22; writes p11..p22   (p: KernelTable::dual_bytes each)
//   iter_rows reads u1 u2, p11..p22, i1wx i1wy grad rho_c; writes u1 u2, p11..p22
//   hs_jacobi reads du dv ix iy it; writes du' dv'                      7 x 4 = 28 B
//   clg_jacobi / clg_jacobi_plain read du dv j11..j23; write du' dv'     9 x 4 = 36 B
//   SOR iteration: per half-sweep, per pixel of its colour: this colour's old u v and 5 tensor
//     channels, the other colour's u v (the rows y-1..y+1 of one plane: once), writes u' v':
//     11 floats per pixel of the colour; each pixel is of one colour     11 x 4 = 44 B
//   warp_image reads u1 u2, i1 (its 4x4 taps from cache); writes out     4 x 4 = 16 B
//     (frame 0 is read only where x + u leaves the frame)
//   derivatives reads i0 i1w; writes ix iy it                             5 x 4 = 20 B
//   tensor reads ix iy it; writes 5 channels                              8 x 4 = 32 B
//   blur h + v, 5 channels: h reads 5 writes 5, v reads 5 writes 5       20 x 4 = 80 B
//   rb_split, 5 channels: reads 5 full planes, writes 5 x (red + black)  10 x 4 = 40 B
//   lk residual reads u1 u2, i0, gx gy, i1 (its 4 bilinear taps from cache); writes bx by  8 x 4 = 32 B
//   lk box_h_multi / box_v_multi, n channels: read n, write n (the 2r + 1 taps or rows from
//     cache)                                                     2 channels: 16 B; 3: 24 B
//   lk update reads G (3), the sums (2), state, u1 u2; writes u1 u2 (state only when a pixel
//     stops)                                                             10 x 4 = 40 B
//   lk step: residual + box_h + box_v + update                    32 + 16 + 16 + 40 = 104 B
//   lk gradient reads src; writes gx gy                                   3 x 4 = 12 B
//   lk tensor reads gx gy; writes 3 channels                              5 x 4 = 20 B
//   lk confidence reads G (3); writes conf, state                         5 x 4 = 20 B
// FLOPs per pixel per iteration, counted from the reference code (core/ref/): add, subtract,
// multiply, divide and square root 1 each (an FMA 2), negations, comparisons, selects, floor
// and conversions 0; the double change sums counted like floats. Per kernel:
//   calc_u 26: rho = rc + ix u1 + iy u2 (4), lt g (1), the threshold's middle branch
//     f = -rho / g, f ix, f iy (3), two backward divergences (3 + 3), u + d + theta div (3 + 3),
//     change sum (6).
//   calc_p 28: 4 forward differences, per component 1 + k sqrt(a^2 + b^2) (6 + 6), four dual
//     updates (p + k g) / n (4 x 3).  Baseline and iter_rows: 54.
//   9-point mean (core/ref/hs_solvers_ref.cpp mean9) 9: 6 adds, 2 multiplies, 1 add; two: 18.
//   hs_jacobi 38: means 18, n = gx mu + gy mv + gt (4), d = a2 + gx^2 + gy^2 (4),
//     mu - gx n / d and mv - gy n / d (6), change sum (6).
//   clg_jacobi 41: means 18, the 2x2 solve by Cramer's rule (A, C 2; r1, r2 4; det 3; two
//     numerators and divisions 8: 17), change sum 6.
//   clg_jacobi_plain 36: means 18, two updates (a2 m - j12 d - j13) / (j11 + a2) (12), sum 6.
//   SOR 47: means 18, the 2x2 solve 17, (1 - omega) old + omega new twice (6; 1 - omega
//     hoisted), change sum 6.
//   warp_image 82: x + u, y + v (2), fractions (2), 2 x 4 Keys weights (2 x 19), 4x4 taps
//     (16 x 2 + 4 x 2 = 40).
//   derivatives 24: three brackets of 7 adds and one multiply.  tensor 5 multiplies.
//   blur 10 x (1 + 3 r) for taps radius r (per channel and pass: k0 s, then r times
//     k (l + r) accumulated); r = 6 at rho 2: 190.   rb_split 0.
//   lk residual 20: x + u, y + v (2), fractions (2), three lerps a + f (b - a) (9), minus I0 (1),
//     r = it - (gx u1 + gy u2) (4), gx r, gy r (2).
//   lk box_h_multi / box_v_multi: s adds per channel and pass (from 0, the taps in order);
//     2 channels at s = 11: 22 each.
//   lk update 17: det (3), two Cramer numerators with their division (2 x 4), delta (2),
//     |delta|^2 (3), the active count (1).   lk step: 20 + 2 x 2s + 17 = 81 at s = 11.
//   lk gradient 18: per component three weighted differences (6), two adds, the / 32.
//   lk tensor 3 multiplies.   lk box 3 channels: 3s per pass (33 at s = 11).
//   lk confidence 15: det (3), lambda_max = (A + C) / 2 + sqrt(((A - C) / 2)^2 + B^2) (9),
//     lambda_min = det / lambda_max (1), / s^2 as a multiply (1), the valid count (1).
// Each row gives its GB/s (bytes / ns) and their share of the machine's copy bandwidth
// (memcpy of a 64 MiB buffer, one thread, read + write counted, median of 9). The header also
// gives a 4 MiB copy's: at 640x480 a kernel's planes may sit in a large last-level cache.
//
// Then whole frames through of_process: the core/synth.hpp smooth-field pair at --size (F32
// frames), every other setting of_config_init's default (backend AUTO; on a GPU machine the
// CPU path is asked for instead), at 1 thread and at --threads (default: all cores), median
// of 3 after a warm-up, with the inner iterations run (of_info.last_iterations): TV-L1, HS and
// CLG with each solver, and LK (its defaults: window 11, up to 10 Newton steps per level,
// epsilon 0.01, no median; the iterations are its steps summed over the levels).
//
// --robust-cost adds TV-L1, HS, CLG (Jacobi) and LK under robust none, census, census with config.init
// OF_INIT_DIS (the default, the DIS pass included) and pick (the former default), and DIS under none
// and level-norm (its default), at fixed work (epsilon 0), at --threads, median of 3: each mode's
// time over none's, the default's cost ratio (the one-solve target is <= 1.5x).
// --json FILE writes every row (scripts/compare_opencv.py --sor-anchor reads the SOR row);
// --no-frames skips the whole frames.
// --smoke: 64x48, few repeats: checks that the tool runs and prints every row
// (samples/bench/bench_smoke_check.cmake, CTest bench_cpu_smoke); it measures nothing.
#include "samples/bench/bench_cpu.hpp"

#include "core/context.hpp"
#include "core/hs_kernels.hpp"
#include "core/hs_level_cpu.hpp"
#include "core/lk_kernels.hpp"
#include "core/synth.hpp"
#include "oflow.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct CpuOpts {
    int w = 640, h = 480;
    int threads = 0; // 0: hardware_concurrency
    bool reference = false;
    bool smoke = false;
    bool frames = true; // --no-frames: the kernel rows only
    bool robust_cost = false; // --robust-cost: the robust modes' frames at fixed work
    const char* json = nullptr;
};

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Median seconds of `reps` runs of f, after `warm` runs.
double time_of(int reps, int warm, const std::function<void()>& f) {
    for (int i = 0; i < warm; ++i) f();
    std::vector<double> s;
    for (int i = 0; i < reps; ++i) {
        const Clock::time_point t0 = Clock::now();
        f();
        s.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return median_of(s);
}

// memcpy bandwidth, one thread, read + write counted: of `bytes` (64 MiB: larger than the
// caches; the smoke run 1 MiB).
double copy_gbps(size_t bytes, bool smoke) {
    const size_t n = bytes;
    std::vector<unsigned char> a(n, 1), b(n, 2);
    const double s = time_of(smoke ? 2 : 9, 1, [&] {
        std::memcpy(b.data(), a.data(), n);
        a[n / 2] = static_cast<unsigned char>(b[n / 3] + 1); // keep the copy observable
    });
    return 2.0 * static_cast<double>(n) / s * 1e-9;
}

// A w x h float plane, rows 64-byte aligned, pitch a multiple of 16 floats (the arena's).
struct Buf {
    std::unique_ptr<float, void (*)(void*)> mem{nullptr, std::free};
    oflow::Plane p{};
    Buf(int w, int h) {
        const std::ptrdiff_t pitch = (w + 15) / 16 * 16;
        const size_t bytes = static_cast<size_t>(pitch) * static_cast<size_t>(h) * sizeof(float);
        mem.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
        if (!mem) {
            std::fprintf(stderr, "oflow-bench --cpu: out of memory\n");
            std::exit(1);
        }
        std::memset(mem.get(), 0, bytes);
        p = oflow::Plane{mem.get(), w, h, pitch};
    }
};

enum Kind { kIter, kStage }; // per inner iteration, or per call (once per warp)

struct Row {
    std::string name;
    Kind kind;
    bool present;   // false: the path has no such kernel (tvl1_iter_rows on the reference)
    double ns_px;   // per pixel per iteration (per call for the stages)
    double bytes;   // per pixel per iteration
    double flops;   // per pixel per iteration
};

struct PathResult {
    std::string name;  // "reference", "NEON", "NEON F16"
    double base_ns;    // the baseline its rows are divided by
    const char* base_of;
    std::vector<Row> rows;
};

// The rows every path prints, in order (bench_smoke_check.cmake checks the same list).
const char* const kRowNames[] = {"tvl1 calc_u + calc_p (baseline)",
                                 "tvl1 iter_rows (fused rows)",
                                 "hs jacobi",
                                 "clg coupled jacobi",
                                 "clg plain point jacobi",
                                 "red-black sor (red + black)",
                                 "stage warp_image (bicubic)",
                                 "stage derivatives",
                                 "stage tensor (5 ch)",
                                 "stage tensor blur rho 2 (5 ch, h + v)",
                                 "stage rb_split (5 ch)",
                                 "lk newton step (the 4 rows below)",
                                 "lk residual (bilinear)",
                                 "lk box_h_multi (2 ch)",
                                 "lk box_v_multi (2 ch)",
                                 "lk update (2x2 step)",
                                 "lk stage gradient (scharr)",
                                 "lk stage tensor (3 ch)",
                                 "lk stage box_h_multi (3 ch)",
                                 "lk stage box_v_multi (3 ch)",
                                 "lk stage confidence"};
const int kRowCount = static_cast<int>(sizeof kRowNames / sizeof kRowNames[0]);

of_info info_of(of_context* ctx) {
    of_info in;
    std::memset(&in, 0, sizeof in);
    in.struct_size = sizeof in;
    of_get_info(ctx, &in);
    return in;
}

// A context of `algo` on exactly (backend, precision), one thread, for w x h; null when the
// build or the CPU has no such path (why says why).
of_context* path_ctx(of_algorithm algo, of_solver solver, of_backend backend, of_precision prec, const CpuOpts& o,
                     std::string* why) {
    of_config c;
    of_config_init(&c, algo);
    c.max_width = static_cast<uint32_t>(o.w);
    c.max_height = static_cast<uint32_t>(o.h);
    c.backend = backend;
    c.precision = prec;
    c.hs.solver = solver;
    c.threads = 1;
    of_context* ctx = nullptr;
    if (of_create(&c, &ctx) != OF_OK) {
        *why = of_last_error(nullptr);
        return nullptr;
    }
    return ctx;
}

// The textured random pair: blurred noise (sigma 1.2) for frame 0, frame 1 = frame 0 moved by
// (0.6, -0.4) px (bilinear), both 0..255.
void make_pair(int w, int h, Buf* i0, Buf* i1) {
    std::vector<float> noise(static_cast<size_t>(w + 8) * static_cast<size_t>(h + 8)), tmp(noise.size());
    unsigned s = 12345u;
    for (float& x : noise) {
        s = s * 1664525u + 1013904223u;
        x = static_cast<float>(s >> 8) * (255.0f / 16777216.0f);
    }
    const oflow::Gaussian1D g = oflow::make_gaussian(1.2f);
    const oflow::Plane pn{noise.data(), w + 8, h + 8, w + 8}, pt{tmp.data(), w + 8, h + 8, w + 8};
    oflow::KernelTable ref;
    oflow::kernel_table_init_ref(&ref);
    ref.blur_h(pn, pt, g, 0, h + 8);
    ref.blur_v(pt, pn, g, 0, h + 8);
    // Stretch the blurred noise (about 128 +- 30) back to most of 0..255.
    auto tex = [&](float x, float y) {
        const int ix = static_cast<int>(std::floor(x)), iy = static_cast<int>(std::floor(y));
        const float fx = x - static_cast<float>(ix), fy = y - static_cast<float>(iy);
        const float* r0 = pn.row(iy);
        const float* r1 = pn.row(iy + 1);
        const float v = (1 - fy) * ((1 - fx) * r0[ix] + fx * r0[ix + 1]) + fy * ((1 - fx) * r1[ix] + fx * r1[ix + 1]);
        return std::min(255.0f, std::max(0.0f, 128.0f + 3.0f * (v - 128.0f)));
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            i0->p.row(y)[x] = tex(static_cast<float>(x + 4), static_cast<float>(y + 4));
            i1->p.row(y)[x] = tex(static_cast<float>(x + 4) - 0.6f, static_cast<float>(y + 4) + 0.4f);
        }
}

// The LK rows (kRowNames 11..20) of one path: the entries of the LK context's ctx->lk that
// core/lk_level_cpu.cpp calls, at its window, on the pair (i0, i1). The per-level stages run
// once untimed first: the step needs their G and state.
using AddRow = std::function<void(int, Kind, double, double, double)>;
void time_lk(of_context* lk, const Buf& i0, const Buf& i1, int reps, int warm, const AddRow& add) {
    const int w = i0.p.w, h = i0.p.h;
    const oflow::LkKernels& k = lk->lk;
    const int s = static_cast<int>(lk->cfg.lk.window), r = (s - 1) / 2;
    const int nt = oflow::kLkTensorChannels;
    Buf gx(w, h), gy(w, h), ex(w, h), ey(w, h), sx(w, h), sy(w, h), u1(w, h), u2(w, h), conf(w, h), state(w, h);
    std::vector<std::unique_ptr<Buf>> bufs;
    oflow::Plane jp[oflow::kLkTensorChannels], hp[oflow::kLkTensorChannels], gp[oflow::kLkTensorChannels];
    for (int c = 0; c < nt; ++c)
        for (oflow::Plane* p : {&jp[c], &hp[c], &gp[c]}) {
            bufs.emplace_back(new Buf(w, h));
            *p = bufs.back()->p;
        }
    // The stages: products in jp, the horizontal sums in hp, the window sums G in gp.
    oflow::LkTensorArgs ta;
    ta.gx = gx.p;
    ta.gy = gy.p;
    for (int c = 0; c < nt; ++c) ta.j[c] = jp[c];
    oflow::LkConfArgs ca;
    for (int c = 0; c < nt; ++c) ca.j[c] = gp[c];
    ca.conf = conf.p;
    ca.state = state.p;
    ca.inv_area = 1.0 / (static_cast<double>(s) * static_cast<double>(s));
    ca.min_eigen = lk->cfg.lk.min_eigen;
    auto stage = [&](int which) {
        switch (which) {
        case 0: k.gradient(i0.p, gx.p, gy.p, 0, h); break;
        case 1: k.tensor(ta, 0, h); break;
        case 2: k.box_h_multi(jp, hp, nt, r, 0, h); break;
        case 3: k.box_v_multi(hp, gp, nt, r, 0, h); break;
        default: k.confidence(ca, 0, h); break;
        }
    };
    for (int i = 0; i < 5; ++i) stage(i);

    // A Newton step as the level solver runs it: the residual products into (ex, ey), their
    // horizontal sums into hp[0..1], the window sums back into (ex, ey), the update; from flow 0,
    // epsilon 0.
    const oflow::LkResidualArgs ra{i0.p, i1.p, gx.p, gy.p, u1.p, u2.p, ex.p, ey.p};
    const oflow::Plane e[2] = {ex.p, ey.p}, eh[2] = {hp[0], hp[1]}, es[2] = {sx.p, sy.p};
    oflow::LkUpdateArgs ua;
    for (int c = 0; c < nt; ++c) ua.j[c] = gp[c];
    ua.ex = ex.p;
    ua.ey = ey.p;
    ua.state = state.p;
    ua.u1 = u1.p;
    ua.u2 = u2.p;
    ua.epsilon = 0.0f;
    const double box2 = 2.0 * s; // adds per pixel of one pass over 2 channels
    add(11, kIter, time_of(reps, warm, [&] {
            k.residual(ra, 0, h);
            k.box_h_multi(e, eh, 2, r, 0, h);
            k.box_v_multi(eh, e, 2, r, 0, h);
            k.update(ua, 0, h);
        }),
        4.0 * 26, 20 + 2 * box2 + 17);
    // Each entry alone at the flow the steps reached; the vertical pass into (sx, sy), which the
    // horizontal one does not read, and the update from those sums.
    add(12, kIter, time_of(reps, warm, [&] { k.residual(ra, 0, h); }), 4.0 * 8, 20);
    add(13, kIter, time_of(reps, warm, [&] { k.box_h_multi(e, eh, 2, r, 0, h); }), 4.0 * 4, box2);
    add(14, kIter, time_of(reps, warm, [&] { k.box_v_multi(eh, es, 2, r, 0, h); }), 4.0 * 4, box2);
    ua.ex = sx.p;
    ua.ey = sy.p;
    add(15, kIter, time_of(reps, warm, [&] { k.update(ua, 0, h); }), 4.0 * 10, 17);

    // The per-level stages, each on the planes the previous one made (the confidence last: it
    // rewrites the state the steps used).
    add(16, kStage, time_of(reps, warm, [&] { stage(0); }), 4.0 * 3, 18);
    add(17, kStage, time_of(reps, warm, [&] { stage(1); }), 4.0 * 5, 3);
    add(18, kStage, time_of(reps, warm, [&] { stage(2); }), 4.0 * 6, 3.0 * s);
    add(19, kStage, time_of(reps, warm, [&] { stage(3); }), 4.0 * 6, 3.0 * s);
    add(20, kStage, time_of(reps, warm, [&] { stage(4); }), 4.0 * 5, 15);
}

// The rows of one path. Returns false (why set) when the path is not available here.
bool time_path(const CpuOpts& o, of_backend backend, of_precision prec, PathResult* out, std::string* why) {
    const int w = o.w, h = o.h, reps = o.smoke ? 2 : 15, warm = o.smoke ? 1 : 3;
    const double px = static_cast<double>(w) * static_cast<double>(h);
    of_context* tv = path_ctx(OF_ALGO_TVL1, OF_SOLVER_JACOBI, backend, prec, o, why);
    if (!tv) return false;
    const of_info tvi = info_of(tv);
    if (tvi.backend != backend || (prec == OF_PRECISION_F16 && tvi.precision != OF_PRECISION_F16)) {
        *why = std::string("runs as ") + (tvi.precision == OF_PRECISION_F16 ? "F16" : "F32") + ": " + tvi.reason;
        of_destroy(tv);
        return false;
    }
    // HS/CLG get the same request: whatever F16 entries the path installs for them are timed
    // (the planes stay F32 on every path: core/hs_kernels.hpp), the F32 ones otherwise.
    of_context* hs = path_ctx(OF_ALGO_HS, OF_SOLVER_JACOBI, backend, prec, o, why);
    of_context* clg = path_ctx(OF_ALGO_CLG, OF_SOLVER_JACOBI, backend, prec, o, why);
    of_context* sor = path_ctx(OF_ALGO_CLG, OF_SOLVER_RED_BLACK_SOR, backend, prec, o, why);
    // LK the same (no path has F16 LK entries yet: an F16 request runs the F32 ones).
    of_context* lk = path_ctx(OF_ALGO_LK, OF_SOLVER_JACOBI, backend, prec, o, why);
    if (!hs || !clg || !sor || !lk) {
        of_destroy(tv);
        of_destroy(hs);
        of_destroy(clg);
        of_destroy(sor);
        of_destroy(lk);
        return false;
    }
    auto add = [&](int i, Kind kind, double seconds, double bytes, double flops) {
        out->rows.push_back(Row{kRowNames[i], kind, true, seconds / px * 1e9, bytes, flops});
    };

    Buf i0(w, h), i1(w, h);
    make_pair(w, h, &i0, &i1);

    // ---- TV-L1: linearised at flow 0 by the path's own tvl1_warp, duals from zero ----
    const oflow::KernelTable& kt = tv->kt;
    const double db = static_cast<double>(kt.dual_bytes);
    Buf u1(w, h), u2(w, h), p11(w, h), p12(w, h), p21(w, h), p22(w, h), i1x(w, h), i1y(w, h), i1w(w, h), wx(w, h),
        wy(w, h), g2(w, h), rc(w, h);
    kt.gradient(i1.p, i1x.p, i1y.p, 0, h);
    kt.tvl1_warp(oflow::Tvl1WarpArgs{i0.p, i1.p, i1x.p, i1y.p, u1.p, u2.p, i1w.p, wx.p, wy.p, g2.p, rc.p}, 0, h);
    const of_config& tc = tv->cfg;
    const oflow::Tvl1IterArgs ta{u1.p, u2.p, p11.p, p12.p, p21.p, p22.p, wx.p, wy.p, g2.p, rc.p,
                                 tc.tvl1.lambda * tc.tvl1.theta, tc.tvl1.theta, tc.tvl1.tau / tc.tvl1.theta};
    add(0, kIter, time_of(reps, warm, [&] {
            kt.tvl1_calc_u(ta, 0, h);
            kt.tvl1_calc_p(ta, 0, h);
        }),
        4.0 * 10 + db * 12, 54);
    if (kt.tvl1_iter_rows)
        add(1, kIter, time_of(reps, warm, [&] { kt.tvl1_iter_rows(ta, 0, h); }), 4.0 * 8 + db * 8, 54);
    else
        out->rows.push_back(Row{kRowNames[1], kIter, false, 0.0, 4.0 * 8 + db * 8, 54});

    // ---- HS / CLG: frame 1 warped at flow 0, cube derivatives, tensor, rho blur ----
    const oflow::HsKernels& kc = clg->hs;
    Buf hw_(w, h), ix(w, h), iy(w, h), it(w, h), zu(w, h), zv(w, h);
    std::vector<std::unique_ptr<Buf>> jb, tb, jo;
    oflow::Plane jp[oflow::kHsChannels], tp[oflow::kHsChannels], op[oflow::kHsChannels];
    for (int c = 0; c < oflow::kHsChannels; ++c) {
        jb.emplace_back(new Buf(w, h));
        tb.emplace_back(new Buf(w, h));
        jo.emplace_back(new Buf(w, h));
        jp[c] = jb.back()->p;
        tp[c] = tb.back()->p;
        op[c] = jo.back()->p;
    }
    clg->kt.warp_image(i0.p, i1.p, zu.p, zv.p, hw_.p, 0, h);
    const oflow::HsDerivArgs da{i0.p, hw_.p, ix.p, iy.p, it.p};
    kc.derivatives(da, 0, h);
    oflow::HsTensorArgs tna;
    tna.ix = ix.p;
    tna.iy = iy.p;
    tna.it = it.p;
    for (int c = 0; c < oflow::kHsChannels; ++c) tna.j[c] = jp[c];
    kc.tensor(tna, 0, h);
    const oflow::Gaussian1D& rho = clg->rho_blur;
    kc.blur_h_multi(jp, tp, oflow::kHsChannels, rho, 0, h);
    kc.blur_v_multi(tp, jp, oflow::kHsChannels, rho, 0, h);

    Buf du(w, h), dv(w, h), nu(w, h), nv(w, h);
    oflow::HsJacobiArgs ja;
    ja.du = du.p;
    ja.dv = dv.p;
    ja.du_next = nu.p;
    ja.dv_next = nv.p;
    ja.ix = ix.p;
    ja.iy = iy.p;
    ja.it = it.p;
    for (int c = 0; c < oflow::kHsChannels; ++c) ja.j[c] = jp[c];
    ja.alpha2 = clg->cfg.hs.alpha * clg->cfg.hs.alpha;
    // Each row starts from zero and swaps iterates as the driver does.
    auto jacobi_row = [&](double (*fn)(const oflow::HsJacobiArgs&, int, int)) {
        oflow::HsJacobiArgs a = ja;
        std::memset(du.mem.get(), 0, static_cast<size_t>(du.p.pitch) * static_cast<size_t>(h) * sizeof(float));
        std::memset(dv.mem.get(), 0, static_cast<size_t>(dv.p.pitch) * static_cast<size_t>(h) * sizeof(float));
        return time_of(reps, warm, [&] {
            fn(a, 0, h);
            std::swap(a.du, a.du_next);
            std::swap(a.dv, a.dv_next);
        });
    };
    add(2, kIter, jacobi_row(hs->hs.hs_jacobi), 4.0 * 7, 38);
    add(3, kIter, jacobi_row(kc.clg_jacobi), 4.0 * 9, 41);
    add(4, kIter, jacobi_row(kc.clg_jacobi_plain), 4.0 * 9, 36);

    // Red-black SOR on the split layout of core/hs_level_cpu.cpp: the five tensor channels
    // split into the halves of five full planes, the increment iterating in the halves of
    // two pairs of full planes (old, new), swapped after each iteration.
    const oflow::HsKernels& ks = sor->hs;
    oflow::HsSorArgs red, black;
    for (int c = 0; c < oflow::kHsChannels; ++c) {
        oflow::hs_split_views(op[c], &red.j[c], &black.j[c]);
        ks.rb_split(jp[c], red.j[c], black.j[c], 0, h);
    }
    Buf su(w, h), sv(w, h), tu(w, h), tv2(w, h);
    for (oflow::HsSorArgs* a : {&red, &black}) {
        a->alpha2 = sor->cfg.hs.alpha * sor->cfg.hs.alpha;
        a->omega = sor->cfg.hs.omega;
        a->w = w;
    }
    red.colour = 0;
    black.colour = 1;
    oflow::Plane old_u = su.p, old_v = sv.p, new_u = tu.p, new_v = tv2.p;
    add(5, kIter, time_of(reps, warm, [&] {
            oflow::Plane ur_o, ub_o, vr_o, vb_o, ur_n, ub_n, vr_n, vb_n;
            oflow::hs_split_views(old_u, &ur_o, &ub_o);
            oflow::hs_split_views(old_v, &vr_o, &vb_o);
            oflow::hs_split_views(new_u, &ur_n, &ub_n);
            oflow::hs_split_views(new_v, &vr_n, &vb_n);
            red.u_old = ur_o, red.v_old = vr_o, red.u_other = ub_o, red.v_other = vb_o;
            red.u_new = ur_n, red.v_new = vr_n;
            black.u_old = ub_o, black.v_old = vb_o, black.u_other = ur_n, black.v_other = vr_n;
            black.u_new = ub_n, black.v_new = vb_n;
            ks.sor_half_sweep(red, 0, h);
            ks.sor_half_sweep(black, 0, h);
            std::swap(old_u, new_u);
            std::swap(old_v, new_v);
        }),
        4.0 * 11, 47);

    // ---- per-warp stages (the CLG context's; warp_image at the Jacobi iterate du, dv) ----
    Buf wout(w, h);
    add(6, kStage, time_of(reps, warm, [&] { clg->kt.warp_image(i0.p, i1.p, du.p, dv.p, wout.p, 0, h); }), 4.0 * 4, 82);
    add(7, kStage, time_of(reps, warm, [&] { kc.derivatives(da, 0, h); }), 4.0 * 5, 24);
    oflow::HsTensorArgs tno = tna;
    for (int c = 0; c < oflow::kHsChannels; ++c) tno.j[c] = op[c];
    add(8, kStage, time_of(reps, warm, [&] { kc.tensor(tno, 0, h); }), 4.0 * 8, 5);
    add(9, kStage, time_of(reps, warm, [&] {
            kc.blur_h_multi(jp, tp, oflow::kHsChannels, rho, 0, h);
            kc.blur_v_multi(tp, op, oflow::kHsChannels, rho, 0, h);
        }),
        4.0 * 20, 10.0 * (1 + 3 * rho.radius));
    add(10, kStage, time_of(reps, warm, [&] {
            for (int c = 0; c < oflow::kHsChannels; ++c) ks.rb_split(jp[c], red.j[c], black.j[c], 0, h);
        }),
        4.0 * 10, 0);

    time_lk(lk, i0, i1, reps, warm, add);
    of_destroy(tv);
    of_destroy(hs);
    of_destroy(clg);
    of_destroy(sor);
    of_destroy(lk);
    return true;
}

struct FrameRow {
    std::string name, path;
    double ms1, msn;
    unsigned long long it1, itn;
};

// The CPU path of_create picks for cfg: AUTO, unless that is CUDA (a GPU machine): then NEON
// where the build has it, else the reference.
of_context* cpu_frame_ctx(of_config c) {
    of_context* ctx = nullptr;
    if (of_create(&c, &ctx) != OF_OK) return nullptr;
    if (info_of(ctx).backend != OF_BACKEND_CUDA) return ctx;
    of_destroy(ctx);
    c.backend = OF_BACKEND_NEON;
    if (of_create(&c, &ctx) == OF_OK) return ctx;
    c.backend = OF_BACKEND_REFERENCE;
    return of_create(&c, &ctx) == OF_OK ? ctx : nullptr;
}

// One frame pair (f0 -> f1, F32, o.w x o.h) through of_process under config c on the CPU path
// cpu_frame_ctx picks: the median of 3 after a warm-up (1 under --smoke), in ms, with the
// iterations of the last run and the path's name. False (with a message) when it failed.
bool time_frame(const of_config& c, const CpuOpts& o, float* f0, float* f1, const char* name, double* ms,
                unsigned long long* iterations, std::string* path) {
    of_context* ctx = cpu_frame_ctx(c);
    if (!ctx) {
        std::fprintf(stderr, "oflow-bench --cpu: %s: of_create: %s\n", name, of_last_error(nullptr));
        return false;
    }
    of_info in = info_of(ctx);
    *path = std::string(in.backend == OF_BACKEND_NEON ? "NEON" : "reference") +
            (in.precision == OF_PRECISION_F16 ? " F16" : "");
    const size_t n = static_cast<size_t>(o.w) * static_cast<size_t>(o.h);
    of_image i0{sizeof(of_image), OF_PIXEL_F32, OF_MEMORY_HOST, static_cast<uint32_t>(o.w),
                static_cast<uint32_t>(o.h), static_cast<size_t>(o.w) * 4, f0};
    of_image i1 = i0;
    i1.data = f1;
    std::vector<float> u(n), v(n);
    of_flow f{sizeof(of_flow), OF_FLOW_PLANAR, OF_MEMORY_HOST, static_cast<uint32_t>(o.w),
              static_cast<uint32_t>(o.h), static_cast<size_t>(o.w) * 4, u.data(), v.data(),
              OF_VALID_NONE, 0, nullptr, OF_FLOW_FORMAT_F32};
    of_status st = OF_OK;
    const double s = time_of(o.smoke ? 1 : 3, 1, [&] {
        if (st == OF_OK) st = of_process(ctx, &i0, &i1, &f);
    });
    in = info_of(ctx);
    of_destroy(ctx);
    if (st != OF_OK) {
        std::fprintf(stderr, "oflow-bench --cpu: %s: of_process failed\n", name);
        return false;
    }
    *ms = s * 1e3;
    *iterations = in.last_iterations;
    return true;
}

// The whole-frame rows: TV-L1, HS Jacobi, HS SOR, CLG Jacobi, CLG SOR, LK (bench_smoke_check.cmake
// checks the same list).
const size_t kFrameRows = 6;

int frame_rows(const CpuOpts& o, int threads, std::vector<FrameRow>* rows, of_config* shown) {
    const size_t n = static_cast<size_t>(o.w) * static_cast<size_t>(o.h);
    std::vector<float> f0(n), f1(n), gu(n), gv(n);
    oflow::synth::generate(oflow::synth::Case::SmoothField, o.w, o.h, 1, f0.data(), f1.data(), gu.data(), gv.data(), o.w);
    struct Algo {
        of_algorithm a;
        of_solver s;
        const char* name;
    } const algos[] = {{OF_ALGO_TVL1, OF_SOLVER_JACOBI, "TV-L1"},
                       {OF_ALGO_HS, OF_SOLVER_JACOBI, "HS Jacobi"},
                       {OF_ALGO_HS, OF_SOLVER_RED_BLACK_SOR, "HS SOR"},
                       {OF_ALGO_CLG, OF_SOLVER_JACOBI, "CLG Jacobi"},
                       {OF_ALGO_CLG, OF_SOLVER_RED_BLACK_SOR, "CLG SOR"},
                       {OF_ALGO_LK, OF_SOLVER_JACOBI, "LK"}};
    for (const Algo& a : algos) {
        FrameRow r{a.name, "", 0, 0, 0, 0};
        for (int pass = 0; pass < 2; ++pass) {
            of_config c;
            of_config_init(&c, a.a);
            c.max_width = static_cast<uint32_t>(o.w);
            c.max_height = static_cast<uint32_t>(o.h);
            c.format = OF_PIXEL_F32; // the synthetic frames are float; everything else default
            c.hs.solver = a.s;
            if (o.reference) c.backend = OF_BACKEND_REFERENCE;
            c.threads = static_cast<uint32_t>(pass == 0 ? 1 : threads);
            if (a.a == OF_ALGO_TVL1) *shown = c;
            double ms = 0.0;
            unsigned long long it = 0;
            if (!time_frame(c, o, f0.data(), f1.data(), a.name, &ms, &it, &r.path)) return 1;
            (pass == 0 ? r.ms1 : r.msn) = ms;
            (pass == 0 ? r.it1 : r.itn) = it;
        }
        rows->push_back(r);
    }
    return 0;
}

// --robust-cost: every algorithm under robust none and its other modes at fixed work (epsilon 0:
// every level runs all its iterations; DIS: its fixed steps), at --threads, on the whole-frame pair;
// each mode's time over none's; the row marked default is of_config_init's, whose ratio
// docs/accuracy.md quotes.
struct CostRow {
    std::string algo, mode, path;
    double ms, ratio;
    unsigned long long it;
    bool is_default; // of_config_init's robust mode and init for the algorithm
};
const size_t kCostRows = 18; // 4 algorithms x 4 modes, DIS x 2

int robust_cost_rows(const CpuOpts& o, int threads, std::vector<CostRow>* rows) {
    const size_t n = static_cast<size_t>(o.w) * static_cast<size_t>(o.h);
    std::vector<float> f0(n), f1(n), gu(n), gv(n);
    oflow::synth::generate(oflow::synth::Case::SmoothField, o.w, o.h, 1, f0.data(), f1.data(), gu.data(), gv.data(), o.w);
    struct Mode {
        of_robust r;
        of_init init;
        const char* name;
    };
    static const Mode solvers[] = {{OF_ROBUST_NONE, OF_INIT_NONE, "none"},
                                   {OF_ROBUST_CENSUS, OF_INIT_NONE, "census"},
                                   {OF_ROBUST_CENSUS, OF_INIT_DIS, "census+dis"},
                                   {OF_ROBUST_PICK, OF_INIT_NONE, "pick"}};
    static const Mode dis[] = {{OF_ROBUST_NONE, OF_INIT_NONE, "none"}, {OF_ROBUST_LEVEL_NORM, OF_INIT_NONE, "level-norm"}};
    const struct {
        of_algorithm a;
        const char* name;
        const Mode* modes;
        size_t n;
    } algos[] = {{OF_ALGO_TVL1, "TV-L1", solvers, 4}, {OF_ALGO_HS, "HS", solvers, 4}, {OF_ALGO_CLG, "CLG", solvers, 4},
                 {OF_ALGO_LK, "LK", solvers, 4},      {OF_ALGO_DIS, "DIS", dis, 2}};
    for (const auto& a : algos) {
        double none_ms = 0.0;
        for (size_t mi = 0; mi < a.n; ++mi) {
            const Mode& m = a.modes[mi];
            of_config c;
            of_config_init(&c, a.a);
            const bool is_default = c.robust == m.r && c.init == m.init;
            c.max_width = static_cast<uint32_t>(o.w);
            c.max_height = static_cast<uint32_t>(o.h);
            c.format = OF_PIXEL_F32;
            c.epsilon = 0.0f;
            c.robust = m.r;
            c.init = m.init;
            if (o.reference) c.backend = OF_BACKEND_REFERENCE;
            c.threads = static_cast<uint32_t>(threads);
            CostRow r{a.name, m.name, "", 0.0, 0.0, 0, is_default};
            const std::string what = std::string(a.name) + " " + m.name;
            if (!time_frame(c, o, f0.data(), f1.data(), what.c_str(), &r.ms, &r.it, &r.path)) return 1;
            if (m.r == OF_ROBUST_NONE) none_ms = r.ms;
            r.ratio = r.ms / none_ms;
            rows->push_back(r);
        }
    }
    return 0;
}

void print_path(const PathResult& p, const PathResult* ref, double bw) {
    std::printf("\n%s path (baseline: %s)\n", p.name.c_str(), p.base_of);
    std::printf("%-38s %9s %7s %7s %7s %7s %7s %8s%s\n", "kernel", "ns/px/it", "t/base", "B/px", "FLOP/px", "GB/s",
                "% copy", "GFLOP/s", ref ? "  ref/this" : "");
    for (size_t i = 0; i < p.rows.size(); ++i) {
        const Row& r = p.rows[i];
        if (!r.present) {
            std::printf("%-38s %9s   (none on this path: calc_u and calc_p run as two passes)\n", r.name.c_str(), "-");
            continue;
        }
        const double gbs = r.bytes / r.ns_px; // bytes per ns = GB/s
        std::printf("%-38s %9.3f %6.2fx %7.0f %7.0f %7.2f %6.0f%% %8.2f", r.name.c_str(), r.ns_px, r.ns_px / p.base_ns,
                    r.bytes, r.flops, gbs, 100.0 * gbs / bw, r.flops / r.ns_px);
        if (ref && i < ref->rows.size() && ref->rows[i].present)
            std::printf("  %7.2fx", ref->rows[i].ns_px / r.ns_px);
        std::printf("%s\n", r.kind == kStage ? "  (per call)" : "");
    }
}

} // namespace

int run_cpu_bench(int argc, char** argv) {
    CpuOpts o;
    for (int i = 0; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--cpu")) {
        } else if (!std::strcmp(argv[i], "--smoke")) {
            o.smoke = true;
        } else if (!std::strcmp(argv[i], "--reference")) {
            o.reference = true;
        } else if (!std::strcmp(argv[i], "--no-frames")) {
            o.frames = false;
        } else if (!std::strcmp(argv[i], "--robust-cost")) {
            o.robust_cost = true;
        } else if (!std::strcmp(argv[i], "--size") && i + 1 < argc && std::sscanf(argv[i + 1], "%dx%d", &o.w, &o.h) == 2) {
            ++i;
        } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
            o.threads = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--json") && i + 1 < argc) {
            o.json = argv[++i];
        } else {
            std::fprintf(stderr,
                         "usage: oflow-bench --cpu [--size WxH] [--threads N] [--reference] [--no-frames] [--robust-cost] "
                         "[--json FILE] [--smoke]\n");
            return 2;
        }
    }
    if (o.smoke) o.w = 64, o.h = 48;
    if (o.w < 16 || o.h < 16 || o.w > 8192 || o.h > 8192) {
        std::fprintf(stderr, "oflow-bench --cpu: --size %dx%d not in 16..8192\n", o.w, o.h);
        return 2;
    }
    if (o.threads < 0 || o.threads > 64) {
        std::fprintf(stderr, "oflow-bench --cpu: --threads %d not in 1..64\n", o.threads);
        return 2;
    }
    // This tool picks its paths itself: a backend forced through the environment (the test
    // suite's OFLOW_FORCE_BACKEND) would turn the reference contexts into something else.
    const char* forced = std::getenv("OFLOW_FORCE_BACKEND");
    if (forced && *forced) {
        std::printf("oflow-bench --cpu: OFLOW_FORCE_BACKEND=%s ignored (the paths are chosen here)\n", forced);
        unsetenv("OFLOW_FORCE_BACKEND");
    }
    const int threads = o.threads > 0 ? o.threads : static_cast<int>(std::min(64u, std::max(1u, std::thread::hardware_concurrency())));
    const double bw = copy_gbps(o.smoke ? (1u << 20) : (64u << 20), o.smoke);
    // For scale: a copy whose buffers stay in a large last-level cache, as a 640x480 kernel's
    // planes (1.2 MB each) may.
    const double bw_small = copy_gbps(o.smoke ? (1u << 18) : (4u << 20), o.smoke);
    std::printf("oflow-bench --cpu: %dx%d, every kernel on 1 thread over the whole plane; copy bandwidth %.1f GB/s "
                "(memcpy %s, 1 thread, read + write; %s: %.1f GB/s)%s\n",
                o.w, o.h, bw, o.smoke ? "1 MiB" : "64 MiB", o.smoke ? "256 KiB" : "4 MiB", bw_small,
                o.smoke ? "  (--smoke: checks the tool, measures nothing)" : "");
    std::printf("ns/px/it: per pixel per inner iteration (stages: per call); t/base: time over the baseline's; B/px and "
                "FLOP/px counted from the code (bench_cpu.cpp's first comment); %% copy: GB/s over the copy bandwidth\n");

    struct Spec {
        const char* name;
        of_backend backend;
        of_precision prec;
    } const specs[] = {{"reference", OF_BACKEND_REFERENCE, OF_PRECISION_F32},
                       {"NEON", OF_BACKEND_NEON, OF_PRECISION_F32},
                       {"NEON F16", OF_BACKEND_NEON, OF_PRECISION_F16}};
    std::vector<PathResult> paths;
    for (const Spec& s : specs) {
        if (o.reference && s.backend != OF_BACKEND_REFERENCE) continue;
        PathResult p;
        p.name = s.name;
        std::string why;
        if (!time_path(o, s.backend, s.prec, &p, &why)) {
            if (s.backend == OF_BACKEND_REFERENCE) {
                std::fprintf(stderr, "oflow-bench --cpu: the reference path: %s\n", why.c_str());
                return 1;
            }
            std::printf("\n%s path: not timed (%s)\n", s.name, why.c_str());
            continue;
        }
        // The F16 path's rows are set against the F32 two-kernel iteration of the same backend.
        const PathResult* f32 = nullptr;
        for (const PathResult& q : paths)
            if (s.prec == OF_PRECISION_F16 && q.name == "NEON") f32 = &q;
        p.base_ns = f32 ? f32->rows[0].ns_px : p.rows[0].ns_px;
        p.base_of = f32 ? "NEON F32 calc_u + calc_p" : "this path's F32 calc_u + calc_p";
        paths.push_back(p);
        print_path(paths.back(), paths.size() > 1 ? &paths[0] : nullptr, bw);
    }

    std::vector<FrameRow> frames;
    of_config shown;
    of_config_init(&shown, OF_ALGO_TVL1);
    if (o.frames && frame_rows(o, threads, &frames, &shown) != 0) return 1;
    if (o.frames) {
        std::printf("\nwhole frames through of_process: %dx%d smooth-field (core/synth.hpp), F32 frames, "
                    "of_config_init defaults (%u warps x %u iterations, epsilon %g, levels auto, median %u, "
                    "local-norm); ms per frame, median of %d\n",
                    o.w, o.h, shown.warps, shown.iterations, static_cast<double>(shown.epsilon), shown.median_size,
                    o.smoke ? 1 : 3);
        of_config lkc;
        of_config_init(&lkc, OF_ALGO_LK);
        std::printf("(LK: its own of_config_init defaults, window %u, min_eigen %g, up to %u Newton steps per level, "
                    "epsilon %g, median %u; iterations = the steps summed over the levels)\n",
                    lkc.lk.window, static_cast<double>(lkc.lk.min_eigen), lkc.iterations,
                    static_cast<double>(lkc.epsilon), lkc.median_size);
        std::printf("%-11s %-10s %11s %13s %8s %16s\n", "algorithm", "path", "1 thread", "threads", "speed-up",
                    "iterations 1 / N");
        for (const FrameRow& f : frames)
            std::printf("%-11s %-10s %11.2f %9.2f (%d) %7.2fx %9llu / %llu\n", f.name.c_str(), f.path.c_str(), f.ms1,
                        f.msn, threads, f.ms1 / f.msn, f.it1, f.itn);
    }

    std::vector<CostRow> cost;
    if (o.robust_cost) {
        if (robust_cost_rows(o, threads, &cost) != 0) return 1;
        std::printf("\nrobust modes at fixed work (epsilon 0, every iteration run): %dx%d smooth-field, %d threads, "
                    "ms per frame, median of %d; ratio = the mode's time over robust none's; * = the default\n",
                    o.w, o.h, threads, o.smoke ? 1 : 3);
        std::printf("%-7s %-12s %-10s %11s %8s %12s\n", "algo", "robust", "path", "ms", "ratio", "iterations");
        for (const CostRow& r : cost)
            std::printf("%-7s %-12s %-10s %11.2f %7.2fx %12llu\n", r.algo.c_str(),
                        (r.mode + (r.is_default ? " *" : "")).c_str(), r.path.c_str(), r.ms, r.ratio, r.it);
    }

    // Every row measured: a time that is not positive and finite is a failure of the tool.
    int bad = 0;
    for (const PathResult& p : paths) {
        if (static_cast<int>(p.rows.size()) != kRowCount) {
            std::fprintf(stderr, "oflow-bench --cpu: %s: %zu rows, want %d\n", p.name.c_str(), p.rows.size(), kRowCount);
            ++bad;
        }
        for (const Row& r : p.rows)
            if (r.present && !(r.ns_px > 0.0 && r.ns_px < 1e12)) {
                std::fprintf(stderr, "oflow-bench --cpu: %s: row '%s' has no valid time (%g)\n", p.name.c_str(),
                             r.name.c_str(), r.ns_px);
                ++bad;
            }
    }
    for (const FrameRow& f : frames)
        if (!(f.ms1 > 0.0 && f.msn > 0.0 && f.it1 > 0 && f.itn > 0)) {
            std::fprintf(stderr, "oflow-bench --cpu: frame row '%s' has no valid time\n", f.name.c_str());
            ++bad;
        }
    for (const CostRow& r : cost)
        if (!(r.ms > 0.0 && r.ratio > 0.0 && r.it > 0)) {
            std::fprintf(stderr, "oflow-bench --cpu: robust cost row '%s %s' has no valid time\n", r.algo.c_str(),
                         r.mode.c_str());
            ++bad;
        }
    if (o.robust_cost && cost.size() != kCostRows) {
        std::fprintf(stderr, "oflow-bench --cpu: %zu robust cost rows, want %zu\n", cost.size(), kCostRows);
        ++bad;
    }
    if (o.frames && frames.size() != kFrameRows) {
        std::fprintf(stderr, "oflow-bench --cpu: %zu frame rows, want %zu\n", frames.size(), kFrameRows);
        ++bad;
    }
    if (o.json) {
        FILE* j = std::fopen(o.json, "w");
        if (!j) {
            std::fprintf(stderr, "oflow-bench --cpu: cannot write %s\n", o.json);
            return 1;
        }
        std::fprintf(j, "{\"width\":%d,\"height\":%d,\"copy_gbps\":%.3f,\"copy_gbps_4mib\":%.3f,\"paths\":[", o.w,
                     o.h, bw, bw_small);
        for (size_t pi = 0; pi < paths.size(); ++pi) {
            const PathResult& p = paths[pi];
            std::fprintf(j, "%s{\"path\":\"%s\",\"baseline_ns_per_px_it\":%.6f,\"kernels\":[", pi ? "," : "",
                         p.name.c_str(), p.base_ns);
            for (size_t i = 0; i < p.rows.size(); ++i) {
                const Row& r = p.rows[i];
                std::fprintf(j, "%s{\"name\":\"%s\",\"per\":\"%s\",\"present\":%s,", i ? "," : "", r.name.c_str(),
                             r.kind == kStage ? "call" : "iteration", r.present ? "true" : "false");
                if (r.present)
                    std::fprintf(j, "\"ns_per_px_it\":%.6f,\"vs_baseline\":%.4f,\"gbps\":%.4f,\"copy_share\":%.4f,",
                                 r.ns_px, r.ns_px / p.base_ns, r.bytes / r.ns_px, r.bytes / r.ns_px / bw);
                else
                    std::fprintf(j, "\"ns_per_px_it\":null,");
                std::fprintf(j, "\"bytes_per_px_it\":%.0f,\"flops_per_px_it\":%.0f}", r.bytes, r.flops);
            }
            std::fprintf(j, "]}");
        }
        std::fprintf(j, "],\"frames\":{\"width\":%d,\"height\":%d,\"case\":\"smooth-field\",\"threads\":%d,\"rows\":[",
                     o.w, o.h, threads);
        for (size_t i = 0; i < frames.size(); ++i)
            std::fprintf(j,
                         "%s{\"name\":\"%s\",\"path\":\"%s\",\"ms_1_thread\":%.4f,\"ms_threads\":%.4f,"
                         "\"iterations_1_thread\":%llu,\"iterations_threads\":%llu}",
                         i ? "," : "", frames[i].name.c_str(), frames[i].path.c_str(), frames[i].ms1, frames[i].msn,
                         frames[i].it1, frames[i].itn);
        std::fprintf(j, "]},\"robust_cost\":[");
        for (size_t i = 0; i < cost.size(); ++i)
            std::fprintf(j, "%s{\"algorithm\":\"%s\",\"robust\":\"%s\",\"path\":\"%s\",\"ms\":%.4f,\"ratio\":%.4f,"
                            "\"iterations\":%llu,\"default\":%s}",
                         i ? "," : "", cost[i].algo.c_str(), cost[i].mode.c_str(), cost[i].path.c_str(), cost[i].ms,
                         cost[i].ratio, cost[i].it, cost[i].is_default ? "true" : "false");
        std::fprintf(j, "]}\n");
        std::fclose(j);
    }
    return bad ? 1 : 0;
}
