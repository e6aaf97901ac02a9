// force_backend: the OFLOW_FORCE_BACKEND environment variable (api/oflow.h, of_config.backend).
// of_create and of_query_memory both read it and agree:
//  - an unknown value: OF_ERR_INVALID_ARGUMENT from both, nothing written, a message that names
//    the variable and the value;
//  - "reference": the reference path whatever the config asks (REFERENCE, NEON, CUDA, AUTO),
//    with the same flow, bit for bit, as a config that asks for it;
//  - "neon" / "cuda": that path where this build and machine have it, else
//    OF_ERR_BACKEND_UNAVAILABLE with a message naming the variable (never a silent fallback);
//    NEON with precision F16 runs F16 only where the CPU has FP16 vector arithmetic, and
//    of_get_info says so either way;
//  - "auto": what a config AUTO picks;
//  - set but empty: as if unset.
// The test sets and clears the variable itself, so it passes whatever ctest's environment holds.
#include "test_util.hpp"

#include <string>

using namespace oftest;

#ifndef OF_TEST_HAVE_NEON
#error "tests/CMakeLists.txt passes OF_TEST_HAVE_NEON (0/1)"
#endif
#ifndef OF_TEST_HAVE_CUDA
#error "tests/CMakeLists.txt passes OF_TEST_HAVE_CUDA (0/1)"
#endif

namespace {

const char kVar[] = "OFLOW_FORCE_BACKEND";
const uint32_t kW = 48, kH = 40;

void force(const char* value) {
    if (value)
        setenv(kVar, value, 1);
    else
        unsetenv(kVar);
}

bool contains(const char* hay, const char* needle) {
    return hay != nullptr && std::strstr(hay, needle) != nullptr;
}

of_config small_cfg(of_backend backend) {
    of_config c = tvl1_config(kW, kH);
    c.backend = backend;
    c.warps = 2;
    c.iterations = 10;
    return c;
}

of_info info_of(const of_context* ctx) {
    of_info in;
    std::memset(&in, 0, sizeof in);
    in.struct_size = sizeof in;
    CHECK(of_get_info(ctx, &in) == OF_OK);
    return in;
}

// Both of_query_memory and of_create answer `want` for cfg under the current variable, write
// nothing, and say why in a message that holds every string of `needles`.
void expect_refused(const of_config& cfg, of_status want, const std::string& what,
                    std::initializer_list<const char*> needles) {
    of_memory m;
    std::memset(&m, 0x3C, sizeof m);
    m.struct_size = sizeof m;
    of_memory copy = m;
    of_status s = of_query_memory(&cfg, &m);
    CHECK_MSG(s == want, "query(%s): got %s, want %s", what.c_str(), st(s), st(want));
    CHECK_MSG(std::memcmp(&m, &copy, sizeof m) == 0, "query(%s) wrote to *need", what.c_str());
    for (const char* n : needles)
        CHECK_MSG(contains(of_last_error(nullptr), n), "query(%s): message \"%s\" lacks \"%s\"",
                  what.c_str(), of_last_error(nullptr), n);
    of_context* ctx = reinterpret_cast<of_context*>(&m);
    s = of_create(&cfg, &ctx);
    CHECK_MSG(s == want, "create(%s): got %s, want %s", what.c_str(), st(s), st(want));
    CHECK_MSG(ctx == nullptr, "create(%s): *out not set to NULL", what.c_str());
    for (const char* n : needles)
        CHECK_MSG(contains(of_last_error(nullptr), n), "create(%s): message \"%s\" lacks \"%s\"",
                  what.c_str(), of_last_error(nullptr), n);
    if (s == OF_OK && ctx && ctx != reinterpret_cast<of_context*>(&m)) of_destroy(ctx);
}

// Creates cfg under the current variable; checks that the query agrees with the context.
of_context* create_agreeing(const of_config& cfg, const std::string& what) {
    of_memory m;
    std::memset(&m, 0, sizeof m);
    m.struct_size = sizeof m;
    of_status s = of_query_memory(&cfg, &m);
    CHECK_MSG(s == OF_OK, "query(%s): %s (%s)", what.c_str(), st(s), of_last_error(nullptr));
    of_context* ctx = create_or_report(cfg, what.c_str());
    CHECK_MSG(ctx != nullptr, "%s: create", what.c_str());
    if (!ctx) return nullptr;
    const of_info in = info_of(ctx);
    CHECK_MSG(in.host_bytes == m.host_bytes && in.device_bytes == m.device_bytes,
              "%s: query %zu/%zu bytes, context %zu/%zu", what.c_str(), m.host_bytes,
              m.device_bytes, in.host_bytes, in.device_bytes);
    return ctx;
}

std::vector<float> flow_of(of_context* ctx, const FramePair& fp) {
    FlowBuf f = make_flow(kW, kH);
    of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &f.f);
    CHECK_MSG(s == OF_OK, "process: %s (%s)", st(s), of_last_error(ctx));
    return f.extract();
}

void test_unknown_values() {
    const char* bad[] = {"bogus", "ref", "NEON", "neon ", "gpu"};
    for (const char* v : bad) {
        force(v);
        const std::string what = std::string(kVar) + "=\"" + v + "\"";
        expect_refused(small_cfg(OF_BACKEND_REFERENCE), OF_ERR_INVALID_ARGUMENT, what, {kVar, v});
        expect_refused(small_cfg(OF_BACKEND_AUTO), OF_ERR_INVALID_ARGUMENT, what, {kVar, v});
    }
    force(nullptr);
}

void test_reference() {
    const Pair p = synth_pair(oflow::synth::Case::Translation, kW, kH, 3);
    const FramePair fp = frames_of(p, OF_PIXEL_U8);

    force(nullptr);
    of_context* plain = create_agreeing(small_cfg(OF_BACKEND_REFERENCE), "unforced reference");
    if (!plain) return;
    const std::vector<float> want = flow_of(plain, fp);
    CHECK(!contains(info_of(plain).reason, kVar));
    of_destroy(plain);

    force("reference");
    const of_backend asked[] = {OF_BACKEND_REFERENCE, OF_BACKEND_NEON, OF_BACKEND_CUDA, OF_BACKEND_AUTO};
    for (of_backend b : asked) {
        const std::string what = "reference forced, config backend " + std::to_string(b);
        of_context* ctx = create_agreeing(small_cfg(b), what);
        if (!ctx) continue;
        const of_info in = info_of(ctx);
        CHECK_MSG(in.backend == OF_BACKEND_REFERENCE, "%s: backend %d", what.c_str(), static_cast<int>(in.backend));
        CHECK_MSG(std::strcmp(in.variant, "ref") == 0, "%s: variant \"%s\"", what.c_str(), in.variant);
        CHECK_MSG(in.device_bytes == 0, "%s: device_bytes %zu", what.c_str(), in.device_bytes);
        CHECK_MSG(contains(in.reason, kVar), "%s: reason \"%s\"", what.c_str(), in.reason);
        CHECK_MSG(same_bits(flow_of(ctx, fp), want, what.c_str()), "%s: flow differs", what.c_str());
        of_destroy(ctx);
    }

    force(""); // empty: as if unset, so the config's backend (NEON/CUDA may be refused)
    of_context* ctx = create_agreeing(small_cfg(OF_BACKEND_REFERENCE), "empty value");
    if (ctx) {
        const of_info in = info_of(ctx);
        CHECK(in.backend == OF_BACKEND_REFERENCE);
        CHECK_MSG(!contains(in.reason, kVar), "empty value: reason \"%s\"", in.reason);
        of_destroy(ctx);
    }
    force(nullptr);
}

void test_neon() {
    force("neon");
    if (!OF_TEST_HAVE_NEON) {
        expect_refused(small_cfg(OF_BACKEND_REFERENCE), OF_ERR_BACKEND_UNAVAILABLE,
                       "neon forced, no NEON in this build", {"OFLOW_FORCE_BACKEND=neon", "NEON"});
        force(nullptr);
        return;
    }
    const of_precision precs[] = {OF_PRECISION_AUTO, OF_PRECISION_F32, OF_PRECISION_F16};
    for (of_precision pr : precs) {
        // One plain solve: under the default's census the F16 kernels are never installed (F32
        // duals), which would hide what an F16 request on a CPU without FP16 arithmetic reports.
        of_config c = one_solve(small_cfg(OF_BACKEND_REFERENCE));
        c.precision = pr;
        const std::string what = "neon forced, precision " + std::to_string(pr);
        of_context* ctx = create_agreeing(c, what);
        if (!ctx) continue;
        const of_info in = info_of(ctx);
        CHECK_MSG(in.backend == OF_BACKEND_NEON, "%s: backend %d", what.c_str(), static_cast<int>(in.backend));
        CHECK_MSG(in.device_bytes == 0, "%s: device_bytes %zu", what.c_str(), in.device_bytes);
        CHECK_MSG(contains(in.reason, kVar), "%s: reason \"%s\"", what.c_str(), in.reason);
        if (pr == OF_PRECISION_F16 && in.precision == OF_PRECISION_F16) {
            CHECK_MSG(std::strcmp(in.variant, "neon_f16") == 0, "%s: variant \"%s\"", what.c_str(), in.variant);
        } else {
            CHECK_MSG(in.precision == OF_PRECISION_F32, "%s: precision %d", what.c_str(), static_cast<int>(in.precision));
            CHECK_MSG(std::strcmp(in.variant, "neon") == 0, "%s: variant \"%s\"", what.c_str(), in.variant);
        }
        if (pr == OF_PRECISION_F16 && in.precision != OF_PRECISION_F16)
            CHECK_MSG(contains(in.reason, "F16 requested, this CPU has no FP16 vector arithmetic; runs F32"),
                      "%s: reason \"%s\"", what.c_str(), in.reason);
        std::printf("%s: precision %d, variant \"%s\", reason \"%s\"\n", what.c_str(),
                    static_cast<int>(in.precision), in.variant, in.reason);
        of_destroy(ctx);
    }
    force(nullptr);
}

void test_cuda() {
    force("cuda");
    of_config c = small_cfg(OF_BACKEND_REFERENCE);
    if (!OF_TEST_HAVE_CUDA) {
        expect_refused(c, OF_ERR_BACKEND_UNAVAILABLE, "cuda forced, no CUDA in this build",
                       {"OFLOW_FORCE_BACKEND=cuda", "CUDA"});
    } else {
        // A CUDA build: the device decides; either the CUDA path or a refusal naming the variable.
        of_context* ctx = nullptr;
        of_status s = of_create(&c, &ctx);
        CHECK_MSG(s == OF_OK || s == OF_ERR_BACKEND_UNAVAILABLE, "cuda forced: %s", st(s));
        if (s == OF_OK) {
            CHECK(info_of(ctx).backend == OF_BACKEND_CUDA);
            of_destroy(ctx);
        } else {
            CHECK(ctx == nullptr);
            CHECK(contains(of_last_error(nullptr), "OFLOW_FORCE_BACKEND=cuda"));
        }
    }
    force(nullptr);
}

void test_auto() {
    force(nullptr);
    of_context* plain = create_agreeing(small_cfg(OF_BACKEND_AUTO), "unforced auto");
    if (!plain) return;
    const of_backend auto_backend = info_of(plain).backend;
    of_destroy(plain);
    if (!OF_TEST_HAVE_CUDA)
        CHECK_MSG(auto_backend == (OF_TEST_HAVE_NEON ? OF_BACKEND_NEON : OF_BACKEND_REFERENCE),
                  "auto without CUDA: backend %d", static_cast<int>(auto_backend));

    force("auto");
    of_context* ctx = create_agreeing(small_cfg(OF_BACKEND_REFERENCE), "auto forced");
    if (ctx) {
        const of_info in = info_of(ctx);
        CHECK_MSG(in.backend == auto_backend, "auto forced: backend %d, config AUTO gives %d",
                  static_cast<int>(in.backend), static_cast<int>(auto_backend));
        CHECK_MSG(contains(in.reason, "forced"), "auto forced: reason \"%s\"", in.reason);
        of_destroy(ctx);
    }
    force(nullptr);
}

} // namespace

int main() {
    test_unknown_values();
    test_reference();
    test_neon();
    test_cuda();
    test_auto();
    return finish("force_backend");
}
