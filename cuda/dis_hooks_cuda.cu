// The DIS test hooks (dis_hooks.hpp): uploads into the level-0 planes the stages read, one stage
// of cuda/dis_frame.cu, downloads, one wait.
#include "cuda/cuda_check.cuh"
#include "cuda/dis_frame.cuh"
#include "cuda/dis_hooks.hpp"
#include "cuda/hs_cuda.cuh"

#include <vector>

namespace oflow {
namespace cuda {
namespace hooks {
namespace {

// Packed host rows of n floats (h rows) to / from a device plane of pitch (elements) `pitch`,
// `stride` floats between consecutive values (2: one component of a pair).
of_status up(State& st, const float* host, float* dev, int n, int h, int pitch, int stride, const ErrorSink& err) {
    (void)stride;
    OF_CUDA_TRY(cudaMemcpy2DAsync(dev, static_cast<std::size_t>(pitch) * 4, host, static_cast<std::size_t>(n) * 4, static_cast<std::size_t>(n) * 4, static_cast<std::size_t>(h),
                                  cudaMemcpyHostToDevice, st.stream),
                "hook upload");
    return OF_OK;
}

// Two packed host planes into a device float2 plane (pitch in pairs).
of_status up_pairs(State& st, const float* a, const float* b, float2* dev, int n, int h, int pitch, const ErrorSink& err) {
    std::vector<float2> tmp(static_cast<std::size_t>(n) * static_cast<std::size_t>(h));
    for (std::size_t i = 0; i < tmp.size(); ++i) tmp[i] = make_float2(a[i], b[i]);
    OF_CUDA_TRY(cudaMemcpy2DAsync(dev, static_cast<std::size_t>(pitch) * 8, tmp.data(), static_cast<std::size_t>(n) * 8,
                                  static_cast<std::size_t>(n) * 8, static_cast<std::size_t>(h), cudaMemcpyHostToDevice, st.stream),
                "hook upload");
    OF_CUDA_TRY(cudaStreamSynchronize(st.stream), "hook upload");
    return OF_OK;
}

template <class T2>
of_status up_pairs_t(State& st, const float* a, const float* b, T2* dev, int n, int h, int pitch, const ErrorSink& err) {
    std::vector<T2> tmp(static_cast<std::size_t>(n) * static_cast<std::size_t>(h));
    for (std::size_t i = 0; i < tmp.size(); ++i) {
        if (sizeof(T2) == 8)
            reinterpret_cast<float2*>(tmp.data())[i] = make_float2(a[i], b[i]);
        else
            reinterpret_cast<__half2*>(tmp.data())[i] = __floats2half2_rn(a[i], b[i]);
    }
    OF_CUDA_TRY(cudaMemcpy2DAsync(dev, static_cast<std::size_t>(pitch) * sizeof(T2), tmp.data(), static_cast<std::size_t>(n) * sizeof(T2),
                                  static_cast<std::size_t>(n) * sizeof(T2), static_cast<std::size_t>(h), cudaMemcpyHostToDevice,
                                  st.stream),
                "hook upload");
    OF_CUDA_TRY(cudaStreamSynchronize(st.stream), "hook upload");
    return OF_OK;
}

of_status down(State& st, const float* dev, float* host, int n, int h, int pitch, const ErrorSink& err) {
    OF_CUDA_TRY(cudaStreamSynchronize(st.stream), "hook stage");
    OF_CUDA_TRY(cudaMemcpy2D(host, static_cast<std::size_t>(n) * 4, dev, static_cast<std::size_t>(pitch) * 4,
                             static_cast<std::size_t>(n) * 4, static_cast<std::size_t>(h), cudaMemcpyDeviceToHost),
                "hook download");
    return OF_OK;
}

template <class T2>
of_status down_pairs_t(State& st, const T2* dev, float* a, float* b, int n, int h, int pitch, const ErrorSink& err) {
    OF_CUDA_TRY(cudaStreamSynchronize(st.stream), "hook stage");
    std::vector<T2> tmp(static_cast<std::size_t>(n) * static_cast<std::size_t>(h));
    OF_CUDA_TRY(cudaMemcpy2D(tmp.data(), static_cast<std::size_t>(n) * sizeof(T2), dev, static_cast<std::size_t>(pitch) * sizeof(T2),
                             static_cast<std::size_t>(n) * sizeof(T2), static_cast<std::size_t>(h), cudaMemcpyDeviceToHost),
                "hook download");
    for (std::size_t i = 0; i < tmp.size(); ++i) {
        float2 v;
        if (sizeof(T2) == 8)
            v = reinterpret_cast<const float2*>(tmp.data())[i];
        else
            v = __half22float2(reinterpret_cast<const __half2*>(tmp.data())[i]);
        a[i] = v.x;
        if (b) b[i] = v.y;
    }
    return OF_OK;
}

template <class T2>
of_status refine_stage(State& st, DisStageRun* r, const LevelDims& d, const ErrorSink& err) {
    const DevLayout& l = st.lay;
    const int hp = hs_half_pitch(d.w);
    const int pitch = static_cast<int>(d.pitch);
    of_status s = up(st, r->i0, st.pyr(0, 0, d).p, d.w, d.h, pitch, 1, err);
    if (s == OF_OK) s = up(st, r->i1, st.plane<float>(l.hs_i1w, d).p, d.w, d.h, pitch, 1, err);
    if (s == OF_OK) s = up_pairs(st, r->u1, r->u2, st.plane<float2>(l.u[0], d).p, d.w, d.h, pitch, err);
    if (s != OF_OK) return s;
    // The increment into the split layout (colour (x + y) & 1, slot x >> 1).
    std::vector<float> hu[2], hv[2];
    for (int c = 0; c < 2; ++c) {
        hu[c].assign(static_cast<std::size_t>(hp) * static_cast<std::size_t>(d.h), 0.0f);
        hv[c].assign(hu[c].size(), 0.0f);
    }
    for (int y = 0; y < d.h; ++y)
        for (int x = 0; x < d.w; ++x) {
            const int c = (x + y) & 1;
            const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(hp) + static_cast<std::size_t>(x >> 1);
            hu[c][i] = r->du[static_cast<std::size_t>(y) * static_cast<std::size_t>(d.w) + static_cast<std::size_t>(x)];
            hv[c][i] = r->dv[static_cast<std::size_t>(y) * static_cast<std::size_t>(d.w) + static_cast<std::size_t>(x)];
        }
    T2* halves = reinterpret_cast<T2*>(st.arena + l.hs_du[0]);
    const std::size_t half = static_cast<std::size_t>(hp) * static_cast<std::size_t>(d.h);
    for (int c = 0; c < 2 && s == OF_OK; ++c) s = up_pairs_t<T2>(st, hu[c].data(), hv[c].data(), halves + c * half, hp, d.h, hp, err);
    if (s != OF_OK) return s;
    DisRefineCuda ra;
    ra.w = d.w;
    ra.h = d.h;
    ra.pitch = pitch;
    ra.hpitch = hp;
    ra.i0 = st.pyr(0, 0, d).p;
    ra.i1w = st.plane<float>(l.hs_i1w, d).p;
    ra.u = st.plane<float2>(l.u[0], d).p;
    for (int c = 0; c < 2; ++c) {
        ra.du[c] = halves + c * half;
        ra.d[c] = reinterpret_cast<T2*>(st.arena + l.hs_coef[0]) + c * half;
        ra.o[c] = reinterpret_cast<T2*>(st.arena + l.hs_coef[1]) + c * half;
        ra.r[c] = reinterpret_cast<T2*>(st.arena + l.hs_coef[2]) + c * half;
    }
    // The tensor's planes: scratch 0, 1, u[1] as two F32 planes, hs_du[1] (each holds a full plane).
    float* j[kHsChannels] = {st.scratch(0, d).p, st.scratch(1, d).p, st.f32_plane(l.u[1], 0, d).p, st.f32_plane(l.u[1], 1, d).p,
                             reinterpret_cast<float*>(st.arena + l.hs_du[1])};
    for (int c = 0; c < kHsChannels; ++c) ra.j[c] = j[c];
    ra.alpha2 = st.cfg.dis.refine_alpha;
    ra.delta = st.cfg.dis.refine_delta;
    ra.gamma = st.cfg.dis.refine_gamma;
    OF_CUDA_TRY(launch_dis_refine_coef(ra, sizeof(T2) == 4, st.stream), "hook refine launch");
    for (int c = 0; c < kHsChannels && s == OF_OK; ++c) s = down(st, j[c], r->out[c], d.w, d.h, pitch, err);
    return s;
}

} // namespace

of_status run_dis_stage(State* stp, DisStageRun* r, const ErrorSink& err) {
    if (!stp) return err.fail(OF_ERR_INTERNAL, "hooks: no CUDA state");
    State& st = *stp;
    if (!is_dis(st.cfg.algorithm)) return err.fail(OF_ERR_INVALID_ARGUMENT, "hooks: DIS stage on a %s context", st.ops->name);
    if (r->w < 1 || r->h < 1 || r->w > static_cast<int>(st.cfg.max_width) || r->h > static_cast<int>(st.cfg.max_height))
        return err.fail(OF_ERR_SIZE, "hooks: stage size %dx%d outside the context's maximum", r->w, r->h);
    LevelDims d;
    d.w = r->w;
    d.h = r->h;
    d.pitch = dev_pitch(r->w);
    const DevLayout& l = st.lay;
    const int pitch = static_cast<int>(d.pitch);
    const bool f16 = dis_f16(st);
    if (r->stage == DisStage::Refine)
        return f16 ? refine_stage<__half2>(st, r, d, err) : refine_stage<float2>(st, r, d, err);
    const DisLevelArgs a = dis_level_args(st, d, 0);
    const DisGrid& g = a.g;
    of_status s = up(st, r->i0, const_cast<float*>(a.i0), d.w, d.h, pitch, 1, err);
    if (s == OF_OK && r->i1) s = up(st, r->i1, const_cast<float*>(a.i1), d.w, d.h, pitch, 1, err);
    if (s != OF_OK) return s;
    float2* u = st.plane<float2>(l.u[0], d).p;
    float2* sp_s = dis_sparse<float2>(st, l.dis_s);
    float2* sp_t = dis_sparse<float2>(st, l.dis_t[0]);
    float2* sp_t1 = dis_sparse<float2>(st, l.dis_t[1]);
    float* md = dis_sparse<float>(st, l.dis_md);
    float* errp = dis_sparse<float>(st, l.dis_err);
    if (r->err && (s = up(st, r->err, errp, g.nx, g.ny, l.dis_sp_pitch, 1, err)) != OF_OK) return s;
    if (r->u1 && (s = up_pairs(st, r->u1, r->u2, u, d.w, d.h, pitch, err)) != OF_OK) return s;
    if (r->sx && (s = up_pairs(st, r->sx, r->sy, sp_s, g.nx, g.ny, l.dis_sp_pitch, err)) != OF_OK) return s;
    switch (r->stage) {
    case DisStage::Gradient:
        OF_CUDA_TRY(launch_dis_gradient(a, f16, st.stream), "hook gradient launch");
        return f16 ? down_pairs_t(st, static_cast<const __half2*>(a.grad), r->out[0], r->out[1], d.w, d.h, pitch, err)
                   : down_pairs_t(st, static_cast<const float2*>(a.grad), r->out[0], r->out[1], d.w, d.h, pitch, err);
    case DisStage::Sums:
        s = dis_prepare_level(st, a, err);
        for (int c = 0; c < kDisSums && s == OF_OK; ++c) s = down(st, a.sum[c], r->out[c], g.nx, g.ny, l.dis_sp_pitch, err);
        return s;
    case DisStage::Init:
        OF_CUDA_TRY(launch_dis_init(a, u, sp_t, st.stream), "hook init launch");
        return down_pairs_t(st, sp_t, r->out[0], r->out[1], g.nx, g.ny, l.dis_sp_pitch, err);
    case DisStage::Propagate:
        OF_CUDA_TRY(launch_dis_propagate_global(a, sp_s, errp, sp_t, st.stream), "hook propagation launch");
        return down_pairs_t(st, sp_t, r->out[0], r->out[1], g.nx, g.ny, l.dis_sp_pitch, err);
    case DisStage::Round: {
        s = dis_prepare_level(st, a, err);
        if (s != OF_OK) return s;
        DisSearchCuda sa;
        sa.l = a;
        sa.md = md;
        sa.err = errp;
        sa.u = u;
        sa.iterations = r->iterations;
        sa.first = r->first;
        sa.t_out = sp_t1;
        if (st.tun.variant == OF_VARIANT_GLOBAL) {
            if (r->first)
                OF_CUDA_TRY(launch_dis_init(a, u, sp_t, st.stream), "hook init launch");
            else
                OF_CUDA_TRY(launch_dis_propagate_global(a, sp_s, errp, sp_t, st.stream), "hook propagation launch");
            sa.s_in = sp_t;
            OF_CUDA_TRY(launch_dis_search_global(sa, f16, st.stream), "hook search launch");
        } else {
            sa.s_in = sp_s;
            OF_CUDA_TRY(launch_dis_round_fused(sa, f16, st.stream), "hook round launch");
        }
        s = down_pairs_t(st, sp_t1, r->out[0], r->out[1], g.nx, g.ny, l.dis_sp_pitch, err);
        if (s == OF_OK) s = down(st, md, r->out[2], g.nx, g.ny, l.dis_sp_pitch, err);
        return s == OF_OK ? down(st, errp, r->out[3], g.nx, g.ny, l.dis_sp_pitch, err) : s;
    }
    case DisStage::Densify: {
        if ((s = up(st, r->md, md, g.nx, g.ny, l.dis_sp_pitch, 1, err)) != OF_OK) return s;
        OF_CUDA_TRY(launch_dis_densify(a, sp_s, md, u, st.stream), "hook densify launch");
        return down_pairs_t(st, u, r->out[0], r->out[1], d.w, d.h, pitch, err);
    }
    case DisStage::Refine:
        break;
    }
    return err.fail(OF_ERR_INVALID_ARGUMENT, "hooks: unknown DIS stage %d", static_cast<int>(r->stage));
}

} // namespace hooks
} // namespace cuda
} // namespace oflow
