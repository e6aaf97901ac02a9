// config.init OF_INIT_DIS on the CUDA path (core/init_dis.hpp has the method; the CPU path is
// core/init_dis.cpp): the DIS pass of each pair and the fusion's place in the frame.
//
// The DIS pass is a context of its own (DIS MEDIUM, core/init_dis.cpp init_dis_config) that the
// core creates after the parent's create() (core/context.cpp): its host part in the parent's
// kBufInitArena, its device arena the parent's bytes from init_child_offset(lay.device_bytes) on
// (planned into the parent's of_query_memory), its stream the parent's. attach_init hands its
// State to the parent. Per pair (process_frame, for of_process and of_push_frame alike) the parent
// runs the child's frame pipeline (run_frame: conversion, its own preprocessing, pyramid, DIS's
// levels; its graph for maximum-size frames) straight on the device frames the parent has already
// checked and uploaded, then copies the child's level-0 flow into DevLayout::init_flow: all on the
// one stream, so the parent's solve sees it, and the child's next pair cannot start before the
// parent's solve ends. No host wait, no allocation. The parent's fusion (init_fuse_level, from
// cuda_frame.cu solve_one) runs at the CPU path's level, inside the parent's captured graph.
//
// A frame split with the CPU by level (split_from) is never planned with init dis (core/
// select.cpp): the fused level could fall among the CPU's levels, whose solve reads no device
// plane. Such a config runs wholly on the GPU.
#include "cuda/cuda_bench.hpp"
#include "cuda/cuda_check.cuh"
#include "cuda/cuda_state.cuh"

#include "core/init_dis.hpp"
#include "core/init_fuse_pixel.hpp"

#include <cstdint>

namespace oflow {
namespace cuda {

void* init_device_arena(State* parent) { return parent && parent->init_off ? parent->arena + parent->init_off : nullptr; }

void* stream_handle(State* st) { return st ? static_cast<void*>(st->stream) : nullptr; }

void attach_init(State* parent, State* child) {
    if (parent) parent->init = child;
}

of_status init_dis_run(State& st, const Src* src, int w, int h, const ErrorSink& err) {
    State* d = st.init;
    if (!d) return OF_OK;
    if (d->stream != st.stream || d->device != st.device)
        return err.fail(OF_ERR_INTERNAL, "cuda: init dis: the DIS pass runs on another stream or device");
    // Its levels follow the frame, as init_dis_run_cpu's (never more than planned: the count is
    // monotone in the size); a maximum-size frame replays the graph captured with the same count.
    d->cfg.levels = static_cast<uint32_t>(init_dis_levels(w, h));
    SolveInfo info;
    const of_status r = run_frame(*d, src[0], src[1], w, h, err, &info);
    if (r != OF_OK) return r;
    const LevelDims& d0 = info.dims[0]; // pitch dev_pitch(w): the parent's level-0 pitch too
    const std::size_t pitch = static_cast<std::size_t>(d0.pitch) * 8;
    OF_CUDA_TRY(cudaMemcpy2DAsync(st.arena + st.lay.init_flow, pitch, d->arena + d->lay.u[info.ucur], pitch,
                                  static_cast<std::size_t>(w) * 8, static_cast<std::size_t>(h), cudaMemcpyDeviceToDevice,
                                  st.stream),
                "init dis flow copy");
    return OF_OK;
}

namespace {

// Both fusion kernels (init_fuse_cuda.cu) on the level planes i0, i1.
template <class P>
of_status fuse(const InitFuseArgs& a, DPlane<const P> i0, DPlane<const P> i1, cudaStream_t s, const ErrorSink& err) {
    OF_CUDA_TRY(launch_init_cost(a, i0, i1, s), "init dis cost launch");
    OF_CUDA_TRY(launch_init_choose(a, s), "init dis choice launch");
    return OF_OK;
}

template <class T>
DPlane<const T> as_const(const DPlane<T>& p) {
    return {p.p, p.w, p.h, p.pitch};
}

// init_fuse_cpu's scales: the level's side over DIS's (level 0's), in float.
void set_scales(InitFuseArgs* a) {
    a->mx = static_cast<float>(a->w) / static_cast<float>(a->dis.w);
    a->my = static_cast<float>(a->h) / static_cast<float>(a->dis.h);
}

} // namespace

of_status init_fuse_level(State& st, const SolveInfo& info, int l, int ucur, const int* top_dev, const ErrorSink& err) {
    if (st.cfg.init != OF_INIT_DIS) return OF_OK;
    const int fused = init_level(info.levels);
    const bool here = top_dev ? true : init_fuses(l, fused, info.top); // top_dev: the kernels decide
    if (!here) return OF_OK;
    const DevLayout& lay = st.lay;
    const LevelDims& d = info.dims[l];
    InitFuseArgs a;
    a.w = d.w;
    a.h = d.h;
    a.u = st.plane<float2>(lay.u[ucur], d);
    a.diff = st.f32_plane(lay.u[ucur ^ 1], 0, d); // free: the upsampling read it, the level's solve has not begun
    a.dis = as_const(st.plane<float2>(lay.init_flow, info.dims[0]));
    set_scales(&a);
    a.radius = kInitFuseRadius;
    a.top = top_dev;
    a.level = l;
    a.fuse_level = fused;
    if (st.half_pyr()) return fuse(a, as_const(st.pyr_h(0, l, d)), as_const(st.pyr_h(1, l, d)), st.stream, err);
    return fuse(a, as_const(st.pyr(0, l, d)), as_const(st.pyr(1, l, d)), st.stream, err);
}

namespace hooks {

of_status init_fuse(const InitFuseRun& r, const ErrorSink& err) {
    InitFuseArgs a;
    a.w = r.w;
    a.h = r.h;
    a.u = DPlane<float2>{reinterpret_cast<float2*>(r.u), r.w, r.h, r.pitch};
    a.diff = DPlane<float>{r.diff, r.w, r.h, r.pitch};
    a.dis = DPlane<const float2>{reinterpret_cast<const float2*>(r.dis), r.dis_w, r.dis_h, r.dis_pitch};
    set_scales(&a);
    a.radius = kInitFuseRadius;
    a.top = nullptr;
    a.level = 0;
    a.fuse_level = 0;
    const cudaStream_t s = nullptr;
    of_status st;
    if (r.half)
        st = fuse(a, DPlane<const __half>{static_cast<const __half*>(r.i0), r.w, r.h, r.pitch},
                  DPlane<const __half>{static_cast<const __half*>(r.i1), r.w, r.h, r.pitch}, s, err);
    else
        st = fuse(a, DPlane<const float>{static_cast<const float*>(r.i0), r.w, r.h, r.pitch},
                  DPlane<const float>{static_cast<const float*>(r.i1), r.w, r.h, r.pitch}, s, err);
    if (st != OF_OK) return st;
    OF_CUDA_TRY(cudaStreamSynchronize(s), "init dis fusion");
    return OF_OK;
}

} // namespace hooks

} // namespace cuda
} // namespace oflow
