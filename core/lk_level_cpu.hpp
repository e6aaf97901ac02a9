// Dense pyramidal Lucas-Kanade on one pyramid level, CPU paths (core/lk_algorithm.cpp's level
// solver), and its self-test cases.
#ifndef OFLOW_CORE_LK_LEVEL_CPU_HPP
#define OFLOW_CORE_LK_LEVEL_CPU_HPP

#include "core/lk_kernels.hpp"
#include "oflow.h"

#include <cstdint>

namespace oflow {

struct LevelJob;

/// LK work planes (Frame::algo(i, level)). The first kScratchPlanes (the gradient and the first
/// residual plane) are free between levels: the shared pyramid code uses them before the first
/// level is solved. kLkConf keeps the level's confidence after its solve: level 0's is the
/// validity output (Algorithm::confidence_plane).
enum LkPlane : int {
    kLkGx = 0, kLkGy,         // frame 0's gradient
    kLkEx, kLkEy,             // gx it, gy it, then their window sums
    kLkH0,                    // kLkH0 + c: the horizontal box pass of channel c (scratch)
    kLkG0 = kLkH0 + kLkTensorChannels, // kLkG0 + c: tensor channel c, then its window sums G
    kLkConf = kLkG0 + kLkTensorChannels, // smaller eigenvalue of G / window area
    kLkState,                 // 1: valid and still stepping; 0: invalid or stopped
    kLkPlanes,
    // OF_ROBUST_CENSUS only (lk_work_planes): frame 1 warped by the flow. Under census kLkGx /
    // kLkGy hold its central-difference gradient, kLkG0.. the census J11, J12, J22 and then
    // their window sums, kLkEx / kLkEy J13, J23, then the residual products and their sums.
    kLkI1w = kLkPlanes,
    kLkPlanesCensus
};

/// A level's planes and arguments shared by both solvers (lk_level_planes): the tensor
/// channels g (then their window sums G), the box scratch, the residual pair e and its scratch
/// eh, the confidence and update arguments over them (config.lk's window and min_eigen,
/// config.epsilon, the job's flow).
struct LkLevelPlanes {
    Plane g[kLkTensorChannels], hbox[kLkTensorChannels];
    Plane e[2], eh[2];
    LkConfArgs conf;
    LkUpdateArgs update;
    int radius; // (window - 1) / 2
};
LkLevelPlanes lk_level_planes(const LevelJob& job);

int lk_work_planes(const of_config& cfg);
const char* lk_work_plane_name(const of_config& cfg, int i);

/// Algorithm::solve_level_cpu of LK (core/lk_kernels.hpp has the steps): gradient of frame 0,
/// window sums of its tensor, confidence and validity, then up to job.max_iterations Newton
/// steps on the valid pixels (the level ends when every pixel has stopped), then the median
/// filter when config.median_size > 0. Invalid pixels keep the flow the level started with.
/// Under OF_ROBUST_CENSUS the steps are lk_census_steps' (then the same median).
void lk_solve_level_cpu(const LevelJob& job);

/// OF_ROBUST_CENSUS's level (core/lk_census_cpu.cpp, core/lk_kernels.hpp's census paragraph):
/// up to job.max_iterations Newton steps on the census tensor re-linearised at every step, the
/// validity from the first step's window sums. Returns the steps run.
uint32_t lk_census_steps(const LevelJob& job);

namespace selftest {
class Sink;
struct Path;
} // namespace selftest
/// of_selftest cases of LK on one CPU path (core/lk_selftest.cpp).
void lk_selftest(selftest::Sink* sink, const selftest::Path& path, bool full, uint32_t threads);

} // namespace oflow

#endif
