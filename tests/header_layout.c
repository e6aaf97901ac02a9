/* The struct layouts as a C99 compiler sees them, for header_cxx to compare with C++. */
#include "oflow.h"

size_t header_layout_c(size_t* out, size_t cap);

#define PUT(x)                   \
    do {                         \
        if (n < cap) out[n] = (x); \
        ++n;                     \
    } while (0)

size_t header_layout_c(size_t* out, size_t cap) {
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
