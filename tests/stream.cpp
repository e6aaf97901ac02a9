// stream: of_push_frame / of_reset on the CPU paths (the suite runs again under qemu with
// OFLOW_FORCE_BACKEND=reference and =neon; tests/gpu/gpu_stream.cpp covers CUDA).
//
//  - contract: the first frame is OF_PENDING (out untouched, may be NULL, of_last_error says
//    why, of_info.stream_frames 1); a frame of another size is OF_PENDING and starts a new
//    stream; of_reset and of_process end the stream; a refused frame (NaN pixel, wrong format,
//    NULL flow) leaves it as it was: the next frame pairs with the last accepted one; of_reset
//    with NULL is OF_ERR_NULL_POINTER; of_info shows the stream's bytes, which of_query_memory
//    counts (host_bytes grows by them);
//  - bit identity with warm_start 0: every pair of every generated sequence (camera path,
//    moving object, exposure ramp, scene cut), for TV-L1, HS, CLG with SOR and LK (the validity
//    plane too), U8 / U16 / F32 frames, 1 and 2 threads, equals of_process on the same two
//    frames, bit for bit; the caller's frame buffer is overwritten after every call (the stream
//    keeps its own copy);
//  - warm start (warm_start 1): deterministic across thread counts; on the camera path at a
//    short schedule its EPE is below the cold start's (measured, printed); the first pair after
//    the scene cut is within 10 % of the cold start's EPE; on the exposure ramp the warm EPE of
//    the last pairs stays within 10 % of the cold EPE of the same pairs (nothing accumulates).
#include "test_util.hpp"

#include "core/synth_sequence.hpp"

#include <cmath>

using namespace oftest;
using oflow::synth::Sequence;

namespace {

const uint32_t kSeed = 3;

using Plane = std::vector<float>;

Plane seq_frame(Sequence s, uint32_t w, uint32_t h, int k) {
    Plane p(static_cast<size_t>(w) * h, 0.0f);
    oflow::synth::sequence_frame(s, static_cast<int>(w), static_cast<int>(h), kSeed, k, p.data(), w);
    return p;
}

// Mean EPE of flow f (u plane then v plane) against pair k's gt; -1 without gt.
double seq_epe(Sequence s, uint32_t w, uint32_t h, int k, const std::vector<float>& f) {
    const size_t n = static_cast<size_t>(w) * h;
    Plane gu(n), gv(n);
    if (!oflow::synth::sequence_flow(s, static_cast<int>(w), static_cast<int>(h), kSeed, k, gu.data(), gv.data(), w))
        return -1.0;
    double sum = 0.0;
    for (size_t i = 0; i < n; ++i) sum += std::hypot(f[i] - gu[i], f[n + i] - gv[i]);
    return sum / static_cast<double>(n);
}

of_status push(of_context* c, const Frame& fr, FlowBuf* out) { return of_push_frame(c, &fr.img, out ? &out->f : nullptr); }

std::vector<unsigned char> valid_plane(uint32_t w, uint32_t h) { return std::vector<unsigned char>(static_cast<size_t>(w) * h, 0x5A); }

void contract() {
    const uint32_t w = 64, h = 48;
    of_config cfg = tvl1_config(w, h);
    cfg.iterations = 20;
    cfg.warps = 2;
    of_context* c = create_or_report(cfg, "contract");
    CHECK(c != nullptr);
    if (!c) return;
    const Frame f0 = make_frame(OF_PIXEL_U8, w, h, seq_frame(Sequence::CameraPath, w, h, 0).data(), w);
    const Frame f1 = make_frame(OF_PIXEL_U8, w, h, seq_frame(Sequence::CameraPath, w, h, 1).data(), w);
    const Frame f2 = make_frame(OF_PIXEL_U8, w, h, seq_frame(Sequence::CameraPath, w, h, 2).data(), w);
    FlowBuf out = make_flow(w, h);
    of_info info;
    info.struct_size = sizeof info;

    // First frame: pending, nothing written; out may be NULL.
    CHECK(push(c, f0, &out) == OF_PENDING);
    CHECK(out.untouched());
    CHECK(std::strstr(of_last_error(c), "first frame") != nullptr);
    CHECK(of_get_info(c, &info) == OF_OK && info.stream_frames == 1);
    CHECK(of_reset(c) == OF_OK);
    CHECK(of_get_info(c, &info) == OF_OK && info.stream_frames == 0);
    CHECK(push(c, f0, nullptr) == OF_PENDING);
    // A pair with NULL flow: refused, stream unchanged.
    CHECK(of_push_frame(c, &f1.img, nullptr) == OF_ERR_NULL_POINTER);
    CHECK(push(c, f1, &out) == OF_OK);
    CHECK(of_get_info(c, &info) == OF_OK && info.stream_frames == 2 && info.last_width == w);
    // The reference: of_process on a second context.
    of_context* r = create_or_report(cfg, "contract ref");
    CHECK(r != nullptr);
    if (!r) {
        of_destroy(c);
        return;
    }
    FlowBuf ref = make_flow(w, h);
    CHECK(of_process(r, &f0.img, &f1.img, &ref.f) == OF_OK);
    CHECK(same_bits(out.extract(), ref.extract(), "contract pair 0->1"));

    // A refused frame (wrong format) leaves the stream: the next frame pairs with f1.
    Frame bad = make_frame(OF_PIXEL_U16, w, h, seq_frame(Sequence::CameraPath, w, h, 2).data(), w);
    out.fill_sentinel();
    CHECK(push(c, bad, &out) == OF_ERR_FORMAT);
    CHECK(out.untouched());
    CHECK(push(c, f2, &out) == OF_OK);
    CHECK(of_process(r, &f1.img, &f2.img, &ref.f) == OF_OK);
    CHECK(same_bits(out.extract(), ref.extract(), "contract pair 1->2 after a refused frame"));

    // Another size: pending, a new stream with it.
    const Frame s0 = make_frame(OF_PIXEL_U8, 40, 30, seq_frame(Sequence::CameraPath, 40, 30, 0).data(), 40);
    const Frame s1 = make_frame(OF_PIXEL_U8, 40, 30, seq_frame(Sequence::CameraPath, 40, 30, 1).data(), 40);
    out.fill_sentinel();
    CHECK(push(c, s0, &out) == OF_PENDING);
    CHECK(out.untouched());
    CHECK(std::strstr(of_last_error(c), "differs") != nullptr);
    FlowBuf small = make_flow(40, 30), small_ref = make_flow(40, 30);
    CHECK(push(c, s1, &small) == OF_OK);
    CHECK(of_process(r, &s0.img, &s1.img, &small_ref.f) == OF_OK);
    CHECK(same_bits(small.extract(), small_ref.extract(), "contract 40x30 stream"));

    // of_process ends the stream.
    CHECK(of_process(c, &f0.img, &f1.img, &out.f) == OF_OK);
    CHECK(of_get_info(c, &info) == OF_OK && info.stream_frames == 0);
    CHECK(push(c, f2, &out) == OF_PENDING);

    // F32 frames with a NaN: refused, the stream keeps f2.
    {
        of_config fc = cfg;
        fc.format = OF_PIXEL_F32;
        of_context* cf = create_or_report(fc, "contract f32");
        CHECK(cf != nullptr);
        if (cf) {
            Plane a = seq_frame(Sequence::CameraPath, w, h, 0), b = seq_frame(Sequence::CameraPath, w, h, 1);
            Frame fa = make_frame(OF_PIXEL_F32, w, h, a.data(), w), fb = make_frame(OF_PIXEL_F32, w, h, b.data(), w);
            Frame fn = make_frame(OF_PIXEL_F32, w, h, b.data(), w);
            fn.set_f32(5, 7, std::nanf(""));
            CHECK(push(cf, fa, nullptr) == OF_PENDING);
            CHECK(push(cf, fn, &out) == OF_ERR_NONFINITE);
            CHECK(std::strstr(of_last_error(cf), "frame") != nullptr);
            CHECK(push(cf, fb, &out) == OF_OK);
            of_context* rf = create_or_report(fc, "contract f32 ref");
            if (rf) {
                CHECK(of_process(rf, &fa.img, &fb.img, &ref.f) == OF_OK);
                CHECK(same_bits(out.extract(), ref.extract(), "f32 pair after a NaN frame"));
                of_destroy(rf);
            }
            of_destroy(cf);
        }
    }
    // Registration: a no-op on the CPU paths, the argument checks everywhere.
    if (info.backend != OF_BACKEND_CUDA) {
        CHECK(of_register_host(c, out.a.data(), out.a.size() * 4) == OF_OK);
        CHECK(of_unregister_host(c, out.a.data()) == OF_OK);
    }
    CHECK(of_register_host(c, nullptr, 8) == OF_ERR_NULL_POINTER);
    CHECK(of_register_host(c, out.a.data(), 0) == OF_ERR_INVALID_ARGUMENT);
    CHECK(of_register_host(nullptr, out.a.data(), 8) == OF_ERR_NULL_POINTER);
    CHECK(of_reset(nullptr) == OF_ERR_NULL_POINTER);
    CHECK(of_push_frame(nullptr, &f0.img, &out.f) == OF_ERR_NULL_POINTER);

    // Memory: of_info's stream bytes are part of host_bytes, the kept frame at least.
    of_memory mem;
    mem.struct_size = sizeof mem;
    CHECK(of_query_memory(&cfg, &mem) == OF_OK);
    CHECK(of_get_info(c, &info) == OF_OK);
    CHECK(info.host_bytes == mem.host_bytes);
    if (info.backend != OF_BACKEND_CUDA) {
        CHECK(info.stream_host_bytes == static_cast<size_t>(w) * h);
        // Warm start needs one solve a pair (not applied under pick): both configs local-norm.
        const of_config cc = one_solve(cfg);
        of_config wc = cc;
        wc.warm_start = 1;
        of_memory cm, wm;
        cm.struct_size = sizeof cm;
        wm.struct_size = sizeof wm;
        CHECK(of_query_memory(&cc, &cm) == OF_OK);
        CHECK(of_query_memory(&wc, &wm) == OF_OK);
        of_info wi;
        wi.struct_size = sizeof wi;
        CHECK(of_explain(&wc, &wi) == OF_OK);
        // The warm flow: two planes of level 1 (32x24, host pitch 32 floats).
        CHECK(wi.stream_host_bytes == static_cast<size_t>(w) * h + 2u * 32u * 24u * 4u);
        CHECK(wm.host_bytes >= cm.host_bytes + 2u * 32u * 24u * 4u);
        CHECK(wi.warm_start == 1);
    }
    of_config bad_cfg = cfg;
    bad_cfg.warm_start = 2;
    of_context* none = nullptr;
    CHECK(of_create(&bad_cfg, &none) == OF_ERR_INVALID_ARGUMENT && none == nullptr);
    of_destroy(r);
    of_destroy(c);
}

// Every pair of sequence s pushed on one context equals of_process on another, bit for bit
// (flow, and the validity plane with LK). The frame buffer is reused for every frame.
void identity(const char* what, const of_config& cfg, Sequence s, of_pixel_format fmt, int frames) {
    const uint32_t w = cfg.max_width, h = cfg.max_height;
    of_context* c = create_or_report(cfg, what);
    of_context* r = create_or_report(cfg, what);
    CHECK(c && r);
    if (!c || !r) {
        of_destroy(c);
        of_destroy(r);
        return;
    }
    Frame buf = make_frame(fmt, w, h, seq_frame(s, w, h, 0).data(), w, static_cast<size_t>(w) * bytes_per_pixel(fmt) + 8);
    Frame prev = make_frame(fmt, w, h, seq_frame(s, w, h, 0).data(), w);
    CHECK(push(c, buf, nullptr) == OF_PENDING);
    const bool lk = cfg.algorithm == OF_ALGO_LK;
    int identical = 0;
    for (int k = 1; k < frames; ++k) {
        const Plane img = seq_frame(s, w, h, k);
        Frame next = make_frame(fmt, w, h, img.data(), w);
        // Overwrite the caller's buffer in place with frame k (the stream must not need frame k-1's bytes).
        Frame fresh = make_frame(fmt, w, h, img.data(), w, buf.img.stride);
        std::memcpy(buf.bytes(), fresh.bytes(), buf.store.size() * 8);
        FlowBuf a = make_flow(w, h), b = make_flow(w, h);
        std::vector<unsigned char> va = valid_plane(w, h), vb = valid_plane(w, h);
        if (lk) {
            a.f.valid_format = b.f.valid_format = OF_VALID_MASK_U8;
            a.f.valid_stride = b.f.valid_stride = w;
            a.f.valid = va.data();
            b.f.valid = vb.data();
        }
        const of_status sa = push(c, buf, &a), sb = of_process(r, &prev.img, &next.img, &b.f);
        CHECK_MSG(sa == OF_OK && sb == OF_OK, "%s pair %d: %s / %s", what, k, st(sa), st(sb));
        const bool same = same_bits(a.extract(), b.extract(), what) && va == vb;
        CHECK_MSG(same, "%s: pair %d -> %d differs from of_process", what, k - 1, k);
        identical += same;
        prev = std::move(next);
    }
    of_info info;
    info.struct_size = sizeof info;
    CHECK(of_get_info(c, &info) == OF_OK && info.stream_frames == static_cast<uint64_t>(frames) && info.last_warm == 0);
    std::printf("  %-36s %s: %d/%d pairs bit-identical to of_process\n", what, oflow::synth::sequence_name(s), identical,
                frames - 1);
    of_destroy(c);
    of_destroy(r);
}

void identities() {
    const uint32_t w = 72, h = 56;
    of_config tv = tvl1_config(w, h);
    tv.iterations = 30;
    tv.warps = 2;
    for (int s = 0; s < static_cast<int>(Sequence::Count); ++s)
        identity("tvl1 u8", tv, static_cast<Sequence>(s), OF_PIXEL_U8, 6);
    identity("tvl1 f32", [&] { of_config c = tv; c.format = OF_PIXEL_F32; return c; }(), Sequence::ExposureRamp,
             OF_PIXEL_F32, 4);
    identity("tvl1 u16 2 threads", [&] { of_config c = tv; c.format = OF_PIXEL_U16; c.threads = 2; return c; }(),
             Sequence::MovingObject, OF_PIXEL_U16, 4);
    of_config hs;
    of_config_init(&hs, OF_ALGO_HS);
    hs.max_width = w;
    hs.max_height = h;
    hs.iterations = 30;
    hs.warps = 2;
    identity("hs", hs, Sequence::CameraPath, OF_PIXEL_U8, 4);
    of_config clg = hs;
    of_config_init(&clg, OF_ALGO_CLG);
    clg.max_width = w;
    clg.max_height = h;
    clg.iterations = 30;
    clg.warps = 2;
    clg.hs.solver = OF_SOLVER_RED_BLACK_SOR;
    identity("clg sor", clg, Sequence::SceneCut, OF_PIXEL_U8, 6);
    of_config lk;
    of_config_init(&lk, OF_ALGO_LK);
    lk.max_width = w;
    lk.max_height = h;
    identity("lk (validity mask)", lk, Sequence::MovingObject, OF_PIXEL_U8, 4);
    // warm_start 1 on of_process: ignored (of_process pairs are independent).
    of_config wtv = tv;
    wtv.warm_start = 1;
    of_context* a = create_or_report(tv, "warm ignored");
    of_context* b = create_or_report(wtv, "warm ignored");
    if (a && b) {
        const Frame f0 = make_frame(OF_PIXEL_U8, w, h, seq_frame(Sequence::CameraPath, w, h, 0).data(), w);
        const Frame f1 = make_frame(OF_PIXEL_U8, w, h, seq_frame(Sequence::CameraPath, w, h, 1).data(), w);
        FlowBuf fa = make_flow(w, h), fb = make_flow(w, h);
        for (int i = 0; i < 2; ++i) {
            CHECK(of_process(a, &f0.img, &f1.img, &fa.f) == OF_OK);
            CHECK(of_process(b, &f0.img, &f1.img, &fb.f) == OF_OK);
            CHECK(same_bits(fa.extract(), fb.extract(), "of_process ignores warm_start"));
        }
    }
    of_destroy(a);
    of_destroy(b);
}

struct Run {
    std::vector<double> epe; // per pair (index k: pair k -> k+1), -1 without gt
    std::vector<uint32_t> warm;
    std::vector<std::vector<float>> flows;
};

Run stream_run(const of_config& cfg, Sequence s, int frames) {
    Run run;
    const uint32_t w = cfg.max_width, h = cfg.max_height;
    of_context* c = create_or_report(cfg, "warm run");
    CHECK(c != nullptr);
    if (!c) return run;
    FlowBuf out = make_flow(w, h);
    of_info info;
    info.struct_size = sizeof info;
    for (int k = 0; k < frames; ++k) {
        const Frame f = make_frame(OF_PIXEL_U8, w, h, seq_frame(s, w, h, k).data(), w);
        const of_status r = push(c, f, &out);
        CHECK(r == (k == 0 ? OF_PENDING : OF_OK));
        if (k == 0) continue;
        CHECK(of_get_info(c, &info) == OF_OK);
        run.flows.push_back(out.extract());
        run.epe.push_back(seq_epe(s, w, h, k - 1, run.flows.back()));
        run.warm.push_back(info.last_warm);
    }
    of_destroy(c);
    return run;
}

void warm_start() {
    const uint32_t w = 96, h = 72;
    const int frames = 10;
    of_config cold = one_solve(tvl1_config(w, h)); // warm start needs one solve a pair (not applied under pick)
    cold.warps = 1;
    cold.iterations = 10;
    of_config warm = cold;
    warm.warm_start = 1;
    std::printf("  warm start, TV-L1 1 warp x 10 iterations, %ux%u: EPE per pair (cold / warm, w = warm taken)\n", w, h);
    for (int si = 0; si < static_cast<int>(Sequence::Count); ++si) {
        const Sequence s = static_cast<Sequence>(si);
        const Run a = stream_run(cold, s, frames), b = stream_run(warm, s, frames);
        if (a.epe.size() != static_cast<size_t>(frames - 1) || b.epe.size() != a.epe.size()) {
            CHECK(false);
            continue;
        }
        double sa = 0.0, sb = 0.0;
        int n = 0, taken = 0;
        std::printf("    %-14s", oflow::synth::sequence_name(s));
        for (size_t k = 0; k < a.epe.size(); ++k) {
            std::printf(" %.3f/%.3f%s", a.epe[k], b.epe[k], b.warm[k] ? "w" : "");
            CHECK(a.warm[k] == 0);
            taken += b.warm[k] != 0;
            if (a.epe[k] >= 0.0) {
                sa += a.epe[k];
                sb += b.epe[k];
                ++n;
            }
        }
        std::printf("  mean %.3f / %.3f\n", sa / n, sb / n);
        CHECK(b.warm[0] == 0); // the first pair has nothing to start from
        if (s == Sequence::CameraPath || s == Sequence::MovingObject) {
            // Smooth motion: the previous flow explains the next pair better than the cold start
            // on every pair after the first, and lowers the mean EPE (measured: see the printout).
            CHECK_MSG(taken == frames - 2, "%s: warm taken on %d of %d pairs", oflow::synth::sequence_name(s), taken,
                      frames - 2);
            CHECK_MSG(sb < sa, "%s: warm mean EPE %.4f not below cold %.4f", oflow::synth::sequence_name(s), sb / n, sa / n);
        }
        if (s == Sequence::SceneCut) {
            // The first pair after the cut (its frames both in the new scene) within 10 % of cold.
            const int first = oflow::synth::kSceneCutFrame;
            CHECK_MSG(b.epe[first] <= 1.10 * a.epe[first], "after the cut: warm %.4f vs cold %.4f", b.epe[first],
                      a.epe[first]);
        }
        if (s == Sequence::ExposureRamp) {
            // Nothing accumulates: the last three pairs (gain 1.21..1.27 against frame 0) within 10 %
            // of the cold start's EPE on the same pairs.
            for (size_t k = a.epe.size() - 3; k < a.epe.size(); ++k)
                CHECK_MSG(b.epe[k] <= 1.10 * a.epe[k], "exposure ramp pair %zu: warm %.4f vs cold %.4f", k, b.epe[k],
                          a.epe[k]);
        }
    }
    // Deterministic across thread counts (the choice is summed on one thread, in row order).
    of_config warm2 = warm;
    warm2.threads = 2;
    const Run t1 = stream_run(warm, Sequence::MovingObject, 5), t2 = stream_run(warm2, Sequence::MovingObject, 5);
    CHECK(t1.flows.size() == t2.flows.size());
    for (size_t k = 0; k < t1.flows.size() && k < t2.flows.size(); ++k) {
        CHECK(t1.warm[k] == t2.warm[k]);
        CHECK(same_bits(t1.flows[k], t2.flows[k], "warm start, 1 vs 2 threads"));
    }
}

} // namespace

int main() {
    contract();
    identities();
    warm_start();
    return finish("stream");
}
