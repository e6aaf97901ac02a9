// Dense Inverse Search on one pyramid level, CPU paths (core/dis_algorithm.cpp's level solver),
// and its self-test cases.
#ifndef OFLOW_CORE_DIS_LEVEL_CPU_HPP
#define OFLOW_CORE_DIS_LEVEL_CPU_HPP

#include "core/dis_kernels.hpp"
#include "oflow.h"

#include <cstdint>

namespace oflow {

struct LevelJob;

/// DIS work planes (Frame::algo(i, level)). The patch planes are sparse: a patch grid of
/// nx x ny (core/dis_kernels.hpp, DisGrid) seen in the first nx columns of the first ny rows of
/// a level-sized plane (nx <= w, ny <= h). The refinement, after the densification, reuses the
/// first ten planes.
enum DisPlane : int {
    kDisGx = 0, kDisGy,  // frame 0's gradient
    kDisRowSum,          // the horizontal pass of one patch sum
    kDisStartX, kDisStartY, // the patches' flows (starts; after propagation)
    kDisTx, kDisTy,      // the patches' flows after a search
    kDisMd,              // the patches' mean error at their flow
    kDisErr,             // the patches' error E at their flow
    kDisSum0,            // kDisSum0 + c: patch sum c (DisSum)
    kDisPlanes = kDisSum0 + kDisSums,
    kDisState = kDisRowSum, // after the patch sums: the rounds' flags (DisSearchArgs::state)
    // The refinement's planes (aliases):
    kDisI1w = 0,         // frame 1 warped by the flow
    kDisJ0 = 1,          // kDisJ0 + c: the tensor channel c, split red / black
    kDisDu = kDisJ0 + kHsChannels, kDisDv, kDisDu2, kDisDv2, // the increment, split, two iterates
};
static_assert(kDisDv2 < kDisPlanes, "the refinement's planes alias the patch planes");

/// SOR iterations (red and black) per fixed-point iteration of the refinement, and its
/// over-relaxation (OpenCV's DIS runs 5; core/hs_kernels.hpp: omega up to 1.5 converges).
const int kDisSorIterations = 5;
const float kDisSorOmega = 1.4f;

int dis_work_planes(const of_config& cfg);
const char* dis_work_plane_name(const of_config& cfg, int i);

/// Algorithm::solve_level_cpu of DIS (core/dis_kernels.hpp has the steps): levels finer than
/// config.dis.finest_level keep the upsampled flow; else gradient, patch sums, the rounds of
/// search with a propagation before each but the first, densification, the refinement, then the
/// median filter when config.median_size > 0. Adds the Gauss-Newton steps allowed per patch.
void dis_solve_level_cpu(const LevelJob& job);

namespace selftest {
class Sink;
struct Path;
} // namespace selftest
/// of_selftest cases of DIS on one CPU path (core/dis_selftest.cpp).
void dis_selftest(selftest::Sink* sink, const selftest::Path& path, bool full, uint32_t threads);

} // namespace oflow

#endif
