// Dense pyramidal Lucas-Kanade under OF_ROBUST_CENSUS on one pyramid level, CPU paths
// (core/lk_kernels.hpp's census paragraph has the equations). Per Newton step, at the current
// flow u:
//   warp:      I1w = I1 at x + u (KernelTable::warp_image; I0 where x + u leaves the level)
//   gradient:  (gx, gy) = central differences of I1w (KernelTable::gradient, census's contract)
//   tensor:    J11, J12, J22 into G, J13, J23 into (ex, ey) (LkKernels::census_tensor, HS's kernel)
//   products:  (ex, ey) = (J13 - J11 u1 - J12 u2, J23 - J12 u1 - J22 u2)
//   window:    box sums of the three G channels and of (ex, ey), through the box scratch planes
//   validity:  on the first step only: confidence and state from G (LK's rule, min_eigen)
//   update:    u = -G^-1 (ex, ey) where state is 1; |delta| < epsilon stops a pixel.
// Every plane a step reads is written first in the same step (the state on the first), so the
// flow does not depend on what the arena held, nor (row bands, integer counts) on the threads.
// The CUDA path runs these steps with the same operations (cuda/lk_census_cuda.cuh).
#include "core/census.hpp"
#include "core/flow_driver.hpp"
#include "core/hs_kernels.hpp"
#include "core/lk_level_cpu.hpp"

namespace oflow {

uint32_t lk_census_steps(const LevelJob& job) {
    const Frame& f = *job.f;
    of_context* c = f.c;
    const LkKernels& k = c->lk;
    const KernelTable& kt = c->kt;
    const int l = job.level;
    const int h = f.dims[l].h;
    const LkLevelPlanes p = lk_level_planes(job);
    const Plane* g = p.g;
    const Plane* hbox = p.hbox;
    const Plane* e = p.e;
    const Plane* eh = p.eh;
    const int r = p.radius;
    const Plane i0 = f.level(kBufPyr0, l), i1 = f.level(kBufPyr1, l);
    const Plane i1w = f.algo(kLkI1w, l);

    CensusTensorArgs ta;
    ta.i0 = i0;
    ta.i1w = i1w;
    ta.gx = f.algo(kLkGx, l);
    ta.gy = f.algo(kLkGy, l);
    ta.u1 = job.u1;
    ta.u2 = job.u2;
    ta.j[kJ11] = g[kG11];
    ta.j[kJ12] = g[kG12];
    ta.j[kJ22] = g[kG22];
    ta.j[kJ13] = e[0];
    ta.j[kJ23] = e[1];
    // eta: each frame's level noise and its level-0 contrast (core/census.hpp), once per level.
    ta.eta0 = census_eta(census_level_noise(c, i0), f.census_rms0[0]);
    ta.eta1 = census_eta(census_level_noise(c, i1), f.census_rms0[1]);
    LkCensusArgs pa;
    for (int ch = 0; ch < kLkTensorChannels; ++ch) pa.j[ch] = g[ch];
    pa.u1 = job.u1;
    pa.u2 = job.u2;
    pa.bx = e[0];
    pa.by = e[1];
    double* sums = band_sums(c);
    uint32_t n = 0;
    while (n < job.max_iterations) {
        for_rows(c, h, [&](int y0, int y1, int) { kt.warp_image(i0, i1, job.u1, job.u2, i1w, y0, y1); });
        for_rows(c, h, [&](int y0, int y1, int) { kt.gradient(i1w, ta.gx, ta.gy, y0, y1); });
        for_rows(c, h, [&](int y0, int y1, int) { k.census_tensor(ta, y0, y1); });
        for_rows(c, h, [&](int y0, int y1, int) { k.census_products(pa, y0, y1); });
        for_rows(c, h, [&](int y0, int y1, int) { k.box_h_multi(g, hbox, kLkTensorChannels, r, y0, y1); });
        for_rows(c, h, [&](int y0, int y1, int) { k.box_v_multi(hbox, g, kLkTensorChannels, r, y0, y1); });
        for_rows(c, h, [&](int y0, int y1, int) { k.box_h_multi(e, eh, 2, r, y0, y1); });
        for_rows(c, h, [&](int y0, int y1, int) { k.box_v_multi(eh, e, 2, r, y0, y1); });
        if (n == 0) {
            for_rows(c, h, [&](int y0, int y1, int band) { sums[band * kBandSumStride] = k.confidence(p.conf, y0, y1); });
            if (sum_bands(c, h) == 0.0) break; // no valid window at this level
        }
        for_rows(c, h, [&](int y0, int y1, int band) { sums[band * kBandSumStride] = k.update(p.update, y0, y1); });
        ++n;
        if (sum_bands(c, h) == 0.0) break; // every pixel has stopped
    }
    return n;
}

} // namespace oflow
