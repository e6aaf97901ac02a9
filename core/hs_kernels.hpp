// The Horn-Schunck / CLG kernel family (HsKernels): the stages of the variational solvers of
// config.algorithm OF_ALGO_HS and OF_ALGO_CLG, filled per path like the shared KernelTable
// (hs_*_ref in core/ref/hs_ref.cpp, hs_*_neon in neon/).
//
// One discretisation for both algorithms and both solvers, so that they meet at one fixed point:
//  - derivatives: Horn & Schunck's averages of first differences over the 2x2x2 cube
//    (x..x+1, y..y+1, frame 0 and the warped frame 1), half a pixel off the pixel centre;
//  - smoothness: alpha^2 (|grad du|^2 + |grad dv|^2), the Laplacian as (mean - value) with the
//    9-point local mean  m(u) = 1/6 (4 direct neighbours) + 1/12 (4 diagonal neighbours);
//  - data term: w^T J w, w = (du, dv, 1), J the structure tensor grad3 f grad3 f^T (CLG: each
//    channel smoothed by a Gaussian of sigma rho; rho = 0 is Horn-Schunck).
// Per pixel that is the 2x2 system
//     [j11 + a2, j12     ] [du]   [a2 m(du) - j13]
//     [j12,      j22 + a2] [dv] = [a2 m(dv) - j23]       (a2 = alpha^2)
// whose determinant is at least a2^2 > 0 (J is positive semi-definite).
// Conditioning (an estimate from the rounding of the tensor, not a measurement): in F32 the
// determinant (j11 + a2)(j22 + a2) - j12^2 cancels when alpha is small against the gradients.
// HS's tensor is rank one (j11 j22 = j12^2 before rounding), so its rounding leaves an error of
// about 2^-23 j11 j22 against a2 (j11 + j22): 3.5e-5 relative at alpha 15 with 255-level
// gradients, 0.8 % at alpha 1, meaningless at alpha 0.01. That hits the 2x2 solves (CLG's
// coupled Jacobi, both algorithms' SOR); HS's Jacobi uses the closed form, which does not cancel.
//
// Contract of every entry: it writes rows [y0, y1) of its outputs only, reads any rows of its
// inputs (never written by the same call), allocates nothing. Borders replicate: a neighbour
// outside the plane is the nearest pixel inside (x clamped to [0, w-1], y to [0, h-1]).
// Solver entries return the sum over their rows of (du_new - du_old)^2 + (dv_new - dv_old)^2,
// each row summed in double from left to right, the rows in order.
#ifndef OFLOW_CORE_HS_KERNELS_HPP
#define OFLOW_CORE_HS_KERNELS_HPP

#include "core/kernels.hpp"
#include "core/plane.hpp"

namespace oflow {

/// Structure tensor channels, in this order in every array of them.
enum HsChannel : int { kJ11 = 0, kJ12, kJ13, kJ22, kJ23, kHsChannels };

/// Derivatives of frame 0 (i0) and frame 1 warped by the incoming flow (i1w), same size.
/// With a(x, y) = i0 and b = i1w, x1 = min(x + 1, w - 1), y1 = min(y + 1, h - 1):
///   ix = 1/4 [a(x1,y) - a(x,y) + a(x1,y1) - a(x,y1) + b(x1,y) - b(x,y) + b(x1,y1) - b(x,y1)]
///   iy = 1/4 [a(x,y1) - a(x,y) + a(x1,y1) - a(x1,y) + b(x,y1) - b(x,y) + b(x1,y1) - b(x1,y)]
///   it = 1/4 [b(x,y) - a(x,y) + b(x1,y) - a(x1,y) + b(x,y1) - a(x,y1) + b(x1,y1) - a(x1,y1)]
/// (each bracket summed in the order written).
struct HsDerivArgs {
    Plane i0, i1w;
    Plane ix, iy, it; // out
};

/// j[kJ11] = ix*ix, j[kJ12] = ix*iy, j[kJ13] = ix*it, j[kJ22] = iy*iy, j[kJ23] = iy*it.
struct HsTensorArgs {
    Plane ix, iy, it;
    Plane j[kHsChannels]; // out
};

/// OF_ROBUST_CENSUS's motion tensor for HS and CLG (core/census.hpp): the 8 census channels'
/// sums at the warped flow, j[kJ11] = sum a_kx^2, j[kJ12] = sum a_kx a_ky, j[kJ22] = sum a_ky^2,
/// j[kJ13] = sum a_kx r_k, j[kJ23] = sum a_ky r_k, from i0, frame 1 warped (i1w) and its
/// gradient (gx, gy: central differences of i1w); 0 where x + u leaves the level. eta0 / eta1:
/// each frame's eta. The census rows' kernel, the reference's on every CPU path in this version
/// (the CUDA path's: cuda/census_cuda.cu).
struct CensusTensorArgs {
    Plane i0, i1w, gx, gy, u1, u2;
    Plane j[kHsChannels]; // out
    float eta0, eta1;
};

/// One Jacobi iteration over full planes: reads du, dv (iterate k), writes du_next, dv_next.
///  hs_jacobi (Horn-Schunck's update, the 2x2 solve in closed form, ix/iy/it only):
///     n = ix m(du) + iy m(dv) + it,  d = a2 + ix^2 + iy^2
///     du' = m(du) - ix n / d,  dv' = m(dv) - iy n / d
///  clg_jacobi (pointwise-coupled: the 2x2 system above solved per pixel by Cramer's rule):
///     A = j11 + a2, B = j12, C = j22 + a2, r1 = a2 m(du) - j13, r2 = a2 m(dv) - j23,
///     det = A C - B B,  du' = (C r1 - B r2) / det,  dv' = (A r2 - B r1) / det
///  clg_jacobi_plain (the textbook point Jacobi, for the convergence comparison only):
///     du' = (a2 m(du) - j12 dv - j13) / (j11 + a2),  dv' = (a2 m(dv) - j12 du - j23) / (j22 + a2)
struct HsJacobiArgs {
    Plane du, dv;
    Plane du_next, dv_next; // out
    Plane ix, iy, it;       // hs_jacobi
    Plane j[kHsChannels];   // clg_jacobi, clg_jacobi_plain
    float alpha2;
};

/// Red-black layout (seed 004): pixel (x, y) is red when x + y is even, black otherwise. A split
/// plane holds one colour: its row y holds that colour's pixels of row y in order, pixel x in
/// slot x >> 1 (for either colour), (w + 1) / 2 slots per row (the split plane's w), the last
/// slot of a row unused when the row has fewer pixels of the colour.
///  rb_split: red/black rows [y0, y1) from src. rb_merge: rows [y0, y1) of dst from red/black.
///
/// One half-sweep of red-black SOR over colour `colour` (0 red, 1 black), pointwise coupled:
/// for each pixel of the colour, (gu, gv) = the 2x2 solve above, m() over its 8 neighbours
/// after border replication, each read by the colour of the pixel it lands on:
///   - the other colour (the direct neighbours inside the plane) from u_other / v_other: their
///     current values (the other colour's latest half-sweep);
///   - this colour (the diagonal neighbours inside the plane, and whatever replication lands on
///     a pixel of this colour, the pixel itself included) from u_old / v_old: the values
///     before this half-sweep;
/// then du' = (1 - omega) du_old + omega gu (same for dv), written to u_new / v_new. Reading the
/// same colour's old values keeps the result independent of the order of the pixels (and so of
/// the thread count); the fixed point is the Jacobi solvers' one. Tensor planes j[] are split
/// planes of the same colour.
struct HsSorArgs {
    Plane u_old, v_old;     // this colour, before the half-sweep
    Plane u_other, v_other; // the other colour, current
    Plane u_new, v_new;     // out: this colour
    Plane j[kHsChannels];   // this colour's tensor
    float alpha2;
    float omega;
    int colour; // 0 red, 1 black
    int w;      // width of the full plane (split planes are (w + 1) / 2 wide)
};

struct HsKernels {
    void (*derivatives)(const HsDerivArgs& a, int y0, int y1);
    void (*tensor)(const HsTensorArgs& a, int y0, int y1);
    /// Separable Gaussian of n channels (n <= kHsChannels) in one pass over the rows: the same
    /// arithmetic per channel as KernelTable::blur_h / blur_v.
    void (*blur_h_multi)(const Plane* src, const Plane* dst, int n, const Gaussian1D& g, int y0, int y1);
    void (*blur_v_multi)(const Plane* src, const Plane* dst, int n, const Gaussian1D& g, int y0, int y1);
    double (*hs_jacobi)(const HsJacobiArgs& a, int y0, int y1);
    double (*clg_jacobi)(const HsJacobiArgs& a, int y0, int y1);
    double (*clg_jacobi_plain)(const HsJacobiArgs& a, int y0, int y1);
    void (*rb_split)(Plane src, Plane red, Plane black, int y0, int y1);
    void (*rb_merge)(Plane red, Plane black, Plane dst, int y0, int y1);
    double (*sor_half_sweep)(const HsSorArgs& a, int y0, int y1);
    void (*census_tensor)(const CensusTensorArgs& a, int y0, int y1);
};

/// Fills t with the reference kernels (core/ref/hs_ref.cpp).
void hs_kernels_init_ref(HsKernels* t);

} // namespace oflow

#endif
