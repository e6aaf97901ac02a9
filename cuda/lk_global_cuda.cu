// GLOBAL Lucas-Kanade step (lk_cuda.cuh): one launch per Newton step, one thread per pixel. An
// active pixel sums its s x s window directly, recomputing every residual product of the window
// (s^2 bilinear samples per pixel: the plain per-pixel-window kernel, the baseline every LK
// benchmark row is compared with), per window row from column -r up, then the rows from -r up
// (lk_box_h_multi_ref then lk_box_v_multi_ref's order), and takes lk_update_ref's double step:
// every step equals the reference's bit for bit. Reads u_in, writes u_out (neighbours read u_in).
#include "cuda/lk_cuda.cuh"

namespace oflow {
namespace cuda {
namespace {

template <class T2>
__global__ void __launch_bounds__(1024) k_lk_global(LkStepArgs a, int n) {
    if (stopped_before(a.eps, n)) return;
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    float active = 0.0f;
    if (x < a.w && y < a.h) {
        const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(a.pitch) + static_cast<std::size_t>(x);
        float2 u = a.u_in[i];
        if (a.state[i] == 1) {
            float2 s = make_float2(0.0f, 0.0f);
            for (int j = -a.r; j <= a.r; ++j) {
                const int yy = clampi(y + j, 0, a.h - 1);
                float2 row = make_float2(0.0f, 0.0f);
                for (int k = -a.r; k <= a.r; ++k) {
                    const float2 e = lk_residual<T2>(a, clampi(x + k, 0, a.w - 1), yy);
                    row.x += e.x;
                    row.y += e.y;
                }
                s.x += row.x;
                s.y += row.y;
            }
            if (a.sums) a.sums[i] = s;
            unsigned char st = 1;
            active = lk_step_ref(a, i, s, &u, &st) ? 1.0f : 0.0f;
            a.state[i] = st;
        }
        a.u_out[i] = u;
    }
    if (a.eps.stop) epsilon_step(active, a.eps, n);
}

} // namespace

cudaError_t launch_lk_global(const LkStepArgs& a, int n, int bw, int bh, bool f16, cudaStream_t s) {
    const dim3 g(static_cast<unsigned>((a.w + bw - 1) / bw), static_cast<unsigned>((a.h + bh - 1) / bh));
    const dim3 b(static_cast<unsigned>(bw), static_cast<unsigned>(bh));
    if (f16)
        k_lk_global<__half2><<<g, b, 0, s>>>(a, n);
    else
        k_lk_global<float2><<<g, b, 0, s>>>(a, n);
    return cudaGetLastError();
}

void list_lk_global_kernels(KernelList* l) {
    l->add(reinterpret_cast<const void*>(&k_lk_global<float2>), "lk_global_f32");
    l->add(reinterpret_cast<const void*>(&k_lk_global<__half2>), "lk_global_f16x2");
}

} // namespace cuda
} // namespace oflow
