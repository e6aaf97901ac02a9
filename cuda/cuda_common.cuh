// Device-side building blocks shared by the kernel files: plane views, block reductions, the
// epsilon stop test (device-side, no host round trip) and the F32 / F16x2 storage policies.
//
// Architecture contract (JetPack 4.6 = CUDA 10.2, sm_53/62/72 up to sm_90): C++14, no
// cooperative groups, no double atomics, half2 arithmetic only under __CUDA_ARCH__ >= 530 with
// a float fallback, warp shuffles with explicit masks.
#ifndef OFLOW_CUDA_CUDA_COMMON_CUH
#define OFLOW_CUDA_CUDA_COMMON_CUH

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace oflow {
namespace cuda {

/// A pitched device plane: pitch in elements (cuda_layout.hpp: dev_pitch).
template <class T>
struct DPlane {
    T* p;
    int w, h;
    int pitch;
    __host__ __device__ T* row(int y) const { return p + static_cast<std::ptrdiff_t>(y) * pitch; }
    __host__ __device__ std::size_t index(int x, int y) const {
        return static_cast<std::size_t>(y) * static_cast<std::size_t>(pitch) + static_cast<std::size_t>(x);
    }
};

__device__ __forceinline__ int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

/// Pyramid elements (DevLayout::pyr_elem): F32, or F16 storage where the solve is F16 (TV-L1
/// F16). Kernels that read or write a pyramid level take its element type P and compute in
/// float: pix() widens what they load, store_pix<P>() rounds what they store (to nearest; F16
/// saturates at +-65504, the largest half: an F32 frame's pixels may reach 1e6, kMaxF32Pixel).
__device__ __forceinline__ float pix(float v) { return v; }
__device__ __forceinline__ float pix(__half v) { return __half2float(v); }
template <class P>
__device__ __forceinline__ P store_pix(float v);
template <>
__device__ __forceinline__ float store_pix<float>(float v) { return v; }
template <>
__device__ __forceinline__ __half store_pix<__half>(float v) {
    return __float2half_rn(fminf(fmaxf(v, -65504.0f), 65504.0f));
}

/// Keys cubic weights (a = -0.5) of the four taps at fraction t, the reference's (warp_ref.cpp)
/// operations in its order.
__device__ __forceinline__ void cubic_weights(float t, float w[4]) {
    w[0] = ((-0.5f * t + 1.0f) * t - 0.5f) * t;
    w[1] = (1.5f * t - 2.5f) * t * t + 1.0f;
    w[2] = ((-1.5f * t + 2.0f) * t + 0.5f) * t;
    w[3] = (0.5f * t - 0.5f) * t * t;
}

/// The 4x4 bicubic taps of position (x + u.x, y + u.y) in a w x h plane (warp_ref.cpp
/// bicubic_taps, the same operations): weights, clamped columns, the first row iy - 1 (clamp each
/// row), and whether the position lies inside the plane. Positions are clamped to +-1e6 first, so
/// the int conversions are defined.
struct BicubicTaps {
    float wx[4], wy[4];
    int cx[4];
    int iy;
    bool inside;
};
__device__ __forceinline__ BicubicTaps bicubic_taps(int x, int y, float2 u, int w, int h) {
    const float lim = 1e6f;
    float px = static_cast<float>(x) + u.x, py = static_cast<float>(y) + u.y;
    px = px < -lim ? -lim : (px > lim ? lim : px);
    py = py < -lim ? -lim : (py > lim ? lim : py);
    BicubicTaps t;
    const float fx = floorf(px), fy = floorf(py);
    const int ix = static_cast<int>(fx);
    t.iy = static_cast<int>(fy);
    cubic_weights(px - fx, t.wx);
    cubic_weights(py - fy, t.wy);
    for (int i = 0; i < 4; ++i) t.cx[i] = clampi(ix - 1 + i, 0, w - 1);
    t.inside = px >= 0.0f && px <= static_cast<float>(w - 1) && py >= 0.0f && py <= static_cast<float>(h - 1);
    return t;
}

__device__ __forceinline__ int thread_rank() {
    return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
__device__ __forceinline__ int block_threads() {
    return static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
}

/// Sum of v over the block, valid in thread 0. Any block size (partial last warp included);
/// the order of additions depends only on the block size, so results are deterministic.
/// `sh` is 32 elements of shared memory owned by this call site.
template <class T>
__device__ T block_sum(T v, T* sh) {
    const int nt = block_threads(), tid = thread_rank();
    const int lane = tid & 31, warp = tid >> 5;
    int wsize = nt - (warp << 5);
    wsize = wsize < 32 ? wsize : 32;
    unsigned mask = wsize == 32 ? 0xffffffffu : ((1u << wsize) - 1u);
    for (int off = 16; off > 0; off >>= 1) {
        const T o = __shfl_down_sync(mask, v, off);
        if (lane + off < wsize) v += o;
    }
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    const int nw = (nt + 31) >> 5;
    if (warp == 0) {
        v = lane < nw ? sh[lane] : T(0);
        for (int off = 16; off > 0; off >>= 1) {
            const T o = __shfl_down_sync(mask, v, off);
            if (lane + off < wsize) v += o;
        }
    }
    return v;
}

/// Epsilon stopping on the device: stop a warp when mean |du|^2 <= epsilon^2, the stopping rule
/// of the IPOL implementation of TV-L1 (Sanchez Perez, Meinhardt-Llopis, Facciolo, "TV-L1
/// optical flow estimation", 2013). stop == nullptr: epsilon is 0, no reduction at all.
struct EpsArgs {
    int* stop;          // Ctrl::stop[slot]: launch index after which the warp stopped
    unsigned* counter;  // Ctrl::counter
    float* partials;    // one per block of the launch
    double thresh;      // epsilon^2 * pixels of the level
};

/// Every thread of every block of launch `launch` calls this once, after its last global write,
/// with its own sum of |u_new - u_old|^2. Each block stores its partial sum; the last block to
/// finish (threadfence + atomicInc, which also resets the counter to 0) adds the partials in a
/// fixed order (then the `extra_n` partials of an earlier launch of the same step, `extra`, when
/// given: the red half-sweep's of a red-black SOR iteration) and, when the mean is <= epsilon^2,
/// records `launch` in *stop: launches with a larger index then return at once. Works on every
/// architecture (no grid sync, no double atomics) and is deterministic.
__device__ __forceinline__ void epsilon_step(float err, const EpsArgs& e, int launch, const float* extra = nullptr,
                                             unsigned extra_n = 0) {
    __shared__ float shf[32];
    __shared__ double shd[32];
    __shared__ int last;
    const float s = block_sum(err, shf);
    const int tid = thread_rank(), nt = block_threads();
    const unsigned nb = gridDim.x * gridDim.y;
    if (tid == 0) {
        e.partials[blockIdx.x + gridDim.x * blockIdx.y] = s;
        __threadfence();
        const unsigned t = atomicInc(e.counter, nb - 1);
        last = t == nb - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    const volatile float* p = e.partials;
    double acc = 0.0;
    for (unsigned i = static_cast<unsigned>(tid); i < nb; i += static_cast<unsigned>(nt))
        acc += static_cast<double>(p[i]);
    const volatile float* q = extra;
    for (unsigned i = static_cast<unsigned>(tid); i < extra_n; i += static_cast<unsigned>(nt))
        acc += static_cast<double>(q[i]);
    acc = block_sum(acc, shd);
    if (tid == 0 && acc <= e.thresh) *e.stop = launch;
}

/// The block's sum of err into partials[block] (thread 0), for a launch whose epsilon decision a
/// later launch makes (epsilon_step's `extra`). Every thread calls it once, after its last write.
__device__ __forceinline__ void block_partial(float err, float* partials) {
    __shared__ float shf[32];
    const float s = block_sum(err, shf);
    if (thread_rank() == 0) partials[blockIdx.x + gridDim.x * blockIdx.y] = s;
}

/// True when the warp this launch belongs to has already stopped (uniform over the grid).
__device__ __forceinline__ bool stopped_before(const EpsArgs& e, int launch) {
    return e.stop != nullptr && *e.stop < launch;
}

// ---- storage policies ----------------------------------------------------------------------
// Pairs hold the two flow components of one quantity: u = (u1, u2), p1 = (p11, p21),
// p2 = (p12, p22), g = (I1wx, I1wy). F32 stores float2; F16 stores __half2 for the duals and
// the warped gradient and computes the divergence and the dual update in half2 arithmetic;
// u, rho_c and the threshold step stay F32 (u accumulates small steps; rho_c cancels large
// terms). The pyramids are F16 too (DevLayout::pyr_elem; the warp widens what it samples).

template <class T2>
struct Pair;

template <>
struct Pair<float2> {
    static constexpr bool kHalf = false;
    /// |grad I1w|^2 below which the threshold step is 0 (reference: 1e-10).
    static constexpr float kG2Min = 1e-10f;
    __device__ static float2 zero() { return make_float2(0.0f, 0.0f); }
    __device__ static float2 to_f2(float2 v) { return v; }
    __device__ static float2 from_f2(float2 v) { return v; }
    /// div p_d = p_d1 - p_d1(x-1) + p_d2 - p_d2(y-1), in the reference's order.
    __device__ static float2 div(float2 p1, float2 p1l, float2 p2, float2 p2u) {
        return make_float2(((p1.x - p1l.x) + p2.x) - p2u.x, ((p1.y - p1l.y) + p2.y) - p2u.y);
    }
    /// p_d = (p_d + k grad u_d) / (1 + k |grad u_d|); gx = (u1x, u2x), gy = (u1y, u2y).
    __device__ static void dual(float2& p1, float2& p2, float2 gx, float2 gy, float k) {
        const float ng1 = 1.0f + k * sqrtf(gx.x * gx.x + gy.x * gy.x);
        const float ng2 = 1.0f + k * sqrtf(gx.y * gx.y + gy.y * gy.y);
        p1.x = (p1.x + k * gx.x) / ng1;
        p2.x = (p2.x + k * gy.x) / ng1;
        p1.y = (p1.y + k * gx.y) / ng2;
        p2.y = (p2.y + k * gy.y) / ng2;
    }
};

template <>
struct Pair<__half2> {
    static constexpr bool kHalf = true;
    /// Well above the F16 normal minimum (6.1e-5): g2 is formed in F32 from F16 gradients, and
    /// below this the threshold step is at most lambda*theta*|grad I| < 1.5e-3 px anyway.
    static constexpr float kG2Min = 1e-3f;
    __device__ static __half2 zero() { return __float2half2_rn(0.0f); }
    __device__ static float2 to_f2(__half2 v) { return __half22float2(v); }
    __device__ static __half2 from_f2(float2 v) { return __float22half2_rn(v); }
    __device__ static float2 div(__half2 p1, __half2 p1l, __half2 p2, __half2 p2u) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 530
        return __half22float2(__hsub2(__hadd2(__hsub2(p1, p1l), p2), p2u));
#else
        return Pair<float2>::div(to_f2(p1), to_f2(p1l), to_f2(p2), to_f2(p2u));
#endif
    }
    __device__ static void dual(__half2& p1, __half2& p2, float2 gx, float2 gy, float k) {
        // |grad u| components beyond 128 px saturate the dual anyway; clamping keeps the
        // squares (<= 2 * 128^2) inside the F16 range.
        gx.x = fminf(fmaxf(gx.x, -128.0f), 128.0f);
        gx.y = fminf(fmaxf(gx.y, -128.0f), 128.0f);
        gy.x = fminf(fmaxf(gy.x, -128.0f), 128.0f);
        gy.y = fminf(fmaxf(gy.y, -128.0f), 128.0f);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 530
        const __half2 hx = __float22half2_rn(gx), hy = __float22half2_rn(gy);
        const __half2 k2 = __float2half2_rn(k), one = __float2half2_rn(1.0f);
        const __half2 n = h2sqrt(__hfma2(hx, hx, __hmul2(hy, hy)));
        const __half2 r = h2rcp(__hfma2(k2, n, one));
        p1 = __hmul2(__hfma2(k2, hx, p1), r);
        p2 = __hmul2(__hfma2(k2, hy, p2), r);
#else
        float2 a = to_f2(p1), b = to_f2(p2);
        Pair<float2>::dual(a, b, gx, gy, k);
        p1 = from_f2(a);
        p2 = from_f2(b);
#endif
    }
};

} // namespace cuda
} // namespace oflow

#endif
