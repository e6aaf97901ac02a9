// contexts: contexts are independent and results are reproducible.
//  - two contexts (different sizes, formats, parameters, threads) alive at once, calls
//    interleaved, give the same bits as each context alone;
//  - the same input twice gives the same bits, also with other frames processed in between
//    (no state leaks from one frame to the next);
//  - with epsilon = 0 the result is bitwise independent of `threads` (1, 2, 3, 4; odd sizes);
//  - a frame smaller than the maximum gives the same bits as a context whose maximum is that
//    frame (explicit levels; with levels = 0 when both report the same last_levels);
//  - many contexts at once, destroyed in another order; contexts on two threads at once.
#include "test_util.hpp"

#include <thread>

using namespace oftest;
using oflow::synth::Case;

namespace {

of_config make_cfg(uint32_t w, uint32_t h, of_pixel_format fmt, uint32_t threads, float eps) {
    of_config c = tvl1_config(w, h);
    c.backend = OF_BACKEND_REFERENCE;
    c.format = fmt;
    c.threads = threads;
    c.epsilon = eps;
    c.warps = 3;
    c.iterations = 25;
    return c;
}

struct Job {
    Pair pair;
    FramePair frames;
    Job(Case k, uint32_t w, uint32_t h, of_pixel_format fmt, uint32_t seed)
        : pair(synth_pair(k, w, h, seed)), frames(frames_of(pair, fmt)) {}
};

// Run ctx on a job; returns the extracted flow (empty on failure).
std::vector<float> run(of_context* ctx, const Job& j, const char* what,
                       of_flow_layout layout = OF_FLOW_PLANAR) {
    FlowBuf f = make_flow(j.pair.w, j.pair.h, layout);
    of_status s = of_process(ctx, &j.frames.prev.img, &j.frames.next.img, &f.f);
    CHECK_MSG(s == OF_OK, "%s: %s (%s)", what, st(s), of_last_error(ctx));
    if (s != OF_OK) return {};
    std::vector<float> r = f.extract();
    CHECK_MSG(all_finite(r), "%s: non-finite flow", what);
    return r;
}

std::vector<float> run_fresh(const of_config& c, const Job& j, const char* what) {
    of_context* ctx = create_or_report(c, what);
    CHECK_MSG(ctx != nullptr, "%s: create", what);
    if (!ctx) return {};
    std::vector<float> r = run(ctx, j, what);
    of_destroy(ctx);
    return r;
}

uint32_t last_levels(of_context* ctx) {
    of_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    return of_get_info(ctx, &info) == OF_OK ? info.last_levels : 0;
}

void test_two_contexts_interleaved() {
    const of_config ca = make_cfg(96, 64, OF_PIXEL_U8, 1, 0.01f);
    of_config cb = make_cfg(72, 90, OF_PIXEL_F32, 2, 0.0f);
    cb.scale_factor = 0.7f;
    cb.tvl1.lambda = 0.1f;
    cb.presmooth_sigma = 0.0f;
    const Job ja(Case::SmoothField, 96, 64, OF_PIXEL_U8, 1);
    const Job ja2(Case::Translation, 80, 50, OF_PIXEL_U8, 2);
    const Job jb(Case::RotationZoom, 72, 90, OF_PIXEL_F32, 3);
    const Job jb2(Case::Occlusion, 41, 37, OF_PIXEL_F32, 4);

    const std::vector<float> ra = run_fresh(ca, ja, "A alone");
    const std::vector<float> ra2 = run_fresh(ca, ja2, "A alone (small)");
    const std::vector<float> rb = run_fresh(cb, jb, "B alone");
    const std::vector<float> rb2 = run_fresh(cb, jb2, "B alone (small)");

    of_context* a = create_or_report(ca, "A");
    of_context* b = create_or_report(cb, "B");
    CHECK(a && b);
    if (a && b) {
        for (int rep = 0; rep < 2; ++rep) {
            CHECK(same_bits(run(a, ja, "A"), ra, "A interleaved with B"));
            CHECK(same_bits(run(b, jb, "B"), rb, "B interleaved with A"));
            CHECK(same_bits(run(b, jb2, "B small"), rb2, "B small interleaved"));
            CHECK(same_bits(run(a, ja2, "A small"), ra2, "A small interleaved"));
        }
        // Deterministic: the same input again, after other frames, in the same context.
        CHECK(same_bits(run(a, ja, "A again"), ra, "A: same input, same context, later"));
    }
    of_destroy(a);
    of_destroy(b);
}

void test_threads_bitwise() {
    struct Sz {
        uint32_t w, h;
    };
    const Sz sizes[] = {{97, 61}, {33, 130}, {64, 3}};
    for (const Sz& sz : sizes) {
        const Job j(Case::SmoothField, sz.w, sz.h, OF_PIXEL_U8, 5);
        const std::vector<float> r1 = run_fresh(make_cfg(sz.w, sz.h, OF_PIXEL_U8, 1, 0.0f), j, "threads 1");
        const uint32_t ths[] = {2, 3, 4};
        for (uint32_t t : ths) {
            char what[96];
            std::snprintf(what, sizeof what, "%ux%u epsilon 0: threads %u vs 1", sz.w, sz.h, t);
            CHECK(same_bits(run_fresh(make_cfg(sz.w, sz.h, OF_PIXEL_U8, t, 0.0f), j, what), r1, what));
        }
    }
    // With the default epsilon, repeated runs with 2 threads agree with each other.
    const Job j(Case::Translation, 80, 60, OF_PIXEL_U8, 6);
    const of_config c = make_cfg(80, 60, OF_PIXEL_U8, 2, 0.01f);
    CHECK(same_bits(run_fresh(c, j, "eps 0.01 threads 2 (1)"), run_fresh(c, j, "eps 0.01 threads 2 (2)"),
                    "epsilon 0.01, threads 2: two fresh contexts"));
}

void test_smaller_frames_reuse() {
    const uint32_t levels[] = {3, 0};
    for (uint32_t lv : levels) {
        of_config big = make_cfg(160, 120, OF_PIXEL_U8, 1, 0.0f);
        big.levels = lv;
        of_config small = make_cfg(64, 48, OF_PIXEL_U8, 1, 0.0f);
        small.levels = lv;
        const Job jbig(Case::SmoothField, 160, 120, OF_PIXEL_U8, 7);
        const Job jsmall(Case::Translation, 64, 48, OF_PIXEL_U8, 8);
        of_context* cb = create_or_report(big, "big");
        of_context* cs = create_or_report(small, "small");
        CHECK(cb && cs);
        if (cb && cs) {
            const std::vector<float> first = run(cb, jbig, "big at max");
            const std::vector<float> rs_big = run(cb, jsmall, "small frame in big context");
            const uint32_t lb = last_levels(cb);
            const std::vector<float> rs_small = run(cs, jsmall, "small frame in small context");
            const uint32_t ls = last_levels(cs);
            char what[128];
            std::snprintf(what, sizeof what, "levels %u: 64x48 in a 160x120 context vs a 64x48 context", lv);
            if (lv != 0 || lb == ls) {
                CHECK(same_bits(rs_big, rs_small, what));
            } else {
                std::printf("%s: last_levels %u vs %u, bits not compared\n", what, lb, ls);
            }
            CHECK(same_bits(run(cb, jbig, "big at max again"), first,
                            "max-size frame after a smaller one (same context)"));
        }
        of_destroy(cb);
        of_destroy(cs);
    }
}

void test_many_contexts() {
    const int n = 8;
    of_context* ctx[n] = {};
    const Job j(Case::Translation, 40, 30, OF_PIXEL_U8, 9);
    std::vector<float> ref;
    for (int i = 0; i < n; ++i) {
        of_config c = make_cfg(static_cast<uint32_t>(40 + 8 * i), static_cast<uint32_t>(30 + 4 * i),
                               OF_PIXEL_U8, static_cast<uint32_t>(1 + i % 2), 0.0f);
        c.levels = 2;
        ctx[i] = create_or_report(c, "many");
        CHECK(ctx[i] != nullptr);
    }
    for (int i = 0; i < n; ++i) {
        if (!ctx[i]) continue;
        std::vector<float> r = run(ctx[i], j, "many");
        if (ref.empty())
            ref = r;
        else
            CHECK(same_bits(r, ref, "many contexts: same frame, same bits"));
    }
    const int order[n] = {3, 0, 7, 5, 1, 6, 2, 4};
    for (int i = 0; i < n; ++i) of_destroy(ctx[order[i]]);
}

void test_concurrent_contexts() {
    const of_config c1 = make_cfg(96, 64, OF_PIXEL_U8, 1, 0.0f);
    const of_config c2 = make_cfg(80, 80, OF_PIXEL_U16, 2, 0.0f);
    const Job j1(Case::SmoothField, 96, 64, OF_PIXEL_U8, 10);
    const Job j2(Case::RotationZoom, 80, 80, OF_PIXEL_U16, 11);
    const std::vector<float> r1 = run_fresh(c1, j1, "concurrent ref 1");
    const std::vector<float> r2 = run_fresh(c2, j2, "concurrent ref 2");
    of_context* x1 = create_or_report(c1, "t1");
    of_context* x2 = create_or_report(c2, "t2");
    CHECK(x1 && x2);
    if (!x1 || !x2) {
        of_destroy(x1);
        of_destroy(x2);
        return;
    }
    std::vector<float> o1[3], o2[3];
    of_status s1[3], s2[3];
    auto worker = [](of_context* ctx, const Job* j, std::vector<float>* out, of_status* st_out) {
        for (int i = 0; i < 3; ++i) {
            FlowBuf f = make_flow(j->pair.w, j->pair.h);
            st_out[i] = of_process(ctx, &j->frames.prev.img, &j->frames.next.img, &f.f);
            out[i] = f.extract();
        }
    };
    std::thread t1(worker, x1, &j1, o1, s1);
    std::thread t2(worker, x2, &j2, o2, s2);
    t1.join();
    t2.join();
    for (int i = 0; i < 3; ++i) {
        CHECK_MSG(s1[i] == OF_OK && s2[i] == OF_OK, "concurrent run %d: %s / %s", i, st(s1[i]), st(s2[i]));
        CHECK(same_bits(o1[i], r1, "context 1 on its own thread vs alone"));
        CHECK(same_bits(o2[i], r2, "context 2 on its own thread vs alone"));
    }
    of_destroy(x1);
    of_destroy(x2);
}

} // namespace

int main() {
    test_two_contexts_interleaved();
    test_threads_bitwise();
    test_smaller_frames_reuse();
    test_many_contexts();
    test_concurrent_contexts();
    return oftest::finish("contexts");
}
