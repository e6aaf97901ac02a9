// Horn-Schunck / CLG on the device: argument structs, host launchers and the per-pixel arithmetic
// every HS/CLG kernel shares (core/hs_kernels.hpp has the equations and the discretisation).
//
// The solvers iterate on the increment (du, dv) of one warp, stored as pairs T2 (float2 in F32,
// __half2 in F16: one half2 holds both components of a pixel, so half2 arithmetic works on du
// and dv at once). The per-pixel 2x2 system
//     [j11 + a2, j12     ] [du]   [a2 m(du) - j13]
//     [j12,      j22 + a2] [dv] = [a2 m(dv) - j23]
// is affine in the local means (mu, mv) = m(du, dv), so it is solved once per warp (hs_coef_cuda,
// in F32, determinant guarded) into three coefficient pairs:
//     diag = (c11, c22), off = (c12, c12), rhs = (c13, c23)
//     du' = c11 mu + c12 mv + c13,   dv' = c12 mu + c22 mv + c23
// and every iteration is two multiply-adds per component on top of the 9-point means, with no
// division. HS's coefficients come from its closed form (d = a2 + ix^2 + iy^2; c11 = 1 - ix^2/d,
// c12 = -ix iy/d, c22 = 1 - iy^2/d, c13 = -ix it/d, c23 = -iy it/d), which does not cancel;
// CLG's from Cramer's rule on the (smoothed) tensor like the reference, with det clamped to at
// least a2^2 (its exact lower bound: J is positive semi-definite), so rounding can never make it
// small or negative. Every coefficient is bounded: c11, c22 in [0, 1], |c12| <= 1/2 (HS) or
// <= 1 (CLG), |c13|, |c23| <= |it| / (2 alpha) (HS); F16 stores them without overflow.
//
// The 9-point mean m(u) = 1/6 ((l + r) + (u + d)) + 1/12 ((ul + ur) + (dl + dr)) (the reference's
// order; neighbours clamped into the plane). F32 kernels sum it in that order. F16 kernels form
// the Laplacian L = (2 ((l + r) + (u + d) - 4 c) + ((ul + ur) + (dl + dr) - 4 c)) / 12 and
// m = c + L, so a constant field stays exactly constant (every sum of equal values is exact)
// and F16 rounding cannot drift a flat increment.
//
// SOR runs on a split layout (core/hs_kernels.hpp, hs_split_views): pixel (x, y) of colour
// c = (x + y) & 1 (0 red, 1 black) lives in slot x >> 1 of row y of its colour's half plane.
// On the device each colour's half plane has its own pitch (hs_half_pitch: 256-byte aligned rows
// of ceil(w / 2) slots); the coefficient planes of an SOR solve are written split as well.
#ifndef OFLOW_CUDA_HS_CUDA_CUH
#define OFLOW_CUDA_HS_CUDA_CUH

#include "core/hs_kernels.hpp"
#include "cuda/cuda_common.cuh"
#include "cuda/cuda_kernels.cuh"

namespace oflow {
namespace cuda {

// ---- per-pixel arithmetic -------------------------------------------------------------------

template <class T2>
struct HsMath;

template <>
struct HsMath<float2> {
    __device__ static float2 zero() { return make_float2(0.0f, 0.0f); }
    __device__ static float2 to_f2(float2 v) { return v; }
    __device__ static float2 from_f2(float2 v) { return v; }
    __device__ static float2 add(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
    /// The reference's mean: 1/6 (hs + vs) + 1/12 ds, hs = l + r, vs = u + d, ds = (ul + ur) + (dl + dr).
    __device__ static float2 mean(float2 hs, float2 vs, float2 ds, float2 /*c*/) {
        const float s6 = 1.0f / 6.0f, s12 = 1.0f / 12.0f;
        return make_float2(s6 * (hs.x + vs.x) + s12 * ds.x, s6 * (hs.y + vs.y) + s12 * ds.y);
    }
    /// (du', dv') = diag * m + off * swap(m) + rhs.
    __device__ static float2 update(float2 m, float2 d, float2 o, float2 r) {
        return make_float2(d.x * m.x + o.x * m.y + r.x, o.y * m.x + d.y * m.y + r.y);
    }
    /// (1 - omega) old + omega new.
    __device__ static float2 relax(float2 old, float2 nw, float omega) {
        const float k = 1.0f - omega;
        return make_float2(k * old.x + omega * nw.x, k * old.y + omega * nw.y);
    }
    __device__ static float change(float2 a, float2 b) {
        const float dx = a.x - b.x, dy = a.y - b.y;
        return dx * dx + dy * dy;
    }
};

template <>
struct HsMath<__half2> {
    __device__ static __half2 zero() { return __float2half2_rn(0.0f); }
    __device__ static float2 to_f2(__half2 v) { return __half22float2(v); }
    __device__ static __half2 from_f2(float2 v) { return __float22half2_rn(v); }
    __device__ static __half2 add(__half2 a, __half2 b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 530
        return __hadd2(a, b);
#else
        return from_f2(HsMath<float2>::add(to_f2(a), to_f2(b)));
#endif
    }
    /// m = c + (2 (hs + vs - 4c) + (ds - 4c)) / 12: exact for a constant field.
    __device__ static __half2 mean(__half2 hs, __half2 vs, __half2 ds, __half2 c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 530
        const __half2 four = __float2half2_rn(4.0f), two = __float2half2_rn(2.0f);
        const __half2 k = __float2half2_rn(1.0f / 12.0f);
        const __half2 dir = __hsub2(__hadd2(hs, vs), __hmul2(four, c)); // (l + r) + (u + d) - 4c
        const __half2 dia = __hsub2(ds, __hmul2(four, c));              // diagonals - 4c
        return __hfma2(k, __hfma2(two, dir, dia), c);
#else
        const float2 h = to_f2(hs), v = to_f2(vs), d = to_f2(ds), cc = to_f2(c);
        const float lx = (2.0f * (h.x + v.x - 4.0f * cc.x) + (d.x - 4.0f * cc.x)) / 12.0f;
        const float ly = (2.0f * (h.y + v.y - 4.0f * cc.y) + (d.y - 4.0f * cc.y)) / 12.0f;
        return from_f2(make_float2(cc.x + lx, cc.y + ly));
#endif
    }
    __device__ static __half2 update(__half2 m, __half2 d, __half2 o, __half2 r) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 530
        return __hfma2(o, __lowhigh2highlow(m), __hfma2(d, m, r));
#else
        return from_f2(HsMath<float2>::update(to_f2(m), to_f2(d), to_f2(o), to_f2(r)));
#endif
    }
    /// old + omega (new - old): near convergence new - old is small, so its rounding is too
    /// ((1 - omega) old + omega new would round two terms of the size of u, of opposite signs).
    __device__ static __half2 relax(__half2 old, __half2 nw, float omega) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 530
        return __hfma2(__float2half2_rn(omega), __hsub2(nw, old), old);
#else
        return from_f2(HsMath<float2>::relax(to_f2(old), to_f2(nw), omega));
#endif
    }
    /// In F32 (reductions accumulate in F32, ALGORITHMS.md pitfall 6).
    __device__ static float change(__half2 a, __half2 b) { return HsMath<float2>::change(to_f2(a), to_f2(b)); }
};

// ---- argument structs -----------------------------------------------------------------------

/// Coefficient planes of one warp (same pitch as the increment planes they go with).
template <class T2>
struct HsCoef {
    const T2* d; // (c11, c22)
    const T2* o; // (c12, c12)
    const T2* r; // (c13, c23)
};

/// Jacobi on full planes: reads du_in, writes du_out (never the same plane).
template <class T2>
struct HsJacobiArgs {
    int w, h, pitch; // level size; pitch (elements) of du and the coefficients
    const T2* du_in;
    T2* du_out;
    HsCoef<T2> c;
    EpsArgs eps; // eps.stop == nullptr: no reduction
};

/// Red-black SOR on the split layout (hpitch: elements per half-plane row). Colour k's old
/// values old_[k], its new ones new_[k], its coefficients c[k].
template <class T2>
struct HsSorArgs {
    int w, h, hpitch;
    const T2* old_[2];
    T2* new_[2];
    HsCoef<T2> c[2];
    float omega;
    EpsArgs eps;             // the black half-sweep (or the fused sweep) decides
    float* red_partials;     // GLOBAL: the red half-sweep's per-block sums, added by the black one
    unsigned red_blocks;     // blocks of the red launch
};

/// The two sides of a ping-pong solve (one plane each for Jacobi; red and black for SOR, w in
/// slots), for the repair after an epsilon stop.
template <class T2>
struct HsPingPong {
    int w, h, pitch, planes;
    T2* side0[2];
    T2* side1[2];
};

/// How the coefficients are formed (hs_coef_cuda).
enum class HsCoefMode : int {
    kHsClosed = 0,   ///< HS: closed form from (ix, iy, it)
    kCramerDeriv = 1, ///< CLG with rho = 0: Cramer on the products of (ix, iy, it)
    kCramerTensor = 2 ///< CLG: Cramer on the smoothed tensor planes
};

struct HsCoefArgs {
    int w, h;
    DPlane<const float4> deriv;   // (ix, iy, it, 0)
    const float* j[kHsChannels];  // kCramerTensor: tensor planes (pitch deriv.pitch)
    float alpha2;
    HsCoefMode mode;
    bool split;                   // write the split layout (SOR) instead of full planes
    int out_pitch;                // elements per row of the outputs (full: pitch; split: half pitch)
    void* d[2];                   // T2 planes: full layout uses [0]; split: [0] red, [1] black
    void* o[2];
    void* r[2];
};

// ---- launchers (hs_stages_cuda.cu) --------------------------------------------------------

/// warp_image_ref: bicubic I1 at x + u, and I0 where x + u leaves the image.
cudaError_t launch_hs_warp_image(DPlane<const float> i0, DPlane<const float> i1, DPlane<const float2> u,
                                 DPlane<float> out, cudaStream_t s);
/// hs_derivatives_ref: (ix, iy, it, 0) of the 2x2x2 cube of I0 and I1w.
cudaError_t launch_hs_derivatives(DPlane<const float> i0, DPlane<const float> i1w, DPlane<float4> out,
                                  cudaStream_t s);
/// The structure tensor's five channels (hs_tensor_ref's products of deriv) smoothed by g
/// (blur_h_ref then blur_v_ref per channel, bit for bit), every channel in one launch (grid z =
/// channel): j[c] are kHsChannels planes of deriv's size and pitch.
cudaError_t launch_hs_tensor_blur(DPlane<const float4> deriv, float* const j[kHsChannels], const Gaussian1D& g,
                                  cudaStream_t s);
/// OF_ROBUST_CENSUS: the census tensor of one warp (census_tensor_ref, bit for bit: IEEE
/// operations in its order; census_cuda.cu): i0 the level of frame 0, i1w frame 1 warped
/// (launch_hs_warp_image's), whose central-difference gradient (gradient_ref's) the kernel takes
/// itself, eta = Ctrl::census_eta (frame 0's, frame 1's); out: j[kJ11 .. kJ23], planes of i0's
/// size and pitch. LK's census steps (lk_census_cuda.cuh) pass their level's stop slot: the launch
/// then returns at once when *stop < launch (the level ended on the device); HS leaves it null.
struct CensusTensorCudaArgs {
    DPlane<const float> i0, i1w;
    DPlane<const float2> u;
    float* j[kHsChannels];
    const float* eta;
    const int* stop = nullptr;
    int launch = 0;
};
cudaError_t launch_census_tensor(const CensusTensorCudaArgs& a, cudaStream_t s);
/// kHsChannels consecutive F32 planes from src on (`stride` elements apart) blurred by g into the
/// planes from dst on (blur_h_ref then blur_v_ref per channel, bit for bit; CLG's smoothing of
/// the census tensor), one launch (grid z = channel); every plane w x h with `pitch` elements a
/// row, dst's never overlapping src's.
cudaError_t launch_hs_planes_blur(const float* src, float* dst, std::size_t stride, int w, int h, int pitch,
                                  const Gaussian1D& g, cudaStream_t s);
/// The coefficient planes in T2 = float2 (f16 false) or __half2 (f16 true).
cudaError_t launch_hs_coef(const HsCoefArgs& a, bool f16, cudaStream_t s);
/// u += du (full layout, pitch du_pitch) or u += merge(red, black) (split, half pitch du_pitch).
template <class T2>
cudaError_t launch_hs_add_increment(DPlane<float2> u, const T2* du_full, const T2* red, const T2* black,
                                    int du_pitch, cudaStream_t s);
/// The split layout's pitch (elements) for a plane of width w.
int hs_half_pitch(int w);

// ---- launchers (hs_jacobi_cuda.cu, hs_multi_cuda.cu, hs_sor_cuda.cu) ------------------------

/// GLOBAL: one Jacobi iteration (launch index n), one thread per pixel, bw x bh blocks.
template <class T2>
cudaError_t launch_hs_jacobi_global(const HsJacobiArgs<T2>& a, int n, int bw, int bh, cudaStream_t s);
/// MULTI_ITER (and FUSED = depth 1): `iters` (<= depth) Jacobi iterations in one launch by
/// register-blocked temporal tiling; 32 x bh threads, `rows` (4, 6 or 8) rows per thread.
template <class T2>
cudaError_t launch_hs_jacobi_multi(const HsJacobiArgs<T2>& a, int launch, int iters, int depth, int bh, int rows,
                                   cudaStream_t s);
/// Columns per thread of the MULTI_ITER kernel: 1 in F32, 2 in F16 (cuda_layout.hpp hs_multi_cols).
template <class T2>
__host__ __device__ constexpr int hs_multi_cols() {
    return sizeof(T2) == 4 ? 2 : 1;
}
/// Output tile of a MULTI_ITER block (32 cols - 2 depth columns, bh * rows - 2 depth rows).
inline int hs_multi_tile_w(int depth, int cols) { return 32 * cols - 2 * depth; }
inline int hs_multi_tile_h(int bh, int rows, int depth) { return bh * rows - 2 * depth; }
/// GLOBAL SOR: one half-sweep of colour `colour` (launch index n: the iteration), one thread
/// per slot, bw x bh blocks over the half plane.
template <class T2>
cudaError_t launch_hs_sor_half(const HsSorArgs<T2>& a, int colour, int n, int bw, int bh, cudaStream_t s);
/// FUSED SOR: red then black of one iteration in one launch; a bw x bh block updates the red
/// pixels of its tile and a one-pixel ring around it into shared memory, then the black pixels
/// of its tile. Dynamic shared memory: hs_sor_fused_shared_bytes.
template <class T2>
cudaError_t launch_hs_sor_fused(const HsSorArgs<T2>& a, int n, int bw, int bh, cudaStream_t s);
std::size_t hs_sor_fused_shared_bytes(bool f16, int bw, int bh);

/// Ping-pong repair after epsilon stopped a warp early: its launches read side 0 first; after
/// `launches` of them the result is expected on side (launches & 1). When the warp stopped after
/// launch *stop, it is on side ((*stop + 1) & 1): copy every plane over when the two differ.
template <class T2>
cudaError_t launch_hs_fixup(const HsPingPong<T2>& f, const int* stop, int launches, cudaStream_t s);

void list_hs_stage_kernels(KernelList* l);
void list_hs_jacobi_kernels(KernelList* l);
void list_hs_multi_kernels(KernelList* l);
void list_hs_sor_kernels(KernelList* l);

} // namespace cuda
} // namespace oflow

#endif
