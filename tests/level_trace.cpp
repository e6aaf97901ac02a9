// level_trace: what each pyramid level does, through the CPU drivers' level hook
// (core/level_trace.hpp), on the path OFLOW_FORCE_BACKEND selects (reference or NEON).
//
// 1. The runaway, traced: a grass-like 256x256 pair (FineTexture, smooth field <= 2.4 px),
//    frame 1 = 1.06 I + 4 + N(0, 3), with brightness constancy as before the exposure work
//    (robust none, no median, size rule only). The coarsest level (16x16), where the fine
//    texture is flat and only shading is left, drifts by more than a pixel everywhere, and every
//    finer level carries that drift on doubled: the flow ends tens of pixels off. The test
//    asserts exactly that sequence, so the cause stays documented by a run.
// 2. The same pair under local-norm (the default until robust pick): the texture rule stops the
//    pyramid where the normalised image is flat (coarsest solved level <= 2, of_info.last_coarsest
//    says so), and the flow is right (EPE < 0.1, no pixel beyond the true largest displacement +
//    2 px). With the library's defaults (robust pick: three or four solves, the trace sees every
//    solve's pyramids) the flow is as right, and the kept candidate is not robust none's runaway.
// 3. The sanity bound: a brightness ramp whose offset no motion can explain pushes the coarse
//    flow out of the frame; every level above 0 comes back with x + u inside the frame plus
//    flow_margin(), level 0 (the output) inside the frame plus output_margin(), and the bound
//    clamped pixels on the coarsest level.
#include "test_util.hpp"

#include "core/level_trace.hpp"
#include "core/robust.hpp"

#include <algorithm>

using namespace oftest;

namespace {

struct LevelStat {
    int level = -1, w = 0, h = 0, clamped = 0;
    double mean = 0, max = 0, bound = 0, worst_excess = 0; // worst_excess: of x + u beyond the frame + margin
};

struct Trace {
    std::vector<LevelStat> levels;
};

void hook(const oflow::level_trace::Level& l, void* user) {
    Trace* t = static_cast<Trace*>(user);
    LevelStat s;
    s.level = l.level;
    s.w = l.u1.w;
    s.h = l.u1.h;
    s.bound = l.bound;
    s.clamped = l.clamped;
    double sum = 0;
    for (int y = 0; y < l.u1.h; ++y)
        for (int x = 0; x < l.u1.w; ++x) {
            const double a = l.u1.row(y)[x], b = l.u2.row(y)[x];
            const double m = std::sqrt(a * a + b * b);
            sum += m;
            s.max = std::max(s.max, m);
            if (l.bound > 0) {
                const double px = x + a, py = y + b, mg = l.bound;
                const double ex = std::max({-mg - px, px - (static_cast<double>(l.u1.w - 1) + mg), -mg - py,
                                            py - (static_cast<double>(l.u1.h - 1) + mg), 0.0});
                s.worst_excess = std::max(s.worst_excess, ex);
            }
        }
    s.mean = sum / (static_cast<double>(l.u1.w) * l.u1.h);
    t->levels.push_back(s);
}

struct Run {
    Trace trace;
    double epe = 0, max_flow = 0, max_gt = 0;
    uint32_t coarsest = 0, levels = 0;
    of_robust pick = OF_ROBUST_NONE; // of_info.last_pick
    bool ok = false;
};

Run run(const of_config& cfg, const Pair& p) {
    Run r;
    oflow::level_trace::install(hook, &r.trace);
    of_context* ctx = create_or_report(cfg, "level_trace");
    CHECK(ctx != nullptr);
    if (ctx) {
        Frame a = make_frame(OF_PIXEL_F32, p.w, p.h, p.i0.data(), p.w);
        Frame b = make_frame(OF_PIXEL_F32, p.w, p.h, p.i1.data(), p.w);
        FlowBuf f = make_flow(p.w, p.h);
        const of_status s = of_process(ctx, &a.img, &b.img, &f.f);
        CHECK_MSG(s == OF_OK, "%s (%s)", st(s), of_last_error(ctx));
        r.ok = s == OF_OK;
        double sum = 0;
        for (uint32_t y = 0; y < p.h; ++y)
            for (uint32_t x = 0; x < p.w; ++x) {
                const size_t k = static_cast<size_t>(y) * p.w + x;
                sum += std::hypot(f.u(x, y) - p.gu[k], f.v(x, y) - p.gv[k]);
                r.max_flow = std::max(r.max_flow, static_cast<double>(std::hypot(f.u(x, y), f.v(x, y))));
                r.max_gt = std::max(r.max_gt, static_cast<double>(std::hypot(p.gu[k], p.gv[k])));
            }
        r.epe = sum / (static_cast<double>(p.w) * p.h);
        of_info info;
        std::memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        of_get_info(ctx, &info);
        r.coarsest = info.last_coarsest;
        r.levels = info.last_levels;
        r.pick = info.last_pick;
        of_destroy(ctx);
    }
    oflow::level_trace::install(nullptr, nullptr);
    return r;
}

void print(const char* what, const Run& r) {
    std::printf("%s: EPE %.3f, max |flow| %.2f (true %.2f), coarsest solved level %u of %u\n", what, r.epe, r.max_flow,
                r.max_gt, r.coarsest, r.levels);
    for (const LevelStat& s : r.trace.levels)
        std::printf("  level %d %4dx%-4d mean |u| %7.3f  max |u| %7.3f  (x%-3d = %6.1f px at full size)  bound %5.1f  "
                    "clamped %d\n",
                    s.level, s.w, s.h, s.mean, s.max, 1 << s.level, s.max * (1 << s.level), s.bound, s.clamped);
}

of_config base_cfg(uint32_t w, uint32_t h) {
    of_config c = tvl1_config(w, h);
    c.backend = OF_BACKEND_REFERENCE; // OFLOW_FORCE_BACKEND picks the CPU path; CUDA has no level hook
    c.format = OF_PIXEL_F32;
    c.warps = 3;
    c.iterations = 50;
    return c;
}

Pair grass_pair() {
    oflow::synth::Exposure e;
    e.gain = 1.06;
    e.offset = 4.0;
    e.noise_sigma = 3.0;
    return synth_pair_exposed(oflow::synth::Case::FineTexture, oflow::synth::Texture::Fine, e, 256, 256, 1);
}

void test_runaway_traced() {
    const Pair p = grass_pair();
    of_config c = base_cfg(p.w, p.h);
    c.robust = OF_ROBUST_NONE;
    c.init = OF_INIT_NONE; // the plain coarse-to-fine solve: the default's DIS pass repairs the runaway (below)
    c.median_size = 0;
    c.min_texture = 0.0f;
    const Run r = run(c, p);
    print("brightness constancy (robust none, median 0, size rule only)", r);
    CHECK(r.ok);
    CHECK_MSG(r.trace.levels.size() == 5, "%zu levels traced, 5 expected (256 -> 16)", r.trace.levels.size());
    if (r.trace.levels.size() != 5) return;
    const LevelStat& top = r.trace.levels.front();
    CHECK_MSG(top.level == 4 && top.mean > 1.0, "coarsest level %d drifts by %.3f px on average (> 1 expected)", top.level,
              top.mean);
    // Each finer level carries the drift on: at full size the mean stays within 30 % of the coarsest's.
    for (const LevelStat& s : r.trace.levels) {
        const double full = s.mean * (1 << s.level), top_full = top.mean * (1 << top.level);
        CHECK_MSG(full > 0.7 * top_full, "level %d: mean drift %.1f px at full size, the coarsest's %.1f", s.level, full,
                  top_full);
    }
    CHECK_MSG(r.epe > 20.0, "the runaway should leave the flow > 20 px off; EPE %.2f", r.epe);
}

void test_defaults_hold() {
    const Pair p = grass_pair();
    of_config ln = base_cfg(p.w, p.h);
    ln.robust = OF_ROBUST_LOCAL_NORM;
    const Run r = run(ln, p);
    print("local-norm, median 5, texture rule", r);
    CHECK(r.ok);
    CHECK_MSG(r.coarsest <= 2, "the texture rule should stop at level 2 or finer; coarsest %u", r.coarsest);
    CHECK_MSG(!r.trace.levels.empty() && r.trace.levels.front().level == static_cast<int>(r.coarsest),
              "the first level traced is the coarsest solved");
    CHECK_MSG(r.epe < 0.1, "EPE %.3f", r.epe);
    CHECK_MSG(r.max_flow <= r.max_gt + 2.0, "max |flow| %.2f > true %.2f + 2", r.max_flow, r.max_gt);

    const Run d = run(base_cfg(p.w, p.h), p);
    print("library defaults (census + init dis: the solve's levels traced, not the DIS pass's)", d);
    std::printf("  kept: %s\n", oflow::robust_mode_name(d.pick));
    CHECK(d.ok);
    CHECK_MSG(d.pick != OF_ROBUST_NONE && d.pick != OF_ROBUST_PICK, "pick kept %s (the raw frames' runaway)",
              oflow::robust_mode_name(d.pick));
    CHECK_MSG(d.epe < 0.1, "defaults: EPE %.3f", d.epe);
    CHECK_MSG(d.max_flow <= d.max_gt + 2.0, "defaults: max |flow| %.2f > true %.2f + 2", d.max_flow, d.max_gt);
}

void test_bound_clamps() {
    // A horizontal ramp (4 grey levels per px) with weak vertical stripes; frame 1 is 60 grey
    // levels brighter and not moved: brightness constancy reads that as a 15 px shift.
    const uint32_t w = 64, h = 64;
    Pair p;
    p.w = w;
    p.h = h;
    p.i0.resize(w * h);
    p.i1.resize(w * h);
    p.gu.assign(w * h, 0.0f);
    p.gv.assign(w * h, 0.0f);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            const float v = 4.0f * static_cast<float>(x) + 3.0f * std::sin(0.7f * static_cast<float>(y));
            p.i0[y * w + x] = v;
            p.i1[y * w + x] = std::min(v + 60.0f, 255.0f);
        }
    of_config c = base_cfg(w, h);
    c.robust = OF_ROBUST_NONE;
    c.median_size = 0;
    c.min_texture = 0.0f;
    const Run r = run(c, p);
    print("offset ramp (robust none)", r);
    CHECK(r.ok);
    int clamped = 0;
    for (const LevelStat& s : r.trace.levels) {
        const float want = s.level > 0 ? oflow::flow_margin(s.w, s.h) : oflow::output_margin(s.w, s.h);
        CHECK_MSG(std::fabs(s.bound - want) < 1e-6, "level %d: bound %.2f, want %.2f", s.level, s.bound, want);
        if (s.level > 0) clamped += s.clamped;
        CHECK_MSG(s.worst_excess <= 1e-4, "level %d: x + u leaves the frame + margin by %.4f px", s.level,
                  s.worst_excess);
    }
    CHECK_MSG(clamped > 0, "the sanity bound should have clamped pixels on some level above 0");
}

} // namespace

int main() {
    if (expected_backend(OF_BACKEND_REFERENCE) == OF_BACKEND_CUDA) {
        std::printf("level_trace: the level hook is on the CPU paths only (CUDA forced): skipped\n");
        return 77;
    }
    test_runaway_traced();
    test_defaults_hold();
    test_bound_clamps();
    return finish("level_trace");
}
