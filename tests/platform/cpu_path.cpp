// The CPU path's two implementations in the tables (platform/tuning.hpp PathCost): the row's own
// numbers are the NEON kernels' where the build has them, ref_ns_per_it_px / ref_frame_ns_per_px
// the reference path's beside them. On data/tables/reftest.xml, which oflow-tablegen compiled
// into this binary (with generic.xml; builtin_tables renamed reftest_tables):
//  - round trip: the compiled table prints (format_board) exactly what the tool printed from
//    the XML, the ref_* terms included, and holds the XML's values;
//  - platform::cpu_cost: the reference's terms where stated, the row's own otherwise and for
//    NEON; frame_ms / iterations_for_budget / schedule_for_budget take them with cpu_reference;
//  - selection (select_and_plan with the table as the loaded one, named by config.platform):
//    in a build with NEON, backend AUTO (config or OFLOW_FORCE_BACKEND=auto) runs the reference
//    where the row states it faster and NEON where it is slower, where the row states nothing
//    and where the frame term makes it slower; explicit NEON / REFERENCE are never overridden;
//    a CUDA frame split by level runs its coarse levels on AUTO's CPU path; the reason says
//    which CPU path and why; predicted_ms and the time budget use the terms of the path that
//    runs. In a build without NEON, AUTO always runs the reference, modelled by its ref_* terms.
//   platform_cpu_path REFTEST_DUMP.txt
#include "check.hpp"
#include "table_text.hpp"
#include "core/config_check.hpp"
#include "core/robust.hpp"
#include "core/schedule.hpp"
#include "core/select.hpp"
#include "platform/tuning.hpp"

#include "oflow.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#ifndef OF_TEST_HAVE_NEON
#error "tests/platform/CMakeLists.txt passes OF_TEST_HAVE_NEON (0/1)"
#endif

namespace oflow {
namespace platform {
TableSet reftest_tables(); // the generated reftest_tables.cpp (tests/platform/CMakeLists.txt)
}
} // namespace oflow

using namespace oflow;
using namespace oflow::platform;
using oftest::read_file;
using oftest::text_of;

namespace {

char g_err[kErrorCapacity];
const ErrorSink kErr{g_err};
bool g_neon = false; // NEON is built and usable here (probed through select_and_plan)

bool has(const char* text, const char* part) { return text && std::strstr(text, part) != nullptr; }

void set_env(const char* name, const char* value) {
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

const BoardTable* reftest() { return find_board_in(reftest_tables(), "reftest"); }

const TuningRow& row_of(of_algorithm a, of_precision p) {
    const TuningRow* r = reftest() ? find_row(*reftest(), a, p) : nullptr;
    CHECK_MSG(r != nullptr, "reftest has no %s %s row", algorithm_name(a), precision_name(p));
    return r ? *r : reftest_tables().boards[0]->rows[0];
}

// ---- the round trip -------------------------------------------------------------------------
void test_round_trip(const char* dump) {
    std::string want;
    CHECK_MSG(read_file(dump, &want), "cannot read %s", dump);
    const TableSet set = reftest_tables();
    CHECK(set.count == 2 && reftest() != nullptr && find_board_in(set, "generic") != nullptr);
    if (!reftest()) return;
    std::string got;
    for (int i = 0; i < set.count; ++i) got += text_of(*set.boards[i]);
    CHECK_MSG(got == want, "compiled reftest differs from oflow-tablegen's text of the XML");
    CHECK(std::strcmp(reftest()->file, "tests/platform/data/tables/reftest.xml") == 0);
    // The values of the XML, and the dump shows them on the CPU path (0 on the GPU path).
    const TuningRow& t32 = row_of(OF_ALGO_TVL1, OF_PRECISION_F32);
    CHECK(t32.path[kPathCpu].ref_ns_per_it_px == 0.4 && t32.path[kPathCpu].ref_frame_ns_per_px == 0.8);
    CHECK(t32.path[kPathCpu].ns_per_it_px == 1.0 && t32.path[kPathCpu].frame_ns_per_px == 0.5);
    CHECK(t32.path[kPathGpu].ref_ns_per_it_px == 0.0 && t32.path[kPathGpu].ref_frame_ns_per_px == 0.0);
    const TuningRow& t16 = row_of(OF_ALGO_TVL1, OF_PRECISION_F16);
    CHECK(t16.path[kPathCpu].ref_ns_per_it_px == 2.5 && t16.path[kPathCpu].ref_frame_ns_per_px == 0.0);
    CHECK(row_of(OF_ALGO_HS, OF_PRECISION_F32).path[kPathCpu].ref_ns_per_it_px == 0.0);
    CHECK_MSG(has(want.c_str(), "path tvl1 f32 cpu line=") &&
                  has(want.c_str(), "level_us=0 ref_ns_per_it_px=0.40000000000000002 "
                                    "ref_frame_ns_per_px=0.80000000000000004 source="),
              "the dump does not show tvl1 f32's ref_* terms");
    CHECK(has(want.c_str(), "ref_ns_per_it_px=2.5 ref_frame_ns_per_px=0 source=\"test: NEON 1, the reference 2.5\""));
    CHECK(has(want.c_str(), "ref_ns_per_it_px=0 ref_frame_ns_per_px=0 source=\"test: gpu\""));
    // Every GPU path of every table has none (the schema refuses them there).
    const TableSet built = builtin_tables();
    for (int i = 0; i < built.count; ++i)
        for (int r = 0; r < built.boards[i]->row_count; ++r) {
            const PathCost& g = built.boards[i]->rows[r].path[kPathGpu];
            CHECK(g.ref_ns_per_it_px == 0.0 && g.ref_frame_ns_per_px == 0.0);
        }
}

// ---- platform::cpu_cost and the model ---------------------------------------------------------
bool same_cost(const PathCost& a, const PathCost& b) {
    return a.arith == b.arith && a.ns_per_it_px == b.ns_per_it_px && a.warn == b.warn && a.fail == b.fail &&
           a.frame_us == b.frame_us && a.frame_ns_per_px == b.frame_ns_per_px && a.launch_us == b.launch_us &&
           a.level_us == b.level_us && a.ref_ns_per_it_px == b.ref_ns_per_it_px &&
           a.ref_frame_ns_per_px == b.ref_frame_ns_per_px && a.source == b.source && a.line == b.line;
}

void test_cpu_cost() {
    PathCost c;
    std::memset(static_cast<void*>(&c), 0, sizeof c);
    c.arith = OF_PRECISION_F16;
    c.ns_per_it_px = 0.6;
    c.warn = 2;
    c.fail = 4;
    c.frame_us = 30;
    c.frame_ns_per_px = 0.25;
    c.launch_us = 1.5;
    c.level_us = 7;
    c.ref_ns_per_it_px = 0.9;
    c.ref_frame_ns_per_px = 0.4;
    c.source = "test";
    c.line = 12;
    CHECK(states_reference(c));
    // NEON: the row's own terms, untouched.
    CHECK(same_cost(cpu_cost(c, false), c));
    // The reference: its two terms, F32, everything else shared.
    PathCost want = c;
    want.arith = OF_PRECISION_F32;
    want.ns_per_it_px = 0.9;
    want.frame_ns_per_px = 0.4;
    CHECK(same_cost(cpu_cost(c, true), want));
    // ref_frame_ns_per_px not stated: the row's frame term stands for the reference too.
    c.ref_frame_ns_per_px = 0.0;
    want.frame_ns_per_px = 0.25;
    want.ref_frame_ns_per_px = 0.0;
    CHECK(same_cost(cpu_cost(c, true), want));
    // Nothing stated: the row's own terms (computed in F32) for the reference as well.
    c.ref_ns_per_it_px = 0.0;
    CHECK(!states_reference(c));
    want = c;
    want.arith = OF_PRECISION_F32;
    CHECK(same_cost(cpu_cost(c, true), want));
    CHECK(same_cost(cpu_cost(c, false), c));

    // frame_ms: the CPU levels take the terms of the CPU path that runs, the GPU levels never.
    const TuningRow& r = row_of(OF_ALGO_TVL1, OF_PRECISION_F32);
    const std::uint64_t areas[3] = {256ull * 256, 128ull * 128, 64ull * 64};
    const Path cpu[3] = {kPathCpu, kPathCpu, kPathCpu};
    const Path gpu[3] = {kPathGpu, kPathGpu, kPathGpu};
    const Path mixed[3] = {kPathGpu, kPathCpu, kPathCpu};
    const double sum = static_cast<double>(areas[0] + areas[1] + areas[2]);
    const double a0 = static_cast<double>(areas[0]);
    const double neon = (0.5 * a0 + 2 * 10 * sum * 1.0) * 1e-6; // warps 2, 10 iterations
    const double ref = (0.8 * a0 + 2 * 10 * sum * 0.4) * 1e-6;
    CHECK_MSG(std::fabs(frame_ms(r, areas, cpu, 3, 2, 1, 10) - neon) < 1e-9, "%g vs %g", frame_ms(r, areas, cpu, 3, 2, 1, 10),
              neon);
    CHECK(frame_ms(r, areas, cpu, 3, 2, 1, 10, 0.0f, nullptr, false) == frame_ms(r, areas, cpu, 3, 2, 1, 10));
    CHECK_MSG(std::fabs(frame_ms(r, areas, cpu, 3, 2, 1, 10, 0.0f, nullptr, true) - ref) < 1e-9, "%g vs %g",
              frame_ms(r, areas, cpu, 3, 2, 1, 10, 0.0f, nullptr, true), ref);
    CHECK(frame_ms(r, areas, gpu, 3, 2, 1, 10, 0.0f, nullptr, true) == frame_ms(r, areas, gpu, 3, 2, 1, 10));
    const double split_ref = (2 * 10 * (a0 * 0.5 + static_cast<double>(areas[1] + areas[2]) * 0.4)) * 1e-6; // GPU frame term 0
    CHECK_MSG(std::fabs(frame_ms(r, areas, mixed, 3, 2, 1, 10, 0.0f, nullptr, true) - split_ref) < 1e-9, "%g vs %g",
              frame_ms(r, areas, mixed, 3, 2, 1, 10, 0.0f, nullptr, true), split_ref);

    // The budget buys more iterations on the faster reference, as frame_ms counts them.
    const BoardTable& t = *reftest();
    BudgetPlan bn, br;
    CHECK(iterations_for_budget(t, OF_ALGO_TVL1, OF_PRECISION_F32, 20.0, areas, cpu, 3, 1, 1, 100000, &bn, kErr) == OF_OK);
    CHECK(iterations_for_budget(t, OF_ALGO_TVL1, OF_PRECISION_F32, 20.0, areas, cpu, 3, 1, 1, 100000, &br, kErr, 0.0f,
                                nullptr, true) == OF_OK);
    CHECK_MSG(br.iterations[0] > 2 * bn.iterations[0], "reference %u, NEON %u", br.iterations[0], bn.iterations[0]);
    CHECK(std::fabs(br.predicted_ms - frame_ms(r, areas, cpu, 3, 1, 1, br.iterations[0], 0.0f, nullptr, true)) < 1e-12);
    CHECK(frame_ms(r, areas, cpu, 3, 1, 1, br.iterations[0] + 1, 0.0f, nullptr, true) > 20.0);
    CHECK(std::fabs(br.fixed_ms - 0.8 * a0 * 1e-6) < 1e-12 && std::fabs(bn.fixed_ms - 0.5 * a0 * 1e-6) < 1e-12);
    BudgetPlan sn, sr;
    CHECK(schedule_for_budget(t, OF_ALGO_TVL1, OF_PRECISION_F32, 20.0, areas, cpu, 3, 1, 1, 0, 1, 100000, &sn, kErr) ==
          OF_OK);
    CHECK(schedule_for_budget(t, OF_ALGO_TVL1, OF_PRECISION_F32, 20.0, areas, cpu, 3, 1, 1, 0, 1, 100000, &sr, kErr, 0.0f,
                              nullptr, true) == OF_OK);
    CHECK(sn.iterations[0] == bn.iterations[0] && sr.iterations[0] == br.iterations[0]);
}

// ---- selection ----------------------------------------------------------------------------------
struct Run {
    of_status status;
    Selection sel;
    of_info info;
};
Run g_run; // Selection is large: not on the stack

of_config config(of_algorithm a, of_precision p, of_backend b, uint32_t w = 160, uint32_t h = 120) {
    of_config c;
    of_config_init(&c, a);
    c.max_width = w;
    c.max_height = h;
    c.platform = "reftest";
    c.precision = p;
    c.backend = b;
    // One solve per frame, no DIS pass: the model below (robust_passes) and the split of a CUDA
    // frame (never with census or init dis: core/select.cpp).
    c.robust = OF_ROBUST_LOCAL_NORM;
    c.init = OF_INIT_NONE;
    return c;
}

const Run& plan(const of_config& c, SelectFor why = SelectFor::kCreate) {
    std::memset(static_cast<void*>(&g_run), 0, sizeof g_run);
    g_err[0] = '\0';
    g_run.status = check_config(&c, kErr);
    CHECK_MSG(g_run.status == OF_OK, "config: %s", g_err);
    if (g_run.status != OF_OK) return g_run;
    g_run.status = select_and_plan(c, 4096, reftest(), why, kErr, &g_run.sel);
    if (g_run.status == OF_OK) selection_info(g_run.sel, &g_run.info);
    return g_run;
}

// What the library predicts for a frame of c with every level on the CPU, by the model.
double model_ms(const of_config& c, bool cpu_reference) {
    const Selection& s = g_run.sel;
    std::uint64_t areas[kMaxLevels];
    Path cpu[kMaxLevels];
    for (int l = 0; l < s.plan.levels; ++l) {
        areas[l] = static_cast<std::uint64_t>(s.plan.dims[l].w) * static_cast<std::uint64_t>(s.plan.dims[l].h);
        cpu[l] = kPathCpu;
    }
    return frame_ms(*s.row, areas, cpu, s.plan.levels, c.warps, 1, c.iterations, c.iteration_growth, nullptr,
                    cpu_reference) *
           robust_passes(c.robust, c.algorithm);
}

void expect_backend(const Run& r, of_backend b, const char* what) {
    CHECK_MSG(r.status == OF_OK, "%s: %s", what, g_err);
    CHECK_MSG(r.status != OF_OK || r.sel.plan.backend == b, "%s: backend %d, want %d (%s)", what,
              static_cast<int>(r.sel.plan.backend), static_cast<int>(b), r.sel.reason);
}

void test_selection_neon() {
    // tvl1 f32: the reference row is faster (0.4 ns/it/px against 1): AUTO runs the reference.
    of_config c = config(OF_ALGO_TVL1, OF_PRECISION_F32, OF_BACKEND_AUTO);
    const Run& a = plan(c);
    expect_backend(a, OF_BACKEND_REFERENCE, "tvl1 f32 auto");
    CHECK(a.sel.cpu_backend == OF_BACKEND_REFERENCE && a.info.backend == OF_BACKEND_REFERENCE &&
          std::strcmp(a.info.variant, "ref") == 0 && a.info.level_wanted[0] == OF_BACKEND_REFERENCE);
    CHECK_MSG(has(a.sel.reason, "auto: reference path") &&
                  has(a.sel.reason, "the table's reference row is faster (0.4 ns/it/px against 1)"),
              "%s", a.sel.reason);
    CHECK_MSG(std::strcmp(a.info.reason, a.sel.reason) == 0, "%s", a.info.reason);
    std::printf("tvl1 f32 AUTO: %s\n", a.sel.reason);
    // ... predicted by the reference's terms
    CHECK_MSG(std::fabs(a.sel.predicted_ms - model_ms(c, true)) < 1e-12 && model_ms(c, true) < model_ms(c, false),
              "%g vs %g / %g", a.sel.predicted_ms, model_ms(c, true), model_ms(c, false));
    // ... and OFLOW_FORCE_BACKEND=auto chooses alike, whatever the config asks.
    set_env("OFLOW_FORCE_BACKEND", "auto");
    for (of_backend b : {OF_BACKEND_NEON, OF_BACKEND_REFERENCE, OF_BACKEND_AUTO}) {
        const Run& f = plan(config(OF_ALGO_TVL1, OF_PRECISION_F32, b));
        expect_backend(f, OF_BACKEND_REFERENCE, "tvl1 f32 forced auto");
        CHECK_MSG(has(f.sel.reason, "auto (forced): reference path") && has(f.sel.reason, "reference row is faster"), "%s",
                  f.sel.reason);
    }
    set_env("OFLOW_FORCE_BACKEND", nullptr);

    // Explicit NEON is never overridden, and is predicted by the row's own terms.
    c.backend = OF_BACKEND_NEON;
    const Run& n = plan(c);
    expect_backend(n, OF_BACKEND_NEON, "tvl1 f32 neon");
    CHECK_MSG(std::fabs(n.sel.predicted_ms - model_ms(c, false)) < 1e-12, "%g vs %g", n.sel.predicted_ms,
              model_ms(c, false));
    CHECK(!has(n.sel.reason, "reference row"));
    set_env("OFLOW_FORCE_BACKEND", "neon");
    expect_backend(plan(config(OF_ALGO_TVL1, OF_PRECISION_F32, OF_BACKEND_AUTO)), OF_BACKEND_NEON, "tvl1 f32 forced neon");
    set_env("OFLOW_FORCE_BACKEND", nullptr);
    // Explicit REFERENCE: the reference, by its terms.
    c.backend = OF_BACKEND_REFERENCE;
    const Run& rf = plan(c);
    expect_backend(rf, OF_BACKEND_REFERENCE, "tvl1 f32 reference");
    CHECK(std::fabs(rf.sel.predicted_ms - model_ms(c, true)) < 1e-12);

    // The time budget: AUTO and REFERENCE buy the reference's iterations, NEON its own.
    of_config b = config(OF_ALGO_TVL1, OF_PRECISION_F32, OF_BACKEND_AUTO, 320, 240);
    b.time_budget_ms = 5.0f;
    const Run& ba = plan(b);
    expect_backend(ba, OF_BACKEND_REFERENCE, "tvl1 f32 auto, budget");
    const std::uint32_t ref_it = ba.sel.iterations, ref_warps = ba.sel.cfg.warps;
    const double ref_ms = ba.sel.predicted_ms;
    b.backend = OF_BACKEND_REFERENCE;
    const Run& br = plan(b);
    CHECK(br.status == OF_OK && br.sel.iterations == ref_it && br.sel.cfg.warps == ref_warps);
    b.backend = OF_BACKEND_NEON;
    const Run& bn = plan(b);
    expect_backend(bn, OF_BACKEND_NEON, "tvl1 f32 neon, budget");
    CHECK_MSG(bn.sel.iterations * bn.sel.cfg.warps < ref_it * ref_warps, "NEON %u x %u, reference %u x %u",
              bn.sel.iterations, bn.sel.cfg.warps, ref_it, ref_warps);
    CHECK(ref_ms <= 5.0 && bn.sel.predicted_ms <= 5.0);

    // tvl1 f16: the reference row is slower (2.5 against 1): NEON, and the reason says why.
    const Run& h = plan(config(OF_ALGO_TVL1, OF_PRECISION_F16, OF_BACKEND_AUTO));
    expect_backend(h, OF_BACKEND_NEON, "tvl1 f16 auto");
    CHECK_MSG(has(h.sel.reason, "auto: NEON path") &&
                  has(h.sel.reason, "NEON is faster than the table's reference row (1 ns/it/px against 2.5)"),
              "%s", h.sel.reason);
    std::printf("tvl1 f16 AUTO: %s\n", h.sel.reason);
    // ... while an explicit REFERENCE still runs it.
    expect_backend(plan(config(OF_ALGO_TVL1, OF_PRECISION_F16, OF_BACKEND_REFERENCE)), OF_BACKEND_REFERENCE,
                   "tvl1 f16 reference");

    // hs f32 states no reference speed: NEON, as before the ref_* terms.
    const Run& s = plan(config(OF_ALGO_HS, OF_PRECISION_F32, OF_BACKEND_AUTO));
    expect_backend(s, OF_BACKEND_NEON, "hs f32 auto");
    CHECK_MSG(has(s.sel.reason, "auto: NEON path") && !has(s.sel.reason, "reference row"), "%s", s.sel.reason);

    // clg f32: the reference iterates faster (0.95 against 1) but its frame term loses the frame.
    of_config g = config(OF_ALGO_CLG, OF_PRECISION_F32, OF_BACKEND_AUTO);
    const Run& cl = plan(g);
    expect_backend(cl, OF_BACKEND_NEON, "clg f32 auto");
    CHECK_MSG(has(cl.sel.reason, "NEON is faster than the table's reference row (") && has(cl.sel.reason, "ms a frame"),
              "%s", cl.sel.reason);
    CHECK(model_ms(g, false) < model_ms(g, true));
    std::printf("clg f32 AUTO: %s\n", cl.sel.reason);

    // lk f32, per-level crossover 64x64 (of_explain's view: the named board's GPU assumed where
    // there is none): a CUDA frame whose coarse levels run on AUTO's CPU path, the reference.
    of_config k = config(OF_ALGO_LK, OF_PRECISION_F32, OF_BACKEND_AUTO, 256, 256);
    k.levels = 4;
    const Run& l = plan(k, SelectFor::kExplain);
    expect_backend(l, OF_BACKEND_CUDA, "lk f32 auto, explain");
    if (l.status == OF_OK) {
        CHECK_MSG(l.sel.split_from > 0 && l.sel.cpu_backend == OF_BACKEND_REFERENCE, "split %d, cpu %d",
                  l.sel.split_from, static_cast<int>(l.sel.cpu_backend));
        const int last = static_cast<int>(l.info.levels) - 1;
        CHECK(l.info.level_backend[0] == OF_BACKEND_CUDA && l.info.level_backend[last] == OF_BACKEND_REFERENCE &&
              l.info.level_wanted[last] == OF_BACKEND_REFERENCE);
        CHECK_MSG(has(l.sel.reason, "CPU levels: reference path"), "%s", l.sel.reason);
        CHECK(!l.sel.cpu_f16);
        std::printf("lk f32 AUTO, explain: %s\n", l.sel.reason);
    }
}

void test_selection_no_neon() {
    // Without NEON the CPU path is the reference, whatever the table says, modelled by its ref_*.
    for (of_precision p : {OF_PRECISION_F32, OF_PRECISION_F16}) {
        of_config c = config(OF_ALGO_TVL1, p, OF_BACKEND_AUTO);
        const Run& a = plan(c);
        expect_backend(a, OF_BACKEND_REFERENCE, "tvl1 auto, no NEON");
        CHECK(a.sel.cpu_backend == OF_BACKEND_REFERENCE);
        CHECK_MSG(!has(a.sel.reason, "reference row"), "%s", a.sel.reason);
        CHECK(std::fabs(a.sel.predicted_ms - model_ms(c, true)) < 1e-12);
    }
    const Run& n = plan(config(OF_ALGO_TVL1, OF_PRECISION_F32, OF_BACKEND_NEON));
    CHECK(n.status == OF_ERR_BACKEND_UNAVAILABLE);
    expect_backend(plan(config(OF_ALGO_HS, OF_PRECISION_F32, OF_BACKEND_AUTO)), OF_BACKEND_REFERENCE, "hs auto, no NEON");
}

} // namespace

// The default's DIS pass (config.init OF_INIT_DIS) is planned on the parent's board on CUDA: a board
// known only from the loaded table plans the pass too (its own select_and_plan once lost the loaded
// table and failed with "unknown platform").
void test_default_on_loaded_board() {
    of_config c;
    of_config_init(&c, OF_ALGO_TVL1);
    c.max_width = 160;
    c.max_height = 120;
    c.platform = "reftest";
    c.backend = OF_BACKEND_CUDA;
    const Run& r = plan(c, SelectFor::kExplain);
    CHECK_MSG(r.status == OF_OK, "the default (census + init dis) on the loaded board, CUDA explained: %s", g_err);
    CHECK_MSG(r.status != OF_OK || !r.sel.memory_planned || r.sel.init_device_bytes > 0,
              "the DIS pass's device bytes are planned (%zu)", r.sel.init_device_bytes);
}

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: platform_cpu_path REFTEST_DUMP.txt\n");
        return 1;
    }
    set_env("OFLOW_PLATFORM", nullptr);
    set_env("OFLOW_FORCE_BACKEND", nullptr);
    test_round_trip(argv[1]);
    if (!reftest()) return oftest::finish("platform_cpu_path");
    test_cpu_cost();
    test_default_on_loaded_board();
    // Whether NEON runs here: a NEON build on a CPU with Advanced SIMD (every aarch64 and x86-64 one).
    const Run& probe = plan(config(OF_ALGO_TVL1, OF_PRECISION_F32, OF_BACKEND_NEON));
    g_neon = probe.status == OF_OK;
    CHECK_MSG(g_neon || probe.status == OF_ERR_BACKEND_UNAVAILABLE, "%s", g_err);
    if (OF_TEST_HAVE_NEON) CHECK_MSG(g_neon, "a NEON build without NEON: %s", g_err);
    std::printf("NEON here: %s\n", g_neon ? "yes" : "no");
    if (g_neon)
        test_selection_neon();
    else
        test_selection_no_neon();
    return oftest::finish("platform_cpu_path");
}
