// MULTI_ITER F16x2: temporal blocking with two horizontally adjacent pixels per half2 (the
// F16x2 packing of the thesis: T. Romera, "Adequation algorithme architecture pour flot optique
// sur GPU embarque", PhD thesis, Sorbonne Universite, 2023), register-blocked like
// tvl1_multi_cuda.cu.
//
// Lane l of warp w holds columns 2l and 2l+1 (pixels A and B) of a 64-column region and rows
// w*R .. w*R+R-1; every half2 holds the same quantity for A and B, so each operation updates two
// pixels. The region's origin is (bx*TW - P, by*TH - P), the tile TW x TH = (64 - 2P) x
// (NW*R - 2P); the exact zone shrinks by one pixel per side per iteration as in the F32 kernel.
//
// Precision: the launch iterates on du = u - u_base, u_base being the F32 flow at the start of
// the launch (u_in, read again when writing u_out = u_base + du in F32), so half precision
// only has to carry the few pixels a launch moves. The data term uses rho = rho' + ix du1 +
// iy du2 with rho' = rc + ix ub1 + iy ub2 (the residual at u_base, formed once in F32), and the
// forward gradient of u is grad(u_base) (formed once in F32, border rules applied, clamped to
// +-128 so that squares stay inside F16) + grad(du). The threshold step is branch-free:
// -clamp(rho / |grad I|^2, -lt, lt) equals the reference's three cases (1/|grad I|^2 formed once
// in F32, 0 below the F16 guard of tvl1_iter.cuh; lt uniform, so no per-pixel bound is held).
// Storage is tvl1_iter.cuh's F16 policy: u float2, p1 = (p11, p21), p2 = (p12, p22) and
// g = (ix, iy) as half2 per pixel.
//
// Rows per thread (4, 6 or 8: Tuning::rows) and warps per block (1..16) are launch parameters;
// every row held costs 14 half2 registers. Each rows count is compiled per launch bound
// (cuda_layout.hpp multi_bound: 128, 256, 512 threads, one block per SM): 4 rows need about
// 155 registers, 6 rows 237, 8 rows 255, so a bound that leaves 128 (512 threads; 256 threads
// on Nano/TX2, 32768 registers per block) spills 6 and 8 rows, and 64 (512 threads on
// Nano/TX2) spills every rows count.
//
// Border rules go by global coordinate: per-half masks for the columns (pixel x = 0: no p(x-1);
// x = w-1: no x difference), per-row tests for y. Interior blocks (the region inside the image
// with a one-pixel margin) skip them. Epsilon: as the F32 kernel, per launch, tile pixels of the
// last iteration.
//
// Half2 arithmetic needs sm_53 (__CUDA_ARCH__ >= 530, every Jetson); elsewhere this file
// compiles an empty kernel body (the F16 variant is refused before launch on such a device:
// cuda::available checks the device's arch against the build).
#include "cuda/cuda_layout.hpp"
#include "cuda/tvl1_iter.cuh"

namespace oflow {
namespace cuda {
namespace {

const int kMaxWarps = kMultiMaxWarpsF16;
const int kRegion = 64; // columns: two per lane

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 530

// -clamp(t, -lt, lt) per half, branch-free and NaN-free for t = +-inf (rho * 1/|grad I|^2 may
// overflow F16 when |grad I|^2 is near the guard; the clamp then gives +-lt, as the reference).
__device__ __forceinline__ __half2 neg_clamp(__half2 t, __half2 lt2) {
#if CUDART_VERSION >= 11000 && __CUDA_ARCH__ >= 800
    return __hneg2(__hmin2(__hmax2(t, __hneg2(lt2)), lt2)); // HMNMX2 (sm_80+)
#else
    // Selects by bit masks built from the comparisons (1.0 = 0x3C00 per half, 0 otherwise):
    // never multiplies an infinity by 0. CUDA 10.2 (JetPack 4.6) has no __hmin2/__hmax2.
    const __half2 nlt = __hneg2(lt2);
    const __half2 lo = __hlt2(t, nlt), hi = __hgt2(t, lt2);
    const unsigned int ml = ((*reinterpret_cast<const unsigned int*>(&lo) >> 13) & 0x00010001u) * 0xffffu;
    const unsigned int mh = ((*reinterpret_cast<const unsigned int*>(&hi) >> 13) & 0x00010001u) * 0xffffu;
    const unsigned int tb = *reinterpret_cast<const unsigned int*>(&t);
    const unsigned int lb = *reinterpret_cast<const unsigned int*>(&lt2);
    const unsigned int nb = *reinterpret_cast<const unsigned int*>(&nlt);
    const unsigned int r = (tb & ~(ml | mh)) | (nb & ml) | (lb & mh);
    return __hneg2(*reinterpret_cast<const __half2*>(&r));
#endif
}

// (own B, next lane's A): the right neighbours of (A, B).
__device__ __forceinline__ __half2 right_of(__half2 v) {
    const __half2 n = __shfl_down_sync(0xffffffffu, v, 1);
    return __halves2half2(__high2half(v), __low2half(n));
}
// (previous lane's B, own A): the left neighbours of (A, B).
__device__ __forceinline__ __half2 left_of(__half2 v) {
    const __half2 p = __shfl_up_sync(0xffffffffu, v, 1);
    return __halves2half2(__high2half(p), __low2half(v));
}

struct PairRow {
    __half2 du1, du2;            // u - u_base
    __half2 p11, p21, p12, p22;  // duals
    __half2 ix, iy;              // warped gradient
    __half2 ig;                  // 1 / |grad I|^2, 0 below the guard
    __half2 rho;                 // rho' = residual at u_base
    __half2 bx1, by1, bx2, by2;  // forward gradient of u_base
};

// The rows exchanged between the warps of a block (static: generic pointers to shared memory
// would turn the exchange into generic loads).
__shared__ __half2 s_p2[kMaxWarps][2][32]; // p2 of each warp's last row (calc_u of the warp below)
__shared__ __half2 s_du[kMaxWarps][2][32]; // du of each warp's first row (calc_p of the warp above)

// Bare MUFU square root and reciprocal (flush-to-zero approximations, 2 ulp in F32): far more
// precise than the half result they feed, without the special-case code of sqrtf and 1/x.
__device__ __forceinline__ float sqrt_approx(float x) {
    float r;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}
__device__ __forceinline__ float rcp_approx(float x) {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

// 1 / (1 + k |g|) for both halves, |g|^2 = s >= 0: square root and reciprocal in F32 (MUFU), one
// pack back to half2.
__device__ __forceinline__ __half2 dual_scale(__half2 s, float k) {
    const float2 f = __half22float2(s);
    return __floats2half2_rn(rcp_approx(fmaf(k, sqrt_approx(f.x), 1.0f)), rcp_approx(fmaf(k, sqrt_approx(f.y), 1.0f)));
}

// Per-thread constants of the iteration loop.
struct Lane {
    int lane, wid, nw, gy0, h, depth;
    bool ina, inb, col_tile_a, col_tile_b;
    __half2 keep_l, keep_r, lt2, th2;
    float k;
};

// One iteration (calc_u, then calc_p) on the thread's rows. Err: accumulate |du_new - du_old|^2
// over the tile pixels (the epsilon test, last iteration of a launch only).
template <int kRows, bool Interior, bool Err>
__device__ __forceinline__ void iteration(PairRow (&q)[kRows], const Lane& c, float* err) {
    const int lane = c.lane, wid = c.wid, nw = c.nw, gy0 = c.gy0, h = c.h;
    const __half2 zero = __float2half2_rn(0.0f);
    // calc_u needs p2 of the row above the strip.
    s_p2[wid][0][lane] = q[kRows - 1].p12;
    s_p2[wid][1][lane] = q[kRows - 1].p22;
    __syncthreads();
    const __half2 p12_above = wid > 0 ? s_p2[wid - 1][0][lane] : zero;
    const __half2 p22_above = wid > 0 ? s_p2[wid - 1][1][lane] : zero;
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        PairRow& s = q[r];
        const int gy = gy0 + r;
        __half2 p11l = left_of(s.p11), p21l = left_of(s.p21);
        __half2 p12u = r > 0 ? q[r - 1].p12 : p12_above;
        __half2 p22u = r > 0 ? q[r - 1].p22 : p22_above;
        if (!Interior) {
            p11l = __hmul2(p11l, c.keep_l);
            p21l = __hmul2(p21l, c.keep_l);
            if (gy <= 0) p12u = p22u = zero;
        }
        const __half2 div1 = __hadd2(__hsub2(s.p11, p11l), __hsub2(s.p12, p12u));
        const __half2 div2 = __hadd2(__hsub2(s.p21, p21l), __hsub2(s.p22, p22u));
        const __half2 rho = __hfma2(s.iy, s.du2, __hfma2(s.ix, s.du1, s.rho));
        // The threshold step's coefficient: lt if rho < -lt |grad I|^2, -lt if rho > lt |grad I|^2,
        // else -rho/|grad I|^2; that is -clamp(rho/|grad I|^2, -lt, lt), with lt uniform (no
        // per-pixel bound held). Below the guard (ig = 0) it is 0, where the reference gives
        // +-lt |grad I| < 1.5e-3 px when |rho| exceeds lt |grad I|^2.
        const __half2 coef = neg_clamp(__hmul2(rho, s.ig), c.lt2);
        const __half2 n1 = __hfma2(c.th2, div1, __hfma2(coef, s.ix, s.du1));
        const __half2 n2 = __hfma2(c.th2, div2, __hfma2(coef, s.iy, s.du2));
        if (Err && (Interior || (gy >= 0 && gy < h)) && wid * kRows + r >= c.depth &&
            wid * kRows + r < nw * kRows - c.depth) {
            const float2 d1 = __half22float2(__hsub2(n1, s.du1)), d2 = __half22float2(__hsub2(n2, s.du2));
            if (c.ina && c.col_tile_a) *err += d1.x * d1.x + d2.x * d2.x;
            if (c.inb && c.col_tile_b) *err += d1.y * d1.y + d2.y * d2.y;
        }
        s.du1 = n1;
        s.du2 = n2;
    }
    // calc_p needs du of the row below the strip.
    s_du[wid][0][lane] = q[0].du1;
    s_du[wid][1][lane] = q[0].du2;
    __syncthreads();
    // Load, then select (a select of addresses would put q on the stack and load generically).
    const int below = wid + 1 < nw ? wid + 1 : wid;
    const __half2 s1 = s_du[below][0][lane], s2 = s_du[below][1][lane];
    const __half2 du1_below = wid + 1 < nw ? s1 : q[kRows - 1].du1;
    const __half2 du2_below = wid + 1 < nw ? s2 : q[kRows - 1].du2;
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        PairRow& s = q[r];
        const int gy = gy0 + r;
        __half2 dx1 = __hsub2(right_of(s.du1), s.du1), dx2 = __hsub2(right_of(s.du2), s.du2);
        __half2 dy1 = __hsub2(r + 1 < kRows ? q[r + 1].du1 : du1_below, s.du1);
        __half2 dy2 = __hsub2(r + 1 < kRows ? q[r + 1].du2 : du2_below, s.du2);
        if (!Interior) {
            dx1 = __hmul2(dx1, c.keep_r);
            dx2 = __hmul2(dx2, c.keep_r);
            if (gy + 1 >= h) dy1 = dy2 = zero;
        }
        const __half2 gx1 = __hadd2(s.bx1, dx1), gy1 = __hadd2(s.by1, dy1);
        const __half2 gx2 = __hadd2(s.bx2, dx2), gy2 = __hadd2(s.by2, dy2);
        const __half2 r1 = dual_scale(__hfma2(gx1, gx1, __hmul2(gy1, gy1)), c.k);
        const __half2 r2 = dual_scale(__hfma2(gx2, gx2, __hmul2(gy2, gy2)), c.k);
        const __half2 k2 = __float2half2_rn(c.k);
        s.p11 = __hmul2(__hfma2(k2, gx1, s.p11), r1);
        s.p12 = __hmul2(__hfma2(k2, gy1, s.p12), r1);
        s.p21 = __hmul2(__hfma2(k2, gx2, s.p21), r2);
        s.p22 = __hmul2(__hfma2(k2, gy2, s.p22), r2);
    }
}

template <int kRows, bool Interior>
__device__ __forceinline__ void body(const IterArgs<__half2>& a, int launch, int iters, int depth, int x0, int gy0) {
    const int lane = static_cast<int>(threadIdx.x), wid = static_cast<int>(threadIdx.y);
    const int nw = static_cast<int>(blockDim.y);
    const int w = a.w, h = a.h;
    const int xa = x0 + 2 * lane, xb = xa + 1;
    const bool ina = Interior || (xa >= 0 && xa < w), inb = Interior || (xb >= 0 && xb < w);
    const __half2 zero = __float2half2_rn(0.0f);
    Lane c;
    c.lane = lane;
    c.wid = wid;
    c.nw = nw;
    c.gy0 = gy0;
    c.h = h;
    c.depth = depth;
    c.ina = ina;
    c.inb = inb;
    c.col_tile_a = 2 * lane >= depth && 2 * lane < kRegion - depth;
    c.col_tile_b = 2 * lane + 1 >= depth && 2 * lane + 1 < kRegion - depth;
    // Per-half column masks (1 or 0): p(x-1) exists; the x difference exists.
    c.keep_l = Interior ? __float2half2_rn(1.0f) : __floats2half2_rn(xa > 0 ? 1.0f : 0.0f, xb > 0 ? 1.0f : 0.0f);
    c.keep_r = Interior ? __float2half2_rn(1.0f) : __floats2half2_rn(xa + 1 < w ? 1.0f : 0.0f, xb + 1 < w ? 1.0f : 0.0f);
    c.lt2 = __float2half2_rn(a.lt);
    c.th2 = __float2half2_rn(a.theta);
    c.k = a.k;

    // Prologue. Loads first, all rows at once and without branches (coordinates clamped into the
    // image, out-of-image pixels masked to 0 afterwards), so their latencies overlap; the right
    // and lower neighbours of u come from the lane's own pixels, the next lane (shuffle) and the
    // next row, and only the row below the strip is loaded again.
    const int xca = min(max(xa, 0), w - 1), xcb = min(max(xb, 0), w - 1);
    float2 ua[kRows + 1], ub[kRows + 1];
    __half2 pa1[kRows], pb1[kRows], pa2[kRows], pb2[kRows], ga[kRows], gb[kRows];
    float rca[kRows], rcb[kRows];
    {
        const int gyc = min(max(gy0 + kRows, 0), h - 1);
        const std::size_t row = static_cast<std::size_t>(gyc) * static_cast<std::size_t>(a.pitch);
        ua[kRows] = a.u_in[row + static_cast<std::size_t>(xca)];
        ub[kRows] = a.u_in[row + static_cast<std::size_t>(xcb)];
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        const int gyc = min(max(gy0 + r, 0), h - 1);
        const std::size_t row = static_cast<std::size_t>(gyc) * static_cast<std::size_t>(a.pitch);
        const std::size_t ia = row + static_cast<std::size_t>(xca), ib = row + static_cast<std::size_t>(xcb);
        ua[r] = a.u_in[ia];
        ub[r] = a.u_in[ib];
        pa1[r] = a.p1_in[ia];
        pb1[r] = a.p1_in[ib];
        pa2[r] = a.p2_in[ia];
        pb2[r] = a.p2_in[ib];
        ga[r] = a.g[ia];
        gb[r] = a.g[ib];
        rca[r] = a.rc[ia];
        rcb[r] = a.rc[ib];
    }
    PairRow q[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        const int gy = gy0 + r;
        const bool row_in = Interior || (gy >= 0 && gy < h);
        const bool in_a = row_in && ina, in_b = row_in && inb;
        const bool has_down = Interior || gy + 1 < h;
        const float2 zero2 = make_float2(0.0f, 0.0f);
        const float2 u_a = in_a ? ua[r] : zero2, u_b = in_b ? ub[r] : zero2;
        const __half2 g_a = in_a ? ga[r] : zero, g_b = in_b ? gb[r] : zero;
        const __half2 p1a = in_a ? pa1[r] : zero, p1b = in_b ? pb1[r] : zero;
        const __half2 p2a = in_a ? pa2[r] : zero, p2b = in_b ? pb2[r] : zero;
        const float rc_a = in_a ? rca[r] : 0.0f, rc_b = in_b ? rcb[r] : 0.0f;
        // Right neighbours: of A, the lane's own B; of B, the next lane's A (lane 31: a halo
        // column, inexact from the first iteration like its du differences). Lower: next row.
        const float2 nxt = make_float2(__shfl_down_sync(0xffffffffu, ua[r].x, 1), __shfl_down_sync(0xffffffffu, ua[r].y, 1));
        const float2 ur_a = ub[r], ur_b = nxt, ud_a = ua[r + 1], ud_b = ub[r + 1];
        PairRow& s = q[r];
        s.du1 = s.du2 = zero;
        s.p11 = __lows2half2(p1a, p1b);
        s.p21 = __highs2half2(p1a, p1b);
        s.p12 = __lows2half2(p2a, p2b);
        s.p22 = __highs2half2(p2a, p2b);
        s.ix = __lows2half2(g_a, g_b);
        s.iy = __highs2half2(g_a, g_b);
        const float2 fa = __half22float2(g_a), fb = __half22float2(g_b);
        const float g2a = fa.x * fa.x + fa.y * fa.y, g2b = fb.x * fb.x + fb.y * fb.y;
        const float gmin = Pair<__half2>::kG2Min;
        s.ig = __floats2half2_rn(g2a > gmin ? 1.0f / g2a : 0.0f, g2b > gmin ? 1.0f / g2b : 0.0f);
        s.rho = __floats2half2_rn(rc_a + fa.x * u_a.x + fa.y * u_a.y, rc_b + fb.x * u_b.x + fb.y * u_b.y);
        // Forward gradient of u_base with the border rules (0 at x = w-1 and at y = h-1; 0 for
        // pixels outside the image).
        const auto clamp128 = [](float v) { return fminf(fmaxf(v, -128.0f), 128.0f); };
        const bool xa_ok = in_a && xa + 1 < w, xb_ok = in_b && xb + 1 < w;
        const bool ya_ok = in_a && has_down, yb_ok = in_b && has_down;
        s.bx1 = __floats2half2_rn(xa_ok ? clamp128(ur_a.x - u_a.x) : 0.0f, xb_ok ? clamp128(ur_b.x - u_b.x) : 0.0f);
        s.bx2 = __floats2half2_rn(xa_ok ? clamp128(ur_a.y - u_a.y) : 0.0f, xb_ok ? clamp128(ur_b.y - u_b.y) : 0.0f);
        s.by1 = __floats2half2_rn(ya_ok ? clamp128(ud_a.x - u_a.x) : 0.0f, yb_ok ? clamp128(ud_b.x - u_b.x) : 0.0f);
        s.by2 = __floats2half2_rn(ya_ok ? clamp128(ud_a.y - u_a.y) : 0.0f, yb_ok ? clamp128(ud_b.y - u_b.y) : 0.0f);
    }

    // All iterations but the last without the epsilon sums; the last with them when asked
    // (iters >= 1: the launcher never asks for a launch without iterations).
    float err = 0.0f;
    for (int it = 0; it + 1 < iters; ++it) iteration<kRows, Interior, false>(q, c, &err);
    if (a.eps.stop != nullptr)
        iteration<kRows, Interior, true>(q, c, &err);
    else
        iteration<kRows, Interior, false>(q, c, &err);

    // Epilogue: u_out = u_base + du in F32 on the tile. u_base is read again (all rows' loads
    // before any store: u_out may not alias u_in, but the compiler cannot know that).
    float2 uba[kRows], ubb[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        const int gyc = min(max(gy0 + r, 0), h - 1);
        const std::size_t row = static_cast<std::size_t>(gyc) * static_cast<std::size_t>(a.pitch);
        uba[r] = a.u_in[row + static_cast<std::size_t>(xca)];
        ubb[r] = a.u_in[row + static_cast<std::size_t>(xcb)];
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        const int gy = gy0 + r, ry = wid * kRows + r;
        if (!(Interior || (gy >= 0 && gy < h)) || ry < depth || ry >= nw * kRows - depth) continue;
        const PairRow& s = q[r];
        const std::size_t row = static_cast<std::size_t>(gy) * static_cast<std::size_t>(a.pitch);
        const float2 d1 = __half22float2(s.du1), d2 = __half22float2(s.du2);
        if (ina && c.col_tile_a) {
            const std::size_t i = row + static_cast<std::size_t>(xa);
            a.u_out[i] = make_float2(uba[r].x + d1.x, uba[r].y + d2.x);
            a.p1_out[i] = __lows2half2(s.p11, s.p21);
            a.p2_out[i] = __lows2half2(s.p12, s.p22);
        }
        if (inb && c.col_tile_b) {
            const std::size_t i = row + static_cast<std::size_t>(xb);
            a.u_out[i] = make_float2(ubb[r].x + d1.y, ubb[r].y + d2.y);
            a.p1_out[i] = __highs2half2(s.p11, s.p21);
            a.p2_out[i] = __highs2half2(s.p12, s.p22);
        }
    }
    if (a.eps.stop != nullptr) epsilon_step(err, a.eps, launch);
}

#endif // __CUDA_ARCH__ >= 530

// Launch bound B = 128, 256 or 512 threads, one block per SM (header comment).
template <int kRows, int B>
__global__ void __launch_bounds__(B, 1) k_multi_f16x2(IterArgs<__half2> a, int launch, int iters, int depth) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 530
    if (stopped_before(a.eps, launch)) return;
    const int nw = static_cast<int>(blockDim.y);
    const int tw = kRegion - 2 * depth, th = nw * kRows - 2 * depth;
    const int x0 = static_cast<int>(blockIdx.x) * tw - depth;
    const int y0 = static_cast<int>(blockIdx.y) * th - depth;
    const int gy0 = y0 + static_cast<int>(threadIdx.y) * kRows;
    const bool interior = x0 >= 1 && x0 + kRegion <= a.w - 1 && y0 >= 1 && y0 + nw * kRows <= a.h - 1;
    if (interior)
        body<kRows, true>(a, launch, iters, depth, x0, gy0);
    else
        body<kRows, false>(a, launch, iters, depth, x0, gy0);
#else
    (void)a;
    (void)launch;
    (void)iters;
    (void)depth;
#endif
}

} // namespace

template <>
cudaError_t launch_multi_iteration<__half2>(const IterArgs<__half2>& a, int launch, int iters, int depth, int bw,
                                            int bh, int rows, int bound, std::size_t shared, cudaStream_t s) {
    (void)bw; // 32 lanes = 64 columns
    const int tw = kRegion - 2 * depth, th = bh * rows - 2 * depth;
    const dim3 g(static_cast<unsigned>((a.w + tw - 1) / tw), static_cast<unsigned>((a.h + th - 1) / th));
    const dim3 b(32u, static_cast<unsigned>(bh));
#define OF_F16X2_CASE(R, B)                                                                                    \
    case R * 1000 + B: k_multi_f16x2<R, B><<<g, b, shared, s>>>(a, launch, iters, depth); break;
    switch (rows * 1000 + bound) { // resolve_tuning admits rows 4, 6, 8 and bounds 128, 256, 512 only
    OF_F16X2_CASE(4, 128) OF_F16X2_CASE(4, 256) OF_F16X2_CASE(4, 512)
    OF_F16X2_CASE(6, 128) OF_F16X2_CASE(6, 256) OF_F16X2_CASE(6, 512)
    OF_F16X2_CASE(8, 128) OF_F16X2_CASE(8, 256) OF_F16X2_CASE(8, 512)
    default: return cudaErrorInvalidValue;
    }
#undef OF_F16X2_CASE
    return cudaGetLastError();
}

void list_multi_f16x2_kernels(KernelList* l) {
#define OF_F16X2_LIST(R, B) l->add(reinterpret_cast<const void*>(&k_multi_f16x2<R, B>), "multi_iter_f16x2_r" #R "_b" #B);
    OF_F16X2_LIST(4, 128) OF_F16X2_LIST(4, 256) OF_F16X2_LIST(4, 512)
    OF_F16X2_LIST(6, 128) OF_F16X2_LIST(6, 256) OF_F16X2_LIST(6, 512)
    OF_F16X2_LIST(8, 128) OF_F16X2_LIST(8, 256) OF_F16X2_LIST(8, 512)
#undef OF_F16X2_LIST
}

} // namespace cuda
} // namespace oflow
