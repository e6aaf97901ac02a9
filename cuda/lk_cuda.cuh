// Lucas-Kanade on the device: argument structs, host launchers and the per-pixel arithmetic every
// LK kernel shares (core/lk_kernels.hpp has the formulas, core/lk_level_cpu.cpp the scheme).
//
// Per level (lk_frame.cu lk_prepare_level), three fixed-shape launches:
//  1. the Scharr gradient of frame 0 into pairs T2 (float2 in F32; __half2 in F16, rounded once:
//     every later stage reads those rounded values, so the tensor and the residuals agree);
//  2. the tensor products' horizontal box sums (3 channels, from the stored pairs);
//  3. their vertical box sums G, the confidence c = lambda_min(G) / s^2 and the state (valid:
//     c >= min_eigen), the 2x2 algebra in double exactly as lk_confidence_ref; the valid count
//     goes to the level's stop slot (-1 when no pixel is valid: every step then returns at
//     once, and the level ran no step). The tensor slot then holds what the steps read: G
//     (GLOBAL) or the coefficients of -G^-1 rounded to F32 (FUSED, MULTI_ITER):
//         k11 = -C / det,  k12 = B / det,  k22 = -A / det   (det = A C - B^2 in double),
//     all three 0 where det <= 0 (a singular window, only with min_eigen 0: k11 is never 0
//     otherwise, since det > 0 needs C > 0) or where the pixel is not valid.
// then up to `iterations` Newton steps (lk_steps), each: the residual products of every pixel q
// at its own flow (bilinear I1 at q + u(q), it = 0 off the plane, r = it - g.u, (gx r, gy r):
// lk_residual_ref's operations in its order), their window sums (X, Y) in the reference's order
// (per window row the terms from column -r up from 0, then the rows from -r up: box_h then box_v
// exactly), and the update of every active pixel:
//  - GLOBAL: lk_update_ref's double Cramer rule on G, bit for bit;
//  - FUSED, MULTI_ITER: u' = (k11 X + k12 Y, k12 X + k22 Y) in F32, the stop test |u' - u|^2 <
//    epsilon^2 in F32. Against the reference's double arithmetic a component differs by at most
//    about 3 x 2^-24 (|k11 X| + |k12 Y|) + 2^-24 |u'| (the coefficients, the products and the sum
//    each rounded once): well-conditioned windows agree to a few ulps; a pixel whose step is
//    within that of epsilon may stop one step earlier or later. k11 == 0 stops the pixel without
//    a step (the reference's det <= 0 guard), as does a non-finite u' or one beyond 1e6 px.
// Every file of this family is compiled without contraction (cuda/CMakeLists.txt), so the
// gradient, the tensor, the confidence, the residual products and the window sums equal the
// reference's bit for bit in F32 (and, in F16, the reference's on the rounded gradient), and
// GLOBAL's steps are the reference's steps.
//
// A step ends the level on the device when no pixel is active: the update launches count the
// pixels still active into the level's stop slot (cuda_common.cuh epsilon_step with threshold
// 0), and every later launch of the level returns at once. GLOBAL and MULTI_ITER read the flow
// from one plane and write the other (a step's windows read neighbours' flows), so after an
// early stop the result may be on the other side: hs_cuda.cuh's ping-pong repair copies it over.
// FUSED updates in place (the residual pass has read every flow before the update pass runs).
// Pixels that are not active keep their flow (GLOBAL and MULTI_ITER copy it across).
// Under OF_ROBUST_CENSUS a level runs lk_census_cuda.cuh's steps instead of the setup and steps
// above (the tensor rebuilt at every step), with this file's validity launch and Newton step.
#ifndef OFLOW_CUDA_LK_CUDA_CUH
#define OFLOW_CUDA_LK_CUDA_CUH

#include "core/lk_kernels.hpp"
#include "cuda/cuda_common.cuh"
#include "cuda/cuda_kernels.cuh"

namespace oflow {
namespace cuda {

/// What the confidence launch leaves in the tensor slot: G, or the coefficients of -G^-1.
enum class LkStore : int { kTensor = 0, kInverse = 1 };

/// One level's setup (all planes of the level's size with pitch `pitch` elements).
struct LkSetupArgs {
    int w, h, pitch, r;         // level size, box radius (window - 1) / 2
    const float* i0;            // frame 0 at the level
    void* g;                    // T2 gradient pairs: out of the gradient, in for the tensor
    float* hsum[kLkTensorChannels]; // the tensor products' horizontal box sums (scratch)
    float* t[kLkTensorChannels];    // out: G or -G^-1 (LkStore)
    float* conf;                // out: confidence
    unsigned char* state;       // out: 1 valid, 0 not
    double inv_area;            // 1 / s^2
    float min_eigen;
    LkStore store;
    EpsArgs eps;                // the level's stop slot (thresh 0); stop == nullptr: no count
};

/// One Newton step (every plane of the level's size and pitch).
struct LkStepArgs {
    int w, h, pitch, r;
    const float* i0;            // frame 0, frame 1 at the level
    const float* i1;
    const void* g;              // T2 gradient pairs
    const float2* u_in;         // the flow the residuals are sampled at
    float2* u_out;              // the new flow (FUSED: == u_in, in place)
    const float* t[kLkTensorChannels]; // G (GLOBAL) or -G^-1 (FUSED, MULTI_ITER)
    unsigned char* state;       // in/out
    float2* eh;                 // FUSED: the residual products' horizontal box sums
    float2* sums;               // test hook: (X, Y) of every pixel the step ran; nullptr in frames
    float epsilon;
    EpsArgs eps;                // the level's stop slot (thresh 0: stop when no pixel is active)
};

// ---- per-pixel arithmetic -------------------------------------------------------------------

/// The flow a step may take (px): lk_ref.cpp's kMaxFlow and its position clamp.
const float kLkPosLimit = 1e6f;

/// lk_residual_ref at pixel (x, y) (inside the plane): (gx r, gy r) of the residual at u_in(x, y).
template <class T2>
__device__ __forceinline__ float2 lk_residual(const LkStepArgs& a, int x, int y) {
    const std::size_t p = static_cast<std::size_t>(a.pitch);
    const std::size_t i = static_cast<std::size_t>(y) * p + static_cast<std::size_t>(x);
    const float2 u = a.u_in[i];
    float px = static_cast<float>(x) + u.x, py = static_cast<float>(y) + u.y;
    px = px < -kLkPosLimit ? -kLkPosLimit : (px > kLkPosLimit ? kLkPosLimit : px);
    py = py < -kLkPosLimit ? -kLkPosLimit : (py > kLkPosLimit ? kLkPosLimit : py);
    const bool inside = px >= 0.0f && px <= static_cast<float>(a.w - 1) && py >= 0.0f && py <= static_cast<float>(a.h - 1);
    float it = 0.0f;
    if (inside) { // off the plane it is 0 (the taps would not change that)
        const float fx0 = floorf(px), fy0 = floorf(py);
        const int ix = static_cast<int>(fx0), iy = static_cast<int>(fy0);
        const float fx = px - fx0, fy = py - fy0;
        const int xa = clampi(ix, 0, a.w - 1), xb = clampi(ix + 1, 0, a.w - 1);
        const float* ra = a.i1 + static_cast<std::size_t>(clampi(iy, 0, a.h - 1)) * p;
        const float* rb = a.i1 + static_cast<std::size_t>(clampi(iy + 1, 0, a.h - 1)) * p;
        const float t = ra[xa] + fx * (ra[xb] - ra[xa]);
        const float b = rb[xa] + fx * (rb[xb] - rb[xa]);
        it = (t + fy * (b - t)) - a.i0[i];
    }
    const float2 g = Pair<T2>::to_f2(static_cast<const T2*>(a.g)[i]);
    const float rc = it - (g.x * u.x + g.y * u.y);
    return make_float2(g.x * rc, g.y * rc);
}

/// p[0] + p[stride] + ... (n terms) from 0 in that order, per component (box_h / box_v's order).
__device__ __forceinline__ float2 lk_window_sum(const float2* p, int stride, int n) {
    float2 acc = make_float2(0.0f, 0.0f);
    for (int k = 0; k < n; ++k) {
        const float2 v = p[k * stride];
        acc.x += v.x;
        acc.y += v.y;
    }
    return acc;
}

/// Whether a pixel of this block's tile is active: the tile is 32 columns from x (this thread's
/// column) and the rows y0 + threadIdx.y + k * blockDim.y, k < rows. Every thread of the block
/// calls it (a barrier: __syncthreads_or).
__device__ __forceinline__ bool lk_tile_active(const LkStepArgs& a, int x, int y0, int rows) {
    int any = 0;
    for (int k = 0; k < rows; ++k) {
        const int y = y0 + static_cast<int>(threadIdx.y) + k * static_cast<int>(blockDim.y);
        if (x < a.w && y < a.h && a.state[static_cast<std::size_t>(y) * static_cast<std::size_t>(a.pitch) + static_cast<std::size_t>(x)] == 1)
            any = 1;
    }
    return __syncthreads_or(any) != 0;
}

/// lk_update_ref's step at one pixel from its window sums G = [g11 g12; g12 g22] and s = (X, Y):
/// the new flow in *u, the new state in *st; true while the pixel stays active. The census steps
/// (lk_census_cuda.cu) take it with G from their own window sums.
__device__ __forceinline__ bool lk_newton_ref(float g11, float g12, float g22, float2 s, float epsilon, float2* u,
                                              unsigned char* st) {
    const double A = g11, B = g12, C = g22, X = s.x, Y = s.y;
    const double det = A * C - B * B;
    const double nu = det > 0.0 ? -(C * X - B * Y) / det : 0.0;
    const double nv = det > 0.0 ? -(A * Y - B * X) / det : 0.0;
    if (!(det > 0.0) || !(fabs(nu) <= 1e6 && fabs(nv) <= 1e6)) {
        *st = 0;
        return false;
    }
    const double du = nu - static_cast<double>(u->x), dv = nv - static_cast<double>(u->y);
    *u = make_float2(static_cast<float>(nu), static_cast<float>(nv));
    const double e = static_cast<double>(epsilon);
    *st = du * du + dv * dv < e * e ? 0 : 1;
    return *st != 0;
}

/// lk_update_ref for pixel i with window sums s (GLOBAL: G in a.t), as lk_newton_ref.
__device__ __forceinline__ bool lk_step_ref(const LkStepArgs& a, std::size_t i, float2 s, float2* u, unsigned char* st) {
    return lk_newton_ref(a.t[kG11][i], a.t[kG12][i], a.t[kG22][i], s, a.epsilon, u, st);
}

/// The F32 step of FUSED and MULTI_ITER from the coefficients of -G^-1 (top comment).
__device__ __forceinline__ bool lk_step_fast(const LkStepArgs& a, std::size_t i, float2 s, float2* u, unsigned char* st) {
    const float k11 = a.t[kG11][i], k12 = a.t[kG12][i], k22 = a.t[kG22][i];
    const float nu = k11 * s.x + k12 * s.y, nv = k12 * s.x + k22 * s.y;
    if (k11 == 0.0f || !(fabsf(nu) <= kLkPosLimit && fabsf(nv) <= kLkPosLimit)) {
        *st = 0;
        return false;
    }
    const float du = nu - u->x, dv = nv - u->y;
    *u = make_float2(nu, nv);
    *st = du * du + dv * dv < a.epsilon * a.epsilon ? 0 : 1;
    return *st != 0;
}

// ---- launchers (lk_stages_cuda.cu: the level's setup, fixed 32x8 blocks) --------------------

/// Scharr gradient of a.i0 into a.g (T2 = float2, or __half2 when f16).
cudaError_t launch_lk_gradient(const LkSetupArgs& a, bool f16, cudaStream_t s);
/// Horizontal box sums of the three tensor products of a.g into a.hsum.
cudaError_t launch_lk_tensor_h(const LkSetupArgs& a, bool f16, cudaStream_t s);
/// Vertical box sums of a.hsum, confidence, state, and G or -G^-1 into a.t (a.store); counts the
/// valid pixels into a.eps (launch index -1).
cudaError_t launch_lk_confidence(const LkSetupArgs& a, cudaStream_t s);

// ---- launchers of one Newton step `n` (the launch index of the stop slot) --------------------

/// GLOBAL (lk_global_cuda.cu): bw x bh threads, one per pixel.
cudaError_t launch_lk_global(const LkStepArgs& a, int n, int bw, int bh, bool f16, cudaStream_t s);
/// FUSED (lk_fused_cuda.cu): the residual and horizontal pass, then the vertical pass and update;
/// 32 x bh threads; shared: lk_fused_shared_bytes.
cudaError_t launch_lk_fused(const LkStepArgs& a, int n, int bh, std::size_t shared, bool f16, cudaStream_t s);
/// MULTI_ITER (lk_tile_cuda.cu): the whole step on 32 x (bh * rows) tiles; 32 x bh threads;
/// shared: lk_tile_shared_bytes.
cudaError_t launch_lk_tile(const LkStepArgs& a, int n, int bh, int rows, std::size_t shared, bool f16, cudaStream_t s);

void list_lk_stage_kernels(KernelList* l);
void list_lk_global_kernels(KernelList* l);
void list_lk_fused_kernels(KernelList* l);
void list_lk_tile_kernels(KernelList* l);

} // namespace cuda
} // namespace oflow

#endif
