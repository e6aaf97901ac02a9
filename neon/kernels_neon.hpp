// NEON backend entry points (aarch64 only; this header compiles anywhere, the .cpp files only
// under OF_HAVE_NEON). kernel_table_init_neon overrides the reference entries it vectorises and
// leaves the others (convert) as they are, so it must be called on a table that
// kernel_table_init_ref has already filled.
#ifndef OFLOW_NEON_KERNELS_NEON_HPP
#define OFLOW_NEON_KERNELS_NEON_HPP

namespace oflow {

struct KernelTable;
struct HsKernels;
struct LkKernels;
struct DisKernels;

/// True in every build with the NEON kernels (Advanced SIMD is mandatory on aarch64; on x86-64
/// SIMDe maps them to the build's SSE baseline).
bool neon_available();
/// True when compiled with __ARM_FEATURE_FP16_VECTOR_ARITHMETIC and the CPU reports
/// HWCAP_ASIMDHP at run time (Xavier, Orin): the F16 kernels may be installed. Never on x86-64.
bool neon_has_f16_arith();
/// True when this build compiled the F16 kernels and this CPU can run them: neon_has_f16_arith()
/// on aarch64; on x86-64 whether OF_SIMDE_F16 built them (emulated through SIMDe: the kernel
/// checks call them directly, the kernel tables never install them).
bool neon_f16_kernels_callable();
/// Overrides the vectorised entries of t; f16 is honoured only when neon_has_f16_arith(),
/// otherwise an F16 request fills the F32 kernels.
void kernel_table_init_neon(KernelTable* t, bool f16);
/// Overrides the HS / CLG entries it vectorises on a table hs_kernels_init_ref filled: in F32
/// every stage and solver but the plain point Jacobi (only the convergence comparison uses
/// it); with f16 and neon_has_f16_arith(), HS's and CLG's Jacobi updates compute their 9-point
/// means in F16 (neon/hs_f16_neon.cpp; the SOR half-sweep stays F32, that file says why).
void hs_kernels_init_neon(HsKernels* t, bool f16);
/// Overrides every entry of the Lucas-Kanade family on a table lk_kernels_init_ref filled, in
/// F32 (neon/lk_stages_neon.cpp, lk_box_neon.cpp, lk_step_neon.cpp). No LK kernel computes in
/// F16 (lk_stages_neon.cpp's top comment says why, kernel by kernel): the LK entry's cpu_f16 is
/// false, so precision F16 runs these.
void lk_kernels_init_neon(LkKernels* t);
/// Overrides the Dense Inverse Search entries it vectorises on a table dis_kernels_init_ref
/// filled, in F32 (neon/dis_patch_neon.cpp: search, propagation; dis_dense_neon.cpp: gradient,
/// densification; dis_refine_neon.cpp: the refinement's tensor). box_h, box_v and init stay the
/// reference's. No DIS kernel computes in F16 (dis_patch_neon.cpp's top comment says why).
void dis_kernels_init_neon(DisKernels* t);

} // namespace oflow

#endif
