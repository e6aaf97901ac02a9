// MULTI_ITER F16x2: temporal blocking with two horizontally adjacent pixels per half2 (the
// thesis's F16x2 packing), register-blocked like tvl1_multi_cuda.cu.
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
// -clamp(rho, -lt|grad I|^2, lt|grad I|^2) / |grad I|^2 equals the reference's three cases
// (1/|grad I|^2 formed once in F32, 0 below the F16 guard of tvl1_iter.cuh). Storage is tvl1_iter.cuh's F16 policy: u float2,
// p1 = (p11, p21), p2 = (p12, p22) and g = (ix, iy) as half2 per pixel.
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

const int kRows = kMultiRowsF16;
const int kMaxWarps = kMultiMaxWarps;
const int kRegion = 64; // columns: two per lane

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 530

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
    __half2 lg;                  // lambda theta |grad I|^2
    __half2 ig;                  // 1 / |grad I|^2, 0 below the guard
    __half2 rho;                 // rho' = residual at u_base
    __half2 bx1, by1, bx2, by2;  // forward gradient of u_base
};

template <bool Interior>
__device__ __forceinline__ void body(const IterArgs<__half2>& a, int launch, int iters, int depth, int x0, int gy0,
                                     __half2 (*s_p2)[2][32], __half2 (*s_du)[2][32]) {
    const int lane = static_cast<int>(threadIdx.x), wid = static_cast<int>(threadIdx.y);
    const int nw = static_cast<int>(blockDim.y);
    const int w = a.w, h = a.h;
    const int xa = x0 + 2 * lane, xb = xa + 1;
    const bool ina = Interior || (xa >= 0 && xa < w), inb = Interior || (xb >= 0 && xb < w);
    // Per-half column masks (1 or 0): p(x-1) exists; the x difference exists.
    const __half2 keep_l = Interior ? __float2half2_rn(1.0f) : __floats2half2_rn(xa > 0 ? 1.0f : 0.0f, xb > 0 ? 1.0f : 0.0f);
    const __half2 keep_r =
        Interior ? __float2half2_rn(1.0f) : __floats2half2_rn(xa + 1 < w ? 1.0f : 0.0f, xb + 1 < w ? 1.0f : 0.0f);
    const float lt = a.lt;
    const __half2 th2 = __float2half2_rn(a.theta), k2 = __float2half2_rn(a.k), one = __float2half2_rn(1.0f);
    const __half2 zero = __float2half2_rn(0.0f);

    PairRow q[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        const int gy = gy0 + r;
        const bool row_in = Interior || (gy >= 0 && gy < h);
        float2 ua = make_float2(0.0f, 0.0f), ub = ua, ura = ua, urb = ua, uda = ua, udb = ua;
        __half2 pa1 = zero, pb1 = zero, pa2 = zero, pb2 = zero, ga = zero, gb = zero;
        float rca = 0.0f, rcb = 0.0f;
        const std::size_t row = static_cast<std::size_t>(gy) * static_cast<std::size_t>(a.pitch);
        const std::size_t down = static_cast<std::size_t>(a.pitch);
        const bool has_down = Interior || gy + 1 < h;
        if (row_in && ina) {
            const std::size_t i = row + static_cast<std::size_t>(xa);
            ua = a.u_in[i];
            pa1 = a.p1_in[i];
            pa2 = a.p2_in[i];
            ga = a.g[i];
            rca = a.rc[i];
            ura = xa + 1 < w ? a.u_in[i + 1] : ua;
            uda = has_down ? a.u_in[i + down] : ua;
        }
        if (row_in && inb) {
            const std::size_t i = row + static_cast<std::size_t>(xb);
            ub = a.u_in[i];
            pb1 = a.p1_in[i];
            pb2 = a.p2_in[i];
            gb = a.g[i];
            rcb = a.rc[i];
            urb = xb + 1 < w ? a.u_in[i + 1] : ub;
            udb = has_down ? a.u_in[i + down] : ub;
        }
        PairRow& s = q[r];
        s.du1 = s.du2 = zero;
        s.p11 = __lows2half2(pa1, pb1);
        s.p21 = __highs2half2(pa1, pb1);
        s.p12 = __lows2half2(pa2, pb2);
        s.p22 = __highs2half2(pa2, pb2);
        s.ix = __lows2half2(ga, gb);
        s.iy = __highs2half2(ga, gb);
        const float2 fa = __half22float2(ga), fb = __half22float2(gb);
        const float g2a = fa.x * fa.x + fa.y * fa.y, g2b = fb.x * fb.x + fb.y * fb.y;
        s.lg = __floats2half2_rn(lt * g2a, lt * g2b);
        const float gmin = Pair<__half2>::kG2Min;
        s.ig = __floats2half2_rn(g2a > gmin ? 1.0f / g2a : 0.0f, g2b > gmin ? 1.0f / g2b : 0.0f);
        s.rho = __floats2half2_rn(rca + fa.x * ua.x + fa.y * ua.y, rcb + fb.x * ub.x + fb.y * ub.y);
        // Forward gradient of u_base with the border rules (0 at x = w-1 and at y = h-1).
        const auto clamp128 = [](float v) { return fminf(fmaxf(v, -128.0f), 128.0f); };
        const bool xa_ok = xa + 1 < w, xb_ok = xb + 1 < w;
        s.bx1 = __floats2half2_rn(xa_ok ? clamp128(ura.x - ua.x) : 0.0f, xb_ok ? clamp128(urb.x - ub.x) : 0.0f);
        s.bx2 = __floats2half2_rn(xa_ok ? clamp128(ura.y - ua.y) : 0.0f, xb_ok ? clamp128(urb.y - ub.y) : 0.0f);
        s.by1 = __floats2half2_rn(has_down ? clamp128(uda.x - ua.x) : 0.0f, has_down ? clamp128(udb.x - ub.x) : 0.0f);
        s.by2 = __floats2half2_rn(has_down ? clamp128(uda.y - ua.y) : 0.0f, has_down ? clamp128(udb.y - ub.y) : 0.0f);
    }

    const bool want_err = a.eps.stop != nullptr;
    const bool col_tile_a = 2 * lane >= depth && 2 * lane < kRegion - depth;
    const bool col_tile_b = 2 * lane + 1 >= depth && 2 * lane + 1 < kRegion - depth;
    float err = 0.0f;
    for (int it = 0; it < iters; ++it) {
        // calc_u needs p2 of the row above the strip.
        s_p2[wid][0][lane] = q[kRows - 1].p12;
        s_p2[wid][1][lane] = q[kRows - 1].p22;
        __syncthreads();
        const __half2 p12_above = wid > 0 ? s_p2[wid - 1][0][lane] : zero;
        const __half2 p22_above = wid > 0 ? s_p2[wid - 1][1][lane] : zero;
        const bool last = want_err && it == iters - 1;
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
            PairRow& s = q[r];
            const int gy = gy0 + r;
            __half2 p11l = left_of(s.p11), p21l = left_of(s.p21);
            __half2 p12u = r > 0 ? q[r - 1].p12 : p12_above;
            __half2 p22u = r > 0 ? q[r - 1].p22 : p22_above;
            if (!Interior) {
                p11l = __hmul2(p11l, keep_l);
                p21l = __hmul2(p21l, keep_l);
                if (gy <= 0) p12u = p22u = zero;
            }
            const __half2 div1 = __hadd2(__hsub2(s.p11, p11l), __hsub2(s.p12, p12u));
            const __half2 div2 = __hadd2(__hsub2(s.p21, p21l), __hsub2(s.p22, p22u));
            const __half2 rho = __hfma2(s.iy, s.du2, __hfma2(s.ix, s.du1, s.rho));
            // The threshold step's coefficient: lt if rho < -lg, -lt if rho > lg, else
            // -rho/|grad I|^2; that is -clamp(rho, -lg, lg)/|grad I|^2, which never overflows
            // (|result| <= lt). Below the guard (ig = 0) it is 0, where the reference gives
            // +-lt |grad I| < 1.5e-3 px when |rho| exceeds lt |grad I|^2.
            const __half2 nlg = __hneg2(s.lg);
            const __half2 m_lo = __hlt2(rho, nlg), m_hi = __hgt2(rho, s.lg);
            __half2 rho_c = __hfma2(m_lo, __hsub2(nlg, rho), rho);
            rho_c = __hfma2(m_hi, __hsub2(s.lg, rho), rho_c);
            const __half2 coef = __hneg2(__hmul2(rho_c, s.ig));
            const __half2 n1 = __hfma2(th2, div1, __hadd2(s.du1, __hmul2(coef, s.ix)));
            const __half2 n2 = __hfma2(th2, div2, __hadd2(s.du2, __hmul2(coef, s.iy)));
            if (last && (Interior || (gy >= 0 && gy < h)) && wid * kRows + r >= depth &&
                wid * kRows + r < nw * kRows - depth) {
                const float2 d1 = __half22float2(__hsub2(n1, s.du1)), d2 = __half22float2(__hsub2(n2, s.du2));
                if (ina && col_tile_a) err += d1.x * d1.x + d2.x * d2.x;
                if (inb && col_tile_b) err += d1.y * d1.y + d2.y * d2.y;
            }
            s.du1 = n1;
            s.du2 = n2;
        }
        // calc_p needs du of the row below the strip.
        s_du[wid][0][lane] = q[0].du1;
        s_du[wid][1][lane] = q[0].du2;
        __syncthreads();
        const __half2 du1_below = wid + 1 < nw ? s_du[wid + 1][0][lane] : q[kRows - 1].du1;
        const __half2 du2_below = wid + 1 < nw ? s_du[wid + 1][1][lane] : q[kRows - 1].du2;
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
            PairRow& s = q[r];
            const int gy = gy0 + r;
            __half2 dx1 = __hsub2(right_of(s.du1), s.du1), dx2 = __hsub2(right_of(s.du2), s.du2);
            __half2 dy1 = __hsub2(r + 1 < kRows ? q[r + 1].du1 : du1_below, s.du1);
            __half2 dy2 = __hsub2(r + 1 < kRows ? q[r + 1].du2 : du2_below, s.du2);
            if (!Interior) {
                dx1 = __hmul2(dx1, keep_r);
                dx2 = __hmul2(dx2, keep_r);
                if (gy + 1 >= h) dy1 = dy2 = zero;
            }
            const __half2 gx1 = __hadd2(s.bx1, dx1), gy1 = __hadd2(s.by1, dy1);
            const __half2 gx2 = __hadd2(s.bx2, dx2), gy2 = __hadd2(s.by2, dy2);
            const __half2 r1 = h2rcp(__hfma2(k2, h2sqrt(__hfma2(gx1, gx1, __hmul2(gy1, gy1))), one));
            const __half2 r2 = h2rcp(__hfma2(k2, h2sqrt(__hfma2(gx2, gx2, __hmul2(gy2, gy2))), one));
            s.p11 = __hmul2(__hfma2(k2, gx1, s.p11), r1);
            s.p12 = __hmul2(__hfma2(k2, gy1, s.p12), r1);
            s.p21 = __hmul2(__hfma2(k2, gx2, s.p21), r2);
            s.p22 = __hmul2(__hfma2(k2, gy2, s.p22), r2);
        }
    }

#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        const int gy = gy0 + r, ry = wid * kRows + r;
        if (!(Interior || (gy >= 0 && gy < h)) || ry < depth || ry >= nw * kRows - depth) continue;
        const PairRow& s = q[r];
        const std::size_t row = static_cast<std::size_t>(gy) * static_cast<std::size_t>(a.pitch);
        const float2 d1 = __half22float2(s.du1), d2 = __half22float2(s.du2);
        if (ina && col_tile_a) {
            const std::size_t i = row + static_cast<std::size_t>(xa);
            const float2 u = a.u_in[i];
            a.u_out[i] = make_float2(u.x + d1.x, u.y + d2.x);
            a.p1_out[i] = __lows2half2(s.p11, s.p21);
            a.p2_out[i] = __lows2half2(s.p12, s.p22);
        }
        if (inb && col_tile_b) {
            const std::size_t i = row + static_cast<std::size_t>(xb);
            const float2 u = a.u_in[i];
            a.u_out[i] = make_float2(u.x + d1.y, u.y + d2.y);
            a.p1_out[i] = __highs2half2(s.p11, s.p21);
            a.p2_out[i] = __highs2half2(s.p12, s.p22);
        }
    }
    if (want_err) epsilon_step(err, a.eps, launch);
}

#endif // __CUDA_ARCH__ >= 530

__global__ void __launch_bounds__(256, 2) k_multi_f16x2(IterArgs<__half2> a, int launch, int iters, int depth) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 530
    if (stopped_before(a.eps, launch)) return;
    __shared__ __half2 s_p2[kMaxWarps][2][32];
    __shared__ __half2 s_du[kMaxWarps][2][32];
    const int nw = static_cast<int>(blockDim.y);
    const int tw = kRegion - 2 * depth, th = nw * kRows - 2 * depth;
    const int x0 = static_cast<int>(blockIdx.x) * tw - depth;
    const int y0 = static_cast<int>(blockIdx.y) * th - depth;
    const int gy0 = y0 + static_cast<int>(threadIdx.y) * kRows;
    const bool interior = x0 >= 1 && x0 + kRegion <= a.w - 1 && y0 >= 1 && y0 + nw * kRows <= a.h - 1;
    if (interior)
        body<true>(a, launch, iters, depth, x0, gy0, s_p2, s_du);
    else
        body<false>(a, launch, iters, depth, x0, gy0, s_p2, s_du);
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
                                            int bh, std::size_t shared, cudaStream_t s) {
    (void)bw; // 32 lanes = 64 columns
    const int tw = kRegion - 2 * depth, th = bh * kRows - 2 * depth;
    const dim3 g(static_cast<unsigned>((a.w + tw - 1) / tw), static_cast<unsigned>((a.h + th - 1) / th));
    k_multi_f16x2<<<g, dim3(32u, static_cast<unsigned>(bh)), shared, s>>>(a, launch, iters, depth);
    return cudaGetLastError();
}

void list_multi_f16x2_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_multi_f16x2), "multi_iter_f16x2");
}

} // namespace cuda
} // namespace oflow
