// oflow-bench --cpu: timings of the CPU path's kernels and whole frames, in every build.
//
// The kernels are the ones a context of the CPU path installs (of_create with backend AUTO on a
// build without a GPU at hand: NEON on aarch64, the reference elsewhere; --reference forces the
// reference), called directly on one thread over a whole --size plane (default 640x480), so that
// kernels added later are timed without touching this file. Rows, in ns per pixel per
// iteration (median of repeats), each beside the plain two-kernel F32 TV-L1 baseline
// (tvl1_calc_u then tvl1_calc_p) as a ratio:
//   TV-L1 fused row pipeline (tvl1_iter_rows, where the path has one); HS Jacobi; CLG coupled
//   Jacobi; plain point Jacobi; red-black SOR (one iteration = the red and the black
//   half-sweep); and the per-warp stages (warp_image, derivatives, tensor, the 5-channel blur
//   at rho 2, the red-black split of the 5 channels).
// Each row carries the bytes per pixel it moves (counted from the kernel: every plane read or
// written once per pixel, neighbours from cache) and its share of the copy bandwidth (memcpy of
// a buffer larger than the caches, one thread, read + write counted).
// Then whole frames through of_process (core/synth.hpp smooth-field pair at --size, each
// algorithm's defaults but 3 warps x 50 iterations, epsilon 0: a fixed amount of work) at 1
// thread and at --threads.
// --json FILE writes the rows (scripts/compare_opencv.py --sor-anchor reads the SOR row).
// --smoke: 64x48, few repeats: checks the tool (tests/bench_smoke), measures nothing.
#include "samples/bench/bench_cpu.hpp"

#include "core/context.hpp"
#include "core/hs_kernels.hpp"
#include "core/synth.hpp"
#include "oflow.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct CpuOpts {
    int w = 640, h = 480;
    int threads = 0; // 0: hardware_concurrency
    bool reference = false;
    bool smoke = false;
    const char* json = nullptr;
};

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Median seconds of `reps` runs of f (after one warm-up run).
double time_of(int reps, const std::function<void()>& f) {
    f();
    std::vector<double> s;
    for (int i = 0; i < reps; ++i) {
        const Clock::time_point t0 = Clock::now();
        f();
        s.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return median_of(s);
}

// memcpy bandwidth, one thread, 64 MiB, read + write counted.
double copy_gbps(bool smoke) {
    const size_t n = smoke ? (1u << 20) : (64u << 20);
    std::vector<unsigned char> a(n, 1), b(n, 2);
    const double s = time_of(smoke ? 2 : 9, [&] {
        std::memcpy(b.data(), a.data(), n);
        a[n / 2] = b[n / 3]; // keep the copy observable
    });
    return 2.0 * static_cast<double>(n) / s * 1e-9;
}

// A w x h float plane filled with a texture.
struct Buf {
    std::vector<float> v;
    oflow::Plane p{};
    Buf(int w, int h, float scale, unsigned seed) : v(static_cast<size_t>(w) * static_cast<size_t>(h)) {
        unsigned s = seed * 2654435761u + 1u;
        for (float& x : v) {
            s = s * 1664525u + 1013904223u;
            x = scale * static_cast<float>(s >> 8) * (1.0f / 16777216.0f);
        }
        p = oflow::Plane{v.data(), w, h, w};
    }
};

struct Row {
    std::string name;
    double ns_px;      // per pixel per iteration (or per call, for the per-warp stages)
    double bytes_px;   // bytes moved per pixel per iteration
};

of_context* make_ctx(of_algorithm algo, const CpuOpts& o, of_solver solver = OF_SOLVER_JACOBI) {
    of_config c;
    of_config_init(&c, algo);
    c.max_width = static_cast<uint32_t>(o.w);
    c.max_height = static_cast<uint32_t>(o.h);
    c.backend = o.reference ? OF_BACKEND_REFERENCE : OF_BACKEND_AUTO;
    c.hs.solver = solver;
    c.threads = 1;
    of_context* ctx = nullptr;
    if (of_create(&c, &ctx) != OF_OK) {
        std::fprintf(stderr, "oflow-bench --cpu: of_create: %s\n", of_last_error(nullptr));
        return nullptr;
    }
    of_info in;
    std::memset(&in, 0, sizeof in);
    in.struct_size = sizeof in;
    of_get_info(ctx, &in);
    if (in.backend == OF_BACKEND_CUDA) { // a GPU build on a GPU machine: the CPU path is asked for
        of_destroy(ctx);
        c.backend = OF_BACKEND_REFERENCE;
        if (of_create(&c, &ctx) != OF_OK) return nullptr;
    }
    return ctx;
}

const char* backend_of(of_context* ctx) {
    of_info in;
    std::memset(&in, 0, sizeof in);
    in.struct_size = sizeof in;
    of_get_info(ctx, &in);
    return in.backend == OF_BACKEND_NEON ? "NEON" : "reference";
}

int kernel_rows(const CpuOpts& o, std::vector<Row>* rows, const char** path) {
    const int w = o.w, h = o.h, reps = o.smoke ? 2 : 15;
    const double px = static_cast<double>(w) * static_cast<double>(h);
    of_context* tv = make_ctx(OF_ALGO_TVL1, o);
    of_context* hs = make_ctx(OF_ALGO_CLG, o);
    if (!tv || !hs) return 1;
    *path = backend_of(hs);
    const oflow::KernelTable& kt = tv->kt;
    const oflow::HsKernels& k = hs->hs;
    auto add = [&](const char* name, double seconds, double bytes) {
        rows->push_back(Row{name, seconds / px * 1e9, bytes});
    };

    // TV-L1: u1, u2, p11..p22 in/out, i1wx, i1wy, grad, rho_c in (F32 duals).
    Buf u1(w, h, 0.5f, 1), u2(w, h, 0.5f, 2), p11(w, h, 0.1f, 3), p12(w, h, 0.1f, 4), p21(w, h, 0.1f, 5),
        p22(w, h, 0.1f, 6), gx(w, h, 20.0f, 7), gy(w, h, 20.0f, 8), g2(w, h, 800.0f, 9), rc(w, h, 10.0f, 10);
    oflow::Tvl1IterArgs ta{u1.p, u2.p, p11.p, p12.p, p21.p, p22.p, gx.p, gy.p, g2.p, rc.p, 0.045f, 0.3f, 0.25f / 0.3f};
    // calc_u reads u, p (4), grad terms (4), writes u (2): 12 floats; calc_p reads u (2), p (4), writes p (4): 10.
    add("tvl1 calc_u + calc_p (baseline)", time_of(reps, [&] {
            kt.tvl1_calc_u(ta, 0, h);
            kt.tvl1_calc_p(ta, 0, h);
        }),
        4.0 * 22);
    if (kt.tvl1_iter_rows)
        add("tvl1 iter_rows (fused rows)", time_of(reps, [&] { kt.tvl1_iter_rows(ta, 0, h); }), 4.0 * 12);

    // HS / CLG: du, dv in, du', dv' out; HS reads ix, iy, it; CLG the 5 tensor channels.
    Buf du(w, h, 1.0f, 11), dv(w, h, 1.0f, 12), nu(w, h, 0.0f, 13), nv(w, h, 0.0f, 14), ix(w, h, 30.0f, 15),
        iy(w, h, 30.0f, 16), it(w, h, 30.0f, 17);
    Buf j0(w, h, 900.0f, 18), j1(w, h, 300.0f, 19), j2(w, h, 900.0f, 20), j3(w, h, 900.0f, 21), j4(w, h, 900.0f, 22);
    oflow::HsJacobiArgs ja;
    ja.du = du.p;
    ja.dv = dv.p;
    ja.du_next = nu.p;
    ja.dv_next = nv.p;
    ja.ix = ix.p;
    ja.iy = iy.p;
    ja.it = it.p;
    const oflow::Plane jp[oflow::kHsChannels] = {j0.p, j1.p, j2.p, j3.p, j4.p};
    for (int c = 0; c < oflow::kHsChannels; ++c) ja.j[c] = jp[c];
    ja.alpha2 = 225.0f;
    add("hs jacobi", time_of(reps, [&] { k.hs_jacobi(ja, 0, h); }), 4.0 * 7);
    add("clg coupled jacobi", time_of(reps, [&] { k.clg_jacobi(ja, 0, h); }), 4.0 * 9);
    add("clg plain point jacobi", time_of(reps, [&] { k.clg_jacobi_plain(ja, 0, h); }), 4.0 * 9);

    // Red-black SOR: the tensor split into colour halves, the increment too (core/hs_level_cpu.cpp).
    const int hw = (w + 1) / 2;
    std::vector<Buf> halves;
    halves.reserve(2 * oflow::kHsChannels + 8);
    oflow::HsSorArgs red, black;
    for (int c = 0; c < oflow::kHsChannels; ++c) {
        halves.emplace_back(hw, h, 0.0f, 30u + static_cast<unsigned>(c));
        red.j[c] = halves.back().p;
        halves.emplace_back(hw, h, 0.0f, 40u + static_cast<unsigned>(c));
        black.j[c] = halves.back().p;
        k.rb_split(jp[c], red.j[c], black.j[c], 0, h);
    }
    oflow::Plane sp[8];
    for (int i = 0; i < 8; ++i) {
        halves.emplace_back(hw, h, 1.0f, 50u + static_cast<unsigned>(i));
        sp[i] = halves.back().p;
    }
    red.u_old = sp[0], red.v_old = sp[1], red.u_other = sp[2], red.v_other = sp[3], red.u_new = sp[4], red.v_new = sp[5];
    black.u_old = sp[2], black.v_old = sp[3], black.u_other = sp[4], black.v_other = sp[5], black.u_new = sp[6],
    black.v_new = sp[7];
    for (oflow::HsSorArgs* a : {&red, &black}) {
        a->alpha2 = 225.0f;
        a->omega = 1.4f;
        a->w = w;
    }
    red.colour = 0;
    black.colour = 1;
    // Per pixel of the full plane: its colour's old u, v and 5 tensor channels in, u', v' out,
    // the other colour's u, v in (from cache: each is read by the neighbouring half-sweep too).
    add("red-black SOR (red + black)", time_of(reps, [&] {
            k.sor_half_sweep(red, 0, h);
            k.sor_half_sweep(black, 0, h);
        }),
        4.0 * 9);

    // Per-warp stages.
    Buf i0(w, h, 255.0f, 60), i1(w, h, 255.0f, 61), out(w, h, 0.0f, 62);
    add("stage warp_image (bicubic)", time_of(reps, [&] { kt.warp_image(i0.p, i1.p, u1.p, u2.p, out.p, 0, h); }),
        4.0 * 5);
    oflow::HsDerivArgs da{i0.p, i1.p, ix.p, iy.p, it.p};
    add("stage hs derivatives", time_of(reps, [&] { k.derivatives(da, 0, h); }), 4.0 * 5);
    oflow::HsTensorArgs tna;
    tna.ix = ix.p;
    tna.iy = iy.p;
    tna.it = it.p;
    for (int c = 0; c < oflow::kHsChannels; ++c) tna.j[c] = jp[c];
    add("stage tensor (5 channels)", time_of(reps, [&] { k.tensor(tna, 0, h); }), 4.0 * 8);
    const oflow::Gaussian1D g = oflow::make_gaussian(2.0f);
    std::vector<Buf> tmp;
    tmp.reserve(oflow::kHsChannels);
    oflow::Plane tp[oflow::kHsChannels];
    for (int c = 0; c < oflow::kHsChannels; ++c) {
        tmp.emplace_back(w, h, 0.0f, 70u + static_cast<unsigned>(c));
        tp[c] = tmp.back().p;
    }
    add("stage tensor blur rho 2 (5 ch, h+v)", time_of(reps, [&] {
            k.blur_h_multi(jp, tp, oflow::kHsChannels, g, 0, h);
            k.blur_v_multi(tp, jp, oflow::kHsChannels, g, 0, h);
        }),
        4.0 * 20);
    add("stage rb_split (5 ch)", time_of(reps, [&] {
            for (int c = 0; c < oflow::kHsChannels; ++c) k.rb_split(jp[c], red.j[c], black.j[c], 0, h);
        }),
        4.0 * 10);
    of_destroy(tv);
    of_destroy(hs);
    return 0;
}

struct FrameRow {
    std::string name;
    double ms1, msn;
    unsigned long long iterations;
};

int frame_rows(const CpuOpts& o, int threads, std::vector<FrameRow>* rows) {
    const size_t n = static_cast<size_t>(o.w) * static_cast<size_t>(o.h);
    std::vector<float> f0(n), f1(n), gu(n), gv(n);
    oflow::synth::generate(oflow::synth::Case::SmoothField, o.w, o.h, 1, f0.data(), f1.data(), gu.data(), gv.data(), o.w);
    struct Algo {
        of_algorithm a;
        of_solver s;
        const char* name;
    } const algos[] = {{OF_ALGO_TVL1, OF_SOLVER_JACOBI, "tvl1"},
                       {OF_ALGO_HS, OF_SOLVER_JACOBI, "hs jacobi"},
                       {OF_ALGO_HS, OF_SOLVER_RED_BLACK_SOR, "hs sor"},
                       {OF_ALGO_CLG, OF_SOLVER_JACOBI, "clg jacobi"},
                       {OF_ALGO_CLG, OF_SOLVER_RED_BLACK_SOR, "clg sor"}};
    for (const Algo& a : algos) {
        FrameRow r{a.name, 0, 0, 0};
        for (int pass = 0; pass < 2; ++pass) {
            of_config c;
            of_config_init(&c, a.a);
            c.max_width = static_cast<uint32_t>(o.w);
            c.max_height = static_cast<uint32_t>(o.h);
            c.format = OF_PIXEL_F32;
            c.backend = o.reference ? OF_BACKEND_REFERENCE : OF_BACKEND_AUTO;
            c.hs.solver = a.s;
            c.warps = o.smoke ? 1 : 3;
            c.iterations = o.smoke ? 5 : 50;
            c.epsilon = 0.0f;
            c.threads = static_cast<uint32_t>(pass == 0 ? 1 : threads);
            of_context* ctx = nullptr;
            if (of_create(&c, &ctx) != OF_OK) {
                std::fprintf(stderr, "oflow-bench --cpu: %s: %s\n", a.name, of_last_error(nullptr));
                return 1;
            }
            of_info in;
            std::memset(&in, 0, sizeof in);
            in.struct_size = sizeof in;
            of_get_info(ctx, &in);
            if (in.backend == OF_BACKEND_CUDA) { // the CPU path is asked for
                of_destroy(ctx);
                c.backend = OF_BACKEND_REFERENCE;
                if (of_create(&c, &ctx) != OF_OK) return 1;
            }
            of_image i0{sizeof(of_image), OF_PIXEL_F32, OF_MEMORY_HOST, static_cast<uint32_t>(o.w),
                        static_cast<uint32_t>(o.h), static_cast<size_t>(o.w) * 4, f0.data()};
            of_image i1 = i0;
            i1.data = f1.data();
            std::vector<float> u(static_cast<size_t>(o.w) * static_cast<size_t>(o.h)), v(u.size());
            of_flow f{sizeof(of_flow), OF_FLOW_PLANAR, OF_MEMORY_HOST, static_cast<uint32_t>(o.w),
                      static_cast<uint32_t>(o.h), static_cast<size_t>(o.w) * 4, u.data(), v.data()};
            of_status st = OF_OK;
            const double s = time_of(o.smoke ? 1 : 3, [&] {
                if (st == OF_OK) st = of_process(ctx, &i0, &i1, &f);
            });
            std::memset(&in, 0, sizeof in);
            in.struct_size = sizeof in;
            of_get_info(ctx, &in);
            of_destroy(ctx);
            if (st != OF_OK) {
                std::fprintf(stderr, "oflow-bench --cpu: %s: process failed\n", a.name);
                return 1;
            }
            (pass == 0 ? r.ms1 : r.msn) = s * 1e3;
            r.iterations = in.last_iterations;
        }
        rows->push_back(r);
    }
    return 0;
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
        } else if (!std::strcmp(argv[i], "--size") && i + 1 < argc && std::sscanf(argv[i + 1], "%dx%d", &o.w, &o.h) == 2) {
            ++i;
        } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
            o.threads = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--json") && i + 1 < argc) {
            o.json = argv[++i];
        } else {
            std::fprintf(stderr, "usage: oflow-bench --cpu [--size WxH] [--threads N] [--reference] [--json FILE] [--smoke]\n");
            return 2;
        }
    }
    if (o.smoke) o.w = 64, o.h = 48;
    if (o.w < 8 || o.h < 8 || o.w > 8192 || o.h > 8192) {
        std::fprintf(stderr, "oflow-bench --cpu: --size %dx%d not in 8..8192\n", o.w, o.h);
        return 2;
    }
    const int threads = o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
    const double bw = copy_gbps(o.smoke);
    std::vector<Row> rows;
    const char* path = "?";
    if (kernel_rows(o, &rows, &path) != 0) return 1;
    std::printf("oflow-bench --cpu: %s path, %dx%d, 1 thread; copy bandwidth %.1f GB/s (memcpy, read + write)%s\n", path,
                o.w, o.h, bw, o.smoke ? " (--smoke: measures nothing)" : "");
    std::printf("%-38s %10s %9s %8s %7s %8s\n", "kernel", "ns/px/it", "vs base", "B/px/it", "GB/s", "% copy");
    const double base = rows[0].ns_px;
    for (const Row& r : rows) {
        const double gbs = r.bytes_px / r.ns_px; // bytes per ns = GB/s
        std::printf("%-38s %10.3f %8.2fx %8.0f %7.2f %7.0f%%\n", r.name.c_str(), r.ns_px, base / r.ns_px, r.bytes_px, gbs,
                    100.0 * gbs / bw);
    }
    std::vector<FrameRow> frames;
    if (frame_rows(o, threads, &frames) != 0) return 1;
    std::printf("\nwhole frames, %dx%d smooth-field, %s warps x %s iterations, epsilon 0 (ms per frame)\n", o.w, o.h,
                o.smoke ? "1" : "3", o.smoke ? "5" : "50");
    std::printf("%-12s %10s %12s %12s\n", "algorithm", "1 thread", "threads", "iterations");
    for (const FrameRow& f : frames)
        std::printf("%-12s %10.2f %9.2f (%d) %12llu\n", f.name.c_str(), f.ms1, f.msn, threads, f.iterations);
    // Every row measured: a time that is not positive and finite is a failure of the tool.
    int bad = 0;
    for (const Row& r : rows)
        if (!(r.ns_px > 0.0 && r.ns_px < 1e12)) {
            std::fprintf(stderr, "oflow-bench --cpu: row '%s' has no valid time (%g)\n", r.name.c_str(), r.ns_px);
            ++bad;
        }
    for (const FrameRow& f : frames)
        if (!(f.ms1 > 0.0 && f.msn > 0.0 && f.iterations > 0)) {
            std::fprintf(stderr, "oflow-bench --cpu: frame row '%s' has no valid time\n", f.name.c_str());
            ++bad;
        }
    // baseline, 3 Jacobi, SOR, 5 stages (+ the fused TV-L1 row where the path has one)
    if (rows.size() < 10 || frames.size() != 5) {
        std::fprintf(stderr, "oflow-bench --cpu: %zu kernel rows and %zu frame rows (want >= 10 and 5)\n", rows.size(),
                     frames.size());
        ++bad;
    }
    if (bad) return 1;
    if (o.json) {
        FILE* j = std::fopen(o.json, "w");
        if (!j) {
            std::fprintf(stderr, "oflow-bench --cpu: cannot write %s\n", o.json);
            return 1;
        }
        std::fprintf(j, "{\"path\":\"%s\",\"width\":%d,\"height\":%d,\"copy_gbps\":%.3f,\"kernels\":[", path, o.w, o.h, bw);
        for (size_t i = 0; i < rows.size(); ++i)
            std::fprintf(j, "%s{\"name\":\"%s\",\"ns_per_px_it\":%.6f,\"bytes_per_px_it\":%.0f}", i ? "," : "",
                         rows[i].name.c_str(), rows[i].ns_px, rows[i].bytes_px);
        std::fprintf(j, "],\"frames\":[");
        for (size_t i = 0; i < frames.size(); ++i)
            std::fprintf(j, "%s{\"name\":\"%s\",\"ms_1_thread\":%.4f,\"ms_threads\":%.4f,\"threads\":%d,\"iterations\":%llu}",
                         i ? "," : "", frames[i].name.c_str(), frames[i].ms1, frames[i].msn, threads, frames[i].iterations);
        std::fprintf(j, "]}\n");
        std::fclose(j);
    }
    return 0;
}
