// cuda::State: what one context of the CUDA path owns, placed in the host arena by create().
// Also the per-frame pipeline (cuda_frame.cu) that process(), the warm-up at create and the
// benchmark/test hooks (cuda_bench.cu) share.
#ifndef OFLOW_CUDA_CUDA_STATE_CUH
#define OFLOW_CUDA_CUDA_STATE_CUH

#include "cuda/cuda_backend.hpp"
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_layout.hpp"

namespace oflow {
namespace cuda {

struct State;

/// What the frame pipeline (cuda_frame.cu) needs of an algorithm's CUDA path: everything of a
/// frame but the per-level refinement is shared (conversion, exposure match, normalisation,
/// pyramids, texture rule, split frames, upsampling, the level's end, graph capture, output).
struct AlgoOps {
    const char* name;
    /// Refines the flow of level `level` (size d), which u[*ucur] holds (zero at the coarsest
    /// level, else the coarser level upsampled): warps, inner iterations (epsilon stop slot
    /// level * kMaxWarps + warp), median; *ucur names the plane holding the result. Enqueues only.
    of_status (*level)(State& st, const LevelDims& d, int level, int* ucur, const ErrorSink& err);
    /// Kernel launches of one warp of `iterations` inner iterations on a level of size d (the
    /// graph's size).
    int (*launches)(const State& st, const LevelDims& d, int iterations);
    /// Inner iterations one warp of a level of size d ran, given its stop slot value
    /// (kNotStopped: all of them).
    int (*iterations_run)(const State& st, const LevelDims& d, int stop_value, int iterations);
    /// The KernelList name prefix of the iteration kernels the tuning selected, whose block
    /// create() checks against what they can launch.
    void (*iteration_kernels)(const State& st, char* prefix, std::size_t n);
    /// The validity output (of_flow.valid, core/confidence.hpp) is the residual confidence of
    /// the final flow for every algorithm (residual_confidence below). An algorithm with a rule
    /// of its own (LK) gives here the device plane holding, after a frame, each pixel's level-0
    /// raw value v (the frame's level-0 size, pitch dev_pitch(width) floats) and in *half the
    /// value that maps to 0.5 (plane_confidence(v, half); LK: config.lk.min_eigen), which the
    /// confidence is combined with (combined_confidence). nullptr (the member): none
    /// (Algorithm::confidence_plane -1).
    const float* (*confidence)(const State& st, float* half);
};
extern const AlgoOps kTvl1Ops; // cuda_frame.cu
extern const AlgoOps kHsOps;   // hs_frame.cu (HS and CLG)
extern const AlgoOps kLkOps;   // lk_frame.cu
extern const AlgoOps kDisOps;  // dis_frame.cu

struct State {
    const AlgoOps* ops;        // the algorithm's steps (kTvl1Ops, kHsOps, kLkOps, kDisOps)
    of_config cfg;             // validated copy (pointer fields are not dereferenced)
    Tuning tun;
    DevLayout lay;
    Gaussian1D presmooth;      // as context.cpp makes them
    Gaussian1D level_blur;
    Gaussian1D robust_blur;    // window of the local normalisation (cfg.robust_sigma)
    Gaussian1D rho_blur;       // CLG's tensor smoothing (cfg.hs.rho; radius 0 otherwise)
    int device;                // the device current at create
    int sm_count;              // its multiprocessors (coarse levels use smaller MULTI_ITER blocks)
    cudaStream_t stream;
    bool own_stream;
    cudaEvent_t uploaded;      // recorded after the last upload out of the staging region
    bool event_ok;
    cudaEvent_t flow_band[kFlowChunks]; // recorded after each row band of a host-output flow download
    int flow_bands;                     // events created
    unsigned char* arena;      // device arena
    bool own_arena;
    unsigned char* pinned;     // staging (host arena slot)
    bool registered;           // cudaHostRegister succeeded (else staging is pageable)
    cudaGraphExec_t graph;     // solve() for the maximum frame size, captured at create
    int graph_ucur;            // u plane holding the level-0 flow after the graph
    CpuLevels cpu;             // levels on the CPU path (cpu.from == 0: none)
    int keep_slot;             // stream (push): the upload slot (DevLayout::raw) holding the kept frame
    int pick_kept;             // OF_ROBUST_PICK: the candidate (pick_candidates(cfg.algorithm) index) the last frame
                               // kept, -1 when not known to the host (device output: no wait)
    struct HostRange {
        const unsigned char* p;
        std::size_t n;
    };
    HostRange reg[OF_MAX_REGISTERED]; // of_register_host's buffers (n 0: a free entry)
    /// Whether [p, p + span) lies wholly inside a registered buffer.
    bool in_registered(const void* p, std::size_t span) const {
        const unsigned char* b = static_cast<const unsigned char*>(p);
        for (const HostRange& r : reg)
            if (r.n && b >= r.p && span <= r.n && static_cast<std::size_t>(b - r.p) <= r.n - span) return true;
        return false;
    }
    // config.init OF_INIT_DIS (cuda/init_dis_cuda.cu): the DIS pass's state (a context of its own,
    // created by the core after this one: attach_init), whose device arena is this arena's bytes
    // from init_off on and whose stream is this stream; null until attached (the warm-up frame and
    // the graph capture of create() read DevLayout::init_flow, zeroed at create, instead).
    State* init;
    std::size_t init_off;      // init_child_offset(lay.device_bytes) with init dis, else 0
    int bench_w, bench_h;      // level prepared by hooks::bench_prepare (0 = none)
    int bench_ucur, bench_pcur;

    // Typed views of the arena.
    Ctrl* ctrl() const { return reinterpret_cast<Ctrl*>(arena + lay.ctrl); }
    float* partials() const { return reinterpret_cast<float*>(arena + lay.partials); }
    /// Pyramid level planes: pyr() for F32 pyramids, pyr_h() for F16 ones (half_pyr(); TV-L1 at
    /// F16 precision, cuda_layout.hpp half_pyramids). Each caller picks by half_pyr().
    bool half_pyr() const { return lay.pyr_elem == 2; }
    DPlane<float> pyr(int frame, int level, const LevelDims& d) const {
        return plane<float>(lay.pyr[frame] + lay.level_off[level], d);
    }
    DPlane<__half> pyr_h(int frame, int level, const LevelDims& d) const {
        return plane<__half>(lay.pyr[frame] + lay.level_off[level], d);
    }
    DPlane<float> scratch(int i, const LevelDims& d) const {
        const std::size_t plane0 = static_cast<std::size_t>(lay.dims[0].pitch) * static_cast<std::size_t>(lay.dims[0].h) * 4;
        return plane<float>(lay.scratch + static_cast<std::size_t>(i) * plane0, d);
    }
    /// F32 planes 0..2 of the local normalisation (mean, (I - mean)^2, variance) from
    /// DevLayout::robust on (at least 3 level-0 F32 planes), which nothing reads before a
    /// level's first stage.
    DPlane<float> robust_scratch(int i, const LevelDims& d) const { return f32_plane(lay.robust, i, d); }
    /// F32 plane i of consecutive level-0 F32 planes from arena offset `base` on, as a plane of
    /// size d.
    DPlane<float> f32_plane(std::size_t base, int i, const LevelDims& d) const {
        const std::size_t plane0 = static_cast<std::size_t>(lay.dims[0].pitch) * static_cast<std::size_t>(lay.dims[0].h) * 4;
        return plane<float>(base + static_cast<std::size_t>(i) * plane0, d);
    }
    template <class T>
    DPlane<T> plane(std::size_t off, const LevelDims& d) const {
        DPlane<T> p;
        p.p = reinterpret_cast<T*>(arena + off);
        p.w = d.w;
        p.h = d.h;
        p.pitch = static_cast<int>(d.pitch);
        return p;
    }
};

/// A frame the device can read: device memory, mapped host memory or the uploaded copy.
struct Src {
    const void* p;
    std::size_t stride;
};

/// What one run of the solver did (for iteration counts).
struct SolveInfo {
    int levels;
    LevelDims dims[kMaxLevels];
    int launches;      // iteration launches per warp, summed over the levels (per level: its
                       // scheduled iterations for GLOBAL/FUSED, ceil(iterations/depth) for MULTI)
    int ucur;          // u[ucur] holds the level-0 flow
    int gpu_levels;    // levels 0..gpu_levels-1 ran on the GPU (the rest on the CPU: a split frame)
    int top;           // coarsest level solved (core/robust.hpp texture rule); -1: decided on the
                       // device (Ctrl::top), not known to the host yet. Levels above it run on
                       // the GPU and their flow is zeroed (launch_finish_level)
    std::uint64_t cpu_iterations; // inner iterations the CPU levels ran
};

/// Pyramids of both frames, then coarse-to-fine the algorithm's levels (st.ops); leaves the
/// level-0 flow in the u plane SolveInfo::ucur. Enqueues only: no allocation, no synchronisation.
/// Frames of the maximum size replay the graph captured at create (one launch instead of ~50).
of_status run_frame(State& st, Src a, Src b, int w, int h, const ErrorSink& err, SolveInfo* info);

/// The planes of the residual confidence (core/confidence.hpp) of a frame of level-0 size d0
/// whose flow is in u[ucur], all level-0 F32 planes the solve leaves free (none carved for it):
/// conf (the result: the first half of u[ucur ^ 1], which the host output's out_scratch does
/// not reach, so it lasts until the validity write or download), n0, n1 (both frames
/// normalised: robust pick's judge images pick_judge, else DevLayout::conf_work planes 0, 1;
/// LK's own plane lk_conf is none of them)
/// and scratch[3] (the normalisation's mean, (I - mean)^2 and variance: the second half of
/// u[ucur ^ 1] and conf_work planes 2, 3). None overlaps u[ucur] or another.
struct ConfPlanes {
    DPlane<float> conf, n0, n1;
    DPlane<float> scratch[3];
};
ConfPlanes conf_planes(const State& st, const LevelDims& d0, int ucur);

/// The residual confidence of the level-0 flow u[ucur] (frame size d0) into conf_planes' conf
/// (*out), after run_frame: under OF_ROBUST_PICK from the judge images the solve made, else
/// both frames converted again from src[0], src[1] (still intact: the upload slots raw[], or
/// the caller's device frames, which the library only reads) and normalised as
/// OF_ROBUST_LOCAL_NORM; then launch_confidence, combined with `own` (AlgoOps::confidence's
/// plane and half; own.p null: none). Enqueues only: no allocation, no wait.
of_status residual_confidence(State& st, const Src* src, const LevelDims& d0, int ucur, DPlane<const float> own, float half,
                              DPlane<float>* out, const ErrorSink& err);

/// Captures everything of a maximum-size frame after the input conversion as a CUDA graph
/// (State::graph). Called once by create(), after the warm-up.
of_status capture_solver(State& st, const ErrorSink& err);

/// Pyramid of one frame (convert, local normalisation, presmooth, levels) into pyr[frame].
/// A single-frame helper (bench/test hooks): it skips the exposure range match, a step of the
/// pair that only solve() runs.
of_status build_pyramid(State& st, int frame, Src src, const LevelDims* dims, int levels,
                        const ErrorSink& err);

/// Warp stage of level-sized planes: pyr levels + gradient planes + u[ucur] -> g, rc, gr. Under
/// OF_ROBUST_CENSUS the warp writes tv_i1w and tv_census_g, and the census channels
/// (launch_census_tvl1, eta from Ctrl::census_eta) write g, gr, rc and tv_minor.
of_status run_warp(State& st, const LevelDims& d, int level, int ucur, const ErrorSink& err);

/// `iterations` inner iterations of the configured variant on level-sized planes starting from
/// u[*ucur] and p[*pcur]; updates both indices. slot >= 0 with epsilon > 0: stop slot.
of_status run_iterations(State& st, const LevelDims& d, int iterations, int slot, float epsilon,
                         int* ucur, int* pcur, const ErrorSink& err);

/// Inner iterations run for one warp of a level of size d, given its stop slot value
/// (st.ops->iterations_run).
int iterations_run(const State& st, const LevelDims& d, int stop_value, int iterations);

/// The median filter of the flow (config.median_size 3 or 5; nothing when 0) after a warp or a
/// level: u[*ucur] -> u[*ucur ^ 1], *ucur updated. Precision-independent (float2 u planes).
of_status median_step(State& st, const LevelDims& d, int* ucur, const ErrorSink& err);

/// Iterations run by `launches` launches of at most `depth` iterations each that stopped after
/// launch stop_value (every iteration when it did not stop): the TV-L1 and HS rule alike.
int iterations_by_launch(int stop_value, int iterations, int depth);

// ---- config.init OF_INIT_DIS (init_dis_cuda.cu) ---------------------------------------------
/// The pair through the DIS pass (st.init; nothing without one) on st's stream, from the frames
/// the device reads at src[0], src[1] (w x h, already checked and uploaded by the parent), its
/// level-0 flow copied into DevLayout::init_flow. Enqueues only: no allocation, no wait.
of_status init_dis_run(State& st, const Src* src, int w, int h, const ErrorSink& err);
/// The fusion (init_fuse_cuda.cu) at level l of a frame (info) whose flow is in u[ucur], where the
/// CPU path fuses: level min(init_level(levels), top). top_dev: Ctrl::top when the device decides
/// the coarsest level (then every level up to init_level enqueues it and the device skips all but
/// one), else null (info.top is the host's). Nothing without config.init. Graph-capturable.
of_status init_fuse_level(State& st, const SolveInfo& info, int l, int ucur, const int* top_dev, const ErrorSink& err);

// ---- HS / CLG (hs_frame.cu): bench and test hooks on one level ----------------------------
/// Warp, derivatives, tensor and coefficients of pyramid level `level` (size d) at the flow u[ucur].
of_status hs_prepare_warp(State& st, const LevelDims& d, int level, int ucur, const ErrorSink& err);
/// `iterations` iterations of the configured solver (epsilon as given, stop slot `slot`), from
/// du = 0 when from_zero, else from what side 0 of DevLayout::hs_du holds; *side: the ping-pong
/// side (0 or 1) holding the result.
of_status hs_solve(State& st, const LevelDims& d, int iterations, int slot, float epsilon, bool from_zero, int* side,
                   const ErrorSink& err);
/// The level-0 planes of HS's increment side `side` (split or full layout) as (du, dv) planes of
/// pairs T2 in `a`, `b` device planes (F32), for the hooks.
of_status hs_unpack_increment(State& st, const LevelDims& d, int side, DPlane<float> a, DPlane<float> b,
                              const ErrorSink& err);

// ---- Lucas-Kanade (lk_frame.cu): bench and test hooks on one level --------------------------
/// The level's setup (lk_cuda.cuh): frame 0's gradient, the tensor's window sums, the confidence
/// and state of level `level` (size d), at the frame's stop slot `slot` (-1 when no pixel is
/// valid; slot < 0: no count). keep_g: the tensor slot keeps G whatever the variant (a hook's
/// view of the window sums), else what the variant's steps read.
of_status lk_prepare_level(State& st, const LevelDims& d, int level, int slot, bool keep_g, const ErrorSink& err);
/// `steps` Newton steps of the configured variant on level `level` from the flow u[*ucur] (stop
/// slot `slot`: the level ends when no pixel is active; slot < 0: every step runs), updating
/// *ucur. sums: also write each stepped pixel's window sums into DevLayout::lk_box's float2 pair 1.
of_status lk_steps(State& st, const LevelDims& d, int level, int steps, int slot, int* ucur, bool sums,
                   const ErrorSink& err);

} // namespace cuda
} // namespace oflow

#endif
