/* header_c99: oflow.h alone, compiled as strict C99 (-std=c99 -pedantic -Wall -Wextra -Werror,
 * see tests/CMakeLists.txt), used from C the way camera firmware uses it. Exit 0 pass, 1 fail. */
#include "oflow.h"

#include <stdio.h>
#include <string.h>

/* Enum values are part of the ABI and never change. */
typedef char of_check_ok[(OF_OK == 0) ? 1 : -1];
typedef char of_check_null[(OF_ERR_NULL_POINTER == 1) ? 1 : -1];
typedef char of_check_internal[(OF_ERR_INTERNAL == 14) ? 1 : -1];
typedef char of_check_algo[(OF_ALGO_TVL1 == 1 && OF_ALGO_LK == 4 && OF_ALGO_DIS == 5) ? 1 : -1];
typedef char of_check_fmt[(OF_PIXEL_U8 == 1 && OF_PIXEL_F32 == 3) ? 1 : -1];
typedef char of_check_backend[(OF_BACKEND_AUTO == 0 && OF_BACKEND_CUDA == 3) ? 1 : -1];
typedef char of_check_valid[(OF_VALID_NONE == 0 && OF_VALID_MASK_U8 == 1 && OF_VALID_CONFIDENCE_F32 == 2 &&
                             sizeof(of_valid_format) == 4) ? 1 : -1];
/* The validity fields were appended after v (append-only structs). */
typedef char of_check_flow_tail[(offsetof(of_flow, valid_format) > offsetof(of_flow, v) &&
                                 offsetof(of_flow, valid) > offsetof(of_flow, valid_stride)) ? 1 : -1];
typedef char of_check_flow_format[(OF_FLOW_FORMAT_F32 == 0 && OF_FLOW_FORMAT_F16 == 1 && OF_FLOW_FORMAT_S10_5 == 2 &&
                                   sizeof(of_flow_format) == 4) ? 1 : -1];
/* The format field was appended after the validity fields, as the struct's last field. */
typedef char of_check_flow_format_tail[(offsetof(of_flow, format) > offsetof(of_flow, valid) &&
                                        offsetof(of_flow, format) + sizeof(of_flow_format) <= sizeof(of_flow) &&
                                        sizeof(of_flow) - offsetof(of_flow, format) <= 8) ? 1 : -1];
typedef char of_check_first[(offsetof(of_config, struct_size) == 0 &&
                             offsetof(of_image, struct_size) == 0 &&
                             offsetof(of_flow, struct_size) == 0 &&
                             offsetof(of_memory, struct_size) == 0 &&
                             offsetof(of_info, struct_size) == 0) ? 1 : -1];

static int failures = 0;
#define C_CHECK(cond)                                                                 \
    do {                                                                              \
        if (!(cond)) {                                                                \
            ++failures;                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                             \
    } while (0)

int main(void) {
    int s;
    of_config cfg;
    of_context* ctx = NULL;
    unsigned char f0[16 * 12], f1[16 * 12];
    float u[16 * 12], v[16 * 12];
    of_image a, b;
    of_flow flow;
    of_status rc;
    int x, y;

    C_CHECK(of_version() == (uint32_t)OF_VERSION);
    for (s = 0; s <= 14; ++s) {
        const char* str = of_status_string((of_status)s);
        C_CHECK(str != NULL && str[0] != '\0');
    }
    C_CHECK(of_status_string((of_status)99) != NULL);
    of_destroy(NULL);

    /* create / process / destroy from C: a 16x12 pair shifted by one pixel. */
    memset(&cfg, 0, sizeof cfg);
    C_CHECK(of_config_init(&cfg, OF_ALGO_TVL1) == OF_OK);
    C_CHECK(cfg.struct_size == sizeof(of_config));
    cfg.max_width = 16;
    cfg.max_height = 12;
    cfg.backend = OF_BACKEND_REFERENCE;
    cfg.iterations = 20;
    {
        of_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        C_CHECK(of_explain(&cfg, &info) == OF_OK);
        C_CHECK(info.backend != OF_BACKEND_AUTO && info.level_width[0] == 16 && info.board[0] != '\0');
    }
    rc = of_create(&cfg, &ctx);
    C_CHECK(rc == OF_OK);
    if (rc != OF_OK) {
        fprintf(stderr, "of_create: %s: %s\n", of_status_string(rc), of_last_error(NULL));
        return 1;
    }
    for (y = 0; y < 12; ++y)
        for (x = 0; x < 16; ++x) {
            f0[y * 16 + x] = (unsigned char)((x * 37 + y * 91 + (x * y) % 7 * 13) & 0xff);
            f1[y * 16 + x] = (unsigned char)(((x - 1) * 37 + y * 91 + ((x - 1) * y) % 7 * 13) & 0xff);
        }
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.format = OF_PIXEL_U8;
    a.memory = OF_MEMORY_HOST;
    a.width = 16;
    a.height = 12;
    a.stride = 16;
    a.data = f0;
    b = a;
    b.data = f1;
    memset(&flow, 0, sizeof flow);
    flow.struct_size = sizeof flow;
    flow.layout = OF_FLOW_PLANAR;
    flow.memory = OF_MEMORY_HOST;
    flow.width = 16;
    flow.height = 12;
    flow.stride = 16 * sizeof(float);
    flow.u = u;
    flow.v = v;
    rc = of_process(ctx, &a, &b, &flow);
    C_CHECK(rc == OF_OK);
    if (rc != OF_OK) fprintf(stderr, "of_process: %s: %s\n", of_status_string(rc), of_last_error(ctx));
    /* The same frames as S10.5 (int16_t, 1/32 px) into a C buffer: within 1/64 px of the floats. */
    {
        int16_t q[2][16 * 12];
        of_flow qf = flow;
        int i, far = 0;
        qf.format = OF_FLOW_FORMAT_S10_5;
        qf.stride = 16 * sizeof(int16_t);
        qf.u = (float*)(void*)q[0];
        qf.v = (float*)(void*)q[1];
        rc = of_process(ctx, &a, &b, &qf);
        C_CHECK(rc == OF_OK);
        for (i = 0; i < 16 * 12; ++i) {
            const float du = (float)q[0][i] / 32.0f - u[i], dv = (float)q[1][i] / 32.0f - v[i];
            if (du > 1.0f / 64 || du < -1.0f / 64 || dv > 1.0f / 64 || dv < -1.0f / 64) ++far;
        }
        C_CHECK(far == 0);
    }
    rc = of_process(NULL, &a, &b, &flow);
    C_CHECK(rc == OF_ERR_NULL_POINTER);
    C_CHECK(of_last_error(NULL)[0] != '\0');
    of_destroy(ctx);

    printf("header_c99: %s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
