// The CPU paths' frame driver, shared by every algorithm (core/algorithm.hpp): conversion,
// exposure matching, local normalisation, presmoothing, both pyramids, the texture rule's
// coarsest level, the coarse-to-fine loop (zero flow at the coarsest level solved, bilinear
// upsampling between levels, the sanity bound on every level, the level trace), the output
// (the flow in of_flow.format, core/flow_format.hpp, and of_flow's validity plane when asked
// for: the residual confidence of core/confidence.hpp, with the level-0 confidence plane of an
// algorithm with a rule of its own, Algorithm::confidence_plane).
// Per level it calls the context's Algorithm::solve_level_cpu. Inputs are validated by the
// caller (core/process.cpp); nothing here allocates, and `out` is written only at the end.
//
// Also the helpers a level solver shares: row bands on the pool, plane fill/copy, Gaussian
// blur, the median filter of the flow.
#ifndef OFLOW_CORE_FLOW_DRIVER_HPP
#define OFLOW_CORE_FLOW_DRIVER_HPP

#include "core/context.hpp"

#include <cstdint>

namespace oflow {

/// Geometry of one frame in a context: its level sizes and the context's planes at them.
struct Frame {
    of_context* c;
    LevelDims dims[kMaxLevels];
    int levels;
    /// OF_ROBUST_CENSUS: the RMS central-difference gradient of level 0 of each pyramid
    /// (core/census.hpp's eta), measured by build_pyramids once the pyramids are finished (one
    /// pass per frame and pair, not one per level); 0 under every other mode.
    mutable double census_rms0[2];

    /// Level l of pyramid kBufPyr0 / kBufPyr1.
    Plane level(HostBuf pyr, int l) const;
    /// Host buffer b (a level-0-sized plane slot) viewed at level l's size.
    Plane work(int b, int l) const;
    /// The algorithm's work plane i (kBufWork0 + i) at level l's size.
    Plane algo(int i, int l) const { return work(kBufWork0 + i, l); }
};

/// What a level solver gets (Algorithm::solve_level_cpu).
struct LevelJob {
    const Frame* f;
    int level;
    Plane u1, u2;         // the level's flow, in/out (kBufU1 / kBufU2 at the level's size)
    uint64_t* iterations; // add the inner iterations run
    uint32_t max_iterations; // inner iterations per warp at this level (core/schedule.hpp)
};

/// The whole frame on the CPU path of ctx's algorithm.
of_status flow_process_cpu(of_context* ctx, const of_image& prev, const of_image& next, const of_flow& out);

/// The CPU half of a CUDA frame split by level (Plan::split_from > 0): the CUDA path has put
/// levels split_from.. of both pyramids of a w x h frame into kBufPyr0/kBufPyr1 (at the
/// plan's level offsets, host_pitch rows); this solves them coarse to fine and writes level
/// split_from's flow to kBufSplitFlow, interleaved (u1, u2) in rows of 2w floats. `top` is the
/// coarsest level to solve (the texture rule's choice, made by the CUDA path on the same
/// pyramid; below split_from the flow handed back is zero). Adds the inner iterations it ran
/// to *iterations.
of_status flow_solve_coarse_cpu(of_context* ctx, int w, int h, int top, uint64_t* iterations);

// ---- helpers for level solvers ----------------------------------------------------------

/// Runs f(y0, y1, band) over the rows of an h-row plane on the context's pool.
template <class F>
void for_rows(of_context* c, int h, F f) {
    c->pool->for_rows(h, f);
}
void fill_zero(of_context* c, Plane p);
/// OF_ROBUST_CENSUS: the noise sigma of a level (census_noise_sigma of core/census.hpp),
/// its rows summed per band through KernelTable::census_noise_sum, the bands in order.
double census_level_noise(of_context* c, Plane p);
void copy_plane(of_context* c, Plane src, Plane dst);
/// dst = Gaussian(src) through tmp (separable); dst may be src.
void blur_plane(of_context* c, const Gaussian1D& g, Plane src, Plane tmp, Plane dst);
/// config.median_size median filter of both flow components, through tmp.
void median_flow(of_context* c, Plane u1, Plane u2, Plane tmp, int size);
/// The per-band double slots (one 64-byte slot per band) for reductions, and their stride.
double* band_sums(of_context* c);
const int kBandSumStride = 64 / static_cast<int>(sizeof(double));
/// Sum of the first bands(h) band slots, in band order.
double sum_bands(of_context* c, int h);

} // namespace oflow

#endif
