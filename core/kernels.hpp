// The kernel table: one function pointer per stage, filled with the reference kernels and
// overridden per path (NEON, CUDA) where available and selected (dav1d's *_dsp_init).
//
// Contract for every row kernel: it writes rows [y0, y1) of its output plane(s) only, reads
// whatever rows of its inputs it needs (inputs are never written by the same call), and
// allocates nothing. Borders clamp (replicate) unless the stage says otherwise.
#ifndef OFLOW_CORE_KERNELS_HPP
#define OFLOW_CORE_KERNELS_HPP

#include "core/plane.hpp"
#include "core/robust.hpp"
#include "oflow.h"

namespace oflow {

const int kMaxBlurRadius = 32;

/// Normalised 1-D Gaussian, taps k[0..radius] (symmetric); radius = ceil(3 sigma), capped.
struct Gaussian1D {
    int radius;
    float k[kMaxBlurRadius + 1];
};
Gaussian1D make_gaussian(float sigma);

/// Inputs and outputs of the TV-L1 warp stage (re-linearisation at u).
struct Tvl1WarpArgs {
    Plane i0, i1, i1x, i1y; // current level
    Plane u1, u2;           // flow at which to linearise
    Plane i1w, i1wx, i1wy;  // out: I1, dI1/dx, dI1/dy at x + u (bicubic, clamped)
    Plane grad;             // out: |grad I1w|^2
    Plane rho_c;            // out: I1w - I1wx*u1 - I1wy*u2 - I0
};

/// Inputs and outputs of the two inner-iteration half-stencils of TV-L1 (Zach, Pock, Bischof
/// 2007; core/ref/tvl1_ref.cpp has the steps and cites the sources).
/// The duals are touched only by tvl1_calc_u, tvl1_calc_p and tvl1_iter_rows of one table and
/// zero-filled by the driver at each level, so a path may store them in its own format inside
/// the planes provided all-zero bytes mean p = 0: KernelTable::dual_bytes says which.
struct Tvl1IterArgs {
    Plane u1, u2;               // in/out
    Plane p11, p12, p21, p22;   // in/out duals
    Plane i1wx, i1wy, grad, rho_c;
    float lt;             // lambda * theta
    float theta;
    float tau_over_theta;
};

/// A second linearised channel of TV-L1's threshold step, orthogonal to the first (major) one
/// a1 = (i1wx, i1wy) at every pixel: a2 = q (-a1y, a1x), |a2|^2 = q^2 |a1|^2,
/// rho2(u) = rho_c + a2 . u (OF_ROBUST_CENSUS's minor channel, core/census.hpp; q = 0: none).
/// Being orthogonal, the threshold over both channels splits into one step per channel, exactly.
struct Tvl1Minor {
    Plane q, rho_c;
};

/// Inputs and outputs of OF_ROBUST_CENSUS's per-warp channels (core/census.hpp): i0 the level of
/// frame 0, i1w / gx / gy frame 1 and its gradient warped at (u1, u2); out: TV-L1's two
/// equivalent channels, the major one as (ax, ay), its |.|^2 (grad) and constant part (rho_c),
/// the minor one (orthogonal to it) in `minor` (Tvl1Minor). eta0 / eta1: each frame's eta.
struct CensusArgs {
    Plane i0, i1w, gx, gy, u1, u2;
    Plane ax, ay, grad, rho_c;
    Tvl1Minor minor;
    float eta0, eta1;
};

struct KernelTable {
    /// Image (U8/U16/F32, any stride) to float 0..255.
    void (*convert)(const of_image& src, Plane dst, int y0, int y1);
    /// Separable Gaussian: horizontal pass src -> dst, vertical pass src -> dst.
    void (*blur_h)(Plane src, Plane dst, const Gaussian1D& g, int y0, int y1);
    void (*blur_v)(Plane src, Plane dst, const Gaussian1D& g, int y0, int y1);
    /// Bilinear resampling of a (pre-blurred) plane to dst's size, pixel centres aligned.
    void (*resample)(Plane src, Plane dst, int y0, int y1);
    /// Central differences, clamped at the borders.
    void (*gradient)(Plane src, Plane gx, Plane gy, int y0, int y1);
    void (*tvl1_warp)(const Tvl1WarpArgs& a, int y0, int y1);
    /// out = i1 at x + (u1, u2), bicubic as tvl1_warp (taps clamped); where x + u lies outside
    /// [0, w-1] x [0, h-1], out = i0 (no temporal difference there: an incremental solver's
    /// data term then holds the increment at zero instead of pushing the flow further out).
    void (*warp_image)(Plane i0, Plane i1, Plane u1, Plane u2, Plane out, int y0, int y1);
    /// threshold + divergence + u update; returns sum over the rows of |u_new - u_old|^2.
    double (*tvl1_calc_u)(const Tvl1IterArgs& a, int y0, int y1);
    /// forward gradient + dual update.
    void (*tvl1_calc_p)(const Tvl1IterArgs& a, int y0, int y1);
    /// tvl1_calc_u with a second channel b orthogonal to the first (Tvl1Minor): the threshold
    /// step adds b's own step. Reads F32 duals (a table whose dual_bytes is 2 never runs it: the
    /// census mode runs the F32 iteration).
    double (*tvl1_calc_u2)(const Tvl1IterArgs& a, const Tvl1Minor& b, int y0, int y1);
    /// Bilinear upsampling of a flow component to dst's size, multiplied by `mult`.
    void (*upsample_flow)(Plane src, Plane dst, float mult, int y0, int y1);
    /// Exposure-robust stages (core/robust.hpp). robust_sq: sq = (src - mean)^2;
    /// robust_combine: dst = kRobustMid + kRobustGain (src - mean) / (sqrt(var) + floor) (floor:
    /// kRobustFloor, or level_norm_floor() for OF_ROBUST_LEVEL_NORM); dst may be src.
    void (*robust_sq)(Plane src, Plane mean, Plane sq, int y0, int y1);
    void (*robust_combine)(Plane src, Plane mean, Plane var, Plane dst, float floor, int y0, int y1);
    /// Sum over rows [y0, y1) of gx^2 + gy^2 (central differences, clamped), each row summed
    /// in double from left to right, the rows in order.
    double (*texture_energy)(Plane src, int y0, int y1);
    /// OF_ROBUST_CENSUS (core/census.hpp): census_noise_sum, the rows' part of a level's noise
    /// estimate (sum of |Laplacian-difference| over interior pixels, each row in float, rows
    /// added in double in order: census_noise_sigma() turns the bands' sum into sigma);
    /// census_tvl1, TV-L1's equivalent channel of the rows (CensusArgs). Both the reference's on
    /// every CPU path in this version.
    double (*census_noise_sum)(Plane src, int y0, int y1);
    void (*census_tvl1)(const CensusArgs& a, int y0, int y1);
    /// Adds the rows' counts to bins[exposure_bin(v)] (core/robust.hpp); map_range maps every
    /// value of the rows in place: v = clamp(v, t.lo, t.hi) * t.scale + t.bias (range_map()).
    void (*exposure_hist)(Plane src, unsigned* bins, int y0, int y1);
    void (*map_range)(Plane p, const RangeMap& t, int y0, int y1);
    /// size x size median (size 3 or 5) of src into dst (dst != src), borders clamped.
    void (*median_flow)(Plane src, Plane dst, int size, int y0, int y1);
    /// Optional (nullptr: the driver runs tvl1_calc_u, then tvl1_calc_p, over all rows): both
    /// half-stencils in one pass down rows [y0, y1) (row pipeline). Updates u of rows [y0, y1)
    /// as tvl1_calc_u and p of rows [y0, y1 - 1), plus row y1 - 1 when y1 == h, as
    /// tvl1_calc_p, each p row once the u row below it is new. Reads p of row y0 - 1 (not
    /// updated here) and writes no row outside [y0, y1); the caller updates p of row y1 - 1
    /// with tvl1_calc_p once u of row y1 is new. Returns the tvl1_calc_u sum of the rows.
    double (*tvl1_iter_rows)(const Tvl1IterArgs& a, int y0, int y1);
    /// config.init OF_INIT_DIS's fusion (core/init_dis.hpp); the reference's on every CPU path in
    /// this version. init_area: dst = the mean of src over the block of src pixels that dst pixel
    /// x covers ([floor(x sx), max(that + 1, floor((x + 1) sx))) clipped, sx = src.w / dst.w, the
    /// same in y), times mult. init_cost: diff = cost(a) - cost(b) per pixel, cost(u) = 1 - ZNCC
    /// of the 3x3 patch of i0 around x (clamped) and the same offsets of i1 read bilinearly at
    /// + u(x) (coordinates clamped to the plane), ZNCC = s01 / sqrt((s00 + 1)(s11 + 1)) over the
    /// patches' centred sums. init_box_rows: dst(x) = sum of src over [x - r, x + r] inside the
    /// row. init_choose: where the sum of `rows` over rows [y - r, y + r] inside the plane is
    /// positive, (u1, u2) = (b1, b2); elsewhere u1, u2 are left as they are.
    void (*init_area)(Plane src, Plane dst, float mult, int y0, int y1);
    void (*init_cost)(Plane i0, Plane i1, Plane a1, Plane a2, Plane b1, Plane b2, Plane diff, int y0, int y1);
    void (*init_box_rows)(Plane src, Plane dst, int r, int y0, int y1);
    void (*init_choose)(Plane rows, Plane b1, Plane b2, Plane u1, Plane u2, int r, int y0, int y1);
    /// Bytes per stored dual value in the p planes of the three entries above: 4 (float, the
    /// reference's) or 2 (IEEE half in the first w halves of each row: the NEON F16 path).
    /// Anything that fills or reads the duals itself (tests, the self-test) must honour it.
    std::size_t dual_bytes;
};

/// Fills t with the reference kernels.
void kernel_table_init_ref(KernelTable* t);

} // namespace oflow

#endif
