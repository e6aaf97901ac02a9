// api_contract: every bad input has its exact status, a non-empty message, writes nothing
// to the output and leaves the context usable (the next valid call succeeds). Also the
// defaults of of_config_init, of_get_info, of_status_string, of_version, of_destroy(NULL)
// and the per-thread of_last_error(NULL).
#include "test_util.hpp"

#include "core/robust.hpp"

#include <cfloat>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>
#include <unistd.h>

using namespace oftest;

#if defined(__SANITIZE_ADDRESS__)
// The out-of-memory case needs malloc to fail with NULL rather than abort under ASan.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }
#endif

// raw_calls.c: calls with out-of-range enum arguments, made from C.
extern "C" of_status oftest_config_init_raw(of_config* cfg, int algo);
extern "C" const char* oftest_status_string_raw(int s);

namespace {

const uint32_t kMaxW = 64, kMaxH = 48; // context maximum
const uint32_t kW = 48, kH = 40;       // frames used (smaller than the maximum)
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

bool nonempty(const char* m) { return m != nullptr && m[0] != '\0'; }

#define CHECK_STATUS(got, want, what)                                                        \
    CHECK_MSG((got) == (want), "%s: got %s, want %s", (what), st(got), st(want))

bool have_nvidia_device() { return access("/dev/nvidiactl", F_OK) == 0; }

// ---- of_config_init / of_query_memory / of_create ---------------------------------------------

// Whether this build's LK has a CUDA path, from the API alone: of_explain on a named board assumes
// that board's GPU, so it explains backend CUDA for LK (OF_OK) exactly when LK has a CUDA path,
// and answers OF_ERR_UNSUPPORTED otherwise. (Under OFLOW_FORCE_BACKEND=reference or neon the
// answer is OK either way; the callers do not depend on it there.)
bool lk_has_cuda_path() {
    of_config c;
    of_config_init(&c, OF_ALGO_LK);
    c.max_width = 64;
    c.max_height = 48;
    c.backend = OF_BACKEND_CUDA;
    c.platform = "generic";
    of_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    return of_explain(&c, &info) == OF_OK;
}

void test_config_init() {
    CHECK_STATUS(of_config_init(nullptr, OF_ALGO_TVL1), OF_ERR_NULL_POINTER, "config_init(NULL)");
    CHECK(nonempty(of_last_error(nullptr)));

    // Unknown algorithm: INVALID_ARGUMENT and *cfg untouched.
    const int bad_algos[] = {0, 6, 99, 0x7fffffff};
    for (int a : bad_algos) {
        of_config c;
        std::memset(&c, 0x5A, sizeof c);
        of_config copy = c;
        of_status s = oftest_config_init_raw(&c, a);
        CHECK_MSG(s == OF_ERR_INVALID_ARGUMENT, "config_init(algo %d): got %s", a, st(s));
        CHECK_MSG(std::memcmp(&c, &copy, sizeof c) == 0, "config_init(algo %d) wrote to cfg", a);
        CHECK(nonempty(of_last_error(nullptr)));
    }

    // TV-L1 defaults as documented in oflow.h.
    of_config c;
    std::memset(&c, 0x5A, sizeof c);
    CHECK_STATUS(of_config_init(&c, OF_ALGO_TVL1), OF_OK, "config_init(TVL1)");
    CHECK(c.struct_size == sizeof(of_config));
    CHECK(c.algorithm == OF_ALGO_TVL1);
    CHECK(c.max_width == 640 && c.max_height == 480);
    CHECK(c.format == OF_PIXEL_U8);
    CHECK(c.levels == 0);
    CHECK(c.scale_factor == 0.5f);
    CHECK(c.warps == 5);
    CHECK(c.iterations == 300);
    CHECK(c.epsilon == 0.01f);
    CHECK(c.presmooth_sigma == 0.8f);
    CHECK(c.backend == OF_BACKEND_AUTO);
    CHECK(c.precision == OF_PRECISION_AUTO);
    CHECK(c.threads == 1);
    CHECK(c.time_budget_ms == 0.0f);
    CHECK(c.tvl1.tau == 0.25f && c.tvl1.lambda == 0.15f && c.tvl1.theta == 0.3f);
    CHECK(c.host_arena == nullptr && c.device_arena == nullptr && c.cuda_stream == nullptr);
    CHECK(c.platform == nullptr);
    CHECK(c.variant == OF_VARIANT_AUTO);
    CHECK(c.block_width == 0 && c.block_height == 0 && c.fused_depth == 0);
    CHECK(c.host_arena_size == 0 && c.device_arena_size == 0);

    // HS / CLG / LK fill their defaults and return OK, and all three run (LK without a CUDA path:
    // not when OFLOW_FORCE_BACKEND forces CUDA).
    const of_algorithm later[] = {OF_ALGO_HS, OF_ALGO_CLG, OF_ALGO_LK};
    const bool lk_gpu = lk_has_cuda_path();
    for (of_algorithm a : later) {
        of_config h;
        std::memset(&h, 0x5A, sizeof h);
        of_status s = of_config_init(&h, a);
        CHECK_MSG(s == OF_OK, "config_init(algo %d): got %s", static_cast<int>(a), st(s));
        CHECK(h.struct_size == sizeof(of_config));
        CHECK(h.algorithm == a);
        const bool built = a != OF_ALGO_LK || lk_gpu || expected_backend(OF_BACKEND_AUTO) != OF_BACKEND_CUDA;
        CHECK(h.lk.window == 11 && h.lk.min_eigen == 1.0f); // every algorithm's config holds LK's defaults
        // One solve a pair (docs/accuracy.md sections 23-24): census + the DIS pass; DIS itself level-norm.
        if (a == OF_ALGO_DIS)
            CHECK(h.robust == OF_ROBUST_LEVEL_NORM && h.init == OF_INIT_NONE);
        else
            CHECK(h.robust == OF_ROBUST_CENSUS && h.init == OF_INIT_DIS);
        if (a != OF_ALGO_LK) {
            CHECK(h.hs.alpha == 15.0f);
            CHECK(h.hs.rho == (a == OF_ALGO_HS ? 0.0f : 2.0f));
            CHECK(h.hs.solver == OF_SOLVER_JACOBI);
            CHECK(h.hs.omega == 1.4f);
        } else { // docs/accuracy.md "Lucas-Kanade": the measurement behind them
            CHECK(h.warps == 1 && h.iterations == 10 && h.epsilon == 0.01f && h.median_size == 0);
            CHECK(h.presmooth_sigma == 0.8f);
        }
        h.max_width = 64;
        h.max_height = 48;
        of_memory m;
        std::memset(&m, 0, sizeof m);
        m.struct_size = sizeof m;
        s = of_query_memory(&h, &m);
        CHECK_MSG(s == (built ? OF_OK : OF_ERR_UNSUPPORTED), "query(algo %d): got %s (%s)", static_cast<int>(a), st(s),
                  of_last_error(nullptr));
        of_context* ctx = reinterpret_cast<of_context*>(&h); // must be overwritten (NULL on failure)
        s = of_create(&h, &ctx);
        CHECK_MSG(s == (built ? OF_OK : OF_ERR_UNSUPPORTED), "create(algo %d): got %s", static_cast<int>(a), st(s));
        CHECK(built ? ctx != nullptr : ctx == nullptr);
        if (!built) CHECK(nonempty(of_last_error(nullptr)));
        if (ctx != nullptr && s == OF_OK) of_destroy(ctx);
    }
}

struct CfgCase {
    const char* what;
    void (*mod)(of_config&);
    of_status want;
};

// Each case changes one field of a valid config (REFERENCE backend, 64x48).
const CfgCase kCfgCases[] = {
    {"struct_size 0", [](of_config& c) { c.struct_size = 0; }, OF_ERR_STRUCT_SIZE},
    {"struct_size - 1", [](of_config& c) { c.struct_size = sizeof(of_config) - 1; }, OF_ERR_STRUCT_SIZE},
    {"struct_size + 8", [](of_config& c) { c.struct_size = sizeof(of_config) + 8; }, OF_ERR_STRUCT_SIZE},
    {"algorithm 0", [](of_config& c) { set_raw(c.algorithm, 0); }, OF_ERR_INVALID_ARGUMENT},
    {"algorithm 7", [](of_config& c) { set_raw(c.algorithm, 7); }, OF_ERR_INVALID_ARGUMENT},
    {"max_width 0", [](of_config& c) { c.max_width = 0; }, OF_ERR_INVALID_ARGUMENT},
    {"max_height 0", [](of_config& c) { c.max_height = 0; }, OF_ERR_INVALID_ARGUMENT},
    {"max_width 32769", [](of_config& c) { c.max_width = 32769; }, OF_ERR_INVALID_ARGUMENT},
    {"max_height 32769", [](of_config& c) { c.max_height = 32769; }, OF_ERR_INVALID_ARGUMENT},
    {"max_width 4e9", [](of_config& c) { c.max_width = 4000000000u; }, OF_ERR_INVALID_ARGUMENT},
    {"format 0", [](of_config& c) { set_raw(c.format, 0); }, OF_ERR_FORMAT},
    {"format 4", [](of_config& c) { set_raw(c.format, 4); }, OF_ERR_FORMAT},
    {"levels 17", [](of_config& c) { c.levels = 17; }, OF_ERR_INVALID_ARGUMENT},
    {"scale_factor 0", [](of_config& c) { c.scale_factor = 0.0f; }, OF_ERR_INVALID_ARGUMENT},
    {"scale_factor -0.5", [](of_config& c) { c.scale_factor = -0.5f; }, OF_ERR_INVALID_ARGUMENT},
    {"scale_factor 1", [](of_config& c) { c.scale_factor = 1.0f; }, OF_ERR_INVALID_ARGUMENT},
    {"scale_factor 1.5", [](of_config& c) { c.scale_factor = 1.5f; }, OF_ERR_INVALID_ARGUMENT},
    {"scale_factor NaN", [](of_config& c) { c.scale_factor = kNaN; }, OF_ERR_INVALID_ARGUMENT},
    // Fuzzer finding: a denormal factor passed, then the level blur's sigma was infinite.
    {"scale_factor 1e-41", [](of_config& c) { c.scale_factor = 1e-41f; }, OF_ERR_INVALID_ARGUMENT},
    {"scale_factor 0.009", [](of_config& c) { c.scale_factor = 0.009f; }, OF_ERR_INVALID_ARGUMENT},
    {"scale_factor 0.995", [](of_config& c) { c.scale_factor = 0.995f; }, OF_ERR_INVALID_ARGUMENT},
    {"warps 0", [](of_config& c) { c.warps = 0; }, OF_ERR_INVALID_ARGUMENT},
    {"warps 101", [](of_config& c) { c.warps = 101; }, OF_ERR_INVALID_ARGUMENT},
    {"iterations 0", [](of_config& c) { c.iterations = 0; }, OF_ERR_INVALID_ARGUMENT},
    {"iterations 100001", [](of_config& c) { c.iterations = 100001; }, OF_ERR_INVALID_ARGUMENT},
    {"tau 0", [](of_config& c) { c.tvl1.tau = 0.0f; }, OF_ERR_INVALID_ARGUMENT},
    {"tau -0.1", [](of_config& c) { c.tvl1.tau = -0.1f; }, OF_ERR_INVALID_ARGUMENT},
    {"tau 0.26", [](of_config& c) { c.tvl1.tau = 0.26f; }, OF_ERR_INVALID_ARGUMENT},
    {"tau NaN", [](of_config& c) { c.tvl1.tau = kNaN; }, OF_ERR_INVALID_ARGUMENT},
    // Fuzzer finding: lambda = theta = 1e30, tau = 1e-30 gave a finite flow of 20,000 px.
    {"tau 1e-30", [](of_config& c) { c.tvl1.tau = 1e-30f; }, OF_ERR_INVALID_ARGUMENT},
    {"lambda 1e30", [](of_config& c) { c.tvl1.lambda = 1e30f; }, OF_ERR_INVALID_ARGUMENT},
    {"lambda 1e-30", [](of_config& c) { c.tvl1.lambda = 1e-30f; }, OF_ERR_INVALID_ARGUMENT},
    {"theta 1e30", [](of_config& c) { c.tvl1.theta = 1e30f; }, OF_ERR_INVALID_ARGUMENT},
    {"theta 1e-38", [](of_config& c) { c.tvl1.theta = 1e-38f; }, OF_ERR_INVALID_ARGUMENT},
    {"theta inf", [](of_config& c) { c.tvl1.theta = kInf; }, OF_ERR_INVALID_ARGUMENT},
    {"lambda 0", [](of_config& c) { c.tvl1.lambda = 0.0f; }, OF_ERR_INVALID_ARGUMENT},
    {"lambda -1", [](of_config& c) { c.tvl1.lambda = -1.0f; }, OF_ERR_INVALID_ARGUMENT},
    {"lambda NaN", [](of_config& c) { c.tvl1.lambda = kNaN; }, OF_ERR_INVALID_ARGUMENT},
    {"theta 0", [](of_config& c) { c.tvl1.theta = 0.0f; }, OF_ERR_INVALID_ARGUMENT},
    {"theta -1", [](of_config& c) { c.tvl1.theta = -1.0f; }, OF_ERR_INVALID_ARGUMENT},
    {"theta NaN", [](of_config& c) { c.tvl1.theta = kNaN; }, OF_ERR_INVALID_ARGUMENT},
    {"epsilon -0.01", [](of_config& c) { c.epsilon = -0.01f; }, OF_ERR_INVALID_ARGUMENT},
    {"epsilon NaN", [](of_config& c) { c.epsilon = kNaN; }, OF_ERR_INVALID_ARGUMENT},
    // Audit of the float fields (denormals, huge values; the accepted ones: test_float_edges).
    {"epsilon inf", [](of_config& c) { c.epsilon = kInf; }, OF_ERR_INVALID_ARGUMENT},
    {"epsilon -1e-41", [](of_config& c) { c.epsilon = -1e-41f; }, OF_ERR_INVALID_ARGUMENT},
    {"epsilon -FLT_MAX", [](of_config& c) { c.epsilon = -FLT_MAX; }, OF_ERR_INVALID_ARGUMENT},
    {"presmooth_sigma -0.1", [](of_config& c) { c.presmooth_sigma = -0.1f; }, OF_ERR_INVALID_ARGUMENT},
    {"presmooth_sigma 8.01", [](of_config& c) { c.presmooth_sigma = 8.01f; }, OF_ERR_INVALID_ARGUMENT},
    {"presmooth_sigma NaN", [](of_config& c) { c.presmooth_sigma = kNaN; }, OF_ERR_INVALID_ARGUMENT},
    {"presmooth_sigma inf", [](of_config& c) { c.presmooth_sigma = kInf; }, OF_ERR_INVALID_ARGUMENT},
    {"presmooth_sigma 1e30", [](of_config& c) { c.presmooth_sigma = 1e30f; }, OF_ERR_INVALID_ARGUMENT},
    {"presmooth_sigma -1e-41", [](of_config& c) { c.presmooth_sigma = -1e-41f; }, OF_ERR_INVALID_ARGUMENT},
    {"robust_sigma NaN", [](of_config& c) { c.robust_sigma = kNaN; }, OF_ERR_INVALID_ARGUMENT},
    {"robust_sigma inf", [](of_config& c) { c.robust_sigma = kInf; }, OF_ERR_INVALID_ARGUMENT},
    {"robust_sigma 0", [](of_config& c) { c.robust_sigma = 0.0f; }, OF_ERR_INVALID_ARGUMENT},
    {"robust_sigma 1e-41", [](of_config& c) { c.robust_sigma = 1e-41f; }, OF_ERR_INVALID_ARGUMENT},
    {"robust_sigma 0.49", [](of_config& c) { c.robust_sigma = 0.49f; }, OF_ERR_INVALID_ARGUMENT},
    {"robust_sigma 10.01", [](of_config& c) { c.robust_sigma = 10.01f; }, OF_ERR_INVALID_ARGUMENT},
    {"robust_sigma FLT_MAX", [](of_config& c) { c.robust_sigma = FLT_MAX; }, OF_ERR_INVALID_ARGUMENT},
    {"min_texture NaN", [](of_config& c) { c.min_texture = kNaN; }, OF_ERR_INVALID_ARGUMENT},
    {"min_texture inf", [](of_config& c) { c.min_texture = kInf; }, OF_ERR_INVALID_ARGUMENT},
    {"min_texture -1", [](of_config& c) { c.min_texture = -1.0f; }, OF_ERR_INVALID_ARGUMENT},
    {"min_texture -1e-41", [](of_config& c) { c.min_texture = -1e-41f; }, OF_ERR_INVALID_ARGUMENT},
    {"min_texture 1.01e6", [](of_config& c) { c.min_texture = 1.01e6f; }, OF_ERR_INVALID_ARGUMENT},
    {"min_texture FLT_MAX", [](of_config& c) { c.min_texture = FLT_MAX; }, OF_ERR_INVALID_ARGUMENT},
    {"min_confidence NaN", [](of_config& c) { c.min_confidence = kNaN; }, OF_ERR_INVALID_ARGUMENT},
    {"min_confidence -1e-41", [](of_config& c) { c.min_confidence = -1e-41f; }, OF_ERR_INVALID_ARGUMENT},
    {"min_confidence 1.01", [](of_config& c) { c.min_confidence = 1.01f; }, OF_ERR_INVALID_ARGUMENT},
    {"min_confidence inf", [](of_config& c) { c.min_confidence = kInf; }, OF_ERR_INVALID_ARGUMENT},
    {"iteration_growth NaN", [](of_config& c) { c.iteration_growth = kNaN; }, OF_ERR_INVALID_ARGUMENT},
    {"iteration_growth inf", [](of_config& c) { c.iteration_growth = kInf; }, OF_ERR_INVALID_ARGUMENT},
    {"iteration_growth -1e-41", [](of_config& c) { c.iteration_growth = -1e-41f; }, OF_ERR_INVALID_ARGUMENT},
    {"iteration_growth 16.01", [](of_config& c) { c.iteration_growth = 16.01f; }, OF_ERR_INVALID_ARGUMENT},
    {"threads 0", [](of_config& c) { c.threads = 0; }, OF_ERR_INVALID_ARGUMENT},
    {"threads 65", [](of_config& c) { c.threads = 65; }, OF_ERR_INVALID_ARGUMENT},
    {"backend 4", [](of_config& c) { set_raw(c.backend, 4); }, OF_ERR_INVALID_ARGUMENT},
    {"backend 99", [](of_config& c) { set_raw(c.backend, 99); }, OF_ERR_INVALID_ARGUMENT},
    {"precision 3", [](of_config& c) { set_raw(c.precision, 3); }, OF_ERR_INVALID_ARGUMENT},
    {"time_budget_ms -1", [](of_config& c) { c.time_budget_ms = -1.0f; }, OF_ERR_INVALID_ARGUMENT},
    {"time_budget_ms NaN", [](of_config& c) { c.time_budget_ms = kNaN; }, OF_ERR_INVALID_ARGUMENT},
    {"time_budget_ms inf", [](of_config& c) { c.time_budget_ms = std::numeric_limits<float>::infinity(); }, OF_ERR_INVALID_ARGUMENT},
    {"time_budget_ms -inf", [](of_config& c) { c.time_budget_ms = -kInf; }, OF_ERR_INVALID_ARGUMENT},
    {"time_budget_ms -1e-41", [](of_config& c) { c.time_budget_ms = -1e-41f; }, OF_ERR_INVALID_ARGUMENT},
    // a denormal budget is > 0 but buys no iteration
    {"time_budget_ms 1e-41", [](of_config& c) { c.time_budget_ms = 1e-41f; }, OF_ERR_INVALID_ARGUMENT},
    // a budget that buys no iteration (the table's model: tests/platform/explain.cpp)
    {"time_budget_ms 1e-6", [](of_config& c) { c.time_budget_ms = 1e-6f; }, OF_ERR_INVALID_ARGUMENT},
    {"variant 4", [](of_config& c) { set_raw(c.variant, 4); }, OF_ERR_INVALID_ARGUMENT},
    {"variant 99", [](of_config& c) { set_raw(c.variant, 99); }, OF_ERR_INVALID_ARGUMENT},
    {"block_width 1025", [](of_config& c) { c.block_width = 1025; }, OF_ERR_INVALID_ARGUMENT},
    {"block 64x32", [](of_config& c) { c.block_width = 64; c.block_height = 32; }, OF_ERR_INVALID_ARGUMENT},
    {"block 65536x65536", [](of_config& c) { c.block_width = 65536; c.block_height = 65536; }, OF_ERR_INVALID_ARGUMENT},
    {"fused_depth 17", [](of_config& c) { c.fused_depth = 17; }, OF_ERR_INVALID_ARGUMENT},
    // oflow.h: a platform no table has is OF_ERR_INVALID_ARGUMENT (known names: tests/platform/explain.cpp).
    {"platform \"bogus\"", [](of_config& c) { c.platform = "bogus"; }, OF_ERR_INVALID_ARGUMENT},
    {"platform \"Xavier\"", [](of_config& c) { c.platform = "Xavier"; }, OF_ERR_INVALID_ARGUMENT},
};

// Each case changes one field of a valid LK config (REFERENCE backend, 64x48); each message must
// name the field.
struct LkCase {
    const char* what;
    void (*mod)(of_config&);
    const char* field;
};
const LkCase kLkCases[] = {
    {"lk.window 0", [](of_config& c) { c.lk.window = 0; }, "lk.window"},
    {"lk.window 1", [](of_config& c) { c.lk.window = 1; }, "lk.window"},
    {"lk.window 2", [](of_config& c) { c.lk.window = 2; }, "lk.window"},
    {"lk.window 10", [](of_config& c) { c.lk.window = 10; }, "lk.window"},
    {"lk.window 34", [](of_config& c) { c.lk.window = 34; }, "lk.window"},
    {"lk.window 35", [](of_config& c) { c.lk.window = 35; }, "lk.window"},
    {"lk.window 0xFFFFFFFF", [](of_config& c) { c.lk.window = 0xFFFFFFFFu; }, "lk.window"},
    {"lk.min_eigen -1", [](of_config& c) { c.lk.min_eigen = -1.0f; }, "lk.min_eigen"},
    {"lk.min_eigen -1e-41", [](of_config& c) { c.lk.min_eigen = -1e-41f; }, "lk.min_eigen"},
    {"lk.min_eigen -FLT_MAX", [](of_config& c) { c.lk.min_eigen = -FLT_MAX; }, "lk.min_eigen"},
    {"lk.min_eigen NaN", [](of_config& c) { c.lk.min_eigen = kNaN; }, "lk.min_eigen"},
    {"lk.min_eigen inf", [](of_config& c) { c.lk.min_eigen = kInf; }, "lk.min_eigen"},
    {"lk.min_eigen -inf", [](of_config& c) { c.lk.min_eigen = -kInf; }, "lk.min_eigen"},
    {"warps 2 with LK", [](of_config& c) { c.warps = 2; }, "warps"},
    {"warps 100 with LK", [](of_config& c) { c.warps = 100; }, "warps"},
};

of_config base_cfg(of_pixel_format fmt = OF_PIXEL_U8) {
    of_config c = tvl1_config(kMaxW, kMaxH);
    c.format = fmt;
    c.backend = OF_BACKEND_REFERENCE;
    c.warps = 2;
    c.iterations = 10;
    return c;
}

// A config case through of_query_memory and of_create: status, message, outputs.
void expect_cfg_error(const of_config& c, of_status want, const char* what) {
    of_memory m;
    std::memset(&m, 0x3C, sizeof m);
    m.struct_size = sizeof m;
    of_memory copy = m;
    of_status s = of_query_memory(&c, &m);
    CHECK_MSG(s == want, "query(%s): got %s, want %s", what, st(s), st(want));
    CHECK_MSG(std::memcmp(&m, &copy, sizeof m) == 0, "query(%s) wrote to *need", what);
    CHECK_MSG(nonempty(of_last_error(nullptr)), "query(%s): empty message", what);

    of_context* ctx = reinterpret_cast<of_context*>(&m);
    s = of_create(&c, &ctx);
    CHECK_MSG(s == want, "create(%s): got %s, want %s", what, st(s), st(want));
    CHECK_MSG(ctx == nullptr, "create(%s): *out not set to NULL", what);
    CHECK_MSG(nonempty(of_last_error(nullptr)), "create(%s): empty message", what);
    if (s == OF_OK && ctx != nullptr && ctx != reinterpret_cast<of_context*>(&m)) of_destroy(ctx);

    // of_explain answers the same and writes nothing.
    of_info info;
    std::memset(&info, 0x3C, sizeof info);
    info.struct_size = sizeof info;
    const of_info info_copy = info;
    s = of_explain(&c, &info);
    CHECK_MSG(s == want, "explain(%s): got %s, want %s", what, st(s), st(want));
    CHECK_MSG(std::memcmp(&info, &info_copy, sizeof info) == 0, "explain(%s) wrote to *info", what);
    CHECK_MSG(nonempty(of_last_error(nullptr)), "explain(%s): empty message", what);
}

of_config lk_cfg() {
    of_config c;
    of_config_init(&c, OF_ALGO_LK);
    c.max_width = kMaxW;
    c.max_height = kMaxH;
    c.backend = OF_BACKEND_REFERENCE;
    return c;
}

void test_config_errors() {
    for (const CfgCase& k : kCfgCases) {
        of_config c = base_cfg();
        k.mod(c);
        expect_cfg_error(c, k.want, k.what);
    }
    for (const LkCase& k : kLkCases) {
        of_config c = lk_cfg();
        k.mod(c);
        expect_cfg_error(c, OF_ERR_INVALID_ARGUMENT, k.what);
        CHECK_MSG(std::strstr(of_last_error(nullptr), k.field) != nullptr, "%s: message '%s' does not name %s", k.what,
                  of_last_error(nullptr), k.field);
    }
    // LK's accepted edges: windows 3 and 33, min_eigen 0, -0, a denormal and FLT_MAX.
    {
        const float eigens[] = {0.0f, -0.0f, 1e-41f, FLT_MAX};
        for (uint32_t w : {3u, 33u})
            for (float e : eigens) {
                of_config c = lk_cfg();
                c.lk.window = w;
                c.lk.min_eigen = e;
                of_memory mm;
                std::memset(&mm, 0, sizeof mm);
                mm.struct_size = sizeof mm;
                const of_status s = of_query_memory(&c, &mm);
                CHECK_MSG(s == OF_OK, "query(LK window %u min_eigen %g): got %s (%s)", w, static_cast<double>(e), st(s),
                          of_last_error(nullptr));
            }
    }
    // Backend CUDA for LK (not while the variable overrides the config's backend): without a CUDA
    // path OF_ERR_UNSUPPORTED naming it; with one, what TV-L1 gets (OF_OK on a machine with a
    // usable device, else OF_ERR_BACKEND_UNAVAILABLE).
    if (!backend_forced() && !lk_has_cuda_path()) {
        of_config c = lk_cfg();
        c.backend = OF_BACKEND_CUDA;
        expect_cfg_error(c, OF_ERR_UNSUPPORTED, "LK backend CUDA");
        CHECK_MSG(std::strstr(of_last_error(nullptr), "lk") != nullptr, "LK on CUDA: '%s'", of_last_error(nullptr));
    } else if (!backend_forced()) {
        of_config c = lk_cfg(), t = base_cfg();
        c.backend = t.backend = OF_BACKEND_CUDA;
        of_memory m1, m2;
        std::memset(&m1, 0, sizeof m1);
        m1.struct_size = sizeof m1;
        m2 = m1;
        const of_status sl = of_query_memory(&c, &m1), st_tvl1 = of_query_memory(&t, &m2);
        CHECK_MSG(sl == st_tvl1 && (sl == OF_OK || sl == OF_ERR_BACKEND_UNAVAILABLE),
                  "query(LK backend CUDA): got %s, TV-L1 gets %s", st(sl), st(st_tvl1));
    }

    // NULL pointers.
    of_config c = base_cfg();
    of_memory m;
    std::memset(&m, 0, sizeof m);
    m.struct_size = sizeof m;
    CHECK_STATUS(of_query_memory(nullptr, &m), OF_ERR_NULL_POINTER, "query(NULL cfg)");
    CHECK(nonempty(of_last_error(nullptr)));
    CHECK_STATUS(of_query_memory(&c, nullptr), OF_ERR_NULL_POINTER, "query(NULL need)");
    CHECK(nonempty(of_last_error(nullptr)));
    of_context* ctx = reinterpret_cast<of_context*>(&m);
    CHECK_STATUS(of_create(nullptr, &ctx), OF_ERR_NULL_POINTER, "create(NULL cfg)");
    CHECK(ctx == nullptr);
    CHECK(nonempty(of_last_error(nullptr)));
    CHECK_STATUS(of_create(&c, nullptr), OF_ERR_NULL_POINTER, "create(NULL out)");
    CHECK(nonempty(of_last_error(nullptr)));

    // of_memory.struct_size.
    const uint32_t bad_sizes[] = {0, static_cast<uint32_t>(sizeof(of_memory) - 1),
                                  static_cast<uint32_t>(sizeof(of_memory) + 8)};
    for (uint32_t bs : bad_sizes) {
        of_memory mm;
        std::memset(&mm, 0x3C, sizeof mm);
        mm.struct_size = bs;
        of_memory copy = mm;
        of_status s = of_query_memory(&c, &mm);
        CHECK_MSG(s == OF_ERR_STRUCT_SIZE, "query(need.struct_size %u): got %s", bs, st(s));
        CHECK(std::memcmp(&mm, &copy, sizeof mm) == 0);
        CHECK(nonempty(of_last_error(nullptr)));
    }

    // Backends not in this build / machine. NEON (its kernels: AArch64, or x86-64 through
    // SIMDe) is unavailable exactly where the build has no NEON backend; CUDA needs a CUDA build
    // and a GPU: without /dev/nvidiactl it must be unavailable. (Not while OFLOW_FORCE_BACKEND
    // overrides the config's backend: tests/force_backend.cpp covers that.)
    if (!backend_forced()) {
        of_config n = base_cfg();
        n.backend = OF_BACKEND_NEON;
        if (!OF_TEST_HAVE_NEON) {
            expect_cfg_error(n, OF_ERR_BACKEND_UNAVAILABLE, "backend NEON in a build without it");
        } else {
            of_context* nc = nullptr;
            CHECK_MSG(of_create(&n, &nc) == OF_OK && nc, "backend NEON in a build with it: %s", of_last_error(nullptr));
            if (nc) of_destroy(nc);
        }
        of_config g = base_cfg();
        g.backend = OF_BACKEND_CUDA;
        if (!have_nvidia_device()) {
            expect_cfg_error(g, OF_ERR_BACKEND_UNAVAILABLE, "backend CUDA without a GPU");
        } else {
            of_context* cc = nullptr;
            of_status s = of_create(&g, &cc);
            CHECK_MSG(s == OF_OK || s == OF_ERR_BACKEND_UNAVAILABLE, "backend CUDA: got %s", st(s));
            if (s == OF_OK) {
                of_info info;
                std::memset(&info, 0, sizeof info);
                info.struct_size = sizeof info;
                CHECK(of_get_info(cc, &info) == OF_OK && info.backend == OF_BACKEND_CUDA);
                of_destroy(cc);
            } else {
                CHECK(cc == nullptr);
            }
        }
    }

    // Valid edges are accepted by query (no allocation needed for that).
    {
        of_config e = base_cfg();
        e.max_width = 1;
        e.max_height = 1;
        e.levels = 16;
        e.scale_factor = 0.99f;
        e.warps = 100;
        e.iterations = 100000;
        e.tvl1.tau = 0.25f;
        e.epsilon = 0.0f;
        e.presmooth_sigma = 8.0f;
        e.threads = 64;
        of_memory mm;
        std::memset(&mm, 0, sizeof mm);
        mm.struct_size = sizeof mm;
        of_status s = of_query_memory(&e, &mm);
        CHECK_MSG(s == OF_OK, "query(valid edge values): got %s (%s)", st(s), of_last_error(nullptr));
        e.presmooth_sigma = 0.0f;
        e.scale_factor = 0.01f;
        s = of_query_memory(&e, &mm);
        CHECK_MSG(s == OF_OK, "query(sigma 0, factor 0.01): got %s (%s)", st(s), of_last_error(nullptr));
    }

    // F16 on the reference path: runs F32 and says so.
    {
        of_config h = base_cfg();
        h.precision = OF_PRECISION_F16;
        of_context* cc = nullptr;
        of_status s = of_create(&h, &cc);
        CHECK_MSG(s == OF_OK, "create(reference, F16): got %s (%s)", st(s), of_last_error(nullptr));
        if (s == OF_OK) {
            of_info info;
            std::memset(&info, 0, sizeof info);
            info.struct_size = sizeof info;
            CHECK(of_get_info(cc, &info) == OF_OK);
            CHECK_MSG(info.precision == OF_PRECISION_F32, "reference F16 reports precision %d",
                      static_cast<int>(info.precision));
            of_destroy(cc);
        }
    }
}

// Float fields at the edges the validation accepts (-0, denormals, the smallest normal, FLT_MAX
// where the range allows it): each creates, runs a frame to a finite flow, and the huge values
// do what oflow.h says (epsilon FLT_MAX: one iteration per warp on the CPU paths; a FLT_MAX time
// budget: the most iterations and warps). UBSan builds check that no conversion overflows.
void test_float_edges() {
    struct Edge {
        const char* what;
        void (*mod)(of_config&);
    };
    const Edge edges[] = {
        {"epsilon -0", [](of_config& c) { c.epsilon = -0.0f; }},
        {"epsilon 1e-41", [](of_config& c) { c.epsilon = 1e-41f; }},
        {"epsilon FLT_MIN", [](of_config& c) { c.epsilon = FLT_MIN; }},
        {"epsilon FLT_MAX", [](of_config& c) { c.epsilon = FLT_MAX; }},
        {"presmooth_sigma -0", [](of_config& c) { c.presmooth_sigma = -0.0f; }},
        {"presmooth_sigma 1e-41", [](of_config& c) { c.presmooth_sigma = 1e-41f; }},
        {"presmooth_sigma 8", [](of_config& c) { c.presmooth_sigma = 8.0f; }},
        {"robust_sigma 0.5", [](of_config& c) { c.robust_sigma = 0.5f; }},
        {"robust_sigma 10", [](of_config& c) { c.robust_sigma = 10.0f; }},
        {"min_texture -0", [](of_config& c) { c.min_texture = -0.0f; }},
        {"min_texture 1e-41", [](of_config& c) { c.min_texture = 1e-41f; }},
        {"min_texture 1e6", [](of_config& c) { c.min_texture = 1e6f; }},
        {"iteration_growth -0", [](of_config& c) { c.iteration_growth = -0.0f; }},
        {"iteration_growth 16", [](of_config& c) { c.iteration_growth = 16.0f; }},
        {"time_budget_ms -0", [](of_config& c) { c.time_budget_ms = -0.0f; }},
        {"scale_factor 0.01", [](of_config& c) { c.scale_factor = 0.01f; }},
        {"scale_factor 0.99", [](of_config& c) { c.scale_factor = 0.99f; }},
        {"tvl1 smallest", [](of_config& c) { c.tvl1.tau = 1e-4f; c.tvl1.lambda = 1e-4f; c.tvl1.theta = 1e-4f; }},
        {"tvl1 largest", [](of_config& c) { c.tvl1.tau = 0.25f; c.tvl1.lambda = 1e3f; c.tvl1.theta = 10.0f; }},
        {"tvl1 tau/theta largest", [](of_config& c) { c.tvl1.tau = 0.25f; c.tvl1.lambda = 1e3f; c.tvl1.theta = 1e-4f; }},
    };
    const Pair p = synth_pair(oflow::synth::Case::Translation, kW, kH, 7);
    const FramePair fp = frames_of(p, OF_PIXEL_U8);
    for (const Edge& e : edges) {
        of_config c = base_cfg();
        e.mod(c);
        of_context* ctx = create_or_report(c, e.what);
        CHECK_MSG(ctx != nullptr, "create(%s) refused an accepted value", e.what);
        if (!ctx) continue;
        FlowBuf fl = make_flow(kW, kH);
        const of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &fl.f);
        CHECK_MSG(s == OF_OK, "process(%s): got %s (%s)", e.what, st(s), of_last_error(ctx));
        const std::vector<float> uv = fl.extract();
        CHECK_MSG(s != OF_OK || all_finite(uv), "process(%s): non-finite flow", e.what);
        // The sanity bound holds whatever the parameters: x + u within the frame extended by
        // its longer side.
        CHECK_MSG(s != OF_OK || max_abs(uv) <= 2.0f * static_cast<float>(kW), "process(%s): flow %g px", e.what,
                  static_cast<double>(max_abs(uv)));
        of_info info;
        std::memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        CHECK(of_get_info(ctx, &info) == OF_OK);
        if (c.time_budget_ms == 0.0f)
            CHECK_MSG(info.iterations == c.iterations && info.warps == c.warps, "%s: budget applied", e.what);
        if (c.epsilon == FLT_MAX && info.backend != OF_BACKEND_CUDA && s == OF_OK) {
            // One iteration per warp and level solved, of each solve (robust pick: n, TV-L1 4 and
            // the others 3, with their own coarsest levels: between n and n x all levels per warp).
            const uint64_t levels = static_cast<uint64_t>(info.last_coarsest) + 1;
            const unsigned n = static_cast<unsigned>(oflow::robust_passes(c.robust, c.algorithm));
            if (c.robust == OF_ROBUST_PICK)
                CHECK_MSG(info.last_iterations >= n * c.warps && info.last_iterations <= n * info.last_levels * c.warps,
                          "epsilon FLT_MAX: %llu iterations for %u solves of %u levels",
                          static_cast<unsigned long long>(info.last_iterations), n, info.last_levels);
            else
                CHECK_MSG(info.last_iterations == levels * c.warps, "epsilon FLT_MAX: %llu iterations, want %llu",
                          static_cast<unsigned long long>(info.last_iterations),
                          static_cast<unsigned long long>(levels * c.warps));
        }
        of_destroy(ctx);
    }

    // A FLT_MAX time budget is finite: it buys the most the model allows (the table's model
    // runs in double, budget_ms * 1e6 ns included).
    {
        of_config c = base_cfg();
        c.time_budget_ms = FLT_MAX;
        of_info info;
        std::memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        const of_status s = of_explain(&c, &info);
        CHECK_MSG(s == OF_OK, "explain(time_budget_ms FLT_MAX): got %s (%s)", st(s), of_last_error(nullptr));
        if (s == OF_OK)
            CHECK_MSG(info.iterations == 100000 && info.warps == 100 && std::isfinite(info.predicted_ms),
                      "time_budget_ms FLT_MAX: %u iterations x %u warps, %g ms", info.iterations, info.warps,
                      info.predicted_ms);
    }
}

// Allocation failure: a maximum config needs tens of GB. Skipped where the machine could
// actually commit that much (then of_create would succeed, correctly).
void test_out_of_memory() {
    of_config c = base_cfg();
    c.max_width = 32768;
    c.max_height = 32768;
    of_memory m;
    std::memset(&m, 0, sizeof m);
    m.struct_size = sizeof m;
    of_status s = of_query_memory(&c, &m);
    CHECK_MSG(s == OF_OK, "query(32768x32768): got %s (%s)", st(s), of_last_error(nullptr));
    if (s != OF_OK) return;
    CHECK(m.host_bytes > static_cast<size_t>(32768) * 32768 * 4);
    const long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    const double ram = static_cast<double>(pages) * static_cast<double>(psize);
    if (static_cast<double>(m.host_bytes) < 2.0 * ram) {
        std::printf("out-of-memory check skipped: plan %.1f GB, RAM %.1f GB\n",
                    static_cast<double>(m.host_bytes) / 1e9, ram / 1e9);
        return;
    }
    of_context* ctx = reinterpret_cast<of_context*>(&m);
    s = of_create(&c, &ctx);
    CHECK_MSG(s == OF_ERR_OUT_OF_MEMORY, "create(32768x32768, %.1f GB): got %s",
              static_cast<double>(m.host_bytes) / 1e9, st(s));
    CHECK(ctx == nullptr);
    CHECK(nonempty(of_last_error(nullptr)));
    if (s == OF_OK && ctx != nullptr && ctx != reinterpret_cast<of_context*>(&m)) of_destroy(ctx);
}

// ---- of_process -------------------------------------------------------------------------------

// A context plus valid frames and a valid flow; bad variants are derived from these.
struct Fixture {
    of_context* ctx = nullptr;
    of_pixel_format fmt = OF_PIXEL_U8;
    Frame prev, next;
    FlowBuf good;   // receives the "context still usable" runs
    FlowBuf target; // receives the bad calls; must stay all sentinel

    explicit Fixture(of_pixel_format f, of_flow_layout layout = OF_FLOW_PLANAR) : fmt(f) {
        of_config c = base_cfg(f);
        ctx = create_or_report(c, "fixture");
        Pair p = synth_pair(oflow::synth::Case::Translation, kW, kH, 7);
        FramePair fp = frames_of(p, f);
        prev = std::move(fp.prev);
        next = std::move(fp.next);
        good = make_flow(kW, kH, OF_FLOW_PLANAR);
        target = make_flow(kW, kH, layout);
    }
    ~Fixture() { of_destroy(ctx); }

    // One bad call: status, message, nothing written, then the context must still work.
    void expect(const of_image* a, const of_image* b, const of_flow* out, of_status want,
                const char* what, bool null_ctx = false) {
        target.fill_sentinel();
        of_flow out_copy; // the library gets a pointer to a copy, the buffers are target's
        const of_flow* outp = nullptr;
        if (out) {
            out_copy = *out;
            outp = &out_copy;
        }
        of_status s = of_process(null_ctx ? nullptr : ctx, a, b, const_cast<of_flow*>(outp));
        CHECK_MSG(s == want, "process(%s): got %s, want %s", what, st(s), st(want));
        const char* msg = null_ctx ? of_last_error(nullptr) : of_last_error(ctx);
        CHECK_MSG(nonempty(msg), "process(%s): empty of_last_error", what);
        CHECK_MSG(target.untouched(), "process(%s): output flow written on error", what);
        good.fill_sentinel();
        s = of_process(ctx, &prev.img, &next.img, &good.f);
        CHECK_MSG(s == OF_OK, "process after (%s): got %s (%s)", what, st(s), of_last_error(ctx));
        CHECK_MSG(s != OF_OK || all_finite(good.extract()), "process after (%s): non-finite flow", what);
    }
};

void test_process_errors_common(of_pixel_format fmt) {
    Fixture t(fmt);
    if (!t.ctx) {
        CHECK_MSG(false, "fixture context for format %d", static_cast<int>(fmt));
        return;
    }
    // A fresh context has no message yet.
    CHECK_MSG(of_last_error(t.ctx) != nullptr && of_last_error(t.ctx)[0] == '\0',
              "fresh context: of_last_error = \"%s\"", of_last_error(t.ctx));
    // The valid call works and writes only inside the rows.
    {
        of_status s = of_process(t.ctx, &t.prev.img, &t.next.img, &t.good.f);
        CHECK_MSG(s == OF_OK, "valid process: %s (%s)", st(s), of_last_error(t.ctx));
    }
    const size_t bpp = bytes_per_pixel(fmt);
    const of_image& P = t.prev.img;
    const of_image& N = t.next.img;
    const of_flow& F = t.target.f;
    char what[128];

    // NULL pointers.
    t.expect(&P, &N, &F, OF_ERR_NULL_POINTER, "NULL ctx", true);
    t.expect(nullptr, &N, &F, OF_ERR_NULL_POINTER, "NULL prev");
    t.expect(&P, nullptr, &F, OF_ERR_NULL_POINTER, "NULL next");
    t.expect(&P, &N, nullptr, OF_ERR_NULL_POINTER, "NULL out");
    {
        of_image a = P;
        a.data = nullptr;
        t.expect(&a, &N, &F, OF_ERR_NULL_POINTER, "prev.data NULL");
        of_image b = N;
        b.data = nullptr;
        t.expect(&P, &b, &F, OF_ERR_NULL_POINTER, "next.data NULL");
        of_flow f = F;
        f.u = nullptr;
        t.expect(&P, &N, &f, OF_ERR_NULL_POINTER, "flow.u NULL (planar)");
        f = F;
        f.v = nullptr;
        t.expect(&P, &N, &f, OF_ERR_NULL_POINTER, "flow.v NULL (planar)");
    }

    // Sizes.
    {
        of_image a = P, b = N;
        a.width = 0;
        b.width = 0;
        t.expect(&a, &b, &F, OF_ERR_SIZE, "width 0 (both)");
        a = P;
        b = N;
        a.height = 0;
        b.height = 0;
        t.expect(&a, &b, &F, OF_ERR_SIZE, "height 0 (both)");
        a = P;
        a.width = 0;
        t.expect(&a, &N, &F, OF_ERR_SIZE, "prev width 0");
        b = N;
        b.height = 0;
        t.expect(&P, &b, &F, OF_ERR_SIZE, "next height 0");
        // Above the maximum (frames and flow sized consistently, so only the size is wrong).
        Pair big = synth_pair(oflow::synth::Case::Translation, kMaxW + 1, kMaxH + 1, 3);
        FramePair bf = frames_of(big, fmt);
        {
            a = bf.prev.img;
            b = bf.next.img;
            a.height = b.height = kH;
            FlowBuf wflow = make_flow(kMaxW + 1, kH);
            of_status s = of_process(t.ctx, &a, &b, &wflow.f);
            CHECK_MSG(s == OF_ERR_SIZE, "process(width max+1): got %s", st(s));
            CHECK(wflow.untouched());
            CHECK(nonempty(of_last_error(t.ctx)));
        }
        {
            a = bf.prev.img;
            b = bf.next.img;
            a.width = b.width = kW;
            FlowBuf hflow = make_flow(kW, kMaxH + 1);
            of_status s = of_process(t.ctx, &a, &b, &hflow.f);
            CHECK_MSG(s == OF_ERR_SIZE, "process(height max+1): got %s", st(s));
            CHECK(hflow.untouched());
            CHECK(nonempty(of_last_error(t.ctx)));
        }
        {
            of_status s = of_process(t.ctx, &P, &N, &t.good.f);
            CHECK_MSG(s == OF_OK, "process after above-max frames: %s (%s)", st(s), of_last_error(t.ctx));
        }
        // prev/next differ.
        a = P;
        a.width = kW - 1;
        t.expect(&a, &N, &F, OF_ERR_SIZE, "prev width != next width");
        b = N;
        b.height = kH - 1;
        t.expect(&P, &b, &F, OF_ERR_SIZE, "prev height != next height");
        // flow size differs from the frames.
        of_flow g = F;
        g.width = kW - 1;
        t.expect(&P, &N, &g, OF_ERR_SIZE, "flow width != frame width");
        g = F;
        g.height = kH - 1;
        t.expect(&P, &N, &g, OF_ERR_SIZE, "flow height != frame height");
        g = F;
        g.width = kW + 1; // with a stride that fits the wider row: only the size is wrong
        g.stride = (kW + 1) * sizeof(float);
        t.expect(&P, &N, &g, OF_ERR_SIZE, "flow width > frame width");
    }

    // Strides.
    {
        of_image a = P;
        a.stride = kW * bpp - 1;
        t.expect(&a, &N, &F, OF_ERR_STRIDE, "prev stride = row - 1");
        of_image b = N;
        b.stride = kW * bpp - bpp;
        t.expect(&P, &b, &F, OF_ERR_STRIDE, "next stride = row - 1 pixel");
        b = N;
        b.stride = 0;
        t.expect(&P, &b, &F, OF_ERR_STRIDE, "next stride 0");
        of_flow f = F;
        f.stride = kW * 4 - 4;
        t.expect(&P, &N, &f, OF_ERR_STRIDE, "planar flow stride = width*4 - 4");
        f.stride = kW * 4 - 1;
        t.expect(&P, &N, &f, OF_ERR_STRIDE, "planar flow stride = width*4 - 1");
        f.stride = 0;
        t.expect(&P, &N, &f, OF_ERR_STRIDE, "planar flow stride 0");
    }

    // struct_size.
    {
        const uint32_t sizes_img[] = {0, static_cast<uint32_t>(sizeof(of_image) - 1),
                                      static_cast<uint32_t>(sizeof(of_image) + 8)};
        for (uint32_t s : sizes_img) {
            of_image a = P;
            a.struct_size = s;
            std::snprintf(what, sizeof what, "prev.struct_size %u", s);
            t.expect(&a, &N, &F, OF_ERR_STRUCT_SIZE, what);
            of_image b = N;
            b.struct_size = s;
            std::snprintf(what, sizeof what, "next.struct_size %u", s);
            t.expect(&P, &b, &F, OF_ERR_STRUCT_SIZE, what);
        }
        const uint32_t sizes_flow[] = {0, static_cast<uint32_t>(sizeof(of_flow) - 1),
                                       static_cast<uint32_t>(sizeof(of_flow) + 8)};
        for (uint32_t s : sizes_flow) {
            of_flow f = F;
            f.struct_size = s;
            std::snprintf(what, sizeof what, "flow.struct_size %u", s);
            t.expect(&P, &N, &f, OF_ERR_STRUCT_SIZE, what);
        }
    }

    // Formats, memory kinds, layouts.
    {
        const of_pixel_format other = fmt == OF_PIXEL_U8 ? OF_PIXEL_F32 : OF_PIXEL_U8;
        of_image a = P, b = N;
        a.format = other;
        b.format = other;
        a.stride = b.stride = kW * 4; // valid for any format
        t.expect(&a, &b, &F, OF_ERR_FORMAT, "both frames in another format than the config");
        a = P;
        a.format = other;
        a.stride = kW * 4;
        t.expect(&a, &N, &F, OF_ERR_FORMAT, "prev format != config format");
        const int bad_fmt[] = {0, 4, 77};
        for (int bf : bad_fmt) {
            b = N;
            set_raw(b.format, bf);
            std::snprintf(what, sizeof what, "next.format %d", bf);
            t.expect(&P, &b, &F, OF_ERR_FORMAT, what);
        }
        // Device and mapped memory are errors on the CPU paths only (OFLOW_FORCE_BACKEND=cuda
        // runs this fixture on the CUDA path).
        const bool cpu_path = expected_backend(OF_BACKEND_REFERENCE) != OF_BACKEND_CUDA;
        const int bad_mem[] = {3, 99, OF_MEMORY_CUDA_DEVICE, OF_MEMORY_CUDA_MAPPED};
        for (int bm : bad_mem) {
            if (!cpu_path && (bm == OF_MEMORY_CUDA_DEVICE || bm == OF_MEMORY_CUDA_MAPPED)) continue;
            a = P;
            set_raw(a.memory, bm);
            std::snprintf(what, sizeof what, "prev.memory %d on the reference backend", bm);
            t.expect(&a, &N, &F, OF_ERR_FORMAT, what);
            of_flow f = F;
            set_raw(f.memory, bm);
            std::snprintf(what, sizeof what, "flow.memory %d on the reference backend", bm);
            t.expect(&P, &N, &f, OF_ERR_FORMAT, what);
        }
        const int bad_layout[] = {2, 99};
        for (int bl : bad_layout) {
            of_flow f = F;
            set_raw(f.layout, bl);
            std::snprintf(what, sizeof what, "flow.layout %d", bl);
            t.expect(&P, &N, &f, OF_ERR_FORMAT, what);
        }
        // of_flow.format: values outside the enumerators (tests/flow_format.cpp has the rest).
        const int bad_flow_format[] = {-1, 3, 99, 0x7FFFFFFF};
        for (int bf : bad_flow_format) {
            of_flow f = F;
            set_raw(f.format, bf);
            std::snprintf(what, sizeof what, "flow.format %d", bf);
            t.expect(&P, &N, &f, OF_ERR_FORMAT, what);
        }
    }

    // Overflow: stride * (height - 1) + row does not fit in size_t.
    {
        Pair p4 = synth_pair(oflow::synth::Case::Translation, kW, 4, 5);
        FramePair f4 = frames_of(p4, fmt);
        FlowBuf fl4 = make_flow(kW, 4);
        of_image a = f4.prev.img, b = f4.next.img;
        // Strides stay multiples of 8 (pixel- and float-aligned), so only the span is wrong.
        const size_t huge = (std::numeric_limits<size_t>::max() / 2) & ~static_cast<size_t>(7);
        a.stride = huge;
        fl4.fill_sentinel();
        of_status s = of_process(t.ctx, &a, &b, &fl4.f);
        CHECK_MSG(s == OF_ERR_OVERFLOW, "process(prev stride ~SIZE_MAX/2, height 4): got %s", st(s));
        CHECK(fl4.untouched());
        CHECK(nonempty(of_last_error(t.ctx)));
        a = f4.prev.img;
        b.stride = std::numeric_limits<size_t>::max() / 2 + 1;
        s = of_process(t.ctx, &a, &b, &fl4.f);
        CHECK_MSG(s == OF_ERR_OVERFLOW, "process(next stride SIZE_MAX/2+1, height 4): got %s", st(s));
        CHECK(fl4.untouched());
        b = f4.next.img;
        of_flow f = fl4.f;
        f.stride = huge;
        s = of_process(t.ctx, &a, &b, &f);
        CHECK_MSG(s == OF_ERR_OVERFLOW, "process(flow stride ~SIZE_MAX/2, height 4): got %s", st(s));
        CHECK(fl4.untouched());
        CHECK(nonempty(of_last_error(t.ctx)));
        // and the 4-row frames themselves are fine
        s = of_process(t.ctx, &a, &b, &fl4.f);
        CHECK_MSG(s == OF_OK, "process(48x4): got %s (%s)", st(s), of_last_error(t.ctx));
        // Stride SIZE_MAX - 7 with 2 rows: stride * 1 + row overflows.
        Pair p2 = synth_pair(oflow::synth::Case::Translation, kW, 2, 5);
        FramePair f2 = frames_of(p2, fmt);
        FlowBuf fl2 = make_flow(kW, 2);
        a = f2.prev.img;
        a.stride = std::numeric_limits<size_t>::max() & ~static_cast<size_t>(7);
        s = of_process(t.ctx, &a, &f2.next.img, &fl2.f);
        CHECK_MSG(s == OF_ERR_OVERFLOW, "process(prev stride SIZE_MAX-7, height 2): got %s", st(s));
        CHECK(fl2.untouched());
    }

    // One row addresses row 0 only: any stride passes, even one near SIZE_MAX (the span is one
    // row), and the flow is the one of minimal strides.
    {
        Pair p1 = synth_pair(oflow::synth::Case::Translation, kW, 1, 5);
        FramePair f1 = frames_of(p1, fmt);
        FlowBuf want = make_flow(kW, 1), got = make_flow(kW, 1);
        of_status s = of_process(t.ctx, &f1.prev.img, &f1.next.img, &want.f);
        CHECK_MSG(s == OF_OK, "process(48x1): got %s (%s)", st(s), of_last_error(t.ctx));
        of_image a = f1.prev.img, b = f1.next.img;
        a.stride = b.stride = std::numeric_limits<size_t>::max() & ~static_cast<size_t>(7);
        of_flow f = got.f;
        f.stride = a.stride;
        s = of_process(t.ctx, &a, &b, &f);
        CHECK_MSG(s == OF_OK, "process(48x1, strides SIZE_MAX-7): got %s (%s)", st(s), of_last_error(t.ctx));
        if (s == OF_OK) CHECK(same_bits(got.extract(), want.extract(), "48x1: huge strides vs minimal"));
    }

    // Valid unusual strides: padding, which the library must neither read as pixels nor write.
    {
        Pair p = synth_pair(oflow::synth::Case::Translation, kW, kH, 7);
        FramePair padded = frames_of(p, fmt, kW * bpp + 24);
        FlowBuf pf = make_flow(kW, kH, OF_FLOW_PLANAR, 5);
        of_status s = of_process(t.ctx, &padded.prev.img, &padded.next.img, &pf.f);
        CHECK_MSG(s == OF_OK, "process(padded strides): got %s (%s)", st(s), of_last_error(t.ctx));
        CHECK_MSG(pf.padding_untouched(), "process(padded flow stride) wrote into the padding");
        FlowBuf ref = make_flow(kW, kH);
        s = of_process(t.ctx, &P, &N, &ref.f);
        CHECK(s == OF_OK);
        CHECK(same_bits(pf.extract(), ref.extract(), "padded strides vs minimal strides"));
        FlowBuf il = make_flow(kW, kH, OF_FLOW_INTERLEAVED, 3);
        s = of_process(t.ctx, &P, &N, &il.f);
        CHECK_MSG(s == OF_OK, "process(interleaved, padded): got %s (%s)", st(s), of_last_error(t.ctx));
        CHECK_MSG(il.padding_untouched(), "process(interleaved padded) wrote into the padding");
        CHECK(same_bits(il.extract(), ref.extract(), "interleaved vs planar"));
    }
}

// A validity plane (of_flow.valid) in a caller buffer, every byte a sentinel first: untouched()
// says whether any byte changed (row padding and tail included).
struct ValidBuf {
    std::vector<uint32_t> store; // 4-byte aligned
    explicit ValidBuf(size_t bytes) : store(bytes / 4 + 8) { fill(); }
    unsigned char* bytes() { return reinterpret_cast<unsigned char*>(store.data()); }
    const unsigned char* bytes() const { return reinterpret_cast<const unsigned char*>(store.data()); }
    void fill() { std::memset(store.data(), 0xA7, store.size() * 4); }
    bool untouched(size_t from = 0) const {
        for (size_t i = from; i < store.size() * 4; ++i)
            if (bytes()[i] != 0xA7) return false;
        return true;
    }
};

// of_flow's validity fields: every bad one refused with its status and a message naming the field,
// nothing written (flow or plane), the context usable; the good ones write exactly the plane's
// rows (the mask 0 or 255, mostly 255 on this textured pair; the confidence in [0, 1], 255 in the
// mask exactly where it is at least config.min_confidence) and leave the flow as it is without a
// plane.
void test_validity(of_pixel_format fmt) {
    Fixture t(fmt);
    if (!t.ctx) {
        CHECK(false);
        return;
    }
    const of_image& P = t.prev.img;
    const of_image& N = t.next.img;
    const of_flow& F = t.target.f;
    ValidBuf vb(static_cast<size_t>(kW + 16) * 4 * kH + 256);
    auto bad = [&](of_flow f, of_status want, const char* what, const char* needle) {
        vb.fill();
        t.target.fill_sentinel();
        const of_status s = of_process(t.ctx, &P, &N, &f);
        CHECK_MSG(s == want, "process(%s): got %s, want %s", what, st(s), st(want));
        CHECK_MSG(std::strstr(of_last_error(t.ctx), needle) != nullptr, "process(%s): message '%s' lacks '%s'", what,
                  of_last_error(t.ctx), needle);
        CHECK_MSG(vb.untouched() && t.target.untouched(), "process(%s): written on error", what);
        t.expect(&P, &N, &f, want, what); // the context stays usable
    };
    of_flow f = F;
    f.valid = vb.bytes();
    f.valid_stride = kW * 4;
    const int bad_formats[] = {3, 99, -1, 0x7FFFFFFF};
    char what[96];
    for (int bf : bad_formats) {
        set_raw(f.valid_format, bf);
        std::snprintf(what, sizeof what, "valid_format %d", bf);
        bad(f, OF_ERR_FORMAT, what, "valid_format");
    }
    f.valid_format = OF_VALID_NONE;
    bad(f, OF_ERR_FORMAT, "valid set with OF_VALID_NONE", "valid must be NULL");
    for (of_valid_format vf : {OF_VALID_MASK_U8, OF_VALID_CONFIDENCE_F32}) {
        const bool mask = vf == OF_VALID_MASK_U8;
        of_flow g = F;
        g.valid_format = vf;
        g.valid = nullptr;
        g.valid_stride = kW * 4;
        bad(g, OF_ERR_NULL_POINTER, mask ? "mask, valid NULL" : "confidence, valid NULL", "valid is NULL");
        g.valid = vb.bytes();
        g.valid_stride = mask ? kW - 1 : kW * 4 - 4;
        bad(g, OF_ERR_STRIDE, mask ? "mask stride width - 1" : "confidence stride width*4 - 4", "valid_stride");
        g.valid_stride = 0;
        bad(g, OF_ERR_STRIDE, mask ? "mask stride 0" : "confidence stride 0", "valid_stride");
        if (!mask) {
            g.valid_stride = kW; // a mask's row
            bad(g, OF_ERR_STRIDE, "confidence stride width", "valid_stride");
            g.valid_stride = kW * 4 + 2;
            bad(g, OF_ERR_STRIDE, "confidence stride not a multiple of 4", "multiple of 4");
            g.valid_stride = kW * 4;
            g.valid = vb.bytes() + 2;
            bad(g, OF_ERR_INVALID_ARGUMENT, "confidence plane 2-byte aligned", "aligned");
        }
    }
    // The plane's span overflows the address space (4-row frames: the flow itself fits).
    {
        Pair p4 = synth_pair(oflow::synth::Case::Translation, kW, 4, 5);
        FramePair f4 = frames_of(p4, fmt);
        FlowBuf fl4 = make_flow(kW, 4);
        for (of_valid_format vf : {OF_VALID_MASK_U8, OF_VALID_CONFIDENCE_F32}) {
            of_flow g = fl4.f;
            g.valid_format = vf;
            g.valid = vb.bytes();
            g.valid_stride = (std::numeric_limits<size_t>::max() / 2) & ~static_cast<size_t>(7);
            vb.fill();
            fl4.fill_sentinel();
            const of_status s = of_process(t.ctx, &f4.prev.img, &f4.next.img, &g);
            CHECK_MSG(s == OF_ERR_OVERFLOW, "process(valid_stride ~SIZE_MAX/2, height 4): got %s", st(s));
            CHECK(std::strstr(of_last_error(t.ctx), "valid_stride") != nullptr);
            CHECK(vb.untouched() && fl4.untouched());
        }
    }
    // A device plane on a CPU path: the flow's memory kind is the plane's, refused as the flow's.
    if (expected_backend(OF_BACKEND_REFERENCE) != OF_BACKEND_CUDA) {
        of_flow g = F;
        g.memory = OF_MEMORY_CUDA_DEVICE;
        g.valid_format = OF_VALID_MASK_U8;
        g.valid = vb.bytes();
        g.valid_stride = kW;
        bad(g, OF_ERR_FORMAT, "validity plane in device memory on a CPU path", "memory kind");
    }

    // Good planes. The flow without a plane, for comparison.
    FlowBuf plain = make_flow(kW, kH);
    CHECK(of_process(t.ctx, &P, &N, &plain.f) == OF_OK);
    const size_t pad = 5; // bytes of padding per row (mask), or floats (confidence)
    std::vector<unsigned char> mask_bits; // the mask's rows, packed
    {
        of_flow g = t.good.f;
        g.valid_format = OF_VALID_MASK_U8;
        g.valid = vb.bytes();
        g.valid_stride = kW + pad;
        vb.fill();
        t.good.fill_sentinel();
        const of_status s = of_process(t.ctx, &P, &N, &g);
        CHECK_MSG(s == OF_OK, "process(mask, padded stride): got %s (%s)", st(s), of_last_error(t.ctx));
        bool rows = true, padding = true;
        size_t valid = 0;
        for (uint32_t y = 0; y < kH; ++y)
            for (size_t x = 0; x < kW + pad; ++x) {
                const unsigned char b = vb.bytes()[y * (kW + pad) + x];
                if (x < kW) {
                    rows = rows && (b == 255 || b == 0);
                    valid += b == 255;
                    mask_bits.push_back(b);
                } else {
                    padding = padding && b == 0xA7;
                }
            }
        CHECK_MSG(rows && padding && vb.untouched(kH * (kW + pad)), "mask: rows 0/255 %d, padding untouched %d", rows, padding);
        CHECK_MSG(valid * 2 > static_cast<size_t>(kW) * kH, "mask: %zu of %u pixels valid", valid, kW * kH);
        CHECK(same_bits(t.good.extract(), plain.extract(), "flow with a mask vs without"));
        // Any alignment for the mask.
        g.valid = vb.bytes() + 1;
        CHECK_MSG(of_process(t.ctx, &P, &N, &g) == OF_OK, "mask at an odd address: %s", of_last_error(t.ctx));
    }
    {
        of_flow g = t.good.f;
        g.valid_format = OF_VALID_CONFIDENCE_F32;
        g.valid = vb.bytes();
        g.valid_stride = (kW + pad) * 4;
        vb.fill();
        const of_status s = of_process(t.ctx, &P, &N, &g);
        CHECK_MSG(s == OF_OK, "process(confidence, padded stride): got %s (%s)", st(s), of_last_error(t.ctx));
        bool rows = true, padding = true;
        for (uint32_t y = 0; y < kH; ++y)
            for (size_t x = 0; x < kW + pad; ++x) {
                float c;
                std::memcpy(&c, vb.bytes() + (y * (kW + pad) + x) * 4, 4);
                uint32_t bits;
                std::memcpy(&bits, &c, 4);
                if (x < kW)
                    rows = rows && c >= 0.0f && c <= 1.0f &&
                           (mask_bits[y * kW + x] == 255) == (c >= 0.5f); // the default min_confidence
                else
                    padding = padding && bits == 0xA7A7A7A7u;
            }
        CHECK_MSG(rows && padding && vb.untouched(kH * (kW + pad) * 4),
                  "confidence: rows in [0, 1] and as the mask %d, padding untouched %d", rows, padding);
        CHECK(same_bits(t.good.extract(), plain.extract(), "flow with a confidence plane vs without"));
    }
    {
        // OF_VALID_NONE ignores valid_stride; an interleaved flow takes a plane too.
        of_flow g = t.good.f;
        g.valid_stride = 3;
        CHECK(of_process(t.ctx, &P, &N, &g) == OF_OK);
        FlowBuf il = make_flow(kW, kH, OF_FLOW_INTERLEAVED);
        il.f.valid_format = OF_VALID_MASK_U8;
        il.f.valid = vb.bytes();
        il.f.valid_stride = kW;
        vb.fill();
        CHECK_MSG(of_process(t.ctx, &P, &N, &il.f) == OF_OK, "interleaved with a mask: %s", of_last_error(t.ctx));
        // The same flow as planar, so the same mask.
        CHECK(std::memcmp(vb.bytes(), mask_bits.data(), mask_bits.size()) == 0 &&
              vb.untouched(static_cast<size_t>(kW) * kH));
    }
}

void test_process_errors_interleaved() {
    Fixture t(OF_PIXEL_U8, OF_FLOW_INTERLEAVED);
    if (!t.ctx) {
        CHECK(false);
        return;
    }
    const of_image& P = t.prev.img;
    const of_image& N = t.next.img;
    const of_flow& F = t.target.f;
    {
        of_flow f = F;
        f.v = t.good.f.v; // any non-NULL pointer
        t.expect(&P, &N, &f, OF_ERR_FORMAT, "interleaved with v != NULL");
        f = F;
        f.u = nullptr;
        t.expect(&P, &N, &f, OF_ERR_NULL_POINTER, "interleaved u NULL");
        f = F;
        f.stride = kW * 8 - 4; // enough for planar, too small for interleaved
        t.expect(&P, &N, &f, OF_ERR_STRIDE, "interleaved stride = width*8 - 4");
        f.stride = kW * 4;
        t.expect(&P, &N, &f, OF_ERR_STRIDE, "interleaved stride = width*4");
    }
    // A valid interleaved call writes exactly the rows.
    of_status s = of_process(t.ctx, &P, &N, &t.target.f);
    CHECK_MSG(s == OF_OK, "interleaved process: %s (%s)", st(s), of_last_error(t.ctx));
    CHECK(all_finite(t.target.extract()));
}

void test_nonfinite() {
    Fixture t(OF_PIXEL_F32);
    if (!t.ctx) {
        CHECK(false);
        return;
    }
    const of_flow& F = t.target.f;
    struct Spot {
        const char* name;
        uint32_t x, y;
    };
    const Spot spots[] = {{"first pixel", 0, 0},
                          {"last pixel", kW - 1, kH - 1},
                          {"middle", kW / 2, kH / 3},
                          {"end of first row", kW - 1, 0},
                          {"start of last row", 0, kH - 1}};
    const float bad[] = {kNaN, kInf, -kInf};
    const char* bad_name[] = {"NaN", "+Inf", "-Inf"};
    Pair p = synth_pair(oflow::synth::Case::Translation, kW, kH, 7);
    char what[128];
    for (int which = 0; which < 2; ++which) {
        for (const Spot& sp : spots) {
            for (int k = 0; k < 3; ++k) {
                FramePair fp = frames_of(p, OF_PIXEL_F32);
                (which == 0 ? fp.prev : fp.next).set_f32(sp.x, sp.y, bad[k]);
                std::snprintf(what, sizeof what, "%s %s at %s", which == 0 ? "prev" : "next",
                              bad_name[k], sp.name);
                t.expect(&fp.prev.img, &fp.next.img, &F, OF_ERR_NONFINITE, what);
            }
        }
    }
    // NaN in the row padding is not part of the image: accepted.
    {
        Frame a = make_frame(OF_PIXEL_F32, kW, kH, p.i0.data(), kW, kW * 4 + 16, 0xFF);
        Frame b = make_frame(OF_PIXEL_F32, kW, kH, p.i1.data(), kW, kW * 4 + 16, 0xFF);
        FlowBuf f = make_flow(kW, kH);
        of_status s = of_process(t.ctx, &a.img, &b.img, &f.f);
        CHECK_MSG(s == OF_OK, "F32 with NaN (0xFFFFFFFF) only in the row padding: got %s (%s)", st(s),
                  of_last_error(t.ctx));
        CHECK(s != OF_OK || all_finite(f.extract()));
    }
    // Magnitudes up to 1e6 and subnormals are accepted, with finite flow; a finite value beyond
    // 1e6 (FLT_MAX, 1e38: fuzz_api found that 1e38 made the flow NaN) is OF_ERR_NONFINITE.
    {
        FramePair fp = frames_of(p, OF_PIXEL_F32);
        fp.prev.set_f32(1, 1, 1.0e6f);
        fp.next.set_f32(2, 2, -1.0e6f);
        fp.next.set_f32(3, 2, FLT_MIN / 4.0f); // subnormal
        FlowBuf f = make_flow(kW, kH);
        of_status s = of_process(t.ctx, &fp.prev.img, &fp.next.img, &f.f);
        CHECK_MSG(s == OF_OK, "F32 with +-1e6 and a subnormal: got %s (%s)", st(s), of_last_error(t.ctx));
        CHECK_MSG(s != OF_OK || all_finite(f.extract()), "F32 with +-1e6: non-finite flow");
    }
    {
        const float huge[] = {FLT_MAX, -FLT_MAX, 1.0e38f, std::nextafter(1.0e6f, 2.0e6f), -1.0e7f};
        for (int which = 0; which < 2; ++which)
            for (float v : huge) {
                FramePair fp = frames_of(p, OF_PIXEL_F32);
                (which == 0 ? fp.prev : fp.next).set_f32(kW / 2, kH / 2, v);
                std::snprintf(what, sizeof what, "%s pixel %g", which == 0 ? "prev" : "next", static_cast<double>(v));
                t.expect(&fp.prev.img, &fp.next.img, &F, OF_ERR_NONFINITE, what);
                FlowBuf f = make_flow(kW, kH);
                (void)of_process(t.ctx, &fp.prev.img, &fp.next.img, &f.f); // expect() ends on a good frame
                CHECK_MSG(std::strstr(of_last_error(t.ctx), which == 0 ? "prev" : "next") != nullptr &&
                              std::strstr(of_last_error(t.ctx), "1e+06") != nullptr,
                          "%s: message '%s' should name the frame and the limit", what, of_last_error(t.ctx));
            }
    }
}

// ---- of_get_info, of_destroy, strings, version, of_last_error -------------------------------

void test_info() {
    of_config c = base_cfg();
    c.threads = 2;
    of_memory m;
    std::memset(&m, 0, sizeof m);
    m.struct_size = sizeof m;
    // The config asks for the reference path; OFLOW_FORCE_BACKEND may impose another.
    const of_backend want_backend = expected_backend(OF_BACKEND_REFERENCE);
    const bool cpu_path = want_backend != OF_BACKEND_CUDA;
    CHECK(of_query_memory(&c, &m) == OF_OK);
    CHECK(m.host_bytes > 0);
    CHECK(!cpu_path || m.device_bytes == 0);
    CHECK(m.host_alignment == 64);
    CHECK(m.device_alignment == 256);
    of_context* ctx = create_or_report(c, "info");
    if (!ctx) {
        CHECK(false);
        return;
    }
    of_info info;
    CHECK_STATUS(of_get_info(nullptr, &info), OF_ERR_NULL_POINTER, "get_info(NULL ctx)");
    CHECK(nonempty(of_last_error(nullptr)));
    CHECK_STATUS(of_get_info(ctx, nullptr), OF_ERR_NULL_POINTER, "get_info(NULL info)");
    CHECK_MSG(nonempty(of_last_error(ctx)), "get_info(ctx, NULL): of_last_error(ctx) empty (NULL: \"%s\")",
              of_last_error(nullptr));
    const uint32_t bad_sizes[] = {0, static_cast<uint32_t>(sizeof(of_info) - 1),
                                  static_cast<uint32_t>(sizeof(of_info) + 8)};
    for (uint32_t bs : bad_sizes) {
        std::memset(&info, 0x77, sizeof info);
        info.struct_size = bs;
        of_info copy = info;
        of_status s = of_get_info(ctx, &info);
        CHECK_MSG(s == OF_ERR_STRUCT_SIZE, "get_info(struct_size %u): got %s", bs, st(s));
        CHECK(std::memcmp(&info, &copy, sizeof info) == 0);
        CHECK_MSG(nonempty(of_last_error(ctx)),
                  "get_info(struct_size %u): of_last_error(ctx) empty (NULL: \"%s\")", bs,
                  of_last_error(nullptr));
    }

    std::memset(&info, 0x77, sizeof info);
    info.struct_size = sizeof info;
    CHECK(of_get_info(ctx, &info) == OF_OK);
    CHECK(info.struct_size == sizeof info);
    CHECK(info.algorithm == OF_ALGO_TVL1);
    CHECK_MSG(want_backend == OF_BACKEND_AUTO || info.backend == want_backend, "info.backend %d, want %d",
              static_cast<int>(info.backend), static_cast<int>(want_backend));
    CHECK(info.backend != OF_BACKEND_AUTO);
    CHECK(info.precision == OF_PRECISION_F32);
    CHECK(info.levels >= 1 && info.levels <= 16);
    CHECK(info.threads == 2);
    CHECK_MSG(info.host_bytes == m.host_bytes, "info.host_bytes %zu != query %zu", info.host_bytes,
              m.host_bytes);
    CHECK(info.device_bytes == m.device_bytes);
    CHECK(info.last_width == 0 && info.last_height == 0);
    CHECK(std::memchr(info.variant, '\0', sizeof info.variant) != nullptr);
    CHECK(std::memchr(info.reason, '\0', sizeof info.reason) != nullptr);
    CHECK(info.variant[0] != '\0');
    // The table and the selection (of_info's appended fields).
    CHECK(info.board[0] != '\0' && info.board_match[0] != '\0' && info.board_reason[0] != '\0');
    CHECK(info.iterations == c.iterations && info.warps == c.warps);
    for (uint32_t l = 0; l < OF_MAX_LEVELS; ++l) {
        const bool used = l < info.levels;
        CHECK(used == (info.level_width[l] != 0 && info.level_height[l] != 0));
        CHECK(info.level_backend[l] == (used ? info.backend : OF_BACKEND_AUTO));
        CHECK(info.level_iterations[l] == (used ? c.iterations : 0u));
    }
    CHECK(info.level_width[0] == c.max_width && info.level_height[0] == c.max_height);
    CHECK(cpu_path == (info.block_width == 0 && info.fused_depth == 0));

    // of_explain says exactly what of_get_info says of a fresh context.
    of_info ex;
    std::memset(&ex, 0x55, sizeof ex);
    ex.struct_size = sizeof ex;
    CHECK_STATUS(of_explain(&c, &ex), OF_OK, "explain(info config)");
    CHECK(ex.backend == info.backend && ex.precision == info.precision && ex.algorithm == info.algorithm);
    CHECK(ex.levels == info.levels && ex.threads == info.threads);
    CHECK(ex.host_bytes == info.host_bytes && ex.device_bytes == info.device_bytes);
    CHECK(ex.last_width == 0 && ex.last_height == 0 && ex.last_levels == 0 && ex.last_iterations == 0);
    CHECK(std::strcmp(ex.variant, info.variant) == 0);
    CHECK_MSG(std::strcmp(ex.reason, info.reason) == 0, "explain \"%s\" vs info \"%s\"", ex.reason, info.reason);
    CHECK(std::strcmp(ex.board, info.board) == 0 && std::strcmp(ex.board_match, info.board_match) == 0);
    CHECK(std::strcmp(ex.board_reason, info.board_reason) == 0);
    CHECK(ex.iterations == info.iterations && ex.warps == info.warps && ex.predicted_ms == info.predicted_ms);
    CHECK(ex.block_width == info.block_width && ex.block_height == info.block_height &&
          ex.rows_per_thread == info.rows_per_thread && ex.fused_depth == info.fused_depth);
    CHECK(std::memcmp(ex.level_width, info.level_width, sizeof ex.level_width) == 0);
    CHECK(std::memcmp(ex.level_height, info.level_height, sizeof ex.level_height) == 0);
    CHECK(std::memcmp(ex.level_wanted, info.level_wanted, sizeof ex.level_wanted) == 0);
    CHECK(std::memcmp(ex.level_backend, info.level_backend, sizeof ex.level_backend) == 0);
    CHECK(std::memcmp(ex.level_iterations, info.level_iterations, sizeof ex.level_iterations) == 0);
    CHECK(ex.iteration_growth == info.iteration_growth && info.iteration_growth == c.iteration_growth);
    // ... and checks its own arguments
    CHECK_STATUS(of_explain(&c, nullptr), OF_ERR_NULL_POINTER, "explain(NULL info)");
    CHECK_STATUS(of_explain(nullptr, &ex), OF_ERR_NULL_POINTER, "explain(NULL cfg)");
    for (uint32_t bs : bad_sizes) {
        std::memset(&ex, 0x77, sizeof ex);
        ex.struct_size = bs;
        const of_info copy = ex;
        CHECK_STATUS(of_explain(&c, &ex), OF_ERR_STRUCT_SIZE, "explain(bad struct_size)");
        CHECK(std::memcmp(&ex, &copy, sizeof ex) == 0);
        CHECK(nonempty(of_last_error(nullptr)));
    }

    Pair p = synth_pair(oflow::synth::Case::Translation, 40, 30, 2);
    FramePair fp = frames_of(p, OF_PIXEL_U8);
    FlowBuf f = make_flow(40, 30);
    CHECK(of_process(ctx, &fp.prev.img, &fp.next.img, &f.f) == OF_OK);
    std::memset(&info, 0x77, sizeof info);
    info.struct_size = sizeof info;
    CHECK(of_get_info(ctx, &info) == OF_OK);
    CHECK(info.last_width == 40 && info.last_height == 30);
    CHECK(info.last_levels >= 1 && info.last_levels <= info.levels);
    CHECK(info.last_iterations >= 1);
    CHECK(info.last_iterations <= static_cast<uint64_t>(c.iterations) * c.warps * info.last_levels *
                                      static_cast<uint64_t>(oflow::robust_passes(c.robust, c.algorithm))); // pick: every solve
    // A failed call leaves the info of the last frame alone.
    of_image bad = fp.prev.img;
    bad.width = 0;
    CHECK(of_process(ctx, &bad, &fp.next.img, &f.f) == OF_ERR_SIZE);
    of_info again;
    std::memset(&again, 0, sizeof again);
    again.struct_size = sizeof again;
    CHECK(of_get_info(ctx, &again) == OF_OK);
    CHECK(again.last_width == 40 && again.last_height == 30);
    of_destroy(ctx);

    // AUTO picks a real backend and precision and says why.
    of_config a = tvl1_config(64, 48);
    ctx = create_or_report(a, "auto");
    CHECK(ctx != nullptr);
    if (ctx) {
        std::memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        CHECK(of_get_info(ctx, &info) == OF_OK);
        CHECK(info.backend != OF_BACKEND_AUTO);
        CHECK(info.precision != OF_PRECISION_AUTO);
        CHECK(info.reason[0] != '\0');
        std::printf("AUTO at 64x48: backend %d, precision %d, variant \"%s\", reason \"%s\"\n",
                    static_cast<int>(info.backend), static_cast<int>(info.precision), info.variant,
                    info.reason);
        of_destroy(ctx);
    }
}

void test_strings_and_version() {
    of_destroy(nullptr); // no-op
    CHECK(of_version() == static_cast<uint32_t>(OF_VERSION));
    const char* names[] = {"OF_OK",
                           "OF_ERR_NULL_POINTER",
                           "OF_ERR_STRUCT_SIZE",
                           "OF_ERR_INVALID_ARGUMENT",
                           "OF_ERR_UNSUPPORTED",
                           "OF_ERR_BACKEND_UNAVAILABLE",
                           "OF_ERR_SIZE",
                           "OF_ERR_STRIDE",
                           "OF_ERR_FORMAT",
                           "OF_ERR_NONFINITE",
                           "OF_ERR_ARENA",
                           "OF_ERR_OVERFLOW",
                           "OF_ERR_OUT_OF_MEMORY",
                           "OF_ERR_DEVICE",
                           "OF_ERR_INTERNAL"};
    for (int i = 0; i <= 14; ++i) {
        const char* s = of_status_string(static_cast<of_status>(i));
        CHECK_MSG(s != nullptr && s[0] != '\0', "of_status_string(%d) empty", i);
        if (!s) continue;
        const size_t n = std::strlen(names[i]);
        // "OF_ERR_SIZE: ..." (the name, then the end or a non-identifier character)
        CHECK_MSG(std::strncmp(s, names[i], n) == 0 && (s[n] == '\0' || s[n] == ':' || s[n] == ' '),
                  "of_status_string(%d) = \"%s\", expected it to start with %s", i, s, names[i]);
        for (int j = 0; j < i; ++j) {
            const char* o = of_status_string(static_cast<of_status>(j));
            CHECK_MSG(o == nullptr || std::strcmp(o, s) != 0, "status strings %d and %d equal", i, j);
        }
    }
    const int unknown[] = {15, 16, 100, -1, 0x7fffffff};
    for (int u : unknown) {
        const char* s = oftest_status_string_raw(u);
        CHECK_MSG(s != nullptr && s[0] != '\0', "of_status_string(%d) NULL or empty", u);
    }
}

// of_last_error(NULL) is per thread: "" in a thread that has had no failure.
bool thread_sees_empty_error() {
    bool empty = false;
    std::thread th([&] {
        const char* m = of_last_error(nullptr);
        empty = m != nullptr && m[0] == '\0';
    });
    th.join();
    return empty;
}

} // namespace

int main() {
    CHECK_MSG(thread_sees_empty_error(), "of_last_error(NULL) not \"\" before any failure");
    test_strings_and_version();
    test_config_init();
    test_config_errors();
    test_float_edges();
    test_out_of_memory();
    const of_pixel_format fmts[] = {OF_PIXEL_U8, OF_PIXEL_U16, OF_PIXEL_F32};
    for (of_pixel_format f : fmts) test_process_errors_common(f);
    test_validity(OF_PIXEL_U8);
    test_validity(OF_PIXEL_F32);
    test_process_errors_interleaved();
    test_nonfinite();
    test_info();
    CHECK(nonempty(of_last_error(nullptr)));
    CHECK_MSG(thread_sees_empty_error(), "a failure on the main thread shows in another thread");
    return oftest::finish("api_contract");
}
