// TV-L1 warp stage on the device (tvl1_warp_ref): bicubic (Keys, a = -0.5) samples of I1, I1x,
// I1y at x + u with clamped taps, then the constants of the inner iterations: g = (I1wx, I1wy)
// in the storage type, |g|^2 (F32 storage only) and rho_c = I1w - I1wx u1 - I1wy u2 - I0.
// The gradient is taken here, at each tap, from the level's I1 plane (central differences with
// gradient_ref's clamps and operations: no gradient plane is stored, and the F32 result is bit
// for bit what sampling a stored gradient plane gave). The pyramid planes are F32, or F16 with
// F16 storage (read widened; the arithmetic is F32 either way).
// Where x + u leaves the image ([0, w-1] x [0, h-1]) there is no data term: g = 0, rho_c = 0.
// With F16 storage rho_c is formed from the stored (rounded) g, so that rho(u0) = I1w - I0
// exactly as the iterations see it. I1w itself is stored only under OF_ROBUST_CENSUS (WarpArgs::i1w:
// the census channels read it).
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_layout.hpp"

namespace oflow {
namespace cuda {
namespace {

const int kBX = kPlaneBlockX, kBY = kPlaneBlockY;

template <class T2>
__global__ void __launch_bounds__(kBX * kBY) k_warp(WarpArgs<T2> a) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    const int w = a.i1.w, h = a.i1.h;
    if (x >= w || y >= h) return;
    const float2 u = a.u.row(y)[x];
    const BicubicTaps tp = bicubic_taps(x, y, u, w, h);
    float s = 0.0f, sx = 0.0f, sy = 0.0f;
    for (int j = 0; j < 4; ++j) {
        const int ry = clampi(tp.iy - 1 + j, 0, h - 1);
        const auto* r = a.i1.row(ry);
        const auto* up = a.i1.row(clampi(ry - 1, 0, h - 1));
        const auto* dn = a.i1.row(clampi(ry + 1, 0, h - 1));
        float t = 0.0f, tx = 0.0f, ty = 0.0f;
        for (int i = 0; i < 4; ++i) {
            const int c = tp.cx[i];
            const float v = pix(r[c]);
            const float vx = 0.5f * (pix(r[clampi(c + 1, 0, w - 1)]) - pix(r[clampi(c - 1, 0, w - 1)]));
            const float vy = 0.5f * (pix(dn[c]) - pix(up[c]));
            t += tp.wx[i] * v;
            tx += tp.wx[i] * vx;
            ty += tp.wx[i] * vy;
        }
        s += tp.wy[j] * t;
        sx += tp.wy[j] * tx;
        sy += tp.wy[j] * ty;
    }
    const bool inside = tp.inside;
    if (a.i1w.p) a.i1w.row(y)[x] = s; // OF_ROBUST_CENSUS's input, wherever x + u lies (tvl1_warp_ref)
    if (!inside) sx = sy = 0.0f;
    const T2 g = Pair<T2>::from_f2(make_float2(sx, sy));
    const float2 gs = Pair<T2>::to_f2(g); // what the iterations will read
    a.g.row(y)[x] = g;
    if (!Pair<T2>::kHalf) a.gr.row(y)[x] = gs.x * gs.x + gs.y * gs.y;
    a.rc.row(y)[x] = inside ? s - gs.x * u.x - gs.y * u.y - pix(a.i0.row(y)[x]) : 0.0f;
}

} // namespace

template <class T2>
cudaError_t launch_warp(const WarpArgs<T2>& a, cudaStream_t s) {
    const dim3 g(static_cast<unsigned>((a.i1.w + kBX - 1) / kBX), static_cast<unsigned>((a.i1.h + kBY - 1) / kBY));
    k_warp<T2><<<g, dim3(kBX, kBY), 0, s>>>(a);
    return cudaGetLastError();
}

template cudaError_t launch_warp<float2>(const WarpArgs<float2>&, cudaStream_t);
template cudaError_t launch_warp<__half2>(const WarpArgs<__half2>&, cudaStream_t);

void list_warp_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_warp<float2>), "warp_f32");
    l->add(reinterpret_cast<const void*>(&k_warp<__half2>), "warp_f16x2");
}

} // namespace cuda
} // namespace oflow
