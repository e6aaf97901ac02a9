// Flow accuracy against ground truth (Baker et al.): endpoint error and angular error.
#ifndef OFLOW_CLI_FLOW_METRICS_HPP
#define OFLOW_CLI_FLOW_METRICS_HPP

#include <cstddef>

namespace cli {

struct FlowError {
    double epe = 0.0;      ///< mean |(u, v) - (gu, gv)| in pixels
    double aae = 0.0;      ///< mean angle between (u, v, 1) and (gu, gv, 1), degrees
    std::size_t count = 0; ///< pixels compared (known ground truth); 0: epe and aae are NaN
};

/// Compares n interleaved (u, v) pairs with ground truth gt, skipping pixels whose ground
/// truth is unknown (flow_unknown) and, with a validity mask (of_flow.valid as
/// OF_VALID_MASK_U8: 255 valid), the pixels it calls invalid.
FlowError flow_error(const float* uv, const float* gt, std::size_t n, const unsigned char* valid = nullptr);

} // namespace cli

#endif
