// Dense pyramidal Lucas-Kanade on one pyramid level, CPU paths. Bouguet's scheme, densely: the
// shared driver hands each level the coarser level's flow (upsampled; zero at the coarsest
// level solved), and the level refines it by Newton steps on the least-squares system of every
// valid window. The residual of a step samples frame 1 at each pixel's own flow, so the window
// sums of the right-hand side are box filters (Bouguet's per-point LK would use the centre
// pixel's flow for the whole window; for smooth flow the two agree).
//
// Every plane a step reads is written first in the same level (the state plane by the
// confidence pass), so the flow does not depend on what the arena held; every pass runs over
// row bands and the counts are integers, so it does not depend on the thread count either.
#include "core/lk_level_cpu.hpp"

#include "core/flow_driver.hpp"

namespace oflow {

int lk_work_planes(const of_config& cfg) { return cfg.robust == OF_ROBUST_CENSUS ? kLkPlanesCensus : kLkPlanes; }

const char* lk_work_plane_name(const of_config& cfg, int i) {
    static const char* const names[kLkPlanesCensus] = {"gx",     "gy",  "ex",  "ey",  "box_h0",     "box_h1",  "box_h2",
                                                       "G11",    "G12", "G22", "confidence", "lk_state", "I1w"};
    return i >= 0 && i < lk_work_planes(cfg) ? names[i] : "?";
}

LkLevelPlanes lk_level_planes(const LevelJob& job) {
    const Frame& f = *job.f;
    const of_config& cfg = f.c->cfg;
    const int l = job.level;
    const int s = static_cast<int>(cfg.lk.window);
    LkLevelPlanes p;
    p.radius = (s - 1) / 2;
    for (int ch = 0; ch < kLkTensorChannels; ++ch) {
        p.g[ch] = f.algo(kLkG0 + ch, l);
        p.hbox[ch] = f.algo(kLkH0 + ch, l);
        p.conf.j[ch] = p.g[ch];
        p.update.j[ch] = p.g[ch];
    }
    p.e[0] = f.algo(kLkEx, l);
    p.e[1] = f.algo(kLkEy, l);
    p.eh[0] = p.hbox[0];
    p.eh[1] = p.hbox[1];
    p.conf.conf = f.algo(kLkConf, l);
    p.conf.state = f.algo(kLkState, l);
    p.conf.inv_area = 1.0 / (static_cast<double>(s) * static_cast<double>(s));
    p.conf.min_eigen = cfg.lk.min_eigen;
    p.update.ex = p.e[0];
    p.update.ey = p.e[1];
    p.update.state = p.conf.state;
    p.update.u1 = job.u1;
    p.update.u2 = job.u2;
    p.update.epsilon = cfg.epsilon;
    return p;
}

void lk_solve_level_cpu(const LevelJob& job) {
    const Frame& f = *job.f;
    of_context* c = f.c;
    const of_config& cfg = c->cfg;
    const LkKernels& k = c->lk;
    const int l = job.level;
    const int h = f.dims[l].h;
    const int median = static_cast<int>(cfg.median_size);
    if (cfg.robust == OF_ROBUST_CENSUS) { // the census tensor, rebuilt at every step
        *job.iterations += lk_census_steps(job);
        if (median > 0) median_flow(c, job.u1, job.u2, f.work(kBufTmp, l), median);
        return;
    }
    const LkLevelPlanes p = lk_level_planes(job);
    const Plane* g = p.g;
    const Plane* hbox = p.hbox;
    const int r = p.radius;
    const Plane i0 = f.level(kBufPyr0, l), i1 = f.level(kBufPyr1, l);
    const Plane gx = f.algo(kLkGx, l), gy = f.algo(kLkGy, l);
    double* sums = band_sums(c);

    // 1-3. Gradient, its tensor summed over the windows (products in G, the horizontal pass
    // into the scratch planes, the vertical one back into G), confidence and validity.
    for_rows(c, h, [&](int y0, int y1, int) { k.gradient(i0, gx, gy, y0, y1); });
    LkTensorArgs ta;
    ta.gx = gx;
    ta.gy = gy;
    for (int ch = 0; ch < kLkTensorChannels; ++ch) ta.j[ch] = g[ch];
    for_rows(c, h, [&](int y0, int y1, int) { k.tensor(ta, y0, y1); });
    for_rows(c, h, [&](int y0, int y1, int) { k.box_h_multi(g, hbox, kLkTensorChannels, r, y0, y1); });
    for_rows(c, h, [&](int y0, int y1, int) { k.box_v_multi(hbox, g, kLkTensorChannels, r, y0, y1); });
    for_rows(c, h, [&](int y0, int y1, int band) { sums[band * kBandSumStride] = k.confidence(p.conf, y0, y1); });
    const double valid = sum_bands(c, h);

    // 4. Newton steps while a valid pixel is still moving.
    const LkResidualArgs ra{i0, i1, gx, gy, job.u1, job.u2, p.e[0], p.e[1]};
    const Plane* e = p.e;
    const Plane* eh = p.eh;
    const LkUpdateArgs& ua = p.update;
    uint32_t n = 0;
    while (valid > 0.0 && n < job.max_iterations) {
        for_rows(c, h, [&](int y0, int y1, int) { k.residual(ra, y0, y1); });
        for_rows(c, h, [&](int y0, int y1, int) { k.box_h_multi(e, eh, 2, r, y0, y1); });
        for_rows(c, h, [&](int y0, int y1, int) { k.box_v_multi(eh, e, 2, r, y0, y1); });
        for_rows(c, h, [&](int y0, int y1, int band) { sums[band * kBandSumStride] = k.update(ua, y0, y1); });
        ++n;
        if (sum_bands(c, h) == 0.0) break; // every pixel has stopped
    }
    *job.iterations += n;

    // 5. Invalid pixels kept their initial flow; the median only when asked for (LK's default 0).
    if (median > 0) median_flow(c, job.u1, job.u2, f.work(kBufTmp, l), median);
}

} // namespace oflow
