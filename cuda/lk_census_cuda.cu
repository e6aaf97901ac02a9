// Lucas-Kanade under OF_ROBUST_CENSUS: the row pass and the step of one Newton step
// (lk_census_cuda.cuh has the scheme), one thread per pixel at the tuning's block. The
// reference's operations in its order (core/ref/lk_ref.cpp lk_census_products_ref,
// lk_box_h_multi_ref, lk_box_v_multi_ref, lk_update_ref; this file is compiled without
// contraction), so the row sums, the window sums and the steps equal the reference's bit for
// bit. The taps are read through the caches (a tile would not pay for one pass per step).
#include "cuda/lk_census_cuda.cuh"
#include "cuda/plane_launch.cuh"

namespace oflow {
namespace cuda {
namespace {

// Row sums of the three tensor channels and of the residual products, each product
// (bx = J13 - (J11 u1 + J12 u2), by = J23 - (J12 u1 + J22 u2)) formed at its tap.
__global__ void __launch_bounds__(1024) k_lk_census_rows(LkCensusStepArgs a, int n) {
    if (stopped_before(a.eps, n)) return;
    int x, y;
    if (!plane_pixel(a.w, a.h, &x, &y)) return;
    const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(a.pitch);
    const float* j11 = a.j[kJ11] + row;
    const float* j12 = a.j[kJ12] + row;
    const float* j22 = a.j[kJ22] + row;
    const float* j13 = a.j[kJ13] + row;
    const float* j23 = a.j[kJ23] + row;
    const float2* u = a.u + row;
    float s11 = 0.0f, s12 = 0.0f, s22 = 0.0f, sx = 0.0f, sy = 0.0f;
    for (int i = -a.r; i <= a.r; ++i) {
        const int q = clampi(x + i, 0, a.w - 1);
        const float a11 = j11[q], a12 = j12[q], a22 = j22[q];
        const float2 v = u[q];
        s11 += a11;
        s12 += a12;
        s22 += a22;
        sx += j13[q] - (a11 * v.x + a12 * v.y);
        sy += j23[q] - (a12 * v.x + a22 * v.y);
    }
    const std::size_t i = row + static_cast<std::size_t>(x);
    a.gsum[kG11][i] = s11;
    a.gsum[kG12][i] = s12;
    a.gsum[kG22][i] = s22;
    a.esum[i] = make_float2(sx, sy);
}

// The window sums G and S down the columns, then the Newton step of an active pixel in place.
__global__ void __launch_bounds__(1024) k_lk_census_step(LkCensusStepArgs a, int n) {
    if (stopped_before(a.eps, n)) return;
    int x, y;
    float active = 0.0f;
    if (plane_pixel(a.w, a.h, &x, &y)) {
        const std::size_t p = static_cast<std::size_t>(a.pitch);
        float g11 = 0.0f, g12 = 0.0f, g22 = 0.0f;
        float2 s = make_float2(0.0f, 0.0f);
        for (int j = -a.r; j <= a.r; ++j) {
            const std::size_t k = static_cast<std::size_t>(clampi(y + j, 0, a.h - 1)) * p + static_cast<std::size_t>(x);
            g11 += a.gsum[kG11][k];
            g12 += a.gsum[kG12][k];
            g22 += a.gsum[kG22][k];
            const float2 e = a.esum[k];
            s.x += e.x;
            s.y += e.y;
        }
        const std::size_t i = static_cast<std::size_t>(y) * p + static_cast<std::size_t>(x);
        if (a.sums) a.sums[i] = s;
        if (a.state[i] == 1) {
            float2 u = a.u[i];
            unsigned char st = 1;
            active = lk_newton_ref(g11, g12, g22, s, a.epsilon, &u, &st) ? 1.0f : 0.0f;
            a.u[i] = u;
            a.state[i] = st;
        }
    }
    if (a.eps.stop) epsilon_step(active, a.eps, n);
}

dim3 grid_of(int w, int h, int bw, int bh) {
    return dim3(static_cast<unsigned>((w + bw - 1) / bw), static_cast<unsigned>((h + bh - 1) / bh));
}

} // namespace

cudaError_t launch_lk_census_rows(const LkCensusStepArgs& a, int n, int bw, int bh, cudaStream_t s) {
    k_lk_census_rows<<<grid_of(a.w, a.h, bw, bh), dim3(static_cast<unsigned>(bw), static_cast<unsigned>(bh)), 0, s>>>(a, n);
    return cudaGetLastError();
}

cudaError_t launch_lk_census_step(const LkCensusStepArgs& a, int n, int bw, int bh, cudaStream_t s) {
    k_lk_census_step<<<grid_of(a.w, a.h, bw, bh), dim3(static_cast<unsigned>(bw), static_cast<unsigned>(bh)), 0, s>>>(a, n);
    return cudaGetLastError();
}

void list_lk_census_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_lk_census_rows), "lk_census_rows");
    l->add(reinterpret_cast<const void*>(&k_lk_census_step), "lk_census_step");
}

} // namespace cuda
} // namespace oflow
