// Uses the installed headers (C API + the C++ wrapper) and library on a tiny frame pair.
#include <oflow.h>
#include <oflow.hpp>

#include <cstdio>
#include <vector>

int main() {
    const uint32_t w = 48, h = 40;
    std::vector<unsigned char> a(w * h), b(w * h);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            a[y * w + x] = static_cast<unsigned char>((x * 7 + y * 13) % 251);
            b[y * w + x] = static_cast<unsigned char>(((x + 1) * 7 + y * 13) % 251);
        }
    of_config cfg;
    if (of_config_init(&cfg, OF_ALGO_TVL1) != OF_OK) return 1;
    cfg.max_width = w;
    cfg.max_height = h;
    cfg.backend = OF_BACKEND_REFERENCE;
    cfg.iterations = 20;
    cfg.warps = 2;
    oflow::Context ctx;
    if (ctx.create(cfg) != OF_OK) {
        std::fprintf(stderr, "create: %s\n", ctx.last_error());
        return 1;
    }
    std::vector<float> u(w * h), v(w * h);
    of_image i0 = oflow::host_image(a.data(), w, h, w, OF_PIXEL_U8);
    of_image i1 = oflow::host_image(b.data(), w, h, w, OF_PIXEL_U8);
    of_flow f = oflow::host_flow(u.data(), v.data(), w, h, w * sizeof(float));
    if (ctx.process(i0, i1, f) != OF_OK) {
        std::fprintf(stderr, "process: %s\n", ctx.last_error());
        return 1;
    }
    std::printf("consumer ok: version 0x%06x\n", static_cast<unsigned>(of_version()));
    return of_version() == OF_VERSION ? 0 : 1;
}
