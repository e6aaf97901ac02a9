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

/// The red-black SOR's increment (core/hs_kernels.hpp), shared by HS/CLG's solver and DIS's
/// refinement: two pairs of full planes, each seen as its red and black halves
/// (hs_split_views); `old` holds the current iterate, `next` receives the following one.
struct HsSorPairs {
    Plane old_u, old_v, next_u, next_v;
};

/// Zeroes the halves of the iterate's pair (old_u, old_v): both halves, not the full planes' w
/// columns: with an odd w the black half of an odd row holds (w + 1) / 2 pixels, its last slot
/// at column 2 ((w + 1) / 2) - 1 = w (inside the pitch, outside the full plane's width), which
/// the first red half-sweep reads.
void hs_sor_zero(of_context* c, const HsSorPairs& p);

/// One SOR iteration: the red half-sweep (its old values and black's current ones) into the
/// next pair's red halves, then the black one against the new red; then the pairs swap, so
/// that p->old_* holds the new iterate. red / black come with their split tensor (j[]); the
/// views, alpha2, omega, colour and w (the full planes') are set here. Returns the change of
/// the iteration: each half-sweep's band sums in band order, red's then black's.
double hs_sor_iteration(of_context* c, HsSorArgs* red, HsSorArgs* black, float alpha2, float omega, HsSorPairs* p);

/// Merges the iterate's halves (p.old_*) into the next pair's full planes (p.next_*).
void hs_sor_merge(of_context* c, const HsSorPairs& p);

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
