// The board tables wired into the library, seen through the public API (of_explain, of_create):
//  - the table's choice: OFLOW_PLATFORM over config.platform over detection ("auto" and "" mean
//    detect), unknown names refused with the known ones;
//  - selection at each board's crossover (area = crossover - 1 and = crossover, F32 and F16),
//    per level where the table says so, level 0's path for the whole frame, launch shapes at
//    the size-bucket boundaries;
//  - time budgets: the generic table's whole-frame model against the H200 frame times it was
//    fitted to (within 20 %), iterations monotone in the budget, a budget that buys nothing
//    refused, a created context running the budget's iterations;
//  - config.tuning_path (OF_WITH_TINYXML2): a table file joins the set; missing, broken and
//    invalid files refused naming file and line; without the reader: OF_ERR_UNSUPPORTED.
//   platform_explain FIXTURE_DIR WORK_DIR
#include "check.hpp"
#include "platform/tuning.hpp"

#include "oflow.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>

using namespace oflow::platform;

namespace {

std::string g_data, g_work;

bool has(const char* text, const char* part) { return text && std::strstr(text, part) != nullptr; }

const char* st(of_status s) { return of_status_string(s); }

of_config config(uint32_t w, uint32_t h, const char* platform, of_precision p = OF_PRECISION_AUTO) {
    of_config c;
    of_config_init(&c, OF_ALGO_TVL1);
    c.max_width = w;
    c.max_height = h;
    c.platform = platform;
    c.precision = p;
    // One solve and no DIS pass: the table's split (robust pick, census and init dis never split:
    // check_boundary).
    c.robust = OF_ROBUST_LOCAL_NORM;
    c.init = OF_INIT_NONE;
    return c;
}

of_status explain(const of_config& c, of_info* info) {
    std::memset(info, 0, sizeof *info);
    info->struct_size = sizeof *info;
    return of_explain(&c, info);
}

void set_env(const char* name, const char* value) {
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

// w x h == area with both sides in 1..32768, as square as possible; false when none.
bool sides_for(std::uint64_t area, uint32_t* w, uint32_t* h) {
    for (std::uint64_t a = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(area))) + 1; a >= 1; --a) {
        if (area % a || a > 32768 || area / a > 32768) continue;
        *w = static_cast<uint32_t>(a > area / a ? a : area / a);
        *h = static_cast<uint32_t>(area / *w);
        return true;
    }
    return false;
}

// This build's CPU path, as the library reports it: generic's crossover is 32x32.
of_backend cpu_path() {
    of_info in;
    const of_status s = explain(config(16, 16, "generic"), &in);
    CHECK(s == OF_OK && in.backend != OF_BACKEND_CUDA && in.backend != OF_BACKEND_AUTO);
    return in.backend;
}

void test_table_choice() {
    of_info in;
    // Detection (nothing named): this machine's board, CUDA device, or generic.
    CHECK(explain(config(320, 240, nullptr), &in) == OF_OK);
    CHECK_MSG(!std::strcmp(in.board_match, "board") || !std::strcmp(in.board_match, "compute capability") ||
                  !std::strcmp(in.board_match, "generic"),
              "detected: %s (%s)", in.board, in.board_match);
    if (!std::strcmp(in.board_match, "generic")) CHECK(!std::strcmp(in.board, "generic"));
    std::printf("detected here: %s (%s): %s\n", in.board, in.board_match, in.board_reason);
    const std::string detected = in.board;
    for (const char* same : {"", "auto"}) {
        CHECK(explain(config(320, 240, same), &in) == OF_OK);
        CHECK_MSG(detected == in.board && std::strcmp(in.board_match, "override") != 0, "\"%s\": %s", same, in.board);
    }
    // config.platform names a table.
    for (const char* name : {"nano", "tx2", "xavier", "orin", "generic"}) {
        CHECK(explain(config(320, 240, name), &in) == OF_OK);
        CHECK_MSG(!std::strcmp(in.board, name) && !std::strcmp(in.board_match, "override") &&
                      has(in.board_reason, "config.platform"),
                  "%s: %s (%s) %s", name, in.board, in.board_match, in.board_reason);
    }
    // OFLOW_PLATFORM over config.platform; "auto" there means detect; empty means unset.
    set_env("OFLOW_PLATFORM", "tx2");
    CHECK(explain(config(320, 240, "xavier"), &in) == OF_OK);
    CHECK(!std::strcmp(in.board, "tx2") && !std::strcmp(in.board_match, "override") && has(in.board_reason, "OFLOW_PLATFORM"));
    set_env("OFLOW_PLATFORM", "auto");
    CHECK(explain(config(320, 240, "xavier"), &in) == OF_OK);
    CHECK(detected == in.board && std::strcmp(in.board_match, "override") != 0);
    set_env("OFLOW_PLATFORM", "");
    CHECK(explain(config(320, 240, "xavier"), &in) == OF_OK && !std::strcmp(in.board, "xavier"));
    // Unknown names: a status, the origin and the known names; never a default.
    set_env("OFLOW_PLATFORM", "jetson9");
    of_status s = explain(config(320, 240, "xavier"), &in);
    CHECK_MSG(s == OF_ERR_INVALID_ARGUMENT && has(of_last_error(nullptr), "OFLOW_PLATFORM") &&
                  has(of_last_error(nullptr), "jetson9"),
              "%s: %s", st(s), of_last_error(nullptr));
    of_context* ctx = nullptr;
    const of_config small = config(32, 32, nullptr);
    CHECK(of_create(&small, &ctx) == OF_ERR_INVALID_ARGUMENT && ctx == nullptr);
    set_env("OFLOW_PLATFORM", nullptr);
    s = explain(config(320, 240, "xavier2"), &in);
    const char* e = of_last_error(nullptr);
    CHECK_MSG(s == OF_ERR_INVALID_ARGUMENT && has(e, "config.platform") && has(e, "'xavier2'") && has(e, "nano") &&
                  has(e, "tx2") && has(e, "orin") && has(e, "generic"),
              "%s: %s", st(s), e);
}

// One frame of `area` pixels on board b, precision p: what the table wants per level and what runs.
void check_boundary(const BoardTable& b, of_precision p, std::uint64_t area, of_backend cpu) {
    uint32_t w = 0, h = 0;
    CHECK_MSG(sides_for(area, &w, &h), "%s: no frame of %llu pixels", b.name, static_cast<unsigned long long>(area));
    if (!w) return;
    const TuningRow* row = find_row(b, OF_ALGO_TVL1, p);
    of_info in;
    const of_status s = explain(config(w, h, b.name, p), &in);
    CHECK_MSG(s == OF_OK, "%s %ux%u: %s %s", b.name, w, h, st(s), of_last_error(nullptr));
    if (s != OF_OK || !row) return;
    const std::uint64_t area0 = static_cast<std::uint64_t>(in.level_width[0]) * in.level_height[0];
    CHECK(area0 == area);
    for (uint32_t l = 0; l < in.levels; ++l) {
        const std::uint64_t a = static_cast<std::uint64_t>(in.level_width[l]) * in.level_height[l];
        const bool gpu = (row->crossover_per_level ? a : area0) >= row->crossover_area;
        CHECK_MSG(in.level_wanted[l] == (gpu ? OF_BACKEND_CUDA : cpu), "%s %s %ux%u level %u (%llu px): wants %d",
                  b.name, precision_name(p), w, h, l, static_cast<unsigned long long>(a),
                  static_cast<int>(in.level_wanted[l]));
        // On CUDA the levels the table wants on the CPU run there (a split frame); a CPU frame
        // runs every level on the CPU.
        const of_backend runs = in.backend == OF_BACKEND_CUDA ? in.level_wanted[l] : in.backend;
        CHECK_MSG(in.level_backend[l] == runs, "%s %s %ux%u level %u: runs %d", b.name, precision_name(p), w, h, l,
                  static_cast<int>(in.level_backend[l]));
    }
    // the split is a suffix: once a level runs on the CPU, every coarser one does
    for (uint32_t l = 1; l < in.levels; ++l)
        if (in.level_backend[l - 1] != OF_BACKEND_CUDA) CHECK(in.level_backend[l] != OF_BACKEND_CUDA);
    // Robust pick runs its three solves on one backend, and the default (robust census, init dis)
    // its one solve and DIS pass: every level where level 0 runs.
    of_config pc = config(w, h, b.name, p);
    pc.robust = OF_ROBUST_PICK;
    of_config dc;
    of_config_init(&dc, OF_ALGO_TVL1);
    dc.max_width = w;
    dc.max_height = h;
    dc.platform = b.name;
    dc.precision = p;
    for (const of_config* one : {&pc, &dc}) {
        const char* what = one == &pc ? "pick" : "default";
        of_info pi;
        CHECK_MSG(explain(*one, &pi) == OF_OK, "%s %s %ux%u %s: %s", b.name, precision_name(p), w, h, what,
                  of_last_error(nullptr));
        for (uint32_t l = 0; l < pi.levels; ++l)
            CHECK_MSG(pi.level_backend[l] == pi.backend, "%s %s %ux%u %s: level %u runs %d, the frame %d", b.name,
                      precision_name(p), w, h, what, l, static_cast<int>(pi.level_backend[l]),
                      static_cast<int>(pi.backend));
    }
    // Level 0's wish runs the frame (the board's GPU assumed: the platform is named).
    const bool gpu0 = area0 >= row->crossover_area;
    CHECK_MSG(in.backend == (gpu0 ? OF_BACKEND_CUDA : cpu), "%s %s %ux%u: backend %d", b.name, precision_name(p), w, h,
              static_cast<int>(in.backend));
    if (in.backend == OF_BACKEND_CUDA) {
        CHECK(in.precision == p);
        LaunchChoice lc{};
        char buf[256];
        CHECK(select_launch(b, OF_ALGO_TVL1, p, area0, kVariantsCuda, &lc, oflow::ErrorSink{buf}) == OF_OK);
        CHECK_MSG(lc.row && in.block_width == static_cast<uint32_t>(lc.row->block_w) &&
                      in.block_height == static_cast<uint32_t>(lc.row->block_h) &&
                      in.rows_per_thread == static_cast<uint32_t>(lc.row->rows) &&
                      in.fused_depth == static_cast<uint32_t>(lc.row->depth),
                  "%s %s %ux%u: launch %ux%u rows %u depth %u", b.name, precision_name(p), w, h, in.block_width,
                  in.block_height, in.rows_per_thread, in.fused_depth);
        of_variant v = OF_VARIANT_AUTO;
        CHECK(lc.row && to_of_variant(lc.row->variant, &v) &&
              (v == OF_VARIANT_MULTI_ITER) == (std::strstr(in.variant, "multi-iter") != nullptr));
    } else {
        CHECK(in.block_width == 0 && in.block_height == 0 && in.rows_per_thread == 0 && in.fused_depth == 0);
    }
    CHECK(has(in.reason, "auto") && has(in.reason, b.name));
    const bool mixed = in.levels > 1 && in.level_wanted[in.levels - 1] != in.level_wanted[0];
    if (mixed && in.backend == OF_BACKEND_CUDA)
        CHECK_MSG(has(in.reason, "on the GPU") && has(in.reason, "on the CPU"), "%s", in.reason);
}

void test_crossovers() {
    const of_backend cpu = cpu_path();
    const TableSet set = builtin_tables();
    int boundaries = 0;
    for (int i = 0; i < set.count; ++i) {
        const BoardTable& b = *set.boards[i];
        for (of_precision p : {OF_PRECISION_F32, OF_PRECISION_F16}) {
            const TuningRow* row = find_row(b, OF_ALGO_TVL1, p);
            CHECK_MSG(row != nullptr, "%s has no tvl1 %s row", b.name, precision_name(p));
            if (!row) continue;
            const std::uint64_t c = row->crossover_area;
            if (c == 0) { // the GPU always wins: the smallest frame and a large one
                check_boundary(b, p, 1, cpu);
                check_boundary(b, p, 1920ull * 1080, cpu);
            } else {
                check_boundary(b, p, c - 1, cpu);
                check_boundary(b, p, c, cpu);
            }
            ++boundaries;
        }
    }
    CHECK(boundaries == 2 * set.count);
    // What the boundaries are (the CPU/GPU crossovers measured in T. Romera, "Adequation
    // algorithme architecture pour flot optique sur GPU embarque", PhD thesis, Sorbonne
    // Universite, 2023, section 5.2.1.3): a frame one pixel short runs on the CPU.
    of_info in;
    CHECK(explain(config(511, 513, "xavier", OF_PRECISION_F16), &in) == OF_OK && in.backend == cpu);
    CHECK(explain(config(512, 512, "xavier", OF_PRECISION_F16), &in) == OF_OK && in.backend == OF_BACKEND_CUDA);
    CHECK(explain(config(139, 141, "tx2", OF_PRECISION_F32), &in) == OF_OK && in.backend == cpu);
    CHECK(explain(config(140, 140, "tx2", OF_PRECISION_F32), &in) == OF_OK && in.backend == OF_BACKEND_CUDA);
    CHECK(explain(config(169, 171, "tx2", OF_PRECISION_F16), &in) == OF_OK && in.backend == cpu);
    CHECK(explain(config(170, 170, "tx2", OF_PRECISION_F16), &in) == OF_OK && in.backend == OF_BACKEND_CUDA);
    CHECK(explain(config(1, 1, "nano", OF_PRECISION_F32), &in) == OF_OK && in.backend == OF_BACKEND_CUDA);
    CHECK(explain(config(31, 33, "generic", OF_PRECISION_F32), &in) == OF_OK && in.backend == cpu);
    CHECK(explain(config(32, 32, "generic", OF_PRECISION_F32), &in) == OF_OK && in.backend == OF_BACKEND_CUDA);
    // Precision AUTO is the table's: F16 on the Jetson tables, F32 on generic.
    CHECK(explain(config(640, 480, "orin"), &in) == OF_OK && in.precision == OF_PRECISION_F16);
    CHECK(explain(config(640, 480, "generic"), &in) == OF_OK && in.precision == OF_PRECISION_F32);
    // On the CPU path an F16 choice runs F32 where the CPU has no F16 arithmetic, and says so.
    CHECK(explain(config(100, 100, "xavier"), &in) == OF_OK && in.backend == cpu);
    if (in.precision == OF_PRECISION_F32) CHECK_MSG(has(in.reason, "F16 by the table"), "%s", in.reason);
    // The generic rows reproduce the CUDA path's built-in defaults (cuda/cuda_layout.hpp).
    CHECK(explain(config(1920, 1080, "generic", OF_PRECISION_F32), &in) == OF_OK);
    CHECK(in.block_width == 32 && in.block_height == 8 && in.rows_per_thread == 8 && in.fused_depth == 4 &&
          !std::strcmp(in.variant, "cuda-multi-iter-f32"));
    CHECK(explain(config(1920, 1080, "generic", OF_PRECISION_F16), &in) == OF_OK);
    CHECK(in.block_width == 32 && in.block_height == 8 && in.rows_per_thread == 6 && in.fused_depth == 7 &&
          !std::strcmp(in.variant, "cuda-multi-iter-f16x2"));
    // What the config sets wins over the table's launch row.
    of_config c = config(1920, 1080, "xavier", OF_PRECISION_F32);
    c.variant = OF_VARIANT_GLOBAL;
    CHECK(explain(c, &in) == OF_OK && !std::strcmp(in.variant, "cuda-global-f32") && in.fused_depth == 1);
    c.variant = OF_VARIANT_MULTI_ITER;
    c.fused_depth = 2;
    c.block_height = 2;
    CHECK(explain(c, &in) == OF_OK && in.fused_depth == 2 && in.block_height == 2 && in.rows_per_thread == 8);
    // Explicit backends behave as before the tables: the table only reports its wish.
    c = config(1920, 1080, "xavier");
    c.backend = OF_BACKEND_REFERENCE;
    CHECK(explain(c, &in) == OF_OK && in.backend == OF_BACKEND_REFERENCE && in.level_wanted[0] == OF_BACKEND_CUDA &&
          in.level_backend[0] == OF_BACKEND_REFERENCE && has(in.reason, "reference requested"));
    // ... and OFLOW_FORCE_BACKEND still wins.
    set_env("OFLOW_FORCE_BACKEND", "reference");
    CHECK(explain(config(1920, 1080, "xavier"), &in) == OF_OK && in.backend == OF_BACKEND_REFERENCE &&
          has(in.reason, "OFLOW_FORCE_BACKEND"));
    set_env("OFLOW_FORCE_BACKEND", nullptr);
}

// The launch row of each size bucket, at its largest area and one pixel above.
void test_buckets() {
    for (const char* name : {"generic", "xavier", "nano"})
        for (of_precision p : {OF_PRECISION_F32, OF_PRECISION_F16})
            for (int b = kBucket256; b < kBucketLarger; ++b) {
                const std::uint64_t edge = bucket_max_area(static_cast<Bucket>(b));
                std::uint64_t above = edge + 1; // the first area above with sides of at most 32768
                uint32_t w = 0, h = 0;
                while (!sides_for(above, &w, &h)) ++above;
                CHECK(bucket_for_area(edge) == b && bucket_for_area(above) == b + 1);
                for (std::uint64_t area : {edge, above}) {
                    CHECK(sides_for(area, &w, &h));
                    const of_config c = config(w, h, name, p);
                    of_info in;
                    if (explain(c, &in) != OF_OK || in.backend != OF_BACKEND_CUDA) continue;
                    LaunchChoice lc{};
                    char buf[256];
                    CHECK(select_launch(*find_board(name), OF_ALGO_TVL1, p, area, kVariantsCuda, &lc,
                                        oflow::ErrorSink{buf}) == OF_OK);
                    CHECK_MSG(lc.row && lc.bucket == bucket_for_area(area) &&
                                  in.block_height == static_cast<uint32_t>(lc.row->block_h) &&
                                  in.rows_per_thread == static_cast<uint32_t>(lc.row->rows) &&
                                  in.fused_depth == static_cast<uint32_t>(lc.row->depth),
                              "%s %s %ux%u", name, precision_name(p), w, h);
                }
            }
}

// Whole frames on the H200 (docs/cuda-performance.md, "Whole frames", and 1920x1080 frames of
// oflow-bench --budget, 2026-11-21): generic's model (fitted to them) within 20 %, which is what
// a budget needs to be met on such a GPU.
void test_budget_model() {
    struct Frame {
        uint32_t w, h;
        of_precision p;
        uint32_t levels, warps, iterations;
        double ms;
    };
    const Frame frames[] = {
        {640, 480, OF_PRECISION_F32, 3, 1, 10, 0.178},      {640, 480, OF_PRECISION_F32, 0, 3, 50, 2.128},
        {1280, 720, OF_PRECISION_F32, 3, 1, 10, 0.308},     {1280, 720, OF_PRECISION_F32, 0, 3, 50, 3.683},
        {1920, 1080, OF_PRECISION_F32, 3, 1, 10, 0.542},    {1920, 1080, OF_PRECISION_F32, 0, 3, 50, 6.03},
        {3840, 2160, OF_PRECISION_F32, 3, 1, 10, 1.776},    {3840, 2160, OF_PRECISION_F32, 0, 3, 50, 16.82},
        {640, 480, OF_PRECISION_F16, 3, 1, 10, 0.152},      {640, 480, OF_PRECISION_F16, 0, 3, 50, 1.447},
        {1280, 720, OF_PRECISION_F16, 3, 1, 10, 0.239},     {1280, 720, OF_PRECISION_F16, 0, 3, 50, 2.259},
        {1920, 1080, OF_PRECISION_F16, 3, 1, 10, 0.419},    {1920, 1080, OF_PRECISION_F16, 0, 3, 50, 3.73},
        {3840, 2160, OF_PRECISION_F16, 3, 1, 10, 1.305},    {3840, 2160, OF_PRECISION_F16, 0, 3, 50, 9.597},
        // oflow-bench --budget: auto and 3 levels, 1-5 warps (these identify level_us)
        {1920, 1080, OF_PRECISION_F32, 0, 1, 6, 0.582},     {1920, 1080, OF_PRECISION_F32, 0, 1, 20, 1.045},
        {1920, 1080, OF_PRECISION_F32, 0, 2, 23, 2.048},    {1920, 1080, OF_PRECISION_F32, 3, 1, 8, 0.473},
        {1920, 1080, OF_PRECISION_F32, 3, 2, 12, 0.977},    {1920, 1080, OF_PRECISION_F32, 3, 3, 20, 2.030},
        {1920, 1080, OF_PRECISION_F16, 0, 1, 10, 0.581},    {1920, 1080, OF_PRECISION_F16, 0, 2, 15, 1.144},
        {1920, 1080, OF_PRECISION_F16, 0, 4, 21, 2.349},    {1920, 1080, OF_PRECISION_F16, 3, 1, 15, 0.506},
        {1920, 1080, OF_PRECISION_F16, 3, 2, 24, 1.062},    {1920, 1080, OF_PRECISION_F16, 3, 5, 21, 2.138},
    };
    for (const Frame& f : frames) {
        of_config c = config(f.w, f.h, "generic", f.p);
        c.levels = f.levels;
        c.warps = f.warps;
        c.iterations = f.iterations;
        of_info in;
        CHECK(explain(c, &in) == OF_OK && in.backend == OF_BACKEND_CUDA);
        const double r = in.predicted_ms / f.ms;
        CHECK_MSG(r > 0.8 && r < 1.2, "%ux%u %s %u levels %u warps %u it: model %.3f ms, H200 %.3f ms", f.w, f.h,
                  precision_name(f.p), f.levels, f.warps, f.iterations, in.predicted_ms, f.ms);
        // ... and a budget of the measured time buys about the measured work (warps x iterations;
        // past OF_BUDGET_ITERATIONS_PER_WARP the budget buys warps)
        c.time_budget_ms = static_cast<float>(f.ms);
        CHECK(explain(c, &in) == OF_OK && in.predicted_ms <= f.ms);
        const double it = static_cast<double>(in.iterations) * in.warps, want = f.iterations * f.warps;
        CHECK_MSG(std::fabs(it - want) <= 0.5 * want && in.warps >= f.warps,
                  "%ux%u %s: budget %.3f ms buys %u warps x %u iterations, the H200 ran %u x %u", f.w, f.h,
                  precision_name(f.p), f.ms, in.warps, in.iterations, f.warps, f.iterations);
    }
}

void test_budget() {
    // More budget, never less work (warps x iterations) and never fewer warps; each count is
    // the most that fits at its warps; warps grow past config.warps only once a warp would get
    // more than OF_BUDGET_ITERATIONS_PER_WARP iterations, up to 100.
    of_config c = config(1920, 1080, "generic", OF_PRECISION_F16);
    c.warps = 3;
    uint64_t last = 0;
    uint32_t last_warps = 0;
    for (float ms : {1.0f, 2.0f, 5.0f, 10.0f, 20.0f, 50.0f, 100.0f, 1000.0f}) {
        c.time_budget_ms = ms;
        of_info in;
        of_status s = explain(c, &in);
        CHECK_MSG(s == OF_OK, "budget %g: %s %s", static_cast<double>(ms), st(s), of_last_error(nullptr));
        const uint64_t work = static_cast<uint64_t>(in.iterations) * in.warps;
        CHECK_MSG(work >= last && in.warps >= last_warps && in.iterations >= 1 && in.iterations <= 100000,
                  "budget %g: %u x %u after %llu work at %u warps", static_cast<double>(ms), in.warps, in.iterations,
                  static_cast<unsigned long long>(last), last_warps);
        CHECK(in.warps >= 3 && in.warps <= 100);
        if (in.warps > 3 && in.warps < 100) CHECK(in.iterations <= OF_BUDGET_ITERATIONS_PER_WARP);
        CHECK(in.predicted_ms <= ms && in.predicted_ms > 0);
        for (uint32_t l = 0; l < in.levels; ++l) CHECK(in.level_iterations[l] == in.iterations);
        last = work;
        last_warps = in.warps;
        of_config more = c; // one more iteration at those warps no longer fits
        more.time_budget_ms = 0;
        more.warps = in.warps;
        more.iterations = in.iterations + 1;
        of_info next;
        if (in.iterations < 100000) CHECK(explain(more, &next) == OF_OK && next.predicted_ms > ms);
    }
    CHECK(last > 1000 && last_warps == 100);
    // A budget that buys no iteration says what one costs.
    c.time_budget_ms = 0.05f;
    of_info in;
    std::memset(&in, 0x2a, sizeof in);
    in.struct_size = sizeof in;
    const of_info before = in;
    of_status s = of_explain(&c, &in);
    const char* e = of_last_error(nullptr);
    CHECK_MSG(s == OF_ERR_INVALID_ARGUMENT && has(e, "buys no iteration") && has(e, " ms") && has(e, "generic.xml"),
              "%s: %s", st(s), e);
    CHECK(std::memcmp(&in, &before, sizeof in) == 0);
    of_memory m;
    std::memset(&m, 0, sizeof m);
    m.struct_size = sizeof m;
    CHECK(of_query_memory(&c, &m) == OF_ERR_INVALID_ARGUMENT);
    // The CPU path costs more per iteration: fewer iterations for the same budget (250 ms: the
    // reference path's row buys 1 iteration a level and warp at 1080p, 114 ms for 3 warps).
    c.time_budget_ms = 250.0f;
    of_info gpu, cpu;
    CHECK(explain(c, &gpu) == OF_OK);
    c.backend = OF_BACKEND_REFERENCE;
    CHECK(explain(c, &cpu) == OF_OK && cpu.iterations < gpu.iterations);

    // A context runs the budget's iterations (reference path, epsilon 0: all of them).
    of_config r = config(64, 48, "generic", OF_PRECISION_F32);
    r.backend = OF_BACKEND_REFERENCE;
    r.warps = 2;
    r.epsilon = 0.0f;
    r.time_budget_ms = 1.0f;
    of_info ex;
    CHECK(explain(r, &ex) == OF_OK && ex.iterations >= 1);
    of_context* ctx = nullptr;
    s = of_create(&r, &ctx);
    CHECK_MSG(s == OF_OK, "create with a budget: %s %s", st(s), of_last_error(nullptr));
    if (!ctx) return;
    of_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    CHECK(of_get_info(ctx, &info) == OF_OK && info.iterations == ex.iterations && info.predicted_ms == ex.predicted_ms);
    static unsigned char f0[64 * 48], f1[64 * 48];
    for (int i = 0; i < 64 * 48; ++i) {
        f0[i] = static_cast<unsigned char>((i * 37) ^ (i >> 6) * 11);
        f1[i] = static_cast<unsigned char>(((i + 1) * 37) ^ (i >> 6) * 11);
    }
    static float u[64 * 48], v[64 * 48];
    of_image a;
    std::memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.format = OF_PIXEL_U8;
    a.memory = OF_MEMORY_HOST;
    a.width = 64;
    a.height = 48;
    a.stride = 64;
    a.data = f0;
    of_image b = a;
    b.data = f1;
    of_flow fl;
    std::memset(&fl, 0, sizeof fl);
    fl.struct_size = sizeof fl;
    fl.layout = OF_FLOW_PLANAR;
    fl.memory = OF_MEMORY_HOST;
    fl.width = 64;
    fl.height = 48;
    fl.stride = 64 * sizeof(float);
    fl.u = u;
    fl.v = v;
    CHECK(of_process(ctx, &a, &b, &fl) == OF_OK);
    CHECK(of_get_info(ctx, &info) == OF_OK);
    CHECK_MSG(info.last_iterations == static_cast<uint64_t>(info.last_levels) * r.warps * ex.iterations,
              "ran %llu iterations, budget %u x %u warps x %u levels", static_cast<unsigned long long>(info.last_iterations),
              ex.iterations, r.warps, info.last_levels);
    of_destroy(ctx);
}

void write_file(const std::string& path, const std::string& text) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    CHECK_MSG(f != nullptr, "cannot write %s", path.c_str());
    if (!f) return;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
}

std::string read_file(const std::string& path) {
    std::string s;
    if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
        char buf[4096];
        std::size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
        std::fclose(f);
    }
    return s;
}

void test_tuning_path() {
    const std::string good = g_data + "/good_minimal.xml"; // board "mini": tvl1 f32 only, crossover 256x256
    of_config c = config(640, 480, "mini");
    c.tuning_path = good.c_str();
    of_info in;
    of_status s = explain(c, &in);
#if OF_TEST_HAVE_TINYXML2
    CHECK_MSG(s == OF_OK, "%s: %s", st(s), of_last_error(nullptr));
    CHECK(!std::strcmp(in.board, "mini") && !std::strcmp(in.board_match, "override") && in.precision == OF_PRECISION_F32);
    // a built-in name still resolves with the file loaded, and "mini" is known only with it
    c.platform = "xavier";
    CHECK(explain(c, &in) == OF_OK && !std::strcmp(in.board, "xavier"));
    of_config plain = config(640, 480, "mini");
    CHECK(explain(plain, &in) == OF_ERR_INVALID_ARGUMENT && has(of_last_error(nullptr), "'mini'"));
    // a table without a row for the request: a status and the file
    c.platform = "mini";
    c.precision = OF_PRECISION_F16;
    s = explain(c, &in);
    CHECK_MSG(s == OF_ERR_UNSUPPORTED && has(of_last_error(nullptr), "good_minimal.xml:3:") &&
                  has(of_last_error(nullptr), "no row for tvl1 f16") && has(of_last_error(nullptr), "it has: tvl1 f32"),
              "%s: %s", st(s), of_last_error(nullptr));
    c.precision = OF_PRECISION_AUTO;
    // of_query_memory counts the table in the host arena; of_create keeps it there
    of_config ref = c;
    ref.backend = OF_BACKEND_REFERENCE;
    ref.max_width = 64;
    ref.max_height = 48;
    of_config without = ref;
    without.tuning_path = nullptr;
    without.platform = "generic";
    of_memory m1, m2;
    std::memset(&m1, 0, sizeof m1);
    m1.struct_size = sizeof m1;
    m2 = m1;
    CHECK(of_query_memory(&ref, &m1) == OF_OK && of_query_memory(&without, &m2) == OF_OK);
    CHECK_MSG(m1.host_bytes >= m2.host_bytes + 40000, "host bytes %zu with the table, %zu without", m1.host_bytes,
              m2.host_bytes);
    std::string path_copy = good; // the path need not outlive of_create
    ref.tuning_path = path_copy.c_str();
    of_context* ctx = nullptr;
    s = of_create(&ref, &ctx);
    CHECK_MSG(s == OF_OK, "create with tuning_path: %s %s", st(s), of_last_error(nullptr));
    path_copy.assign(path_copy.size(), 'x');
    if (ctx) {
        of_info info;
        std::memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        CHECK(of_get_info(ctx, &info) == OF_OK && !std::strcmp(info.board, "mini") && info.host_bytes == m1.host_bytes);
        CHECK(has(info.board_reason, "mini"));
        of_destroy(ctx);
    }
    // bad files: status, and a message naming the file (and line, where there is one)
    c.tuning_path = "no-such-dir/table.xml";
    s = explain(c, &in);
    CHECK_MSG(s == OF_ERR_INVALID_ARGUMENT && has(of_last_error(nullptr), "no-such-dir/table.xml: cannot open"), "%s: %s",
              st(s), of_last_error(nullptr));
    const std::string text = read_file(good);
    CHECK(text.size() > 400);
    const std::string truncated = g_work + "/explain_truncated.xml";
    write_file(truncated, text.substr(0, text.size() / 2));
    c.tuning_path = truncated.c_str();
    s = explain(c, &in);
    CHECK_MSG(s == OF_ERR_INVALID_ARGUMENT && has(of_last_error(nullptr), "explain_truncated.xml:"), "%s: %s", st(s),
              of_last_error(nullptr));
    ctx = nullptr;
    CHECK(of_create(&c, &ctx) == OF_ERR_INVALID_ARGUMENT && ctx == nullptr);
    const std::string bad = g_data + "/bad_ns_zero.xml";
    c.tuning_path = bad.c_str();
    s = explain(c, &in);
    CHECK_MSG(s == OF_ERR_INVALID_ARGUMENT && has(of_last_error(nullptr), "bad_ns_zero.xml:8: <path> ns_per_it_px=\"0\""),
              "%s: %s", st(s), of_last_error(nullptr));
    // the optional whole-frame terms are range-checked too
    const char* const ranges[][2] = {{"bad_frame_cost.xml", "bad_frame_cost.xml:8: <path> launch_us"},
                                     {"bad_level_cost.xml", "bad_level_cost.xml:8: <path> level_us"}};
    for (const auto& r : ranges) {
        const std::string range = g_data + "/" + r[0];
        c.tuning_path = range.c_str();
        s = explain(c, &in);
        CHECK_MSG(s == OF_ERR_INVALID_ARGUMENT && has(of_last_error(nullptr), r[1]), "%s: %s", st(s),
                  of_last_error(nullptr));
    }
#else
    CHECK_MSG(s == OF_ERR_UNSUPPORTED && has(of_last_error(nullptr), "OF_WITH_TINYXML2"), "%s: %s", st(s),
              of_last_error(nullptr));
    of_context* ctx = nullptr;
    CHECK(of_create(&c, &ctx) == OF_ERR_UNSUPPORTED && ctx == nullptr);
    (void)write_file;
    (void)read_file;
#endif
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: platform_explain FIXTURE_DIR WORK_DIR\n");
        return 1;
    }
    g_data = argv[1];
    g_work = argv[2];
    // This test sets both variables itself (the aarch64 presets force a backend for the suite).
    set_env("OFLOW_FORCE_BACKEND", nullptr);
    set_env("OFLOW_PLATFORM", nullptr);
    test_table_choice();
    test_crossovers();
    test_buckets();
    test_budget_model();
    test_budget();
    test_tuning_path();
    return oftest::finish("platform_explain");
}
