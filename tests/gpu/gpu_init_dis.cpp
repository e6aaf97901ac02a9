// gpu_init_dis: config.init OF_INIT_DIS on the CUDA path (cuda/init_dis_cuda.cu, cuda/init_fuse_cuda.cu)
// against the reference path. 77 without a device.
//  - kernels: the two fusion kernels (test hook cuda/cuda_bench.hpp hooks::init_fuse) on random
//    planes (a 97x61 level, DIS's flow at 193x122 as for level 1 and at 97x61 as for level 0,
//    pitches wider than the rows), F32 and F16 pyramid planes, against core/ref/init_fuse_ref.cpp's
//    init_area / init_cost / init_box_rows / init_choose in sequence (the F16 planes widened), and a
//    one-pixel level: the cost difference and the fused flow bit for bit (the kernels perform the
//    reference's IEEE operations in its order); the count of pixels DIS won is printed and, beyond
//    the one-pixel case, must be neither 0 nor all;
//  - frames through the ABI on the accuracy matrix's small-motion cell with gain-noise and its
//    translation cell (core/synth_matrix.hpp): TV-L1, HS and CLG under robust census and LK under
//    robust level-norm (LK's census has no CUDA path), each with init dis, the CUDA flow's mean EPE
//    within 5 % + 0.02 px of the reference path's on the same pair (the first cell only under
//    OFLOW_GPU_SMALL=1); of_info says backend CUDA; on the small-motion cell TV-L1's CUDA EPE with
//    init dis is below half of CUDA census alone's (the DIS pass and the fusion ran);
//  - the same context: device-memory output equals host output bit for bit, a stream pair
//    (of_push_frame) equals of_process bit for bit, and a frame smaller than planned (no graph,
//    fewer levels for the DIS pass) equals the flow of a context planned at its size;
//  - memory: of_query_memory's device bytes with init dis exceed those without by more than the
//    DIS flow plane, a caller device arena of exactly that many bytes works, one byte less is
//    OF_ERR_ARENA.
#include "gpu_hooks.hpp"

#include "core/flow_format.hpp"
#include "core/init_dis.hpp"
#include "core/ref/kernels_ref.hpp"
#include "core/synth_matrix.hpp"
#include "tests/host_plane.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace gputest;

namespace {

using Img = oftest::HostPlane;
using oflow::Plane;

// A deterministic generator (the same planes on every machine).
struct Lcg {
    uint32_t s;
    float next() { // [0, 1)
        s = s * 1664525u + 1013904223u;
        return static_cast<float>(s >> 8) / 16777216.0f;
    }
    float in(float lo, float hi) { return lo + (hi - lo) * next(); }
};

// A host plane into a device plane of `pitch` elements of `elem` bytes a row (elements of rows
// beyond w are filled with NaN bytes: nothing may read them).
struct DevPlane {
    DevBuf buf;
    int pitch;
};
DevPlane upload(const void* host, int w, int h, std::size_t elem, int pitch) {
    DevPlane d{DevBuf(static_cast<std::size_t>(pitch) * h * elem), pitch};
    if (!d.buf.p) return d;
    GPU_CHECK_CUDA(cudaMemset(d.buf.p, 0xFF, d.buf.n));
    GPU_CHECK_CUDA(cudaMemcpy2D(d.buf.p, static_cast<std::size_t>(pitch) * elem, host, static_cast<std::size_t>(w) * elem,
                                static_cast<std::size_t>(w) * elem, static_cast<std::size_t>(h), cudaMemcpyHostToDevice));
    return d;
}
std::vector<float> download(const DevPlane& d, int w, int h, std::size_t elem) {
    std::vector<float> out(static_cast<std::size_t>(w) * h * (elem / 4));
    GPU_CHECK_CUDA(cudaMemcpy2D(out.data(), static_cast<std::size_t>(w) * elem, d.buf.p,
                                static_cast<std::size_t>(d.pitch) * elem, static_cast<std::size_t>(w) * elem,
                                static_cast<std::size_t>(h), cudaMemcpyDeviceToHost));
    return out;
}

// Pairs (a, b) interleaved.
std::vector<float> interleave(const Img& a, const Img& b) {
    std::vector<float> p(a.v.size() * 2);
    for (std::size_t i = 0; i < a.v.size(); ++i) {
        p[2 * i] = a.v[i];
        p[2 * i + 1] = b.v[i];
    }
    return p;
}

// One kernels case: a w x h level, DIS's flow dw x dh; F16 pyramid planes when half.
void kernels_case(int w, int h, int dw, int dh, bool half, uint32_t seed) {
    char what[96];
    std::snprintf(what, sizeof what, "fusion %dx%d from %dx%d %s", w, h, dw, dh, half ? "F16" : "F32");
    Lcg g{seed};
    Img i0(w, h), i1(w, h), u1(w, h), u2(w, h), s1(dw, dh), s2(dw, dh);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const float fx = static_cast<float>(x), fy = static_cast<float>(y);
            i0.at(x, y) = 128.0f + 60.0f * std::sin(0.4f * fx + 0.3f * fy) + g.in(-20.0f, 20.0f);
            i1.at(x, y) = 128.0f + 60.0f * std::sin(0.4f * (fx - 1.5f) + 0.3f * (fy + 0.5f)) + g.in(-20.0f, 20.0f);
            u1.at(x, y) = g.in(-3.0f, 3.0f);
            u2.at(x, y) = g.in(-3.0f, 3.0f);
        }
    const float sx = static_cast<float>(dw) / static_cast<float>(w), sy = static_cast<float>(dh) / static_cast<float>(h);
    for (int y = 0; y < dh; ++y)
        for (int x = 0; x < dw; ++x) { // near the true shift in half of the frame, random elsewhere
            const bool good = x < dw / 2;
            s1.at(x, y) = good ? sx * (1.5f + g.in(-0.2f, 0.2f)) : g.in(-8.0f, 8.0f);
            s2.at(x, y) = good ? sy * (-0.5f + g.in(-0.2f, 0.2f)) : g.in(-8.0f, 8.0f);
        }
    // F16 pyramids: the kernels read the halves, the reference their exact widening.
    std::vector<uint16_t> h0(i0.v.size()), h1(i1.v.size());
    if (half)
        for (std::size_t k = 0; k < i0.v.size(); ++k) {
            h0[k] = oflow::flow_to_f16(i0.v[k]);
            h1[k] = oflow::flow_to_f16(i1.v[k]);
            i0.v[k] = oflow::f16_to_float(h0[k]);
            i1.v[k] = oflow::f16_to_float(h1[k]);
        }
    const int pitch = w + 13, dpitch = dw + 7;
    const DevPlane d0 = half ? upload(h0.data(), w, h, 2, pitch) : upload(i0.v.data(), w, h, 4, pitch);
    const DevPlane d1 = half ? upload(h1.data(), w, h, 2, pitch) : upload(i1.v.data(), w, h, 4, pitch);
    const std::vector<float> uu = interleave(u1, u2), ss = interleave(s1, s2);
    const DevPlane du = upload(uu.data(), w, h, 8, pitch);
    const DevPlane ds = upload(ss.data(), dw, dh, 8, dpitch);
    const DevPlane diff = upload(std::vector<float>(static_cast<std::size_t>(w) * h, 0.0f).data(), w, h, 4, pitch);
    if (!d0.buf.p || !d1.buf.p || !du.buf.p || !ds.buf.p || !diff.buf.p) {
        CHECK_MSG(false, "%s: device buffers", what);
        return;
    }
    oflow::cuda::hooks::InitFuseRun r;
    r.i0 = d0.buf.p;
    r.i1 = d1.buf.p;
    r.half = half;
    r.u = static_cast<float*>(du.buf.p);
    r.diff = static_cast<float*>(diff.buf.p);
    r.dis = static_cast<const float*>(ds.buf.p);
    r.w = w;
    r.h = h;
    r.pitch = pitch;
    r.dis_w = dw;
    r.dis_h = dh;
    r.dis_pitch = dpitch;
    char buf[oflow::kErrorCapacity] = {0};
    const of_status s = oflow::cuda::hooks::init_fuse(r, oflow::ErrorSink{buf});
    CHECK_MSG(s == OF_OK, "%s: %s (%s)", what, st(s), buf);
    if (s != OF_OK) return;

    // The reference, as core/init_dis.cpp init_fuse_cpu runs it.
    Img a1(w, h), a2(w, h), rdiff(w, h), rows(w, h);
    const Img before1 = u1, before2 = u2;
    const float mx = static_cast<float>(w) / static_cast<float>(dw), my = static_cast<float>(h) / static_cast<float>(dh);
    oflow::init_area_ref(s1.plane(), a1.plane(), mx, 0, h);
    oflow::init_area_ref(s2.plane(), a2.plane(), my, 0, h);
    oflow::init_cost_ref(i0.plane(), i1.plane(), u1.plane(), u2.plane(), a1.plane(), a2.plane(), rdiff.plane(), 0, h);
    oflow::init_box_rows_ref(rdiff.plane(), rows.plane(), oflow::kInitFuseRadius, 0, h);
    oflow::init_choose_ref(rows.plane(), a1.plane(), a2.plane(), u1.plane(), u2.plane(), oflow::kInitFuseRadius, 0, h);
    std::size_t won = 0;
    for (std::size_t k = 0; k < u1.v.size(); ++k)
        won += std::memcmp(&u1.v[k], &before1.v[k], 4) != 0 || std::memcmp(&u2.v[k], &before2.v[k], 4) != 0;
    std::printf("%s: DIS's flow won at %zu of %zu pixels\n", what, won, u1.v.size());
    CHECK_MSG(u1.v.size() == 1 || (won > 0 && won < u1.v.size()), "%s: DIS won at %zu of %zu pixels: the case tests nothing", what, won,
              u1.v.size());
    char name[128];
    std::snprintf(name, sizeof name, "%s: cost difference", what);
    bitwise(download(diff, w, h, 4), rdiff.v, name);
    std::snprintf(name, sizeof name, "%s: fused flow", what);
    bitwise(download(du, w, h, 8), interleave(u1, u2), name);
}

void test_kernels() {
    kernels_case(97, 61, 193, 122, false, 1u);
    kernels_case(97, 61, 97, 61, false, 2u);
    kernels_case(97, 61, 193, 122, true, 3u);
    kernels_case(1, 1, 2, 2, false, 4u); // a one-pixel level: every clamp at once
}

// Census (LK: level-norm) + init dis on a matrix cell (F32 storage, 2 threads).
double cell_epe(of_algorithm a, oflow::synth::Motion m, oflow::synth::Photometry ph, of_backend backend, of_init init,
                of_info* info) {
    of_config c = algo_config(a, 1, 1); // matrix_cell_epe sets the cell's size
    c.threads = 2;
    c.backend = backend;
    c.robust = a == OF_ALGO_LK ? OF_ROBUST_LEVEL_NORM : OF_ROBUST_CENSUS;
    c.precision = OF_PRECISION_F32;
    c.init = init;
    return matrix_cell_epe(c, m, ph, info, nullptr);
}

void test_frames() {
    using oflow::synth::Motion;
    using oflow::synth::Photometry;
    struct Cell {
        Motion m;
        Photometry p;
    };
    const Cell cells[] = {{Motion::Small, Photometry::GainNoise}, {Motion::Translation, Photometry::GainNoise}};
    const of_algorithm algos[] = {OF_ALGO_TVL1, OF_ALGO_HS, OF_ALGO_CLG, OF_ALGO_LK};
    const char* names[] = {"TV-L1", "HS", "CLG", "LK"};
    const int n_cells = small_run() ? 1 : 2;
    for (int k = 0; k < 4; ++k)
        for (int ci = 0; ci < n_cells; ++ci) {
            const Cell& cell = cells[ci];
            const double ref = cell_epe(algos[k], cell.m, cell.p, OF_BACKEND_REFERENCE, OF_INIT_DIS, nullptr);
            of_info info;
            std::memset(&info, 0, sizeof info);
            const double gpu = cell_epe(algos[k], cell.m, cell.p, OF_BACKEND_CUDA, OF_INIT_DIS, &info);
            std::printf("%-5s %-12s / %-10s init dis EPE: CUDA %.4f (%s), reference %.4f\n", names[k],
                        oflow::synth::motion_name(cell.m), oflow::synth::photometry_name(cell.p), gpu, info.variant, ref);
            CHECK_MSG(info.backend == OF_BACKEND_CUDA, "%s ran backend %d", names[k], info.backend);
            CHECK_MSG(ref >= 0.0 && gpu >= 0.0 && std::fabs(gpu - ref) <= 0.05 * ref + 0.02,
                      "%s %s / %s: CUDA EPE %.4f against the reference's %.4f (5 %% + 0.02 px)", names[k],
                      oflow::synth::motion_name(cell.m), oflow::synth::photometry_name(cell.p), gpu, ref);
        }
    // The DIS pass and the fusion ran: census alone stays wrong on the small-motion cell (tests/init_dis.cpp).
    const double alone = cell_epe(OF_ALGO_TVL1, Motion::Small, Photometry::GainNoise, OF_BACKEND_CUDA, OF_INIT_NONE, nullptr);
    const double with = cell_epe(OF_ALGO_TVL1, Motion::Small, Photometry::GainNoise, OF_BACKEND_CUDA, OF_INIT_DIS, nullptr);
    std::printf("TV-L1 small / gain-noise on CUDA: census alone %.4f, with init dis %.4f\n", alone, with);
    CHECK_MSG(with >= 0.0 && with < 0.5 * alone, "CUDA init dis %.4f not below half of census alone %.4f", with, alone);
}

of_config context_config(uint32_t w, uint32_t h) {
    of_config c = algo_config(OF_ALGO_TVL1, w, h);
    c.backend = OF_BACKEND_CUDA;
    c.robust = OF_ROBUST_CENSUS;
    c.init = OF_INIT_DIS;
    c.precision = OF_PRECISION_F32;
    c.threads = 2;
    return c;
}

// The flow of pair p on a fresh context of cfg (host output); empty on failure.
std::vector<float> host_flow(const of_config& cfg, const Pair& p, const char* what) {
    const FramePair fp = frames_of(p, OF_PIXEL_U8);
    FlowBuf out;
    if (!flow_of(cfg, fp, out, nullptr, what)) return {};
    return out.extract();
}

void test_same_context() {
    const Pair p = fast_pair(160, 120);
    const FramePair fp = frames_of(p, OF_PIXEL_U8);
    of_config c = context_config(160, 120);
    c.format = OF_PIXEL_U8;
    of_context* ctx = create_or_report(c, "init dis context");
    CHECK(ctx != nullptr);
    if (!ctx) return;
    FlowBuf host = make_flow(160, 120);
    run_host(ctx, fp, host, "host output");
    DevFlow dev = device_flow(160, 120, OF_FLOW_PLANAR, OF_MEMORY_CUDA_DEVICE);
    const of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &dev.f);
    CHECK_MSG(s == OF_OK, "device output: %s (%s)", st(s), of_last_error(ctx));
    const std::vector<float> a = host.extract(), b = dev.fetch().extract();
    CHECK_MSG(!a.empty() && a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0,
              "init dis: device output differs from host output");
    // A stream pair runs the same frame (cuda_backend.cu process_frame).
    FlowBuf pushed = make_flow(160, 120);
    CHECK(of_push_frame(ctx, &fp.prev.img, nullptr) == OF_PENDING);
    const of_status ps = of_push_frame(ctx, &fp.next.img, &pushed.f);
    CHECK_MSG(ps == OF_OK, "push: %s (%s)", st(ps), of_last_error(ctx));
    const std::vector<float> q = pushed.extract();
    CHECK_MSG(q.size() == a.size() && std::memcmp(q.data(), a.data(), a.size() * 4) == 0,
              "init dis: a stream pair differs from of_process");
    of_destroy(ctx);
    // A smaller frame on a larger context (no graph, fewer DIS levels) equals a context of its size.
    const Pair small = fast_pair(100, 70);
    of_config big = context_config(160, 120), exact = context_config(100, 70);
    big.format = exact.format = OF_PIXEL_U8;
    const std::vector<float> fb = host_flow(big, small, "100x70 on a 160x120 context");
    const std::vector<float> fe = host_flow(exact, small, "100x70 on its own context");
    CHECK_MSG(!fb.empty() && fb.size() == fe.size() && std::memcmp(fb.data(), fe.data(), fb.size() * 4) == 0,
              "init dis: a 100x70 frame on a 160x120 context differs from its own context's flow");
}

void test_memory() {
    const uint32_t w = 320, h = 240;
    of_config with = context_config(w, h), without = context_config(w, h);
    without.init = OF_INIT_NONE;
    of_memory mw, mo;
    std::memset(&mw, 0, sizeof mw);
    std::memset(&mo, 0, sizeof mo);
    mw.struct_size = mo.struct_size = sizeof(of_memory);
    CHECK(of_query_memory(&with, &mw) == OF_OK);
    CHECK(of_query_memory(&without, &mo) == OF_OK);
    std::printf("320x240 TV-L1 census on CUDA: device %zu bytes with init dis, %zu without; host %zu / %zu\n",
                mw.device_bytes, mo.device_bytes, mw.host_bytes, mo.host_bytes);
    CHECK_MSG(mw.device_bytes > mo.device_bytes + static_cast<std::size_t>(w) * h * 8,
              "init dis: %zu device bytes, %zu without (not more than DIS's flow plane more)", mw.device_bytes,
              mo.device_bytes);
    CHECK(mw.host_bytes > mo.host_bytes);
    // A caller arena of exactly the queried size, then one byte less.
    DevBuf arena(mw.device_bytes);
    if (!arena.p) {
        CHECK_MSG(false, "device arena of %zu bytes", mw.device_bytes);
        return;
    }
    of_config c = with;
    c.device_arena = arena.p;
    c.device_arena_size = mw.device_bytes;
    of_context* ctx = nullptr;
    of_status s = of_create(&c, &ctx);
    CHECK_MSG(s == OF_OK, "exact device arena: %s (%s)", st(s), of_last_error(nullptr));
    if (ctx) {
        const Pair p = fast_pair(w, h);
        const FramePair fp = frames_of(p, OF_PIXEL_U8);
        FlowBuf out = make_flow(w, h);
        run_host(ctx, fp, out, "exact device arena");
        CHECK(all_finite(out.extract()));
        of_destroy(ctx);
        ctx = nullptr;
    }
    c.device_arena_size = mw.device_bytes - 1;
    s = of_create(&c, &ctx);
    CHECK_MSG(s == OF_ERR_ARENA && ctx == nullptr, "device arena one byte short: %s", st(s));
    if (ctx) of_destroy(ctx);
}

} // namespace

int main(int argc, char** argv) {
    if (!cuda_ready()) return 77;
    if (wanted(argc, argv, "kernels")) test_kernels();
    if (wanted(argc, argv, "frames")) test_frames();
    if (wanted(argc, argv, "same_context")) test_same_context();
    if (wanted(argc, argv, "memory")) test_memory();
    return finish("gpu_init_dis");
}
