// Dense Inverse Search on one pyramid level, CPU paths. The shared driver hands each level the
// coarser level's flow (upsampled; zero at the coarsest level solved); a level at or above
// config.dis.finest_level replaces it by the patches' answer (search, propagation,
// densification) and refines it; a finer level passes it on unchanged.
//
// Every plane a stage reads is written first in the same level, so the flow does not depend on
// what the arena held; every stage runs over row bands (pixel rows or patch rows) whose results
// do not depend on the band split, so the flow does not depend on the thread count either.
#include "core/dis_level_cpu.hpp"

#include "core/flow_driver.hpp"
#include "core/hs_level_cpu.hpp" // the red-black SOR (HsSorPairs)

namespace oflow {

int dis_work_planes(const of_config&) { return kDisPlanes; }

const char* dis_work_plane_name(const of_config&, int i) {
    static const char* const names[kDisPlanes] = {"gx/i1w", "gy/J11", "rowsum/state/J12", "sx/J13", "sy/J22",
                                                 "tx/J23", "ty/du",  "md/dv",   "err/du2", "Sxx/dv2",
                                                 "Sxy",    "Syy",    "Sx",      "Sy"};
    return i >= 0 && i < kDisPlanes ? names[i] : "?";
}

namespace {

// A level-sized plane seen as a sparse nx x ny patch plane.
Plane sparse(Plane full, const DisGrid& g) {
    Plane p = full;
    p.w = g.nx;
    p.h = g.ny;
    return p;
}

// The refinement of the level's flow (core/dis_kernels.hpp, DisRefineArgs): frame 1 warped once
// by the flow, then refine_iterations fixed-point iterations, each the tensor at the current
// increment and kDisSorIterations red-black SOR iterations on it; flow += increment.
void refine(of_context* c, const Frame& f, int l, Plane u1, Plane u2) {
    const of_config& cfg = c->cfg;
    const int h = f.dims[l].h;
    const Plane i0 = f.level(kBufPyr0, l), i1 = f.level(kBufPyr1, l);
    DisRefineArgs ra;
    ra.i0 = i0;
    ra.i1w = f.algo(kDisI1w, l);
    ra.u1 = u1;
    ra.u2 = u2;
    for_rows(c, h, [&](int y0, int y1, int) { c->kt.warp_image(i0, i1, u1, u2, ra.i1w, y0, y1); });
    HsSorArgs red, black;
    for (int ch = 0; ch < kHsChannels; ++ch) {
        hs_split_views(f.algo(kDisJ0 + ch, l), &ra.j_red[ch], &ra.j_black[ch]);
        red.j[ch] = ra.j_red[ch];
        black.j[ch] = ra.j_black[ch];
    }
    HsSorPairs p{f.algo(kDisDu, l), f.algo(kDisDv, l), f.algo(kDisDu2, l), f.algo(kDisDv2, l)};
    hs_sor_zero(c, p); // the increment starts at zero
    const float alpha2 = cfg.dis.refine_alpha;
    ra.alpha2 = alpha2;
    ra.delta = cfg.dis.refine_delta;
    ra.gamma = cfg.dis.refine_gamma;
    for (uint32_t fp = 0; fp < cfg.dis.refine_iterations; ++fp) {
        hs_split_views(p.old_u, &ra.du_r, &ra.du_b);
        hs_split_views(p.old_v, &ra.dv_r, &ra.dv_b);
        for_rows(c, h, [&](int y0, int y1, int) { c->dis.refine_tensor(ra, y0, y1); });
        for (int it = 0; it < kDisSorIterations; ++it) hs_sor_iteration(c, &red, &black, alpha2, kDisSorOmega, &p);
    }
    // The latest increment is in p.old_* (halves): merged into the full planes p.next_*, added.
    hs_sor_merge(c, p);
    const int w = u1.w;
    for_rows(c, h, [&](int y0, int y1, int) {
        for (int y = y0; y < y1; ++y) {
            float* a1 = u1.row(y);
            float* a2 = u2.row(y);
            const float* d1 = p.next_u.row(y);
            const float* d2 = p.next_v.row(y);
            for (int x = 0; x < w; ++x) {
                a1[x] += d1[x];
                a2[x] += d2[x];
            }
        }
    });
}

} // namespace

void dis_solve_level_cpu(const LevelJob& job) {
    const Frame& f = *job.f;
    of_context* c = f.c;
    const of_config& cfg = c->cfg;
    const DisKernels& k = c->dis;
    const int l = job.level;
    if (l < static_cast<int>(cfg.dis.finest_level)) return; // the upsampled flow passes on
    const int w = f.dims[l].w, h = f.dims[l].h;
    const DisGrid g = dis_grid(w, h, static_cast<int>(cfg.dis.patch_size), static_cast<int>(cfg.dis.patch_stride));
    const Plane i0 = f.level(kBufPyr0, l), i1 = f.level(kBufPyr1, l);
    const Plane gx = f.algo(kDisGx, l), gy = f.algo(kDisGy, l);
    Plane sums[kDisSums];
    for (int ch = 0; ch < kDisSums; ++ch) sums[ch] = sparse(f.algo(kDisSum0 + ch, l), g);
    const Plane sx = sparse(f.algo(kDisStartX, l), g), sy = sparse(f.algo(kDisStartY, l), g);
    const Plane tx = sparse(f.algo(kDisTx, l), g), ty = sparse(f.algo(kDisTy, l), g);
    const Plane md = sparse(f.algo(kDisMd, l), g), err = sparse(f.algo(kDisErr, l), g);

    // 1-2. Gradient and the patch sums, channel by channel through the row-sum plane.
    for_rows(c, h, [&](int y0, int y1, int) { k.gradient(i0, gx, gy, y0, y1); });
    DisBoxArgs ba{gx, gy, f.algo(kDisRowSum, l), g, 0};
    for (int ch = 0; ch < kDisSums; ++ch) {
        ba.channel = ch;
        for_rows(c, h, [&](int y0, int y1, int) { k.box_h(ba, y0, y1); });
        const DisBoxVArgs va{ba.rowsum, sums[ch], g};
        for_rows(c, g.ny, [&](int j0, int j1, int) { k.box_v(va, j0, j1); });
    }

    // 3-5. Starts, then the rounds of steps (search: s -> t), each but the first after a
    // propagation (t -> s); the rounds' state (DisSearchArgs) skips the patches whose search or
    // propagation would repeat its previous result.
    const DisInitArgs ia{job.u1, job.u2, sx, sy, g};
    for_rows(c, g.ny, [&](int j0, int j1, int) { k.init(ia, j0, j1); });
    const int iters = static_cast<int>(cfg.dis.iterations);
    DisSearchArgs sa;
    sa.i0 = i0;
    sa.i1 = i1;
    sa.gx = gx;
    sa.gy = gy;
    for (int ch = 0; ch < kDisSums; ++ch) sa.sum[ch] = sums[ch];
    sa.sx_in = sx;
    sa.sy_in = sy;
    sa.sx_out = tx;
    sa.sy_out = ty;
    sa.md = md;
    sa.err = err;
    sa.g = g;
    sa.state = sparse(f.algo(kDisState, l), g);
    const int rounds = (iters + kDisRoundSteps - 1) / kDisRoundSteps;
    DisPropagateArgs pa{i0, i1, tx, ty, err, sx, sy, g, sa.state};
    for (int r = 0; r < rounds; ++r) {
        pa.resume = r > 1; // the propagation before round 1 is the first
        if (r > 0) for_rows(c, g.ny, [&](int j0, int j1, int) { k.propagate(pa, j0, j1); });
        sa.resume = r > 0;
        sa.iterations = iters * (r + 1) / rounds - iters * r / rounds;
        for_rows(c, g.ny, [&](int j0, int j1, int) { k.search(sa, j0, j1); });
    }
    *job.iterations += static_cast<uint64_t>(iters);

    // 6. Densification into the level's flow.
    const DisDensifyArgs da{i0, i1, tx, ty, md, job.u1, job.u2, gx, g}; // gx: free after the search
    for_rows(c, h, [&](int y0, int y1, int) { k.densify(da, y0, y1); });

    // 7. The refinement, then the median filter when asked for (DIS's default: off).
    if (cfg.dis.refine_iterations > 0) refine(c, f, l, job.u1, job.u2);
    const int median = static_cast<int>(cfg.median_size);
    if (median > 0) median_flow(c, job.u1, job.u2, f.work(kBufTmp, l), median);
}

} // namespace oflow
