// Counting allocator for the no-allocation tests (no_alloc, arena).
//
// The test executable is linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,
// --wrap=posix_memalign,--wrap=aligned_alloc: every call to those from liboflow.a (and from
// the test itself) lands in alloc_counter.cpp, which counts while armed and forwards to
// __real_*. alloc_counter.cpp also replaces every global operator new / new[] (plain,
// nothrow, aligned, aligned nothrow), so C++ allocations anywhere in the process, also inside
// libstdc++ on behalf of the library (std::thread, std::function, containers), are counted.
// Not seen: calls made inside other shared libraries to their own malloc (e.g. glibc's
// pthread_create), and mmap.
#ifndef OFLOW_TESTS_ALLOC_COUNTER_HPP
#define OFLOW_TESTS_ALLOC_COUNTER_HPP

#include <cstddef>

namespace oftest {
namespace alloc {

/// Reset the counters and start counting (all threads).
void arm();
/// Stop counting; returns the number of allocation calls since arm().
long disarm();
/// Print the first allocation seen while armed (kind, size, caller, symbol if known, and an
/// addr2line command line) to stderr; nothing when there was none.
void print_first(const char* what);
/// True when the counting operator new replacement is compiled in (see alloc_counter.cpp).
bool counts_operator_new();

/// RAII: arm on construction, disarm() on count().
struct Scope {
    Scope() { arm(); }
    long count() { return disarm(); }
};

} // namespace alloc
} // namespace oftest

#endif
