// The self-test's expected timings: the board table (platform/tuning.hpp) that serves this
// machine, or the one named by of_selftest_options.platform / OFLOW_PLATFORM, read for the
// TV-L1 row of a precision and the path (CPU or GPU) a backend runs on.
//
// A table's CPU row is the NEON kernels' figure where the build has them and the reference
// path's otherwise; ref_ns_per_it_px, where the row states it, is the reference path's beside
// NEON's (platform/tuning.hpp PathCost, platform::cpu_cost). A row that states it was written for
// both paths: the reference is timed against ref_*, NEON against the row's own figure, on any
// table. A row that states none reads as the shipped tables are written: the Jetson tables'
// CPU figure is NEON's, generic's the x86-64 reference path's; so the reference backend is timed
// only against generic and only on x86-64, NEON only against a board table (an aarch64 machine
// that is no Jetson, qemu included, resolves to generic and skips). Generic's CPU figures were
// measured on x86-64: elsewhere its CPU rows are never timed. Sanitizer builds skip timing
// altogether (their speed means nothing).
#include "core/selftest.hpp"

#include "platform/detect.hpp"
#include "platform/tuning.hpp"

#if OF_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#endif

#include <cstdio>
#include <cstring>


namespace oflow {
namespace selftest {

bool expected_timing(const char* platform, of_backend b, of_precision p, Expectation* out, char* why, std::size_t why_len) {
#if defined(OF_SELFTEST_SANITIZED)
    (void)platform;
    (void)b;
    (void)p;
    (void)out;
    std::snprintf(why, why_len, "sanitizer build: timings are not meaningful");
    return false;
#else
    int cc = 0, sms = 0;
#if OF_HAVE_CUDA
    char tmp[160];
    if (cuda::available(tmp, sizeof tmp)) (void)cuda::device_caps(&cc, &sms);
#endif
    platform::DetectedPlatform d;
    platform::detect_platform(nullptr, cc / 10, cc % 10, sms, &d);
    char buf[kErrorCapacity] = {0};
    const ErrorSink err{buf};
    platform::Resolution r;
    if (platform::resolve_table(platform::builtin_tables(), platform, platform::platform_from_environment(), d, &r, err) != OF_OK) {
        std::snprintf(why, why_len, "%s", buf);
        return false;
    }
    const bool generic = !std::strcmp(r.table->name, "generic");
#if !defined(__x86_64__)
    if (generic && b != OF_BACKEND_CUDA) {
        std::snprintf(why, why_len, "no board table for this CPU (generic's CPU figure was measured on x86-64)");
        return false;
    }
#endif
    const platform::TuningRow* row = platform::find_row(*r.table, OF_ALGO_TVL1, p);
    if (!row) {
        std::snprintf(why, why_len, "%s has no tvl1 %s row", r.table->file, p == OF_PRECISION_F16 ? "f16" : "f32");
        return false;
    }
    const bool both = platform::states_reference(row->path[platform::kPathCpu]); // NEON's and the reference's
    if (b == OF_BACKEND_REFERENCE && !generic && !both) {
        std::snprintf(why, why_len, "the %s table's CPU figure is for NEON, not the reference path (no ref_ns_per_it_px)",
                      r.table->name);
        return false;
    }
    if (b == OF_BACKEND_NEON && generic && !both) {
        std::snprintf(why, why_len, "no board table for this CPU (generic's CPU figure is the x86 reference path)");
        return false;
    }
    const platform::PathCost c = b == OF_BACKEND_CUDA ? row->path[platform::kPathGpu]
                                                      : platform::cpu_cost(row->path[platform::kPathCpu],
                                                                           b == OF_BACKEND_REFERENCE);
    out->ns_per_iter_px = c.ns_per_it_px;
    out->warn_factor = c.warn;
    out->fail_factor = c.fail;
    std::snprintf(out->board, sizeof out->board, "%s", r.table->name);
    std::snprintf(out->source, sizeof out->source, "%s:%d", r.table->file, c.line);
    return true;
#endif
}

} // namespace selftest
} // namespace oflow
