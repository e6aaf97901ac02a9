// Dense Inverse Search, the patch kernels in NEON F32 (core/dis_kernels.hpp: DisSearchArgs,
// DisPropagateArgs): the inverse-compositional search and the propagation. Both spend their
// time in one loop, the sums of d = I1(x + u) - I0(x) over a patch at one shift (and, for the
// search, of gx d and gy d): that loop is vectorised across the patch row, four columns per
// vector, the shift's bilinear weights (fx, fy: one set per patch, the contract's sampling) held
// in registers for the whole patch. The per-patch logic around it (the Hessian, dis_solvable, the
// 2x2 step in double, the stopping rule, the best-so-far and the p-px limit, the candidates'
// order and the kDisSameFlow skip, the own candidate's E taken from the search's err plane) is
// the reference's, line for line.
//
// Sampling: the shift is clamped and split as the reference's (split_shift). A patch row reads
// the two tap rows y + iy, y + iy + 1 (clamped) at columns xa0 .. xa0 + p, xa0 = x0 + ix. When
// every such column lies inside the plane (the reference's "inside" test) they are loaded
// directly (a at xa0 + c, b at xa0 + c + 1: two overlapping loads); otherwise the p + 1 clamped
// columns of both rows are copied to the stack first (the border's replication), and the same
// vector code runs on the copy. Interpolation fused as the compiled reference's:
// t = fma(fx, b - a, a), t' = fma(fx, d - c, c), fma(fy, t' - t, t).
//
// Sums: the contract's order (core/dis_kernels.hpp): four lanes of partial sums per quantity
// (d, d^2, gx d, gy d: four independent accumulators), lane q holding the patch's columns
// c % 4 == q, rows top to bottom, each row left to right, combined as (0 + 1) + (2 + 3) (vaddvq:
// two pairwise adds). The multiply-adds are fused (d^2 and g d accumulated by fma) as g++ compiles
// the reference's (-ffp-contract=fast, C++'s default), so the sums, E, the steps and therefore
// every decision (the stopping rule, the best so far, the p-px limit, the candidate of least E)
// are the reference's: the flows, md and err are its bits with g++ 12
// (tests/neon/neon_dis_kernels.cpp checks bitwise equality where the compiler fuses the reference
// the same way, and otherwise that a patch's answer is as good: its E within rounding of the
// reference answer's). The last vector of a row (p % 4 != 0) adds d = 0 in its missing lanes,
// which leaves those lanes' sums as they are. Each patch's result depends only on its own
// inputs, never on the row band or the thread count.
//
// Over-read: none. The direct loads read columns xa0 .. xa0 + p of the tap rows only when they lie
// inside the plane; I0, gx and gy are read in the patch's columns only; the last vector of a row
// (p not a multiple of 4) uses partial loads (neon_util.hpp), whose zero lanes give d = 0 and
// add nothing.
//
// F16 (precision F16 on a CPU with FP16 arithmetic): no DIS kernel computes in F16; the DIS entry
// keeps cpu_f16 false and of_info says F32. Kernel by kernel, with u16 = 2^-11 (F16's unit
// roundoff; spacing 0.125 from 128 to 256, largest value 65504) on frames of the 0..255 scale.
// The numbers are a small study under qemu-aarch64 (__fp16, not kept in the tree): 8x8 patches,
// stride 4, of the synthetic translation and smooth-field pairs at 128x96 (609 solvable patches
// each), the sums at the true flow plus an offset of 0, 0.25, 1 and 4 px, F16 against F32:
//  - search / propagation (this file, nearly all of DIS's time). All in F16 (taps, d, the four
//    sums): sum d^2 overflows (Inf) on half the patches (306 and 316 of 609) at a 4 px offset,
//    as at the start of a coarse search or for a wrong candidate (64 * 255^2 = 4.2e6 at worst);
//    and at the flow itself, where the stopping rule and the propagation compare E = sum d^2 -
//    (sum d)^2 / n between steps, E is off by 0.8 % on average and up to 4.7 % (E of 2..600):
//    more than the decrease of E the stopping rule tests at convergence. d alone in F16, the
//    sums in F32: the Gauss-Newton step moves by 1.2e-3 px on average and up to 8.5e-3 px from
//    F32's (the taps of a 0..255 frame carry up to 0.0625 of rounding each, on a d the search
//    drives to a few grey levels), where F32's search is the reference's to the bit. And the
//    arithmetic is not the cost: per four columns the loop does 4 tap loads, 1 load of I0 (and
//    2 of gx, gy), 3 fma and 3 sub for the taps and 4 accumulations; half-width lanes would add
//    the conversions of F32 planes (every plane is F32) to that.
//  - densification (dis_dense_neon.cpp): the weights 1 / max(1, |d - m|) need d to about 1 grey
//    level only, but the weighted sums of flows (up to p^2 / s^2 = 64 patches per pixel at p = 8,
//    s = 1) and their quotient are the output flow: in F16 the flow itself is rounded to
//    u16 |u| (0.125 px at 256 px, 65504 reached by 64 weights of 1024-px flows). Once per level.
//  - gradient (once per level), box sums (double by contract), refine_tensor (square roots and
//    divisions of products of second derivatives once per refinement iteration; its normalisers
//    Ax^2 + Ay^2 + 0.01 range from 1e-2 to above 1e5, outside F16's normal range at both ends):
//    not F16.
#include "core/dis_patch.hpp"
#include "neon/dis_neon.hpp"
#include "neon/kernels_neon.hpp"

#include "neon/neon_util.hpp"

#include <cmath>

namespace oflow {
namespace {

using namespace neon;

const int kMaxP = 32; // the largest patch side (config_check: patch_size 4..32)

using Shift = DisShift;

inline Shift split_shift(float ux, float uy, int w, int h) { return dis_split_shift(ux, uy, w, h); }

using PatchSums = DisPatchSums;

// The sums of d over the p x p patch at (px0, py0) shifted by (ux, uy); with kGrad also of gx d and
// gy d.
template <bool kGrad>
PatchSums patch_sums(const Plane& i0, const Plane& i1, const Plane& gx, const Plane& gy, int px0, int py0, int p,
                     float ux, float uy) {
    const Shift sh = split_shift(ux, uy, i1.w, i1.h);
    const float32x4_t fx = vdupq_n_f32(sh.fx), fy = vdupq_n_f32(sh.fy);
    float32x4_t sd = vdupq_n_f32(0.0f), sdd = sd, sgx = sd, sgy = sd;
    const int xa0 = px0 + sh.ix;
    const bool inside = xa0 >= 0 && xa0 + p < i1.w;
    const int full = p & ~(kLanes - 1), rest = p - full;
    float buf0[kMaxP + 1], buf1[kMaxP + 1]; // the clamped tap columns, when not inside
    for (int yy = 0; yy < p; ++yy) {
        const int y = py0 + yy;
        const float* t = i0.row(y) + px0;
        const float* r0 = i1.row(clampi(y + sh.iy, 0, i1.h - 1));
        const float* r1 = i1.row(clampi(y + sh.iy + 1, 0, i1.h - 1));
        if (inside) {
            r0 += xa0;
            r1 += xa0;
        } else {
            for (int c = 0; c <= p; ++c) {
                const int xc = clampi(xa0 + c, 0, i1.w - 1);
                buf0[c] = r0[xc];
                buf1[c] = r1[xc];
            }
            r0 = buf0;
            r1 = buf1;
        }
        const float* ax = kGrad ? gx.row(y) + px0 : nullptr;
        const float* ay = kGrad ? gy.row(y) + px0 : nullptr;
        const auto step = [&](int c, int n) {
            const float32x4_t a = load_n(r0 + c, n), b = load_n(r0 + c + 1, n);
            const float32x4_t cc = load_n(r1 + c, n), dd = load_n(r1 + c + 1, n);
            const float32x4_t top = vfmaq_f32(a, fx, vsubq_f32(b, a));
            const float32x4_t bot = vfmaq_f32(cc, fx, vsubq_f32(dd, cc));
            const float32x4_t d = vsubq_f32(vfmaq_f32(top, fy, vsubq_f32(bot, top)), load_n(t + c, n));
            sd = vaddq_f32(sd, d);
            sdd = vfmaq_f32(sdd, d, d);
            if (kGrad) {
                sgx = vfmaq_f32(sgx, load_n(ax + c, n), d);
                sgy = vfmaq_f32(sgy, load_n(ay + c, n), d);
            }
        };
        int c = 0;
        for (; c < full; c += kLanes) step(c, kLanes);
        if (rest) step(c, rest);
    }
    PatchSums s;
    s.d = vaddvq_f32(sd);
    s.dd = vaddvq_f32(sdd);
    s.gd_x = kGrad ? vaddvq_f32(sgx) : 0.0f;
    s.gd_y = kGrad ? vaddvq_f32(sgy) : 0.0f;
    return s;
}


} // namespace

void dis_search_neon(const DisSearchArgs& a, int j0, int j1) {
    dis_search_rows(a, j0, j1, [&](int px0, int py0, float ux, float uy) {
        return patch_sums<true>(a.i0, a.i1, a.gx, a.gy, px0, py0, a.g.p, ux, uy);
    });
}

void dis_propagate_neon(const DisPropagateArgs& a, int j0, int j1) {
    dis_propagate_rows(a, j0, j1, [&](int px0, int py0, float ux, float uy) {
        return patch_sums<false>(a.i0, a.i1, a.i0, a.i0, px0, py0, a.g.p, ux, uy);
    });
}

void dis_kernels_init_neon(DisKernels* t) {
    // The gradient, the search, the propagation, the densification and the refinement's tensor;
    // box_h, box_v (double by contract) and init stay the reference's (dis_dense_neon.cpp says
    // why). None is F16 (the top comment says why).
    t->gradient = dis_gradient_neon;
    t->search = dis_search_neon;
    t->propagate = dis_propagate_neon;
    t->densify = dis_densify_neon;
    t->refine_tensor = dis_refine_tensor_neon;
}

} // namespace oflow
