// gpu_robust_pick: OF_ROBUST_PICK (core/robust.hpp) on the CUDA path (cuda_frame.cu solve_pick,
// robust_pick_cuda.cu), every algorithm, F32 and F16. Skipped (77) without a CUDA device.
//
//  - The kept flow is one candidate's, bit for bit: of_info.last_pick names a candidate and a
//    CUDA context with that robust mode gives the same bits on the same pair (LK: and the same
//    confidence plane); its coarsest level is the candidate's, and the iterations reported are
//    the three candidates' summed (each solve's own epsilon stops and texture rule).
//  - The judge chooses as on the CPU path where the choice is clear (tests/robust_pick): TV-L1's
//    raw-frame flow (NONE) on the small no-change cell, a normalised one under gain + noise.
//  - Device output: nothing waits, last_pick reads OF_ROBUST_PICK, and the flow is the host
//    output's bit for bit. A stream's pairs are of_process's pairs (warm start not applied).
//  - The plan: backend CUDA is taken (no refusal), no frame split, the device memory grows by
//    the pick's planes.
#include "gpu_util.hpp"
#include "robust_pick_util.hpp"

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <vector>

using namespace oftest;
using namespace gputest;
using namespace picktest;
using oflow::synth::Motion;
using oflow::synth::Photometry;

namespace {

of_config cuda_config(of_algorithm a, of_precision prec, of_robust r) {
    of_config c = algo_config(a, kW, kH);
    c.format = OF_PIXEL_F32;
    c.backend = OF_BACKEND_CUDA;
    c.precision = prec;
    c.robust = r;
    c.min_texture = oflow::pick_min_texture(r, c.min_texture); // a candidate alone as pick solves it
    c.median_size = oflow::pick_median(a, r, c.median_size);
    return c;
}

// The pick on cell (m, p) against its three candidates run alone on CUDA; returns the kept mode.
of_robust check_cell(of_algorithm a, of_precision prec, Motion m, Photometry p) {
    const Cell c = make_cell(m, p);
    const Run pick = run(cuda_config(a, prec, OF_ROBUST_PICK), c, "gpu_robust_pick");
    CHECK_MSG(pick.ok, "algorithm %d %s %s/%s: pick failed", static_cast<int>(a), precision_str(prec),
              oflow::synth::motion_name(m), oflow::synth::photometry_name(p));
    if (!pick.ok) return OF_ROBUST_MAX_ENUM;
    CHECK(pick.info.backend == OF_BACKEND_CUDA && pick.info.robust == OF_ROBUST_PICK);
    std::printf("algorithm %d %s, %s/%s: pick %.4f (kept %s, %llu iterations)", static_cast<int>(a), precision_str(prec),
                oflow::synth::motion_name(m), oflow::synth::photometry_name(p), epe(pick, c), name(pick.info.last_pick),
                static_cast<unsigned long long>(pick.info.last_iterations));
    const of_robust* const cands = oflow::pick_candidates(a);
    bool named = false;
    uint64_t iterations = 0;
    for (int k = 0; k < oflow::pick_count(a); ++k) {
        const of_robust r = cands[k];
        const Run one = run(cuda_config(a, prec, r), c, "gpu_robust_pick");
        CHECK(one.ok);
        std::printf(", %s %.4f", name(r), epe(one, c));
        iterations += one.info.last_iterations;
        if (r != pick.info.last_pick) continue;
        named = true;
        size_t where = 0;
        CHECK_MSG(one.u == pick.u && one.v == pick.v, "the kept flow is not %s's bit for bit (max diff %g)", name(r),
                  std::max(max_diff(one.u, pick.u, &where), max_diff(one.v, pick.v, &where)));
        CHECK_MSG(one.conf == pick.conf, "the confidence plane is not %s's", name(r));
        CHECK_MSG(one.info.last_coarsest == pick.info.last_coarsest, "coarsest %u, %s's %u", pick.info.last_coarsest,
                  name(r), one.info.last_coarsest);
    }
    std::printf("\n");
    CHECK_MSG(named, "of_info.last_pick %d is not a candidate", static_cast<int>(pick.info.last_pick));
    CHECK_MSG(pick.info.last_iterations == iterations, "%llu iterations reported, the candidates ran %llu",
              static_cast<unsigned long long>(pick.info.last_iterations), static_cast<unsigned long long>(iterations));
    return pick.info.last_pick;
}

// OFLOW_GPU_SMALL (the sanitizers, racecheck above all: each context's warm-up and capture
// take seconds under it): one cell, TV-L1 F32.
void test_choices() {
    if (small_run()) {
        CHECK(check_cell(OF_ALGO_TVL1, OF_PRECISION_F32, Motion::Small, Photometry::GainNoise) != OF_ROBUST_NONE);
        return;
    }
    for (of_precision prec : {OF_PRECISION_F32, OF_PRECISION_F16}) {
        CHECK(check_cell(OF_ALGO_TVL1, prec, Motion::Small, Photometry::None) == OF_ROBUST_NONE);
        CHECK(check_cell(OF_ALGO_TVL1, prec, Motion::Small, Photometry::GainNoise) != OF_ROBUST_NONE);
        for (of_algorithm a : {OF_ALGO_HS, OF_ALGO_CLG, OF_ALGO_LK}) {
            (void)check_cell(a, prec, Motion::Small, Photometry::None);
            CHECK(check_cell(a, prec, Motion::Small, Photometry::GainNoise) != OF_ROBUST_NONE);
        }
    }
}

// Device output and a stream against the host-output pair.
void test_memory_kinds() {
    const Cell c = make_cell(Motion::Small, Photometry::GainNoise);
    for (of_algorithm a : {OF_ALGO_TVL1, OF_ALGO_LK}) {
        if (small_run() && a != OF_ALGO_TVL1) continue;
        const of_config cfg = cuda_config(a, OF_PRECISION_F32, OF_ROBUST_PICK);
        const Run host = run(cfg, c, "gpu_robust_pick");
        CHECK(host.ok);
        of_context* ctx = create_or_report(cfg, "gpu_robust_pick device output");
        if (!ctx) return;
        const Frame fa = make_frame(OF_PIXEL_F32, kW, kH, c.i0.data(), kW), fb = make_frame(OF_PIXEL_F32, kW, kH, c.i1.data(), kW);
        DevFlow d = device_flow(kW, kH, OF_FLOW_PLANAR, OF_MEMORY_CUDA_DEVICE);
        CHECK(of_process(ctx, &fa.img, &fb.img, &d.f) == OF_OK);
        const FlowBuf got = d.fetch();
        CHECK(info_of(ctx).last_pick == OF_ROBUST_PICK); // not known to the host
        std::vector<float> want = host.u;
        want.insert(want.end(), host.v.begin(), host.v.end());
        CHECK_MSG(got.extract() == want, "algorithm %d: device output differs from host output", static_cast<int>(a));
        // A stream: warm_start asked for is not applied; each pair is of_process's.
        of_destroy(ctx);
        of_config sc = cfg;
        sc.warm_start = 1;
        ctx = create_or_report(sc, "gpu_robust_pick stream");
        if (!ctx) return;
        std::vector<float> u(c.i0.size()), v(c.i0.size());
        of_flow f = host_planar_flow(u.data(), v.data(), kW, kH);
        CHECK(of_push_frame(ctx, &fa.img, &f) == OF_PENDING);
        CHECK(of_push_frame(ctx, &fb.img, &f) == OF_OK);
        of_info in = info_of(ctx);
        CHECK(in.last_warm == 0 && in.warm_start == 0 && in.last_pick == host.info.last_pick);
        CHECK_MSG(u == host.u && v == host.v, "algorithm %d: the stream's pair differs from of_process's", static_cast<int>(a));
        CHECK(of_push_frame(ctx, &fa.img, &f) == OF_OK);
        in = info_of(ctx);
        CHECK(in.last_warm == 0);
        of_destroy(ctx);
    }
}

// The plan: CUDA taken, never split, the pick's device planes.
void test_plan() {
    for (of_algorithm a : {OF_ALGO_TVL1, OF_ALGO_HS, OF_ALGO_LK}) {
        of_config p = cuda_config(a, OF_PRECISION_F32, OF_ROBUST_PICK), l = cuda_config(a, OF_PRECISION_F32, OF_ROBUST_LEVEL_NORM);
        of_memory mp, ml;
        std::memset(&mp, 0, sizeof mp);
        std::memset(&ml, 0, sizeof ml);
        mp.struct_size = ml.struct_size = sizeof(of_memory);
        CHECK(of_query_memory(&p, &mp) == OF_OK && of_query_memory(&l, &ml) == OF_OK);
        const std::size_t plane = static_cast<std::size_t>(kW) * kH * sizeof(float); // at least (pitched rows)
        const std::size_t more = (a == OF_ALGO_LK ? 7 : 6) * plane;
        CHECK_MSG(mp.device_bytes >= ml.device_bytes + more, "algorithm %d: %zu device bytes, level-norm %zu",
                  static_cast<int>(a), mp.device_bytes, ml.device_bytes);
        p.backend = OF_BACKEND_AUTO;
        of_info info;
        std::memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        CHECK(of_explain(&p, &info) == OF_OK);
        for (uint32_t lv = 0; lv < info.levels && lv < OF_MAX_LEVELS; ++lv)
            if (info.backend == OF_BACKEND_CUDA)
                CHECK_MSG(info.level_backend[lv] == OF_BACKEND_CUDA, "algorithm %d: level %u split to the CPU",
                          static_cast<int>(a), lv);
    }
}

} // namespace

int main() {
    if (!cuda_ready()) return 77;
    test_plan();
    test_memory_kinds();
    test_choices();
    return finish("gpu_robust_pick");
}
