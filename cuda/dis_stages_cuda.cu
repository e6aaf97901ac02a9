// Dense Inverse Search, the per-level stages around the search (dis_cuda.cuh): the gradient, the
// patch sums, the starts, the densification and the refinement's tensor as SOR coefficients.
// Each thread computes one output (a pixel, or a patch) with the reference's operations in its
// order (compiled without contraction: cuda/CMakeLists.txt).
#include "cuda/dis_cuda.cuh"
#include "cuda/plane_launch.cuh"

namespace oflow {
namespace cuda {
namespace {

const int kBX = kPlaneBlockX, kBY = kPlaneBlockY;
// F16 storage of the right-hand side (c13, c23): clamped as HS's (hs_stages_cuda.cu), far inside
// half's range; a flow increment beyond it is no increment the SOR should take in one step.
const float kDisF16RhsMax = 2048.0f;

unsigned blocks_for(int n, int per) { return static_cast<unsigned>((n + per - 1) / per); }

// dis_gradient_ref: Sobel / 8, neighbours clamped, into pairs.
template <class T2>
__global__ void __launch_bounds__(kBX * kBY) k_dis_gradient(DisLevelArgs a) {
    int x, y;
    if (!plane_pixel(a.w, a.h, &x, &y)) return;
    const std::size_t P = static_cast<std::size_t>(a.pitch);
    const float* up = a.i0 + static_cast<std::size_t>(clampi(y - 1, 0, a.h - 1)) * P;
    const float* c = a.i0 + static_cast<std::size_t>(y) * P;
    const float* dn = a.i0 + static_cast<std::size_t>(clampi(y + 1, 0, a.h - 1)) * P;
    const int l = clampi(x - 1, 0, a.w - 1), r = clampi(x + 1, 0, a.w - 1);
    const float gx = ((up[r] - up[l]) + 2.0f * (c[r] - c[l]) + (dn[r] - dn[l])) * 0.125f;
    const float gy = ((dn[l] - up[l]) + 2.0f * (dn[x] - up[x]) + (dn[r] - up[r])) * 0.125f;
    static_cast<T2*>(a.grad)[static_cast<std::size_t>(y) * P + static_cast<std::size_t>(x)] = DisPair<T2>::make(gx, gy);
}

// The five patch sums of one patch per thread: per row the five row sums in double rounded to F32
// (box_h), those summed down in double and rounded (box_v).
template <class T2>
__global__ void __launch_bounds__(kDisPatchThreads) k_dis_patch_sums(DisLevelArgs a) {
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= a.g.nx * a.g.ny) return;
    const int k = i % a.g.nx, j = i / a.g.nx;
    const int px0 = dis_px(a.g, k), py0 = dis_py(a.g, j), p = a.g.p;
    const T2* grad = static_cast<const T2*>(a.grad);
    double col[kDisSums] = {0.0, 0.0, 0.0, 0.0, 0.0};
    for (int yy = 0; yy < p; ++yy) {
        const std::size_t row = static_cast<std::size_t>(py0 + yy) * static_cast<std::size_t>(a.pitch);
        double rs[kDisSums] = {0.0, 0.0, 0.0, 0.0, 0.0};
        for (int xx = 0; xx < p; ++xx) {
            const float2 g = DisPair<T2>::get(grad, row + static_cast<std::size_t>(px0 + xx));
            rs[kDisSxx] += static_cast<double>(g.x * g.x);
            rs[kDisSxy] += static_cast<double>(g.x * g.y);
            rs[kDisSyy] += static_cast<double>(g.y * g.y);
            rs[kDisSx] += static_cast<double>(g.x);
            rs[kDisSy] += static_cast<double>(g.y);
        }
        for (int c = 0; c < kDisSums; ++c) col[c] += static_cast<double>(static_cast<float>(rs[c]));
    }
    const std::size_t o = static_cast<std::size_t>(j) * static_cast<std::size_t>(a.sp) + static_cast<std::size_t>(k);
    for (int c = 0; c < kDisSums; ++c) a.sum[c][o] = static_cast<float>(col[c]);
}

__global__ void __launch_bounds__(kDisPatchThreads) k_dis_init(DisLevelArgs a, const float2* u, float2* s) {
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= a.g.nx * a.g.ny) return;
    const int k = i % a.g.nx, j = i / a.g.nx, c = a.g.p / 2;
    const int x = dis_px(a.g, k) + c, y = dis_py(a.g, j) + c;
    s[static_cast<std::size_t>(j) * static_cast<std::size_t>(a.sp) + static_cast<std::size_t>(k)] =
        u[static_cast<std::size_t>(y) * static_cast<std::size_t>(a.pitch) + static_cast<std::size_t>(x)];
}

// The first grid index whose patch covers coordinate v (patches start at min(i s, n - p)).
__device__ __forceinline__ int dis_first_cover(int v, int p, int s) { return v >= p ? (v - p) / s + 1 : 0; }

// dis_densify_ref per pixel: its patches j ascending, then k ascending; the sums in F32.
__global__ void __launch_bounds__(kBX * kBY) k_dis_densify(DisLevelArgs a, const float2* t, const float* md, float2* u) {
    int x, y;
    if (!plane_pixel(a.w, a.h, &x, &y)) return;
    const DisGrid& g = a.g;
    const std::size_t P = static_cast<std::size_t>(a.pitch);
    const float i0 = a.i0[static_cast<std::size_t>(y) * P + static_cast<std::size_t>(x)];
    float sw = 0.0f, su = 0.0f, sv = 0.0f;
    for (int j = dis_first_cover(y, g.p, g.s); j < g.ny && dis_py(g, j) <= y; ++j) {
        for (int k = dis_first_cover(x, g.p, g.s); k < g.nx && dis_px(g, k) <= x; ++k) {
            const int px0 = dis_px(g, k);
            const std::size_t o = static_cast<std::size_t>(j) * static_cast<std::size_t>(a.sp) + static_cast<std::size_t>(k);
            const float2 f = t[o];
            const float m = md[o];
            const DisShift sh = dis_split(f.x, f.y, g.w, g.h);
            const int xa0 = px0 + sh.ix;
            const bool inside = xa0 >= 0 && xa0 + g.p < g.w;
            const int ya = clampi(y + sh.iy, 0, a.h - 1), yb = clampi(y + sh.iy + 1, 0, a.h - 1);
            const float d = dis_tap(a.i1 + static_cast<std::size_t>(ya) * P, a.i1 + static_cast<std::size_t>(yb) * P, xa0,
                                    x - px0, inside, a.w, sh) -
                            i0 - m;
            const float ad = fabsf(d);
            const float wgt = 1.0f / (ad > 1.0f ? ad : 1.0f);
            sw += wgt;
            su += wgt * f.x;
            sv += wgt * f.y;
        }
    }
    u[static_cast<std::size_t>(y) * P + static_cast<std::size_t>(x)] = make_float2(su / sw, sv / sw);
}

// dis_refine_tensor_ref at one pixel, then HS's Cramer coefficients (hs_stages_cuda.cu k_hs_coef,
// kCramerTensor) into the split layout.
template <class T2>
__global__ void __launch_bounds__(kBX * kBY) k_dis_refine_coef(DisRefineCuda a) {
    int x, y;
    if (!plane_pixel(a.w, a.h, &x, &y)) return;
    const int w = a.w, h = a.h;
    const std::size_t P = static_cast<std::size_t>(a.pitch);
    const float kSixth = 1.0f / 6.0f, kTwelfth = 1.0f / 12.0f;
    const int yu = clampi(y - 1, 0, h - 1), yd = clampi(y + 1, 0, h - 1);
    const int xl = clampi(x - 1, 0, w - 1), xr = clampi(x + 1, 0, w - 1);
    const float* i0u = a.i0 + static_cast<std::size_t>(yu) * P;
    const float* i0c = a.i0 + static_cast<std::size_t>(y) * P;
    const float* i0d = a.i0 + static_cast<std::size_t>(yd) * P;
    const float* i1u = a.i1w + static_cast<std::size_t>(yu) * P;
    const float* i1c = a.i1w + static_cast<std::size_t>(y) * P;
    const float* i1d = a.i1w + static_cast<std::size_t>(yd) * P;
    const float ac = 0.5f * (i0c[x] + i1c[x]), al = 0.5f * (i0c[xl] + i1c[xl]), ar = 0.5f * (i0c[xr] + i1c[xr]);
    const float au = 0.5f * (i0u[x] + i1u[x]), ad = 0.5f * (i0d[x] + i1d[x]);
    const float aul = 0.5f * (i0u[xl] + i1u[xl]), aur = 0.5f * (i0u[xr] + i1u[xr]);
    const float adl = 0.5f * (i0d[xl] + i1d[xl]), adr = 0.5f * (i0d[xr] + i1d[xr]);
    const float ax = 0.5f * (ar - al), ay = 0.5f * (ad - au);
    const float axx = (ar - 2.0f * ac) + al, ayy = (ad - 2.0f * ac) + au;
    const float axy = 0.25f * ((adr - adl) - (aur - aul));
    const float it = i1c[x] - i0c[x];
    const float ixt = 0.5f * (i1c[xr] - i1c[xl]) - 0.5f * (i0c[xr] - i0c[xl]);
    const float iyt = 0.5f * (i1d[x] - i1u[x]) - 0.5f * (i0d[x] - i0u[x]);
    const int colour = (x + y) & 1;
    const std::size_t hi = static_cast<std::size_t>(y) * static_cast<std::size_t>(a.hpitch) + static_cast<std::size_t>(x >> 1);
    const float2 inc = DisPair<T2>::get(static_cast<const T2*>(a.du[colour]), hi);
    const float du = inc.x, dv = inc.y;
    const float nb = ax * ax + ay * ay + kDisZeta2;
    const float rb_num = it + ax * du + ay * dv;
    const float phib = a.delta / sqrtf(rb_num * rb_num / nb + kDisEps2) / nb;
    const float ng = axx * axx + 2.0f * axy * axy + ayy * ayy + kDisZeta2;
    const float gx_res = ixt + axx * du + axy * dv, gy_res = iyt + axy * du + ayy * dv;
    const float phig = a.gamma / sqrtf((gx_res * gx_res + gy_res * gy_res) / ng + kDisEps2) / ng;
    const float2* fu = a.u + static_cast<std::size_t>(yu) * P;
    const float2* fc = a.u + static_cast<std::size_t>(y) * P;
    const float2* fd = a.u + static_cast<std::size_t>(yd) * P;
    const float m1 = kSixth * ((fc[xl].x + fc[xr].x) + (fu[x].x + fd[x].x)) +
                     kTwelfth * ((fu[xl].x + fu[xr].x) + (fd[xl].x + fd[xr].x));
    const float m2 = kSixth * ((fc[xl].y + fc[xr].y) + (fu[x].y + fd[x].y)) +
                     kTwelfth * ((fu[xl].y + fu[xr].y) + (fd[xl].y + fd[xr].y));
    const float lap1 = fc[x].x - m1, lap2 = fc[x].y - m2;
    const float j11 = phib * ax * ax + phig * (axx * axx + axy * axy);
    const float j12 = phib * ax * ay + phig * (axx * axy + axy * ayy);
    const float j22 = phib * ay * ay + phig * (axy * axy + ayy * ayy);
    const float j13 = phib * ax * it + phig * (axx * ixt + axy * iyt) + a.alpha2 * lap1;
    const float j23 = phib * ay * it + phig * (axy * ixt + ayy * iyt) + a.alpha2 * lap2;
    if (a.j[0]) {
        const std::size_t fi = static_cast<std::size_t>(y) * P + static_cast<std::size_t>(x);
        a.j[kJ11][fi] = j11;
        a.j[kJ12][fi] = j12;
        a.j[kJ13][fi] = j13;
        a.j[kJ22][fi] = j22;
        a.j[kJ23][fi] = j23;
    }
    const float a2 = a.alpha2;
    const float A = j11 + a2, B = j12, C = j22 + a2;
    const float det = fmaxf(A * C - B * B, a2 * a2); // J is positive semi-definite
    const float c11 = C * a2 / det, c22 = A * a2 / det, c12 = -(B * a2) / det;
    float c13 = (B * j23 - C * j13) / det, c23 = (B * j13 - A * j23) / det;
    if (sizeof(T2) == 4) { // F16 storage: HS's clamp of the right-hand side
        c13 = fminf(fmaxf(c13, -kDisF16RhsMax), kDisF16RhsMax);
        c23 = fminf(fmaxf(c23, -kDisF16RhsMax), kDisF16RhsMax);
    }
    static_cast<T2*>(a.d[colour])[hi] = DisPair<T2>::make(c11, c22);
    static_cast<T2*>(a.o[colour])[hi] = DisPair<T2>::make(c12, c12);
    static_cast<T2*>(a.r[colour])[hi] = DisPair<T2>::make(c13, c23);
}

unsigned patch_blocks(const DisGrid& g) { return blocks_for(g.nx * g.ny, kDisPatchThreads); }

} // namespace

cudaError_t launch_dis_gradient(const DisLevelArgs& a, bool f16, cudaStream_t s) {
    if (f16)
        k_dis_gradient<__half2><<<plane_grid(a.w, a.h), dim3(kBX, kBY), 0, s>>>(a);
    else
        k_dis_gradient<float2><<<plane_grid(a.w, a.h), dim3(kBX, kBY), 0, s>>>(a);
    return cudaGetLastError();
}

cudaError_t launch_dis_patch_sums(const DisLevelArgs& a, bool f16, cudaStream_t s) {
    if (f16)
        k_dis_patch_sums<__half2><<<patch_blocks(a.g), kDisPatchThreads, 0, s>>>(a);
    else
        k_dis_patch_sums<float2><<<patch_blocks(a.g), kDisPatchThreads, 0, s>>>(a);
    return cudaGetLastError();
}

cudaError_t launch_dis_init(const DisLevelArgs& a, const float2* u, float2* s_out, cudaStream_t s) {
    k_dis_init<<<patch_blocks(a.g), kDisPatchThreads, 0, s>>>(a, u, s_out);
    return cudaGetLastError();
}

cudaError_t launch_dis_densify(const DisLevelArgs& a, const float2* t, const float* md, float2* u, cudaStream_t s) {
    k_dis_densify<<<plane_grid(a.w, a.h), dim3(kBX, kBY), 0, s>>>(a, t, md, u);
    return cudaGetLastError();
}

cudaError_t launch_dis_refine_coef(const DisRefineCuda& a, bool f16, cudaStream_t s) {
    if (f16)
        k_dis_refine_coef<__half2><<<plane_grid(a.w, a.h), dim3(kBX, kBY), 0, s>>>(a);
    else
        k_dis_refine_coef<float2><<<plane_grid(a.w, a.h), dim3(kBX, kBY), 0, s>>>(a);
    return cudaGetLastError();
}

void list_dis_stage_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_dis_gradient<float2>), "dis_gradient_f32");
    l->add(reinterpret_cast<const void*>(&k_dis_gradient<__half2>), "dis_gradient_f16x2");
    l->add(reinterpret_cast<const void*>(&k_dis_patch_sums<float2>), "dis_patch_sums_f32");
    l->add(reinterpret_cast<const void*>(&k_dis_patch_sums<__half2>), "dis_patch_sums_f16x2");
    l->add(reinterpret_cast<const void*>(&k_dis_init), "dis_init");
    l->add(reinterpret_cast<const void*>(&k_dis_densify), "dis_densify");
    l->add(reinterpret_cast<const void*>(&k_dis_refine_coef<float2>), "dis_refine_coef_f32");
    l->add(reinterpret_cast<const void*>(&k_dis_refine_coef<__half2>), "dis_refine_coef_f16x2");
}

} // namespace cuda
} // namespace oflow
