// Lucas-Kanade steps of the CUDA frame pipeline (kLkOps, cuda_state.cuh): one pyramid level as
// core/lk_level_cpu.cpp does it on the CPU (lk_cuda.cuh has the scheme): the level's setup
// (gradient, tensor window sums, confidence), the Newton steps of the configured variant with
// the device-side end of the level when no pixel is active, the ping-pong repair, the median
// when asked for. Everything is enqueued on the context's stream.
#include "cuda/cuda_check.cuh"
#include "cuda/cuda_state.cuh"
#include "cuda/hs_cuda.cuh"
#include "cuda/lk_census_cuda.cuh"
#include "cuda/lk_cuda.cuh"

#include "core/schedule.hpp"

#include <cstdio>

namespace oflow {
namespace cuda {
namespace {

bool is_f16(const State& st) { return st.tun.precision == OF_PRECISION_F16; }
int radius(const State& st) { return (static_cast<int>(st.cfg.lk.window) - 1) / 2; }

// Box radius, level size and pitch: what every launch of a level shares.
template <class A>
void level_fields(const State& st, const LevelDims& d, A* a) {
    a->w = d.w;
    a->h = d.h;
    a->pitch = static_cast<int>(d.pitch);
    a->r = radius(st);
}

// The level's stop slot (threshold 0: it records the launch after which no pixel is active);
// slot < 0: no count.
EpsArgs stop_args(State& st, int slot) {
    EpsArgs e;
    e.stop = slot >= 0 ? &st.ctrl()->stop[slot] : nullptr;
    e.counter = &st.ctrl()->counter;
    e.partials = st.partials();
    e.thresh = 0.0;
    return e;
}

// F32 plane k of a slot of level-0-sized F32 planes (any level's plane fits in one).
float* f32_plane(const State& st, std::size_t off, int k) {
    const std::size_t plane0 = static_cast<std::size_t>(st.lay.dims[0].pitch) * static_cast<std::size_t>(st.lay.dims[0].h) * 4;
    return reinterpret_cast<float*>(st.arena + off + static_cast<std::size_t>(k) * plane0);
}

LkStepArgs step_args(State& st, const LevelDims& d, int level, int slot) {
    const DevLayout& l = st.lay;
    LkStepArgs a;
    level_fields(st, d, &a);
    a.i0 = st.pyr(0, level, d).p;
    a.i1 = st.pyr(1, level, d).p;
    a.g = st.arena + l.lk_g;
    a.u_in = nullptr;
    a.u_out = nullptr;
    for (int ch = 0; ch < kLkTensorChannels; ++ch) a.t[ch] = f32_plane(st, l.lk_tensor, ch);
    a.state = st.arena + l.lk_state;
    a.eh = reinterpret_cast<float2*>(f32_plane(st, l.lk_box, 0));
    a.sums = nullptr;
    a.epsilon = st.cfg.epsilon;
    a.eps = stop_args(st, slot);
    return a;
}

bool pingpong(const State& st) { return st.tun.variant != OF_VARIANT_FUSED; }

// OF_ROBUST_CENSUS: the census steps (lk_census_cuda.cuh) replace the setup and the steps.
bool census(const State& st) { return st.cfg.robust == OF_ROBUST_CENSUS; }

of_status lk_level(State& st, const LevelDims& d, int l, int* ucur, const ErrorSink& err) {
    const of_config& cfg = st.cfg;
    const int steps = static_cast<int>(level_iterations(cfg.iterations, cfg.iteration_growth, l));
    const int slot = l * kMaxWarps; // one warp
    of_status r = OF_OK;
    if (census(st)) {
        r = lk_census_steps(st, d, l, steps, slot, *ucur, false, err);
    } else {
        r = lk_prepare_level(st, d, l, slot, false, err);
        if (r == OF_OK) r = lk_steps(st, d, l, steps, slot, ucur, false, err);
    }
    return r == OF_OK ? median_step(st, d, ucur, err) : r; // LK's default median_size: 0
}

// The setup's 3 launches, the steps' (FUSED: 2 a step) and the ping-pong repair; under census 4
// a step and the validity.
int lk_launches(const State& st, const LevelDims&, int iterations) {
    if (census(st)) return 1 + 4 * iterations;
    return 3 + (st.tun.variant == OF_VARIANT_FUSED ? 2 * iterations : iterations + 1);
}

// The stop slot holds the step after which no pixel was active, -1 when none was valid (no step
// ran: the CPU path's count too), kNotStopped when the level ran every step.
int lk_iterations_run(const State&, const LevelDims&, int stop_value, int iterations) {
    if (stop_value < 0) return 0;
    return stop_value < iterations ? stop_value + 1 : iterations;
}

void lk_iteration_kernels(const State& st, char* prefix, std::size_t n) {
    const char* prec = is_f16(st) ? "f16x2" : "f32";
    if (census(st))
        std::snprintf(prefix, n, "lk_census");
    else if (st.tun.variant == OF_VARIANT_GLOBAL)
        std::snprintf(prefix, n, "lk_global_%s", prec);
    else if (st.tun.variant == OF_VARIANT_FUSED)
        std::snprintf(prefix, n, "lk_fused");
    else
        std::snprintf(prefix, n, "lk_tile_%s", prec);
}

// LK's raw confidence plane (level 0's lambda after a frame) and the lambda that maps to 0.5.
const float* lk_confidence(const State& st, float* half) {
    *half = st.cfg.lk.min_eigen;
    return reinterpret_cast<const float*>(st.arena + st.lay.lk_conf);
}

} // namespace

of_status lk_prepare_level(State& st, const LevelDims& d, int level, int slot, bool keep_g, const ErrorSink& err) {
    const DevLayout& l = st.lay;
    const int s = static_cast<int>(st.cfg.lk.window);
    LkSetupArgs a;
    level_fields(st, d, &a);
    a.i0 = st.pyr(0, level, d).p;
    a.g = st.arena + l.lk_g;
    for (int ch = 0; ch < kLkTensorChannels; ++ch) {
        a.hsum[ch] = f32_plane(st, l.lk_box, ch);
        a.t[ch] = f32_plane(st, l.lk_tensor, ch);
    }
    a.conf = reinterpret_cast<float*>(st.arena + l.lk_conf);
    a.state = st.arena + l.lk_state;
    a.inv_area = 1.0 / (static_cast<double>(s) * static_cast<double>(s));
    a.min_eigen = st.cfg.lk.min_eigen;
    a.store = keep_g || st.tun.variant == OF_VARIANT_GLOBAL ? LkStore::kTensor : LkStore::kInverse;
    a.eps = stop_args(st, slot);
    OF_CUDA_TRY(launch_lk_gradient(a, is_f16(st), st.stream), "LK gradient launch");
    OF_CUDA_TRY(launch_lk_tensor_h(a, is_f16(st), st.stream), "LK tensor launch");
    OF_CUDA_TRY(launch_lk_confidence(a, st.stream), "LK confidence launch");
    return OF_OK;
}

of_status lk_steps(State& st, const LevelDims& d, int level, int steps, int slot, int* ucur, bool sums,
                   const ErrorSink& err) {
    const Tuning& t = st.tun;
    const bool f16 = is_f16(st);
    LkStepArgs a = step_args(st, d, level, slot);
    if (sums) a.sums = reinterpret_cast<float2*>(f32_plane(st, st.lay.lk_box, 2));
    float2* u[2] = {st.plane<float2>(st.lay.u[*ucur], d).p, st.plane<float2>(st.lay.u[*ucur ^ 1], d).p};
    for (int n = 0; n < steps; ++n) {
        a.u_in = pingpong(st) ? u[n & 1] : u[0];
        a.u_out = pingpong(st) ? u[(n & 1) ^ 1] : u[0];
        if (t.variant == OF_VARIANT_GLOBAL)
            OF_CUDA_TRY(launch_lk_global(a, n, t.bw, t.bh, f16, st.stream), "LK step launch");
        else if (t.variant == OF_VARIANT_FUSED)
            OF_CUDA_TRY(launch_lk_fused(a, n, t.bh, t.shared_bytes, f16, st.stream), "LK fused step launch");
        else
            OF_CUDA_TRY(launch_lk_tile(a, n, t.bh, t.rows, t.shared_bytes, f16, st.stream), "LK tiled step launch");
    }
    if (!pingpong(st)) return OF_OK;
    if (a.eps.stop && steps > 0) {
        const HsPingPong<float2> f{d.w, d.h, static_cast<int>(d.pitch), 1, {u[0], nullptr}, {u[1], nullptr}};
        OF_CUDA_TRY(launch_hs_fixup(f, a.eps.stop, steps, st.stream), "LK ping-pong fixup launch");
    }
    *ucur ^= steps & 1;
    return OF_OK;
}

const AlgoOps kLkOps = {"lk", lk_level, lk_launches, lk_iterations_run, lk_iteration_kernels, lk_confidence};

} // namespace cuda
} // namespace oflow
