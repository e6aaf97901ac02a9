// The NEON backend's table inits (shared kernels, HS / CLG family, LK family) and CPU feature
// queries (neon/kernels_neon.hpp).
#include "neon/kernels_neon.hpp"

#include "neon/neon_kernels.hpp"

#if defined(OF_NEON_F16)
#include "neon/neon_arch.hpp" // float16_t
#if defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMDHP
#define HWCAP_ASIMDHP (1UL << 10) // Linux arm64 uapi asm/hwcap.h
#endif
#endif
#endif

namespace oflow {

bool neon_available() {
    // AArch64: Advanced SIMD is part of every ARMv8-A implementation. x86-64 (SIMDe): the
    // build's OF_SIMDE_FLAGS are the baseline the library was compiled for, as for all its code.
    return true;
}

bool neon_has_f16_arith() {
#if defined(OF_NEON_F16) && defined(__aarch64__)
    return (getauxval(AT_HWCAP) & HWCAP_ASIMDHP) != 0;
#else
    // x86-64 (SIMDe): no FP16 vector arithmetic. With OF_SIMDE_F16 the F16 kernels are built
    // (emulated lane by lane, 45-85x slower than F32) for the kernel checks, which call them
    // directly (neon_f16_kernels_callable); they are never installed, so an F16 request runs F32.
    return false; // or built without FP16 vector arithmetic (-march below armv8.2-a+fp16)
#endif
}

bool neon_f16_kernels_callable() {
#if defined(OF_NEON_F16) && defined(__aarch64__)
    return neon_has_f16_arith();
#elif defined(OF_NEON_F16)
    return true;
#else
    return false;
#endif
}

void kernel_table_init_neon(KernelTable* t, bool f16) {
    // convert stays the reference's: once per frame, format- and stride-bound.
    t->blur_h = blur_h_neon;
    t->blur_v = blur_v_neon;
    t->resample = resample_neon;
    t->gradient = gradient_neon;
    t->tvl1_warp = tvl1_warp_neon;
    t->upsample_flow = upsample_flow_neon;
    t->tvl1_calc_u = tvl1_calc_u_neon;
    t->tvl1_calc_u2 = tvl1_calc_u2_neon;
    t->tvl1_calc_p = tvl1_calc_p_neon;
    t->tvl1_iter_rows = tvl1_iter_rows_neon;
    t->median_flow = median_flow_neon;
    t->dual_bytes = sizeof(float);
#if defined(OF_NEON_F16)
    // The three F16 entries share the half layout of the duals: installed together or not at all.
    if (f16 && neon_has_f16_arith()) {
        t->tvl1_calc_u = tvl1_calc_u_f16_neon;
        t->tvl1_calc_p = tvl1_calc_p_f16_neon;
        t->tvl1_iter_rows = tvl1_iter_rows_f16_neon;
        t->dual_bytes = sizeof(float16_t);
    }
#else
    (void)f16;
#endif
}

void hs_kernels_init_neon(HsKernels* t, bool f16) {
    t->derivatives = hs_derivatives_neon;
    t->tensor = hs_tensor_neon;
    t->blur_h_multi = hs_blur_h_multi_neon;
    t->blur_v_multi = hs_blur_v_multi_neon;
    t->rb_split = rb_split_neon;
    t->rb_merge = rb_merge_neon;
    t->hs_jacobi = hs_jacobi_neon;
    t->clg_jacobi = clg_jacobi_neon;
    t->sor_half_sweep = sor_half_sweep_neon;
    // clg_jacobi_plain stays the reference's: only the convergence comparison uses it.
#if defined(OF_NEON_F16)
    // F16: the Jacobi updates (9-point means in F16, solves in F32); SOR, the per-warp stages
    // and split / merge stay F32 (neon/hs_f16_neon.cpp says why).
    if (f16 && neon_has_f16_arith()) {
        t->hs_jacobi = hs_jacobi_f16_neon;
        t->clg_jacobi = clg_jacobi_f16_neon;
    }
#else
    (void)f16;
#endif
}

void lk_kernels_init_neon(LkKernels* t) {
    // Every entry: the gradient the level solver uses (Scharr) and both operators of the family,
    // the tensor, the window sums (block running sums: lk_box_neon.cpp), the confidence, the
    // residual products and the Newton step; none is F16. The census entries (census_tensor,
    // census_products) stay the reference's (lk_kernels_init_ref filled them), as HS's census
    // tensor does: the census path's box sums, confidence and Newton step are these NEON ones.
    t->scharr = lk_scharr_neon;
    t->prewitt = lk_prewitt_neon;
    t->gradient = lk_scharr_neon;
    t->tensor = lk_tensor_neon;
    t->box_h_multi = lk_box_h_multi_neon;
    t->box_v_multi = lk_box_v_multi_neon;
    t->confidence = lk_confidence_neon;
    t->residual = lk_residual_neon;
    t->update = lk_update_neon;
}

} // namespace oflow
