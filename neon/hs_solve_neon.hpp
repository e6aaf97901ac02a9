// The per-pixel solves of the HS / CLG family on four lanes in F32 (core/hs_kernels.hpp has the
// equations), shared by hs_solvers_neon.cpp (F32) and hs_f16_neon.cpp (whose solves stay F32).
// The reference's operations in the reference's order (core/ref/hs_solvers_ref.cpp); the
// compiler may fuse multiply-adds here as in the reference, so results agree within the
// kernels' F32 tolerance, not bit for bit.
#ifndef OFLOW_NEON_HS_SOLVE_NEON_HPP
#define OFLOW_NEON_HS_SOLVE_NEON_HPP

#include "neon/neon_util.hpp"

namespace oflow {
namespace neon {

/// HS's closed form: n = gx mu + gy mv + gt, d = a2 + gx^2 + gy^2, u = mu - gx n / d,
/// v = mv - gy n / d.
inline void hs_update_v(float32x4_t gx, float32x4_t gy, float32x4_t gt, float32x4_t a2, float32x4_t mu, float32x4_t mv,
                        float32x4_t* u, float32x4_t* v) {
    const float32x4_t n = vaddq_f32(vaddq_f32(vmulq_f32(gx, mu), vmulq_f32(gy, mv)), gt);
    const float32x4_t d = vaddq_f32(vaddq_f32(a2, vmulq_f32(gx, gx)), vmulq_f32(gy, gy));
    *u = vsubq_f32(mu, vdivq_f32(vmulq_f32(gx, n), d));
    *v = vsubq_f32(mv, vdivq_f32(vmulq_f32(gy, n), d));
}

/// The pointwise-coupled 2x2 system by Cramer's rule: A = j11 + a2, C = j22 + a2,
/// r1 = a2 mu - j13, r2 = a2 mv - j23, det = A C - j12^2, u = (C r1 - j12 r2) / det,
/// v = (A r2 - j12 r1) / det.
inline void solve2_v(float32x4_t j11, float32x4_t j12, float32x4_t j13, float32x4_t j22, float32x4_t j23,
                     float32x4_t a2, float32x4_t mu, float32x4_t mv, float32x4_t* u, float32x4_t* v) {
    const float32x4_t A = vaddq_f32(j11, a2), C = vaddq_f32(j22, a2);
    const float32x4_t r1 = vsubq_f32(vmulq_f32(a2, mu), j13), r2 = vsubq_f32(vmulq_f32(a2, mv), j23);
    const float32x4_t det = vsubq_f32(vmulq_f32(A, C), vmulq_f32(j12, j12));
    *u = vdivq_f32(vsubq_f32(vmulq_f32(C, r1), vmulq_f32(j12, r2)), det);
    *v = vdivq_f32(vsubq_f32(vmulq_f32(A, r2), vmulq_f32(j12, r1)), det);
}

} // namespace neon
} // namespace oflow

#endif
