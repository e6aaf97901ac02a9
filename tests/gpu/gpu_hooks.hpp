// Helpers of the GPU tests of an algorithm's CUDA path that drive its stages through the test
// hooks (cuda/cuda_bench.hpp): gpu_hs, gpu_lk. A context a sub-test owns, one stage run, the
// bit-for-bit comparison, the named sub-tests of the command line, and the synthetic cases both
// run their frames and accuracy checks on.
#ifndef OFLOW_TESTS_GPU_GPU_HOOKS_HPP
#define OFLOW_TESTS_GPU_GPU_HOOKS_HPP

#include "gpu_util.hpp"

#include "core/context.hpp"
#include "core/synth_matrix.hpp"
#include "cuda/cuda_bench.hpp"

#include <cstring>

namespace gputest {

/// cfg with backend CUDA, variant v and precision p.
inline of_config on_cuda(of_config c, of_variant v, of_precision p) {
    c.backend = OF_BACKEND_CUDA;
    c.variant = v;
    c.precision = p;
    return c;
}

/// A context for the stage hooks, destroyed with the sub-test (a failed create is a failed check).
struct HookCtx {
    of_context* ctx = nullptr;
    explicit HookCtx(const of_config& c) {
        ctx = create_or_report(c, "stage hook context");
        CHECK(ctx != nullptr);
    }
    ~HookCtx() { of_destroy(ctx); }
    HookCtx(const HookCtx&) = delete;
    HookCtx& operator=(const HookCtx&) = delete;
};

/// One oflow::cuda::hooks::run_stage on c's CUDA state; false (a failed check) when it fails.
inline bool run_hook(const HookCtx& c, oflow::cuda::hooks::StageRun& r, const char* what) {
    if (!c.ctx) return false;
    char buf[oflow::kErrorCapacity] = {0};
    const of_status s = oflow::cuda::hooks::run_stage(c.ctx->cuda, &r, oflow::ErrorSink{buf});
    CHECK_MSG(s == OF_OK, "%s: run_stage: %s (%s)", what, st(s), buf);
    return s == OF_OK;
}

/// Every value of a equal to b's bit for bit; else a failed check saying how many and the first.
inline bool bitwise(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
    size_t bad = a.size() == b.size() ? 0 : a.size() + 1, first = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i)
        if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0 && bad++ == 0) first = i;
    CHECK_MSG(bad == 0, "%s: %zu of %zu values differ from the reference (first at %zu: %.9g vs %.9g)", what, bad,
              a.size(), first, bad && first < a.size() ? static_cast<double>(a[first]) : 0.0,
              bad && first < b.size() ? static_cast<double>(b[first]) : 0.0);
    return bad == 0;
}

/// Whether the command line names sub-test `name` (no argument: every sub-test).
inline bool wanted(int argc, char** argv, const char* name) {
    if (argc < 2) return true;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], name) == 0) return true;
    return false;
}

/// c with backend AUTO creates a context that runs on the CUDA path (the generic table's crossover
/// wants the GPU at c's size on a GPU machine); a failed check naming `what` otherwise.
inline void check_auto_picks_cuda(of_config c, const char* what) {
    c.backend = OF_BACKEND_AUTO;
    of_context* ctx = create_or_report(c, what);
    if (!ctx) return;
    CHECK_MSG(info_of(ctx).backend == OF_BACKEND_CUDA, "%s ran backend %d", what, info_of(ctx).backend);
    of_destroy(ctx);
}

/// The frames cases: five synthetic cases at 160x120, two at 97x61 (odd sizes) last, so that a
/// small run (OFLOW_GPU_SMALL) takes the last two.
struct SizedCase {
    oflow::synth::Case c;
    uint32_t w, h;
};
const SizedCase kFrameCases[] = {{oflow::synth::Case::Translation, 160, 120}, {oflow::synth::Case::RotationZoom, 160, 120},
                                 {oflow::synth::Case::SmoothField, 160, 120}, {oflow::synth::Case::Occlusion, 160, 120},
                                 {oflow::synth::Case::NoiseGain, 160, 120},   {oflow::synth::Case::SmoothField, 97, 61},
                                 {oflow::synth::Case::Translation, 97, 61}};
const size_t kFrameCaseCount = sizeof kFrameCases / sizeof kFrameCases[0];

/// The accuracy cases: the seven synthetic cases and two exposure changes of frame 1.
struct ExposedCase {
    oflow::synth::Case c;
    oflow::synth::Texture t;
    float gain, offset, noise;
};
const ExposedCase kAccuracyCases[] = {
    {oflow::synth::Case::Translation, oflow::synth::Texture::Default, 1, 0, 0},
    {oflow::synth::Case::RotationZoom, oflow::synth::Texture::Default, 1, 0, 0},
    {oflow::synth::Case::SmoothField, oflow::synth::Texture::Default, 1, 0, 0},
    {oflow::synth::Case::Occlusion, oflow::synth::Texture::Default, 1, 0, 0},
    {oflow::synth::Case::NoiseGain, oflow::synth::Texture::Default, 1, 0, 0},
    {oflow::synth::Case::FineTexture, oflow::synth::Texture::Fine, 1, 0, 0},
    {oflow::synth::Case::CameraMotion, oflow::synth::Texture::Default, 1, 0, 0},
    {oflow::synth::Case::SmoothField, oflow::synth::Texture::Default, 1.25f, 20.0f, 3.0f},
    {oflow::synth::Case::FineTexture, oflow::synth::Texture::Fine, 1.25f, 20.0f, 3.0f},
};

/// Case k's pair at w x h (seed 1) with its exposure change, and its name in `name`.
inline Pair accuracy_pair(const ExposedCase& k, uint32_t w, uint32_t h, char* name, size_t n) {
    oflow::synth::Exposure e;
    e.gain = k.gain;
    e.offset = k.offset;
    e.noise_sigma = k.noise;
    std::snprintf(name, n, "%s%s", oflow::synth::case_name(k.c), k.gain != 1.0f ? " 1.25,20,3" : "");
    return synth_pair_exposed(k.c, k.t, e, w, h, 1);
}

/// The mean EPE of config c on the accuracy matrix's cell (m, ph) (core/synth_matrix.hpp, its
/// size and F32 frames set here, host frames and flow); of_info in *info and the flow (u then v)
/// in *flow when given; -1 (a failed check) when create fails.
inline double matrix_cell_epe(of_config c, oflow::synth::Motion m, oflow::synth::Photometry ph, of_info* info,
                              std::vector<float>* flow) {
    int w = 0, h = 0;
    oflow::synth::motion_size(m, &w, &h);
    const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    std::vector<float> i0(n), i1(n), gu(n), gv(n), u(n), v(n);
    oflow::synth::generate_cell(m, ph, w, h, 1u, i0.data(), i1.data(), gu.data(), gv.data(), w);
    c.max_width = static_cast<uint32_t>(w);
    c.max_height = static_cast<uint32_t>(h);
    c.format = OF_PIXEL_F32;
    of_context* ctx = create_or_report(c, "matrix cell");
    CHECK(ctx != nullptr);
    if (!ctx) return -1.0;
    if (info) *info = info_of(ctx);
    const of_image fa = host_f32_image(i0.data(), static_cast<uint32_t>(w), static_cast<uint32_t>(h));
    const of_image fb = host_f32_image(i1.data(), static_cast<uint32_t>(w), static_cast<uint32_t>(h));
    of_flow f = host_planar_flow(u.data(), v.data(), static_cast<uint32_t>(w), static_cast<uint32_t>(h));
    const of_status s = of_process(ctx, &fa, &fb, &f);
    CHECK_MSG(s == OF_OK, "matrix cell: of_process: %s (%s)", st(s), of_last_error(ctx));
    of_destroy(ctx);
    if (flow) {
        *flow = u;
        flow->insert(flow->end(), v.begin(), v.end());
    }
    double e = 0.0;
    for (std::size_t i = 0; i < n; ++i) e += std::hypot(u[i] - gu[i], v[i] - gv[i]);
    return e / static_cast<double>(n);
}

} // namespace gputest

#endif
