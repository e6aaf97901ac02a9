// TV-L1 on one pyramid level, CPU paths (Algorithm::solve_level_cpu of core/tvl1_algorithm.cpp):
// warps (bicubic re-linearisation at the current flow) and inner iterations (Zach, Pock,
// Bischof 2007; core/ref/tvl1_ref.cpp has the steps), epsilon stopping per warp, the median
// filter after every warp, through the context's KernelTable and pool. TV-L1 carries the
// global flow from level to level (not an increment).
#include "core/tvl1_level_cpu.hpp"

#include "core/flow_driver.hpp"
#include "core/ref/kernels_ref.hpp"
#include "core/census.hpp"

#include <cmath>

namespace oflow {
namespace {

// One inner iteration through the row-pipelined entry (KernelTable::tvl1_iter_rows): each
// band chains calc_u and calc_p down its rows in one pass; the last p row of every band but
// the lowest needs u of the next band's first row, so those seam rows follow in a short
// second pass. Each value is computed by the same row code whatever the banding, so the
// result does not depend on the thread count. Band sums land in the context's band slots.
void iterate_pipelined(of_context* c, const Tvl1IterArgs& it, int h) {
    const KernelTable& k = c->kt;
    double* sums = band_sums(c);
    int band_end[kMaxThreads];
    for_rows(c, h, [&](int y0, int y1, int band) {
        sums[band * kBandSumStride] = k.tvl1_iter_rows(it, y0, y1);
        band_end[band] = y1;
    });
    const int seams = c->pool->bands(h) - 1;
    if (seams > 0)
        for_rows(c, seams, [&](int b0, int b1, int) {
            for (int b = b0; b < b1; ++b) k.tvl1_calc_p(it, band_end[b] - 1, band_end[b]);
        });
}

} // namespace

void tvl1_solve_level_cpu(const LevelJob& job) {
    const Frame& f = *job.f;
    of_context* c = f.c;
    const of_config& cfg = c->cfg;
    const KernelTable& k = c->kt;
    const int l = job.level;
    const LevelDims& d = f.dims[l];
    const double eps2 = static_cast<double>(cfg.epsilon) * static_cast<double>(cfg.epsilon);
    double* sums = band_sums(c);

    Tvl1IterArgs it;
    it.u1 = job.u1;
    it.u2 = job.u2;
    it.p11 = f.algo(kTvP11, l);
    it.p12 = f.algo(kTvP12, l);
    it.p21 = f.algo(kTvP21, l);
    it.p22 = f.algo(kTvP22, l);
    it.i1wx = f.algo(kTvI1wx, l);
    it.i1wy = f.algo(kTvI1wy, l);
    it.grad = f.algo(kTvGrad, l);
    it.rho_c = f.algo(kTvRhoC, l);
    it.lt = cfg.tvl1.lambda * cfg.tvl1.theta;
    it.theta = cfg.tvl1.theta;
    it.tau_over_theta = cfg.tvl1.tau / cfg.tvl1.theta;
    fill_zero(c, it.p11);
    fill_zero(c, it.p12);
    fill_zero(c, it.p21);
    fill_zero(c, it.p22);

    Tvl1WarpArgs wa;
    wa.i0 = f.level(kBufPyr0, l);
    wa.i1 = f.level(kBufPyr1, l);
    wa.i1x = f.algo(kTvI1x, l);
    wa.i1y = f.algo(kTvI1y, l);
    wa.u1 = job.u1;
    wa.u2 = job.u2;
    wa.i1w = f.algo(kTvI1w, l);
    wa.i1wx = it.i1wx;
    wa.i1wy = it.i1wy;
    wa.grad = it.grad;
    wa.rho_c = it.rho_c;
    for_rows(c, d.h, [&](int y0, int y1, int) { k.gradient(wa.i1, wa.i1x, wa.i1y, y0, y1); });

    // OF_ROBUST_CENSUS: the warp's gradient goes to the census planes; the census channels then
    // write TV-L1's major channel where the iteration reads it, and the minor one beside it
    // (core/census.hpp); the iteration is tvl1_calc_u2 + tvl1_calc_p (F32 duals: select.cpp
    // never installs the F16 iteration under census).
    const bool census = cfg.robust == OF_ROBUST_CENSUS;
    CensusArgs ca;
    if (census) {
        wa.i1wx = f.algo(kTvCensusGx, l);
        wa.i1wy = f.algo(kTvCensusGy, l);
        ca.i0 = wa.i0;
        ca.i1w = wa.i1w;
        ca.gx = wa.i1wx;
        ca.gy = wa.i1wy;
        ca.u1 = job.u1;
        ca.u2 = job.u2;
        ca.ax = it.i1wx;
        ca.ay = it.i1wy;
        ca.grad = it.grad;
        ca.rho_c = it.rho_c;
        ca.minor.q = f.algo(kTvMinorQ, l);
        ca.minor.rho_c = f.algo(kTvMinorRhoC, l);
        // eta: each frame's level noise and its level-0 contrast (core/census.hpp; the latter
        // measured once per pair by build_pyramids: Frame::census_rms0)
        ca.eta0 = census_eta(census_level_noise(c, wa.i0), f.census_rms0[0]);
        ca.eta1 = census_eta(census_level_noise(c, wa.i1), f.census_rms0[1]);
    }

    const double npix = static_cast<double>(d.w) * static_cast<double>(d.h);
    const int median = static_cast<int>(cfg.median_size);
    uint64_t n_run = 0;
    for (uint32_t warp = 0; warp < cfg.warps; ++warp) {
        for_rows(c, d.h, [&](int y0, int y1, int) { k.tvl1_warp(wa, y0, y1); });
        if (census) for_rows(c, d.h, [&](int y0, int y1, int) { k.census_tvl1(ca, y0, y1); });
        for (uint32_t n = 0; n < job.max_iterations; ++n) {
            if (census) {
                for_rows(c, d.h, [&](int y0, int y1, int band) {
                    sums[band * kBandSumStride] = k.tvl1_calc_u2(it, ca.minor, y0, y1);
                });
                for_rows(c, d.h, [&](int y0, int y1, int) { k.tvl1_calc_p(it, y0, y1); });
            } else if (k.tvl1_iter_rows) {
                iterate_pipelined(c, it, d.h);
            } else {
                for_rows(c, d.h, [&](int y0, int y1, int band) {
                    sums[band * kBandSumStride] = k.tvl1_calc_u(it, y0, y1);
                });
                for_rows(c, d.h, [&](int y0, int y1, int) { k.tvl1_calc_p(it, y0, y1); });
            }
            ++n_run;
            if (eps2 > 0.0 && sum_bands(c, d.h) / npix <= eps2) break;
        }
        if (median > 0) median_flow(c, job.u1, job.u2, f.work(kBufTmp, l), median);
    }
    *job.iterations += n_run;
}

} // namespace oflow
