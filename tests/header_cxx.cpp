// header_cxx: oflow.h alone, compiled as C++ with -pedantic -Wall -Wextra -Werror (and an
// old language level, see tests/CMakeLists.txt); the struct layouts must match what a C99
// compiler produced for header_layout.c, since firmware mixes both. Exit 0 pass, 1 fail.
#include "oflow.h"

#include <cstddef>
#include <cstdio>

extern "C" size_t header_layout_c(size_t* out, size_t cap);

#define PUT(x)                     \
    do {                           \
        if (n < cap) out[n] = (x); \
        ++n;                       \
    } while (0)

static size_t header_layout_cxx(size_t* out, size_t cap) {
    size_t n = 0;
    PUT(sizeof(of_config));
    PUT(offsetof(of_config, tvl1));
    PUT(offsetof(of_config, hs));
    PUT(offsetof(of_config, lk));
    PUT(offsetof(of_config, host_arena));
    PUT(offsetof(of_config, platform));
    PUT(offsetof(of_config, fused_depth));
    PUT(offsetof(of_config, tuning_path));
    PUT(sizeof(of_memory));
    PUT(offsetof(of_memory, device_alignment));
    PUT(sizeof(of_image));
    PUT(offsetof(of_image, stride));
    PUT(offsetof(of_image, data));
    PUT(sizeof(of_flow));
    PUT(offsetof(of_flow, stride));
    PUT(offsetof(of_flow, v));
    PUT(offsetof(of_flow, valid_format));
    PUT(offsetof(of_flow, valid_stride));
    PUT(offsetof(of_flow, valid));
    PUT(offsetof(of_flow, format));
    PUT(sizeof(of_info));
    PUT(offsetof(of_info, host_bytes));
    PUT(offsetof(of_info, last_iterations));
    PUT(offsetof(of_info, variant));
    PUT(offsetof(of_info, reason));
    PUT(offsetof(of_info, board));
    PUT(offsetof(of_info, board_match));
    PUT(offsetof(of_info, board_reason));
    PUT(offsetof(of_info, iterations));
    PUT(offsetof(of_info, predicted_ms));
    PUT(offsetof(of_info, block_width));
    PUT(offsetof(of_info, level_width));
    PUT(offsetof(of_info, level_wanted));
    PUT(offsetof(of_info, level_backend));
    PUT(offsetof(of_info, level_iterations));
    PUT(sizeof(of_status));
    PUT(sizeof(of_algorithm));
    PUT(sizeof(of_valid_format));
    PUT(sizeof(of_flow_format));
    return n;
}

int main() {
    size_t c[64], x[64];
    const size_t nc = header_layout_c(c, 64), nx = header_layout_cxx(x, 64);
    int bad = 0;
    if (nc != nx) {
        std::fprintf(stderr, "layout lists differ in length: C %zu, C++ %zu\n", nc, nx);
        bad = 1;
    }
    for (size_t i = 0; i < nc && i < nx && i < 64; ++i) {
        if (c[i] != x[i]) {
            std::fprintf(stderr, "layout entry %zu differs: C %zu, C++ %zu\n", i, c[i], x[i]);
            bad = 1;
        }
    }
    if (of_version() != static_cast<uint32_t>(OF_VERSION)) {
        std::fprintf(stderr, "of_version() 0x%x != OF_VERSION 0x%x\n",
                     static_cast<unsigned>(of_version()), static_cast<unsigned>(OF_VERSION));
        bad = 1;
    }
    std::printf("header_cxx: %zu layout entries, %s\n", nc, bad ? "FAILED" : "ok");
    return bad;
}
