// Test and benchmark hooks (cuda_bench.hpp). Synchronous, host temporaries allowed: never on
// the of_process path.
//
// Traffic model (bytes per pixel per inner iteration, compulsory DRAM traffic: every array
// element read or written once per kernel pass; neighbour and halo re-reads are counted as
// cache hits because neighbouring threads/blocks read the same lines; the epsilon reduction's
// few bytes per block are ignored). Sizes: u float2 = 8, p1/p2/g pair = 8 (F32) or 4 (F16x2),
// rho_c 4, |g|^2 4 (F32 only; F16 forms it from g):
//   GLOBAL F32:  calc_u reads u, p1, p2, g, rc, g2 (40) + writes u (8); calc_p reads u, p1, p2
//                (24) + writes p1, p2 (16)                                    = 88
//   GLOBAL F16:  calc_u 8+4+4+4+4 read + 8 written; calc_p 8+4+4 + 8            = 56
//   FUSED F32:   one pass: reads u, p1, p2, g, rc, g2 (40), writes u, p1, p2 (24) = 64
//   FUSED F16:   reads 8+4+4+4+4 (24), writes 8+4+4 (16)                         = 40
//   MULTI_ITER:  the FUSED pass once per launch of P iterations                  = 64/P, 40/P
// FLOPs per pixel per iteration (add, sub, mul, div, sqrt = 1 each; compares not counted;
// half2 ops count 2): calc_u 21 (rho 4, the two thresholds 2, -rho/g2 and its two products 3,
// both divergences 6, both u updates 6), calc_p 28 (forward differences 4, two norms 6 each,
// four dual updates 3 each) = 49. Redundancy: FUSED recomputes calc_u on a (bw+1)(bh+1) region
// per bw x bh tile; MULTI_ITER computes a 32 x (bh * rows) region for a (32-2P) x (bh*rows-2P) tile.
#include "cuda/cuda_bench.hpp"
#include "cuda/cuda_check.cuh"
#include "cuda/cuda_state.cuh"
#include "cuda/lk_census_cuda.cuh"

#include "core/hs_kernels.hpp"
#include "core/lk_kernels.hpp"

#include <vector>

namespace oflow {
namespace cuda {
namespace hooks {
namespace {

LevelDims dims_of(int w, int h) {
    LevelDims d;
    d.w = w;
    d.h = h;
    d.pitch = dev_pitch(w);
    return d;
}

template <class T>
DPlane<const T> as_const(DPlane<T> p) {
    return DPlane<const T>{p.p, p.w, p.h, p.pitch};
}

// Two float planes <-> one plane of pairs, converted on the device (the kernels' own rounding).
template <class T2>
__global__ void k_pack(DPlane<const float> a, DPlane<const float> b, DPlane<T2> dst) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= dst.w || y >= dst.h) return;
    dst.row(y)[x] = Pair<T2>::from_f2(make_float2(a.row(y)[x], b.row(y)[x]));
}

template <class T2>
__global__ void k_unpack(DPlane<const T2> src, DPlane<float> a, DPlane<float> b) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= src.w || y >= src.h) return;
    const float2 v = Pair<T2>::to_f2(src.row(y)[x]);
    a.row(y)[x] = v.x;
    b.row(y)[x] = v.y;
}

// A float4 plane (HS's derivatives) -> four float planes.
__global__ void k_unpack4(DPlane<const float4> src, DPlane<float> a, DPlane<float> b, DPlane<float> c,
                          DPlane<float> d) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= src.w || y >= src.h) return;
    const float4 v = src.row(y)[x];
    a.row(y)[x] = v.x;
    b.row(y)[x] = v.y;
    c.row(y)[x] = v.z;
    d.row(y)[x] = v.w;
}

dim3 grid_of(int w, int h) {
    return dim3(static_cast<unsigned>((w + kPlaneBlockX - 1) / kPlaneBlockX), static_cast<unsigned>((h + kPlaneBlockY - 1) / kPlaneBlockY));
}

of_status upload(State& st, const float* src, DPlane<float> dst, const ErrorSink& err) {
    OF_CUDA_TRY(cudaMemcpy2DAsync(dst.p, static_cast<std::size_t>(dst.pitch) * 4, src, static_cast<std::size_t>(dst.w) * 4,
                                  static_cast<std::size_t>(dst.w) * 4, static_cast<std::size_t>(dst.h),
                                  cudaMemcpyHostToDevice, st.stream),
                "hook upload");
    OF_CUDA_TRY(cudaStreamSynchronize(st.stream), "hook upload");
    return OF_OK;
}

of_status download(State& st, DPlane<float> src, float* dst, const ErrorSink& err) {
    OF_CUDA_TRY(cudaMemcpy2DAsync(dst, static_cast<std::size_t>(src.w) * 4, src.p, static_cast<std::size_t>(src.pitch) * 4,
                                  static_cast<std::size_t>(src.w) * 4, static_cast<std::size_t>(src.h),
                                  cudaMemcpyDeviceToHost, st.stream),
                "hook download");
    OF_CUDA_TRY(cudaStreamSynchronize(st.stream), "hook download");
    return OF_OK;
}

// Two F32 planes of a hook's own (cudaMalloc, freed by the destructor): the arena's scratch
// planes alias TV-L1's solver planes (DevLayout::scratch), which the hooks read and write.
struct TempPlanes {
    float* p = nullptr;
    LevelDims d;
    TempPlanes(int w, int h) : d(dims_of(w, h)) {
        if (cudaMalloc(&p, static_cast<std::size_t>(d.pitch) * static_cast<std::size_t>(d.h) * 8) != cudaSuccess) p = nullptr;
    }
    ~TempPlanes() {
        if (p) (void)cudaFree(p);
    }
    TempPlanes(const TempPlanes&) = delete;
    TempPlanes& operator=(const TempPlanes&) = delete;
    DPlane<float> at(int i) const {
        return DPlane<float>{p + static_cast<std::size_t>(i) * static_cast<std::size_t>(d.pitch) * static_cast<std::size_t>(d.h),
                             d.w, d.h, static_cast<int>(d.pitch)};
    }
};

// Host planes a, b -> pairs at dst, through two temporary planes.
template <class T2>
of_status upload_pairs(State& st, const float* a, const float* b, DPlane<T2> dst, const ErrorSink& err) {
    const TempPlanes t(dst.w, dst.h);
    if (!t.p) return err.fail(OF_ERR_OUT_OF_MEMORY, "hooks: temporary planes");
    const DPlane<float> sa = t.at(0), sb = t.at(1);
    of_status r = upload(st, a, sa, err);
    if (r == OF_OK) r = upload(st, b, sb, err);
    if (r != OF_OK) return r;
    k_pack<T2><<<grid_of(dst.w, dst.h), dim3(kPlaneBlockX, kPlaneBlockY), 0, st.stream>>>(as_const(sa), as_const(sb), dst);
    OF_CUDA_LAUNCHED("hook pack launch");
    OF_CUDA_TRY(cudaStreamSynchronize(st.stream), "hook pack");
    return OF_OK;
}

template <class T2>
of_status download_pairs(State& st, DPlane<T2> src, float* a, float* b, const ErrorSink& err) {
    const TempPlanes t(src.w, src.h);
    if (!t.p) return err.fail(OF_ERR_OUT_OF_MEMORY, "hooks: temporary planes");
    const DPlane<float> sa = t.at(0), sb = t.at(1);
    k_unpack<T2><<<grid_of(src.w, src.h), dim3(kPlaneBlockX, kPlaneBlockY), 0, st.stream>>>(as_const(src), sa, sb);
    OF_CUDA_LAUNCHED("hook unpack launch");
    of_status r = download(st, sa, a, err);
    if (r == OF_OK) r = download(st, sb, b, err);
    return r;
}

// A host F32 plane into pyramid level 0 of `frame`: as it is, or rounded to an F16 pyramid
// (the frame path's own rounding: launch_resample at the same size is a copy).
of_status upload_level0(State& st, const float* src, int frame, const LevelDims& d, const ErrorSink& err) {
    if (!st.half_pyr()) return upload(st, src, st.pyr(frame, 0, d), err);
    const TempPlanes t(d.w, d.h);
    if (!t.p) return err.fail(OF_ERR_OUT_OF_MEMORY, "hooks: temporary planes");
    of_status r = upload(st, src, t.at(0), err);
    if (r != OF_OK) return r;
    OF_CUDA_TRY(launch_resample(as_const(t.at(0)), st.pyr_h(frame, 0, d), st.stream), "hook level 0 launch");
    OF_CUDA_TRY(cudaStreamSynchronize(st.stream), "hook level 0");
    return OF_OK;
}

of_status reset_ctrl(State& st, const ErrorSink& err) {
    Ctrl* c = st.ctrl();
    OF_CUDA_TRY(cudaMemsetAsync(c, 0, offsetof(Ctrl, stop), st.stream), "hook ctrl reset");
    OF_CUDA_TRY(cudaMemsetAsync(c->stop, 0x7f, sizeof(c->stop), st.stream), "hook ctrl reset");
    return OF_OK;
}

// r->iterations_run of a hook's iterations or steps on a level of size d, from stop slot 0 after
// the stream's work so far (st.ops->iterations_run); all of them when `counted` is false.
of_status iterations_from_slot0(State& st, StageRun* r, const LevelDims& d, bool counted, const ErrorSink& err) {
    int stop = kNotStopped;
    OF_CUDA_TRY(cudaMemcpyAsync(&stop, &st.ctrl()->stop[0], sizeof(int), cudaMemcpyDeviceToHost, st.stream),
                "hook download");
    OF_CUDA_TRY(cudaStreamSynchronize(st.stream), "hook download");
    r->iterations_run = counted ? iterations_run(st, d, stop, r->iterations) : r->iterations;
    return OF_OK;
}

of_status zero(State& st, std::size_t off, const LevelDims& d, std::size_t elem, const ErrorSink& err) {
    OF_CUDA_TRY(cudaMemsetAsync(st.arena + off, 0, static_cast<std::size_t>(d.pitch) * static_cast<std::size_t>(d.h) * elem,
                                st.stream),
                "hook memset");
    return OF_OK;
}

template <class T2>
of_status warp_stage(State& st, StageRun* r, const LevelDims& d, const ErrorSink& err) {
    const DevLayout& l = st.lay;
    // I0, I1 into level 0 of the pyramids (F16 ones: rounded); the warp takes I1's gradient.
    of_status s = upload_level0(st, r->in[0], 0, d, err);
    if (s == OF_OK) s = upload_level0(st, r->in[1], 1, d, err);
    if (s == OF_OK) s = upload_pairs(st, r->in[4], r->in[5], st.plane<float2>(l.u[0], d), err);
    if (s == OF_OK) s = run_warp(st, d, 0, 0, err);
    if (s == OF_OK) s = download_pairs(st, st.plane<T2>(l.g, d), r->out[0], r->out[1], err);
    if (s == OF_OK) s = download(st, st.plane<float>(l.rc, d), r->out[3], err);
    if (s != OF_OK) return s;
    if (Pair<T2>::kHalf) {
        const std::size_t n = static_cast<std::size_t>(d.w) * static_cast<std::size_t>(d.h);
        for (std::size_t i = 0; i < n; ++i) r->out[2][i] = r->out[0][i] * r->out[0][i] + r->out[1][i] * r->out[1][i];
        return OF_OK;
    }
    return download(st, st.plane<float>(l.gr, d), r->out[2], err);
}

template <class T2>
of_status iterate_stage(State& st, StageRun* r, const LevelDims& d, const ErrorSink& err) {
    const DevLayout& l = st.lay;
    const std::size_t pair = Pair<T2>::kHalf ? 4u : 8u;
    of_status s = reset_ctrl(st, err);
    if (s == OF_OK) s = upload_pairs(st, r->in[0], r->in[1], st.plane<float2>(l.u[0], d), err);
    if (s == OF_OK) s = upload_pairs(st, r->in[2], r->in[3], st.plane<T2>(l.g, d), err);
    if (s == OF_OK && !Pair<T2>::kHalf) s = upload(st, r->in[4], st.plane<float>(l.gr, d), err);
    if (s == OF_OK) s = upload(st, r->in[5], st.plane<float>(l.rc, d), err);
    if (s == OF_OK) s = zero(st, l.px[0], d, pair, err);
    if (s == OF_OK) s = zero(st, l.py[0], d, pair, err);
    int ucur = 0, pcur = 0;
    if (s == OF_OK) s = run_iterations(st, d, r->iterations, 0, r->epsilon, &ucur, &pcur, err);
    if (s == OF_OK) s = download_pairs(st, st.plane<float2>(l.u[ucur], d), r->out[0], r->out[1], err);
    if (s == OF_OK) s = download_pairs(st, st.plane<T2>(l.px[pcur], d), r->out[2], r->out[4], err);
    if (s == OF_OK) s = download_pairs(st, st.plane<T2>(l.py[pcur], d), r->out[3], r->out[5], err);
    if (s == OF_OK) s = download_pairs(st, st.plane<T2>(l.g, d), r->out[6], r->out[7], err);
    if (s != OF_OK) return s;
    return iterations_from_slot0(st, r, d, r->epsilon > 0.0f, err);
}

// HS / CLG: frames and flow up, one warp's preparation at level 0 (cuda/hs_frame.cu).
of_status hs_stage_prepare(State& st, StageRun* r, const LevelDims& d, const ErrorSink& err) {
    of_status s = reset_ctrl(st, err);
    if (s == OF_OK) s = upload(st, r->in[0], st.pyr(0, 0, d), err);
    if (s == OF_OK) s = upload(st, r->in[1], st.pyr(1, 0, d), err);
    if (s == OF_OK) s = upload_pairs(st, r->in[2], r->in[3], st.plane<float2>(st.lay.u[0], d), err);
    if (s == OF_OK) s = hs_prepare_warp(st, d, 0, 0, err);
    return s;
}

of_status hs_stage(State& st, StageRun* r, const LevelDims& d, const ErrorSink& err) {
    const DevLayout& l = st.lay;
    of_status s = hs_stage_prepare(st, r, d, err);
    if (s != OF_OK) return s;
    const cudaStream_t str = st.stream;
    switch (r->stage) {
    case Stage::HsPrepare: {
        s = download(st, st.plane<float>(l.hs_i1w, d), r->out[0], err);
        if (s != OF_OK) return s;
        // (Ix, Iy, It, 0) into scratch(0), scratch(1), the I1w plane and pyr(1, 0).
        const DPlane<float> ix = st.scratch(0, d), iy = st.scratch(1, d), it = st.plane<float>(l.hs_i1w, d);
        const DPlane<float> pad = st.pyr(1, 0, d);
        k_unpack4<<<grid_of(d.w, d.h), dim3(kPlaneBlockX, kPlaneBlockY), 0, str>>>(as_const(st.plane<float4>(l.hs_deriv, d)),
                                                                                  ix, iy, it, pad);
        OF_CUDA_LAUNCHED("hook unpack launch");
        s = download(st, ix, r->out[1], err);
        if (s == OF_OK) s = download(st, iy, r->out[2], err);
        if (s == OF_OK) s = download(st, it, r->out[3], err);
        return s;
    }
    case Stage::HsTensor: {
        if (l.hs_tensor == 0 || st.rho_blur.radius == 0)
            return err.fail(OF_ERR_INVALID_ARGUMENT, "hooks: HsTensor needs a CLG context with rho > 0");
        const std::size_t plane0 = static_cast<std::size_t>(l.dims[0].pitch) * static_cast<std::size_t>(l.dims[0].h) * 4;
        for (int c = 0; c < kHsChannels && s == OF_OK; ++c)
            s = download(st, st.plane<float>(l.hs_tensor + static_cast<std::size_t>(c) * plane0, d), r->out[c], err);
        return s;
    }
    default: { // HsSolve
        int side = 0;
        s = hs_solve(st, d, r->iterations, 0, r->epsilon, true, &side, err);
        const DPlane<float> a = st.scratch(0, d), b = st.scratch(1, d);
        if (s == OF_OK) s = hs_unpack_increment(st, d, side, a, b, err);
        if (s == OF_OK) s = download(st, a, r->out[0], err);
        if (s == OF_OK) s = download(st, b, r->out[1], err);
        if (s != OF_OK) return s;
        return iterations_from_slot0(st, r, d, r->epsilon > 0.0f, err);
    }
    }
}

// Census hooks' start: frames and flow up (u[0]), each frame's rms0 and eta at level 0 on the
// device as a frame computes them (cuda_frame.cu).
of_status census_prologue(State& st, StageRun* r, const LevelDims& d, const ErrorSink& err) {
    of_status s = reset_ctrl(st, err);
    if (s == OF_OK) s = upload(st, r->in[0], st.pyr(0, 0, d), err);
    if (s == OF_OK) s = upload(st, r->in[1], st.pyr(1, 0, d), err);
    if (s == OF_OK) s = upload_pairs(st, r->in[2], r->in[3], st.plane<float2>(st.lay.u[0], d), err);
    if (s != OF_OK) return s;
    const DPlane<const float> i0 = as_const(st.pyr(0, 0, d)), i1 = as_const(st.pyr(1, 0, d));
    OF_CUDA_TRY(launch_census_rms0(i0, i1, st.ctrl(), st.stream), "hook census launch");
    OF_CUDA_TRY(launch_census_eta(i0, i1, st.ctrl(), st.stream), "hook census launch");
    return OF_OK;
}

// The device's rms0 and eta back into r (after the stream's work so far).
of_status census_scalars(State& st, StageRun* r, const ErrorSink& err) {
    Ctrl* c = st.ctrl();
    OF_CUDA_TRY(cudaMemcpyAsync(r->rms0, c->census_rms0, sizeof r->rms0, cudaMemcpyDeviceToHost, st.stream),
                "hook download");
    OF_CUDA_TRY(cudaMemcpyAsync(r->eta, c->census_eta, sizeof r->eta, cudaMemcpyDeviceToHost, st.stream), "hook download");
    OF_CUDA_TRY(cudaStreamSynchronize(st.stream), "hook download");
    return OF_OK;
}

// OF_ROBUST_CENSUS at level 0 (cuda_frame.cu, hs_frame.cu): the prologue, the warp and the
// census kernel of the context's algorithm (TV-L1, HS / CLG), the scalars and the planes down.
of_status census_stage(State& st, StageRun* r, const LevelDims& d, const ErrorSink& err) {
    const DevLayout& l = st.lay;
    of_status s = census_prologue(st, r, d, err);
    if (s != OF_OK) return s;
    const bool tvl1 = r->stage == Stage::CensusTvl1;
    s = tvl1 ? run_warp(st, d, 0, 0, err) : hs_prepare_warp(st, d, 0, 0, err);
    if (s == OF_OK) s = census_scalars(st, r, err);
    if (s != OF_OK) return s;
    if (tvl1) {
        s = download(st, st.plane<float>(l.tv_i1w, d), r->out[0], err);
        if (s == OF_OK) s = download_pairs(st, st.plane<float2>(l.tv_census_g, d), r->out[1], r->out[2], err);
        if (s == OF_OK) s = download_pairs(st, st.plane<float2>(l.g, d), r->out[3], r->out[4], err);
        if (s == OF_OK) s = download(st, st.plane<float>(l.gr, d), r->out[5], err);
        if (s == OF_OK) s = download(st, st.plane<float>(l.rc, d), r->out[6], err);
        if (s == OF_OK) s = download_pairs(st, st.plane<float2>(l.tv_minor, d), r->out[7], r->out[8], err);
        return s;
    }
    const std::size_t plane0 = static_cast<std::size_t>(l.dims[0].pitch) * static_cast<std::size_t>(l.dims[0].h) * 4;
    // Before CLG's smoothing: hs_census holds it only where CLG blurs (a layout offset is never
    // 0 for a plane of no bytes, so the plane's own size does not say whether it exists).
    const bool blurred = st.cfg.algorithm == OF_ALGO_CLG && st.rho_blur.radius > 0;
    const std::size_t raw = blurred ? l.hs_census : l.hs_tensor;
    s = download(st, st.plane<float>(l.hs_i1w, d), r->out[0], err);
    for (int ch = 0; ch < kHsChannels && s == OF_OK; ++ch)
        s = download(st, st.plane<float>(raw + static_cast<std::size_t>(ch) * plane0, d), r->out[1 + ch], err);
    return s;
}

// A byte plane (LK's state) as floats 0 / 1 on the host.
of_status download_bytes(State& st, const unsigned char* src, const LevelDims& d, float* dst, const ErrorSink& err) {
    std::vector<unsigned char> b(static_cast<std::size_t>(d.w) * static_cast<std::size_t>(d.h));
    OF_CUDA_TRY(cudaMemcpy2DAsync(b.data(), static_cast<std::size_t>(d.w), src, static_cast<std::size_t>(d.pitch),
                                  static_cast<std::size_t>(d.w), static_cast<std::size_t>(d.h), cudaMemcpyDeviceToHost,
                                  st.stream),
                "hook download");
    OF_CUDA_TRY(cudaStreamSynchronize(st.stream), "hook download");
    for (std::size_t i = 0; i < b.size(); ++i) dst[i] = static_cast<float>(b[i]);
    return OF_OK;
}

// LK: frames (and for a step the flow) up, the level's setup at level 0 (cuda/lk_frame.cu), then
// the stage's outputs.
of_status lk_stage(State& st, StageRun* r, const LevelDims& d, const ErrorSink& err) {
    const DevLayout& l = st.lay;
    const bool step = r->stage == Stage::LkStep;
    of_status s = reset_ctrl(st, err);
    if (s == OF_OK) s = upload(st, r->in[0], st.pyr(0, 0, d), err);
    if (s == OF_OK && step) s = upload(st, r->in[1], st.pyr(1, 0, d), err);
    if (s == OF_OK && step) s = upload_pairs(st, r->in[2], r->in[3], st.plane<float2>(l.u[0], d), err);
    if (s == OF_OK) s = lk_prepare_level(st, d, 0, 0, r->stage == Stage::LkTensor, err);
    if (s != OF_OK) return s;
    const std::size_t plane0 = static_cast<std::size_t>(l.dims[0].pitch) * static_cast<std::size_t>(l.dims[0].h) * 4;
    const auto tensor = [&](int ch) { return st.plane<float>(l.lk_tensor + static_cast<std::size_t>(ch) * plane0, d); };
    switch (r->stage) {
    case Stage::LkGradient:
        return st.tun.precision == OF_PRECISION_F16
                   ? download_pairs(st, st.plane<__half2>(l.lk_g, d), r->out[0], r->out[1], err)
                   : download_pairs(st, st.plane<float2>(l.lk_g, d), r->out[0], r->out[1], err);
    case Stage::LkTensor:
        for (int ch = 0; ch < kLkTensorChannels && s == OF_OK; ++ch) s = download(st, tensor(ch), r->out[ch], err);
        return s;
    case Stage::LkConfidence:
        s = download(st, st.plane<float>(l.lk_conf, d), r->out[0], err);
        if (s == OF_OK) s = download_bytes(st, st.arena + l.lk_state, d, r->out[1], err);
        for (int ch = 0; ch < kLkTensorChannels && s == OF_OK; ++ch) s = download(st, tensor(ch), r->out[2 + ch], err);
        return s;
    default: { // LkStep
        const DPlane<float2> sums = st.plane<float2>(l.lk_box + 2 * plane0, d);
        s = zero(st, l.lk_box + 2 * plane0, d, 8, err);
        int ucur = 0;
        const float keep = st.cfg.epsilon;
        st.cfg.epsilon = r->epsilon; // the steps read it there
        if (s == OF_OK) s = lk_steps(st, d, 0, r->iterations, 0, &ucur, true, err);
        st.cfg.epsilon = keep;
        if (s == OF_OK) s = download_pairs(st, st.plane<float2>(l.u[ucur], d), r->out[0], r->out[1], err);
        if (s == OF_OK) s = download_bytes(st, st.arena + l.lk_state, d, r->out[2], err);
        if (s == OF_OK) s = download_pairs(st, sums, r->out[3], r->out[4], err);
        if (s != OF_OK) return s;
        return iterations_from_slot0(st, r, d, true, err);
    }
    }
}

// LK under OF_ROBUST_CENSUS at level 0 (lk_census_frame.cu): the census prologue, then up to
// r->iterations census steps at stop slot 0 with r->epsilon, the planes down.
of_status lk_census_stage(State& st, StageRun* r, const LevelDims& d, const ErrorSink& err) {
    const DevLayout& l = st.lay;
    of_status s = census_prologue(st, r, d, err);
    const float keep = st.cfg.epsilon;
    st.cfg.epsilon = r->epsilon; // the steps read it there
    if (s == OF_OK) s = lk_census_steps(st, d, 0, r->iterations, 0, 0, true, err);
    st.cfg.epsilon = keep;
    if (s == OF_OK) s = census_scalars(st, r, err);
    if (s == OF_OK) s = download_pairs(st, st.plane<float2>(l.u[0], d), r->out[0], r->out[1], err);
    if (s == OF_OK) s = download_bytes(st, st.arena + l.lk_state, d, r->out[2], err);
    if (s == OF_OK) s = download(st, st.plane<float>(l.lk_conf, d), r->out[3], err);
    if (s == OF_OK) s = download_pairs(st, st.plane<float2>(l.lk_g, d), r->out[4], r->out[5], err);
    if (s == OF_OK) s = download(st, st.f32_plane(l.lk_box, 3, d), r->out[6], err);
    if (s != OF_OK) return s;
    return iterations_from_slot0(st, r, d, true, err);
}

} // namespace

of_status run_stage(State* stp, StageRun* r, const ErrorSink& err) {
    if (!stp) return err.fail(OF_ERR_INTERNAL, "hooks: no CUDA state");
    State& st = *stp;
    const int mw = static_cast<int>(st.cfg.max_width), mh = static_cast<int>(st.cfg.max_height);
    const bool two = r->stage == Stage::Resample || r->stage == Stage::Upsample;
    if (r->w < 1 || r->h < 1 || r->w > mw || r->h > mh || (two && (r->w2 < 1 || r->h2 < 1 || r->w2 > mw || r->h2 > mh)))
        return err.fail(OF_ERR_SIZE, "hooks: stage size %dx%d -> %dx%d outside 1..%dx%d", r->w, r->h, r->w2, r->h2, mw, mh);
    const bool tvl1_stage = r->stage == Stage::Warp || r->stage == Stage::Iterate;
    if (tvl1_stage && (is_variational(st.cfg.algorithm) || is_lk(st.cfg.algorithm)))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "hooks: TV-L1 stage on a %s context", st.ops->name);
    const LevelDims d = dims_of(r->w, r->h);
    const LevelDims d2 = two ? dims_of(r->w2, r->h2) : d;
    const DevLayout& l = st.lay;
    const cudaStream_t s = st.stream;
    of_status res = OF_OK;
    r->iterations_run = 0;
    switch (r->stage) {
    case Stage::Blur: {
        // The fused kernel from a plane other than its output (the frame path blurs scratch ->
        // level 0 and level -> scratch).
        const Gaussian1D g = make_gaussian(r->sigma);
        const DPlane<float> src = st.plane<float>(l.u[1], d), dst = st.scratch(0, d);
        res = upload(st, r->in[0], src, err);
        if (res != OF_OK) return res;
        OF_CUDA_TRY(cudaMemsetAsync(dst.p, 0xff, static_cast<std::size_t>(dst.pitch) * static_cast<std::size_t>(dst.h) * 4, s),
                    "hook memset"); // NaN: a pixel the kernel misses shows
        OF_CUDA_TRY(launch_blur(as_const(src), dst, g, s), "hook blur launch");
        return download(st, dst, r->out[0], err);
    }
    case Stage::BlurH:
    case Stage::BlurV: {
        const Gaussian1D g = make_gaussian(r->sigma);
        const DPlane<float> src = st.plane<float>(l.u[1], d), dst = st.scratch(0, d);
        res = upload(st, r->in[0], src, err);
        if (res != OF_OK) return res;
        if (r->stage == Stage::BlurH)
            OF_CUDA_TRY(launch_blur_h(as_const(src), dst, g, s), "hook blur launch");
        else
            OF_CUDA_TRY(launch_blur_v(as_const(src), dst, g, s), "hook blur launch");
        return download(st, dst, r->out[0], err);
    }
    case Stage::Resample: {
        const DPlane<float> src = st.plane<float>(l.u[1], d), dst = st.scratch(0, d2);
        res = upload(st, r->in[0], src, err);
        if (res != OF_OK) return res;
        OF_CUDA_TRY(launch_resample(as_const(src), dst, s), "hook resample launch");
        return download(st, dst, r->out[0], err);
    }
    case Stage::Upsample: {
        const DPlane<float2> src = st.plane<float2>(l.u[0], d), dst = st.plane<float2>(l.u[1], d2);
        res = upload_pairs(st, r->in[0], r->in[1], src, err);
        if (res != OF_OK) return res;
        OF_CUDA_TRY(launch_upsample_flow(as_const(src), dst, r->mx, r->my, s), "hook upsample launch");
        return download_pairs(st, dst, r->out[0], r->out[1], err);
    }
    case Stage::Warp:
        return st.tun.precision == OF_PRECISION_F16 ? warp_stage<__half2>(st, r, d, err)
                                                    : warp_stage<float2>(st, r, d, err);
    case Stage::Iterate:
        return st.tun.precision == OF_PRECISION_F16 ? iterate_stage<__half2>(st, r, d, err)
                                                    : iterate_stage<float2>(st, r, d, err);
    case Stage::HsPrepare:
    case Stage::HsTensor:
    case Stage::HsSolve:
        if (!is_variational(st.cfg.algorithm))
            return err.fail(OF_ERR_INVALID_ARGUMENT, "hooks: HS stage on a %s context", st.ops->name);
        return hs_stage(st, r, d, err);
    case Stage::CensusTvl1:
    case Stage::CensusTensor:
        if (st.cfg.robust != OF_ROBUST_CENSUS || (r->stage == Stage::CensusTvl1) != (st.cfg.algorithm == OF_ALGO_TVL1) ||
            (r->stage == Stage::CensusTensor && !is_variational(st.cfg.algorithm)))
            return err.fail(OF_ERR_INVALID_ARGUMENT, "hooks: census stage on a %s context without its census", st.ops->name);
        return census_stage(st, r, d, err);
    case Stage::LkGradient:
    case Stage::LkTensor:
    case Stage::LkConfidence:
    case Stage::LkStep:
        if (!is_lk(st.cfg.algorithm))
            return err.fail(OF_ERR_INVALID_ARGUMENT, "hooks: LK stage on a %s context", st.ops->name);
        return lk_stage(st, r, d, err);
    case Stage::LkCensus:
        if (!is_lk(st.cfg.algorithm) || st.cfg.robust != OF_ROBUST_CENSUS)
            return err.fail(OF_ERR_INVALID_ARGUMENT, "hooks: LK census stage on a %s context without its census",
                            st.ops->name);
        return lk_census_stage(st, r, d, err);
    }
    return err.fail(OF_ERR_INVALID_ARGUMENT, "hooks: unknown stage %d", static_cast<int>(r->stage));
}

of_status bench_prepare(State* stp, const float* i0, const float* i1, int w, int h, const ErrorSink& err) {
    if (!stp) return err.fail(OF_ERR_INTERNAL, "hooks: no CUDA state");
    State& st = *stp;
    if (st.cfg.format != OF_PIXEL_F32) return err.fail(OF_ERR_FORMAT, "hooks: bench_prepare needs an F32 context");
    if (w < 1 || h < 1 || w > static_cast<int>(st.cfg.max_width) || h > static_cast<int>(st.cfg.max_height))
        return err.fail(OF_ERR_SIZE, "hooks: bench size %dx%d outside the context's maximum", w, h);
    const DevLayout& l = st.lay;
    const LevelDims d = dims_of(w, h);
    const std::size_t row = static_cast<std::size_t>(w) * 4;
    const float* frames[2] = {i0, i1};
    for (int f = 0; f < 2; ++f) {
        OF_CUDA_TRY(cudaMemcpyAsync(st.arena + l.raw[f], frames[f], row * static_cast<std::size_t>(h), cudaMemcpyHostToDevice,
                                    st.stream),
                    "bench upload");
        // One frame at a time: no exposure range match (a pair step of solve(); this only
        // prepares a level for timing the warp and the iterations).
        of_status r = build_pyramid(st, f, Src{st.arena + l.raw[f], row}, &d, 1, err);
        if (r != OF_OK) return r;
    }
    of_status r = zero(st, l.u[0], d, 8, err);
    if (r == OF_OK) r = reset_ctrl(st, err);
    if (is_variational(st.cfg.algorithm)) {
        int side = 0;
        if (r == OF_OK) r = hs_prepare_warp(st, d, 0, 0, err);
        if (r == OF_OK) r = hs_solve(st, d, 0, -1, 0.0f, true, &side, err); // du = 0
    } else if (is_lk(st.cfg.algorithm)) {
        if (r == OF_OK) r = lk_prepare_level(st, d, 0, 0, false, err);
    } else {
        const std::size_t pair = st.tun.precision == OF_PRECISION_F16 ? 4u : 8u;
        if (r == OF_OK) r = zero(st, l.px[0], d, pair, err);
        if (r == OF_OK) r = zero(st, l.py[0], d, pair, err);
        if (r == OF_OK) r = run_warp(st, d, 0, 0, err);
    }
    if (r != OF_OK) return r;
    OF_CUDA_TRY(cudaStreamSynchronize(st.stream), "bench prepare");
    st.bench_w = w;
    st.bench_h = h;
    st.bench_ucur = 0;
    st.bench_pcur = 0;
    return OF_OK;
}

namespace {

// The two timing events of a bench hook; on failure none is left created.
of_status create_event_pair(cudaEvent_t ev[2], const ErrorSink& err) {
    OF_CUDA_TRY(cudaEventCreate(&ev[0]), "bench event");
    const cudaError_t e1 = cudaEventCreate(&ev[1]);
    if (e1 != cudaSuccess) {
        (void)cudaEventDestroy(ev[0]);
        return device_fail(err, "bench event", e1);
    }
    return OF_OK;
}

} // namespace

of_status bench_iterations(State* stp, int iterations, int runs, float* ms, const ErrorSink& err) {
    if (!stp || stp->bench_w == 0) return err.fail(OF_ERR_INTERNAL, "hooks: bench_iterations before bench_prepare");
    State& st = *stp;
    const LevelDims d = dims_of(st.bench_w, st.bench_h);
    cudaEvent_t ev[2];
    const of_status evs = create_event_pair(ev, err);
    if (evs != OF_OK) return evs;
    of_status r = OF_OK;
    const bool lk = is_lk(st.cfg.algorithm);
    for (int k = 0; k < runs && r == OF_OK; ++k) {
        // LK counts its active pixels into stop slot 0 as frames do: a fresh slot per run.
        if (lk) r = reset_ctrl(st, err);
        if (r != OF_OK) break;
        cudaError_t e = cudaEventRecord(ev[0], st.stream);
        if (e == cudaSuccess) {
            if (lk) {
                r = lk_steps(st, d, 0, iterations, 0, &st.bench_ucur, false, err);
            } else if (is_variational(st.cfg.algorithm)) {
                // Continues from the last run's increment (side 0 after an even count: the
                // iterate is what it is; only the time counts).
                int side = 0;
                r = hs_solve(st, d, iterations, -1, 0.0f, false, &side, err);
            } else {
                r = run_iterations(st, d, iterations, -1, 0.0f, &st.bench_ucur, &st.bench_pcur, err);
            }
            if (r != OF_OK) break;
            e = cudaEventRecord(ev[1], st.stream);
        }
        if (e == cudaSuccess) e = cudaEventSynchronize(ev[1]);
        if (e == cudaSuccess) e = cudaEventElapsedTime(&ms[k], ev[0], ev[1]);
        if (e != cudaSuccess) r = device_fail(err, "bench timing", e);
    }
    (void)cudaEventDestroy(ev[0]);
    (void)cudaEventDestroy(ev[1]);
    return r;
}

of_status bench_confidence(State* stp, int w, int h, int launches, int runs, float* ms, const ErrorSink& err) {
    if (!stp) return err.fail(OF_ERR_INTERNAL, "hooks: bench_confidence without a state");
    State& st = *stp;
    if (w < 1 || h < 1 || w > static_cast<int>(st.cfg.max_width) || h > static_cast<int>(st.cfg.max_height))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "hooks: bench_confidence %dx%d outside the context", w, h);
    const LevelDims d = dims_of(w, h);
    const int ucur = st.graph ? st.graph_ucur : 0;
    const ConfPlanes c = conf_planes(st, d, ucur);
    const DPlane<float> n0 = c.n0, n1 = c.n1, out = c.conf;
    const DPlane<float2> u = st.plane<float2>(st.lay.u[ucur], d);
    float half = 0.0f;
    const float* own = st.ops->confidence ? st.ops->confidence(st, &half) : nullptr; // LK's lambda plane
    cudaEvent_t ev[2];
    const of_status evs = create_event_pair(ev, err);
    if (evs != OF_OK) return evs;
    of_status r = OF_OK;
    for (int k = 0; k < runs && r == OF_OK; ++k) {
        cudaError_t e = cudaEventRecord(ev[0], st.stream);
        for (int i = 0; i < launches && e == cudaSuccess; ++i)
            e = launch_confidence({n0.p, n0.w, n0.h, n0.pitch}, {n1.p, n1.w, n1.h, n1.pitch}, {u.p, u.w, u.h, u.pitch},
                                  {own, d.w, d.h, static_cast<int>(d.pitch)}, half, out, st.stream);
        if (e == cudaSuccess) e = cudaEventRecord(ev[1], st.stream);
        if (e == cudaSuccess) e = cudaEventSynchronize(ev[1]);
        if (e == cudaSuccess) e = cudaEventElapsedTime(&ms[k], ev[0], ev[1]);
        if (e != cudaSuccess) r = device_fail(err, "bench confidence timing", e);
    }
    (void)cudaEventDestroy(ev[0]);
    (void)cudaEventDestroy(ev[1]);
    return r;
}

namespace {

// HS / CLG (cuda/hs_cuda.cuh). Bytes per pixel per iteration, F32 (F16 halves each term): the
// increment (du, dv) 8 read + 8 written, the three coefficient pairs 24 read:
//   Jacobi GLOBAL           8 + 24 + 8                                     = 40 (F16 20)
//   Jacobi MULTI_ITER/FUSED the GLOBAL pass once per launch of P iterations = 40/P (20/P)
//   SOR GLOBAL              per half-sweep, per pixel of its colour: its old value, its
//                           coefficients, its new value (8 + 24 + 8), and the other colour's
//                           array once (8 per pixel of that colour): 24 + 24 per pixel = 48 (24)
//   SOR FUSED               both colours' old values, coefficients, new values once = 40 (20)
// FLOPs per pixel per iteration: the two 9-point means 18 (F16's Laplacian form 20; counted 18),
// the affine update 8, SOR's relaxation 6 more: Jacobi 26, SOR 32.
Model hs_model(const State* st, int w, int h, int iterations) {
    Model m;
    const bool half = st->tun.precision == OF_PRECISION_F16;
    const double k = half ? 0.5 : 1.0;
    const bool sor = st->cfg.hs.solver == OF_SOLVER_RED_BLACK_SOR;
    m.flops = sor ? 32.0 : 26.0;
    m.redundancy = 1.0;
    if (sor) {
        m.bytes = k * (st->tun.variant == OF_VARIANT_GLOBAL ? 48.0 : 40.0);
        if (st->tun.variant != OF_VARIANT_GLOBAL) { // the red ring: (2 bw + 2)(bh + 2) / 2 per 2 bw bh / 2
            const double bw = st->tun.bw, bh = st->tun.bh;
            m.redundancy = 0.5 * ((2 * bw + 2) * (bh + 2) / (2 * bw * bh) + 1.0);
        }
        return m;
    }
    if (st->tun.variant == OF_VARIANT_GLOBAL) {
        m.bytes = k * 40.0;
        return m;
    }
    const int depth = st->tun.variant == OF_VARIANT_MULTI_ITER ? st->tun.depth : 1;
    const int n_it = iterations > 0 ? iterations : depth;
    const int launches = (n_it + depth - 1) / depth;
    double executed = 0.0;
    for (int q = 0; q < launches; ++q) {
        const int n = n_it / launches + (q < n_it % launches ? 1 : 0);
        const int tw = st->tun.region_w - 2 * depth, th = st->tun.region_h - 2 * depth; // tiles sized for depth
        const double blocks = static_cast<double>((w + tw - 1) / tw) * static_cast<double>((h + th - 1) / th);
        executed += n * blocks * st->tun.region_w * st->tun.region_h;
    }
    m.bytes = k * 40.0 * launches / n_it;
    m.redundancy = executed / (static_cast<double>(n_it) * static_cast<double>(w) * static_cast<double>(h));
    return m;
}

// Lucas-Kanade (cuda/lk_cuda.cuh), per pixel per Newton step. Bytes (compulsory DRAM traffic; a
// window's re-reads of its neighbours hit the caches): F32 planes 4, the gradient pair 8 (F16 4),
// the flow 8, the state 1:
//   GLOBAL      reads I0, I1, g, u_in, G (3 planes), the state; writes u_out, the state
//                                                                 4+4+8+8+12+1 + 8+1 = 46 (F16 42)
//   FUSED       residual pass: reads I0, I1, g, u, writes the row sums (8)       = 32 (28)
//               update pass: reads the row sums, -G^-1, the state, u; writes u, the state
//                                                                 8+12+1+8 + 8+1   = 38: 70 (66)
//   MULTI_ITER  as GLOBAL with -G^-1 for G                                       = 46 (42)
// FLOPs (add, sub, mul, div 1 each; floor, conversions, clamps and compares not counted), each
// residual product counted once: the product 20 (the position 2, the fractions 2, the two row
// lerps 6, the column lerp and it 4, r = it - g.u 4, gx r and gy r 2), the window sums 4 s (two
// components, horizontal then vertical, s terms each), the update 12 (F32: the two products and
// the sum per component 6, the step 2, its square 3, epsilon^2 1; GLOBAL's double Cramer rule 19).
// Redundancy: residual products computed per pixel: GLOBAL s^2 (every window recomputes its own),
// FUSED (kLkFusedCols + 2r) / kLkFusedCols, MULTI_ITER (32 + 2r)(th + 2r) / (32 th).
Model lk_model(const State* st) {
    Model m;
    const Tuning& t = st->tun;
    const double s = st->cfg.lk.window, k = t.precision == OF_PRECISION_F16 ? 4.0 : 0.0;
    switch (t.variant) {
    case OF_VARIANT_GLOBAL:
        m.bytes = 46.0 - k;
        m.flops = 20.0 + 4.0 * s + 19.0;
        m.redundancy = s * s;
        break;
    case OF_VARIANT_FUSED:
        m.bytes = 70.0 - k;
        m.flops = 20.0 + 4.0 * s + 12.0;
        m.redundancy = static_cast<double>(t.region_w) / kLkFusedCols;
        break;
    case OF_VARIANT_MULTI_ITER:
    default:
        m.bytes = 46.0 - k;
        m.flops = 20.0 + 4.0 * s + 12.0;
        m.redundancy = static_cast<double>(t.region_w) * t.region_h / (32.0 * t.tile_h);
        break;
    }
    return m;
}

} // namespace

Model model(const State* st, int w, int h, int iterations) {
    if (is_variational(st->cfg.algorithm)) return hs_model(st, w, h, iterations);
    if (is_lk(st->cfg.algorithm)) return lk_model(st);
    Model m;
    const bool half = st->tun.precision == OF_PRECISION_F16;
    const double pass = half ? 40.0 : 64.0; // one fused read+write pass of u, p, constants
    const double bw = st->tun.bw, bh = st->tun.bh;
    m.flops = 49.0;
    switch (st->tun.variant) {
    case OF_VARIANT_GLOBAL:
        m.bytes = half ? 56.0 : 88.0;
        m.redundancy = 1.0;
        break;
    case OF_VARIANT_FUSED:
        m.bytes = pass;
        m.redundancy = (21.0 * (bw + 1) * (bh + 1) / (bw * bh) + 28.0) / 49.0;
        break;
    case OF_VARIANT_MULTI_ITER:
    default: {
        // The launches cuda_frame.cu makes: the fewest of at most depth iterations, the
        // iterations spread evenly, each launch's tiles sized for its own count (region - 2n).
        const int n_it = iterations > 0 ? iterations : st->tun.depth;
        const int launches = (n_it + st->tun.depth - 1) / st->tun.depth;
        double executed = 0.0;
        for (int k = 0; k < launches; ++k) {
            const int n = n_it / launches + (k < n_it % launches ? 1 : 0);
            const int tw = st->tun.region_w - 2 * n, th = st->tun.region_h - 2 * n;
            const double blocks = static_cast<double>((w + tw - 1) / tw) * static_cast<double>((h + th - 1) / th);
            executed += n * blocks * st->tun.region_w * st->tun.region_h;
        }
        m.bytes = pass * launches / n_it;
        m.redundancy = executed / (static_cast<double>(n_it) * static_cast<double>(w) * static_cast<double>(h));
        break;
    }
    }
    return m;
}

bool staging_pinned(const State* st) { return st->registered; }

void launch_shape(const State* st, int* bw, int* bh, int* depth, std::size_t* shared_bytes) {
    *bw = st->tun.bw;
    *bh = st->tun.bh;
    *depth = st->tun.depth;
    *shared_bytes = st->tun.shared_bytes;
}

} // namespace hooks
} // namespace cuda
} // namespace oflow
