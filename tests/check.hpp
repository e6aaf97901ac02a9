// Minimal test harness shared by every test binary: no dependency beyond the C++ library.
// A test binary returns 0 when all checks pass, 1 when any failed, 77 when skipped (CTest's
// SKIP_RETURN_CODE). CHECK prints the failing expression with file:line and goes on.
#ifndef OFLOW_TESTS_CHECK_HPP
#define OFLOW_TESTS_CHECK_HPP

#include <cstdio>

namespace oftest {
inline int& failures() {
    static int n = 0;
    return n;
}
inline int& checks() {
    static int n = 0;
    return n;
}
inline int finish(const char* name) {
    std::printf("%s: %d checks, %d failed\n", name, checks(), failures());
    return failures() == 0 ? 0 : 1;
}
} // namespace oftest

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        ++oftest::checks();                                                                 \
        if (!(cond)) {                                                                      \
            ++oftest::failures();                                                           \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);  \
        }                                                                                   \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                \
    do {                                                                                    \
        ++oftest::checks();                                                                 \
        if (!(cond)) {                                                                      \
            ++oftest::failures();                                                           \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);  \
            std::fprintf(stderr, __VA_ARGS__);                                              \
            std::fputc('\n', stderr);                                                       \
        }                                                                                   \
    } while (0)

#endif
