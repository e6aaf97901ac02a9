// TV-L1's CPU level solver and its work planes (core/algorithm.hpp).
#ifndef OFLOW_CORE_TVL1_LEVEL_CPU_HPP
#define OFLOW_CORE_TVL1_LEVEL_CPU_HPP

namespace oflow {

struct LevelJob;

/// TV-L1's work planes (Frame::algo(i, level)). The first kScratchPlanes are the warp outputs,
/// which the shared pyramid code may use before the first level is solved.
enum Tvl1Plane : int {
    kTvI1w = 0, kTvI1wx, kTvI1wy,  // I1, dI1/dx, dI1/dy at x + u (bicubic, clamped)
    kTvI1x, kTvI1y,                // gradient of frame 1 at the level
    kTvGrad, kTvRhoC,              // |grad I1w|^2 and rho's constant part
    kTvP11, kTvP12, kTvP21, kTvP22, // duals
    kTvPlanes,
    // OF_ROBUST_CENSUS only: the warp's gradient of frame 1, which the census channels read
    // before they write TV-L1's major channel into kTvI1wx / kTvI1wy / kTvGrad / kTvRhoC; the
    // minor channel (core/census.hpp)
    kTvCensusGx = kTvPlanes, kTvCensusGy,
    kTvMinorQ, kTvMinorRhoC,
    kTvPlanesCensus
};

/// Algorithm::solve_level_cpu of TV-L1.
void tvl1_solve_level_cpu(const LevelJob& job);

} // namespace oflow

#endif
