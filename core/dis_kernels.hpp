// The Dense Inverse Search kernel family (DisKernels): the stages of DIS (config.algorithm
// OF_ALGO_DIS; Kroeger, Timofte, Dai, Van Gool, ECCV 2016), filled per path like the shared
// KernelTable (dis_*_ref in core/ref/dis_ref.cpp). core/dis_level_cpu.cpp runs them per level;
// api/oflow.h (of_dis_params) states what the caller sees.
//
// Per solved level, on frame 0 (I0, the template) and frame 1 (I1) of the pyramid, with p the
// patch side and s the grid step (DisGrid: the last grid position moved in so that the patches
// end at the frame's edge; every pixel lies in at least one patch):
//  1. (gx, gy) = the gradient of I0: Sobel divided by 8, so that a ramp of slope a reads a;
//  2. per patch P, the sums over P of gx^2, gx gy, gy^2, gx, gy (running box sums: each pixel's
//     products are formed once whatever the overlap) -> the mean-normalised Hessian
//        H = [Sxx - Sx Sx / n, Sxy - Sx Sy / n; Sxy - Sx Sy / n, Syy - Sy Sy / n],  n = p^2;
//  3. each patch starts at the level's dense flow at its centre (the coarser level's, upsampled);
//  4. search: Gauss-Newton steps of the inverse compositional algorithm on the mean-normalised
//     squared error E(u) = sum d^2 - (sum d)^2 / n, d(x) = I1(x + u) - I0(x) over P, I1 read
//     bilinearly with one set of weights for the whole patch (sampling, below):
//        b = (sum gx d - Sx sum d / n, sum gy d - Sy sum d / n),  u <- u - H^-1 b,
//     stopping when E stops decreasing; the patch keeps the u of least E it visited, and its
//     start when that u is more than p px from the start;
//  5. propagation: the steps run in rounds of kDisRoundSteps (the last shorter); before every
//     round but the first each patch tries its four grid neighbours' flows and starts the round
//     from the one of least E (its own first), so that a good match spreads a patch further
//     each round (OpenCV's DIS sweeps its grid in raster order instead, which does not run in
//     parallel);
//  6. densification: u(x) = sum_i w_i u_i / sum_i w_i over the patches i covering x, with
//     w_i = 1 / max(1, |I1(x + u_i) - I0(x) - m_i|), m_i the patch's mean d at u_i;
//  7. variational refinement (dis_refine_tensor + the library's red-black SOR, core/hs_kernels.hpp).
//
// Sampling (search, propagation, densification): the shift u, each component first clamped to
// [-(w + 2), w + 2] (beyond that every tap is clamped to the same border pixel anyway), splits
// into ix = floor(ux), fx = ux - ix (likewise iy, fy); pixel (x, y) reads the taps a = (x + ix,
// y + iy), b = (x + ix + 1, y + iy), c = (x + ix, y + iy + 1), d = (x + ix + 1, y + iy + 1), each
// coordinate clamped into the plane, as t = a + fx (b - a), t' = c + fx (d - c), t + fy (t' - t).
//
// Contract of every entry: it writes rows [y0, y1) (pixel rows, or patch rows for the patch
// entries) of its outputs only, reads any rows of its inputs (never written by the same call),
// allocates nothing. Borders replicate: a neighbour outside the plane is the nearest pixel
// inside. The search's and the propagation's sums over a patch are F32 sums in four lanes (lane
// q: the pixels of columns x with (x - patch's x) % 4 == q, rows top to bottom, each row left to
// right), combined as (lane 0 + lane 1) + (lane 2 + lane 3); the patch sums of step 2 are exact
// sums (differences of double prefix sums) rounded to F32.
#ifndef OFLOW_CORE_DIS_KERNELS_HPP
#define OFLOW_CORE_DIS_KERNELS_HPP

#include "core/hs_kernels.hpp" // kHsChannels: the refinement's tensor is the SOR's
#include "core/plane.hpp"

#include <cmath>
#include <cstdint>

namespace oflow {

/// The patch grid of one level: p = min(patch_size, w, h), nx x ny patches, patch k of a row
/// at x = pos(k, s, w - p) = min(k s, w - p) (likewise for the rows).
struct DisGrid {
    int p, s;   // patch side and step at this level
    int nx, ny; // patches per row and per column
    int w, h;   // the level's size
    int x(int k) const { return k * s < w - p ? k * s : w - p; }
    int y(int j) const { return j * s < h - p ? j * s : h - p; }
};

/// The grid of a w x h level for patch_size and patch_stride (both >= 1).
inline DisGrid dis_grid(int w, int h, int patch_size, int patch_stride) {
    DisGrid g;
    int p = patch_size;
    if (p > w) p = w;
    if (p > h) p = h;
    g.p = p;
    g.s = patch_stride < p ? patch_stride : p;
    g.nx = (w - p + g.s - 1) / g.s + 1;
    g.ny = (h - p + g.s - 1) / g.s + 1;
    g.w = w;
    g.h = h;
    return g;
}

/// Patch sums, in this order in every array of them (sparse planes: nx x ny, patch (k, j) at
/// column k of row j).
enum DisSum : int { kDisSxx = 0, kDisSxy, kDisSyy, kDisSx, kDisSy, kDisSums };

/// Gradient of src into gx, gy: Sobel / 8, neighbours clamped:
///   gx = ((a(x+1,y-1) - a(x-1,y-1)) + 2 (a(x+1,y) - a(x-1,y)) + (a(x+1,y+1) - a(x-1,y+1))) / 8
/// summed in the order written (gy likewise down the columns).
using DisGradientFn = void (*)(Plane src, Plane gx, Plane gy, int y0, int y1);

/// The horizontal pass of the patch sums of one channel: for pixel rows [y0, y1) and every grid
/// column k, rowsum(k, y) = sum for x = g.x(k) .. g.x(k) + p - 1 of c(x, y), c the channel's
/// product (gx gx, gx gy, gy gy, gx, gy) in F32, summed in double (a running sum: the difference
/// of prefix sums from the row's start) and rounded to F32.
struct DisBoxArgs {
    Plane gx, gy;
    Plane rowsum; // out: w >= nx, h >= the level's h
    DisGrid g;
    int channel; // DisSum
};

/// The vertical pass: for patch rows [j0, j1), out(k, j) = sum for y = g.y(j) .. + p - 1 of
/// rowsum(k, y), in double (differences of prefix sums down the column), rounded to F32.
struct DisBoxVArgs {
    Plane rowsum;
    Plane out; // sparse plane of the channel
    DisGrid g;
};

/// Each patch's start: s(k, j) = u(g.x(k) + p / 2, g.y(j) + p / 2) (the dense flow at its centre).
struct DisInitArgs {
    Plane u1, u2; // the level's dense flow
    Plane sx, sy; // out (sparse)
    DisGrid g;
};

/// The search of step 4 for patch rows [j0, j1): from (sx_in, sy_in), up to `iterations` steps.
/// Per step t = 0, 1, ...: d sampled at u (sampling, above), E(u) and the sums; u is the best so far when E(u) < E(best);
/// stop when t == iterations or E(u) >= E of the previous step's u; else the step. No step when
/// the patch is not solvable (dis_solvable), or when a component of the step is not finite.
/// Writes the best u (the start when |best - start| > p) to (sx_out, sy_out), its mean d to md and
/// its E to err.
/// A patch is solvable when its mean-normalised Hessian H (n = p^2 pixels; det its determinant,
/// in double) has Hxx > 0, Hyy > 0, det > 1e-6 Hxx Hyy and a smaller eigenvalue of at least
/// kDisMinEigen n: the patch has texture in two directions, above what the preprocessing leaves
/// of a blurred-flat region. Where it is not (flat or one-dimensional texture, and the coarse
/// levels of a fine texture, blurred flat), a patch keeps its start, so that such levels pass on
/// the coarser flow instead of inventing one (on the accuracy matrix's fine-texture cells a
/// threshold of 0 let the coarse levels' guesses, up to a patch side at 1/8 scale, through:
/// docs/accuracy.md, "Dense Inverse Search").
const double kDisMinEigen = 0.3; // grey levels^2 per px^2, of the preprocessed frames

inline bool dis_solvable(float hxx, float hyy, double det, float n) {
    if (!(hxx > 0.0f && hyy > 0.0f && det > 1e-6 * static_cast<double>(hxx) * hyy)) return false;
    const double half_trace = 0.5 * (static_cast<double>(hxx) + hyy);
    const double disc = half_trace * half_trace - det;
    const double lmin = det / (half_trace + std::sqrt(disc > 0.0 ? disc : 0.0)); // det / lambda_max
    return lmin >= kDisMinEigen * static_cast<double>(n);
}

/// The rounds of one level (step 5) need not repeat work whose result is known, because each
/// patch's search and propagation are deterministic functions of their inputs. state (optional:
/// state.data null searches every patch and writes no state) is a sparse plane of flags per
/// patch, kDisSettled + kDisStable as a float, written by the search:
///  - kDisSettled: its search stopped because the step from its result did not lower E (the
///    result is the point before the last), or because that step was not finite, or because
///    the patch is unsolvable, and it kept that result (no p-px reset): a search started at
///    the result retakes that one step, stops again and returns the same result, md and err;
///  - kDisStable (resume only): the result equals (bitwise) the previous round's.
/// resume false (the level's first round): every patch searched. resume true: (sx_out, sy_out),
/// md, err and state hold the previous round's; a settled patch whose start equals its previous
/// result (bitwise) is not searched: its outputs keep their values, its state becomes
/// kDisSettled + kDisStable. The flows, md and err are those of searching every patch.
const float kDisSettled = 1.0f, kDisStable = 2.0f;

struct DisSearchArgs {
    Plane i0, i1, gx, gy;
    Plane sum[kDisSums];  // the patch sums (sparse)
    Plane sx_in, sy_in;   // starts (sparse)
    Plane sx_out, sy_out; // out (sparse)
    Plane md;             // out: mean d at the result (sparse)
    Plane err;            // out: E at the result (sparse)
    DisGrid g;
    int iterations;
    Plane state{};        // in/out (sparse), optional: the rounds' flags (above)
    bool resume = false;  // the outputs and state hold the previous round's
};

/// Propagation (step 5) for patch rows [j0, j1), before a round: the candidates are the patch's
/// own flow (its error E from the search's err plane, not evaluated again) and its left, right,
/// up and down grid neighbours' from (sx_in, sy_in) (those inside the grid); out = the candidate
/// of least E on this patch (ties: own, then the order named). A neighbour within kDisSameFlow px
/// of the best so far in both components is not evaluated (it would start the search at the same
/// place). Two neighbours a round (left and up, then right and down, as OpenCV's two sweeps)
/// measured worse on the accuracy matrix: mean EPE over its small cells 1.061 against 0.937.
/// With the search's state (optional: state.data null evaluates every patch) and resume
/// (sx_out, sy_out hold this grid's previous propagation, and kDisStable says that a patch's
/// flow, hence its E, is the one that propagation read): a patch stable with each of its
/// neighbours inside the grid has the same candidates as then, so it keeps its previous output.
struct DisPropagateArgs {
    Plane i0, i1;
    Plane sx_in, sy_in, err_in; // the flows and their errors after the last search
    Plane sx_out, sy_out;       // out
    DisGrid g;
    Plane state{};       // the search's flags (sparse), optional
    bool resume = false; // sx_out, sy_out hold the previous propagation's
};
const float kDisSameFlow = 0.01f;

/// Gauss-Newton steps per propagation round (step 5): ceil(iterations / kDisRoundSteps) rounds.
/// On the accuracy matrix's fine-texture cell (MEDIUM, 25 steps) one round gave 1.22 px, 2
/// (one exchange) 0.77, 4 0.42 and 8 0.25 (docs/accuracy.md, "Dense Inverse Search").
const int kDisRoundSteps = 3;

/// config.dis.iterations' bound (check_dis; the time budget buys at most this many).
const std::uint32_t kDisMaxIterations = 1000;

/// Densification (step 6) for pixel rows [y0, y1): each pixel's patches i are those with
/// g.x(k) <= x < g.x(k) + p and g.y(j) <= y < g.y(j) + p, visited row j ascending, then k
/// ascending; the sums sum w, sum w u1_i, sum w u2_i in F32 in that order (in weight, u1, u2),
/// then u = (sum w u1_i) / (sum w), likewise u2. d is sampled as in the search.
struct DisDensifyArgs {
    Plane i0, i1;
    Plane sx, sy, md; // the patches' flows and mean d
    Plane u1, u2;     // out: the dense flow (the sums first)
    Plane weight;     // out: the sum of the weights (scratch)
    DisGrid g;
};

/// The refinement's linear system at the current increment (step 7), in the red-black layout
/// of the SOR (core/hs_kernels.hpp), for pixel rows [y0, y1) of both colours. With A =
/// (I0 + I1w) / 2, central differences (neighbours clamped) Ax, Ay, Axx = A(x+1) - 2A + A(x-1),
/// Ayy, Axy = (A(x+1,y+1) - A(x-1,y+1) - A(x+1,y-1) + A(x-1,y-1)) / 4, It = I1w - I0,
/// Ixt = dx(I1w) - dx(I0), Iyt = dy(I1w) - dy(I0), (du, dv) the increment at the pixel:
///   rb = (It + Ax du + Ay dv)^2 / (Ax^2 + Ay^2 + z2),   phi_b = delta / sqrt(rb + e2) / (Ax^2 + Ay^2 + z2)
///   rg = ((Ixt + Axx du + Axy dv)^2 + (Iyt + Axy du + Ayy dv)^2) / (Axx^2 + 2 Axy^2 + Ayy^2 + z2),
///   phi_g = gamma / sqrt(rg + e2) / (Axx^2 + 2 Axy^2 + Ayy^2 + z2)
///   J11 = phi_b Ax^2 + phi_g (Axx^2 + Axy^2),   J12 = phi_b Ax Ay + phi_g (Axx Axy + Axy Ayy),
///   J22 = phi_b Ay^2 + phi_g (Axy^2 + Ayy^2),
///   J13 = phi_b Ax It + phi_g (Axx Ixt + Axy Iyt) + alpha2 (u1 - m(u1)),
///   J23 = phi_b Ay It + phi_g (Axy Ixt + Ayy Iyt) + alpha2 (u2 - m(u2)),
/// m() the SOR's 9-point mean (so that the SOR's smoothness acts on the flow u + du, not on
/// the increment alone), z2 = kDisZeta2, e2 = kDisEps2. Each channel to j_red / j_black.
struct DisRefineArgs {
    Plane i0, i1w;
    Plane u1, u2;               // the flow being refined (full planes)
    Plane du_r, du_b, dv_r, dv_b; // the increment (split planes)
    Plane j_red[kHsChannels], j_black[kHsChannels]; // out (split planes)
    float alpha2, delta, gamma;
};

/// The refinement's constants: z2 keeps the normalisation of flat pixels finite (grey levels^2),
/// e2 the robust penalty's (px^2).
const float kDisZeta2 = 0.01f;
const float kDisEps2 = 1e-6f;

struct DisKernels {
    DisGradientFn gradient;
    void (*box_h)(const DisBoxArgs& a, int y0, int y1);
    void (*box_v)(const DisBoxVArgs& a, int j0, int j1);
    void (*init)(const DisInitArgs& a, int j0, int j1);
    void (*search)(const DisSearchArgs& a, int j0, int j1);
    void (*propagate)(const DisPropagateArgs& a, int j0, int j1);
    void (*densify)(const DisDensifyArgs& a, int y0, int y1);
    void (*refine_tensor)(const DisRefineArgs& a, int y0, int y1);
};

/// Fills t with the reference kernels (core/ref/dis_ref.cpp).
void dis_kernels_init_ref(DisKernels* t);

} // namespace oflow

#endif
