// config.init OF_INIT_DIS on the CPU paths: the coarse flow of a coarse-to-fine solve repaired
// from Dense Inverse Search's flow of the same pair (docs/accuracy.md section 23).
//
// Per pair, before the solve: a DIS context of its own (of_context::init, created by
// context_create inside the parent's kBufInitArena, running on the parent's thread pool) runs
// on the same two frames (preset MEDIUM, its own preprocessing, a pyramid down to sides of
// kInitMinSide px) and writes its level-0 flow into kBufInitU1/U2. At every fused level of the
// solve (init_fuses: each solved level from the coarsest down to init_level, or the coarsest
// alone where that is finer) the coarse-to-fine flow u is replaced, before the level's solve, by
// DIS's flow d, area-averaged to the level, at every pixel where d explains the level's images
// better: where the sum over a (2 kInitFuseRadius + 1)^2 window of cost(u) - cost(d) is positive,
// cost the 1 - ZNCC of the 3x3 patch of frame 0 at x and of frame 1 read bilinearly at x + flow(x),
// and no evidence (0) at a pixel where either flow leaves the level (init_cost_diff; KernelTable
// init_* entries). The window sum keeps the choice from flickering pixel by pixel; the level's own
// solve then smooths the seams (docs/accuracy.md section 24 measured the levels and the rule).
//
// Invariants: the DIS pass allocates nothing (its arena is the parent's); it uses the parent's
// pool, so a context's thread count is the config's; the fusion reads only the level's
// pyramid images and writes only u1, u2 and the kBufInit* planes.
//
// On the CUDA path (cuda/init_dis_cuda.cu, cuda/init_fuse_cuda.cu) the DIS context runs on CUDA
// too, in a slice of the parent's device arena and on the parent's stream, straight on the
// parent's device frames; its flow goes to DevLayout::init_flow and the fusion kernels (the same
// arithmetic, bit for bit on F32 pyramids) run at the same level inside the parent's graph.
#ifndef OFLOW_CORE_INIT_DIS_HPP
#define OFLOW_CORE_INIT_DIS_HPP

#include "core/plane.hpp"
#include "oflow.h"

struct of_context;

namespace oflow {

struct Frame;

const int kInitMinSide = 8;     // the DIS pass's smallest pyramid side (px)
const int kInitFuseRadius = 3;  // the fusion's window: 7 x 7 pixels of the fused level

/// The finest fused level of a pyramid of `levels` levels: 1, or 0 for a one-level pyramid.
inline int init_level(int levels) { return levels >= 2 ? 1 : 0; }

/// The DIS pass's config for a parent config (checked, init OF_INIT_DIS) on the parent's resolved
/// backend `backend`: DIS MEDIUM, the parent's thread count (it runs on the parent's pool), the
/// parent's format and maximum size, levels for the maximum size down to kInitMinSide. On CUDA
/// (cuda/init_dis_cuda.cu) also the parent's precision (its resolved one: F32 or F16 storage) and
/// config.platform (the same board table, and the same GPU assumed by of_explain); the core then
/// gives it the parent's stream and a slice of the parent's device arena at create.
of_config init_dis_config(const of_config& parent, of_backend backend);

/// The DIS pass's level count for a w x h frame (its pyramid down to kInitMinSide).
int init_dis_levels(int w, int h);

/// The pair through the DIS pass into kBufInitU1/U2 (c->init non-null).
of_status init_dis_run_cpu(of_context* c, const of_image& prev, const of_image& next);

/// The fusion at level l of frame f (the solve's current flow u1, u2 at that level).
void init_fuse_cpu(const Frame& f, int l, Plane u1, Plane u2);

} // namespace oflow

#endif
