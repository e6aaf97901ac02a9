// Dense Inverse Search on the device: argument structs, host launchers and the per-patch
// arithmetic every DIS kernel shares (core/dis_kernels.hpp has the contracts, core/dis_level_cpu.cpp
// the per-level schedule, which cuda/dis_frame.cu repeats on the context's stream).
//
// Per solved level (level >= config.dis.finest_level; finer levels keep the upsampled flow):
//  1. gradient of I0 (Sobel / 8) into pairs T2 (float2 in F32; __half2 in F16, rounded once:
//     the patch sums and the search read the same rounded values, so the Hessian and the
//     steps agree);
//  2. the five patch sums, one thread per patch: per patch row the five row sums in double,
//     rounded to F32 (the reference's horizontal pass), then those summed down in double and
//     rounded (its vertical pass). The reference forms each window as a difference of running
//     prefix sums in double; a direct double sum of at most 32 F32 values differs from that by
//     double rounding only, so the F32 results agree to an ulp (a tie in the final rounding);
//  3-5. the starts, then ceil(iterations / kDisRoundSteps) rounds (each patch's E at its result kept
//     in dis_err: the next propagation's own candidate, not evaluated again) of Gauss-Newton steps, each
//     round but the first after the propagation (cuda_layout.hpp: GLOBAL a thread per patch,
//     a launch per round and per propagation; FUSED kDisLanes lanes per patch, propagation and
//     steps in one launch, the flows ping-ponged between dis_t[0] and dis_t[1]);
//  6. densification, one thread per pixel gathering its patches (j ascending, then k), the
//     reference's sums in its order: bit for bit in F32;
//  7. the refinement: frame 1 warped once (HS's bicubic warp_image kernel), then per
//     fixed-point iteration the tensor of dis_refine_tensor_ref at the current increment turned
//     into HS's SOR coefficients in the split layout (hs_cuda.cuh: the Cramer form of CLG, det
//     clamped to alpha2^2) and kDisSorIterations red-black SOR iterations of HS's kernels
//     (omega kDisSorOmega; GLOBAL one launch per half-sweep, FUSED red and black in one
//     launch); then flow += increment.
//
// Sums and their order. GLOBAL's search and propagation sum each patch in the reference's order
// (rows top to bottom, each row left to right, one F32 accumulator), with the 2x2 solve in double
// as the reference: its patch flows equal the reference's bit for bit (every file of the family
// is compiled without contraction). FUSED splits a patch's rows over kDisLanes lanes (lane r sums
// rows r, r + kDisLanes, ... left to right) and adds the lanes' sums by a shuffle tree, then
// broadcasts lane 0's result so that every lane of a patch takes the same decisions: an F32 sum in
// another order, which moves E and the step by a few ulps; since the search stops on "E stopped
// decreasing" a patch may stop one step earlier or later. Its flows are compared with the
// reference's statistically (tests/gpu/gpu_dis.cpp). The refinement's SOR differs from the
// reference's by its coefficient form (HS's kernels: the 2x2 solve per pixel precomputed once per
// fixed-point iteration), like HS's CUDA path.
//
// F16 storage (config.precision F16): the gradient pairs (half2, like LK's: read p^2 times per
// step, the search's largest stream after I1) and the refinement's SOR coefficient and increment
// pairs (HS's F16 kernels, their clamp of the right-hand side). The pyramids, the patch sums, the
// patch flows and the dense flow stay F32: the sums need F32's range and precision (a 32-px patch
// sums 1024 squared gradients), the flows are the output, and the sampled I1 is what E is made of.
#ifndef OFLOW_CUDA_DIS_CUDA_CUH
#define OFLOW_CUDA_DIS_CUDA_CUH

#include "core/dis_kernels.hpp"
#include "cuda/cuda_common.cuh"
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_layout.hpp" // kDisLanes, kDisPatchThreads

namespace oflow {
namespace cuda {

/// A level's patch planes: sparse planes of pitch sp (elements), patch (k, j) at j * sp + k.
struct DisLevelArgs {
    int w, h, pitch;       // level size, pitch of its full planes (elements)
    int sp;                // pitch of its sparse planes (elements)
    DisGrid g;
    const float* i0;       // frame 0 at the level
    const float* i1;       // frame 1 at the level
    void* grad;            // T2 gradient pairs (pitch `pitch`)
    float* sum[kDisSums];  // patch sums (sparse)
};

/// The search of one round (GLOBAL: from s_in; FUSED: from the propagation of s_in, or from the
/// dense flow u at the patch centre when first).
struct DisSearchCuda {
    DisLevelArgs l;
    const float2* s_in;    // sparse starts (GLOBAL) or the previous round's flows (FUSED)
    float2* t_out;         // sparse: the round's flows
    float* md;             // sparse: mean d at the flow
    float* err;            // sparse: E at the flow (out; FUSED: also the own candidate's E in, read
                           // by the patch's own group before it writes it)
    const float2* u;       // FUSED first round: the level's dense flow (pitch l.pitch)
    int iterations;        // steps of this round
    bool first;            // FUSED: the first round (starts from u, no propagation)
};

// ---- per-patch arithmetic (the reference's operations in its order) -------------------------

template <class T2>
struct DisPair;
template <>
struct DisPair<float2> {
    __device__ static float2 get(const float2* p, std::size_t i) { return p[i]; }
    __device__ static float2 make(float a, float b) { return make_float2(a, b); }
};
template <>
struct DisPair<__half2> {
    __device__ static float2 get(const __half2* p, std::size_t i) { return __half22float2(p[i]); }
    __device__ static __half2 make(float a, float b) { return __floats2half2_rn(a, b); }
};

/// DisGrid::x and ::y on the device (core/ is host code).
__device__ __forceinline__ int dis_px(const DisGrid& g, int k) { return k * g.s < g.w - g.p ? k * g.s : g.w - g.p; }
__device__ __forceinline__ int dis_py(const DisGrid& g, int j) { return j * g.s < g.h - g.p ? j * g.s : g.h - g.p; }

/// A patch's shift split into whole pixels and a fraction (core/dis_kernels.hpp, "sampling").
struct DisShift {
    int ix, iy;
    float fx, fy;
};
__device__ __forceinline__ DisShift dis_split(float ux, float uy, int w, int h) {
    const float lx = static_cast<float>(w + 2), ly = static_cast<float>(h + 2);
    ux = ux < -lx ? -lx : (ux > lx ? lx : ux);
    uy = uy < -ly ? -ly : (uy > ly ? ly : uy);
    const float flx = floorf(ux), fly = floorf(uy);
    DisShift s;
    s.ix = static_cast<int>(flx);
    s.iy = static_cast<int>(fly);
    s.fx = ux - flx;
    s.fy = uy - fly;
    return s;
}

/// I1 at row y + iy, column xx of a patch whose first tap column is xa0 (inside: every tap column
/// of the patch lies in the plane): t = a + fx (b - a), t' = c + fx (d - c), t + fy (t' - t).
__device__ __forceinline__ float dis_tap(const float* r0, const float* r1, int xa0, int xx, bool inside, int w,
                                         const DisShift& s) {
    const int xa = inside ? xa0 + xx : clampi(xa0 + xx, 0, w - 1);
    const int xb = inside ? xa0 + xx + 1 : clampi(xa0 + xx + 1, 0, w - 1);
    const float top = r0[xa] + s.fx * (r0[xb] - r0[xa]);
    const float bot = r1[xa] + s.fx * (r1[xb] - r1[xa]);
    return top + s.fy * (bot - top);
}

/// Sums of d = I1(x + u) - I0(x) over a patch (or a share of its rows).
struct DisSums4 {
    float d, dd, gx, gy;
};

/// The sums over rows r0, r0 + dr, ... (< p) of the patch at (px0, py0), at shift u, each row
/// left to right into one accumulator (GLOBAL: r0 0, dr 1: the reference's order).
template <class T2, bool kGrad>
__device__ __forceinline__ DisSums4 dis_rows_sums(const DisLevelArgs& a, int px0, int py0, float ux, float uy, int r0,
                                                  int dr) {
    const int p = a.g.p;
    const DisShift sh = dis_split(ux, uy, a.w, a.h);
    DisSums4 s{0.0f, 0.0f, 0.0f, 0.0f};
    const int xa0 = px0 + sh.ix;
    const bool inside = xa0 >= 0 && xa0 + p < a.w;
    const T2* grad = static_cast<const T2*>(a.grad);
    for (int yy = r0; yy < p; yy += dr) {
        const int y = py0 + yy;
        const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(a.pitch);
        const float* t = a.i0 + row + px0;
        const int ya = clampi(y + sh.iy, 0, a.h - 1), yb = clampi(y + sh.iy + 1, 0, a.h - 1);
        const float* ra = a.i1 + static_cast<std::size_t>(ya) * static_cast<std::size_t>(a.pitch);
        const float* rb = a.i1 + static_cast<std::size_t>(yb) * static_cast<std::size_t>(a.pitch);
        for (int xx = 0; xx < p; ++xx) {
            const float d = dis_tap(ra, rb, xa0, xx, inside, a.w, sh) - t[xx];
            s.d += d;
            s.dd += d * d;
            if (kGrad) {
                const float2 g = DisPair<T2>::get(grad, row + static_cast<std::size_t>(px0 + xx));
                s.gx += g.x * d;
                s.gy += g.y * d;
            }
        }
    }
    return s;
}

/// The patch's mean-normalised Hessian and whether it is solvable (dis_solvable's test, in the
/// reference's operations).
struct DisHessian {
    float hxx, hxy, hyy, sgx, sgy, n;
    float inv_n;   // 1 / n when n is a power of two (p = 4, 8, 16, 32: x * inv_n == x / n exactly), else 0
    double det;
    bool solvable;
};
__device__ __forceinline__ DisHessian dis_hessian(const DisLevelArgs& a, std::size_t i) {
    DisHessian H;
    const float n = static_cast<float>(a.g.p) * static_cast<float>(a.g.p);
    const float sxx = a.sum[kDisSxx][i], sxy = a.sum[kDisSxy][i], syy = a.sum[kDisSyy][i];
    H.sgx = a.sum[kDisSx][i];
    H.sgy = a.sum[kDisSy][i];
    H.n = n;
    const int p = a.g.p;
    H.inv_n = (p & (p - 1)) == 0 ? 1.0f / n : 0.0f;
    H.hxx = sxx - H.sgx * H.sgx / n;
    H.hxy = sxy - H.sgx * H.sgy / n;
    H.hyy = syy - H.sgy * H.sgy / n;
    H.det = static_cast<double>(H.hxx) * H.hyy - static_cast<double>(H.hxy) * H.hxy;
    bool ok = H.hxx > 0.0f && H.hyy > 0.0f && H.det > 1e-6 * static_cast<double>(H.hxx) * H.hyy;
    if (ok) {
        const double half_trace = 0.5 * (static_cast<double>(H.hxx) + H.hyy);
        const double disc = half_trace * half_trace - H.det;
        const double lmin = H.det / (half_trace + sqrt(disc > 0.0 ? disc : 0.0));
        ok = lmin >= kDisMinEigen * static_cast<double>(n);
    }
    H.solvable = ok;
    return H;
}

/// The state of one patch's search (dis_search_ref's variables).
struct DisSearchState {
    float ux0, uy0, ux, uy, best_x, best_y, best_e, best_m, start_m, start_e, prev_e;
};

/// x / n, as a product where n is a power of two (the same bits: the quotient by 2^k is exact
/// scaling, rounded once either way), saving the IEEE division's instruction sequence.
__device__ __forceinline__ float dis_div_n(float x, const DisHessian& H) { return H.inv_n != 0.0f ? x * H.inv_n : x / H.n; }

/// One evaluation of the search at step t with sums s: updates the best, decides whether to
/// stop, else takes the step. Returns false when the search ends.
__device__ __forceinline__ bool dis_search_step(DisSearchState* st, const DisHessian& H, const DisSums4& s, int t,
                                                int iterations) {
    const float e = s.dd - dis_div_n(s.d * s.d, H);
    if (t == 0) {
        st->best_e = st->start_e = e;
        st->best_m = st->start_m = dis_div_n(s.d, H);
    } else if (e < st->best_e) {
        st->best_e = e;
        st->best_x = st->ux;
        st->best_y = st->uy;
        st->best_m = dis_div_n(s.d, H);
    }
    if (t == iterations || !H.solvable || (t > 0 && e >= st->prev_e)) return false;
    st->prev_e = e;
    const double bx = static_cast<double>(s.gx - dis_div_n(H.sgx * s.d, H));
    const double by = static_cast<double>(s.gy - dis_div_n(H.sgy * s.d, H));
    const double dx = (H.hyy * bx - H.hxy * by) / H.det, dy = (H.hxx * by - H.hxy * bx) / H.det;
    if (!isfinite(dx) || !isfinite(dy)) return false;
    st->ux = static_cast<float>(st->ux - dx);
    st->uy = static_cast<float>(st->uy - dy);
    return true;
}

/// The search's result: the best flow (its mean d, its E), or the start's when the best is more
/// than p px away.
__device__ __forceinline__ void dis_search_result(const DisSearchState& st, int p, float2* flow, float* m, float* e) {
    float bx = st.best_x, by = st.best_y, bm = st.best_m, be = st.best_e;
    const float ddx = bx - st.ux0, ddy = by - st.uy0;
    const float lim = static_cast<float>(p);
    if (ddx * ddx + ddy * ddy > lim * lim) {
        bx = st.ux0;
        by = st.uy0;
        bm = st.start_m;
        be = st.start_e;
    }
    *flow = make_float2(bx, by);
    *m = bm;
    *e = be;
}

__device__ __forceinline__ DisSearchState dis_search_start(float ux, float uy) {
    DisSearchState st;
    st.ux0 = st.ux = st.best_x = ux;
    st.uy0 = st.uy = st.best_y = uy;
    st.best_e = st.best_m = st.start_m = st.start_e = st.prev_e = 0.0f;
    return st;
}

// ---- the refinement's tensor --------------------------------------------------------------

/// dis_refine_tensor_ref at the increment (du_r/du_b: T2 split planes, hpitch elements a row),
/// turned into HS's SOR coefficients (hs_cuda.cuh) written split into d/o/r[colour].
struct DisRefineCuda {
    int w, h, pitch, hpitch;
    const float* i0;
    const float* i1w;
    const float2* u;       // the flow being refined (pitch)
    const void* du[2];     // T2 increment halves (red, black)
    void* d[2];            // T2 (c11, c22) halves
    void* o[2];            // T2 (c12, c12)
    void* r[2];            // T2 (c13, c23)
    float* j[kHsChannels]; // optional (test hook): the tensor itself, full F32 planes (pitch); nullptr: none
    float alpha2, delta, gamma;
};

// ---- launchers (dis_stages_cuda.cu: fixed blocks) -------------------------------------------

cudaError_t launch_dis_gradient(const DisLevelArgs& a, bool f16, cudaStream_t s);
/// The five patch sums of a.grad into a.sum.
cudaError_t launch_dis_patch_sums(const DisLevelArgs& a, bool f16, cudaStream_t s);
/// s(k, j) = u at the patch centre.
cudaError_t launch_dis_init(const DisLevelArgs& a, const float2* u, float2* s_out, cudaStream_t st);
/// Densification of the patch flows t (and md) into the dense flow u (pitch a.pitch).
cudaError_t launch_dis_densify(const DisLevelArgs& a, const float2* t, const float* md, float2* u, cudaStream_t s);
/// The refinement's tensor as SOR coefficients (T2 float2, or __half2 when f16).
cudaError_t launch_dis_refine_coef(const DisRefineCuda& a, bool f16, cudaStream_t s);

// ---- launchers of the search (dis_global_cuda.cu, dis_fused_cuda.cu) -------------------------

/// GLOBAL: one round of steps from a.s_in, a thread per patch.
cudaError_t launch_dis_search_global(const DisSearchCuda& a, bool f16, cudaStream_t s);
/// GLOBAL: the propagation (t_in with its E err_in -> s_out), a thread per patch.
cudaError_t launch_dis_propagate_global(const DisLevelArgs& a, const float2* t_in, const float* err_in, float2* s_out,
                                        cudaStream_t s);
/// FUSED: one round (its propagation, or the starts when first, then its steps), kDisLanes lanes
/// per patch.
cudaError_t launch_dis_round_fused(const DisSearchCuda& a, bool f16, cudaStream_t s);

void list_dis_stage_kernels(KernelList* l);
void list_dis_global_kernels(KernelList* l);
void list_dis_fused_kernels(KernelList* l);

} // namespace cuda
} // namespace oflow

#endif
