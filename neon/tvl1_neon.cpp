// TV-L1 inner iteration in NEON, F32: the two fused half-stencils of Zach, Pock and Bischof's
// scheme ("A duality based approach for realtime TV-L1 optical flow", 2007; calc_u: threshold
// + backward divergence + u update; calc_p: forward gradient + dual update; the references
// are in core/ref/tvl1_ref.cpp), four pixels per vector, and their row pipeline
// (tvl1_rows_neon.hpp). Same values as core/ref/tvl1_ref.cpp up to rounding: the same terms in
// the same order, with fused multiply-adds, and the dual update multiplies by one reciprocal per
// denominator instead of dividing twice; the per-row sums of squared changes are summed per
// lane, then across.
// Measured against the reference (tests/neon/neon_kernels.cpp): 1.2e-7 (u), 1.8e-7 (p).
//
// Per row, each of u_row / p_row runs one of two loop instantiations (with / without a row
// above / below), so the inner loops hold no border tests; the pipeline and the band split
// never change which code computes a pixel, hence results independent of the thread count.
//
// Threshold step without branches: with f = lt where rho < -lt g2, -lt where rho > lt g2,
// else -rho / g2 (0 when g2 <= 1e-10), TH = f grad I1w, which is the reference's three cases.
// The division runs in every lane; lanes that do not use it are replaced by selects.
//
// Over-read contract: none. Every load lies in [0, w) of a row the stage reads (rows y and
// y - 1 of p, rows y and y + 1 of u); the left neighbour comes from the previous vector, the
// right one from a load one column on while that column exists, and the vector holding column
// w - 1 is loaded with partial loads.
#include "neon/neon_kernels.hpp"
#include "neon/neon_util.hpp"
#include "neon/tvl1_rows_neon.hpp"

namespace oflow {
namespace {

using namespace neon;

struct URowPtrs {
    float* u1;
    float* u2;
    const float *p11, *p12, *p21, *p22;
    const float *p12u, *p22u; // p12, p22 of the row above; null on row 0 (p(y - 1) = 0)
    const float *ix, *iy, *g2, *rc;
    const float *q, *rc2; // the minor channel (Tvl1Minor); read only by the Two instantiations
};

struct UConsts {
    float32x4_t lt, nlt, theta, gmin;
};

// The threshold factor of one channel (top comment): lt where rho < -lt g, -lt where rho > lt g,
// else -rho / g (0 where g <= gmin).
inline float32x4_t threshold_factor(float32x4_t rho, float32x4_t g, const UConsts& c) {
    const float32x4_t ltg = vmulq_f32(c.lt, g), nrho = vnegq_f32(rho);
    float32x4_t f = keep(vdivq_f32(nrho, g), vcgtq_f32(g, c.gmin));
    f = vbslq_f32(vcgtq_f32(rho, ltg), c.nlt, f); // rho > lt g2
    return vbslq_f32(vcgtq_f32(nrho, ltg), c.lt, f); // rho < -lt g2
}

// calc_u on lanes [0, n) at column x; l11/l21 carry p11/p21 of the previous vector (the
// backward difference's left neighbours). Adds the squared changes of lanes [0, n) to *acc.
// Above: the row has a row above (else its p terms are 0 and p12u/p22u are not read).
// Two: the minor channel a2 = q (-iy, ix), |a2|^2 = q^2 g2 adds its own step (Tvl1Minor).
template <bool Above, bool Two>
inline void u_step(const URowPtrs& r, int x, int n, const UConsts& c, float32x4_t* l11,
                   float32x4_t* l21, float32x4_t* acc) {
    const float32x4_t zero = vdupq_n_f32(0.0f);
    const float32x4_t u1 = load_n(r.u1 + x, n), u2 = load_n(r.u2 + x, n);
    const float32x4_t ix = load_n(r.ix + x, n), iy = load_n(r.iy + x, n), g = load_n(r.g2 + x, n);
    const float32x4_t rho = vfmaq_f32(vfmaq_f32(load_n(r.rc + x, n), ix, u1), iy, u2);
    const float32x4_t f = threshold_factor(rho, g, c);
    float32x4_t s1 = vmulq_f32(f, ix), s2 = vmulq_f32(f, iy);
    if (Two) {
        const float32x4_t q = load_n(r.q + x, n);
        const float32x4_t jx = vnegq_f32(vmulq_f32(q, iy)), jy = vmulq_f32(q, ix);
        const float32x4_t rho2 = vfmaq_f32(vfmaq_f32(load_n(r.rc2 + x, n), jx, u1), jy, u2);
        const float32x4_t f2 = threshold_factor(rho2, vmulq_f32(vmulq_f32(q, q), g), c);
        s1 = vfmaq_f32(s1, f2, jx);
        s2 = vfmaq_f32(s2, f2, jy);
    }
    const float32x4_t p11 = load_n(r.p11 + x, n), p12 = load_n(r.p12 + x, n);
    const float32x4_t p21 = load_n(r.p21 + x, n), p22 = load_n(r.p22 + x, n);
    float32x4_t p12u = zero, p22u = zero;
    if (Above) {
        p12u = load_n(r.p12u + x, n);
        p22u = load_n(r.p22u + x, n);
    }
    const float32x4_t div1 = vsubq_f32(vaddq_f32(vsubq_f32(p11, vextq_f32(*l11, p11, 3)), p12), p12u);
    const float32x4_t div2 = vsubq_f32(vaddq_f32(vsubq_f32(p21, vextq_f32(*l21, p21, 3)), p22), p22u);
    *l11 = p11;
    *l21 = p21;
    const float32x4_t n1 = vfmaq_f32(vaddq_f32(u1, s1), c.theta, div1);
    const float32x4_t n2 = vfmaq_f32(vaddq_f32(u2, s2), c.theta, div2);
    store_n(r.u1 + x, n1, n);
    store_n(r.u2 + x, n2, n);
    const uint32x4_t valid = lanes_below(n);
    const float32x4_t e1 = keep(vsubq_f32(n1, u1), valid), e2 = keep(vsubq_f32(n2, u2), valid);
    *acc = vfmaq_f32(vfmaq_f32(*acc, e1, e1), e2, e2);
}

template <bool Above, bool Two>
float u_row_pass(const URowPtrs r, int w, const UConsts c) { // copies: no reloads after stores
    float32x4_t l11 = vdupq_n_f32(0.0f), l21 = l11, acc = l11;
    int x = 0;
    for (; x + kLanes <= w; x += kLanes) u_step<Above, Two>(r, x, kLanes, c, &l11, &l21, &acc);
    if (x < w) u_step<Above, Two>(r, x, w - x, c, &l11, &l21, &acc);
    return vaddvq_f32(acc);
}

// calc_u of row y, with the minor channel b where b is not null; returns the row's sum of
// |u_new - u_old|^2.
float u_row_any(const Tvl1IterArgs& a, const Tvl1Minor* b, int y) {
    const int w = a.u1.w;
    URowPtrs r;
    r.u1 = a.u1.row(y);
    r.u2 = a.u2.row(y);
    r.p11 = a.p11.row(y);
    r.p12 = a.p12.row(y);
    r.p21 = a.p21.row(y);
    r.p22 = a.p22.row(y);
    r.p12u = y > 0 ? a.p12.row(y - 1) : nullptr;
    r.p22u = y > 0 ? a.p22.row(y - 1) : nullptr;
    r.ix = a.i1wx.row(y);
    r.iy = a.i1wy.row(y);
    r.g2 = a.grad.row(y);
    r.rc = a.rho_c.row(y);
    r.q = b ? b->q.row(y) : nullptr;
    r.rc2 = b ? b->rho_c.row(y) : nullptr;
    UConsts c;
    c.lt = vdupq_n_f32(a.lt);
    c.nlt = vdupq_n_f32(-a.lt);
    c.theta = vdupq_n_f32(a.theta);
    c.gmin = vdupq_n_f32(1e-10f);
    if (b) return y > 0 ? u_row_pass<true, true>(r, w, c) : u_row_pass<false, true>(r, w, c);
    return y > 0 ? u_row_pass<true, false>(r, w, c) : u_row_pass<false, false>(r, w, c);
}

float u_row(const Tvl1IterArgs& a, int y) { return u_row_any(a, nullptr, y); }

struct PRowPtrs {
    const float *u1, *u2;
    const float *u1d, *u2d; // u of the row below; null on the last row (forward difference 0)
    float *p11, *p12, *p21, *p22;
};

// calc_p on lanes [0, n) at column x, given u there and its forward x differences.
// Below: the row has a row below (else the forward y differences are 0 and u1d/u2d unread).
template <bool Below>
inline void p_step(const PRowPtrs& r, int x, int n, float32x4_t u1, float32x4_t u2,
                   float32x4_t u1x, float32x4_t u2x, float32x4_t k) {
    const float32x4_t zero = vdupq_n_f32(0.0f), one = vdupq_n_f32(1.0f);
    float32x4_t u1y = zero, u2y = zero;
    if (Below) {
        u1y = vsubq_f32(load_n(r.u1d + x, n), u1);
        u2y = vsubq_f32(load_n(r.u2d + x, n), u2);
    }
    const float32x4_t ng1 = vfmaq_f32(one, k, vsqrtq_f32(vfmaq_f32(vmulq_f32(u1x, u1x), u1y, u1y)));
    const float32x4_t ng2 = vfmaq_f32(one, k, vsqrtq_f32(vfmaq_f32(vmulq_f32(u2x, u2x), u2y, u2y)));
    // One division per denominator (the divider is the slowest unit), then products: at most
    // one rounding more than the reference's quotients.
    const float32x4_t r1 = vdivq_f32(one, ng1), r2 = vdivq_f32(one, ng2);
    store_n(r.p11 + x, vmulq_f32(vfmaq_f32(load_n(r.p11 + x, n), k, u1x), r1), n);
    store_n(r.p12 + x, vmulq_f32(vfmaq_f32(load_n(r.p12 + x, n), k, u1y), r1), n);
    store_n(r.p21 + x, vmulq_f32(vfmaq_f32(load_n(r.p21 + x, n), k, u2x), r2), n);
    store_n(r.p22 + x, vmulq_f32(vfmaq_f32(load_n(r.p22 + x, n), k, u2y), r2), n);
}

template <bool Below>
void p_row_pass(const PRowPtrs r, int w, float32x4_t k) { // a copy: no reloads after stores
    int x = 0;
    for (; x + kLanes < w; x += kLanes) { // column x + 4 exists: right neighbours in one load
        const float32x4_t u1 = vld1q_f32(r.u1 + x), u2 = vld1q_f32(r.u2 + x);
        p_step<Below>(r, x, kLanes, u1, u2, vsubq_f32(vld1q_f32(r.u1 + x + 1), u1),
                      vsubq_f32(vld1q_f32(r.u2 + x + 1), u2), k);
    }
    // The vector holding column w - 1, whose forward x difference is 0.
    const int n = w - x;
    const uint32x4_t has_right = lanes_below(n - 1);
    const float32x4_t u1 = load_n(r.u1 + x, n), u2 = load_n(r.u2 + x, n);
    p_step<Below>(r, x, n, u1, u2, keep(vsubq_f32(load_n(r.u1 + x + 1, n - 1), u1), has_right),
                  keep(vsubq_f32(load_n(r.u2 + x + 1, n - 1), u2), has_right), k);
}

// calc_p of row y.
void p_row(const Tvl1IterArgs& a, int y) {
    const int w = a.u1.w, h = a.u1.h;
    PRowPtrs r;
    r.u1 = a.u1.row(y);
    r.u2 = a.u2.row(y);
    r.u1d = y + 1 < h ? a.u1.row(y + 1) : nullptr;
    r.u2d = y + 1 < h ? a.u2.row(y + 1) : nullptr;
    r.p11 = a.p11.row(y);
    r.p12 = a.p12.row(y);
    r.p21 = a.p21.row(y);
    r.p22 = a.p22.row(y);
    const float32x4_t k = vdupq_n_f32(a.tau_over_theta);
    if (y + 1 < h)
        p_row_pass<true>(r, w, k);
    else
        p_row_pass<false>(r, w, k);
}

} // namespace

double tvl1_calc_u_neon(const Tvl1IterArgs& a, int y0, int y1) { return calc_u_rows<u_row>(a, y0, y1); }

double tvl1_calc_u2_neon(const Tvl1IterArgs& a, const Tvl1Minor& b, int y0, int y1) {
    double err = 0.0;
    for (int y = y0; y < y1; ++y) err += static_cast<double>(u_row_any(a, &b, y));
    return err;
}

void tvl1_calc_p_neon(const Tvl1IterArgs& a, int y0, int y1) { calc_p_rows<p_row>(a, y0, y1); }

double tvl1_iter_rows_neon(const Tvl1IterArgs& a, int y0, int y1) {
    return iter_rows<u_row, p_row>(a, y0, y1);
}

} // namespace oflow
