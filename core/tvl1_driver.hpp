// TV-L1 driver for the CPU paths: pyramid, coarse-to-fine warps and inner iterations, all
// through the context's kernel table and thread pool. Inputs are validated by the caller
// (api/oflow.cpp); this function does not allocate and writes `out` only at the end.
#ifndef OFLOW_CORE_TVL1_DRIVER_HPP
#define OFLOW_CORE_TVL1_DRIVER_HPP

#include "core/context.hpp"

namespace oflow {

of_status tvl1_process_cpu(of_context* ctx, const of_image& prev, const of_image& next,
                           const of_flow& out);

/// The CPU half of a CUDA frame split by level (Plan::split_from > 0): the CUDA path has put
/// levels split_from.. of both pyramids of a w x h frame into kBufPyr0/kBufPyr1 (at the
/// plan's level offsets, host_pitch rows); this solves them coarse to fine on the CPU kernel
/// table and writes level split_from's flow to kBufSplitFlow, interleaved (u1, u2) in rows of
/// 2w floats. `top` is the coarsest level to solve (the texture rule's choice, made by the CUDA
/// path on the same pyramid; below split_from the flow handed back is zero). Adds the inner
/// iterations it ran to *iterations.
of_status tvl1_solve_coarse_cpu(of_context* ctx, int w, int h, int top, uint64_t* iterations);

} // namespace oflow

#endif
