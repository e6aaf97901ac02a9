// The per-frame pipeline of the CUDA path (the structure of core/flow_driver.cpp flow_process_cpu):
// pyramids (conversion of both frames, the exposure range match of the pair, then per frame
// local normalisation, presmooth, levels), the texture rule's coarsest
// level (on the device), then per level from coarse to fine: flow initialisation (zero or
// bilinear upsampling of the coarser flow), p = 0, gradient of I1, per warp the bicubic warp,
// the inner iterations of the configured variant and the median filter, and at the end of the
// level the zeroing above the coarsest level / the sanity bound. Everything is enqueued on the
// context's stream; the host neither allocates nor waits here (a split frame waits once).
#include "cuda/cuda_check.cuh"
#include "cuda/cuda_state.cuh"

#include "core/algorithm.hpp" // Algorithm::finest_read_level
#include "core/flow_format.hpp"
#include "core/robust.hpp"
#include "core/schedule.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace oflow {
namespace cuda {
namespace {

std::size_t plane_bytes(const LevelDims& d, std::size_t elem) {
    return static_cast<std::size_t>(d.pitch) * static_cast<std::size_t>(d.h) * elem;
}

template <class T2>
IterArgs<T2> iter_args(const State& st, const LevelDims& d, int ucur, int pcur) {
    const DevLayout& l = st.lay;
    IterArgs<T2> a;
    a.w = d.w;
    a.h = d.h;
    a.pitch = static_cast<int>(d.pitch);
    a.u_in = st.plane<float2>(l.u[ucur], d).p;
    a.u_out = st.plane<float2>(l.u[ucur ^ 1], d).p;
    a.p1_in = st.plane<T2>(l.px[pcur], d).p;
    a.p2_in = st.plane<T2>(l.py[pcur], d).p;
    a.p1_out = st.plane<T2>(l.px[pcur ^ 1], d).p;
    a.p2_out = st.plane<T2>(l.py[pcur ^ 1], d).p;
    a.g = st.plane<T2>(l.g, d).p;
    a.rc = st.plane<float>(l.rc, d).p;
    a.gr = Pair<T2>::kHalf ? nullptr : st.plane<float>(l.gr, d).p;
    // OF_ROBUST_CENSUS: the minor channel (F32 only: the census tuning is GLOBAL F32).
    a.minor = !Pair<T2>::kHalf && st.cfg.robust == OF_ROBUST_CENSUS ? st.plane<float2>(l.tv_minor, d).p : nullptr;
    const of_tvl1_params& t = st.cfg.tvl1;
    a.lt = t.lambda * t.theta;
    a.theta = t.theta;
    a.k = t.tau / t.theta;
    a.eps.stop = nullptr;
    a.eps.counter = &st.ctrl()->counter;
    a.eps.partials = st.partials();
    a.eps.thresh = 0.0;
    return a;
}

// MULTI_ITER blocks for a level: the configured height, halved on coarse levels while the grid
// would not give every SM two blocks (a small grid leaves SMs idle and each launch then costs
// the latency of one block). Only when the caller left block_height at 0, and never more
// blocks than the epsilon partial sums hold (the largest level at the configured shape).
int multi_block_height(const State& st, const LevelDims& d) {
    const Tuning& t = st.tun;
    const int rows = t.rows;
    const auto blocks = [&](int nw) {
        const int tw = t.region_w - 2 * t.depth, th = nw * rows - 2 * t.depth;
        return static_cast<std::size_t>((d.w + tw - 1) / tw) * static_cast<std::size_t>((d.h + th - 1) / th);
    };
    int bh = t.bh;
    if (st.cfg.block_height != 0) return bh;
    while (bh > 1 && (bh / 2) * rows > 2 * t.depth && blocks(bh) < static_cast<std::size_t>(2 * st.sm_count) &&
           blocks(bh / 2) <= st.lay.partial_count)
        bh /= 2;
    return bh;
}

template <class T2>
of_status iterate(State& st, const LevelDims& d, int iterations, int slot, float epsilon, int* ucur,
                  int* pcur, const ErrorSink& err) {
    const Tuning& t = st.tun;
    IterArgs<T2> a = iter_args<T2>(st, d, *ucur, *pcur);
    if (slot >= 0 && epsilon > 0.0f) {
        a.eps.stop = &st.ctrl()->stop[slot];
        const double e = static_cast<double>(epsilon);
        a.eps.thresh = e * e * static_cast<double>(d.w) * static_cast<double>(d.h);
    }
    if (t.variant == OF_VARIANT_GLOBAL) {
        // In place: the reference's own structure.
        a.u_out = a.u_in;
        a.p1_out = a.p1_in;
        a.p2_out = a.p2_in;
        for (int n = 0; n < iterations; ++n)
            OF_CUDA_TRY(launch_global_iteration(a, n, t.bw, t.bh, st.stream), "global iteration launch");
        return OF_OK;
    }
    const IterArgs<T2> start = a;
    // MULTI_ITER: the fewest launches of at most t.depth iterations, the iterations spread evenly
    // over them (10 at depth 7: 5 + 5, not 7 + 3), and each launch's tiles sized for its own
    // count, so that a short launch does not pay the halo of a long one.
    const int launches = t.variant == OF_VARIANT_FUSED ? iterations : (iterations + t.depth - 1) / t.depth;
    const int bh = t.variant == OF_VARIANT_MULTI_ITER ? multi_block_height(st, d) : t.bh;
    for (int k = 0; k < launches; ++k) {
        if (t.variant == OF_VARIANT_FUSED) {
            OF_CUDA_TRY(launch_fused_iteration(a, k, t.bw, t.bh, t.shared_bytes, st.stream),
                        "fused iteration launch");
        } else {
            const int n = iterations / launches + (k < iterations % launches ? 1 : 0);
            OF_CUDA_TRY(launch_multi_iteration(a, k, n, n, t.bw, bh, t.rows, t.bound, t.shared_bytes, st.stream),
                        "multi-iteration launch");
        }
        IterArgs<T2> next = a;
        next.u_in = a.u_out;
        next.u_out = a.u_in;
        next.p1_in = a.p1_out;
        next.p1_out = a.p1_in;
        next.p2_in = a.p2_out;
        next.p2_out = a.p2_in;
        a = next;
    }
    if (a.eps.stop && launches > 0)
        OF_CUDA_TRY(launch_pingpong_fixup(start, launches, st.stream), "ping-pong fixup launch");
    if (launches & 1) {
        *ucur ^= 1;
        *pcur ^= 1;
    }
    return OF_OK;
}

} // namespace

int iterations_by_launch(int stop_value, int iterations, int depth) {
    const int launches = (iterations + depth - 1) / depth;
    if (stop_value < 0 || stop_value >= launches) return iterations;
    const int n = (stop_value + 1) * depth;
    return n < iterations ? n : iterations;
}

int iterations_run(const State& st, const LevelDims& d, int stop_value, int iterations) {
    return st.ops->iterations_run(st, d, stop_value, iterations);
}

of_status median_step(State& st, const LevelDims& d, int* ucur, const ErrorSink& err) {
    const int median = static_cast<int>(st.cfg.median_size);
    if (median <= 0) return OF_OK;
    const DPlane<float2> u = st.plane<float2>(st.lay.u[*ucur], d);
    OF_CUDA_TRY(launch_median_flow({u.p, u.w, u.h, u.pitch}, st.plane<float2>(st.lay.u[*ucur ^ 1], d), median, st.stream),
                "median launch");
    *ucur ^= 1;
    return OF_OK;
}

namespace {

// The converted frame goes to a scratch plane (scratch(frame): both frames are converted before
// solve() runs) and the presmooth blurs it from there into level 0 in one pass. Without a
// presmooth the conversion writes an F32 level 0 itself; an F16 level 0 is then the converted
// frame copied (rounded) by presmooth().
DPlane<float> convert_target(const State& st, int frame, const LevelDims& d0) {
    return st.presmooth.radius > 0 || st.half_pyr() ? st.scratch(frame, d0) : st.pyr(frame, 0, d0);
}

of_status convert_frame(State& st, int frame, Src src, const LevelDims& d0, const ErrorSink& err) {
    OF_CUDA_TRY(launch_convert(src.p, src.stride, st.cfg.format, convert_target(st, frame, d0), st.stream),
                "convert launch");
    return OF_OK;
}

// Exposure range matching (core/robust.hpp, core/flow_driver.cpp match_exposure) of both converted
// frames, in place, before either normalisation: histograms into Ctrl::exposure_hist, the match
// into Ctrl::exposure, the map of each frame (range_map(): nothing when it leaves it as is). All on
// the device: no host wait, so solve() stays capturable and each replay decides per frame.
of_status match_exposure(State& st, const LevelDims& d0, const ErrorSink& err) {
    if (!robust_matches_exposure(st.cfg.robust)) return OF_OK;
    const cudaStream_t s = st.stream;
    Ctrl* c = st.ctrl();
    const DPlane<float> f0 = convert_target(st, 0, d0), f1 = convert_target(st, 1, d0);
    OF_CUDA_TRY(cudaMemsetAsync(c->exposure_hist, 0, sizeof(c->exposure_hist), s), "cudaMemsetAsync(exposure_hist)");
    OF_CUDA_TRY(launch_exposure_hist({f0.p, f0.w, f0.h, f0.pitch}, {f1.p, f1.w, f1.h, f1.pitch}, c->exposure_hist,
                                     2 * st.sm_count, s),
                "exposure histogram launch");
    const unsigned long long n = static_cast<unsigned long long>(d0.w) * static_cast<unsigned long long>(d0.h);
    OF_CUDA_TRY(launch_exposure_match(c->exposure_hist, n, &c->exposure, s), "exposure match launch");
    OF_CUDA_TRY(launch_map_range(f0, f1, &c->exposure, st.cfg.robust, s), "exposure map launch");
    return OF_OK;
}

// OF_ROBUST_SHADE_NORM (core/robust.hpp, core/flow_driver.cpp shade_level0): both converted frames
// divided by their local mean, before the exposure match. Scratch: robust_scratch(0) and (1),
// free until the first level's warp.
of_status shade(State& st, const LevelDims& d0, const ErrorSink& err) {
    if (st.cfg.robust != OF_ROBUST_SHADE_NORM) return OF_OK;
    const int r = shade_radius(d0.w, d0.h);
    for (int f = 0; f < 2; ++f)
        OF_CUDA_TRY(launch_shade_norm(convert_target(st, f, d0), st.robust_scratch(0, d0), st.robust_scratch(1, d0), r,
                                      st.stream),
                    "shade-norm launch");
    return OF_OK;
}

// The local normalisation's scratch planes before the levels (robust_scratch(0..2)), size d.
struct Robust3 {
    DPlane<float> p[3];
};
Robust3 robust3(const State& st, const LevelDims& d) {
    return {{st.robust_scratch(0, d), st.robust_scratch(1, d), st.robust_scratch(2, d)}};
}

// Local contrast normalisation (core/robust.hpp, core/flow_driver.cpp normalize_level) of img
// in place: mean = G*I, var = G*(I - mean)^2,
// I = mid + gain (I - mean) / (sqrt(max(var, 0)) + floor). Scratch: 3 F32 planes of img's size,
// mean, sq and var: before the levels robust_scratch(0..2) (robust3: DevLayout::robust, free
// until the first level's warp), after the solve conf_planes' scratch (free then; robust
// overlaps u[1] for TV-L1, which may hold the flow). P: float, or __half for a level of an F16
// pyramid (the statistics stay F32).
// m: null for kRobustFloor, else the pair's match on the device (level_norm_floor(*m, frame)).
// g: the window (st.robust_blur, or the fine levels' level_norm_fine_sigma).
template <class P>
of_status normalize_plane(State& st, DPlane<P> img, const ExposureMatch* m, int frame, const DPlane<float>* scratch,
                          const Gaussian1D& g, const ErrorSink& err) {
    const cudaStream_t s = st.stream;
    const DPlane<float> mean = scratch[0], sq = scratch[1], var = scratch[2];
    const DPlane<const P> cimg{img.p, img.w, img.h, img.pitch};
    const DPlane<const float> cmean{mean.p, mean.w, mean.h, mean.pitch};
    OF_CUDA_TRY(launch_blur(cimg, mean, g, s), "blur launch");
    OF_CUDA_TRY(launch_robust_sq(cimg, cmean, sq, s), "robust launch");
    OF_CUDA_TRY(launch_blur({sq.p, sq.w, sq.h, sq.pitch}, var, g, s), "blur launch");
    OF_CUDA_TRY(launch_robust_combine(cimg, cmean, {var.p, var.w, var.h, var.pitch}, img, kRobustMid, kRobustGain,
                                      kRobustFloor, m, frame, s),
                "robust launch");
    return OF_OK;
}

// OF_ROBUST_LOCAL_NORM: the converted frame, before its presmooth.
of_status normalize(State& st, int frame, const LevelDims& d0, const ErrorSink& err) {
    if (st.cfg.robust != OF_ROBUST_LOCAL_NORM) return OF_OK;
    return normalize_plane(st, convert_target(st, frame, d0), nullptr, frame, robust3(st, d0).p, st.robust_blur, err);
}

of_status build_levels_from(State& st, int frame, const LevelDims* dims, int from, int end, const ErrorSink& err);

// OF_ROBUST_LEVEL_NORM: every level of a built pyramid at its own scale (core/flow_driver.cpp
// normalize_pyramids), after both pyramids are built (the level blurs' scratch(0) is free again)
// and the texture rule has judged them. As on the CPU, levels finer than the finest the solver
// reads only carry the flow down and are not normalised, unless a warm start judges its level's
// residual (Algorithm::finest_read_level; DIS: dis.finest_level). OF_ROBUST_CENSUS: the same
// from level 1 on (core/census.hpp: level 0's census reads the range-matched frame). With
// Algorithm::level_norm_fine L > 0 (DIS, never under census) the levels finer than L are instead
// rebuilt from level level_norm_fine_base normalised with the frame's window (floor kRobustFloor:
// core/robust.hpp), the CPU's split.
// m: the pair's match on the device (Ctrl::exposure, after match_exposure()), or null for a
// frame alone (the bench hooks: kRobustFloor).
of_status normalize_levels(State& st, int frame, const LevelDims* dims, int levels, const ExposureMatch* m,
                           const ErrorSink& err) {
    if (st.cfg.robust != OF_ROBUST_LEVEL_NORM && st.cfg.robust != OF_ROBUST_CENSUS) return OF_OK;
    const Algorithm* a = find_algorithm(st.cfg.algorithm);
    int first = a && a->finest_read_level && !st.cfg.warm_start ? static_cast<int>(a->finest_read_level(st.cfg)) : 0;
    if (st.cfg.robust == OF_ROBUST_CENSUS && first < 1) first = 1;
    const int fine = st.cfg.robust == OF_ROBUST_LEVEL_NORM ? level_norm_fine_levels(a ? a->level_norm_fine : 0, levels) : 0;
    if (first < fine) {
        const int b = level_norm_fine_base(first);
        const Gaussian1D g = make_gaussian(level_norm_fine_sigma(st.cfg.robust_sigma, b));
        const Robust3 sc = robust3(st, dims[b]);
        const of_status r = st.half_pyr() ? normalize_plane(st, st.pyr_h(frame, b, dims[b]), nullptr, frame, sc.p, g, err)
                                          : normalize_plane(st, st.pyr(frame, b, dims[b]), nullptr, frame, sc.p, g, err);
        if (r != OF_OK) return r;
        const of_status e = build_levels_from(st, frame, dims, b + 1, fine, err); // the coarser levels are built already
        if (e != OF_OK) return e;
        first = fine;
    }
    for (int l = first; l < levels; ++l) {
        const Robust3 sc = robust3(st, dims[l]);
        const of_status r = st.half_pyr() ? normalize_plane(st, st.pyr_h(frame, l, dims[l]), m, frame, sc.p, st.robust_blur, err)
                                          : normalize_plane(st, st.pyr(frame, l, dims[l]), m, frame, sc.p, st.robust_blur, err);
        if (r != OF_OK) return r;
    }
    return OF_OK;
}

template <class T>
DPlane<const T> as_const(const DPlane<T>& p) {
    return {p.p, p.w, p.h, p.pitch};
}

of_status presmooth(State& st, int frame, const LevelDims& d0, const ErrorSink& err) {
    const DPlane<const float> in = as_const(convert_target(st, frame, d0));
    if (st.half_pyr()) {
        const DPlane<__half> dst = st.pyr_h(frame, 0, d0);
        if (st.presmooth.radius > 0)
            OF_CUDA_TRY(launch_blur(in, dst, st.presmooth, st.stream), "blur launch");
        else
            OF_CUDA_TRY(launch_resample(in, dst, st.stream), "level 0 copy launch"); // same size: a copy
        return OF_OK;
    }
    if (st.presmooth.radius <= 0) return OF_OK;
    OF_CUDA_TRY(launch_blur(in, st.pyr(frame, 0, d0), st.presmooth, st.stream), "blur launch");
    return OF_OK;
}

// Levels from .. end - 1 of a frame whose level from - 1 is built: anti-alias blur of level l-1
// into scratch(0) (F32), resampled into level l. Uses scratch(0) only, so run it after both
// presmooths.
of_status build_levels_from(State& st, int frame, const LevelDims* dims, int from, int end, const ErrorSink& err) {
    const cudaStream_t s = st.stream;
    for (int l = from; l < end; ++l) {
        const DPlane<float> smooth = st.scratch(0, dims[l - 1]);
        if (st.half_pyr()) {
            OF_CUDA_TRY(launch_blur(as_const(st.pyr_h(frame, l - 1, dims[l - 1])), smooth, st.level_blur, s), "blur launch");
            OF_CUDA_TRY(launch_resample(as_const(smooth), st.pyr_h(frame, l, dims[l]), s), "resample launch");
        } else {
            OF_CUDA_TRY(launch_blur(as_const(st.pyr(frame, l - 1, dims[l - 1])), smooth, st.level_blur, s), "blur launch");
            OF_CUDA_TRY(launch_resample(as_const(smooth), st.pyr(frame, l, dims[l]), s), "resample launch");
        }
    }
    return OF_OK;
}

// Levels 1 .. levels - 1 of a frame whose level 0 is built.
of_status build_levels(State& st, int frame, const LevelDims* dims, int levels, const ErrorSink& err) {
    return build_levels_from(st, frame, dims, 1, levels, err);
}

} // namespace

// One frame alone (the bench/test hooks, cuda_bench.cu): no exposure match, which needs both
// converted frames of a pair; solve() runs it for process().
of_status build_pyramid(State& st, int frame, Src src, const LevelDims* dims, int levels,
                        const ErrorSink& err) {
    of_status r = convert_frame(st, frame, src, dims[0], err);
    if (r == OF_OK) r = normalize(st, frame, dims[0], err);
    if (r == OF_OK) r = presmooth(st, frame, dims[0], err);
    if (r == OF_OK) r = build_levels(st, frame, dims, levels, err);
    return r == OF_OK ? normalize_levels(st, frame, dims, levels, nullptr, err) : r;
}

of_status run_warp(State& st, const LevelDims& d, int level, int ucur, const ErrorSink& err) {
    const DevLayout& l = st.lay;
    const DPlane<float2> u = st.plane<float2>(l.u[ucur], d);
    if (st.tun.precision == OF_PRECISION_F16) { // F16 pyramids (half_pyramids)
        WarpArgs<__half2> a;
        a.i0 = as_const(st.pyr_h(0, level, d));
        a.i1 = as_const(st.pyr_h(1, level, d));
        a.u = {u.p, u.w, u.h, u.pitch};
        a.g = st.plane<__half2>(l.g, d);
        a.rc = st.plane<float>(l.rc, d);
        a.gr = a.rc;
        a.gr.p = nullptr;
        a.i1w = a.rc;
        a.i1w.p = nullptr;
        OF_CUDA_TRY(launch_warp(a, st.stream), "warp launch");
    } else {
        // OF_ROBUST_CENSUS (core/tvl1_level_cpu.cpp): the warped frame and its gradient go to the
        // census planes, and the census channels write the iterations' g, gr and rc from them.
        const bool census = st.cfg.robust == OF_ROBUST_CENSUS;
        WarpArgs<float2> a;
        a.i0 = as_const(st.pyr(0, level, d));
        a.i1 = as_const(st.pyr(1, level, d));
        a.u = {u.p, u.w, u.h, u.pitch};
        a.g = st.plane<float2>(census ? l.tv_census_g : l.g, d);
        a.rc = st.plane<float>(l.rc, d);
        a.gr = st.plane<float>(l.gr, d);
        a.i1w = st.plane<float>(l.tv_i1w, d);
        if (!census) a.i1w.p = nullptr;
        OF_CUDA_TRY(launch_warp(a, st.stream), "warp launch");
        if (census) {
            CensusTvl1Args c;
            c.i0 = a.i0;
            c.i1w = as_const(st.plane<float>(l.tv_i1w, d));
            c.g = as_const(a.g);
            c.u = a.u;
            c.a = st.plane<float2>(l.g, d);
            c.gr = a.gr;
            c.rc = a.rc;
            c.minor = st.plane<float2>(l.tv_minor, d);
            c.eta = st.ctrl()->census_eta;
            OF_CUDA_TRY(launch_census_tvl1(c, st.stream), "census launch");
        }
    }
    return OF_OK;
}

of_status run_iterations(State& st, const LevelDims& d, int iterations, int slot, float epsilon,
                         int* ucur, int* pcur, const ErrorSink& err) {
    if (st.tun.precision == OF_PRECISION_F16)
        return iterate<__half2>(st, d, iterations, slot, epsilon, ucur, pcur, err);
    return iterate<float2>(st, d, iterations, slot, epsilon, ucur, pcur, err);
}

namespace {

// Ctrl::top = the texture rule's coarsest level for frame 0's pyramid (built), on the device.
of_status texture_top(State& st, const SolveInfo& info, const ErrorSink& err) {
    TexLevels t;
    t.levels = info.levels;
    t.half = st.half_pyr();
    for (int l = 0; l < kMaxLevels; ++l) {
        const bool in = l < info.levels;
        t.p[l] = !in ? nullptr : t.half ? static_cast<const void*>(st.pyr_h(0, l, info.dims[l]).p) : st.pyr(0, l, info.dims[l]).p;
        t.w[l] = in ? info.dims[l].w : 0;
        t.h[l] = in ? info.dims[l].h : 0;
        t.pitch[l] = in ? static_cast<int>(info.dims[l].pitch) : 0;
    }
    Ctrl* c = st.ctrl();
    OF_CUDA_TRY(launch_texture_top(t, c->tex, static_cast<double>(st.cfg.min_texture), &c->top, st.stream),
                "texture launch");
    return OF_OK;
}

// An F16 level downloaded packed (w x h halves) at the start of its F32 host plane (rows
// host_pitch(w) floats), widened in place from the last element back: element k's float lands
// at or after byte 4 k, past every half still to be read (those of elements < k end at 2 k).
void widen_level(float* plane, int w, int h) {
    const std::uint16_t* half = reinterpret_cast<const std::uint16_t*>(plane);
    const std::ptrdiff_t pitch = host_pitch(w);
    for (std::ptrdiff_t y = h - 1; y >= 0; --y)
        for (std::ptrdiff_t x = w - 1; x >= 0; --x) {
            const std::uint16_t bits = half[y * w + x];
            plane[y * pitch + x] = f16_to_float(bits);
        }
}

// Levels st.cpu.from.. of a split frame on the CPU: both pyramids' coarse levels (and the
// coarsest level to solve, when the device decided it) down to the host, one wait, the CPU
// solve from that level, and level `from`'s flow up into u[0]. Sets info->top. F16 levels are
// widened to F32 on the host after the wait (the CPU path computes in F32).
of_status run_cpu_levels(State& st, SolveInfo* info, const ErrorSink& err) {
    const cudaStream_t s = st.stream;
    const int from = st.cpu.from;
    const std::size_t e = st.lay.pyr_elem;
    for (int f = 0; f < 2; ++f)
        for (int l = from; l < info->levels; ++l) {
            const LevelDims& d = info->dims[l];
            const unsigned char* src = st.arena + st.lay.pyr[f] + st.lay.level_off[l];
            unsigned char* dst = reinterpret_cast<unsigned char*>(st.cpu.pyr[f]) + st.cpu.level_off[l];
            const std::size_t dpitch = e == 4 ? static_cast<std::size_t>(host_pitch(d.w)) * 4 : static_cast<std::size_t>(d.w) * e;
            OF_CUDA_TRY(cudaMemcpy2DAsync(dst, dpitch, src, static_cast<std::size_t>(d.pitch) * e,
                                          static_cast<std::size_t>(d.w) * e, static_cast<std::size_t>(d.h),
                                          cudaMemcpyDeviceToHost, s),
                        "coarse pyramid download");
        }
    int* top_back = reinterpret_cast<int*>(st.pinned + st.lay.stage_ctrl) + kStageTop;
    if (info->top < 0)
        OF_CUDA_TRY(cudaMemcpyAsync(top_back, &st.ctrl()->top, sizeof(int), cudaMemcpyDeviceToHost, s),
                    "coarsest level download");
    OF_CUDA_TRY(cudaStreamSynchronize(s), "coarse pyramid download");
    if (e == 2)
        for (int f = 0; f < 2; ++f)
            for (int l = from; l < info->levels; ++l)
                widen_level(reinterpret_cast<float*>(reinterpret_cast<unsigned char*>(st.cpu.pyr[f]) + st.cpu.level_off[l]),
                            info->dims[l].w, info->dims[l].h);
    if (info->top < 0) info->top = *top_back;
    of_status r = st.cpu.solve(st.cpu.user, info->dims[0].w, info->dims[0].h, info->top, &info->cpu_iterations);
    if (r != OF_OK) return r;
    const LevelDims& d = info->dims[from];
    const DPlane<float2> u = st.plane<float2>(st.lay.u[0], d);
    OF_CUDA_TRY(cudaMemcpy2DAsync(u.p, static_cast<std::size_t>(u.pitch) * 8, st.cpu.flow_xy,
                                  static_cast<std::size_t>(d.w) * 8, static_cast<std::size_t>(d.w) * 8,
                                  static_cast<std::size_t>(d.h), cudaMemcpyHostToDevice, s),
                "coarse flow upload");
    return OF_OK;
}

// Everything of a frame after the two conversions under one robust mode (st.cfg.robust, never
// OF_ROBUST_PICK): pyramids, coarse-to-fine warps and iterations.
of_status solve_one(State& st, const ErrorSink& err, SolveInfo* info) {
    const cudaStream_t s = st.stream;
    const DevLayout& lay = st.lay;
    const LevelDims* dims = info->dims;
    const int levels = info->levels;

    // Shade-norm's division (SHADE_NORM), the exposure match of the pair (both frames
    // converted), then both normalisations and presmooths: they read the converted frames from
    // scratch(0) and scratch(1) (or level 0 without a presmooth), which the level blurs then reuse.
    of_status r = shade(st, dims[0], err);
    if (r == OF_OK) r = match_exposure(st, dims[0], err);
    if (r == OF_OK) r = normalize(st, 0, dims[0], err);
    if (r == OF_OK) r = normalize(st, 1, dims[0], err);
    if (r == OF_OK) r = presmooth(st, 0, dims[0], err);
    if (r == OF_OK) r = presmooth(st, 1, dims[0], err);
    if (r == OF_OK) r = build_levels(st, 0, dims, levels, err);
    if (r == OF_OK) r = build_levels(st, 1, dims, levels, err);
    if (r == OF_OK && info->top < 0) r = texture_top(st, *info, err); // -> Ctrl::top
    // After the texture rule, which judges the levels as they are (core/flow_driver.cpp).
    if (r == OF_OK) r = normalize_levels(st, 0, dims, levels, &st.ctrl()->exposure, err);
    if (r == OF_OK) r = normalize_levels(st, 1, dims, levels, &st.ctrl()->exposure, err);
    if (r != OF_OK) return r;
    // OF_ROBUST_CENSUS: each frame's level-0 RMS gradient, once per pair (core/flow_driver.cpp
    // build_pyramids; level 0 is never normalised under census), into Ctrl::census_rms0.
    const bool census = st.cfg.robust == OF_ROBUST_CENSUS;
    if (census && st.half_pyr()) return err.fail(OF_ERR_INTERNAL, "cuda: robust census on F16 pyramids");
    if (census)
        OF_CUDA_TRY(launch_census_rms0(as_const(st.pyr(0, 0, dims[0])), as_const(st.pyr(1, 0, dims[0])), st.ctrl(), s),
                    "census launch");

    // Fresh control block: counter 0, no warp stopped.
    Ctrl* ctrl = st.ctrl();
    OF_CUDA_TRY(cudaMemsetAsync(ctrl, 0, offsetof(Ctrl, stop), s), "cudaMemsetAsync(ctrl)");
    OF_CUDA_TRY(cudaMemsetAsync(ctrl->stop, 0x7f, sizeof(ctrl->stop), s), "cudaMemsetAsync(stop)");

    int ucur = 0;
    // plan_frame() set gpu_levels = levels and cpu_iterations = 0; a split frame changes both
    // (and makes top known to the host).
    if (st.cpu.from > 0 && st.cpu.from < levels) { // u[0] then holds level `from`'s flow
        r = run_cpu_levels(st, info, err);
        if (r != OF_OK) return r;
        info->gpu_levels = st.cpu.from;
    }
    // Coarsest level solved: the host's value when it has one, else the device's (Ctrl::top).
    // Levels above it still run (they are small); their flow is zeroed at their end, so that
    // the level `top` starts from zero flow exactly as the CPU path, which starts there.
    const int* top_dev = info->top < 0 ? &ctrl->top : nullptr;
    for (int l = info->gpu_levels - 1; l >= 0; --l) {
        const LevelDims& d = dims[l];
        if (l == levels - 1) {
            OF_CUDA_TRY(cudaMemsetAsync(st.arena + lay.u[ucur], 0, plane_bytes(d, 8), s), "cudaMemsetAsync(u)");
        } else {
            const LevelDims& c = dims[l + 1];
            const DPlane<float2> src = st.plane<float2>(lay.u[ucur], c);
            const float mx = static_cast<float>(d.w) / static_cast<float>(c.w);
            const float my = static_cast<float>(d.h) / static_cast<float>(c.h);
            OF_CUDA_TRY(launch_upsample_flow({src.p, src.w, src.h, src.pitch}, st.plane<float2>(lay.u[ucur ^ 1], d),
                                             mx, my, s),
                        "upsample launch");
            ucur ^= 1;
        }
        // config.init OF_INIT_DIS: DIS's flow fused into the level's start where the CPU path fuses it
        // (core/flow_driver.cpp solve_levels: before the warm start), init_dis_cuda.cu.
        r = init_fuse_level(st, *info, l, ucur, top_dev, err);
        if (r != OF_OK) return r;
        const bool warm = st.cfg.warm_start && l == warm_level(levels); // a stream's (core/stream.hpp)
        if (warm) {
            const DPlane<const float2> kept = as_const(st.plane<float2>(lay.warm, d));
            const DPlane<float2> u = st.plane<float2>(lay.u[ucur], d);
            if (st.half_pyr())
                OF_CUDA_TRY(launch_warm_enter(as_const(st.pyr_h(0, l, d)), as_const(st.pyr_h(1, l, d)), u, kept, ctrl, s),
                            "warm start launch");
            else
                OF_CUDA_TRY(launch_warm_enter(as_const(st.pyr(0, l, d)), as_const(st.pyr(1, l, d)), u, kept, ctrl, s),
                            "warm start launch");
        }
        if (census) // each frame's eta at this level (core/census.hpp), read by the census kernels
            OF_CUDA_TRY(launch_census_eta(as_const(st.pyr(0, l, d)), as_const(st.pyr(1, l, d)), ctrl, s), "census launch");
        r = st.ops->level(st, d, l, &ucur, err);
        if (r != OF_OK) return r;
        OF_CUDA_TRY(launch_finish_level(st.plane<float2>(lay.u[ucur], d), l, top_dev, info->top,
                                        level_margin(l, d.w, d.h), s),
                    "level end launch");
        if (warm) // kept for the next pair (of_process's pairs keep it too: unused, warm_ready is 0)
            OF_CUDA_TRY(cudaMemcpy2DAsync(st.arena + lay.warm, static_cast<std::size_t>(d.pitch) * 8, st.arena + lay.u[ucur],
                                          static_cast<std::size_t>(d.pitch) * 8, static_cast<std::size_t>(d.w) * 8,
                                          static_cast<std::size_t>(d.h), cudaMemcpyDeviceToDevice, s),
                        "warm start copy");
    }
    info->ucur = ucur;
    return OF_OK;
}

// A device-to-device copy of a level-0 plane of `row` bytes a row (pitch d.pitch elements of
// `elem` bytes) from arena offset `from` to `to`.
of_status copy_plane(State& st, std::size_t from, std::size_t to, const LevelDims& d, std::size_t elem,
                     const ErrorSink& err) {
    const std::size_t pitch = static_cast<std::size_t>(d.pitch) * elem;
    OF_CUDA_TRY(cudaMemcpy2DAsync(st.arena + to, pitch, st.arena + from, pitch, static_cast<std::size_t>(d.w) * elem,
                                  static_cast<std::size_t>(d.h), cudaMemcpyDeviceToDevice, st.stream),
                "robust pick copy");
    return OF_OK;
}

// OF_ROBUST_PICK (core/robust.hpp; the CPU's is core/flow_driver.cpp solve_pair_pick): the
// converted frames kept and normalised as LOCAL_NORM (the judge), then per candidate the frames
// restored, solve_one under the candidate's mode (st.cfg.robust reads as it while it runs), the
// judge and the choice on the device (launch_pick_judge), and the candidate's stop slots and
// coarsest level into DevLayout::pick_stop; at the end the kept flow (and confidence plane) back
// into the plane a solve leaves it in, and Ctrl::top = the kept candidate's. No host wait: the
// whole of it is captured in the solver graph. Never a split frame (select.cpp).
of_status solve_pick(State& st, const ErrorSink& err, SolveInfo* info) {
    const DevLayout& lay = st.lay;
    const LevelDims& d0 = info->dims[0];
    const cudaStream_t s = st.stream;
    Ctrl* ctrl = st.ctrl();
    const std::size_t target[2] = {static_cast<std::size_t>(reinterpret_cast<unsigned char*>(convert_target(st, 0, d0).p) - st.arena),
                                   static_cast<std::size_t>(reinterpret_cast<unsigned char*>(convert_target(st, 1, d0).p) - st.arena)};
    of_status r = OF_OK;
    for (int f = 0; f < 2 && r == OF_OK; ++f) {
        r = copy_plane(st, target[f], lay.pick_frame[f], d0, 4, err);
        if (r == OF_OK) r = copy_plane(st, target[f], lay.pick_judge[f], d0, 4, err);
        if (r == OF_OK) r = normalize_plane(st, st.plane<float>(lay.pick_judge[f], d0), nullptr, f, robust3(st, d0).p, st.robust_blur, err);
    }
    if (r != OF_OK) return r;
    float half = 0.0f; // unused here: the kept candidate's raw plane is copied as it is
    float* conf = st.ops->confidence ? const_cast<float*>(st.ops->confidence(st, &half)) : nullptr;
    const DPlane<float> conf_plane{conf, d0.w, d0.h, static_cast<int>(d0.pitch)};
    const DPlane<float> keep_conf = conf ? st.plane<float>(lay.pick_conf, d0) : DPlane<float>{nullptr, d0.w, d0.h, 0};
    const DPlane<float2> keep = st.plane<float2>(lay.pick_u, d0);
    int ucur = 0;
    for (int i = 0; i < pick_count(st.cfg.algorithm); ++i) {
        for (int f = 0; f < 2 && i > 0 && r == OF_OK; ++f) r = copy_plane(st, lay.pick_frame[f], target[f], d0, 4, err);
        if (r != OF_OK) return r;
        SolveInfo one = *info;
        const float min_texture = st.cfg.min_texture;
        const uint32_t median = st.cfg.median_size;
        const of_robust cand = pick_candidates(st.cfg.algorithm)[i];
        st.cfg.robust = cand;
        st.cfg.min_texture = pick_min_texture(cand, min_texture);
        st.cfg.median_size = pick_median(st.cfg.algorithm, cand, median);
        // one.top stays as planned: where the device decides (-1), the rule at min_texture 0
        // decides levels - 1 (k_texture_top) and writes Ctrl::top, which the stop copy below reads.
        r = solve_one(st, err, &one);
        st.cfg.robust = OF_ROBUST_PICK;
        st.cfg.min_texture = min_texture;
        st.cfg.median_size = median;
        if (r != OF_OK) return r;
        ucur = one.ucur;
        OF_CUDA_TRY(launch_pick_judge(as_const(st.plane<float>(lay.pick_judge[0], d0)),
                                      as_const(st.plane<float>(lay.pick_judge[1], d0)),
                                      as_const(st.plane<float2>(lay.u[ucur], d0)), keep, as_const(conf_plane), keep_conf,
                                      i, pick_weight(cand, st.cfg.algorithm), ctrl, s),
                    "robust pick launch");
        int* stop = reinterpret_cast<int*>(st.arena + lay.pick_stop) + static_cast<std::size_t>(i) * kPickStopInts;
        OF_CUDA_TRY(cudaMemcpyAsync(stop, ctrl->stop, sizeof(int) * kStopSlots, cudaMemcpyDeviceToDevice, s),
                    "robust pick copy");
        OF_CUDA_TRY(cudaMemcpyAsync(stop + kStopSlots, &ctrl->top, sizeof(int), cudaMemcpyDeviceToDevice, s),
                    "robust pick copy");
    }
    r = copy_plane(st, lay.pick_u, lay.u[ucur], d0, 8, err);
    if (r == OF_OK && conf) r = copy_plane(st, lay.pick_conf, static_cast<std::size_t>(reinterpret_cast<unsigned char*>(conf) - st.arena), d0, 4, err);
    if (r != OF_OK) return r;
    OF_CUDA_TRY(cudaMemcpyAsync(&ctrl->top, &ctrl->pick_top, sizeof(int), cudaMemcpyDeviceToDevice, s),
                "robust pick copy");
    info->ucur = ucur;
    return OF_OK;
}

} // namespace

ConfPlanes conf_planes(const State& st, const LevelDims& d0, int ucur) {
    const DevLayout& lay = st.lay;
    const std::size_t other = lay.u[ucur ^ 1]; // 2 F32 planes: the float2 slot's bytes
    ConfPlanes c;
    c.conf = st.f32_plane(other, 0, d0);
    const bool pick = st.cfg.robust == OF_ROBUST_PICK;
    c.n0 = pick ? st.plane<float>(lay.pick_judge[0], d0) : st.f32_plane(lay.conf_work, 0, d0);
    c.n1 = pick ? st.plane<float>(lay.pick_judge[1], d0) : st.f32_plane(lay.conf_work, 1, d0);
    c.scratch[0] = st.f32_plane(other, 1, d0);
    c.scratch[1] = st.f32_plane(lay.conf_work, 2, d0);
    c.scratch[2] = st.f32_plane(lay.conf_work, 3, d0);
    return c;
}

of_status residual_confidence(State& st, const Src* src, const LevelDims& d0, int ucur, DPlane<const float> own, float half,
                              DPlane<float>* out, const ErrorSink& err) {
    const ConfPlanes c = conf_planes(st, d0, ucur);
    if (st.cfg.robust != OF_ROBUST_PICK) {
        // Both frames as the CPU path converts them (core/flow_driver.cpp residual_confidence_cpu):
        // from the sources, not from the pyramids' planes, which the robust mode, the presmooth
        // and the level blurs changed. kRobustFloor: no exposure match (m null).
        const DPlane<float> n[2] = {c.n0, c.n1};
        for (int f = 0; f < 2; ++f) {
            OF_CUDA_TRY(launch_convert(src[f].p, src[f].stride, st.cfg.format, n[f], st.stream), "convert launch");
            const of_status r = normalize_plane(st, n[f], nullptr, f, c.scratch, st.robust_blur, err);
            if (r != OF_OK) return r;
        }
    }
    OF_CUDA_TRY(launch_confidence(as_const(c.n0), as_const(c.n1), as_const(st.plane<float2>(st.lay.u[ucur], d0)), own, half,
                                  c.conf, st.stream),
                "confidence launch");
    *out = c.conf;
    return OF_OK;
}

namespace {

// Everything of a frame after the two conversions: pyramids, coarse-to-fine warps and
// iterations, once, or once per candidate under OF_ROBUST_PICK. Depends only on the frame size,
// so it can be captured as a graph (unless the frame is split: the CPU levels wait for the
// pyramids in the middle).
of_status solve(State& st, const ErrorSink& err, SolveInfo* info) {
    return st.cfg.robust == OF_ROBUST_PICK ? solve_pick(st, err, info) : solve_one(st, err, info);
}

of_status plan_frame(const State& st, int w, int h, const ErrorSink& err, SolveInfo* info) {
    const of_config& cfg = st.cfg;
    info->levels = dev_pyramid_dims(w, h, cfg, info->dims);
    if (info->levels > st.lay.levels || w > static_cast<int>(cfg.max_width) || h > static_cast<int>(cfg.max_height))
        return err.fail(OF_ERR_INTERNAL, "cuda: %dx%d frame with %d levels exceeds the plan (%d levels)", w, h,
                        info->levels, st.lay.levels);
    info->launches = 0;
    for (int l = 0; l < info->levels; ++l)
        info->launches +=
            st.ops->launches(st, info->dims[l], static_cast<int>(level_iterations(cfg.iterations, cfg.iteration_growth, l)));
    info->ucur = 0;
    info->gpu_levels = info->levels;
    info->cpu_iterations = 0;
    // The texture rule on a pyramid of 2+ levels is decided on the device (solve()).
    info->top = texture_rule_applies(cfg.levels, cfg.min_texture, cfg.robust) && info->levels > 1 ? -1 : info->levels - 1;
    return OF_OK;
}

} // namespace

of_status run_frame(State& st, Src a, Src b, int w, int h, const ErrorSink& err, SolveInfo* info) {
    of_status r = plan_frame(st, w, h, err, info);
    if (r == OF_OK) r = convert_frame(st, 0, a, info->dims[0], err);
    if (r == OF_OK) r = convert_frame(st, 1, b, info->dims[0], err);
    if (r != OF_OK) return r;
    if (st.graph && w == static_cast<int>(st.cfg.max_width) && h == static_cast<int>(st.cfg.max_height)) {
        // never a split frame: create() does not capture one
        OF_CUDA_TRY(cudaGraphLaunch(st.graph, st.stream), "solver graph launch");
        info->ucur = st.graph_ucur;
        return OF_OK;
    }
    return solve(st, err, info);
}

of_status capture_solver(State& st, const ErrorSink& err) {
    st.graph = nullptr;
    SolveInfo info;
    of_status r = plan_frame(st, static_cast<int>(st.cfg.max_width), static_cast<int>(st.cfg.max_height), err, &info);
    if (r != OF_OK) return r;
    // A schedule too long to capture (kGraphMaxLaunches): no graph, frames enqueue.
    const long long passes = robust_passes(st.cfg.robust, st.cfg.algorithm);
    if (static_cast<long long>(st.cfg.warps) * info.launches * passes > kGraphMaxLaunches)
        return OF_OK;
    // Capture on a private stream: the context's stream may be the caller's, with other work.
    cudaStream_t cap = nullptr;
    OF_CUDA_TRY(cudaStreamCreateWithFlags(&cap, cudaStreamNonBlocking), "cudaStreamCreate(capture)");
    const cudaStream_t keep = st.stream;
    st.stream = cap;
    cudaError_t e = cudaStreamBeginCapture(cap, cudaStreamCaptureModeThreadLocal);
    if (e == cudaSuccess) {
        r = solve(st, err, &info);
        cudaGraph_t g = nullptr;
        e = cudaStreamEndCapture(cap, &g);
        if (r == OF_OK && e == cudaSuccess) {
#if CUDART_VERSION >= 12000
            e = cudaGraphInstantiate(&st.graph, g, 0);
#else
            e = cudaGraphInstantiate(&st.graph, g, nullptr, nullptr, 0);
#endif
        }
        if (g) (void)cudaGraphDestroy(g);
    }
    st.stream = keep;
    (void)cudaStreamDestroy(cap);
    if (r != OF_OK) return r;
    if (e != cudaSuccess) {
        st.graph = nullptr;
        (void)cudaGetLastError();
        return err.fail(OF_ERR_DEVICE, "cuda: capturing the solver graph: %s: %s", cudaGetErrorName(e),
                        cudaGetErrorString(e));
    }
    st.graph_ucur = info.ucur;
    return OF_OK;
}

// ---- TV-L1's steps ------------------------------------------------------------------------

namespace {

// p = 0, then per warp the bicubic warp (which takes I1's gradient itself), the inner iterations
// of the configured variant and the median filter.
of_status tvl1_level(State& st, const LevelDims& d, int l, int* ucur, const ErrorSink& err) {
    const of_config& cfg = st.cfg;
    const cudaStream_t s = st.stream;
    const DevLayout& lay = st.lay;
    const std::size_t pair = st.tun.precision == OF_PRECISION_F16 ? 4u : 8u;
    int pcur = 0;
    OF_CUDA_TRY(cudaMemsetAsync(st.arena + lay.px[0], 0, plane_bytes(d, pair), s), "cudaMemsetAsync(p)");
    OF_CUDA_TRY(cudaMemsetAsync(st.arena + lay.py[0], 0, plane_bytes(d, pair), s), "cudaMemsetAsync(p)");
    const int iterations = static_cast<int>(level_iterations(cfg.iterations, cfg.iteration_growth, l));
    for (int wp = 0; wp < static_cast<int>(cfg.warps); ++wp) {
        of_status r = run_warp(st, d, l, *ucur, err);
        if (r == OF_OK) r = run_iterations(st, d, iterations, l * kMaxWarps + wp, cfg.epsilon, ucur, &pcur, err);
        if (r == OF_OK) r = median_step(st, d, ucur, err);
        if (r != OF_OK) return r;
    }
    return OF_OK;
}

int tvl1_depth(const State& st) { return st.tun.variant == OF_VARIANT_MULTI_ITER ? st.tun.depth : 1; }

int tvl1_launches(const State& st, const LevelDims&, int iterations) {
    return (iterations + tvl1_depth(st) - 1) / tvl1_depth(st);
}

int tvl1_iterations_run(const State& st, const LevelDims&, int stop_value, int iterations) {
    return iterations_by_launch(stop_value, iterations, tvl1_depth(st));
}

void tvl1_iteration_kernels(const State& st, char* prefix, std::size_t n) {
    if (st.tun.variant == OF_VARIANT_MULTI_ITER)
        std::snprintf(prefix, n, "multi_iter_%s_r%d_b%d", st.tun.precision == OF_PRECISION_F16 ? "f16x2" : "f32",
                      st.tun.rows, st.tun.bound);
    else
        std::snprintf(prefix, n, "%s", st.tun.variant == OF_VARIANT_GLOBAL ? "global_calc" : "fused");
}

} // namespace

const AlgoOps kTvl1Ops = {"tvl1", tvl1_level, tvl1_launches, tvl1_iterations_run, tvl1_iteration_kernels, nullptr};

} // namespace cuda
} // namespace oflow
