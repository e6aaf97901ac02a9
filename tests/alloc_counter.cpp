// Counting allocator, see alloc_counter.hpp.
//
// Sanitizers: under ASan (gcc defines __SANITIZE_ADDRESS__, clang has
// __has_feature(address_sanitizer)) the wrappers still work: __real_malloc resolves to ASan's
// interceptor. The operator new replacements also work there (the executable's definitions
// interpose on libasan's), but they allocate with malloc/free, so ASan's new/delete mismatch
// checks are off in these two binaries only. Set OFTEST_NO_NEW_REPLACEMENT to build without
// them if a toolchain rejects the replacement (then only the C allocation functions are
// counted, and counts_operator_new() says so).
#include "alloc_counter.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <new>
#include <unistd.h>

extern "C" {
void* __real_malloc(size_t n);
void* __real_calloc(size_t n, size_t m);
void* __real_realloc(void* p, size_t n);
int __real_posix_memalign(void** p, size_t a, size_t n);
void* __real_aligned_alloc(size_t a, size_t n);
}

namespace {

std::atomic<bool> g_armed{false};
std::atomic<long> g_count{0};
std::atomic<bool> g_have_first{false};
const char* g_first_kind = nullptr;
size_t g_first_size = 0;
void* g_first_caller = nullptr;

inline void note(const char* kind, size_t n, void* caller) {
    if (!g_armed.load(std::memory_order_relaxed)) return;
    g_count.fetch_add(1, std::memory_order_relaxed);
    bool expected = false;
    if (g_have_first.compare_exchange_strong(expected, true)) {
        g_first_kind = kind;
        g_first_size = n;
        g_first_caller = caller;
    }
}

} // namespace

extern "C" {
void* __wrap_malloc(size_t n) {
    note("malloc", n, __builtin_return_address(0));
    return __real_malloc(n);
}
void* __wrap_calloc(size_t n, size_t m) {
    note("calloc", n * m, __builtin_return_address(0));
    return __real_calloc(n, m);
}
void* __wrap_realloc(void* p, size_t n) {
    note("realloc", n, __builtin_return_address(0));
    return __real_realloc(p, n);
}
int __wrap_posix_memalign(void** p, size_t a, size_t n) {
    note("posix_memalign", n, __builtin_return_address(0));
    return __real_posix_memalign(p, a, n);
}
void* __wrap_aligned_alloc(size_t a, size_t n) {
    note("aligned_alloc", n, __builtin_return_address(0));
    return __real_aligned_alloc(a, n);
}
}

namespace oftest {
namespace alloc {

void arm() {
    g_count.store(0);
    g_have_first.store(false);
    g_first_kind = nullptr;
    g_first_size = 0;
    g_first_caller = nullptr;
    g_armed.store(true);
}

long disarm() {
    g_armed.store(false);
    return g_count.load();
}

void print_first(const char* what) {
    if (!g_have_first.load()) return;
    Dl_info info;
    const char* sym = "?";
    const char* obj = "?";
    uintptr_t off = 0;
    if (g_first_caller && dladdr(g_first_caller, &info) != 0) {
        if (info.dli_sname) sym = info.dli_sname;
        if (info.dli_fname) obj = info.dli_fname;
        off = reinterpret_cast<uintptr_t>(g_first_caller) - reinterpret_cast<uintptr_t>(info.dli_fbase);
    }
    std::fprintf(stderr,
                 "%s: first allocation while armed: %s(%zu) called from %p (%s in %s)\n"
                 "  find the caller with: addr2line -f -C -e %s 0x%zx\n",
                 what, g_first_kind ? g_first_kind : "?", g_first_size, g_first_caller, sym, obj,
                 obj, static_cast<size_t>(off));
}

bool counts_operator_new() {
#ifdef OFTEST_NO_NEW_REPLACEMENT
    return false;
#else
    return true;
#endif
}

} // namespace alloc
} // namespace oftest

#ifndef OFTEST_NO_NEW_REPLACEMENT
// ---- global operator new / delete replacements ------------------------------------------------
namespace {
void* counted_new(size_t n, void* caller, const char* kind) {
    note(kind, n, caller);
    return __real_malloc(n ? n : 1);
}
void* counted_new_aligned(size_t n, std::align_val_t al, void* caller, const char* kind) {
    note(kind, n, caller);
    size_t a = static_cast<size_t>(al);
    if (a < sizeof(void*)) a = sizeof(void*);
    void* p = nullptr;
    if (__real_posix_memalign(&p, a, n ? n : 1) != 0) return nullptr;
    return p;
}
} // namespace

void* operator new(size_t n) {
    void* p = counted_new(n, __builtin_return_address(0), "operator new");
    if (!p) throw std::bad_alloc();
    return p;
}
void* operator new[](size_t n) {
    void* p = counted_new(n, __builtin_return_address(0), "operator new[]");
    if (!p) throw std::bad_alloc();
    return p;
}
void* operator new(size_t n, const std::nothrow_t&) noexcept {
    return counted_new(n, __builtin_return_address(0), "operator new(nothrow)");
}
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
    return counted_new(n, __builtin_return_address(0), "operator new[](nothrow)");
}
void* operator new(size_t n, std::align_val_t a) {
    void* p = counted_new_aligned(n, a, __builtin_return_address(0), "operator new(aligned)");
    if (!p) throw std::bad_alloc();
    return p;
}
void* operator new[](size_t n, std::align_val_t a) {
    void* p = counted_new_aligned(n, a, __builtin_return_address(0), "operator new[](aligned)");
    if (!p) throw std::bad_alloc();
    return p;
}
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return counted_new_aligned(n, a, __builtin_return_address(0), "operator new(aligned, nothrow)");
}
void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return counted_new_aligned(n, a, __builtin_return_address(0), "operator new[](aligned, nothrow)");
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
#endif
