// algorithms: the algorithm seam (core/algorithm.hpp). Every value of of_algorithm is either
// registered, with an entry that keeps the registry's invariants, or answered
// OF_ERR_UNSUPPORTED by query and create (never a crash, never a half-built context); an
// unknown value is OF_ERR_INVALID_ARGUMENT. Each registered algorithm runs end to end on the
// reference path with the plan its entry asks for (query == create, work planes in the plan).
#include "tests/check.hpp"

#include "core/algorithm.hpp"
#include "core/config_check.hpp"
#include "core/plan.hpp"
#include "platform/tuning.hpp"
#include "oflow.h"

#include <cstring>
#include <string>
#include <vector>

using namespace oflow;

namespace {

void check_entry(const Algorithm& a, of_algorithm id) {
    const char* want = platform::algorithm_name(id);
    CHECK_MSG(a.id == id && a.name && std::strcmp(a.name, want) == 0, "entry %d: name '%s', tables say '%s'",
              static_cast<int>(id), a.name ? a.name : "(null)", want);
    CHECK_MSG(a.check_params && a.work_planes && a.work_plane_name && a.solve_level_cpu, "%s: a required entry is null",
              want);
    if (!a.work_planes || !a.work_plane_name) return;
    of_config c;
    config_defaults(&c, id);
    char msg[kErrorCapacity] = "";
    CHECK_MSG(a.check_params(c, ErrorSink{msg}) == OF_OK, "%s: its defaults fail its own check: %s", want, msg);
    const int n = a.work_planes(c);
    CHECK_MSG(n >= kScratchPlanes && n <= kMaxWorkPlanes, "%s: %d work planes, not in %d..%d", want, n,
              kScratchPlanes, kMaxWorkPlanes);
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) {
        const char* nm = a.work_plane_name(c, i);
        CHECK_MSG(nm && nm[0], "%s: work plane %d has no name", want, i);
        if (!nm) continue;
        for (const std::string& o : names) CHECK_MSG(o != nm, "%s: two work planes named %s", want, nm);
        names.push_back(nm);
    }
#if OF_HAVE_CUDA
    CHECK_MSG(!a.gpu_path || a.cuda, "%s: gpu_path without a CUDA driver in a CUDA build", want);
#endif
    CHECK_MSG(a.gpu_path || !a.cuda, "%s: a CUDA driver but gpu_path false", want);
    // The validity output: a confidence plane among its work planes with its 0.5 value, or neither
    // (the shared residual confidence).
    CHECK_MSG(a.confidence_plane < 0 ? a.confidence_half == nullptr : a.confidence_plane < n && a.confidence_half != nullptr,
              "%s: confidence_plane %d of %d work planes, confidence_half %s", want, a.confidence_plane, n,
              a.confidence_half ? "set" : "null");
    CHECK_MSG(a.max_warps >= 1 && a.max_warps <= 100 && c.warps <= a.max_warps, "%s: max_warps %u, default warps %u", want,
              a.max_warps, c.warps);
}

// Query, create, explain and one frame on the reference path, with the validity mask.
void check_runs(of_algorithm id) {
    const char* name = platform::algorithm_name(id);
    of_config c;
    of_config_init(&c, id);
    c.max_width = 48;
    c.max_height = 40;
    c.backend = OF_BACKEND_REFERENCE;
    c.iterations = 20;
    c.warps = find_algorithm(id)->max_warps < 2 ? 1 : 2; // LK has no warps
    of_memory m;
    m.struct_size = sizeof m;
    CHECK_MSG(of_query_memory(&c, &m) == OF_OK, "%s: query: %s", name, of_last_error(nullptr));
    of_context* ctx = nullptr;
    CHECK_MSG(of_create(&c, &ctx) == OF_OK, "%s: create: %s", name, of_last_error(nullptr));
    if (!ctx) return;
    of_info info;
    info.struct_size = sizeof info;
    CHECK(of_get_info(ctx, &info) == OF_OK);
    CHECK_MSG(info.algorithm == id && info.host_bytes == m.host_bytes, "%s: info algorithm %d, %zu host bytes vs %zu queried",
              name, static_cast<int>(info.algorithm), info.host_bytes, m.host_bytes);
    // The solver that runs, and its parameters (the config's defaults here).
    const bool hs = id == OF_ALGO_HS || id == OF_ALGO_CLG;
    CHECK_MSG(info.solver == (hs ? c.hs.solver : OF_SOLVER_PRIMAL_DUAL) && info.omega == 0.0f &&
                  info.alpha == (hs ? c.hs.alpha : 0.0f) && info.rho == (id == OF_ALGO_CLG ? c.hs.rho : 0.0f),
              "%s: info solver %d omega %g alpha %g rho %g", name, static_cast<int>(info.solver),
              static_cast<double>(info.omega), static_cast<double>(info.alpha), static_cast<double>(info.rho));
    // A pair shifted by one pixel: the flow comes back finite.
    std::vector<unsigned char> a(48 * 40), b(48 * 40);
    for (int y = 0; y < 40; ++y)
        for (int x = 0; x < 48; ++x) {
            a[static_cast<size_t>(y) * 48 + x] = static_cast<unsigned char>((x * 37 + y * 91 + (x * y) % 13) & 255);
            b[static_cast<size_t>(y) * 48 + x] = static_cast<unsigned char>((((x > 0 ? x - 1 : 0) * 37) + y * 91 +
                                                                            ((x > 0 ? x - 1 : 0) * y) % 13) & 255);
        }
    of_image i0{sizeof(of_image), OF_PIXEL_U8, OF_MEMORY_HOST, 48, 40, 48, a.data()};
    of_image i1 = i0;
    i1.data = b.data();
    std::vector<float> u(48 * 40, -7.0f), v(48 * 40, -7.0f);
    std::vector<unsigned char> mask(48 * 40, 7);
    of_flow f{sizeof(of_flow), OF_FLOW_PLANAR, OF_MEMORY_HOST, 48, 40, 48 * 4, u.data(), v.data(), OF_VALID_MASK_U8, 48,
              mask.data(), OF_FLOW_FORMAT_F32};
    CHECK_MSG(of_process(ctx, &i0, &i1, &f) == OF_OK, "%s: process: %s", name, of_last_error(ctx));
    bool finite = true;
    for (size_t i = 0; i < u.size(); ++i) finite = finite && u[i] == u[i] && v[i] == v[i] && u[i] > -100 && u[i] < 100;
    CHECK_MSG(finite, "%s: flow not finite or out of range", name);
    // Every pixel gets 255 or 0, and a textured pair with a small motion is mostly valid.
    size_t valid = 0, other = 0;
    for (unsigned char px : mask) {
        valid += px == 255;
        other += px != 255 && px != 0;
    }
    CHECK_MSG(other == 0 && valid * 2 > mask.size(), "%s: mask %zu valid, %zu neither 0 nor 255 of %zu", name, valid,
              other, mask.size());
    of_destroy(ctx);
}

// A CPU-only algorithm computes F16 only on NEON with its F16 kernels on a CPU with FP16
// arithmetic. Where it does not, AUTO and F16 are modelled by the table's F32 row: the same
// predicted time as F32 (Xavier's table has HS rows of both precisions, F16 the faster), and
// the reason says the wish was not honoured. Where it does (an FP16 aarch64 build), of_info
// says F16.
void check_cpu_precision_model(of_algorithm id) {
    const char* name = platform::algorithm_name(id);
    double ms[3] = {0, 0, 0};
    of_precision ran[3] = {OF_PRECISION_AUTO, OF_PRECISION_AUTO, OF_PRECISION_AUTO};
    const of_precision asked[3] = {OF_PRECISION_F32, OF_PRECISION_AUTO, OF_PRECISION_F16};
    for (int i = 0; i < 3; ++i) {
        of_config c;
        config_defaults(&c, id);
        c.max_width = 640;
        c.max_height = 480;
        c.platform = "xavier";
        c.precision = asked[i];
        of_info info;
        std::memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        CHECK_MSG(of_explain(&c, &info) == OF_OK, "%s explain: %s", name, of_last_error(nullptr));
        ms[i] = info.predicted_ms;
        ran[i] = info.precision;
        if (asked[i] == OF_PRECISION_F16 && info.precision == OF_PRECISION_F32)
            CHECK_MSG(std::strstr(info.reason, "F32") != nullptr, "%s: reason '%s' does not say it runs F32", name,
                      info.reason);
    }
    std::printf("%s on xavier 640x480: predicted %.3f ms F32, %.3f AUTO, %.3f F16 (runs %s)\n", name, ms[0], ms[1], ms[2],
                ran[1] == OF_PRECISION_F16 ? "F16" : "F32");
    CHECK_MSG(ms[0] > 0.0 && ran[0] == OF_PRECISION_F32, "%s: F32 not modelled", name);
    for (int i = 1; i < 3; ++i)
        CHECK_MSG(ran[i] == OF_PRECISION_F16 ? ms[i] < ms[0] : ms[i] == ms[0],
                  "%s asked %d: runs %s, predicted %.3f ms vs F32 %.3f", name, static_cast<int>(asked[i]),
                  ran[i] == OF_PRECISION_F16 ? "F16" : "F32", ms[i], ms[0]);
}

} // namespace

int main() {
    const of_algorithm ids[] = {OF_ALGO_TVL1, OF_ALGO_HS, OF_ALGO_CLG, OF_ALGO_LK, OF_ALGO_DIS};
    int registered = 0;
    for (of_algorithm id : ids) {
        CHECK(algorithm_known(id));
        const Algorithm* a = find_algorithm(id);
        std::printf("%-5s %s\n", platform::algorithm_name(id), a ? "registered" : "not built");
        if (a) {
            ++registered;
            check_entry(*a, id);
            check_runs(id);
            continue;
        }
        of_config c;
        CHECK(of_config_init(&c, id) == OF_OK);
        of_memory m;
        m.struct_size = sizeof m;
        CHECK_MSG(of_query_memory(&c, &m) == OF_ERR_UNSUPPORTED, "%s: query should be OF_ERR_UNSUPPORTED",
                  platform::algorithm_name(id));
        of_context* ctx = reinterpret_cast<of_context*>(&m);
        CHECK_MSG(of_create(&c, &ctx) == OF_ERR_UNSUPPORTED && ctx == nullptr, "%s: create should be OF_ERR_UNSUPPORTED",
                  platform::algorithm_name(id));
        CHECK_MSG(std::strstr(of_last_error(nullptr), platform::algorithm_name(id)) != nullptr, "message '%s'",
                  of_last_error(nullptr));
    }
    CHECK(registered >= 1 && find_algorithm(OF_ALGO_TVL1) != nullptr);
    for (of_algorithm id : ids) {
        const Algorithm* a = find_algorithm(id);
        if (a && !a->gpu_path) check_cpu_precision_model(id);
    }
    const int32_t unknown[] = {0, 6, -1, 0x7fffffff};
    for (int32_t id : unknown) {
        CHECK(!algorithm_known(id) && find_algorithm(id) == nullptr);
        of_config c;
        config_defaults(&c, OF_ALGO_TVL1);
        std::memcpy(&c.algorithm, &id, sizeof id);
        of_context* ctx = nullptr;
        CHECK_MSG(of_create(&c, &ctx) == OF_ERR_INVALID_ARGUMENT && ctx == nullptr, "algorithm %d: expected OF_ERR_INVALID_ARGUMENT",
                  static_cast<int>(id));
    }
    return oftest::finish("algorithms");
}
