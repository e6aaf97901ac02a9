// Lucas-Kanade under OF_ROBUST_CENSUS on the device: the Newton steps of core/lk_census_cpu.cpp
// (core/lk_kernels.hpp's census paragraph has the equations), one pyramid level at a time
// (lk_census_frame.cu lk_census_steps). Step n of a level is launch n of its stop slot:
//  1. warp:   I1w = I1 at x + u, bicubic, I0 where x + u leaves the level (HS's
//             launch_hs_warp_image: warp_image_ref's operations);
//  2. tensor: the 8 census channels' summed tensor at u, J11, J12, J13, J22, J23 (HS's
//             launch_census_tensor: census_tensor_ref's operations, the central-difference
//             gradient of I1w taken in the kernel, eta = Ctrl::census_eta of the level);
//  3. rows:   per pixel the horizontal box sums of J11, J12, J22 and of the residual products
//             (J13 - (J11 u1 + J12 u2), J23 - (J12 u1 + J22 u2)), each product formed at its tap
//             with lk_census_products_ref's F32 operations, every sum from 0 with the taps from
//             column -r up (lk_box_h_multi_ref's order);
//     (step 0 only) validity: LK's launch_lk_confidence on the three G row sums, as the
//             intensity level's setup: conf, state and the valid count into the stop slot (-1
//             when no pixel is valid: no step runs, as the CPU's level, which then breaks);
//  4. step:   the vertical box sums of the five row sums (rows from -r up from 0:
//             lk_box_v_multi_ref's order), G and S = (X, Y), then lk_update_ref's double step
//             (lk_newton_ref) on every active pixel, the active pixels counted into the stop
//             slot (launch n): the level ends on the device when none is left.
// Launches 2-4 of a step return at once once the slot says the level ended; the warp still
// runs (its output is then never read). Every file involved is compiled without contraction and
// with IEEE division and square root (cuda/CMakeLists.txt), so each plane equals the reference
// kernels' bit for bit from the same inputs and eta, and a level's steps are the reference
// path's lk_census_steps.
//
// The flow is updated in place in u[ucur]: a step reads its own pixel's flow only, and the row
// pass, which reads the neighbours', has run before it. So the census steps do not ping-pong,
// and u[ucur ^ 1] is free during the level. The planes are LK's own slots (DevLayout; nothing is
// carved for census), level-sized with the level's pitch:
//   lk_box plane 3     I1w (read by the tensor launch only)
//   lk_tensor 0..2     J11, J12, J22 (after step 0's row pass the validity writes G over them)
//   lk_g               J13, J23 as two F32 planes (lk_g holds F32 pairs: census runs F32,
//                      cuda_layout.cu lk_resolve_tuning); a test hook's (X, Y) pairs after a step
//   lk_box planes 0..2 the row sums of J11, J12, J22
//   u[ucur ^ 1]        the row sums of the residual products, float2 pairs
//   lk_conf, lk_state  the confidence (level 0's is the validity output's) and the state.
// Precision F16 asked for runs F32 (the census tensor and its sums are F32 on every path), and
// the steps are GLOBAL's (one thread per pixel at the tuning's block), whatever variant is
// asked: of_info reports cuda-global-f32.
#ifndef OFLOW_CUDA_LK_CENSUS_CUDA_CUH
#define OFLOW_CUDA_LK_CENSUS_CUDA_CUH

#include "core/hs_kernels.hpp"
#include "core/status.hpp"
#include "cuda/lk_cuda.cuh"

namespace oflow {
namespace cuda {

/// Launches 3 and 4 of one census step (every plane of the level's size and pitch).
struct LkCensusStepArgs {
    int w, h, pitch, r;                 // level size, box radius (window - 1) / 2
    const float* j[kHsChannels];        // the census tensor at u (HS's channel order: kJ11 ..)
    float* gsum[kLkTensorChannels];     // row sums of J11, J12, J22: out of rows, in of step
    float2* esum;                       // row sums of the residual products: out of rows, in of step
    float2* u;                          // the flow: read by rows, updated in place by step
    unsigned char* state;               // in/out of step (1 active, 0 not)
    float2* sums;                       // test hook: (X, Y) of every pixel after step; nullptr in frames
    float epsilon;
    EpsArgs eps;                        // the level's stop slot (thresh 0); stop == nullptr: no count
};

/// Launch 3 (rows) of step n, bw x bh threads, one per pixel.
cudaError_t launch_lk_census_rows(const LkCensusStepArgs& a, int n, int bw, int bh, cudaStream_t s);
/// Launch 4 (step) of step n, bw x bh threads, one per pixel; counts the active pixels (launch n).
cudaError_t launch_lk_census_step(const LkCensusStepArgs& a, int n, int bw, int bh, cudaStream_t s);

void list_lk_census_kernels(KernelList* l);

struct State;

/// Up to `steps` census steps of level `level` (size d) from the flow u[ucur], updated in place
/// (the launches above, in the order of the top comment), at stop slot `slot` (slot < 0: no
/// stop slot, every step runs). sums: the
/// step launches also write every pixel's (X, Y) into lk_g (a test hook's view). eta must be
/// the level's (cuda_frame.cu computes it before the level). Enqueues only.
of_status lk_census_steps(State& st, const LevelDims& d, int level, int steps, int slot, int ucur, bool sums,
                          const ErrorSink& err);

} // namespace cuda
} // namespace oflow

#endif
