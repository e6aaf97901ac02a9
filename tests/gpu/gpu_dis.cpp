// Dense Inverse Search on the CUDA path (cuda/dis_cuda.cuh): each stage kernel against the
// reference kernel on the same inputs (tests through cuda/dis_hooks.hpp), then whole frames of
// the three presets on CUDA (GLOBAL and FUSED, F32 and F16, host and device memory) against the
// reference path, and that of_process allocates nothing per frame. 77 without a CUDA device.
//
// Tolerances and why:
//  - gradient, init, densification, GLOBAL's propagation: the reference's operations in its
//    order (no contraction): equal bit for bit in F32 (|d| <= 1e-6 allowed for the division);
//    F16 gradient: within half's rounding (2^-11 relative);
//  - patch sums: direct double sums against the reference's prefix differences: a row sum may round
//    to the neighbouring F32 value, and p of them add up: 1e-5 of max(|sum|, 1);
//  - a search round: GLOBAL sums as the reference, so the flows agree but for patches whose
//    patch sums differ by an ulp (>= 99 % within 1e-4 px); FUSED sums in another order, so a patch
//    may stop a step earlier or later: >= 95 % within 0.01 px, mean difference <= 0.01 px;
//  - the refinement's tensor: the reference's formulas (IEEE sqrt and division): 1e-5 relative;
//  - frames: the search is iterative and the SOR's coefficient form differs (HS's kernels), so
//    the flows are compared statistically: mean |d flow| and its 99th percentile, and the
//    end-point error against the truth no worse than the reference's by more than 10 % + 0.02 px.
#include "gpu_util.hpp"

#include "alloc_counter.hpp"
#include "core/context.hpp"
#include "core/flow_format.hpp"
#include "core/ref/dis_ref.hpp"
#include "core/synth.hpp"
#include "cuda/dis_hooks.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <vector>

using namespace gputest;
using oflow::cuda::hooks::DisStage;
using oflow::cuda::hooks::DisStageRun;

// ---- device allocation counter (--wrap, tests/gpu/CMakeLists.txt) ---------------------------
namespace {
std::atomic<bool> g_armed{false};
std::atomic<long> g_dev_allocs{0};
void count_alloc() {
    if (g_armed.load()) g_dev_allocs.fetch_add(1);
}
} // namespace

extern "C" {
cudaError_t __real_cudaMalloc(void** p, size_t n);
cudaError_t __real_cudaMallocHost(void** p, size_t n);
cudaError_t __real_cudaHostAlloc(void** p, size_t n, unsigned int flags);
cudaError_t __real_cudaMallocManaged(void** p, size_t n, unsigned int flags);
cudaError_t __wrap_cudaMalloc(void** p, size_t n) {
    count_alloc();
    return __real_cudaMalloc(p, n);
}
cudaError_t __wrap_cudaMallocHost(void** p, size_t n) {
    count_alloc();
    return __real_cudaMallocHost(p, n);
}
cudaError_t __wrap_cudaHostAlloc(void** p, size_t n, unsigned int flags) {
    count_alloc();
    return __real_cudaHostAlloc(p, n, flags);
}
cudaError_t __wrap_cudaMallocManaged(void** p, size_t n, unsigned int flags) {
    count_alloc();
    return __real_cudaMallocManaged(p, n, flags);
}
#if OF_TEST_WRAP_MALLOC_ASYNC
cudaError_t __real_cudaMallocAsync(void** p, size_t n, cudaStream_t s);
cudaError_t __wrap_cudaMallocAsync(void** p, size_t n, cudaStream_t s) {
    count_alloc();
    return __real_cudaMallocAsync(p, n, s);
}
#endif
}

namespace {

oflow::Plane plane_of(std::vector<float>& v, int w, int h) { return oflow::Plane{v.data(), w, h, w}; }

of_config dis_cfg(uint32_t w, uint32_t h, of_dis_preset_id preset, of_variant v, of_precision p, of_backend b) {
    of_config c = algo_config(OF_ALGO_DIS, w, h);
    CHECK(of_dis_preset(&c, preset) == OF_OK);
    c.variant = b == OF_BACKEND_CUDA ? v : OF_VARIANT_AUTO;
    c.precision = p;
    c.backend = b;
    c.threads = 1;
    c.format = OF_PIXEL_F32;
    return c;
}

struct Ctx {
    of_context* c = nullptr;
    explicit Ctx(const of_config& cfg) {
        const of_status s = of_create(&cfg, &c);
        CHECK_MSG(s == OF_OK, "of_create: %s (%s)", st(s), of_last_error(nullptr));
    }
    ~Ctx() { of_destroy(c); }
    oflow::cuda::State* cuda() const { return c ? c->cuda : nullptr; }
};

struct Stats {
    double mean, p99, maxd, within;
};
// |a - b| statistics; within: the share of values within tol.
Stats diff_stats(const std::vector<float>& a, const std::vector<float>& b, double tol) {
    std::vector<double> d(a.size());
    double s = 0.0;
    size_t in = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        d[i] = std::fabs(static_cast<double>(a[i]) - b[i]);
        if (!(d[i] == d[i])) d[i] = 1e30;
        s += d[i];
        in += d[i] <= tol ? 1 : 0;
    }
    Stats r{0, 0, 0, 0};
    if (d.empty()) return r;
    std::sort(d.begin(), d.end());
    r.mean = s / static_cast<double>(d.size());
    r.p99 = d[static_cast<size_t>(0.99 * static_cast<double>(d.size() - 1))];
    r.maxd = d.back();
    r.within = static_cast<double>(in) / static_cast<double>(d.size());
    return r;
}

double max_rel(const std::vector<float>& a, const std::vector<float>& b, double floor_abs) {
    double m = 0.0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double d = std::fabs(static_cast<double>(a[i]) - b[i]) / (std::fabs(static_cast<double>(b[i])) + floor_abs);
        m = std::max(m, d == d ? d : 1e30);
    }
    return m;
}

oflow::cuda::hooks::DisStageRun blank_run(DisStage s, int w, int h, const oftest::Pair& p) {
    DisStageRun r;
    std::memset(&r, 0, sizeof r);
    r.stage = s;
    r.w = w;
    r.h = h;
    r.i0 = p.i0.data();
    r.i1 = p.i1.data();
    return r;
}

// Every stage against the reference on one pair, for one context (variant x precision).
void stages(of_variant v, of_precision prec) {
    const int w = 96, h = 72;
    const oftest::Pair p = synth_pair(oflow::synth::Case::SmoothField, w, h, 3);
    of_config cfg = dis_cfg(w, h, OF_DIS_MEDIUM, v, prec, OF_BACKEND_CUDA);
    Ctx ctx(cfg);
    if (!ctx.cuda()) return;
    const bool f16 = prec == OF_PRECISION_F16;
    const char* tag = v == OF_VARIANT_GLOBAL ? (f16 ? "GLOBAL F16" : "GLOBAL F32") : (f16 ? "FUSED F16" : "FUSED F32");
    char e[256];
    const oflow::ErrorSink sink{e};
    const size_t n = static_cast<size_t>(w) * h;
    std::vector<float> i0 = p.i0, i1 = p.i1;
    const oflow::DisGrid g = oflow::dis_grid(w, h, 8, 3);
    const size_t np = static_cast<size_t>(g.nx) * g.ny;

    // 1. Gradient.
    std::vector<float> gx(n), gy(n), rgx(n), rgy(n);
    DisStageRun r = blank_run(DisStage::Gradient, w, h, p);
    r.out[0] = gx.data();
    r.out[1] = gy.data();
    CHECK_MSG(oflow::cuda::hooks::run_dis_stage(ctx.cuda(), &r, sink) == OF_OK, "%s", e);
    oflow::dis_gradient_ref(plane_of(i0, w, h), plane_of(rgx, w, h), plane_of(rgy, w, h), 0, h);
    const double gtol = f16 ? 1.0 / 1024.0 : 0.0;
    std::printf("%s gradient: max rel %.3g\n", tag, std::max(max_rel(gx, rgx, 1e-3), max_rel(gy, rgy, 1e-3)));
    CHECK(max_rel(gx, rgx, 1e-3) <= gtol && max_rel(gy, rgy, 1e-3) <= gtol);

    // 2. Patch sums, against the reference's on the gradient the device stored.
    std::vector<float> sums[oflow::kDisSums], rsums[oflow::kDisSums], rowsum(static_cast<size_t>(g.nx) * h);
    r = blank_run(DisStage::Sums, w, h, p);
    for (int c = 0; c < oflow::kDisSums; ++c) {
        sums[c].assign(np, 0.0f);
        rsums[c].assign(np, 0.0f);
        r.out[c] = sums[c].data();
    }
    CHECK_MSG(oflow::cuda::hooks::run_dis_stage(ctx.cuda(), &r, sink) == OF_OK, "%s", e);
    double srel = 0.0;
    for (int c = 0; c < oflow::kDisSums; ++c) {
        oflow::DisBoxArgs ba{plane_of(gx, w, h), plane_of(gy, w, h), oflow::Plane{rowsum.data(), g.nx, h, g.nx}, g, c};
        oflow::dis_box_h_ref(ba, 0, h);
        oflow::DisBoxVArgs va{ba.rowsum, oflow::Plane{rsums[c].data(), g.nx, g.ny, g.nx}, g};
        oflow::dis_box_v_ref(va, 0, g.ny);
        srel = std::max(srel, max_rel(sums[c], rsums[c], 1.0));
    }
    std::printf("%s patch sums: max rel %.3g\n", tag, srel);
    CHECK(srel <= 1e-5);

    // 3. Init from a smooth field.
    std::vector<float> sx(np), sy(np), rsx(np), rsy(np);
    r = blank_run(DisStage::Init, w, h, p);
    r.u1 = p.gu.data();
    r.u2 = p.gv.data();
    r.out[0] = sx.data();
    r.out[1] = sy.data();
    CHECK_MSG(oflow::cuda::hooks::run_dis_stage(ctx.cuda(), &r, sink) == OF_OK, "%s", e);
    std::vector<float> gu = p.gu, gv = p.gv;
    oflow::DisInitArgs ia{plane_of(gu, w, h), plane_of(gv, w, h), oflow::Plane{rsx.data(), g.nx, g.ny, g.nx},
                          oflow::Plane{rsy.data(), g.nx, g.ny, g.nx}, g};
    oflow::dis_init_ref(ia, 0, g.ny);
    CHECK(sx == rsx && sy == rsy);

    // 4. A first round (starts at the patch centres of half the truth: 3 steps) and a later round
    // (propagation from the first round's flows, 3 steps), against dis_init/propagate + search.
    std::vector<float> half_u(n), half_v(n), zero(n, 0.0f);
    for (size_t i = 0; i < n; ++i) {
        half_u[i] = 0.5f * p.gu[i];
        half_v[i] = 0.5f * p.gv[i];
    }
    std::vector<float> rgx2 = gx, rgy2 = gy; // the reference searches on the device's gradient
    oflow::DisSearchArgs sa;
    sa.i0 = plane_of(i0, w, h);
    sa.i1 = plane_of(i1, w, h);
    sa.gx = plane_of(rgx2, w, h);
    sa.gy = plane_of(rgy2, w, h);
    for (int c = 0; c < oflow::kDisSums; ++c) sa.sum[c] = oflow::Plane{rsums[c].data(), g.nx, g.ny, g.nx};
    std::vector<float> ssx(np), ssy(np), tx(np), ty(np), md(np), er(np);
    sa.sx_in = oflow::Plane{ssx.data(), g.nx, g.ny, g.nx};
    sa.sy_in = oflow::Plane{ssy.data(), g.nx, g.ny, g.nx};
    sa.sx_out = oflow::Plane{tx.data(), g.nx, g.ny, g.nx};
    sa.sy_out = oflow::Plane{ty.data(), g.nx, g.ny, g.nx};
    sa.md = oflow::Plane{md.data(), g.nx, g.ny, g.nx};
    sa.err = oflow::Plane{er.data(), g.nx, g.ny, g.nx};
    sa.g = g;
    sa.iterations = 3;
    oflow::DisInitArgs ia2{plane_of(half_u, w, h), plane_of(half_v, w, h), sa.sx_in, sa.sy_in, g};
    oflow::dis_init_ref(ia2, 0, g.ny);
    oflow::dis_search_ref(sa, 0, g.ny);
    std::vector<float> dx(np), dy(np), dmd(np), derr(np);
    r = blank_run(DisStage::Round, w, h, p);
    r.u1 = half_u.data();
    r.u2 = half_v.data();
    r.iterations = 3;
    r.first = true;
    r.out[0] = dx.data();
    r.out[1] = dy.data();
    r.out[2] = dmd.data();
    r.out[3] = derr.data();
    CHECK_MSG(oflow::cuda::hooks::run_dis_stage(ctx.cuda(), &r, sink) == OF_OK, "%s", e);
    const bool global = v == OF_VARIANT_GLOBAL;
    const double rtol = global ? 1e-4 : 1e-2, rshare = global ? 0.99 : 0.95;
    Stats a = diff_stats(dx, tx, rtol), b = diff_stats(dy, ty, rtol);
    std::printf("%s first round: within %.4f / %.4f, mean %.3g / %.3g px, max %.3g / %.3g\n", tag, a.within, b.within, a.mean,
                b.mean, a.maxd, b.maxd);
    CHECK(a.within >= rshare && b.within >= rshare && a.mean <= 0.01 && b.mean <= 0.01);
    if (global) CHECK(max_rel(derr, er, 1.0) <= 1e-5); // E at the result (the next propagation's own)
    // The later round, from the reference's first-round flows.
    std::vector<float> fx = tx, fy = ty, fe = er;
    oflow::DisPropagateArgs pa{plane_of(i0, w, h), plane_of(i1, w, h), oflow::Plane{fx.data(), g.nx, g.ny, g.nx},
                               oflow::Plane{fy.data(), g.nx, g.ny, g.nx}, oflow::Plane{fe.data(), g.nx, g.ny, g.nx},
                               sa.sx_in, sa.sy_in, g};
    oflow::dis_propagate_ref(pa, 0, g.ny);
    const std::vector<float> psx = ssx, psy = ssy;
    oflow::dis_search_ref(sa, 0, g.ny);
    r.first = false;
    r.u1 = r.u2 = nullptr;
    r.sx = fx.data();
    r.sy = fy.data();
    r.err = fe.data();
    CHECK_MSG(oflow::cuda::hooks::run_dis_stage(ctx.cuda(), &r, sink) == OF_OK, "%s", e);
    a = diff_stats(dx, tx, rtol);
    b = diff_stats(dy, ty, rtol);
    std::printf("%s later round: within %.4f / %.4f, mean %.3g / %.3g px\n", tag, a.within, b.within, a.mean, b.mean);
    CHECK(a.within >= rshare && b.within >= rshare && a.mean <= 0.01 && b.mean <= 0.01);

    // 5. GLOBAL's propagation alone.
    if (global) {
        std::vector<float> ox(np), oy(np);
        r = blank_run(DisStage::Propagate, w, h, p);
        r.sx = fx.data();
        r.sy = fy.data();
        r.err = fe.data();
        r.out[0] = ox.data();
        r.out[1] = oy.data();
        CHECK_MSG(oflow::cuda::hooks::run_dis_stage(ctx.cuda(), &r, sink) == OF_OK, "%s", e);
        CHECK(ox == psx && oy == psy);
    }

    // 6. Densification of the reference's flows.
    std::vector<float> u1(n), u2(n), ru1(n), ru2(n), wt(n);
    r = blank_run(DisStage::Densify, w, h, p);
    r.sx = tx.data();
    r.sy = ty.data();
    r.md = md.data();
    r.out[0] = u1.data();
    r.out[1] = u2.data();
    CHECK_MSG(oflow::cuda::hooks::run_dis_stage(ctx.cuda(), &r, sink) == OF_OK, "%s", e);
    oflow::DisDensifyArgs da{plane_of(i0, w, h), plane_of(i1, w, h), sa.sx_out, sa.sy_out, sa.md, plane_of(ru1, w, h),
                             plane_of(ru2, w, h), plane_of(wt, w, h), g};
    oflow::dis_densify_ref(da, 0, h);
    const Stats du = diff_stats(u1, ru1, 1e-6), dv = diff_stats(u2, ru2, 1e-6);
    std::printf("%s densify: max %.3g / %.3g px\n", tag, du.maxd, dv.maxd);
    CHECK(du.maxd <= 1e-6 && dv.maxd <= 1e-6);

    // 7. The refinement's tensor at an increment (F16: the increment as half), flow = truth.
    std::vector<float> incu(n), incv(n);
    for (size_t i = 0; i < n; ++i) {
        incu[i] = 0.1f * std::sin(0.05f * static_cast<float>(i));
        incv[i] = 0.1f * std::cos(0.07f * static_cast<float>(i));
        if (f16) {
            incu[i] = oflow::f16_to_float(oflow::flow_to_f16(incu[i]));
            incv[i] = oflow::f16_to_float(oflow::flow_to_f16(incv[i]));
        }
    }
    std::vector<float> j[oflow::kHsChannels];
    r = blank_run(DisStage::Refine, w, h, p);
    r.u1 = p.gu.data();
    r.u2 = p.gv.data();
    r.du = incu.data();
    r.dv = incv.data();
    for (int c = 0; c < oflow::kHsChannels; ++c) {
        j[c].assign(n, 0.0f);
        r.out[c] = j[c].data();
    }
    CHECK_MSG(oflow::cuda::hooks::run_dis_stage(ctx.cuda(), &r, sink) == OF_OK, "%s", e);
    const int hw = (w + 1) / 2;
    std::vector<float> half[4], jr[oflow::kHsChannels], jb[oflow::kHsChannels];
    for (auto& v4 : half) v4.assign(static_cast<size_t>(hw) * h, 0.0f);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int c = (x + y) & 1;
            half[c][static_cast<size_t>(y) * hw + (x >> 1)] = incu[static_cast<size_t>(y) * w + x];
            half[2 + c][static_cast<size_t>(y) * hw + (x >> 1)] = incv[static_cast<size_t>(y) * w + x];
        }
    oflow::DisRefineArgs ra;
    ra.i0 = plane_of(i0, w, h);
    ra.i1w = plane_of(i1, w, h);
    ra.u1 = plane_of(gu, w, h);
    ra.u2 = plane_of(gv, w, h);
    ra.du_r = oflow::Plane{half[0].data(), hw, h, hw};
    ra.du_b = oflow::Plane{half[1].data(), hw, h, hw};
    ra.dv_r = oflow::Plane{half[2].data(), hw, h, hw};
    ra.dv_b = oflow::Plane{half[3].data(), hw, h, hw};
    for (int c = 0; c < oflow::kHsChannels; ++c) {
        jr[c].assign(static_cast<size_t>(hw) * h, 0.0f);
        jb[c].assign(static_cast<size_t>(hw) * h, 0.0f);
        ra.j_red[c] = oflow::Plane{jr[c].data(), hw, h, hw};
        ra.j_black[c] = oflow::Plane{jb[c].data(), hw, h, hw};
    }
    ra.alpha2 = cfg.dis.refine_alpha;
    ra.delta = cfg.dis.refine_delta;
    ra.gamma = cfg.dis.refine_gamma;
    oflow::dis_refine_tensor_ref(ra, 0, h);
    double jrel = 0.0;
    for (int c = 0; c < oflow::kHsChannels; ++c) {
        std::vector<float> full(n);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                full[static_cast<size_t>(y) * w + x] = (((x + y) & 1) ? jb[c] : jr[c])[static_cast<size_t>(y) * hw + (x >> 1)];
        jrel = std::max(jrel, max_rel(j[c], full, 1e-3));
    }
    std::printf("%s refine tensor: max rel %.3g\n", tag, jrel);
    CHECK(jrel <= 1e-5);
}

// A frame on ctx from host frames into a host planar flow.
bool run_host(of_context* c, const oftest::Pair& p, std::vector<float>* flow) {
    FramePair fp = frames_of(p, OF_PIXEL_F32);
    FlowBuf out = make_flow(p.w, p.h);
    const of_status s = of_process(c, &fp.prev.img, &fp.next.img, &out.f);
    CHECK_MSG(s == OF_OK, "of_process: %s (%s)", st(s), of_last_error(c));
    // The planes' rows (out.f.stride bytes apart) packed: u then v, w x h each.
    const size_t row = out.f.stride / sizeof(float);
    flow->clear();
    for (const std::vector<float>* plane : {&out.a, &out.b})
        for (uint32_t y = 0; y < p.h; ++y)
            flow->insert(flow->end(), plane->begin() + static_cast<std::ptrdiff_t>(y * row),
                         plane->begin() + static_cast<std::ptrdiff_t>(y * row + p.w));
    return s == OF_OK;
}

bool run_device(of_context* c, const oftest::Pair& p, std::vector<float>* flow) {
    FramePair fp = frames_of(p, OF_PIXEL_F32);
    DevFrame a = to_device(fp.prev, OF_MEMORY_CUDA_DEVICE), b = to_device(fp.next, OF_MEMORY_CUDA_DEVICE);
    DevFlow out = device_flow(p.w, p.h, OF_FLOW_PLANAR, OF_MEMORY_CUDA_DEVICE);
    const of_status s = of_process(c, &a.img, &b.img, &out.f);
    CHECK_MSG(s == OF_OK, "of_process (device): %s (%s)", st(s), of_last_error(c));
    const FlowBuf fb = out.fetch();
    const size_t row = out.f.stride / sizeof(float);
    flow->clear();
    for (const std::vector<float>* plane : {&fb.a, &fb.b})
        for (uint32_t y = 0; y < p.h; ++y)
            flow->insert(flow->end(), plane->begin() + static_cast<std::ptrdiff_t>(y * row),
                         plane->begin() + static_cast<std::ptrdiff_t>(y * row + p.w));
    return s == OF_OK;
}

void frames(const oftest::Pair& p, const char* name) {
    const of_dis_preset_id presets[3] = {OF_DIS_ULTRAFAST, OF_DIS_FAST, OF_DIS_MEDIUM};
    const char* pname[3] = {"ULTRAFAST", "FAST", "MEDIUM"};
    for (int k = 0; k < 3; ++k) {
        std::vector<float> ref;
        uint64_t ref_steps = 0;
        {
            Ctx r(dis_cfg(p.w, p.h, presets[k], OF_VARIANT_AUTO, OF_PRECISION_F32, OF_BACKEND_REFERENCE));
            if (!r.c || !run_host(r.c, p, &ref)) continue;
            ref_steps = info_of(r.c).last_iterations;
        }
        const double ref_epe = mean_epe(ref, p);
        for (int vi = 0; vi < 2; ++vi)
            for (int pi = 0; pi < 2; ++pi) {
                const of_variant v = vi ? OF_VARIANT_FUSED : OF_VARIANT_GLOBAL;
                const of_precision pr = pi ? OF_PRECISION_F16 : OF_PRECISION_F32;
                Ctx c(dis_cfg(p.w, p.h, presets[k], v, pr, OF_BACKEND_CUDA));
                if (!c.c) continue;
                std::vector<float> hf, df;
                if (!run_host(c.c, p, &hf)) continue;
                const uint64_t host_steps = info_of(c.c).last_iterations;
                if (!run_device(c.c, p, &df)) continue;
                // Device output waits for nothing: the count is the scheduled one, the same.
                const uint64_t dev_steps = info_of(c.c).last_iterations;
                CHECK_MSG(host_steps == ref_steps && dev_steps == ref_steps,
                          "%s %s: steps %llu (host output), %llu (device output), the reference %llu", name, pname[k],
                          static_cast<unsigned long long>(host_steps), static_cast<unsigned long long>(dev_steps),
                          static_cast<unsigned long long>(ref_steps));
                const Stats s = diff_stats(hf, ref, 0.01);
                const double epe = mean_epe(hf, p);
                std::printf("%-14s %-9s %-6s %s: |d flow| mean %.4f p99 %.4f max %.3f px; EPE %.4f (reference %.4f)\n", name,
                            pname[k], vi ? "FUSED" : "GLOBAL", pi ? "F16" : "F32", s.mean, s.p99, s.maxd, epe, ref_epe);
                const double mean_bound = pi ? 0.10 : 0.05, p99_bound = pi ? 1.0 : 0.5;
                CHECK(s.mean <= mean_bound && s.p99 <= p99_bound);
                CHECK(epe <= 1.1 * ref_epe + 0.02);
                CHECK(same_bits(hf, df, "device-memory frames vs host frames"));
            }
    }
}

// A frame split by level: backend AUTO on the xavier table, whose DIS crossover (64 px) puts the
// coarsest level of a 7-level 320x240 frame (5x4) on the CPU path and the finer ones on the GPU
// (GLOBAL F32).
// The CPU levels are the reference's, the GPU levels agree with it as the whole-GPU frames do
// (frames above); of_info names both backends and the steps are the reference's.
void split() {
    const oftest::Pair p = synth_pair(oflow::synth::Case::CameraMotion, 320, 240, 9);
    of_config base = dis_cfg(p.w, p.h, OF_DIS_MEDIUM, OF_VARIANT_AUTO, OF_PRECISION_F32, OF_BACKEND_REFERENCE);
    base.levels = 7;
    std::vector<float> ref, sp;
    uint64_t ref_steps = 0;
    {
        Ctx r(base);
        if (!r.c || !run_host(r.c, p, &ref)) return;
        ref_steps = info_of(r.c).last_iterations;
    }
    of_config c = base;
    c.backend = OF_BACKEND_AUTO;
    c.platform = "xavier";
    c.variant = OF_VARIANT_GLOBAL;
    Ctx x(c);
    if (!x.c || !run_host(x.c, p, &sp)) return;
    const of_info in = info_of(x.c);
    const int last = static_cast<int>(in.levels) - 1;
    const bool split = in.levels >= 3 && in.level_backend[0] == OF_BACKEND_CUDA && in.level_backend[last] != OF_BACKEND_CUDA;
    const Stats s = diff_stats(sp, ref, 0.01);
    std::printf("split by level (AUTO, xavier, %u levels: 0 on %s, %d on %s): |d flow| mean %.4f p99 %.4f max %.3f px, "
                "%llu steps (reference %llu)\n",
                in.levels, in.level_backend[0] == OF_BACKEND_CUDA ? "CUDA" : "CPU", last,
                in.level_backend[last] == OF_BACKEND_CUDA ? "CUDA" : "CPU", s.mean, s.p99, s.maxd,
                static_cast<unsigned long long>(in.last_iterations), static_cast<unsigned long long>(ref_steps));
    CHECK_MSG(split, "DIS split: %u levels, level 0 on %d, level %d on %d (expected CUDA, then the CPU)", in.levels,
              static_cast<int>(in.level_backend[0]), last, static_cast<int>(in.level_backend[last]));
    CHECK(s.mean <= 0.05 && s.p99 <= 0.5);
    CHECK(in.last_iterations == ref_steps);
}

// of_process allocates nothing (host or device) per frame, host and device frames.
void no_alloc() {
    const oftest::Pair p = synth_pair(oflow::synth::Case::Translation, 160, 120, 5);
    for (int vi = 0; vi < 2; ++vi) {
        Ctx c(dis_cfg(p.w, p.h, OF_DIS_MEDIUM, vi ? OF_VARIANT_FUSED : OF_VARIANT_GLOBAL, OF_PRECISION_F32, OF_BACKEND_CUDA));
        if (!c.c) continue;
        FramePair fp = frames_of(p, OF_PIXEL_F32);
        DevFrame a = to_device(fp.prev, OF_MEMORY_CUDA_DEVICE), b = to_device(fp.next, OF_MEMORY_CUDA_DEVICE);
        DevFlow dout = device_flow(p.w, p.h, OF_FLOW_PLANAR, OF_MEMORY_CUDA_DEVICE);
        FlowBuf hout = make_flow(p.w, p.h);
        CHECK(of_process(c.c, &fp.prev.img, &fp.next.img, &hout.f) == OF_OK); // first frames: any lazy set-up
        CHECK(of_process(c.c, &a.img, &b.img, &dout.f) == OF_OK);
        g_dev_allocs = 0;
        g_armed = true;
        oftest::alloc::Scope host;
        for (int i = 0; i < 3; ++i) {
            CHECK(of_process(c.c, &fp.prev.img, &fp.next.img, &hout.f) == OF_OK);
            CHECK(of_process(c.c, &a.img, &b.img, &dout.f) == OF_OK);
        }
        const long hc = host.count();
        g_armed = false;
        std::printf("no-alloc %s: %ld device allocations, %ld host allocations in 6 frames\n", vi ? "FUSED" : "GLOBAL",
                    g_dev_allocs.load(), hc);
        CHECK(g_dev_allocs.load() == 0 && hc == 0);
        GPU_CHECK_CUDA(cudaDeviceSynchronize());
    }
}

} // namespace

int main() {
    if (!cuda_ready()) return 77;
    stages(OF_VARIANT_GLOBAL, OF_PRECISION_F32);
    stages(OF_VARIANT_FUSED, OF_PRECISION_F32);
    stages(OF_VARIANT_GLOBAL, OF_PRECISION_F16);
    stages(OF_VARIANT_FUSED, OF_PRECISION_F16);
    const uint32_t w = small_run() ? 96 : 320, h = small_run() ? 72 : 240;
    frames(synth_pair(oflow::synth::Case::SmoothField, w, h, 7), "smooth-field");
    frames(synth_pair(oflow::synth::Case::CameraMotion, w, h, 9), "camera-motion");
    split();
    no_alloc();
    return finish("gpu_dis");
}
