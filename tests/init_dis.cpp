// init_dis: config.init OF_INIT_DIS (core/init_dis.hpp), through the C ABI.
//  - What it refuses: an unknown init (OF_ERR_INVALID_ARGUMENT), init dis with algorithm DIS
//    (OF_ERR_UNSUPPORTED). Backend CUDA named is no longer refused for TV-L1, HS, CLG and LK
//    (OF_OK on a device, else only OF_ERR_BACKEND_UNAVAILABLE); backend AUTO creates.
//  - The CUDA plan without a device (of_explain, a board named): the DIS pass's device bytes in
//    the device arena, the buffers init_flow and init_dis (tests/gpu/gpu_init_dis.cpp runs it).
//  - Memory: of_query_memory counts the DIS pass (more bytes than init none); a caller arena of
//    exactly that size creates and processes, every byte written inside it (guards on both
//    sides); one byte short is OF_ERR_ARENA. (No allocation while processing: tests/no_alloc.cpp.)
//  - Small frames: 1x1, 2x2, 8x8, 9x7, a 1-row and a 1-column frame, each on a context planned
//    for them and on one planned larger, give finite flow and OF_OK.
//  - Threads: 1 and 2 threads give the same bits (the DIS pass runs on the context's pool).
//  - Accuracy, TV-L1 and HS under census, on the accuracy matrix's small-motion cell (512x384,
//    core/synth_matrix.hpp), without and under gain-noise: census alone stays coarse-to-fine
//    wrong there (x86-64: TV-L1 1.18 / 1.31 px, HS 1.04 px under gain-noise), census with init
//    dis is below 0.15 px (TV-L1; HS 0.25) and below half of census alone (x86-64: 0.081 /
//    0.086, HS 0.091); on the translation cell (30.5 px) it stays below 0.1 px (x86-64: 0.064,
//    census alone 0.062). The reference path, and the NEON kernels where the build has them
//    within 5 % + 0.02 px of the reference.
#include "tests/check.hpp"
#include "tests/test_util.hpp"

#include "core/synth_matrix.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace oftest;

namespace {

of_config census_dis(of_algorithm a, uint32_t w, uint32_t h) {
    of_config c = algo_config(a, w, h);
    c.robust = OF_ROBUST_CENSUS;
    c.init = OF_INIT_DIS;
    return c;
}

void test_refusals() {
    {
        of_config c = census_dis(OF_ALGO_TVL1, 64, 48);
        set_raw(c.init, 7);
        of_context* ctx = nullptr;
        const of_status s = of_create(&c, &ctx);
        CHECK_MSG(s == OF_ERR_INVALID_ARGUMENT && ctx == nullptr, "init 7: %s", st(s));
        CHECK(std::strstr(of_last_error(nullptr), "init") != nullptr);
        if (ctx) of_destroy(ctx);
    }
    {
        of_config c = algo_config(OF_ALGO_DIS, 64, 48);
        c.init = OF_INIT_DIS;
        of_context* ctx = nullptr;
        const of_status s = of_create(&c, &ctx);
        CHECK_MSG(s == OF_ERR_UNSUPPORTED && ctx == nullptr, "DIS with init dis: %s", st(s));
        if (ctx) of_destroy(ctx);
    }
    for (of_algorithm a : {OF_ALGO_TVL1, OF_ALGO_HS, OF_ALGO_CLG, OF_ALGO_LK}) {
        // Backend CUDA named: no longer refused for init dis (cuda/init_dis_cuda.cu); OF_OK on a
        // device, else (no device, or a build without CUDA) only the backend's own absence. LK
        // under census stays refused by its own rule (no census on LK's CUDA path): level-norm.
        of_config c = census_dis(a, 64, 48);
        if (a == OF_ALGO_LK) c.robust = OF_ROBUST_LEVEL_NORM;
        c.backend = OF_BACKEND_CUDA;
        of_context* ctx = nullptr;
        const of_status s = of_create(&c, &ctx);
        CHECK_MSG((s == OF_OK && ctx != nullptr) || (s == OF_ERR_BACKEND_UNAVAILABLE && ctx == nullptr),
                  "algorithm %d, init dis on backend CUDA: %s (%s)", static_cast<int>(a), st(s), of_last_error(nullptr));
        if (s != OF_OK) CHECK(std::strstr(of_last_error(nullptr), "init dis") == nullptr);
        if (ctx) of_destroy(ctx);
    }
    {
        of_config c = census_dis(OF_ALGO_TVL1, 64, 48);
        c.backend = OF_BACKEND_AUTO; // the CUDA path where AUTO picks it, else a CPU path
        of_context* ctx = nullptr;
        const of_status s = of_create(&c, &ctx);
        CHECK_MSG(s == OF_OK, "init dis on backend AUTO: %s (%s)", st(s), of_last_error(nullptr));
        if (ctx) of_destroy(ctx);
    }
}

// The CUDA plan with init dis, without a device: of_explain with a board named (its GPU assumed)
// plans the DIS pass's device bytes into the device arena (cuda/init_dis_cuda.cu): more device
// and host bytes than without, the buffers init_flow (DIS's flow) and init_dis (the DIS pass's
// arena, last) inside it. Skipped where the build has no CUDA path (nothing planned).
void test_cuda_plan() {
    for (of_algorithm a : {OF_ALGO_TVL1, OF_ALGO_HS, OF_ALGO_LK}) {
        of_config c = census_dis(a, 320, 240);
        if (a == OF_ALGO_LK) c.robust = OF_ROBUST_LEVEL_NORM;
        c.backend = OF_BACKEND_CUDA;
        c.platform = "generic";
        of_config none = c;
        none.init = OF_INIT_NONE;
        of_info with, without;
        std::memset(&with, 0, sizeof with);
        with.struct_size = sizeof with;
        without = with;
        const of_status s = of_explain(&c, &with);
        CHECK_MSG(s == OF_OK, "algorithm %d: of_explain, CUDA + init dis: %s (%s)", static_cast<int>(a), st(s),
                  of_last_error(nullptr));
        CHECK(of_explain(&none, &without) == OF_OK);
        if (s != OF_OK || with.device_bytes == 0) {
            std::printf("algorithm %d: no CUDA plan in this build (%s): skipped\n", static_cast<int>(a), with.reason);
            continue;
        }
        std::printf("algorithm %d 320x240 CUDA plan: device %llu bytes with init dis, %llu without; host %llu / %llu\n",
                    static_cast<int>(a), static_cast<unsigned long long>(with.device_bytes),
                    static_cast<unsigned long long>(without.device_bytes), static_cast<unsigned long long>(with.host_bytes),
                    static_cast<unsigned long long>(without.host_bytes));
        CHECK(with.backend == OF_BACKEND_CUDA);
        CHECK_MSG(with.device_bytes > without.device_bytes + 320u * 240u * 8u, "device bytes %llu, without init %llu",
                  static_cast<unsigned long long>(with.device_bytes), static_cast<unsigned long long>(without.device_bytes));
        CHECK(with.host_bytes > without.host_bytes);
        uint32_t n = 0;
        CHECK(of_explain_buffers(&c, nullptr, 0, &n) == OF_OK);
        std::vector<of_buffer_info> v(n);
        CHECK(of_explain_buffers(&c, v.data(), n, &n) == OF_OK);
        bool flow = false, arena = false;
        uint64_t end = 0;
        for (const of_buffer_info& b : v) {
            if (b.block != OF_BLOCK_DEVICE) continue;
            CHECK_MSG(b.offset + b.bytes <= with.device_bytes, "%s ends at %llu of %llu", b.name,
                      static_cast<unsigned long long>(b.offset + b.bytes), static_cast<unsigned long long>(with.device_bytes));
            flow = flow || std::strcmp(b.name, "init_flow") == 0;
            if (std::strcmp(b.name, "init_dis") == 0) {
                arena = true;
                CHECK(b.offset % 256 == 0 && b.offset + b.bytes == with.device_bytes);
            } else if (b.offset + b.bytes > end) {
                end = b.offset + b.bytes;
            }
        }
        CHECK_MSG(flow && arena, "device buffers init_flow %d, init_dis %d", flow, arena);
    }
}

// A textured pair moved by (1.5, -0.75) px (the matrix's generator would do; this is cheaper).
struct Pair {
    int w, h;
    std::vector<float> a, b;
};

Pair shifted(int w, int h) {
    Pair p{w, h, std::vector<float>(static_cast<std::size_t>(w) * h), std::vector<float>(static_cast<std::size_t>(w) * h)};
    auto tex = [](float x, float y) {
        return 125.0f + 40.0f * std::sin(0.37f * x + 0.21f * y) + 25.0f * std::cos(0.13f * x - 0.41f * y);
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            p.a[i] = tex(static_cast<float>(x), static_cast<float>(y));
            p.b[i] = tex(static_cast<float>(x) - 1.5f, static_cast<float>(y) + 0.75f);
        }
    return p;
}

// Processes p on ctx; returns false on a failed call or a non-finite output.
bool run(of_context* ctx, const Pair& p, std::vector<float>* u, std::vector<float>* v) {
    u->assign(p.a.size(), -1.0f);
    v->assign(p.a.size(), -1.0f);
    const of_image fa = host_f32_image(p.a.data(), static_cast<uint32_t>(p.w), static_cast<uint32_t>(p.h));
    const of_image fb = host_f32_image(p.b.data(), static_cast<uint32_t>(p.w), static_cast<uint32_t>(p.h));
    of_flow f = host_planar_flow(u->data(), v->data(), static_cast<uint32_t>(p.w), static_cast<uint32_t>(p.h));
    const of_status s = of_process(ctx, &fa, &fb, &f);
    if (s != OF_OK) {
        std::printf("of_process %dx%d: %s (%s)\n", p.w, p.h, st(s), of_last_error(ctx));
        return false;
    }
    for (std::size_t i = 0; i < u->size(); ++i)
        if (!std::isfinite((*u)[i]) || !std::isfinite((*v)[i])) return false;
    return true;
}

void test_memory() {
    const of_algorithm algos[] = {OF_ALGO_TVL1, OF_ALGO_HS};
    for (of_algorithm a : algos) {
        of_config c = census_dis(a, 160, 120);
        c.format = OF_PIXEL_F32;
        c.backend = OF_BACKEND_REFERENCE;
        of_config plain = c;
        plain.init = OF_INIT_NONE;
        of_memory m, mp;
        std::memset(&m, 0, sizeof m);
        std::memset(&mp, 0, sizeof mp);
        m.struct_size = mp.struct_size = sizeof m;
        CHECK(of_query_memory(&c, &m) == OF_OK);
        CHECK(of_query_memory(&plain, &mp) == OF_OK);
        std::printf("algorithm %d 160x120: host bytes %zu with init dis, %zu without\n", static_cast<int>(a),
                    m.host_bytes, mp.host_bytes);
        CHECK_MSG(m.host_bytes > mp.host_bytes, "init dis plans %zu bytes, init none %zu", m.host_bytes, mp.host_bytes);

        const std::size_t guard = 256, align = 64;
        const std::size_t total = m.host_bytes + 2 * guard;
        unsigned char* block = static_cast<unsigned char*>(std::aligned_alloc(align, (total + align - 1) / align * align));
        CHECK(block != nullptr);
        if (!block) return;
        std::memset(block, 0xA5, total);
        c.host_arena = block + guard;
        c.host_arena_size = m.host_bytes;
        of_context* ctx = nullptr;
        of_status s = of_create(&c, &ctx);
        CHECK_MSG(s == OF_OK, "exact caller arena: %s (%s)", st(s), of_last_error(nullptr));
        if (ctx) {
            const Pair p = shifted(160, 120), q = shifted(97, 61);
            std::vector<float> u, v;
            CHECK_MSG(run(ctx, p, &u, &v), "caller arena: 160x120");
            CHECK_MSG(run(ctx, q, &u, &v), "caller arena: 97x61");
            of_destroy(ctx);
        }
        bool intact = true;
        for (std::size_t i = 0; i < guard; ++i)
            intact = intact && block[i] == 0xA5 && block[guard + m.host_bytes + i] == 0xA5;
        CHECK_MSG(intact, "algorithm %d: bytes outside the caller arena were written", static_cast<int>(a));
        c.host_arena_size = m.host_bytes - 1;
        ctx = nullptr;
        s = of_create(&c, &ctx);
        CHECK_MSG(s == OF_ERR_ARENA && ctx == nullptr, "arena one byte short: %s", st(s));
        if (ctx) of_destroy(ctx);
        std::free(block);
    }
}

void test_small_frames() {
    const int sizes[][2] = {{1, 1}, {2, 2}, {8, 8}, {9, 7}, {40, 1}, {1, 30}};
    for (const auto& sz : sizes) {
        const Pair p = shifted(sz[0], sz[1]);
        std::vector<float> u, v;
        for (int planned = 0; planned < 2; ++planned) {
            const uint32_t mw = planned ? 64u : static_cast<uint32_t>(sz[0]);
            const uint32_t mh = planned ? 48u : static_cast<uint32_t>(sz[1]);
            of_config c = census_dis(OF_ALGO_TVL1, mw, mh);
            c.format = OF_PIXEL_F32;
            c.threads = 2;
            of_context* ctx = nullptr;
            const of_status s = of_create(&c, &ctx);
            CHECK_MSG(s == OF_OK, "%dx%d planned %ux%u: %s (%s)", sz[0], sz[1], mw, mh, st(s), of_last_error(nullptr));
            if (!ctx) continue;
            CHECK_MSG(run(ctx, p, &u, &v), "%dx%d frame on a %ux%u context", sz[0], sz[1], mw, mh);
            of_destroy(ctx);
        }
    }
}

void test_threads() {
    const Pair p = shifted(200, 150);
    std::vector<float> u[2], v[2];
    for (int t = 0; t < 2; ++t) {
        of_config c = census_dis(OF_ALGO_TVL1, 200, 150);
        c.format = OF_PIXEL_F32;
        c.threads = static_cast<uint32_t>(t + 1);
        of_context* ctx = nullptr;
        CHECK(of_create(&c, &ctx) == OF_OK);
        if (!ctx) return;
        CHECK(run(ctx, p, &u[t], &v[t]));
        of_destroy(ctx);
    }
    CHECK_MSG(std::memcmp(u[0].data(), u[1].data(), u[0].size() * sizeof(float)) == 0 &&
                  std::memcmp(v[0].data(), v[1].data(), v[0].size() * sizeof(float)) == 0,
              "1 and 2 threads differ");
}

double cell_epe(of_algorithm algo, oflow::synth::Motion m, oflow::synth::Photometry ph, of_init init,
                of_backend backend, bool* ran) {
    int w = 0, h = 0;
    oflow::synth::motion_size(m, &w, &h);
    const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    std::vector<float> i0(n), i1(n), gu(n), gv(n), u(n), v(n);
    oflow::synth::generate_cell(m, ph, w, h, 1u, i0.data(), i1.data(), gu.data(), gv.data(), w);
    of_config c = census_dis(algo, static_cast<uint32_t>(w), static_cast<uint32_t>(h));
    c.init = init;
    c.format = OF_PIXEL_F32;
    c.threads = 2;
    c.backend = backend;
    of_context* ctx = nullptr;
    *ran = of_create(&c, &ctx) == OF_OK;
    if (!*ran) return -1.0;
    const of_image fa = host_f32_image(i0.data(), static_cast<uint32_t>(w), static_cast<uint32_t>(h));
    const of_image fb = host_f32_image(i1.data(), static_cast<uint32_t>(w), static_cast<uint32_t>(h));
    of_flow f = host_planar_flow(u.data(), v.data(), static_cast<uint32_t>(w), static_cast<uint32_t>(h));
    CHECK(of_process(ctx, &fa, &fb, &f) == OF_OK);
    of_destroy(ctx);
    double e = 0.0;
    for (std::size_t i = 0; i < n; ++i) e += std::hypot(u[i] - gu[i], v[i] - gv[i]);
    return e / static_cast<double>(n);
}

void test_accuracy() {
    using oflow::synth::Motion;
    using oflow::synth::Photometry;
    struct Case {
        of_algorithm algo;
        Motion m;
        Photometry ph;
        double bound;     // init dis's EPE below this
        bool beats_alone; // and below half of census alone's
    };
    const Case cases[] = {
        {OF_ALGO_TVL1, Motion::Small, Photometry::None, 0.15, true},
        {OF_ALGO_TVL1, Motion::Small, Photometry::GainNoise, 0.15, true},
        {OF_ALGO_HS, Motion::Small, Photometry::GainNoise, 0.25, true},
        {OF_ALGO_TVL1, Motion::Translation, Photometry::GainNoise, 0.1, false},
    };
    for (const Case& k : cases) {
        bool ran = false, ran_alone = false, ran_neon = false;
        const double e = cell_epe(k.algo, k.m, k.ph, OF_INIT_DIS, OF_BACKEND_REFERENCE, &ran);
        const double alone = cell_epe(k.algo, k.m, k.ph, OF_INIT_NONE, OF_BACKEND_REFERENCE, &ran_alone);
        const double neon = cell_epe(k.algo, k.m, k.ph, OF_INIT_DIS, OF_BACKEND_NEON, &ran_neon);
        std::printf("algorithm %d %-12s %-10s census + init dis %.4f (NEON %s%.4f), census alone %.4f\n",
                    static_cast<int>(k.algo), oflow::synth::motion_name(k.m), oflow::synth::photometry_name(k.ph), e,
                    ran_neon ? "" : "not built: ", neon, alone);
        CHECK(ran && ran_alone);
        CHECK_MSG(e >= 0.0 && e < k.bound, "init dis EPE %.4f (bound %.2f)", e, k.bound);
        if (k.beats_alone) CHECK_MSG(e < 0.5 * alone, "init dis %.4f not below half of census alone %.4f", e, alone);
        if (ran_neon)
            CHECK_MSG(std::fabs(neon - e) <= 0.05 * e + 0.02, "NEON %.4f against the reference %.4f", neon, e);
    }
}

} // namespace

int main() {
    test_refusals();
    test_cuda_plan();
    test_memory();
    test_small_frames();
    test_threads();
    test_accuracy();
    return finish("init_dis");
}
