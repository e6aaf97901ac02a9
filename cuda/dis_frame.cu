// Dense Inverse Search steps of the CUDA frame pipeline (kDisOps, cuda_state.cuh): one pyramid
// level as core/dis_level_cpu.cpp does it on the CPU (dis_cuda.cuh has the scheme): gradient,
// patch sums, the rounds of search with the propagation between them, densification into the
// level's flow, the refinement (HS's warp and red-black SOR kernels), the median when asked for.
// Levels finer than config.dis.finest_level keep the upsampled flow. Everything is enqueued on
// the context's stream: no allocation, no wait, so the whole pyramid is captured in the graph.
//
// Iteration count: a solved level counts config.dis.iterations (the CPU path's count); a level
// finer than finest_level writes -1 into its stop slot and counts none (dis_iterations_run).
#include "cuda/cuda_check.cuh"
#include "cuda/cuda_state.cuh"
#include "cuda/dis_cuda.cuh"
#include "cuda/dis_frame.cuh"
#include "cuda/hs_cuda.cuh"

#include "core/dis_level_cpu.hpp" // kDisSorIterations, kDisSorOmega

#include <cstdio>

namespace oflow {
namespace cuda {

bool dis_f16(const State& st) { return st.tun.precision == OF_PRECISION_F16; }

DisGrid dis_level_grid(const State& st, const LevelDims& d) {
    return dis_grid(d.w, d.h, static_cast<int>(st.cfg.dis.patch_size), static_cast<int>(st.cfg.dis.patch_stride));
}

DisLevelArgs dis_level_args(const State& st, const LevelDims& d, int level) {
    const DevLayout& l = st.lay;
    DisLevelArgs a;
    a.w = d.w;
    a.h = d.h;
    a.pitch = static_cast<int>(d.pitch);
    a.sp = l.dis_sp_pitch;
    a.g = dis_level_grid(st, d);
    a.i0 = st.pyr(0, level, d).p;
    a.i1 = st.pyr(1, level, d).p;
    a.grad = st.arena + l.dis_g;
    for (int c = 0; c < kDisSums; ++c) a.sum[c] = dis_sparse<float>(st, l.dis_sum + static_cast<std::size_t>(c) * l.dis_sp_plane);
    return a;
}

of_status dis_prepare_level(State& st, const DisLevelArgs& a, const ErrorSink& err) {
    OF_CUDA_TRY(launch_dis_gradient(a, dis_f16(st), st.stream), "DIS gradient launch");
    OF_CUDA_TRY(launch_dis_patch_sums(a, dis_f16(st), st.stream), "DIS patch sums launch");
    return OF_OK;
}

int dis_rounds(const State& st) {
    const int iters = static_cast<int>(st.cfg.dis.iterations);
    return (iters + kDisRoundSteps - 1) / kDisRoundSteps;
}

int dis_round_steps(const State& st, int r) {
    const int iters = static_cast<int>(st.cfg.dis.iterations), rounds = dis_rounds(st);
    return iters * (r + 1) / rounds - iters * r / rounds;
}

of_status dis_search(State& st, const DisLevelArgs& a, const float2* u, const float2** result, const ErrorSink& err) {
    const DevLayout& l = st.lay;
    const bool f16 = dis_f16(st);
    float2* s = dis_sparse<float2>(st, l.dis_s);
    float2* t[2] = {dis_sparse<float2>(st, l.dis_t[0]), dis_sparse<float2>(st, l.dis_t[1])};
    DisSearchCuda sa;
    sa.l = a;
    sa.md = dis_sparse<float>(st, l.dis_md);
    sa.err = dis_sparse<float>(st, l.dis_err);
    sa.u = u;
    const int rounds = dis_rounds(st);
    if (st.tun.variant == OF_VARIANT_GLOBAL) {
        // dis_level_cpu's schedule: starts -> s; per round (propagation t -> s), steps s -> t.
        OF_CUDA_TRY(launch_dis_init(a, u, s, st.stream), "DIS init launch");
        sa.s_in = s;
        sa.t_out = t[0];
        sa.first = false;
        for (int r = 0; r < rounds; ++r) {
            if (r > 0) OF_CUDA_TRY(launch_dis_propagate_global(a, t[0], sa.err, s, st.stream), "DIS propagation launch");
            sa.iterations = dis_round_steps(st, r);
            OF_CUDA_TRY(launch_dis_search_global(sa, f16, st.stream), "DIS search launch");
        }
        *result = t[0];
        return OF_OK;
    }
    for (int r = 0; r < rounds; ++r) {
        sa.first = r == 0;
        sa.s_in = r == 0 ? nullptr : t[(r - 1) & 1];
        sa.t_out = t[r & 1];
        sa.iterations = dis_round_steps(st, r);
        OF_CUDA_TRY(launch_dis_round_fused(sa, f16, st.stream), "DIS fused round launch");
    }
    *result = t[(rounds - 1) & 1];
    return OF_OK;
}

namespace {

template <class T2>
T2* half_of(const State& st, std::size_t off, const LevelDims& d, int colour) {
    const std::size_t half = static_cast<std::size_t>(hs_half_pitch(d.w)) * static_cast<std::size_t>(d.h);
    return reinterpret_cast<T2*>(st.arena + off) + (colour ? half : 0);
}

template <class T2>
of_status refine_t(State& st, const LevelDims& d, int level, float2* u, const ErrorSink& err) {
    const DevLayout& l = st.lay;
    const of_config& cfg = st.cfg;
    const cudaStream_t s = st.stream;
    const int hp = hs_half_pitch(d.w);
    const DPlane<float> i0 = st.pyr(0, level, d), i1 = st.pyr(1, level, d);
    const DPlane<float> i1w = st.plane<float>(l.hs_i1w, d);
    const DPlane<const float2> uc{u, d.w, d.h, static_cast<int>(d.pitch)};
    OF_CUDA_TRY(launch_hs_warp_image({i0.p, i0.w, i0.h, i0.pitch}, {i1.p, i1.w, i1.h, i1.pitch}, uc, i1w, s),
                "DIS refinement warp launch");
    const std::size_t slot = static_cast<std::size_t>(2 * hp) * static_cast<std::size_t>(d.h) * sizeof(T2);
    OF_CUDA_TRY(cudaMemsetAsync(st.arena + l.hs_du[0], 0, slot, s), "cudaMemsetAsync(DIS increment)");
    DisRefineCuda ra;
    ra.w = d.w;
    ra.h = d.h;
    ra.pitch = static_cast<int>(d.pitch);
    ra.hpitch = hp;
    ra.i0 = i0.p;
    ra.i1w = i1w.p;
    ra.u = u;
    for (int c = 0; c < 2; ++c) {
        ra.d[c] = half_of<T2>(st, l.hs_coef[0], d, c);
        ra.o[c] = half_of<T2>(st, l.hs_coef[1], d, c);
        ra.r[c] = half_of<T2>(st, l.hs_coef[2], d, c);
    }
    for (int c = 0; c < kHsChannels; ++c) ra.j[c] = nullptr;
    ra.alpha2 = cfg.dis.refine_alpha;
    ra.delta = cfg.dis.refine_delta;
    ra.gamma = cfg.dis.refine_gamma;
    HsSorArgs<T2> sa;
    sa.w = d.w;
    sa.h = d.h;
    sa.hpitch = hp;
    for (int c = 0; c < 2; ++c)
        sa.c[c] = HsCoef<T2>{half_of<T2>(st, l.hs_coef[0], d, c), half_of<T2>(st, l.hs_coef[1], d, c),
                             half_of<T2>(st, l.hs_coef[2], d, c)};
    sa.omega = kDisSorOmega;
    sa.eps.stop = nullptr;
    sa.eps.counter = &st.ctrl()->counter;
    sa.eps.partials = st.partials();
    sa.eps.thresh = 0.0;
    sa.red_partials = reinterpret_cast<float*>(st.arena + l.red_partials);
    const Tuning& t = st.tun;
    sa.red_blocks = static_cast<unsigned>(((d.w + 1) / 2 + t.bw - 1) / t.bw) * static_cast<unsigned>((d.h + t.bh - 1) / t.bh);
    int side = 0;
    int n = 0;
    for (uint32_t fp = 0; fp < cfg.dis.refine_iterations; ++fp) {
        for (int c = 0; c < 2; ++c) ra.du[c] = half_of<T2>(st, l.hs_du[side], d, c);
        OF_CUDA_TRY(launch_dis_refine_coef(ra, sizeof(T2) == 4, s), "DIS refinement tensor launch");
        for (int it = 0; it < kDisSorIterations; ++it, ++n) {
            for (int c = 0; c < 2; ++c) {
                sa.old_[c] = half_of<T2>(st, l.hs_du[side], d, c);
                sa.new_[c] = half_of<T2>(st, l.hs_du[side ^ 1], d, c);
            }
            if (t.variant == OF_VARIANT_GLOBAL) {
                OF_CUDA_TRY(launch_hs_sor_half(sa, 0, n, t.bw, t.bh, s), "DIS SOR red launch");
                OF_CUDA_TRY(launch_hs_sor_half(sa, 1, n, t.bw, t.bh, s), "DIS SOR black launch");
            } else {
                OF_CUDA_TRY(launch_hs_sor_fused(sa, n, t.bw, t.bh, s), "DIS SOR fused launch");
            }
            side ^= 1;
        }
    }
    const DPlane<float2> uf{u, d.w, d.h, static_cast<int>(d.pitch)};
    OF_CUDA_TRY(launch_hs_add_increment<T2>(uf, nullptr, half_of<T2>(st, l.hs_du[side], d, 0),
                                            half_of<T2>(st, l.hs_du[side], d, 1), hp, s),
                "DIS increment launch");
    return OF_OK;
}

} // namespace

of_status dis_refine(State& st, const LevelDims& d, int level, float2* u, const ErrorSink& err) {
    if (st.cfg.dis.refine_iterations == 0) return OF_OK;
    return dis_f16(st) ? refine_t<__half2>(st, d, level, u, err) : refine_t<float2>(st, d, level, u, err);
}

namespace {

of_status dis_level(State& st, const LevelDims& d, int level, int* ucur, const ErrorSink& err) {
    const int slot = level * kMaxWarps; // one "warp"
    if (level < static_cast<int>(st.cfg.dis.finest_level)) { // the upsampled flow passes on; no steps
        OF_CUDA_TRY(cudaMemsetAsync(&st.ctrl()->stop[slot], 0xff, sizeof(int), st.stream), "cudaMemsetAsync(stop)");
        return OF_OK;
    }
    const DisLevelArgs a = dis_level_args(st, d, level);
    float2* u = st.plane<float2>(st.lay.u[*ucur], d).p;
    const float2* t = nullptr;
    of_status r = dis_prepare_level(st, a, err);
    if (r == OF_OK) r = dis_search(st, a, u, &t, err);
    if (r != OF_OK) return r;
    OF_CUDA_TRY(launch_dis_densify(a, t, dis_sparse<float>(st, st.lay.dis_md), u, st.stream), "DIS densify launch");
    r = dis_refine(st, d, level, u, err);
    return r == OF_OK ? median_step(st, d, ucur, err) : r;
}

// Launches of a solved level: gradient, sums, the rounds (GLOBAL: init, and a propagation before
// every round but the first), densify, the refinement (warp, memset, per fixed-point iteration
// the tensor and the SOR's), the increment.
int dis_launches(const State& st, const LevelDims&, int) {
    const int rounds = dis_rounds(st);
    const bool global = st.tun.variant == OF_VARIANT_GLOBAL;
    const int search = global ? 1 + 2 * rounds - 1 : rounds;
    const int sor = global ? 2 : 1;
    const int refine = st.cfg.dis.refine_iterations ? 3 + static_cast<int>(st.cfg.dis.refine_iterations) * (1 + sor * kDisSorIterations) : 0;
    return 2 + search + 1 + refine;
}

int dis_iterations_run(const State& st, const LevelDims&, int stop_value, int) {
    return stop_value == -1 ? 0 : static_cast<int>(st.cfg.dis.iterations);
}

// The kernels that launch the configured block: the refinement's SOR (HS's).
void dis_iteration_kernels(const State& st, char* prefix, std::size_t n) {
    std::snprintf(prefix, n, "hs_sor_%s_%s", st.tun.variant == OF_VARIANT_GLOBAL ? "half" : "fused",
                  dis_f16(st) ? "f16x2" : "f32");
}

} // namespace

const AlgoOps kDisOps = {"dis", dis_level, dis_launches, dis_iterations_run, dis_iteration_kernels, nullptr};

} // namespace cuda
} // namespace oflow
