// The Lucas-Kanade kernel family (LkKernels): the stages of dense pyramidal LK with iterative
// refinement (config.algorithm OF_ALGO_LK), filled per path like the shared KernelTable
// (lk_*_ref in core/ref/lk_ref.cpp; no NEON or CUDA entries yet). core/lk_level_cpu.cpp runs
// them per level; api/oflow.h states what the caller sees.
//
// Per level, on frame 0 (I0) and frame 1 (I1) of the pyramid and the level's flow u:
//  1. (gx, gy) = the gradient of I0, normalised to intensity units per pixel. The solver uses
//     Scharr: gx = (3 (a(x+1,y-1) - a(x-1,y-1)) + 10 (a(x+1,y) - a(x-1,y)) + 3 (a(x+1,y+1) -
//     a(x-1,y+1))) / 32, gy likewise down the columns. Prewitt ((1, 1, 1) weights, / 6) is the
//     other member of the family. Scharr measured the lower or equal mean EPE on the synthetic
//     cases at windows 5 to 11 (window 5: 0.128 vs 0.133 at 160x120, 0.113 vs 0.119 at 320x240;
//     window 11: 0.080 vs 0.081, 0.066 vs 0.067), a tie within 0.001 px at 15 and 21
//     (docs/accuracy.md "Lucas-Kanade", tests/tools/lk_study gradient).
//  2. G(p) = sum over the s x s window W(p) of [gx^2, gx gy; gx gy, gy^2] (tensor, then the box
//     sums box_h_multi and box_v_multi, each channel in F32);
//  3. c(p) = the smaller eigenvalue of G(p) / s^2; p is valid when c(p) >= min_eigen;
//  4. up to `iterations` Newton steps on the valid pixels still active:
//        it(q) = I1(q + u(q)) - I0(q)  (bilinear; 0 where q + u(q) leaves the plane),
//        b(p)  = sum over W(p) of g(q) (it(q) + g(q).(u(p) - u(q))),   delta(p) = -G(p)^-1 b(p),
//     u(p) += delta; a pixel stops (keeps its flow from then on) once |delta| < epsilon.
//     Each q's residual is carried to the centre's flow u(p) to first order (the g.(u(p) - u(q))
//     term), so b is what Bouguet's per-point LK sees, which samples the whole window at u(p),
//     linearised; it is still a box filter: b(p) = S(p) + G(p) u(p) with S the window sums of
//     g (it - g.u), and u + delta = -G^-1 S. Without that term (b the window sums of g it, each q
//     at its own flow) the steps couple neighbouring pixels like a Jacobi iteration on a system
//     that is not diagonally dominant: non-smooth parts of the error grow at every step (on the
//     synthetic cases the mean EPE rose from the second step of a level on: docs/accuracy.md,
//     "Lucas-Kanade"). Where q + u(q) leaves the plane, it(q) = 0 (KernelTable::warp_image's
//     rule): such a pixel asks its windows to keep its flow instead of pushing it further out
//     with the replicated border (with clamped taps alone rotation-zoom's EPE grew with the
//     steps, to 0.93 px after 10 at 160x120 against 0.11).
//
// Under OF_ROBUST_CENSUS (core/census.hpp) the intensity tensor is replaced by the 8 census
// channels' summed tensor (core/lk_census_cpu.cpp runs it; cuda/lk_census_cuda.cuh the same steps
// on the device). Each Newton step re-linearises at
// the current flow, as HS does per warp: frame 1 warped by u (KernelTable::warp_image), its
// central-difference gradient, then per pixel q the census tensor at u(q) (census_tensor: the
// kernel HS uses, CensusTensorArgs), J11, J12, J22 = sum_k a_k a_k^T and J13, J23 = sum_k r_k a_k,
// with r_k(u) = r_k + a_k . (u - u(q)) the channel's residual linearised at q's own flow.
// Summed over W(p) with every q carried to the centre's flow, as the intensity b is:
//        E_p(u) = sum over q in W(p), k of (r_k(q) + a_k(q) . (u - u(q)))^2,
//        grad E_p / 2 at u(p):  b(p) = sum_q (J13(q), J23(q)) + G(p) u(p) - sum_q J2(q) u(q)
//                                    = S(p) + G(p) u(p),
// G(p) the window sums of J2 = [J11 J12; J12 J22] and S the window sums of
// (J13 - J11 u1 - J12 u2, J23 - J12 u1 - J22 u2) (census_products), so that u + delta = -G^-1 S:
// the update kernel of step 4 unchanged, on G and S rebuilt at every step (the tensor moves with
// the warp). Validity: step 3's rule on the first step's G (the level's starting flow) with the
// same min_eigen; later steps keep that state (stopped pixels stay stopped), and the update's
// det guard covers a later G that turns singular. The threshold keeps its scale because
// kCensusScale is the channels' grey-level scale: S c_k spans [-S, S] grey-level equivalents, so
// a census J2 is in the intensity tensor's units (grey levels^2 per px) whatever the frame's
// contrast (the channels are contrast-free): a window is invalid when its census structure is
// flat in one direction, not when its contrast is low.
//
// Contract of every entry: it writes rows [y0, y1) of its outputs only, reads any rows of its
// inputs (never written by the same call), allocates nothing. Borders replicate: a neighbour
// outside the plane is the nearest pixel inside (x clamped to [0, w-1], y to [0, h-1]).
// Reductions return a count over their rows as a double (exact: counts stay below 2^53).
#ifndef OFLOW_CORE_LK_KERNELS_HPP
#define OFLOW_CORE_LK_KERNELS_HPP

#include "core/plane.hpp"

namespace oflow {

/// Window-sum channels of the gradient tensor, in this order in every array of them.
enum LkChannel : int { kG11 = 0, kG12, kG22, kLkTensorChannels };

/// The largest window side (config.lk.window: odd, 3..33) and so the largest box radius.
const int kLkMaxWindow = 33;

/// Gradient of src into gx, gy (same size), the 3x3 operators of the top comment, each sum in
/// the order written (left column subtracted from the right one, rows top to bottom, then the
/// weights applied as written), neighbours clamped.
using LkGradientFn = void (*)(Plane src, Plane gx, Plane gy, int y0, int y1);

/// j[kG11] = gx gx, j[kG12] = gx gy, j[kG22] = gy gy.
struct LkTensorArgs {
    Plane gx, gy;
    Plane j[kLkTensorChannels]; // out
};

/// Box sums of radius r = (s - 1) / 2 over n channels (n <= 3) in one pass over the rows:
///   box_h: dst(x, y) = sum for i = -r .. r of src(clamp(x + i), y)
///   box_v: dst(x, y) = sum for j = -r .. r of src(x, clamp(y + j))
/// each an F32 sum from 0 in the order of i (j) from -r up: the reference's order is the
/// contract (other paths match it within their stated tolerance). dst != src.
using LkBoxFn = void (*)(const Plane* src, const Plane* dst, int n, int radius, int y0, int y1);

/// conf(p) = lambda_min(G(p)) * inv_area, with G = [g11 g12; g12 g22] (the window sums) and
/// lambda_min = det / lambda_max, det = g11 g22 - g12^2 and
/// lambda_max = (g11 + g22) / 2 + sqrt(((g11 - g22) / 2)^2 + g12^2), all in double (the products
/// of two floats are exact there, and det / lambda_max does not cancel the way
/// lambda_max - 2 sqrt(...) does); 0 when lambda_max is 0, never below 0.
/// state(p) = 1 when conf(p) >= min_eigen (valid: the Newton steps run there), else 0.
/// Returns the number of valid pixels of the rows.
struct LkConfArgs {
    Plane j[kLkTensorChannels]; // the window sums G
    Plane conf, state;          // out
    double inv_area;            // 1 / s^2
    float min_eigen;
};

/// The residual products at the flow u (one pixel q each): with I1w = I1 at (x + u1, y + u2),
///     it = I1w - I0(q) when the position lies inside [0, w-1] x [0, h-1], else 0,
///     r = it - (gx u1 + gy u2),   bx = gx r,   by = gy r.
/// The position is clamped to [-1e6, 1e6] (so that the conversion to int is defined), then
/// sampled bilinearly with its four taps clamped into the plane: with x0 = floor(px),
/// fx = px - x0 (y0, fy likewise) and a..d the taps (x0, y0), (x0 + 1, y0), (x0, y0 + 1),
/// (x0 + 1, y0 + 1) after clamping, I1w = t + fy (t' - t), t = a + fx (b - a), t' = c + fx (d - c).
struct LkResidualArgs {
    Plane i0, i1;   // frame 0, frame 1 at the level
    Plane gx, gy;   // frame 0's gradient
    Plane u1, u2;   // the flow at which to sample (each pixel its own)
    Plane bx, by;   // out
};

/// One Newton step for every pixel p with state(p) == 1: with a = g11, b = g12, c = g22 and
/// (X, Y) the window sums of the residual products (bx, by), in double, by Cramer's rule,
///     det = a c - b b,  u1' = -(c X - b Y) / det,  u2' = -(a Y - b X) / det,
/// delta = (u1' - u1, u2' - u2) (the step -G^-1 b of the top comment), then u = u' (stored in F32)
/// and state = 0 when |delta|^2 < epsilon^2 (the step that stops a pixel is still taken).
/// Guard: where det <= 0 (a singular window: only with min_eigen 0) or a component of u' is not
/// finite or beyond 1e6 px (no tap of the clamped positions lies further), u stays and state
/// becomes 0. Pixels with state 0 are left as they are. Returns the number of pixels of the rows
/// still active (state 1).
struct LkUpdateArgs {
    Plane j[kLkTensorChannels]; // G
    Plane ex, ey;               // window sums of the residual products bx, by
    Plane state;                // in/out
    Plane u1, u2;               // in/out
    float epsilon;
};

struct CensusTensorArgs; // core/hs_kernels.hpp

/// OF_ROBUST_CENSUS's residual products (top comment): with J the census tensor at u (J11, J12,
/// J22 in j, J13 and J23 in bx and by on entry),
///     bx = J13 - (J11 u1 + J12 u2),   by = J23 - (J12 u1 + J22 u2),
/// each product and sum in F32 in the order written, in place (bx, by out).
struct LkCensusArgs {
    Plane j[kLkTensorChannels]; // J11, J12, J22 (before the window sums)
    Plane u1, u2;
    Plane bx, by;               // in: J13, J23; out: the products
};

struct LkKernels {
    /// The gradient the level solver uses (scharr), and both operators of the family.
    LkGradientFn gradient;
    LkGradientFn scharr;
    LkGradientFn prewitt;
    void (*tensor)(const LkTensorArgs& a, int y0, int y1);
    LkBoxFn box_h_multi;
    LkBoxFn box_v_multi;
    double (*confidence)(const LkConfArgs& a, int y0, int y1);
    void (*residual)(const LkResidualArgs& a, int y0, int y1);
    double (*update)(const LkUpdateArgs& a, int y0, int y1);
    /// OF_ROBUST_CENSUS: the census channels' tensor (census_tensor_ref, HS's kernel) and the
    /// residual products; the reference's on every CPU path in this version.
    void (*census_tensor)(const CensusTensorArgs& a, int y0, int y1);
    void (*census_products)(const LkCensusArgs& a, int y0, int y1);
};

/// Fills t with the reference kernels (core/ref/lk_ref.cpp).
void lk_kernels_init_ref(LkKernels* t);

} // namespace oflow

#endif
