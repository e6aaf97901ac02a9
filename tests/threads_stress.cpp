// threads_stress: the ThreadSanitizer stage's test (also an ordinary test in every build).
// 8 application threads, each with its own context (reference backend; threads 1, 2 or 3 inside,
// so the worker pools run beside each other), process their own pairs again and again for a
// bounded time (OFLOW_STRESS_SECONDS, default 2 s; at least 2 frames each). Every result must be
// bit-identical to the same context's flow computed before the threads started, alone (epsilon 0:
// the result does not depend on thread counts or scheduling). Between frames each thread also
// has of_query_memory refuse a config of its own (warps = 1000 + thread): of_last_error(NULL)
// must name that thread's value, not another's (the message without a context is per thread).
#include "test_util.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

using namespace oftest;
using oflow::synth::Case;

namespace {

const int kThreads = 8;

struct Worker {
    of_config cfg;
    Pair pair;
    FramePair frames;
    std::vector<float> expected;
    int frames_done = 0;
    int mismatches = 0;
    int failures = 0;
    int foreign_messages = 0;
    Worker(uint32_t w, uint32_t h, uint32_t threads, Case k, uint32_t seed)
        : cfg(tvl1_config(w, h)), pair(synth_pair(k, w, h, seed)), frames(frames_of(pair, OF_PIXEL_U8)) {
        cfg.backend = OF_BACKEND_REFERENCE;
        cfg.threads = threads;
        cfg.epsilon = 0.0f;
        cfg.warps = 2;
        cfg.iterations = 15;
    }
};

std::vector<float> once(of_context* ctx, Worker& wk) {
    FlowBuf f = make_flow(wk.pair.w, wk.pair.h, OF_FLOW_PLANAR);
    if (of_process(ctx, &wk.frames.prev.img, &wk.frames.next.img, &f.f) != OF_OK) return {};
    return f.extract();
}

} // namespace

int main() {
    const char* env = std::getenv("OFLOW_STRESS_SECONDS");
    const double seconds = env && std::atof(env) > 0 ? std::atof(env) : 2.0;
    std::vector<Worker> workers;
    const Case cases[] = {Case::SmoothField, Case::RotationZoom, Case::Translation};
    for (int i = 0; i < kThreads; ++i)
        workers.emplace_back(48 + 8 * static_cast<uint32_t>(i), 40 + 4 * static_cast<uint32_t>(i),
                             1 + static_cast<uint32_t>(i % 3), cases[i % 3], 7 + static_cast<uint32_t>(i));
    // The expected flows, one context at a time.
    for (Worker& wk : workers) {
        of_context* ctx = create_or_report(wk.cfg, "threads_stress reference");
        CHECK(ctx != nullptr);
        if (!ctx) return oftest::finish("threads_stress");
        wk.expected = once(ctx, wk);
        CHECK_MSG(!wk.expected.empty(), "reference run failed: %s", of_last_error(ctx));
        of_destroy(ctx);
    }
    std::atomic<bool> go{false};
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    std::vector<std::thread> pool;
    for (size_t wi = 0; wi < workers.size(); ++wi)
        pool.emplace_back([&wk = workers[wi], wi, &go, until] {
            while (!go.load()) std::this_thread::yield();
            of_context* ctx = nullptr;
            if (of_create(&wk.cfg, &ctx) != OF_OK) {
                ++wk.failures;
                return;
            }
            while (wk.frames_done < 2 || std::chrono::steady_clock::now() < until) {
                const std::vector<float> r = once(ctx, wk);
                if (r.empty())
                    ++wk.failures;
                else if (r.size() != wk.expected.size() ||
                         std::memcmp(r.data(), wk.expected.data(), r.size() * sizeof(float)) != 0)
                    ++wk.mismatches;
                ++wk.frames_done;
                of_config bad = wk.cfg;
                bad.warps = 1000 + static_cast<uint32_t>(wi);
                of_memory m;
                std::memset(&m, 0, sizeof m);
                m.struct_size = sizeof m;
                char want[32];
                std::snprintf(want, sizeof want, "warps %u", bad.warps);
                if (of_query_memory(&bad, &m) != OF_ERR_INVALID_ARGUMENT ||
                    std::strstr(of_last_error(nullptr), want) == nullptr)
                    ++wk.foreign_messages;
            }
            of_destroy(ctx);
        });
    go = true;
    for (std::thread& t : pool) t.join();
    int total = 0;
    for (int i = 0; i < kThreads; ++i) {
        const Worker& wk = workers[static_cast<size_t>(i)];
        std::printf("thread %d: %ux%u threads %u: %d frames, %d mismatches, %d failures, %d foreign messages\n", i,
                    wk.pair.w, wk.pair.h, wk.cfg.threads, wk.frames_done, wk.mismatches, wk.failures,
                    wk.foreign_messages);
        CHECK_MSG(wk.foreign_messages == 0, "thread %d: of_last_error(NULL) did not name its own refusal %d times", i,
                  wk.foreign_messages);
        CHECK_MSG(wk.failures == 0 && wk.mismatches == 0, "thread %d: %d failures, %d mismatches", i, wk.failures,
                  wk.mismatches);
        CHECK_MSG(wk.frames_done >= 2, "thread %d: %d frames", i, wk.frames_done);
        total += wk.frames_done;
    }
    std::printf("%d frames in %.1f s on %d threads, all bit-identical to the single-context runs\n", total, seconds,
                kThreads);
    return oftest::finish("threads_stress");
}
