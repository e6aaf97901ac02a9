// Horn-Schunck and CLG on one pyramid level, CPU paths (core/hs_algorithm.cpp's level solver).
#ifndef OFLOW_CORE_HS_LEVEL_CPU_HPP
#define OFLOW_CORE_HS_LEVEL_CPU_HPP

#include "core/hs_kernels.hpp"
#include "oflow.h"

#include <cstdint>

namespace oflow {

struct LevelJob;

/// HS/CLG work planes (Frame::algo(i, level)). The first kScratchPlanes are free between warps
/// (the shared pyramid code uses them before the first level is solved).
enum HsPlane : int {
    kHsI1w = 0, kHsIx, kHsIy, kHsIt, // frame 1 warped by the flow, the cube derivatives
    kHsDu, kHsDv, kHsDu2, kHsDv2,    // the increment and its next iterate (SOR: each plane holds
                                     // a red half and a black half per row: hs_split_views)
    kHsJ0,                           // kHsJ0 + c: structure tensor channel c (CLG, or SOR)
    kHsExtra = kHsJ0 + kHsChannels,  // blur scratch (CLG) / fifth split tensor plane (SOR)
    kHsPlanesAll
};
/// Horn-Schunck with Jacobi needs the first 8 only (no tensor planes).
const int kHsPlanesJacobi = kHsDv2 + 1;

/// Work planes cfg needs: kHsPlanesJacobi for HS with Jacobi, else kHsPlanesAll.
int hs_work_planes(const of_config& cfg);
const char* hs_work_plane_name(const of_config& cfg, int i);

/// A full plane's slot seen as the two halves of the red-black layout (core/hs_kernels.hpp):
/// red in the first (w + 1) / 2 floats of each row, black in the next (w + 1) / 2. Both fit in
/// the row's pitch (host_pitch(w) >= 2 ((w + 1) / 2) for every w).
void hs_split_views(Plane full, Plane* red, Plane* black);

/// Algorithm::solve_level_cpu of HS and CLG: per warp, warp frame 1 by the flow, derivatives,
/// (CLG: the tensor smoothed with sigma rho; SOR: the tensor split red/black), the increment
/// solved from zero by config.hs.solver until epsilon or config.iterations, flow += increment,
/// the median filter.
void hs_solve_level_cpu(const LevelJob& job);

namespace selftest {
class Sink;
struct Path;
} // namespace selftest
/// of_selftest cases of HS and CLG on one CPU path (core/hs_selftest.cpp).
void hs_selftest(selftest::Sink* sink, const selftest::Path& path, bool full, uint32_t threads);

} // namespace oflow

#endif
