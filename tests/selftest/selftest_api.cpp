// of_selftest through the C ABI: bad arguments give a status and a message, a quick run on
// this machine passes every case (warnings allowed) with sane names and counts, a report
// without a case array counts only, and a broken kernel (the test hook of core/selftest.hpp)
// makes the self-test fail and name that kernel's case.
// Under OFLOW_FORCE_BACKEND=reference or neon the runs cover that CPU path alone.
#include "check.hpp"
#include "test_util.hpp"
#include "core/selftest.hpp"
#include "oflow.h"

#include <cstring>
#include <vector>

namespace {

of_selftest_report report_for(std::vector<of_selftest_case>* store) {
    of_selftest_report r;
    std::memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    r.cases = store->data();
    r.case_capacity = static_cast<uint32_t>(store->size());
    return r;
}

void test_bad_arguments() {
    of_selftest_options o;
    of_selftest_options_init(&o);
    std::vector<of_selftest_case> store(8);
    of_selftest_report r = report_for(&store);
    CHECK(of_selftest(nullptr, &r) == OF_ERR_NULL_POINTER && of_last_error(nullptr)[0] != '\0');
    CHECK(of_selftest(&o, nullptr) == OF_ERR_NULL_POINTER);
    of_selftest_options bad = o;
    bad.struct_size = 3;
    CHECK(of_selftest(&bad, &r) == OF_ERR_STRUCT_SIZE);
    bad = o;
    bad.full = 2;
    CHECK(of_selftest(&bad, &r) == OF_ERR_INVALID_ARGUMENT);
    bad = o;
    const int raw = 99;
    std::memcpy(&bad.backend, &raw, sizeof raw);
    CHECK(of_selftest(&bad, &r) == OF_ERR_INVALID_ARGUMENT);
    of_selftest_report nocases = r;
    nocases.cases = nullptr;
    CHECK(of_selftest(&o, &nocases) == OF_ERR_NULL_POINTER);
    of_selftest_report badr = r;
    badr.struct_size = 1;
    CHECK(of_selftest(&o, &badr) == OF_ERR_STRUCT_SIZE);
}

// The self-test ignores OFLOW_FORCE_BACKEND (it tests every path on purpose); a suite that
// forces a CPU path (the emulated aarch64 suites run once per path) asks for that path alone,
// the other path having its own run.
void narrow_to_forced_path(of_selftest_options* o) {
    const of_backend b = oftest::expected_backend(OF_BACKEND_AUTO);
    if (b == OF_BACKEND_REFERENCE || b == OF_BACKEND_NEON) o->backend = b;
}

void test_quick_run() {
    of_selftest_options o;
    of_selftest_options_init(&o);
    narrow_to_forced_path(&o);
    std::vector<of_selftest_case> store(256);
    of_selftest_report r = report_for(&store);
    CHECK(of_selftest(&o, &r) == OF_OK);
    std::printf("%s\n", r.summary);
    CHECK(r.case_count >= 15 && r.case_count <= r.case_capacity); // 36 on the x86-64 reference path
    CHECK(r.passed + r.warned + r.failed + r.skipped == r.case_count);
    CHECK_MSG(r.failed == 0, "%u cases failed", r.failed);
    CHECK(std::strncmp(r.summary, "PASS", 4) == 0);
    bool kernel = false, accuracy = false, arena = false, determinism = false, timing = false;
    for (uint32_t i = 0; i < r.case_count; ++i) {
        const of_selftest_case& c = r.cases[i];
        if (c.result == OF_CHECK_FAIL) std::printf("  FAIL %s: %s\n", c.name, c.message);
        CHECK(c.name[0] != '\0' && c.message[0] != '\0' && c.seconds >= 0.0);
        kernel |= !std::strcmp(c.group, "kernel");
        accuracy |= !std::strcmp(c.group, "accuracy");
        arena |= !std::strcmp(c.group, "arena");
        determinism |= !std::strcmp(c.group, "determinism");
        timing |= !std::strcmp(c.group, "timing");
    }
    CHECK(kernel && accuracy && arena && determinism && timing);

    // No case array: the same cases are counted, none stored.
    of_selftest_report count_only;
    std::memset(&count_only, 0, sizeof count_only);
    count_only.struct_size = sizeof count_only;
    CHECK(of_selftest(&o, &count_only) == OF_OK);
    CHECK(count_only.case_count == r.case_count);
}

void test_broken_kernel_is_named() {
    oflow::selftest_hooks::break_kernel("tvl1_calc_p");
    of_selftest_options o;
    of_selftest_options_init(&o);
    narrow_to_forced_path(&o);
    std::vector<of_selftest_case> store(256);
    of_selftest_report r = report_for(&store);
    const of_status s = of_selftest(&o, &r);
    oflow::selftest_hooks::break_kernel(nullptr);
    CHECK(s == OF_OK);
    CHECK(r.failed > 0 && std::strncmp(r.summary, "FAIL", 4) == 0);
    bool named = false;
    for (uint32_t i = 0; i < r.case_count && i < r.case_capacity; ++i) {
        const of_selftest_case& c = r.cases[i];
        const std::size_t n = std::strlen(c.name);
        const char* suffix = "/kernel/tvl1_calc_p";
        if (n > std::strlen(suffix) && !std::strcmp(c.name + n - std::strlen(suffix), suffix) && c.result == OF_CHECK_FAIL) {
            named = true;
            std::printf("broken kernel reported: %s: %s\n", c.name, c.message);
        }
    }
    CHECK_MSG(named, "no FAIL case named .../kernel/tvl1_calc_p");
}

} // namespace

int main() {
    test_bad_arguments();
    test_quick_run();
    test_broken_kernel_is_named();
    return oftest::finish("selftest_api");
}
