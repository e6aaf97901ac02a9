// Horn-Schunck / CLG on one pyramid level, CPU paths. The pyramid is incremental (ALGORITHMS
// pitfall 7): each warp re-linearises at the current flow u (frame 1 warped by u), solves the
// increment (du, dv) from zero, and adds it to u. HS and CLG share the discretisation of
// core/hs_kernels.hpp, so with rho = 0 CLG solves HS's equations and both solvers reach one
// fixed point.
#include "core/hs_level_cpu.hpp"

#include "core/census.hpp"
#include "core/flow_driver.hpp"

#include <utility>

namespace oflow {

int hs_work_planes(const of_config& cfg) {
    const bool tensor =
        cfg.algorithm == OF_ALGO_CLG || cfg.hs.solver == OF_SOLVER_RED_BLACK_SOR || cfg.robust == OF_ROBUST_CENSUS;
    return tensor ? kHsPlanesAll : kHsPlanesJacobi;
}

const char* hs_work_plane_name(const of_config&, int i) {
    static const char* const names[kHsPlanesAll] = {"I1w", "Ix",  "Iy",  "It",  "du",  "dv",  "du_next",
                                                    "dv_next", "J11", "J12", "J13", "J22", "J23", "hs_extra"};
    return i >= 0 && i < kHsPlanesAll ? names[i] : "?";
}

void hs_split_views(Plane full, Plane* red, Plane* black) {
    const int hw = (full.w + 1) / 2;
    *red = Plane{full.data, hw, full.h, full.pitch};
    *black = Plane{full.data + hw, hw, full.h, full.pitch};
}

void hs_sor_zero(of_context* c, const HsSorPairs& p) {
    Plane r, b;
    hs_split_views(p.old_u, &r, &b);
    fill_zero(c, r);
    fill_zero(c, b);
    hs_split_views(p.old_v, &r, &b);
    fill_zero(c, r);
    fill_zero(c, b);
}

double hs_sor_iteration(of_context* c, HsSorArgs* red, HsSorArgs* black, float alpha2, float omega, HsSorPairs* p) {
    const HsKernels& k = c->hs;
    const int w = p->old_u.w, h = p->old_u.h;
    Plane ur_old, ub_old, vr_old, vb_old, ur_new, ub_new, vr_new, vb_new;
    hs_split_views(p->old_u, &ur_old, &ub_old);
    hs_split_views(p->old_v, &vr_old, &vb_old);
    hs_split_views(p->next_u, &ur_new, &ub_new);
    hs_split_views(p->next_v, &vr_new, &vb_new);
    red->u_old = ur_old, red->v_old = vr_old, red->u_other = ub_old, red->v_other = vb_old;
    red->u_new = ur_new, red->v_new = vr_new;
    black->u_old = ub_old, black->v_old = vb_old, black->u_other = ur_new, black->v_other = vr_new;
    black->u_new = ub_new, black->v_new = vb_new;
    HsSorArgs* halves[2] = {red, black};
    double* sums = band_sums(c);
    double change = 0.0;
    for (int colour = 0; colour < 2; ++colour) {
        HsSorArgs& a = *halves[colour];
        a.alpha2 = alpha2;
        a.omega = omega;
        a.colour = colour;
        a.w = w;
        for_rows(c, h, [&](int y0, int y1, int band) { sums[band * kBandSumStride] = k.sor_half_sweep(a, y0, y1); });
        change += sum_bands(c, h);
    }
    std::swap(p->old_u, p->next_u);
    std::swap(p->old_v, p->next_v);
    return change;
}

void hs_sor_merge(of_context* c, const HsSorPairs& p) {
    const HsKernels& k = c->hs;
    Plane ur, ub, vr, vb;
    hs_split_views(p.old_u, &ur, &ub);
    hs_split_views(p.old_v, &vr, &vb);
    for_rows(c, p.old_u.h, [&](int y0, int y1, int) {
        k.rb_merge(ur, ub, p.next_u, y0, y1);
        k.rb_merge(vr, vb, p.next_v, y0, y1);
    });
}

namespace {

// The tensor stage's planes of level l: the derivatives in, the tensor planes (kHsJ0 ..) out.
HsTensorArgs tensor_args(const Frame& f, int l, const HsDerivArgs& da) {
    HsTensorArgs ta;
    ta.ix = da.ix;
    ta.iy = da.iy;
    ta.it = da.it;
    for (int ch = 0; ch < kHsChannels; ++ch) ta.j[ch] = f.algo(kHsJ0 + ch, l);
    return ta;
}

// u += du over the level.
void add_increment(of_context* c, Plane u, Plane du) {
    for_rows(c, u.h, [&](int y0, int y1, int) {
        for (int y = y0; y < y1; ++y) {
            float* a = u.row(y);
            const float* d = du.row(y);
            for (int x = 0; x < u.w; ++x) a[x] += d[x];
        }
    });
}

// Jacobi (HS's update, or CLG's pointwise-coupled one) from zero; the result lands in *du, *dv
// (the planes swap roles each iteration). Returns the iterations run.
uint32_t solve_jacobi(of_context* c, const Frame& f, int l, uint32_t max_it, bool clg, Plane* du, Plane* dv) {
    const HsKernels& k = c->hs;
    const of_config& cfg = c->cfg;
    HsJacobiArgs a;
    a.du = f.algo(kHsDu, l);
    a.dv = f.algo(kHsDv, l);
    a.du_next = f.algo(kHsDu2, l);
    a.dv_next = f.algo(kHsDv2, l);
    a.ix = f.algo(kHsIx, l);
    a.iy = f.algo(kHsIy, l);
    a.it = f.algo(kHsIt, l);
    for (int ch = 0; ch < kHsChannels; ++ch) a.j[ch] = clg ? f.algo(kHsJ0 + ch, l) : a.ix; // unused by HS
    a.alpha2 = cfg.hs.alpha * cfg.hs.alpha;
    fill_zero(c, a.du);
    fill_zero(c, a.dv);
    const int h = a.du.h;
    const double npix = static_cast<double>(a.du.w) * static_cast<double>(h);
    const double eps2 = static_cast<double>(cfg.epsilon) * static_cast<double>(cfg.epsilon);
    double* sums = band_sums(c);
    uint32_t n = 0;
    while (n < max_it) {
        for_rows(c, h, [&](int y0, int y1, int band) {
            sums[band * kBandSumStride] = clg ? k.clg_jacobi(a, y0, y1) : k.hs_jacobi(a, y0, y1);
        });
        ++n;
        std::swap(a.du, a.du_next);
        std::swap(a.dv, a.dv_next);
        if (eps2 > 0.0 && sum_bands(c, h) / npix <= eps2) break;
    }
    *du = a.du;
    *dv = a.dv;
    return n;
}

// Red-black SOR from zero on the tensor in kHsJ0.. (full planes): the tensor is split into the
// red/black halves of the planes kHsI1w, kHsIx, kHsIy, kHsIt, kHsExtra (free by now), the
// increment iterates in the halves of kHsDu/kHsDv and kHsDu2/kHsDv2 (HsSorPairs), and is merged
// back into full planes at the end (*du, *dv). Returns the iterations run (red + black = one).
uint32_t solve_sor(of_context* c, const Frame& f, int l, uint32_t max_it, Plane* du, Plane* dv) {
    const HsKernels& k = c->hs;
    const of_config& cfg = c->cfg;
    const int split_slot[kHsChannels] = {kHsI1w, kHsIx, kHsIy, kHsIt, kHsExtra};
    HsSorArgs red_args, black_args;
    for (int ch = 0; ch < kHsChannels; ++ch) {
        const Plane full = f.algo(kHsJ0 + ch, l);
        hs_split_views(f.algo(split_slot[ch], l), &red_args.j[ch], &black_args.j[ch]);
        for_rows(c, full.h, [&](int y0, int y1, int) { k.rb_split(full, red_args.j[ch], black_args.j[ch], y0, y1); });
    }
    HsSorPairs p{f.algo(kHsDu, l), f.algo(kHsDv, l), f.algo(kHsDu2, l), f.algo(kHsDv2, l)};
    hs_sor_zero(c, p);
    const int w = p.old_u.w, h = p.old_u.h;
    const float alpha2 = cfg.hs.alpha * cfg.hs.alpha;
    const double npix = static_cast<double>(w) * static_cast<double>(h);
    const double eps2 = static_cast<double>(cfg.epsilon) * static_cast<double>(cfg.epsilon);
    uint32_t n = 0;
    while (n < max_it) {
        const double change = hs_sor_iteration(c, &red_args, &black_args, alpha2, cfg.hs.omega, &p);
        ++n;
        if (eps2 > 0.0 && change / npix <= eps2) break;
    }
    // The latest iterate is in p.old_* (halves); merged into the other pair's full planes.
    hs_sor_merge(c, p);
    *du = p.next_u;
    *dv = p.next_v;
    return n;
}

} // namespace

void hs_solve_level_cpu(const LevelJob& job) {
    const Frame& f = *job.f;
    of_context* c = f.c;
    const of_config& cfg = c->cfg;
    const KernelTable& kt = c->kt;
    const HsKernels& k = c->hs;
    const int l = job.level;
    const int h = f.dims[l].h;
    const bool clg = cfg.algorithm == OF_ALGO_CLG;
    const bool sor = cfg.hs.solver == OF_SOLVER_RED_BLACK_SOR;
    // OF_ROBUST_CENSUS (core/census.hpp): the census channels' tensor replaces the intensity's,
    // from frame 1 warped and its central-difference gradient (in the Ix / Iy planes, which the
    // census path does not otherwise use). The tensor has rank two, so HS solves it with the
    // coupled updates (CLG's Jacobi, rho 0, or SOR) instead of its rank-one closed form.
    const bool census = cfg.robust == OF_ROBUST_CENSUS;
    const Plane i0 = f.level(kBufPyr0, l), i1 = f.level(kBufPyr1, l);
    HsDerivArgs da{i0, f.algo(kHsI1w, l), f.algo(kHsIx, l), f.algo(kHsIy, l), f.algo(kHsIt, l)};
    CensusTensorArgs ca;
    if (census) {
        ca.i0 = i0;
        ca.i1w = da.i1w;
        ca.gx = da.ix;
        ca.gy = da.iy;
        ca.u1 = job.u1;
        ca.u2 = job.u2;
        for (int ch = 0; ch < kHsChannels; ++ch) ca.j[ch] = f.algo(kHsJ0 + ch, l);
        ca.eta0 = census_eta(census_level_noise(c, i0), f.census_rms0[0]);
        ca.eta1 = census_eta(census_level_noise(c, i1), f.census_rms0[1]);
    }
    const int median = static_cast<int>(cfg.median_size);
    for (uint32_t warp = 0; warp < cfg.warps; ++warp) {
        for_rows(c, h, [&](int y0, int y1, int) { kt.warp_image(i0, i1, job.u1, job.u2, da.i1w, y0, y1); });
        if (census) {
            for_rows(c, h, [&](int y0, int y1, int) { kt.gradient(da.i1w, ca.gx, ca.gy, y0, y1); });
            for_rows(c, h, [&](int y0, int y1, int) { k.census_tensor(ca, y0, y1); });
        } else {
            for_rows(c, h, [&](int y0, int y1, int) { k.derivatives(da, y0, y1); });
            if (clg || sor) {
                const HsTensorArgs ta = tensor_args(f, l, da);
                for_rows(c, h, [&](int y0, int y1, int) { k.tensor(ta, y0, y1); });
            }
        }
        if (clg && c->rho_blur.radius > 0) { // all channels in one pass, through the free planes
            const HsTensorArgs ta = tensor_args(f, l, da);
            const Plane tmp[kHsChannels] = {f.algo(kHsI1w, l), f.algo(kHsIx, l), f.algo(kHsIy, l), f.algo(kHsIt, l),
                                            f.algo(kHsExtra, l)};
            for_rows(c, h, [&](int y0, int y1, int) { k.blur_h_multi(ta.j, tmp, kHsChannels, c->rho_blur, y0, y1); });
            for_rows(c, h, [&](int y0, int y1, int) { k.blur_v_multi(tmp, ta.j, kHsChannels, c->rho_blur, y0, y1); });
        }
        Plane du, dv;
        const uint32_t n = sor ? solve_sor(c, f, l, job.max_iterations, &du, &dv)
                               : solve_jacobi(c, f, l, job.max_iterations, clg || census, &du, &dv);
        *job.iterations += n;
        add_increment(c, job.u1, du);
        add_increment(c, job.u2, dv);
        if (median > 0) median_flow(c, job.u1, job.u2, f.work(kBufTmp, l), median);
    }
}

} // namespace oflow
