// Host launchers of every kernel of the CUDA path, with their argument structs. Each launcher
// enqueues on `s` and returns cudaGetLastError() (launch configuration errors; asynchronous
// faults surface at the next synchronising call). Nothing here allocates or synchronises.
#ifndef OFLOW_CUDA_CUDA_KERNELS_CUH
#define OFLOW_CUDA_CUDA_KERNELS_CUH

#include "core/kernels.hpp"
#include "core/plan.hpp"
#include "core/robust.hpp"
#include "cuda/cuda_common.cuh"

namespace oflow {
namespace cuda {

// ---- pyramid_cuda.cu ----------------------------------------------------------------------
/// Frame of format fmt (rows `stride` bytes apart) -> float 0..255 (U16 / 257).
cudaError_t launch_convert(const void* src, std::size_t stride, of_pixel_format fmt,
                           DPlane<float> dst, cudaStream_t s);
/// ORs `bit` into *flag when an F32 frame holds NaN or Inf.
cudaError_t launch_nonfinite(const void* src, std::size_t stride, int w, int h, int* flag, int bit,
                             cudaStream_t s);
/// Separable Gaussian passes, clamped borders (blur_h_ref / blur_v_ref).
cudaError_t launch_blur_h(DPlane<const float> src, DPlane<float> dst, const Gaussian1D& g,
                          cudaStream_t s);
cudaError_t launch_blur_v(DPlane<const float> src, DPlane<float> dst, const Gaussian1D& g,
                          cudaStream_t s);
/// Both passes in one kernel through shared memory (blur_h_ref then blur_v_ref, bit for bit);
/// src and dst must not overlap. Dynamic shared memory per block: blur_shared_bytes(radius,
/// rows) with rows = 32 (16 or 8 for radii whose tile would exceed kMaxDynamicShared).
/// The __half overloads write or read an F16 pyramid level (DevLayout::pyr_elem 2): the sums run
/// in float, each output is rounded once.
cudaError_t launch_blur(DPlane<const float> src, DPlane<float> dst, const Gaussian1D& g, cudaStream_t s);
cudaError_t launch_blur(DPlane<const float> src, DPlane<__half> dst, const Gaussian1D& g, cudaStream_t s);
cudaError_t launch_blur(DPlane<const __half> src, DPlane<float> dst, const Gaussian1D& g, cudaStream_t s);
std::size_t blur_shared_bytes(int radius, int rows);
/// Bilinear resampling to dst's size, pixel centres aligned (resample_ref); to an F16 level with
/// the __half overload (at src's size: an exact copy, rounded once).
cudaError_t launch_resample(DPlane<const float> src, DPlane<float> dst, cudaStream_t s);
cudaError_t launch_resample(DPlane<const float> src, DPlane<__half> dst, cudaStream_t s);
/// Bilinear upsampling of (u1, u2) to dst's size, times (mx, my) (upsample_flow_ref).
cudaError_t launch_upsample_flow(DPlane<const float2> src, DPlane<float2> dst, float mx, float my,
                                 cudaStream_t s);
/// (u1, u2) pairs -> two planes `stride` bytes per row (device or mapped memory).
cudaError_t launch_write_planar(DPlane<const float2> src, float* u, float* v, std::size_t stride,
                                cudaStream_t s);
/// The validity plane (of_flow.valid, core/confidence.hpp) from the level-0 confidence plane
/// (its size; launch_confidence's out): the mask (uint8 confidence_mask(c, min_conf): 255 where
/// c >= min_conf, else 0) or the confidence c itself, rows `stride` bytes apart (device or
/// mapped memory). core/flow_driver.cpp write_validity's rule.
cudaError_t launch_write_validity(DPlane<const float> plane, float min_conf, bool mask, void* dst, std::size_t stride,
                                  cudaStream_t s);

// ---- confidence_cuda.cu -------------------------------------------------------------------
/// The residual confidence (core/confidence.hpp, core/ref/confidence_ref.cpp) of the level-0
/// flow u into out, from n0, n1 (both frames normalised as OF_ROBUST_LOCAL_NORM): one tiled
/// kernel, 32 x 8 outputs per block with the 2-pixel halo in shared memory. With own.p not null
/// (LK: its raw lambda plane) each confidence is then combined_confidence(c, plane_confidence(own,
/// half)). Every plane of out's size; out must not overlap the others.
cudaError_t launch_confidence(DPlane<const float> n0, DPlane<const float> n1, DPlane<const float2> u, DPlane<const float> own,
                              float half, DPlane<float> out, cudaStream_t s);

// ---- flow_format_cuda.cu ------------------------------------------------------------------
/// (u1, u2) pairs -> 16-bit elements of fmt (OF_FLOW_FORMAT_F16 or OF_FLOW_FORMAT_S10_5; F32 is
/// cudaErrorInvalidValue), converted by core/flow_format.hpp: planar into u and v, or
/// interleaved pairs into u when v is nullptr; rows `stride` bytes apart (device or mapped
/// memory, 2-byte aligned).
cudaError_t launch_write_flow16(DPlane<const float2> src, of_flow_format fmt, void* u, void* v, std::size_t stride,
                                cudaStream_t s);
struct KernelList;
void list_flow_format_kernels(KernelList* l);

// ---- warp_cuda.cu -------------------------------------------------------------------------
/// Pyramid element of a TV-L1 solve in T2 storage: F32 pyramids for F32, F16 for F16
/// (cuda_layout.hpp DevLayout::pyr_elem).
template <class T2>
struct PyrOf {
    using type = float;
};
template <>
struct PyrOf<__half2> {
    using type = __half;
};

template <class T2>
struct WarpArgs {
    using P = typename PyrOf<T2>::type;
    DPlane<const P> i0;                   // current level
    DPlane<const P> i1;                   // current level; the warp takes its gradient (gradient_ref)
    DPlane<const float2> u;               // linearisation point (u1, u2)
    DPlane<T2> g;                         // out: (I1wx, I1wy) at x + u, bicubic
    DPlane<float> rc;                     // out: I1w - I1wx u1 - I1wy u2 - I0 (with stored g)
    DPlane<float> gr;                     // out: |g|^2 (F32 storage only; p == nullptr for F16)
    DPlane<float> i1w;                    // out: I1 at x + u, bicubic, wherever x + u lies (OF_ROBUST_CENSUS's
                                          // input, tvl1_warp_ref's i1w); p == nullptr: not stored
};
template <class T2>
cudaError_t launch_warp(const WarpArgs<T2>& a, cudaStream_t s);

// ---- tvl1_*_cuda.cu: inner iterations -----------------------------------------------------
template <class T2>
struct IterArgs {
    int w, h, pitch;      // level size; every plane below has this pitch
    float2* u_in;         // GLOBAL: u_in == u_out (in place, like the reference)
    float2* u_out;
    T2* p1_in;            // (p11, p21)
    T2* p2_in;            // (p12, p22)
    T2* p1_out;
    T2* p2_out;
    const T2* g;          // (I1wx, I1wy)
    const float* rc;      // rho_c
    const float* gr;      // |g|^2; nullptr with F16 storage (formed from g)
    float lt;             // lambda * theta
    float theta;
    float k;              // tau / theta
    EpsArgs eps;          // eps.stop == nullptr: no reduction
    /// OF_ROBUST_CENSUS: the minor channel (q, rho_c) per pixel (Tvl1Minor, orthogonal to g), whose
    /// threshold step calc_u adds (tvl1_calc_u2_ref). GLOBAL F32 only (launch_global_iteration
    /// refuses it otherwise; under census the TV-L1 tuning is GLOBAL F32, tvl1_run_config);
    /// nullptr: none.
    const float2* minor = nullptr;
};

/// GLOBAL: iteration `n` = calc_u then calc_p, two kernels, in place.
template <class T2>
cudaError_t launch_global_iteration(const IterArgs<T2>& a, int n, int bw, int bh, cudaStream_t s);
/// FUSED: iteration `n` in one kernel, reading *_in, writing *_out.
template <class T2>
cudaError_t launch_fused_iteration(const IterArgs<T2>& a, int n, int bw, int bh, std::size_t shared,
                                   cudaStream_t s);
/// MULTI_ITER: launch `launch` runs `iters` (<= depth) iterations, reading *_in, writing *_out,
/// with the kernel compiled for launch bound `bound` (Tuning::bound, >= 32 x bh).
template <class T2>
cudaError_t launch_multi_iteration(const IterArgs<T2>& a, int launch, int iters, int depth, int bw,
                                   int bh, int rows, int bound, std::size_t shared, cudaStream_t s);
/// F16: two pixels per half2 (tvl1_multi_f16x2_cuda.cu); F32: tvl1_multi_cuda.cu.
template <>
cudaError_t launch_multi_iteration<__half2>(const IterArgs<__half2>& a, int launch, int iters, int depth, int bw,
                                            int bh, int rows, int bound, std::size_t shared, cudaStream_t s);
/// Ping-pong repair after epsilon stopped a warp early (FUSED, MULTI_ITER). The warp's
/// launches read a.*_in first; after `launches` of them the host expects the result on the
/// side (launches & 1) (0 = *_in, 1 = *_out). When epsilon stopped the warp after launch
/// *a.eps.stop, the result is on side ((stop + 1) & 1) instead: copy u and p over if the two
/// differ. Does nothing when the warp ran to the end.
template <class T2>
cudaError_t launch_pingpong_fixup(const IterArgs<T2>& a, int launches, cudaStream_t s);

// ---- census_stats_cuda.cu, census_cuda.cu: OF_ROBUST_CENSUS (core/census.hpp) --------------
struct Ctrl; // cuda_layout.hpp
/// Each frame's level-0 RMS central-difference gradient into ctrl->census_rms0[f] (core/
/// flow_driver.cpp rms_gradient: texture_energy_ref's rows, each summed in double from left to
/// right, the rows' sums added in the fixed order of kCensusBlocks). Two launches, no host wait.
cudaError_t launch_census_rms0(DPlane<const float> f0, DPlane<const float> f1, Ctrl* ctrl, cudaStream_t s);
/// Each frame's eta at one level into ctrl->census_eta[f]: census_eta(census_noise_sigma(sum, w,
/// h), ctrl->census_rms0[f]) with sum census_noise_sum_ref's (each interior row in float from left
/// to right, the rows added in double in kCensusBlocks' fixed order). Two launches, no host wait.
cudaError_t launch_census_eta(DPlane<const float> i0, DPlane<const float> i1, Ctrl* ctrl, cudaStream_t s);
/// TV-L1's census channels of one warp (census_tvl1_ref, bit for bit: IEEE operations in its
/// order): i0 the level of frame 0, i1w and g frame 1 and its gradient warped at u (launch_warp's
/// i1w and g), eta = Ctrl::census_eta (frame 0's, frame 1's). Out: the major channel where the
/// iterations read it (g = (ax, ay), gr = |a|^2, rc), the minor one as (q, rho_c) pairs.
struct CensusTvl1Args {
    DPlane<const float> i0, i1w;
    DPlane<const float2> g, u;
    DPlane<float2> a;
    DPlane<float> gr, rc;
    DPlane<float2> minor;
    const float* eta;
};
cudaError_t launch_census_tvl1(const CensusTvl1Args& a, cudaStream_t s);
/// (HS's and CLG's census tensor: hs_cuda.cuh, launch_census_tensor.)

// ---- init_fuse_cuda.cu: config.init OF_INIT_DIS's fusion (core/init_dis.hpp) ---------------
/// The fusion at one level of w x h: u, diff and the pyramid planes the level's size and pitch,
/// dis DIS's level-0 flow (the frame's size), mx = (float)w / dis.w and my = (float)h / dis.h
/// (init_fuse_cpu's scales), radius kInitFuseRadius. top: Ctrl::top when the device decides the
/// coarsest level (the launches then do nothing unless min(fuse_level, *top) == level), else
/// null (the host launched only the fused level).
struct InitFuseArgs {
    int w, h;
    DPlane<float2> u;         // the level's flow, replaced in place where DIS's fits better
    DPlane<float> diff;       // scratch: cost(u) - cost(d) per pixel
    DPlane<const float2> dis; // DIS's flow of the pair, level 0
    float mx, my;
    int radius;
    const int* top;
    int level, fuse_level;
};
/// diff = cost(u) - cost(d), d DIS's flow area-averaged to the level (init_area_ref, init_cost_ref,
/// bit for bit on F32 levels); the __half overload reads an F16 pyramid level widened.
cudaError_t launch_init_cost(const InitFuseArgs& a, DPlane<const float> i0, DPlane<const float> i1, cudaStream_t s);
cudaError_t launch_init_cost(const InitFuseArgs& a, DPlane<const __half> i0, DPlane<const __half> i1, cudaStream_t s);
/// u = d where the window sum of diff is positive (init_box_rows_ref then init_choose_ref, bit
/// for bit); diff is only read, so it must not overlap u.
cudaError_t launch_init_choose(const InitFuseArgs& a, cudaStream_t s);

// ---- robust_cuda.cu: exposure-robust stages (core/robust.hpp) ------------------------------
/// sq = (src - mean)^2 (robust_sq_ref).
cudaError_t launch_robust_sq(DPlane<const float> src, DPlane<const float> mean, DPlane<float> sq, cudaStream_t s);
cudaError_t launch_robust_sq(DPlane<const __half> src, DPlane<const float> mean, DPlane<float> sq, cudaStream_t s);
/// dst = mid + gain (src - mean) / (sqrt(max(var, 0)) + floor) (robust_combine_ref with the
/// constants of core/robust.hpp); dst may be src. floor = floor_, or with m not null
/// level_norm_floor(*m, frame) read on the device (OF_ROBUST_LEVEL_NORM).
cudaError_t launch_robust_combine(DPlane<const float> src, DPlane<const float> mean, DPlane<const float> var,
                                  DPlane<float> dst, float mid, float gain, float floor_, const ExposureMatch* m,
                                  int frame, cudaStream_t s);
/// The same on a level of an F16 pyramid (OF_ROBUST_LEVEL_NORM): computed in F32, rounded once.
cudaError_t launch_robust_combine(DPlane<const __half> src, DPlane<const float> mean, DPlane<const float> var,
                                  DPlane<__half> dst, float mid, float gain, float floor_, const ExposureMatch* m,
                                  int frame, cudaStream_t s);
/// Levels of one pyramid for the texture rule (only p of levels >= 1 is read).
struct TexLevels {
    const void* p[kMaxLevels]; // float, or __half when half (an F16 pyramid)
    bool half;
    int w[kMaxLevels], h[kMaxLevels], pitch[kMaxLevels];
    int levels;
};
/// Texture rule on the device: mean squared central-difference gradient of levels 1..levels-1
/// (texture_energy_ref / (w h)), then *top = coarsest_textured(energies, levels, min_texture).
/// partials: kMaxLevels * kTexBlocks doubles (Ctrl::tex). Deterministic: fixed-order sums in
/// double, no atomics. Two launches, no host wait (graph-capturable).
cudaError_t launch_texture_top(const TexLevels& t, double* partials, double min_texture, int* top, cudaStream_t s);
/// size x size median (3 or 5) of both flow components, clamped borders (median_flow_ref);
/// src and dst must not overlap. cudaErrorInvalidValue for another size.
cudaError_t launch_median_flow(DPlane<const float2> src, DPlane<float2> dst, int size, cudaStream_t s);
/// End of level `level` in place: with t = (top ? *top : top_host), zero flow when level > t,
/// else the sanity bound with margin m = level_margin(level, w, h) (core/robust.hpp): x + u1
/// clamped to [-m, w - 1 + m], y + u2 to [-m, h - 1 + m] (tvl1_driver.cpp bound_flow).
cudaError_t launch_finish_level(DPlane<float2> u, int level, const int* top, int top_host, float margin,
                                cudaStream_t s);

// ---- warm_start_cuda.cu ---------------------------------------------------------------------
struct Ctrl;
/// A stream's warm start at the warm level (core/stream.hpp): u holds the cold start; replaced by
/// warm (the previous pair's flow of the level) when ctrl->warm_ready and warm's mean absolute
/// residual |I1(x + u) - I0(x)| is below u's; the choice in ctrl->warm_taken. Three launches. The
/// __half overload reads an F16 pyramid.
cudaError_t launch_warm_enter(DPlane<const float> i0, DPlane<const float> i1, DPlane<float2> u,
                              DPlane<const float2> warm, Ctrl* ctrl, cudaStream_t s);
cudaError_t launch_warm_enter(DPlane<const __half> i0, DPlane<const __half> i1, DPlane<float2> u,
                              DPlane<const float2> warm, Ctrl* ctrl, cudaStream_t s);

/// Exposure range matching (core/robust.hpp, tvl1_driver.cpp match_exposure), three launches,
/// no host wait (graph-capturable). launch_exposure_hist adds the exposure_bin() counts of f0
/// to hist[0..kExposureBins) and of f1 to hist[kExposureBins..) (zero both first): `blocks`
/// blocks of 256 threads per frame (clamped to 1..h), each a shared-memory histogram of rows
/// b, b + blocks, ... merged by integer atomicAdd (order-independent: deterministic).
cudaError_t launch_exposure_hist(DPlane<const float> f0, DPlane<const float> f1, unsigned int* hist, int blocks,
                                 cudaStream_t s);
/// One thread: *m = exposure_match(hist, hist + kExposureBins, n).
cudaError_t launch_exposure_match(const unsigned int* hist, unsigned long long n, ExposureMatch* m, cudaStream_t s);
/// f0 and f1 mapped in place as range_map(*m, f, robust) says (map_range_ref), one launch (grid
/// z = frame); a frame the map leaves as it is is not touched.
cudaError_t launch_map_range(DPlane<float> f0, DPlane<float> f1, const ExposureMatch* m, of_robust robust,
                             cudaStream_t s);

/// OF_ROBUST_SHADE_NORM (shade_norm_cuda.cu): img divided by its local mean in place, three box
/// passes of radius r (rows then columns; tmp and mean: img's size, scratch), the reference's
/// (core/ref/shade_norm_ref.cpp) to double rounding: each thread starts its sum per 64 outputs.
cudaError_t launch_shade_norm(DPlane<float> img, DPlane<float> tmp, DPlane<float> mean, int r, cudaStream_t s);

/// OF_ROBUST_PICK's judge of one candidate (robust_pick_cuda.cu): the mean over the pixels of
/// |n0(x) - n1(x + u)| (core/flow_driver.cpp pick_residual) times weight (pick_weight), the choice into ctrl (pick_best,
/// pick_kept, pick_top = top, pick_take; candidate 0 always taken, a later one when strictly
/// lower) and, when taken, u -> keep and conf -> keep_conf (conf.p null: no confidence plane).
/// Three launches, no host wait.
cudaError_t launch_pick_judge(DPlane<const float> n0, DPlane<const float> n1, DPlane<const float2> u,
                              DPlane<float2> keep, DPlane<const float> conf, DPlane<float> keep_conf, int candidate,
                              double weight, Ctrl* ctrl, cudaStream_t s);

// ---- kernel registry (cuda_backend.cu loads them all at create) ----------------------------
struct KernelList {
    static const int kCap = 128;
    const void* fn[kCap];
    const char* name[kCap];
    int n;       // kernels held
    int dropped; // kernels registered past kCap (create refuses a list that dropped any)
    void add(const void* f, const char* nm) {
        if (n < kCap) {
            fn[n] = f;
            name[n] = nm;
            ++n;
        } else {
            ++dropped;
        }
    }
};
void list_pyramid_kernels(KernelList* l);
void list_warp_kernels(KernelList* l);
void list_global_kernels(KernelList* l);
void list_fused_kernels(KernelList* l);
void list_multi_kernels(KernelList* l);
void list_multi_f16x2_kernels(KernelList* l);
void list_robust_kernels(KernelList* l);
void list_warm_kernels(KernelList* l);
void list_pick_kernels(KernelList* l);
void list_confidence_kernels(KernelList* l);
void list_census_kernels(KernelList* l);       // census_cuda.cu
void list_census_stats_kernels(KernelList* l); // census_stats_cuda.cu
void list_init_kernels(KernelList* l);          // init_fuse_cuda.cu

} // namespace cuda
} // namespace oflow

#endif
