// schedule: the multi-level iteration schedule (config.iteration_growth, core/schedule.hpp) on
// every CPU algorithm and solver, in of_info, in of_explain and in the time budget.
//
//  - level_iterations: seed 000's 60/120/180/240 is iterations 60, growth 1; rounding to the
//    nearest; the per-level cap; growth 0 is the uniform schedule;
//  - each level runs its count: with epsilon 0 the level trace (core/level_trace.hpp) sees
//    warps x n_l inner iterations at level l, and of_info.last_iterations is their sum, for
//    TV-L1, HS (Jacobi, SOR) and CLG (Jacobi, SOR);
//  - growth 0 is bit-identical to a config that never heard of the field, and growth > 0
//    changes the flow (the coarse levels really iterate more);
//  - of_get_info / of_explain list the schedule (level_iterations, iteration_growth);
//  - a time budget buys the finest count and the coarse levels follow: the table's model of
//    the bought schedule fits the budget and one more finest iteration would not; growth leaves
//    fewer finest-level iterations (warps x per warp) than the uniform schedule's budget buys.
#include "test_util.hpp"

#include "core/level_trace.hpp"
#include "core/schedule.hpp"

#include <cmath>
#include <cstring>

using namespace oftest;
using oflow::synth::Case;

namespace {

void test_formula() {
    const uint32_t seed000[4] = {60, 120, 180, 240};
    for (int l = 0; l < 4; ++l) CHECK(oflow::level_iterations(60, 1.0f, l) == seed000[l]);
    for (int l = 0; l < 16; ++l) CHECK(oflow::level_iterations(300, 0.0f, l) == 300u);
    CHECK(oflow::level_iterations(1, 0.5f, 1) == 2u);  // 1.5 rounds up
    CHECK(oflow::level_iterations(3, 0.25f, 1) == 4u); // 3.75
    CHECK(oflow::level_iterations(10, 0.33f, 1) == 13u); // 13.3
    CHECK(oflow::level_iterations(100000, 16.0f, 15) == oflow::kMaxLevelIterations);
    CHECK(oflow::level_iterations(7000, 16.0f, 1) == 100000u); // 119000 capped
    CHECK(oflow::level_iterations(1, 16.0f, 15) == 241u);
}

struct Trace {
    unsigned long long at[16];
    int levels;
};
void on_level(const oflow::level_trace::Level& l, void* user) {
    Trace* t = static_cast<Trace*>(user);
    if (l.level >= 0 && l.level < 16) t->at[l.level] = l.iterations;
    t->levels = l.levels;
}

of_config cfg_for(of_algorithm algo, of_solver solver, float growth) {
    of_config c;
    of_config_init(&c, algo);
    c.max_width = 64;
    c.max_height = 48;
    c.format = OF_PIXEL_F32;
    c.backend = OF_BACKEND_REFERENCE; // a CPU path (OFLOW_FORCE_BACKEND=neon makes it NEON)
    c.levels = 3;                // explicit: the texture rule is off, every level is solved
    c.warps = 2;
    c.iterations = 7;
    c.epsilon = 0.0f; // every scheduled iteration runs
    c.median_size = 0;
    c.robust = OF_ROBUST_NONE; // one solve a pair (pick's three are summed: tests/robust_pick)
    c.hs.solver = solver;
    c.iteration_growth = growth;
    return c;
}

bool run(const of_config& c, const Pair& p, std::vector<float>* uv, of_info* info, Trace* trace, const char* what) {
    std::memset(trace, 0, sizeof *trace);
    oflow::level_trace::install(on_level, trace);
    of_context* ctx = create_or_report(c, what);
    CHECK_MSG(ctx != nullptr, "%s: create", what);
    bool ok = false;
    if (ctx) {
        const FramePair fp = frames_of(p, OF_PIXEL_F32);
        FlowBuf f = make_flow(p.w, p.h);
        const of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &f.f);
        CHECK_MSG(s == OF_OK, "%s: process: %s (%s)", what, st(s), of_last_error(ctx));
        std::memset(info, 0, sizeof *info);
        info->struct_size = sizeof *info;
        CHECK(of_get_info(ctx, info) == OF_OK);
        of_destroy(ctx);
        ok = s == OF_OK;
        if (ok) *uv = f.extract();
    }
    oflow::level_trace::install(nullptr, nullptr);
    return ok;
}

void test_levels_run_their_count() {
    const Pair p = synth_pair(Case::SmoothField, 64, 48, 3);
    struct Algo {
        of_algorithm a;
        of_solver s;
        const char* name;
    } const algos[] = {{OF_ALGO_TVL1, OF_SOLVER_JACOBI, "tvl1"},
                       {OF_ALGO_HS, OF_SOLVER_JACOBI, "hs-jacobi"},
                       {OF_ALGO_HS, OF_SOLVER_RED_BLACK_SOR, "hs-sor"},
                       {OF_ALGO_CLG, OF_SOLVER_JACOBI, "clg-jacobi"},
                       {OF_ALGO_CLG, OF_SOLVER_RED_BLACK_SOR, "clg-sor"}};
    for (const Algo& a : algos) {
        std::vector<float> flat, grown;
        of_info fi, gi;
        Trace ft, gt;
        char what[96];
        std::snprintf(what, sizeof what, "%s growth 0", a.name);
        if (!run(cfg_for(a.a, a.s, 0.0f), p, &flat, &fi, &ft, what)) continue;
        std::snprintf(what, sizeof what, "%s growth 1.5", a.name);
        if (!run(cfg_for(a.a, a.s, 1.5f), p, &grown, &gi, &gt, what)) continue;
        // 7, round(7 * 2.5) = 18, 7 * 4 = 28 per warp; 2 warps.
        const unsigned long long want[3] = {14, 36, 56};
        CHECK_MSG(gt.levels == 3 && ft.levels == 3, "%s: %d / %d levels traced", a.name, ft.levels, gt.levels);
        for (int l = 0; l < 3; ++l) {
            CHECK_MSG(gt.at[l] == want[l], "%s level %d: %llu iterations, want %llu", a.name, l, gt.at[l], want[l]);
            CHECK_MSG(ft.at[l] == 14, "%s growth 0 level %d: %llu iterations", a.name, l, ft.at[l]);
            CHECK(gi.level_iterations[l] == want[l] / 2 && fi.level_iterations[l] == 7);
        }
        CHECK_MSG(gi.last_iterations == 106 && fi.last_iterations == 42, "%s: last_iterations %llu / %llu", a.name,
                  static_cast<unsigned long long>(fi.last_iterations),
                  static_cast<unsigned long long>(gi.last_iterations));
        CHECK(gi.iterations == 7 && gi.iteration_growth == 1.5f && fi.iteration_growth == 0.0f);
        // More iterations on the coarse levels change the flow.
        double diff = 0.0;
        for (size_t i = 0; i < flat.size(); ++i) diff = std::max(diff, std::fabs(static_cast<double>(flat[i] - grown[i])));
        CHECK_MSG(diff > 1e-4, "%s: growth 1.5 left the flow unchanged (max |d| %g)", a.name, diff);
        std::printf("%-10s levels 0..2: %llu / %llu / %llu iterations (growth 1.5), flow changed by up to %.3g px\n",
                    a.name, gt.at[0], gt.at[1], gt.at[2], diff);
    }
}

// of_explain on a named board with a time budget: the finest count is bought, the rest follow.
void test_budget() {
    for (of_algorithm algo : {OF_ALGO_TVL1, OF_ALGO_HS, OF_ALGO_CLG}) {
        uint32_t finest[2] = {0, 0}; // finest-level iterations per frame: warps x per warp
        for (int g = 0; g < 2; ++g) {
            of_config c;
            of_config_init(&c, algo);
            c.max_width = 640;
            c.max_height = 512;
            c.levels = 4;
            c.warps = 1;
            c.platform = "xavier";
            c.precision = OF_PRECISION_F32;
            c.time_budget_ms = 50.0f;
            c.iteration_growth = g ? 1.0f : 0.0f;
            of_info in;
            std::memset(&in, 0, sizeof in);
            in.struct_size = sizeof in;
            const of_status s = of_explain(&c, &in);
            CHECK_MSG(s == OF_OK, "explain %d growth %d: %s", static_cast<int>(algo), g, of_last_error(nullptr));
            if (s != OF_OK) continue;
            finest[g] = in.iterations * in.warps;
            CHECK(in.iteration_growth == c.iteration_growth);
            for (uint32_t l = 0; l < in.levels; ++l)
                CHECK_MSG(in.level_iterations[l] == oflow::level_iterations(in.iterations, c.iteration_growth,
                                                                            static_cast<int>(l)),
                          "level %u: %u iterations", l, in.level_iterations[l]);
            CHECK_MSG(in.predicted_ms > 0.0 && in.predicted_ms <= 50.0, "predicted %g ms", in.predicted_ms);
            // One more finest iteration (and the coarse levels' share of it) would not fit.
            of_config more = c;
            more.time_budget_ms = 0.0f;
            more.iterations = in.iterations + 1;
            more.warps = in.warps;
            of_info mi;
            std::memset(&mi, 0, sizeof mi);
            mi.struct_size = sizeof mi;
            CHECK(of_explain(&more, &mi) == OF_OK);
            CHECK_MSG(mi.predicted_ms > 50.0 || in.warps > 1, "%u + 1 iterations: %g ms still fits", in.iterations,
                      mi.predicted_ms);
            std::printf("%-4s xavier 640x512, 4 levels, 50 ms, growth %d: %u warp(s) x %u/%u/%u/%u iterations, model "
                        "%.2f ms\n",
                        in.algorithm == OF_ALGO_TVL1 ? "tvl1" : in.algorithm == OF_ALGO_HS ? "hs" : "clg", g, in.warps,
                        in.level_iterations[0], in.level_iterations[1], in.level_iterations[2], in.level_iterations[3],
                        in.predicted_ms);
        }
        CHECK_MSG(finest[1] < finest[0], "growth 1 bought %u finest-level iterations, uniform %u", finest[1], finest[0]);
    }
}

} // namespace

int main() {
    test_formula();
    test_levels_run_their_count();
    test_budget();
    return finish("schedule");
}
