/*
 * firmware_sample.c - liboflow the way camera firmware uses it.
 *
 * Everything is static: the frame buffers, the flow planes and the library's host arena,
 * whose size is checked with of_query_memory and handed over in the config, so the
 * library allocates no memory at all. One context is created at start-up and a frame loop
 * computes the flow between consecutive frames of a pattern moving by a known
 * (1.5, 0.5) px per frame; each frame's mean flow must be within 0.25 px of it.
 * Integer arithmetic only for the pattern (no libm). Exit status 0 on success.
 */
#include "oflow.h"

#include <stdio.h>
#include <string.h>

#define WIDTH 160
#define HEIGHT 120
#define FRAMES 5
#define STEP_X2 3 /* motion per frame in half pixels: 1.5 px in x ... */
#define STEP_Y2 1 /* ... and 0.5 px in y */
#define MARGIN 32 /* texture margin in half pixels, >= FRAMES * STEP */
#define TEX_W (2 * WIDTH + 2 * MARGIN)
#define TEX_H (2 * HEIGHT + 2 * MARGIN)
#define BORDER 8 /* pixels left out of the mean: new content enters there */
#define ARENA_BYTES (8u << 20)

static uint16_t texture[TEX_H][TEX_W]; /* the scene, sampled every half pixel */
static uint16_t scratch[TEX_H][TEX_W];
static uint8_t frame[2][HEIGHT][WIDTH]; /* previous and current camera frame */
static float flow_u[HEIGHT][WIDTH];
static float flow_v[HEIGHT][WIDTH];
static unsigned char arena_store[ARENA_BYTES + 64]; /* aligned to 64 at start-up */

static uint32_t hash2(uint32_t x, uint32_t y) {
    uint32_t h = x * 0x8da6b343u ^ y * 0xd8163841u;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    h *= 0x297a2d39u;
    return h ^ (h >> 15);
}

/* One box-blur pass of radius r along x (dx = 1) or y (dx = 0), edges clamped. */
static void box_blur(uint16_t (*src)[TEX_W], uint16_t (*dst)[TEX_W], int r, int along_x) {
    int x, y, k;
    for (y = 0; y < TEX_H; ++y) {
        for (x = 0; x < TEX_W; ++x) {
            uint32_t sum = 0;
            for (k = -r; k <= r; ++k) {
                int xx = along_x ? x + k : x, yy = along_x ? y : y + k;
                xx = xx < 0 ? 0 : (xx >= TEX_W ? TEX_W - 1 : xx);
                yy = yy < 0 ? 0 : (yy >= TEX_H ? TEX_H - 1 : yy);
                sum += src[yy][xx];
            }
            dst[y][x] = (uint16_t)(sum / (uint32_t)(2 * r + 1));
        }
    }
}

/* Hashed noise, smoothed by three box passes each way, stretched to 16..239. */
static void make_texture(void) {
    int x, y, pass;
    uint32_t lo = 0xffffu, hi = 0;
    for (y = 0; y < TEX_H; ++y)
        for (x = 0; x < TEX_W; ++x)
            texture[y][x] = (uint16_t)(hash2((uint32_t)x, (uint32_t)y) >> 20); /* 0..4095 */
    for (pass = 0; pass < 3; ++pass) {
        box_blur(texture, scratch, 4, 1);
        box_blur(scratch, texture, 4, 0);
    }
    for (y = 0; y < TEX_H; ++y)
        for (x = 0; x < TEX_W; ++x) {
            lo = texture[y][x] < lo ? texture[y][x] : lo;
            hi = texture[y][x] > hi ? texture[y][x] : hi;
        }
    for (y = 0; y < TEX_H; ++y)
        for (x = 0; x < TEX_W; ++x)
            texture[y][x] = (uint16_t)(16u + (texture[y][x] - lo) * 223u / (hi - lo + 1u));
}

/* The camera: frame n shows the scene moved by n * (1.5, 0.5) px. */
static void capture(int n, uint8_t (*dst)[WIDTH]) {
    int x, y;
    for (y = 0; y < HEIGHT; ++y)
        for (x = 0; x < WIDTH; ++x)
            dst[y][x] = (uint8_t)texture[MARGIN + 2 * y - STEP_Y2 * n][MARGIN + 2 * x - STEP_X2 * n];
}

static of_image image_of(uint8_t (*pixels)[WIDTH]) {
    of_image img;
    memset(&img, 0, sizeof img);
    img.struct_size = sizeof img;
    img.format = OF_PIXEL_U8;
    img.memory = OF_MEMORY_HOST;
    img.width = WIDTH;
    img.height = HEIGHT;
    img.stride = WIDTH;
    img.data = pixels;
    return img;
}

int main(void) {
    of_config cfg;
    of_memory need;
    of_context* ctx = NULL;
    of_info info;
    of_flow flow;
    of_status st;
    unsigned char* arena = arena_store + (64u - (uintptr_t)arena_store % 64u) % 64u;
    const double truth_u = STEP_X2 / 2.0, truth_v = STEP_Y2 / 2.0;
    int n, x, y, failed = 0;

    st = of_config_init(&cfg, OF_ALGO_TVL1);
    if (st != OF_OK) {
        printf("of_config_init: %s\n", of_status_string(st));
        return 1;
    }
    cfg.max_width = WIDTH;
    cfg.max_height = HEIGHT;
    cfg.format = OF_PIXEL_U8;
    cfg.levels = 3;
    cfg.warps = 3;
    cfg.iterations = 50;

    memset(&need, 0, sizeof need);
    need.struct_size = sizeof need;
    st = of_query_memory(&cfg, &need);
    if (st != OF_OK) {
        printf("of_query_memory: %s: %s\n", of_status_string(st), of_last_error(NULL));
        return 1;
    }
    if (need.host_bytes > ARENA_BYTES || need.host_alignment > 64) {
        printf("arena: need %lu bytes aligned %lu, have %lu aligned 64\n",
               (unsigned long)need.host_bytes, (unsigned long)need.host_alignment,
               (unsigned long)ARENA_BYTES);
        return 1;
    }
    cfg.host_arena = arena;
    cfg.host_arena_size = ARENA_BYTES;
    /* A CUDA build may choose the GPU; its device arena (need.device_bytes) would be passed
     * the same way in cfg.device_arena. Without one the library allocates it at create. */

    st = of_create(&cfg, &ctx);
    if (st != OF_OK) {
        printf("of_create: %s: %s\n", of_status_string(st), of_last_error(NULL));
        return 1;
    }
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (of_get_info(ctx, &info) == OF_OK)
        printf("oflow %u.%u.%u: %s backend, variant %s, host arena %lu of %lu bytes\n",
               (unsigned)(of_version() >> 16), (unsigned)((of_version() >> 8) & 0xff),
               (unsigned)(of_version() & 0xff),
               info.backend == OF_BACKEND_CUDA ? "cuda"
               : info.backend == OF_BACKEND_NEON ? "neon" : "reference",
               info.variant, (unsigned long)need.host_bytes, (unsigned long)ARENA_BYTES);

    make_texture();
    memset(&flow, 0, sizeof flow);
    flow.struct_size = sizeof flow;
    flow.layout = OF_FLOW_PLANAR;
    flow.memory = OF_MEMORY_HOST;
    flow.width = WIDTH;
    flow.height = HEIGHT;
    flow.stride = WIDTH * sizeof(float);
    flow.u = &flow_u[0][0];
    flow.v = &flow_v[0][0];
    flow.valid_format = OF_VALID_NONE; /* no validity plane (OF_VALID_MASK_U8 would say where the flow is wrong) */
    flow.valid_stride = 0;
    flow.valid = NULL;
    flow.format = OF_FLOW_FORMAT_F32; /* float elements (the default) */

    capture(0, frame[0]);
    for (n = 1; n <= FRAMES && !failed; ++n) {
        of_image prev = image_of(frame[(n - 1) & 1]), next = image_of(frame[n & 1]);
        double su = 0.0, sv = 0.0, mu, mv;
        int count = 0, ok;
        capture(n, frame[n & 1]);
        st = of_process(ctx, &prev, &next, &flow);
        if (st != OF_OK) {
            printf("frame %d: of_process: %s: %s\n", n, of_status_string(st), of_last_error(ctx));
            failed = 1;
            break;
        }
        for (y = BORDER; y < HEIGHT - BORDER; ++y)
            for (x = BORDER; x < WIDTH - BORDER; ++x) {
                su += flow_u[y][x];
                sv += flow_v[y][x];
                ++count;
            }
        mu = su / count;
        mv = sv / count;
        ok = mu > truth_u - 0.25 && mu < truth_u + 0.25 && mv > truth_v - 0.25 &&
             mv < truth_v + 0.25;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        of_get_info(ctx, &info);
        printf("frame %d: mean flow (%.3f, %.3f), truth (%.3f, %.3f), %lu iterations: %s\n", n,
               mu, mv, truth_u, truth_v, (unsigned long)info.last_iterations,
               ok ? "ok" : "FAILED");
        failed = !ok;
    }
    of_destroy(ctx);
    return failed;
}
