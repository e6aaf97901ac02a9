// oflow-selftest: does this build work on this board, fast enough? Runs of_selftest and
// prints a table (one line per case, then the summary), optionally a JUnit XML report
// (tinyxml2) and a JSON report.
//
// Usage: oflow-selftest [--quick | --full] [--backend auto|reference|neon|cuda]
//                       [--platform NAME] [--threads N] [--junit FILE] [--json FILE] [--quiet]
// Exit: 0 every case passed (warnings allowed), 1 a case failed, 2 it could not run (bad
// arguments, the backend is unavailable, a report file could not be written).
#include "oflow.h"

#include "selftest_report.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

int usage(const char* msg) {
    std::fprintf(stderr, "oflow-selftest: %s\n", msg);
    std::fprintf(stderr, "usage: oflow-selftest [--quick|--full] [--backend auto|reference|neon|cuda] [--platform NAME]\n"
                         "                      [--threads N] [--junit FILE] [--json FILE] [--quiet]\n");
    return 2;
}

bool parse_backend(const char* s, of_backend* b) {
    if (!std::strcmp(s, "auto")) *b = OF_BACKEND_AUTO;
    else if (!std::strcmp(s, "reference")) *b = OF_BACKEND_REFERENCE;
    else if (!std::strcmp(s, "neon")) *b = OF_BACKEND_NEON;
    else if (!std::strcmp(s, "cuda")) *b = OF_BACKEND_CUDA;
    else return false;
    return true;
}

} // namespace

int main(int argc, char** argv) {
    of_selftest_options opt;
    of_selftest_options_init(&opt);
    const char* junit = nullptr;
    const char* json = nullptr;
    bool quiet = false;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const bool has = i + 1 < argc;
        if (!std::strcmp(a, "--quick")) {
            opt.full = 0;
        } else if (!std::strcmp(a, "--full")) {
            opt.full = 1;
        } else if (!std::strcmp(a, "--backend") && has) {
            if (!parse_backend(argv[++i], &opt.backend)) return usage("--backend takes auto, reference, neon or cuda");
        } else if (!std::strcmp(a, "--platform") && has) {
            opt.platform = argv[++i];
        } else if (!std::strcmp(a, "--threads") && has) {
            char* end = nullptr;
            const long n = std::strtol(argv[++i], &end, 10);
            if (!end || *end || n < 1 || n > 64) return usage("--threads takes 1..64");
            opt.threads = static_cast<uint32_t>(n);
        } else if (!std::strcmp(a, "--junit") && has) {
            junit = argv[++i];
        } else if (!std::strcmp(a, "--json") && has) {
            json = argv[++i];
        } else if (!std::strcmp(a, "--quiet")) {
            quiet = true;
        } else {
            char msg[160];
            std::snprintf(msg, sizeof msg, "unknown or incomplete argument '%s'", a);
            return usage(msg);
        }
    }

    std::vector<of_selftest_case> cases(512);
    of_selftest_report rep;
    std::memset(&rep, 0, sizeof rep);
    rep.struct_size = sizeof rep;
    rep.cases = cases.data();
    rep.case_capacity = static_cast<uint32_t>(cases.size());
    const of_status s = of_selftest(&opt, &rep);
    if (s != OF_OK) {
        std::fprintf(stderr, "oflow-selftest: could not run: %s: %s\n", of_status_string(s), of_last_error(nullptr));
        return 2;
    }
    const uint32_t stored = rep.case_count < rep.case_capacity ? rep.case_count : rep.case_capacity;
    if (!quiet) {
        print_table(stdout, rep, stored);
    } else {
        for (uint32_t i = 0; i < stored; ++i) // quiet: only what did not pass
            if (rep.cases[i].result == OF_CHECK_FAIL || rep.cases[i].result == OF_CHECK_WARN)
                std::printf("%s %s: %s\n", result_name(rep.cases[i].result), rep.cases[i].name, rep.cases[i].message);
    }
    std::printf("%s\n", rep.summary);
    if (junit) {
        char why[256];
        if (!write_junit(junit, rep, stored, why, sizeof why)) {
            std::fprintf(stderr, "oflow-selftest: %s\n", why);
            return 2;
        }
    }
    if (json) {
        char why[256];
        if (!write_json(json, rep, stored, why, sizeof why)) {
            std::fprintf(stderr, "oflow-selftest: %s\n", why);
            return 2;
        }
    }
    return rep.failed ? 1 : 0;
}
