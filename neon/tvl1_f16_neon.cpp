// TV-L1 inner iteration in NEON with F16 arithmetic (float16x8_t: eight pixels per vector), for
// CPUs with FP16 vector arithmetic (ARMv8.2-A + FP16: Xavier's Carmel, Orin's A78AE). Built only
// where __ARM_FEATURE_FP16_VECTOR_ARITHMETIC is defined; kernel_table_init_neon installs it only
// when the CPU also reports HWCAP_ASIMDHP. Same structure as tvl1_neon.cpp (fused half-stencils,
// row pipeline).
//
// Storage (the choice): u and the warp outputs stay F32 planes, as in every other path (the
// warp, the upsampling and the output read u; the warp is shared with the F32 path). The duals
// p11, p12, p21, p22 are stored as halves in the first w halves (2w bytes) of each row of their
// F32 planes: |p| <= 1, so F16 keeps 11 significant bits of them, and all-zero bytes are still
// p = 0 for the driver's zero fill (core/kernels.hpp). Only this file's three entries touch them.
//
// Arithmetic: F32 where cancellation or accumulation would cost F16 its precision, F16 elsewhere:
//  - rho = rho_c + grad I1w . u in F32 (rho_c ~ -grad I1w . u0 is large where the flow is);
//  - threshold factor, TH, divergence and their sum d = TH + theta div p in F16; u += d in F32
//    (u itself would lose 2^-11 |u| per update in F16) and the error sum over d^2 in F32;
//  - the forward gradient of u in F32 (a difference of close values), then its norm, the
//    denominator and the dual update in F16.
// F16 guards: |grad I1w|^2 is clamped to 65504 (the F16 maximum; the bicubic warp can overshoot
// 255^2 / 2 on adversarial images) and the middle branch needs |grad I1w|^2 > kF16G2Min = 1e-3
// instead of the F32 paths' 1e-10 (GRAD_IS_ZERO of the IPOL implementation: Sanchez Perez,
// Meinhardt-Llopis, Facciolo, "TV-L1 optical flow estimation", 2013; it is far below the F16
// normal minimum 6.1e-5), which drops |TH| <= lambda theta sqrt(1e-3), 1.4e-3 px at the
// defaults, on flat pixels. Where |grad u| >= 256 px per pixel its square
// overflows to inf and that dual update gives p = 0 (finite, |p| <= 1 kept; the reference
// gives a unit vector there): flows whose neighbours differ by 256 px are outside the F16
// path's domain.
//
// Bounds against the F32 reference on one call, in the domain above (tested in
// tests/neon/neon_kernels.cpp): |u16 - u| <= 2^-8 (lt |grad I1w| + theta sum|p terms of div|)
// + lt sqrt(1e-3) + the F32 bound; |p16 - p| <= 3e-3 (measured: u within 6.4e-3 px and 0.29
// of its bound, p within 1.4e-3). Full flow (tests/neon/neon_flow.cpp): mean |F16 - F32| below
// 1e-3 px on the synthetic pairs, the same end-point error to 1e-3 px.
// Over many iterations the difference is not bounded by those (TV-L1 is not contractive per
// pixel); the full-flow check holds F16 to the F32 flow's end-point error plus a margin.
//
// Over-read contract: none. F32 rows are read in [0, w), half rows in [0, w) halves; the last
// (partial) vector of a row goes through partial loads and a stack copy.
#include "neon/neon_kernels.hpp"

#if defined(OF_NEON_F16)

#include "neon/f16_util.hpp"
#include "neon/neon_util.hpp"
#include "neon/tvl1_rows_neon.hpp"

namespace oflow {
namespace {

using namespace neon;

const float kF16Max = 65504.0f;

inline float16_t* half_row(const Plane& p, int y) { return reinterpret_cast<float16_t*>(p.row(y)); }

inline float16x8_t dup16(float v) { return vdupq_n_f16(static_cast<float16_t>(v)); }

/// Halves p[0 .. n) (lanes from n on: 0); reads min(n, 8) halves.
inline float16x8_t load_h(const float16_t* p, int n) {
    if (n >= kLanes16) return vld1q_f16(p);
    float16_t t[kLanes16] = {};
    for (int i = 0; i < n; ++i) t[i] = p[i];
    return vld1q_f16(t);
}
inline void store_h(float16_t* p, float16x8_t v, int n) {
    if (n >= kLanes16) {
        vst1q_f16(p, v);
        return;
    }
    float16_t t[kLanes16];
    vst1q_f16(t, v);
    for (int i = 0; i < n; ++i) p[i] = t[i];
}

inline float16x8_t keep16(float16x8_t v, uint16x8_t m) {
    return vreinterpretq_f16_u16(vandq_u16(vreinterpretq_u16_f16(v), m));
}

struct URow16 {
    float* u1;
    float* u2;
    const float16_t *p11, *p12, *p21, *p22;
    const float16_t *p12u, *p22u; // row above; null on row 0
    const float *ix, *iy, *g2, *rc;
};

struct UConsts16 {
    float16x8_t lt, nlt, theta, gmin, gmax;
};

// calc_u on lanes [0, n) of the eight pixels at column x (see the top comment for what runs in
// which precision). Adds the squared changes of lanes [0, n) to acc[0..1]. Above: as in
// tvl1_neon.cpp (row 0 has no p terms from above).
template <bool Above>
inline void u_step(const URow16& r, int x, int n, const UConsts16& c, float16x8_t* l11,
                   float16x8_t* l21, float32x4_t acc[2]) {
    float32x4_t u1a, u1b, u2a, u2b, ixa, ixb, iya, iyb, ga, gb, rca, rcb;
    load8(r.u1 + x, n, &u1a, &u1b);
    load8(r.u2 + x, n, &u2a, &u2b);
    load8(r.ix + x, n, &ixa, &ixb);
    load8(r.iy + x, n, &iya, &iyb);
    load8(r.g2 + x, n, &ga, &gb);
    load8(r.rc + x, n, &rca, &rcb);
    const float16x8_t rho = narrow(vfmaq_f32(vfmaq_f32(rca, ixa, u1a), iya, u2a),
                                   vfmaq_f32(vfmaq_f32(rcb, ixb, u1b), iyb, u2b));
    const float16x8_t ix = narrow(ixa, ixb), iy = narrow(iya, iyb);
    const float16x8_t g = vminq_f16(narrow(ga, gb), c.gmax);
    const float16x8_t ltg = vmulq_f16(c.lt, g), nrho = vnegq_f16(rho);
    float16x8_t f = keep16(vdivq_f16(nrho, g), vcgtq_f16(g, c.gmin));
    f = vbslq_f16(vcgtq_f16(rho, ltg), c.nlt, f);
    f = vbslq_f16(vcgtq_f16(nrho, ltg), c.lt, f);
    const float16x8_t zero = vdupq_n_f16(0);
    const float16x8_t p11 = load_h(r.p11 + x, n), p12 = load_h(r.p12 + x, n);
    const float16x8_t p21 = load_h(r.p21 + x, n), p22 = load_h(r.p22 + x, n);
    float16x8_t p12u = zero, p22u = zero;
    if (Above) {
        p12u = load_h(r.p12u + x, n);
        p22u = load_h(r.p22u + x, n);
    }
    const float16x8_t div1 = vsubq_f16(vaddq_f16(vsubq_f16(p11, vextq_f16(*l11, p11, 7)), p12), p12u);
    const float16x8_t div2 = vsubq_f16(vaddq_f16(vsubq_f16(p21, vextq_f16(*l21, p21, 7)), p22), p22u);
    *l11 = p11;
    *l21 = p21;
    const float16x8_t d1 = vfmaq_f16(vmulq_f16(f, ix), c.theta, div1);
    const float16x8_t d2 = vfmaq_f16(vmulq_f16(f, iy), c.theta, div2);
    const uint32x4_t va = lanes_below(n), vb = lanes_below(n - kLanes);
    const float32x4_t d1a = keep(widen_lo(d1), va), d1b = keep(widen_hi(d1), vb);
    const float32x4_t d2a = keep(widen_lo(d2), va), d2b = keep(widen_hi(d2), vb);
    store8(r.u1 + x, vaddq_f32(u1a, d1a), vaddq_f32(u1b, d1b), n);
    store8(r.u2 + x, vaddq_f32(u2a, d2a), vaddq_f32(u2b, d2b), n);
    acc[0] = vfmaq_f32(vfmaq_f32(acc[0], d1a, d1a), d2a, d2a);
    acc[1] = vfmaq_f32(vfmaq_f32(acc[1], d1b, d1b), d2b, d2b);
}

template <bool Above>
float u_row_pass(const URow16 r, int w, const UConsts16 c) { // copies: no reloads after stores
    float16x8_t l11 = vdupq_n_f16(0), l21 = l11;
    float32x4_t acc[2] = {vdupq_n_f32(0.0f), vdupq_n_f32(0.0f)};
    int x = 0;
    for (; x + kLanes16 <= w; x += kLanes16) u_step<Above>(r, x, kLanes16, c, &l11, &l21, acc);
    if (x < w) u_step<Above>(r, x, w - x, c, &l11, &l21, acc);
    return vaddvq_f32(vaddq_f32(acc[0], acc[1]));
}

float u_row(const Tvl1IterArgs& a, int y) {
    const int w = a.u1.w;
    URow16 r;
    r.u1 = a.u1.row(y);
    r.u2 = a.u2.row(y);
    r.p11 = half_row(a.p11, y);
    r.p12 = half_row(a.p12, y);
    r.p21 = half_row(a.p21, y);
    r.p22 = half_row(a.p22, y);
    r.p12u = y > 0 ? half_row(a.p12, y - 1) : nullptr;
    r.p22u = y > 0 ? half_row(a.p22, y - 1) : nullptr;
    r.ix = a.i1wx.row(y);
    r.iy = a.i1wy.row(y);
    r.g2 = a.grad.row(y);
    r.rc = a.rho_c.row(y);
    UConsts16 c;
    c.lt = dup16(a.lt);
    c.nlt = dup16(-a.lt);
    c.theta = dup16(a.theta);
    c.gmin = dup16(kF16G2Min);
    c.gmax = dup16(kF16Max);
    return y > 0 ? u_row_pass<true>(r, w, c) : u_row_pass<false>(r, w, c);
}

struct PRow16 {
    const float *u1, *u2;
    const float *u1d, *u2d; // row below; null on the last row
    float16_t *p11, *p12, *p21, *p22;
};

// calc_p on lanes [0, n) at column x, given u there (F32) and its forward x differences (F16).
// Below: as in tvl1_neon.cpp (the last row's forward y differences are 0).
template <bool Below>
inline void p_step(const PRow16& r, int x, int n, float32x4_t u1a, float32x4_t u1b,
                   float32x4_t u2a, float32x4_t u2b, float16x8_t u1x, float16x8_t u2x,
                   float16x8_t k) {
    const float16x8_t one = dup16(1.0f);
    float16x8_t u1y = vdupq_n_f16(0), u2y = u1y;
    if (Below) {
        float32x4_t da, db;
        load8(r.u1d + x, n, &da, &db);
        u1y = narrow(vsubq_f32(da, u1a), vsubq_f32(db, u1b));
        load8(r.u2d + x, n, &da, &db);
        u2y = narrow(vsubq_f32(da, u2a), vsubq_f32(db, u2b));
    }
    // |grad u| >= 256: the squares overflow, ng = inf and p = 0 (top comment).
    const float16x8_t ng1 = vfmaq_f16(one, k, vsqrtq_f16(vfmaq_f16(vmulq_f16(u1x, u1x), u1y, u1y)));
    const float16x8_t ng2 = vfmaq_f16(one, k, vsqrtq_f16(vfmaq_f16(vmulq_f16(u2x, u2x), u2y, u2y)));
    const float16x8_t r1 = vdivq_f16(one, ng1), r2 = vdivq_f16(one, ng2); // as in tvl1_neon.cpp
    store_h(r.p11 + x, vmulq_f16(vfmaq_f16(load_h(r.p11 + x, n), k, u1x), r1), n);
    store_h(r.p12 + x, vmulq_f16(vfmaq_f16(load_h(r.p12 + x, n), k, u1y), r1), n);
    store_h(r.p21 + x, vmulq_f16(vfmaq_f16(load_h(r.p21 + x, n), k, u2x), r2), n);
    store_h(r.p22 + x, vmulq_f16(vfmaq_f16(load_h(r.p22 + x, n), k, u2y), r2), n);
}

template <bool Below>
void p_row_pass(const PRow16 r, int w, float16x8_t k) { // a copy: no reloads after stores
    int x = 0;
    for (; x + kLanes16 < w; x += kLanes16) { // column x + 8 exists: right neighbours in two loads
        const float32x4_t u1a = vld1q_f32(r.u1 + x), u1b = vld1q_f32(r.u1 + x + kLanes);
        const float32x4_t u2a = vld1q_f32(r.u2 + x), u2b = vld1q_f32(r.u2 + x + kLanes);
        const float16x8_t u1x = narrow(vsubq_f32(vld1q_f32(r.u1 + x + 1), u1a),
                                       vsubq_f32(vld1q_f32(r.u1 + x + 1 + kLanes), u1b));
        const float16x8_t u2x = narrow(vsubq_f32(vld1q_f32(r.u2 + x + 1), u2a),
                                       vsubq_f32(vld1q_f32(r.u2 + x + 1 + kLanes), u2b));
        p_step<Below>(r, x, kLanes16, u1a, u1b, u2a, u2b, u1x, u2x, k);
    }
    // The vector holding column w - 1, whose forward x difference is 0.
    const int n = w - x;
    const uint32x4_t ra = lanes_below(n - 1), rb = lanes_below(n - 1 - kLanes);
    float32x4_t u1a, u1b, u2a, u2b, r1a, r1b, r2a, r2b;
    load8(r.u1 + x, n, &u1a, &u1b);
    load8(r.u2 + x, n, &u2a, &u2b);
    load8(r.u1 + x + 1, n - 1, &r1a, &r1b);
    load8(r.u2 + x + 1, n - 1, &r2a, &r2b);
    const float16x8_t u1x = narrow(keep(vsubq_f32(r1a, u1a), ra), keep(vsubq_f32(r1b, u1b), rb));
    const float16x8_t u2x = narrow(keep(vsubq_f32(r2a, u2a), ra), keep(vsubq_f32(r2b, u2b), rb));
    p_step<Below>(r, x, n, u1a, u1b, u2a, u2b, u1x, u2x, k);
}

void p_row(const Tvl1IterArgs& a, int y) {
    const int w = a.u1.w, h = a.u1.h;
    PRow16 r;
    r.u1 = a.u1.row(y);
    r.u2 = a.u2.row(y);
    r.u1d = y + 1 < h ? a.u1.row(y + 1) : nullptr;
    r.u2d = y + 1 < h ? a.u2.row(y + 1) : nullptr;
    r.p11 = half_row(a.p11, y);
    r.p12 = half_row(a.p12, y);
    r.p21 = half_row(a.p21, y);
    r.p22 = half_row(a.p22, y);
    const float16x8_t k = dup16(a.tau_over_theta);
    if (y + 1 < h)
        p_row_pass<true>(r, w, k);
    else
        p_row_pass<false>(r, w, k);
}

} // namespace

double tvl1_calc_u_f16_neon(const Tvl1IterArgs& a, int y0, int y1) {
    return calc_u_rows<u_row>(a, y0, y1);
}

void tvl1_calc_p_f16_neon(const Tvl1IterArgs& a, int y0, int y1) { calc_p_rows<p_row>(a, y0, y1); }

double tvl1_iter_rows_f16_neon(const Tvl1IterArgs& a, int y0, int y1) {
    return iter_rows<u_row, p_row>(a, y0, y1);
}

} // namespace oflow

#endif // OF_NEON_F16
