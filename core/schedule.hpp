// The multi-level iteration schedule (of_config.iteration_growth), one definition for every
// path (CPU driver, CUDA frame), the time-budget model (platform/tuning.cpp) and of_info:
//
//     level l (0 = the finest) runs  n_l = min(round(n_0 * (1 + growth * l)), kMaxLevelIterations)
//
// inner iterations per warp, n_0 = config.iterations or what the time budget bought. growth 0
// is the same count on every level. Why more on coarse levels: they are cheap (a quarter of the
// pixels per level at factor 0.5) and start from zero flow, so they are the furthest from
// converged; seed 000 (Seznec et al., CLG on Xavier) found 60/120/180/240 (n_0 60, growth 1)
// better than 75 on every level at the same frame time. Header-only: nvcc compiles it too.
#ifndef OFLOW_CORE_SCHEDULE_HPP
#define OFLOW_CORE_SCHEDULE_HPP

#include <cstdint>

namespace oflow {

/// config.iteration_growth's range: [0, kMaxIterationGrowth].
const float kMaxIterationGrowth = 16.0f;
/// The most inner iterations per warp on one level (config.iterations' bound).
const std::uint32_t kMaxLevelIterations = 100000;

/// n_l above. finest >= 1 gives n_l >= 1; growth must be in [0, kMaxIterationGrowth].
inline std::uint32_t level_iterations(std::uint32_t finest, float growth, int level) {
    const double n = static_cast<double>(finest) * (1.0 + static_cast<double>(growth) * static_cast<double>(level)) + 0.5;
    return n >= static_cast<double>(kMaxLevelIterations) ? kMaxLevelIterations : static_cast<std::uint32_t>(n);
}

/// The level where a stream's warm start (of_config.warm_start) enters: level 1, or level 0 of a
/// one-level pyramid. The previous pair's flow of this level is kept (core/stream.hpp).
inline int warm_level(int levels) { return levels >= 2 ? 1 : 0; }

} // namespace oflow

#endif
