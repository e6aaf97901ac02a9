// neon_flow: the whole TV-L1 flow through the NEON backend (pyramid, warp, row-pipelined
// iterations, upsampling) against the reference backend, through the public API.
//  - F32: every flow value within 1e-3 px of the reference (epsilon 0, so both run the same
//    number of iterations);
//  - determinism: with epsilon 0 the NEON flow is bitwise the same for 1, 2, 3 and 5 threads
//    (the row pipeline's band seams do not change any value);
//  - F16 (where the build and the CPU have FP16 vector arithmetic): of_get_info reports F16,
//    the flow is deterministic across threads too, its end-point error against the ground
//    truth is within kF16EpeMargin of the F32 flow's, and its mean distance to the F32 flow
//    is below kF16MeanDiff px.
// The backend is chosen by the config: OFLOW_FORCE_BACKEND is cleared first.
#include "tests/test_util.hpp"

#include "neon/kernels_neon.hpp"

#include <cstdlib>

using namespace oftest;
using oflow::synth::Case;

namespace {

const float kF32MaxDiff = 1e-3f;    // px, any flow value, NEON F32 vs reference
const double kF16EpeMargin = 0.01;  // px, mean EPE of F16 over F32's (measured <= 1e-4)
const double kF16MeanDiff = 5e-3;   // px, mean |F16 - F32| over u and v (measured <= 6e-4)

of_config make_cfg(uint32_t w, uint32_t h, of_backend b, of_precision p, uint32_t threads) {
    of_config c = tvl1_config(w, h);
    c.backend = b;
    c.precision = p;
    c.threads = threads;
    c.epsilon = 0.0f;
    c.warps = 3;
    c.iterations = 40;
    return oftest::one_solve(c); // path parity: pick's choice could flip on a near tie
}

// The flow (u then v) of one run with a fresh context; empty on failure. *info gets its info.
std::vector<float> flow_of(const of_config& c, const FramePair& fp, const Pair& p, const char* what,
                           of_info* info = nullptr) {
    of_context* ctx = create_or_report(c, what);
    CHECK_MSG(ctx != nullptr, "%s: create", what);
    if (!ctx) return {};
    FlowBuf f = make_flow(p.w, p.h);
    const of_status s = of_process(ctx, &fp.prev.img, &fp.next.img, &f.f);
    CHECK_MSG(s == OF_OK, "%s: %s (%s)", what, st(s), of_last_error(ctx));
    if (info) {
        std::memset(info, 0, sizeof *info);
        info->struct_size = sizeof(of_info);
        CHECK(of_get_info(ctx, info) == OF_OK);
    }
    of_destroy(ctx);
    if (s != OF_OK) return {};
    std::vector<float> r = f.extract();
    CHECK_MSG(all_finite(r), "%s: non-finite flow", what);
    return r;
}

void check_case(Case k, uint32_t w, uint32_t h) {
    const Pair p = synth_pair(k, w, h, 7);
    const FramePair fp = frames_of(p, OF_PIXEL_U8);
    char what[160];
    std::snprintf(what, sizeof what, "%s %ux%u", oflow::synth::case_name(k), w, h);

    const std::vector<float> ref = flow_of(make_cfg(w, h, OF_BACKEND_REFERENCE, OF_PRECISION_F32, 1), fp, p, what);
    of_info info;
    const std::vector<float> n1 = flow_of(make_cfg(w, h, OF_BACKEND_NEON, OF_PRECISION_F32, 1), fp, p, what, &info);
    if (ref.empty() || n1.empty()) return;
    CHECK_MSG(info.backend == OF_BACKEND_NEON && info.precision == OF_PRECISION_F32, "%s: info says backend %d precision %d",
              what, static_cast<int>(info.backend), static_cast<int>(info.precision));
    double maxd = 0.0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const double d = std::fabs(static_cast<double>(n1[i]) - ref[i]);
        if (d > maxd) maxd = d;
    }
    const double epe_ref = mean_epe(ref, p), epe32 = mean_epe(n1, p);
    std::printf("  %-28s F32: max |neon - ref| %.3g px; EPE ref %.4f neon %.4f\n", what, maxd, epe_ref, epe32);
    CHECK_MSG(maxd <= kF32MaxDiff, "%s: NEON F32 differs from the reference by %.3g px", what, maxd);
    for (uint32_t t : {2u, 3u, 5u}) {
        char w2[200];
        std::snprintf(w2, sizeof w2, "%s NEON F32 threads %u vs 1", what, t);
        CHECK(same_bits(flow_of(make_cfg(w, h, OF_BACKEND_NEON, OF_PRECISION_F32, t), fp, p, w2), n1, w2));
    }

    if (!oflow::neon_has_f16_arith()) return;
    const std::vector<float> h1 = flow_of(make_cfg(w, h, OF_BACKEND_NEON, OF_PRECISION_F16, 1), fp, p, what, &info);
    if (h1.empty()) return;
    CHECK_MSG(info.precision == OF_PRECISION_F16, "%s: F16 requested, info says precision %d", what,
              static_cast<int>(info.precision));
    double mean = 0.0, maxh = 0.0;
    for (size_t i = 0; i < h1.size(); ++i) {
        const double d = std::fabs(static_cast<double>(h1[i]) - n1[i]);
        mean += d;
        if (d > maxh) maxh = d;
    }
    mean /= static_cast<double>(h1.size());
    const double epe16 = mean_epe(h1, p);
    std::printf("  %-28s F16: mean |f16 - f32| %.4f px, max %.3g px; EPE f16 %.4f\n", what, mean, maxh, epe16);
    CHECK_MSG(mean <= kF16MeanDiff, "%s: F16 mean distance to F32 %.4f px", what, mean);
    CHECK_MSG(epe16 <= epe32 + kF16EpeMargin, "%s: F16 EPE %.4f vs F32 %.4f", what, epe16, epe32);
    char w3[200];
    std::snprintf(w3, sizeof w3, "%s NEON F16 threads 3 vs 1", what);
    CHECK(same_bits(flow_of(make_cfg(w, h, OF_BACKEND_NEON, OF_PRECISION_F16, 3), fp, p, w3), h1, w3));
}

} // namespace

int main() {
    unsetenv("OFLOW_FORCE_BACKEND");
    std::printf("neon_flow: FP16 vector arithmetic %s\n", oflow::neon_has_f16_arith() ? "on" : "off");
    check_case(Case::Translation, 64, 48);
    check_case(Case::RotationZoom, 61, 47);
    check_case(Case::SmoothField, 33, 29);
    check_case(Case::Occlusion, 72, 40);
    check_case(Case::NoiseGain, 45, 17);
    return finish("neon_flow");
}
