// Horn-Schunck / CLG steps of the CUDA frame pipeline (kHsOps, cuda_state.cuh): one pyramid level
// as core/hs_level_cpu.cpp does it on the CPU. The pyramid is incremental: per warp, frame 1 is
// warped by the current flow, the cube derivatives (and CLG's tensor, smoothed in one batched
// launch) give the coefficient planes, the solver runs on the increment from zero, u += du, and
// the median filter follows. Under OF_ROBUST_CENSUS the census tensor (census_cuda.cu; CLG's
// smoothed) gives the coefficients instead, for HS and CLG alike, Jacobi or SOR as configured.
// Everything is enqueued on the context's stream.
#include "cuda/cuda_check.cuh"
#include "cuda/cuda_state.cuh"
#include "cuda/hs_cuda.cuh"

#include "core/schedule.hpp"

#include <cstdio>

namespace oflow {
namespace cuda {
namespace {

bool is_sor(const State& st) { return st.cfg.hs.solver == OF_SOLVER_RED_BLACK_SOR; }
bool is_f16(const State& st) { return st.tun.precision == OF_PRECISION_F16; }

// Iterations per launch on a level of size d: 1 but for MULTI_ITER Jacobi (SOR's stop slot
// counts iterations, whatever the launches per iteration), which runs the configured depth, or
// on a level whose grid at that depth would leave SMs without a block (a launch-bound coarse
// level) up to kHsCoarseDepth: fewer launches, each a little more halo. Only when the config
// leaves fused_depth to the library (0), and never more blocks than the epsilon partial sums
// hold.
int hs_depth(const State& st, const LevelDims& d) {
    const Tuning& t = st.tun;
    if (is_sor(st) || t.variant != OF_VARIANT_MULTI_ITER) return 1;
    const auto blocks = [&](int p) {
        const int tw = t.region_w - 2 * p, th = t.region_h - 2 * p;
        return static_cast<std::size_t>((d.w + tw - 1) / tw) * static_cast<std::size_t>((d.h + th - 1) / th);
    };
    if (st.cfg.fused_depth != 0 || blocks(t.depth) >= static_cast<std::size_t>(st.sm_count)) return t.depth;
    int deep = kHsCoarseDepth;
    const int most = ((t.region_w < t.region_h ? t.region_w : t.region_h) - 8) / 2; // tiles of at least 8
    if (deep > most) deep = most;
    while (deep > t.depth && blocks(deep) > st.lay.partial_count) --deep;
    return deep > t.depth ? deep : t.depth;
}

// Views of an HS slot (DevLayout::hs_coef / hs_du) at level size d.
template <class T2>
T2* full_plane(const State& st, std::size_t off) {
    return reinterpret_cast<T2*>(st.arena + off);
}
template <class T2>
T2* half_plane(const State& st, std::size_t off, const LevelDims& d, int colour) {
    const std::size_t half = static_cast<std::size_t>(hs_half_pitch(d.w)) * static_cast<std::size_t>(d.h);
    return reinterpret_cast<T2*>(st.arena + off) + (colour ? half : 0);
}

std::size_t slot_bytes(const State& st, const LevelDims& d) {
    const std::size_t pair = is_f16(st) ? 4u : 8u;
    const std::size_t row = is_sor(st) ? 2u * static_cast<std::size_t>(hs_half_pitch(d.w)) : static_cast<std::size_t>(d.pitch);
    return row * static_cast<std::size_t>(d.h) * pair;
}

EpsArgs eps_args(State& st, const LevelDims& d, int slot, float epsilon) {
    EpsArgs e;
    e.stop = nullptr;
    e.counter = &st.ctrl()->counter;
    e.partials = st.partials();
    e.thresh = 0.0;
    if (slot >= 0 && epsilon > 0.0f) {
        e.stop = &st.ctrl()->stop[slot];
        const double eps = static_cast<double>(epsilon);
        e.thresh = eps * eps * static_cast<double>(d.w) * static_cast<double>(d.h);
    }
    return e;
}

template <class T2>
HsCoef<T2> coef_full(const State& st) {
    const DevLayout& l = st.lay;
    return HsCoef<T2>{full_plane<T2>(st, l.hs_coef[0]), full_plane<T2>(st, l.hs_coef[1]), full_plane<T2>(st, l.hs_coef[2])};
}

template <class T2>
of_status jacobi(State& st, const LevelDims& d, int iterations, const EpsArgs& eps, int* side, const ErrorSink& err) {
    const Tuning& t = st.tun;
    const DevLayout& l = st.lay;
    HsJacobiArgs<T2> a;
    a.w = d.w;
    a.h = d.h;
    a.pitch = static_cast<int>(d.pitch);
    a.c = coef_full<T2>(st);
    a.eps = eps;
    T2* planes[2] = {full_plane<T2>(st, l.hs_du[0]), full_plane<T2>(st, l.hs_du[1])};
    // The fewest launches of at most depth iterations, spread evenly (TV-L1's rule, cuda_frame.cu).
    const int depth = hs_depth(st, d);
    const int launches = (iterations + depth - 1) / depth;
    for (int k = 0; k < launches; ++k) {
        a.du_in = planes[k & 1];
        a.du_out = planes[(k & 1) ^ 1];
        if (t.variant == OF_VARIANT_GLOBAL) {
            OF_CUDA_TRY(launch_hs_jacobi_global(a, k, t.bw, t.bh, st.stream), "HS Jacobi launch");
        } else {
            const int n = iterations / launches + (k < iterations % launches ? 1 : 0);
            OF_CUDA_TRY(launch_hs_jacobi_multi(a, k, n, depth, t.bh, t.rows, st.stream), "HS fused Jacobi launch");
        }
    }
    if (eps.stop && launches > 0) {
        const HsPingPong<T2> f{d.w, d.h, static_cast<int>(d.pitch), 1, {planes[0], nullptr}, {planes[1], nullptr}};
        OF_CUDA_TRY(launch_hs_fixup(f, eps.stop, launches, st.stream), "HS ping-pong fixup launch");
    }
    *side = launches & 1;
    return OF_OK;
}

template <class T2>
of_status sor(State& st, const LevelDims& d, int iterations, const EpsArgs& eps, int* side, const ErrorSink& err) {
    const Tuning& t = st.tun;
    const DevLayout& l = st.lay;
    HsSorArgs<T2> a;
    a.w = d.w;
    a.h = d.h;
    a.hpitch = hs_half_pitch(d.w);
    for (int c = 0; c < 2; ++c)
        a.c[c] = HsCoef<T2>{half_plane<T2>(st, l.hs_coef[0], d, c), half_plane<T2>(st, l.hs_coef[1], d, c),
                            half_plane<T2>(st, l.hs_coef[2], d, c)};
    a.omega = st.cfg.hs.omega;
    a.eps = eps;
    a.red_partials = reinterpret_cast<float*>(st.arena + l.red_partials);
    const int slots = (d.w + 1) / 2;
    a.red_blocks = static_cast<unsigned>((slots + t.bw - 1) / t.bw) * static_cast<unsigned>((d.h + t.bh - 1) / t.bh);
    T2* sides[2][2]; // [side][colour]
    for (int s = 0; s < 2; ++s)
        for (int c = 0; c < 2; ++c) sides[s][c] = half_plane<T2>(st, l.hs_du[s], d, c);
    for (int n = 0; n < iterations; ++n) {
        const int from = n & 1;
        for (int c = 0; c < 2; ++c) {
            a.old_[c] = sides[from][c];
            a.new_[c] = sides[from ^ 1][c];
        }
        if (t.variant == OF_VARIANT_GLOBAL) {
            OF_CUDA_TRY(launch_hs_sor_half(a, 0, n, t.bw, t.bh, st.stream), "SOR red launch");
            OF_CUDA_TRY(launch_hs_sor_half(a, 1, n, t.bw, t.bh, st.stream), "SOR black launch");
        } else {
            OF_CUDA_TRY(launch_hs_sor_fused(a, n, t.bw, t.bh, st.stream), "SOR fused launch");
        }
    }
    if (eps.stop && iterations > 0) {
        const HsPingPong<T2> f{slots, d.h, a.hpitch, 2, {sides[0][0], sides[0][1]}, {sides[1][0], sides[1][1]}};
        OF_CUDA_TRY(launch_hs_fixup(f, eps.stop, iterations, st.stream), "SOR ping-pong fixup launch");
    }
    *side = iterations & 1;
    return OF_OK;
}

template <class T2>
of_status solve_t(State& st, const LevelDims& d, int iterations, int slot, float epsilon, bool from_zero, int* side,
                  const ErrorSink& err) {
    if (from_zero)
        OF_CUDA_TRY(cudaMemsetAsync(st.arena + st.lay.hs_du[0], 0, slot_bytes(st, d), st.stream), "cudaMemsetAsync(du)");
    const EpsArgs eps = eps_args(st, d, slot, epsilon);
    return is_sor(st) ? sor<T2>(st, d, iterations, eps, side, err) : jacobi<T2>(st, d, iterations, eps, side, err);
}

template <class T2>
of_status add_increment(State& st, const LevelDims& d, int ucur, int side, const ErrorSink& err) {
    const DPlane<float2> u = st.plane<float2>(st.lay.u[ucur], d);
    const std::size_t off = st.lay.hs_du[side];
    if (is_sor(st))
        OF_CUDA_TRY(launch_hs_add_increment<T2>(u, nullptr, half_plane<T2>(st, off, d, 0), half_plane<T2>(st, off, d, 1),
                                                hs_half_pitch(d.w), st.stream),
                    "HS increment launch");
    else
        OF_CUDA_TRY(launch_hs_add_increment<T2>(u, full_plane<T2>(st, off), nullptr, nullptr, static_cast<int>(d.pitch),
                                                st.stream),
                    "HS increment launch");
    return OF_OK;
}

of_status hs_level(State& st, const LevelDims& d, int l, int* ucur, const ErrorSink& err) {
    const of_config& cfg = st.cfg;
    const int iterations = static_cast<int>(level_iterations(cfg.iterations, cfg.iteration_growth, l));
    for (int wp = 0; wp < static_cast<int>(cfg.warps); ++wp) {
        of_status r = hs_prepare_warp(st, d, l, *ucur, err);
        int side = 0;
        if (r == OF_OK) r = hs_solve(st, d, iterations, l * kMaxWarps + wp, cfg.epsilon, true, &side, err);
        if (r == OF_OK)
            r = is_f16(st) ? add_increment<__half2>(st, d, *ucur, side, err) : add_increment<float2>(st, d, *ucur, side, err);
        if (r == OF_OK) r = median_step(st, d, ucur, err);
        if (r != OF_OK) return r;
    }
    return OF_OK;
}

int hs_launches(const State& st, const LevelDims& d, int iterations) {
    if (is_sor(st)) return st.tun.variant == OF_VARIANT_GLOBAL ? 2 * iterations : iterations;
    return (iterations + hs_depth(st, d) - 1) / hs_depth(st, d);
}

int hs_iterations_run(const State& st, const LevelDims& d, int stop_value, int iterations) {
    return iterations_by_launch(stop_value, iterations, hs_depth(st, d));
}

void hs_iteration_kernels(const State& st, char* prefix, std::size_t n) {
    const char* prec = is_f16(st) ? "f16x2" : "f32";
    if (is_sor(st))
        std::snprintf(prefix, n, "hs_sor_%s_%s", st.tun.variant == OF_VARIANT_GLOBAL ? "half" : "fused", prec);
    else if (st.tun.variant == OF_VARIANT_GLOBAL)
        std::snprintf(prefix, n, "hs_jacobi_global_%s", prec);
    else
        std::snprintf(prefix, n, "hs_multi_%s_r%d", prec, st.tun.rows);
}

} // namespace

of_status hs_prepare_warp(State& st, const LevelDims& d, int level, int ucur, const ErrorSink& err) {
    const of_config& cfg = st.cfg;
    const DevLayout& lay = st.lay;
    const cudaStream_t s = st.stream;
    const DPlane<float> i0 = st.pyr(0, level, d), i1 = st.pyr(1, level, d);
    const DPlane<float> i1w = st.plane<float>(lay.hs_i1w, d);
    const DPlane<float4> deriv = st.plane<float4>(lay.hs_deriv, d);
    const DPlane<float2> u = st.plane<float2>(lay.u[ucur], d);
    const DPlane<const float> ci0{i0.p, i0.w, i0.h, i0.pitch};
    OF_CUDA_TRY(launch_hs_warp_image(ci0, {i1.p, i1.w, i1.h, i1.pitch}, {u.p, u.w, u.h, u.pitch}, i1w, s),
                "HS warp launch");
    // OF_ROBUST_CENSUS (core/hs_level_cpu.cpp): the census channels' tensor at the warp's flow
    // replaces the intensity's (no cube derivatives); rank two, so HS solves it as CLG does, by
    // Cramer's rule on the tensor (the coupled update), and CLG smooths it first (hs_census ->
    // hs_tensor).
    const bool census = cfg.robust == OF_ROBUST_CENSUS;
    if (!census)
        OF_CUDA_TRY(launch_hs_derivatives(ci0, {i1w.p, i1w.w, i1w.h, i1w.pitch}, deriv, s), "HS derivatives launch");
    const bool clg = cfg.algorithm == OF_ALGO_CLG, blurred = clg && st.rho_blur.radius > 0;
    HsCoefArgs a;
    a.w = d.w;
    a.h = d.h;
    a.deriv = {deriv.p, deriv.w, deriv.h, deriv.pitch};
    a.alpha2 = cfg.hs.alpha * cfg.hs.alpha;
    a.mode = census || blurred ? HsCoefMode::kCramerTensor : !clg ? HsCoefMode::kHsClosed : HsCoefMode::kCramerDeriv;
    const std::size_t plane0 = static_cast<std::size_t>(lay.dims[0].pitch) * static_cast<std::size_t>(lay.dims[0].h);
    float* j[kHsChannels];
    float* raw[kHsChannels]; // census: the tensor before CLG's smoothing
    for (int c = 0; c < kHsChannels; ++c) {
        const std::size_t at = static_cast<std::size_t>(c) * plane0;
        j[c] = blurred || census ? reinterpret_cast<float*>(st.arena + lay.hs_tensor) + at : nullptr;
        raw[c] = census && blurred ? reinterpret_cast<float*>(st.arena + lay.hs_census) + at : j[c];
        a.j[c] = j[c];
    }
    if (census) {
        CensusTensorCudaArgs t;
        t.i0 = ci0;
        t.i1w = {i1w.p, i1w.w, i1w.h, i1w.pitch};
        t.u = {u.p, u.w, u.h, u.pitch};
        for (int c = 0; c < kHsChannels; ++c) t.j[c] = raw[c];
        t.eta = st.ctrl()->census_eta;
        OF_CUDA_TRY(launch_census_tensor(t, s), "census tensor launch");
        if (blurred)
            OF_CUDA_TRY(launch_hs_planes_blur(raw[0], j[0], plane0, d.w, d.h, static_cast<int>(d.pitch), st.rho_blur, s),
                        "CLG census tensor blur launch");
    } else if (blurred) {
        OF_CUDA_TRY(launch_hs_tensor_blur(a.deriv, j, st.rho_blur, s), "CLG tensor blur launch");
    }
    const bool sor = is_sor(st);
    a.split = sor;
    a.out_pitch = sor ? hs_half_pitch(d.w) : static_cast<int>(d.pitch);
    for (int c = 0; c < 2; ++c) {
        const bool f16 = is_f16(st);
        void* p[3];
        for (int k = 0; k < 3; ++k)
            p[k] = sor ? (f16 ? static_cast<void*>(half_plane<__half2>(st, lay.hs_coef[k], d, c))
                              : static_cast<void*>(half_plane<float2>(st, lay.hs_coef[k], d, c)))
                       : static_cast<void*>(st.arena + lay.hs_coef[k]);
        a.d[c] = p[0];
        a.o[c] = p[1];
        a.r[c] = p[2];
    }
    OF_CUDA_TRY(launch_hs_coef(a, is_f16(st), s), "HS coefficient launch");
    return OF_OK;
}

of_status hs_solve(State& st, const LevelDims& d, int iterations, int slot, float epsilon, bool from_zero, int* side,
                   const ErrorSink& err) {
    return is_f16(st) ? solve_t<__half2>(st, d, iterations, slot, epsilon, from_zero, side, err)
                      : solve_t<float2>(st, d, iterations, slot, epsilon, from_zero, side, err);
}

namespace {

template <class T2>
__global__ void k_unpack_increment(const T2* full, const T2* red, const T2* black, int pitch, DPlane<float> a,
                                   DPlane<float> b) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= a.w || y >= a.h) return;
    const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(pitch);
    const T2 v = full ? full[row + static_cast<std::size_t>(x)] : (((x + y) & 1) ? black : red)[row + static_cast<std::size_t>(x >> 1)];
    const float2 f = HsMath<T2>::to_f2(v);
    a.row(y)[x] = f.x;
    b.row(y)[x] = f.y;
}

template <class T2>
of_status unpack_t(State& st, const LevelDims& d, int side, DPlane<float> a, DPlane<float> b, const ErrorSink& err) {
    const std::size_t off = st.lay.hs_du[side];
    const bool sor = is_sor(st);
    const dim3 g(static_cast<unsigned>((d.w + kPlaneBlockX - 1) / kPlaneBlockX),
                 static_cast<unsigned>((d.h + kPlaneBlockY - 1) / kPlaneBlockY));
    k_unpack_increment<T2><<<g, dim3(kPlaneBlockX, kPlaneBlockY), 0, st.stream>>>(
        sor ? nullptr : full_plane<T2>(st, off), sor ? half_plane<T2>(st, off, d, 0) : nullptr,
        sor ? half_plane<T2>(st, off, d, 1) : nullptr, sor ? hs_half_pitch(d.w) : static_cast<int>(d.pitch), a, b);
    OF_CUDA_LAUNCHED("HS increment unpack launch");
    return OF_OK;
}

} // namespace

of_status hs_unpack_increment(State& st, const LevelDims& d, int side, DPlane<float> a, DPlane<float> b,
                              const ErrorSink& err) {
    return is_f16(st) ? unpack_t<__half2>(st, d, side, a, b, err) : unpack_t<float2>(st, d, side, a, b, err);
}

const AlgoOps kHsOps = {"hs", hs_level, hs_launches, hs_iterations_run, hs_iteration_kernels, nullptr};

} // namespace cuda
} // namespace oflow
