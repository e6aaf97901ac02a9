// arena: of_query_memory is the plan of_create uses (zstd-style estimate == use).
//  - over a grid of configs: of_get_info().host_bytes == query; a caller arena of exactly
//    host_bytes works for create + process at the maximum and a smaller size, and the guard
//    bytes around it stay intact (the library used no more than it asked for);
//  - host_bytes - 1, a misaligned arena, or a non-NULL arena of size 0 give OF_ERR_ARENA;
//  - host_arena NULL: the size field is ignored;
//  - with a caller arena the library allocates nothing at all (create, process, destroy),
//    and of_query_memory never allocates (alloc_counter: --wrap'ed malloc family + counting
//    operator new).
#include "alloc_counter.hpp"
#include "test_util.hpp"

#include <cstdlib>
#include <map>
#include <utility>

using namespace oftest;

namespace {

const unsigned char kGuard = 0xC7;
const size_t kGuardBytes = 256;

// A 64-byte-aligned block of `size` bytes with guard bytes on both sides.
struct GuardedArena {
    std::vector<unsigned char> raw;
    unsigned char* base = nullptr;
    size_t size = 0;

    explicit GuardedArena(size_t n, size_t misalign = 0) : raw(n + 2 * kGuardBytes + 128, kGuard), size(n) {
        uintptr_t p = reinterpret_cast<uintptr_t>(raw.data()) + kGuardBytes;
        p = (p + 63) & ~static_cast<uintptr_t>(63);
        base = reinterpret_cast<unsigned char*>(p) + misalign;
    }
    bool guards_intact() const {
        const unsigned char* lo = raw.data();
        const unsigned char* hi = raw.data() + raw.size();
        for (const unsigned char* q = lo; q < base; ++q)
            if (*q != kGuard) return false;
        for (const unsigned char* q = base + size; q < hi; ++q)
            if (*q != kGuard) return false;
        return true;
    }
};

of_memory query(const of_config& c) {
    of_memory m;
    std::memset(&m, 0, sizeof m);
    m.struct_size = sizeof m;
    of_status s = of_query_memory(&c, &m);
    CHECK_MSG(s == OF_OK, "query %ux%u: %s (%s)", c.max_width, c.max_height, st(s), of_last_error(nullptr));
    return m;
}

size_t info_host_bytes(of_context* ctx) {
    of_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (of_get_info(ctx, &info) != OF_OK) return 0;
    return info.host_bytes;
}

// Process a pair of size w x h; true when OK with finite flow.
// Frames are made once per size: the procedural texture costs more than the small solves here.
const FramePair& frames_for(uint32_t w, uint32_t h) {
    static std::map<std::pair<uint32_t, uint32_t>, FramePair> cache;
    auto it = cache.find({w, h});
    if (it == cache.end())
        it = cache.emplace(std::make_pair(w, h),
                           frames_of(synth_pair(oflow::synth::Case::Translation, w, h, 11), OF_PIXEL_U8))
                 .first;
    return it->second;
}

bool process_ok(of_context* ctx, uint32_t w, uint32_t h, const char* what) {
    const FramePair& fp = frames_for(w, h);
    FlowBuf f = make_flow(w, h);
    of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &f.f);
    if (s != OF_OK) {
        std::fprintf(stderr, "%s: process %ux%u: %s (%s)\n", what, w, h, st(s), of_last_error(ctx));
        return false;
    }
    return all_finite(f.extract());
}

void test_grid() {
    // Under qemu (OF_TEST_UNDER_EMULATOR) and in the sanitizer builds (OF_TEST_SMALL_GRID) the
    // largest size is a quarter of the host's: the plan's arithmetic is the same, and 641x479 took
    // 107 s of emulation per path and 104-120 s under ASan + UBSan (the default solves each pair
    // three or four times).
#if defined(OF_TEST_UNDER_EMULATOR) || defined(OF_TEST_SMALL_GRID)
    const uint32_t sizes[][2] = {{1, 1}, {2, 2}, {31, 33}, {160, 120}, {321, 239}};
#else
    const uint32_t sizes[][2] = {{1, 1}, {2, 2}, {31, 33}, {160, 120}, {641, 479}};
#endif
    const uint32_t levels[] = {0, 1, 3};
    const float factors[] = {0.5f, 0.8f};
    const uint32_t threads[] = {1, 2};
    int n = 0;
    std::printf("%-9s %-6s %-6s %-7s %12s\n", "size", "levels", "factor", "threads", "host_bytes");
    for (const auto& sz : sizes)
        for (uint32_t lv : levels)
            for (float fa : factors)
                for (uint32_t th : threads) {
                    of_config c = tvl1_config(sz[0], sz[1]);
                    c.backend = OF_BACKEND_REFERENCE;
                    c.levels = lv;
                    c.scale_factor = fa;
                    c.threads = th;
                    c.warps = 1;
                    c.iterations = 2;
                    char what[96];
                    std::snprintf(what, sizeof what, "%ux%u levels %u factor %.1f threads %u", sz[0],
                                  sz[1], lv, static_cast<double>(fa), th);
                    ++n;
                    of_memory m = query(c);
                    if (m.host_bytes == 0) {
                        CHECK_MSG(false, "%s: host_bytes 0", what);
                        continue;
                    }
                    if (th == 1 && fa == 0.5f)
                        std::printf("%4ux%-4u %-6u %-6.1f %-7u %12zu\n", sz[0], sz[1], lv,
                                    static_cast<double>(fa), th, m.host_bytes);
                    CHECK_MSG(m.device_bytes == 0 || expected_backend(c.backend) == OF_BACKEND_CUDA,
                              "%s: device_bytes %zu on a CPU backend", what, m.device_bytes);
                    // Query is pure: same answer twice, and with arena fields set.
                    of_memory m2 = query(c);
                    CHECK_MSG(m2.host_bytes == m.host_bytes, "%s: query not repeatable", what);

                    // Library-allocated context.
                    of_context* ctx = create_or_report(c, what);
                    CHECK_MSG(ctx != nullptr, "%s: create (library arena)", what);
                    if (ctx) {
                        size_t ib = info_host_bytes(ctx);
                        CHECK_MSG(ib == m.host_bytes, "%s: info.host_bytes %zu != query %zu", what, ib,
                                  m.host_bytes);
                        CHECK_MSG(process_ok(ctx, sz[0], sz[1], what), "%s: process (library arena)", what);
                        of_destroy(ctx);
                    }

                    // Caller arena of exactly host_bytes, guarded on both sides.
                    GuardedArena ga(m.host_bytes);
                    c.host_arena = ga.base;
                    c.host_arena_size = m.host_bytes;
                    of_memory m3 = query(c);
                    CHECK_MSG(m3.host_bytes == m.host_bytes, "%s: query differs with a caller arena (%zu vs %zu)",
                              what, m3.host_bytes, m.host_bytes);
                    ctx = create_or_report(c, what);
                    CHECK_MSG(ctx != nullptr, "%s: create with an exact caller arena", what);
                    if (ctx) {
                        size_t ib = info_host_bytes(ctx);
                        CHECK_MSG(ib == m.host_bytes, "%s: caller arena: info.host_bytes %zu != query %zu",
                                  what, ib, m.host_bytes);
                        CHECK_MSG(process_ok(ctx, sz[0], sz[1], what), "%s: process at max (caller arena)",
                                  what);
                        const uint32_t w2 = sz[0] > 3 ? sz[0] * 2 / 3 : sz[0];
                        const uint32_t h2 = sz[1] > 3 ? sz[1] / 2 : sz[1];
                        CHECK_MSG(process_ok(ctx, w2, h2, what), "%s: process %ux%u (caller arena)", what,
                                  w2, h2);
                        CHECK_MSG(ga.guards_intact(), "%s: bytes outside the caller arena were written", what);
                        of_destroy(ctx);
                    }
                    CHECK_MSG(ga.guards_intact(), "%s: guard bytes changed by destroy", what);

                    // One byte short.
                    c.host_arena_size = m.host_bytes - 1;
                    of_context* bad = reinterpret_cast<of_context*>(&ga);
                    of_status s = of_create(&c, &bad);
                    CHECK_MSG(s == OF_ERR_ARENA, "%s: arena host_bytes-1: got %s", what, st(s));
                    CHECK(bad == nullptr);
                    if (s == OF_OK && bad) of_destroy(bad);
                }
    std::printf("arena grid: %d configs\n", n);
}

void test_arena_errors() {
    of_config c = tvl1_config(96, 64);
    c.backend = OF_BACKEND_REFERENCE;
    c.iterations = 5;
    of_memory m = query(c);
    if (m.host_bytes == 0) return;
    CHECK(m.host_alignment == 64);

    const size_t misalign[] = {1, 8, 16, 32, 63};
    for (size_t mis : misalign) {
        GuardedArena ga(m.host_bytes + 64, mis);
        c.host_arena = ga.base;
        c.host_arena_size = m.host_bytes + 64 - mis; // big enough: only the alignment is wrong
        of_context* ctx = reinterpret_cast<of_context*>(&ga);
        of_status s = of_create(&c, &ctx);
        CHECK_MSG(s == OF_ERR_ARENA, "arena misaligned by %zu: got %s", mis, st(s));
        CHECK(ctx == nullptr);
        CHECK(of_last_error(nullptr)[0] != '\0');
        if (s == OF_OK && ctx) of_destroy(ctx);
    }
    {
        GuardedArena ga(m.host_bytes);
        c.host_arena = ga.base;
        c.host_arena_size = 0;
        of_context* ctx = nullptr;
        of_status s = of_create(&c, &ctx);
        CHECK_MSG(s == OF_ERR_ARENA, "arena size 0: got %s", st(s));
        CHECK(ctx == nullptr);
        CHECK(of_last_error(nullptr)[0] != '\0');
        if (s == OF_OK && ctx) of_destroy(ctx);
        c.host_arena_size = 64;
        s = of_create(&c, &ctx);
        CHECK_MSG(s == OF_ERR_ARENA, "arena size 64: got %s", st(s));
        if (s == OF_OK && ctx) of_destroy(ctx);
    }
    {
        // Larger than needed is fine.
        GuardedArena ga(m.host_bytes + 4096);
        c.host_arena = ga.base;
        c.host_arena_size = m.host_bytes + 4096;
        of_context* ctx = create_or_report(c, "arena larger than needed");
        CHECK(ctx != nullptr);
        if (ctx) {
            CHECK(process_ok(ctx, 96, 64, "arena larger than needed"));
            of_destroy(ctx);
        }
        CHECK(ga.guards_intact());
    }
    {
        // host_arena NULL: the size is ignored.
        c.host_arena = nullptr;
        c.host_arena_size = 5;
        of_context* ctx = create_or_report(c, "host_arena NULL, size 5");
        CHECK_MSG(ctx != nullptr, "host_arena NULL with a nonzero size must be accepted");
        if (ctx) of_destroy(ctx);
    }
}

// With a caller arena nothing allocates, from of_create to of_destroy; of_query_memory never.
void test_no_alloc_with_caller_arena() {
    const uint32_t threads[] = {1, 2};
    for (uint32_t th : threads) {
        of_config c = tvl1_config(160, 120);
        c.backend = OF_BACKEND_REFERENCE;
        c.threads = th;
        c.iterations = 10;
        c.warps = 2;
        of_memory m;
        std::memset(&m, 0, sizeof m);
        m.struct_size = sizeof m;
        GuardedArena* ga = nullptr;
        Pair p = synth_pair(oflow::synth::Case::SmoothField, 160, 120, 4);
        FramePair fp = frames_of(p, OF_PIXEL_U8);
        FlowBuf f = make_flow(160, 120);
        {
            alloc::Scope scope;
            of_status s = of_query_memory(&c, &m);
            long n = scope.count();
            CHECK(s == OF_OK);
            CHECK_MSG(n == 0, "of_query_memory allocated %ld times (threads %u)", n, th);
            if (n) alloc::print_first("of_query_memory");
        }
        {
            of_config bad = c;
            bad.tvl1.tau = 1.0f;
            alloc::Scope scope;
            of_status s = of_query_memory(&bad, &m);
            long n = scope.count();
            CHECK(s == OF_ERR_INVALID_ARGUMENT);
            CHECK_MSG(n == 0, "failing of_query_memory allocated %ld times", n);
            if (n) alloc::print_first("of_query_memory (failing)");
        }
        ga = new GuardedArena(m.host_bytes);
        c.host_arena = ga->base;
        c.host_arena_size = m.host_bytes;
        of_context* ctx = nullptr;
        of_status s1, s2;
        long n_create, n_process, n_destroy;
        {
            alloc::Scope scope;
            s1 = of_create(&c, &ctx);
            n_create = scope.count();
        }
        if (n_create) alloc::print_first("of_create with a caller arena");
        {
            alloc::Scope scope;
            s2 = s1 == OF_OK ? of_process(ctx, &fp.prev.img, &fp.next.img, &f.f) : s1;
            n_process = scope.count();
        }
        if (n_process) alloc::print_first("of_process with a caller arena");
        {
            alloc::Scope scope;
            of_destroy(ctx);
            n_destroy = scope.count();
        }
        if (n_destroy) alloc::print_first("of_destroy with a caller arena");
        CHECK_MSG(s1 == OF_OK, "create with a caller arena (threads %u): %s (%s)", th, st(s1),
                  of_last_error(nullptr));
        CHECK_MSG(s2 == OF_OK, "process with a caller arena (threads %u): %s", th, st(s2));
        CHECK_MSG(n_create == 0, "caller arena, threads %u: of_create allocated %ld times", th, n_create);
        CHECK_MSG(n_process == 0, "caller arena, threads %u: of_process allocated %ld times", th, n_process);
        CHECK_MSG(n_destroy == 0, "caller arena, threads %u: of_destroy allocated %ld times", th, n_destroy);
        CHECK(ga->guards_intact());
        delete ga;
    }
}

// The counter itself works (otherwise zero counts above prove nothing).
void* volatile g_sink; // keeps the compiler from eliding the probe allocations

void test_counter_sanity() {
    alloc::Scope scope;
    g_sink = std::malloc(100);
    std::free(g_sink);
    long n = scope.count();
    CHECK_MSG(n == 1, "alloc counter saw %ld mallocs, expected 1", n);
    if (alloc::counts_operator_new()) {
        alloc::Scope s2;
        int* q = new int(3);
        g_sink = q;
        delete static_cast<int*>(g_sink);
        long k = s2.count();
        CHECK_MSG(k == 1, "alloc counter saw %ld operator new, expected 1", k);
    }
}

} // namespace

int main() {
    test_counter_sanity();
    test_grid();
    test_arena_errors();
    test_no_alloc_with_caller_arena();
    return oftest::finish("arena");
}
