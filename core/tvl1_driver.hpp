// TV-L1 driver for the CPU paths: pyramid, coarse-to-fine warps and inner iterations, all
// through the context's kernel table and thread pool. Inputs are validated by the caller
// (api/oflow.cpp); this function does not allocate and writes `out` only at the end.
#ifndef OFLOW_CORE_TVL1_DRIVER_HPP
#define OFLOW_CORE_TVL1_DRIVER_HPP

#include "core/context.hpp"

namespace oflow {

of_status tvl1_process_cpu(of_context* ctx, const of_image& prev, const of_image& next,
                           const of_flow& out);

} // namespace oflow

#endif
