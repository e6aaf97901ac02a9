// of_explain_buffers (api/oflow.h): every buffer of a plan, with its bytes.
//  1. the contract: NULL count, NULL out with a capacity, a bad config (of_explain's status), the
//     count with capacity 0, a short capacity fills only that many entries;
//  2. the CPU path (reference, 640x480, TV-L1, HS, LK, 1 and 4 threads): every host row lies in
//     the host arena of_query_memory reports, rows do not overlap, and the rows plus the 64-byte
//     alignment padding make up the whole arena;
//  3. the CUDA path as of_explain plans it for a named board (its GPU assumed: no device is
//     needed), when this build has one: the same for the device arena and the staging, where a
//     row that reuses another's bytes says so ("reuses") and lies inside the block, and the other
//     rows do not overlap; and the target, 1920x1080 TV-L1 F16 at automatic levels in at
//     most 100 MB of device memory (stream mode keeps no extra device buffer), F32 in less than
//     the F32 plan before the reuse (208.9 MB).
#include "test_util.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace oftest;

namespace {

std::vector<of_buffer_info> buffers(const of_config& c, of_status* st) {
    uint32_t n = 0;
    *st = of_explain_buffers(&c, nullptr, 0, &n);
    if (*st != OF_OK) return {};
    std::vector<of_buffer_info> v(n);
    uint32_t m = 0;
    *st = of_explain_buffers(&c, v.data(), n, &m);
    CHECK_MSG(m == n, "count %u then %u", n, m);
    return v;
}

bool reuses(const of_buffer_info& b) { return std::strstr(b.holds, "reuses") != nullptr; }

// Rows of one block: inside [0, total), the non-reusing ones disjoint and covering the block up
// to alignment padding (at most `align` bytes before each row and at the end).
void check_block(const std::vector<of_buffer_info>& v, of_buffer_block block, uint64_t total, uint64_t align,
                 const char* what) {
    std::vector<const of_buffer_info*> own;
    for (const of_buffer_info& b : v) {
        if (b.block != block) continue;
        CHECK_MSG(b.name && *b.name && b.holds && *b.holds, "%s: a row without a name or a text", what);
        CHECK_MSG(b.bytes > 0 && b.offset + b.bytes <= total, "%s: %s [%llu, +%llu) outside the block of %llu bytes", what,
                  b.name, static_cast<unsigned long long>(b.offset), static_cast<unsigned long long>(b.bytes),
                  static_cast<unsigned long long>(total));
        if (!reuses(b)) own.push_back(&b);
    }
    uint64_t sum = 0;
    for (std::size_t i = 0; i < own.size(); ++i) {
        sum += own[i]->bytes;
        for (std::size_t j = i + 1; j < own.size(); ++j) {
            const bool apart = own[i]->offset + own[i]->bytes <= own[j]->offset || own[j]->offset + own[j]->bytes <= own[i]->offset;
            CHECK_MSG(apart, "%s: %s and %s overlap", what, own[i]->name, own[j]->name);
        }
    }
    CHECK_MSG(sum <= total && total - sum <= align * (own.size() + 1), "%s: rows hold %llu of %llu bytes", what,
              static_cast<unsigned long long>(sum), static_cast<unsigned long long>(total));
    std::printf("  %-40s %-7s %3zu rows, %llu of %llu bytes\n", what,
                block == OF_BLOCK_DEVICE ? "device" : block == OF_BLOCK_STAGING ? "staging" : "host", own.size(),
                static_cast<unsigned long long>(sum), static_cast<unsigned long long>(total));
}

uint64_t staging_bytes(const std::vector<of_buffer_info>& v) {
    for (const of_buffer_info& b : v)
        if (b.block == OF_BLOCK_HOST && std::strcmp(b.name, "staging") == 0) return b.bytes;
    return 0;
}

void check_contract() {
    of_config c;
    of_config_init(&c, OF_ALGO_TVL1);
    c.max_width = 64;
    c.max_height = 48;
    c.backend = OF_BACKEND_REFERENCE;
    uint32_t n = 0;
    of_buffer_info one[2];
    CHECK(of_explain_buffers(&c, one, 2, nullptr) == OF_ERR_NULL_POINTER);
    CHECK(of_explain_buffers(&c, nullptr, 1, &n) == OF_ERR_NULL_POINTER);
    CHECK(of_explain_buffers(nullptr, nullptr, 0, &n) == OF_ERR_NULL_POINTER);
    of_config bad = c;
    bad.max_width = 0;
    of_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    const of_status want = of_explain(&bad, &info);
    CHECK_MSG(want != OF_OK && of_explain_buffers(&bad, nullptr, 0, &n) == want, "a bad config: of_explain's status");
    CHECK(of_explain_buffers(&c, nullptr, 0, &n) == OF_OK && n > 2);
    of_buffer_info few[3];
    std::memset(few, 0xab, sizeof few);
    uint32_t m = 0;
    CHECK(of_explain_buffers(&c, few, 2, &m) == OF_OK && m == n);
    unsigned char tail[sizeof(of_buffer_info)];
    std::memset(tail, 0xab, sizeof tail);
    CHECK_MSG(std::memcmp(&few[2], tail, sizeof tail) == 0, "an entry past the capacity was written");
    CHECK(few[0].name && std::strcmp(few[0].name, "context") == 0 && few[0].offset == 0);
}

void check_cpu() {
    const of_algorithm algs[] = {OF_ALGO_TVL1, OF_ALGO_HS, OF_ALGO_LK, OF_ALGO_DIS};
    for (of_algorithm a : algs)
        for (uint32_t threads : {1u, 4u}) {
            of_config c;
            of_config_init(&c, a);
            c.max_width = 640;
            c.max_height = 480;
            c.threads = threads;
            c.backend = OF_BACKEND_REFERENCE;
            of_memory mem;
            std::memset(&mem, 0, sizeof mem);
            mem.struct_size = sizeof mem;
            CHECK(of_query_memory(&c, &mem) == OF_OK);
            of_status st;
            const std::vector<of_buffer_info> v = buffers(c, &st);
            CHECK_MSG(st == OF_OK, "of_explain_buffers: %s", of_last_error(nullptr));
            char what[64];
            std::snprintf(what, sizeof what, "reference alg %d, %u thread(s)", static_cast<int>(a), threads);
            check_block(v, OF_BLOCK_HOST, mem.host_bytes, 64, what);
            for (const of_buffer_info& b : v) CHECK_MSG(b.block == OF_BLOCK_HOST, "%s: %s not in the host arena", what, b.name);
        }
}

void check_cuda() {
    struct Case {
        of_algorithm alg;
        of_precision prec;
        uint32_t w, h, levels;
        int warm;
    } cases[] = {{OF_ALGO_TVL1, OF_PRECISION_F16, 1920, 1080, 0, 0}, {OF_ALGO_TVL1, OF_PRECISION_F16, 1920, 1080, 0, 1},
                 {OF_ALGO_TVL1, OF_PRECISION_F32, 1920, 1080, 0, 0}, {OF_ALGO_TVL1, OF_PRECISION_F32, 640, 480, 3, 0},
                 {OF_ALGO_HS, OF_PRECISION_F32, 640, 480, 0, 0},       {OF_ALGO_LK, OF_PRECISION_F16, 640, 480, 0, 0}};
    for (const Case& k : cases) {
        of_config c;
        of_config_init(&c, k.alg);
        c.max_width = k.w;
        c.max_height = k.h;
        c.levels = k.levels;
        c.precision = k.prec;
        c.warm_start = k.warm;
        c.platform = "generic"; // its GPU assumed where this machine has none
        of_info info;
        std::memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        if (of_explain(&c, &info) != OF_OK || info.backend != OF_BACKEND_CUDA || info.device_bytes == 0) {
            std::printf("  alg %d %ux%u: no CUDA plan in this build (%s): skipped\n", static_cast<int>(k.alg), k.w, k.h,
                        info.reason);
            continue;
        }
        of_status st;
        const std::vector<of_buffer_info> v = buffers(c, &st);
        CHECK_MSG(st == OF_OK, "of_explain_buffers: %s", of_last_error(nullptr));
        char what[96];
        std::snprintf(what, sizeof what, "CUDA alg %d %s %ux%u levels %u warm %d", static_cast<int>(k.alg),
                      k.prec == OF_PRECISION_F16 ? "F16" : "F32", k.w, k.h, info.levels, k.warm);
        check_block(v, OF_BLOCK_HOST, info.host_bytes, 64, what);
        check_block(v, OF_BLOCK_STAGING, staging_bytes(v), 256, what);
        check_block(v, OF_BLOCK_DEVICE, info.device_bytes, 256, what);
        if (k.alg == OF_ALGO_TVL1 && k.w == 1920 && k.levels == 0) {
            // The memory figures of one solve (robust local-norm: README, docs/jetson-resources.md);
            // robust pick, the default, adds its frame-sized planes (api/oflow.h OF_ROBUST_PICK).
            const of_config one = one_solve(c);
            of_info oi;
            std::memset(&oi, 0, sizeof oi);
            oi.struct_size = sizeof oi;
            CHECK(of_explain(&one, &oi) == OF_OK);
            if (k.prec == OF_PRECISION_F16 && !k.warm)
                CHECK_MSG(oi.device_bytes <= 100000000ull, "%s: %llu device bytes > 100 MB", what,
                          static_cast<unsigned long long>(oi.device_bytes));
            if (k.prec == OF_PRECISION_F32)
                CHECK_MSG(oi.device_bytes < 208869888ull, "%s: %llu device bytes, not below the 208869888 before reuse",
                          what, static_cast<unsigned long long>(oi.device_bytes));
            CHECK_MSG(c.robust != OF_ROBUST_PICK || info.device_bytes > oi.device_bytes,
                      "%s: pick %llu device bytes, one solve %llu", what, static_cast<unsigned long long>(info.device_bytes),
                      static_cast<unsigned long long>(oi.device_bytes));
            std::printf("  %-40s device %llu bytes (%.1f MB; one solve, local-norm: %.1f MB), stream keeps %llu\n", what,
                        static_cast<unsigned long long>(info.device_bytes), static_cast<double>(info.device_bytes) / 1e6,
                        static_cast<double>(oi.device_bytes) / 1e6, static_cast<unsigned long long>(info.stream_device_bytes));
        }
    }
}

} // namespace

int main() {
    check_contract();
    check_cpu();
    check_cuda();
    return finish("explain_buffers");
}
