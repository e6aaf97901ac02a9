#include "runner.hpp"

#include "core/flow_format.hpp" // the compact formats back to float (header only)
#include "core/robust.hpp"      // robust_mode_name (header only)

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>

namespace cli {
namespace {

std::string status_line(const char* call, of_status s, const char* detail) {
    std::string msg = std::string(call) + ": " + of_status_string(s);
    if (detail && *detail) msg += std::string(" (") + detail + ")";
    return msg;
}

} // namespace

const char* algo_name(of_algorithm a) {
    switch (a) {
    case OF_ALGO_TVL1: return "tvl1";
    case OF_ALGO_HS: return "hs";
    case OF_ALGO_CLG: return "clg";
    case OF_ALGO_LK: return "lk";
    case OF_ALGO_DIS: return "dis";
    default: break;
    }
    return "unknown";
}

const char* backend_name(of_backend b) {
    switch (b) {
    case OF_BACKEND_AUTO: return "auto";
    case OF_BACKEND_REFERENCE: return "reference";
    case OF_BACKEND_NEON: return "neon";
    case OF_BACKEND_CUDA: return "cuda";
    default: break;
    }
    return "unknown";
}

const char* precision_name(of_precision p) {
    switch (p) {
    case OF_PRECISION_AUTO: return "auto";
    case OF_PRECISION_F32: return "f32";
    case OF_PRECISION_F16: return "f16";
    default: break;
    }
    return "unknown";
}

const char* robust_name(of_robust r) { return oflow::robust_mode_name(r); }

const char* solver_name(of_solver s) {
    switch (s) {
    case OF_SOLVER_JACOBI: return "jacobi";
    case OF_SOLVER_RED_BLACK_SOR: return "sor";
    case OF_SOLVER_PRIMAL_DUAL: return "primal-dual";
    default: break;
    }
    return "unknown";
}

const char* variant_name(of_variant v) {
    switch (v) {
    case OF_VARIANT_AUTO: return "auto";
    case OF_VARIANT_GLOBAL: return "global";
    case OF_VARIANT_FUSED: return "fused";
    case OF_VARIANT_MULTI_ITER: return "multi-iter";
    default: break;
    }
    return "unknown";
}

const char* format_name(of_pixel_format f) {
    switch (f) {
    case OF_PIXEL_U8: return "u8";
    case OF_PIXEL_U16: return "u16";
    case OF_PIXEL_F32: return "f32";
    default: break;
    }
    return "unknown";
}

bool make_config(const Options& o, int width, int height, of_pixel_format format, of_config* out,
                 std::string* err) {
    const of_algorithm algo = o.algo == "hs"    ? OF_ALGO_HS
                              : o.algo == "clg" ? OF_ALGO_CLG
                              : o.algo == "lk"  ? OF_ALGO_LK
                              : o.algo == "dis" ? OF_ALGO_DIS
                                                : OF_ALGO_TVL1;
    of_config cfg;
    of_status s = of_config_init(&cfg, algo);
    if (s != OF_OK) {
        *err = status_line("of_config_init", s, of_last_error(nullptr));
        return false;
    }
    cfg.max_width = static_cast<uint32_t>(width);
    cfg.max_height = static_cast<uint32_t>(height);
    cfg.format = format;
    cfg.backend = o.backend == "reference" ? OF_BACKEND_REFERENCE
                  : o.backend == "neon"    ? OF_BACKEND_NEON
                  : o.backend == "cuda"    ? OF_BACKEND_CUDA
                                           : OF_BACKEND_AUTO;
    cfg.precision = o.precision == "f32"   ? OF_PRECISION_F32
                    : o.precision == "f16" ? OF_PRECISION_F16
                                           : OF_PRECISION_AUTO;
    if (o.levels) cfg.levels = *o.levels;
    if (o.scale) cfg.scale_factor = *o.scale;
    if (o.warps) cfg.warps = *o.warps;
    if (o.iters) cfg.iterations = *o.iters;
    if (o.epsilon) cfg.epsilon = *o.epsilon;
    if (o.threads) cfg.threads = *o.threads;
    if (o.lambda) cfg.tvl1.lambda = *o.lambda;
    if (o.tau) cfg.tvl1.tau = *o.tau;
    if (o.theta) cfg.tvl1.theta = *o.theta;
    if (o.alpha) cfg.hs.alpha = *o.alpha;
    if (o.rho) cfg.hs.rho = *o.rho;
    if (o.window) cfg.lk.window = *o.window;
    if (o.presmooth) cfg.presmooth_sigma = *o.presmooth;
    if (o.robust)
        for (int r = OF_ROBUST_NONE; r <= oflow::kRobustLast; ++r)
            if (*o.robust == robust_name(static_cast<of_robust>(r))) cfg.robust = static_cast<of_robust>(r);
    if (o.robust_sigma) cfg.robust_sigma = *o.robust_sigma;
    if (o.init) cfg.init = *o.init == "dis" ? OF_INIT_DIS : OF_INIT_NONE;
    if (o.median) cfg.median_size = *o.median;
    if (o.min_texture) cfg.min_texture = *o.min_texture;
    if (o.growth) cfg.iteration_growth = *o.growth;
    if (o.warm_start) cfg.warm_start = *o.warm_start ? 1u : 0u;
    // Robust pick solves each pair three ways and does not apply a warm start: say so
    // instead of reporting "warm start off" with no reason.
    if (cfg.warm_start && cfg.robust == OF_ROBUST_PICK)
        std::fprintf(stderr, "oflow-cli: note: --warm-start on is not applied under robust pick; "
                             "pass --robust none, local-norm or level-norm to use it\n");
    if (o.solver) cfg.hs.solver = *o.solver == "sor" ? OF_SOLVER_RED_BLACK_SOR : OF_SOLVER_JACOBI;
    if (o.omega) cfg.hs.omega = *o.omega;
    if (o.min_eigen) cfg.lk.min_eigen = *o.min_eigen;
    if (o.preset) {
        const of_dis_preset_id id = *o.preset == "ultrafast" ? OF_DIS_ULTRAFAST
                                    : *o.preset == "fast"    ? OF_DIS_FAST
                                                             : OF_DIS_MEDIUM;
        s = of_dis_preset(&cfg, id);
        if (s != OF_OK) {
            *err = status_line("of_dis_preset", s, of_last_error(nullptr));
            return false;
        }
    }
    if (o.patch) cfg.dis.patch_size = *o.patch; // of_create checks every DIS field
    if (o.stride) cfg.dis.patch_stride = *o.stride;
    if (o.dis_iters) cfg.dis.iterations = *o.dis_iters;
    if (o.finest) cfg.dis.finest_level = *o.finest;
    if (o.refine) cfg.dis.refine_iterations = *o.refine;
    if (o.refine_alpha) cfg.dis.refine_alpha = *o.refine_alpha;
    if (o.refine_delta) cfg.dis.refine_delta = *o.refine_delta;
    if (o.refine_gamma) cfg.dis.refine_gamma = *o.refine_gamma;
    if (o.min_confidence) cfg.min_confidence = *o.min_confidence; // of_create checks [0, 1]
    if (o.platform) cfg.platform = o.platform->c_str();
    if (!o.tuning.empty()) cfg.tuning_path = o.tuning.c_str();
    if (o.budget) cfg.time_budget_ms = *o.budget;
    cfg.variant = o.variant == "global"       ? OF_VARIANT_GLOBAL
                  : o.variant == "fused"      ? OF_VARIANT_FUSED
                  : o.variant == "multi-iter" ? OF_VARIANT_MULTI_ITER
                                              : OF_VARIANT_AUTO;
    cfg.block_width = static_cast<uint32_t>(o.block_w);
    cfg.block_height = static_cast<uint32_t>(o.block_h);
    if (o.fused_depth) cfg.fused_depth = *o.fused_depth;
    *out = cfg;
    return true;
}

bool explain_config(const Options& o, int width, int height, of_pixel_format format, of_info* out,
                    of_config* used, std::string* err) {
    of_config& cfg = *used;
    if (!make_config(o, width, height, format, &cfg, err)) return false;
    *out = of_info();
    out->struct_size = sizeof(of_info);
    const of_status s = of_explain(&cfg, out);
    if (s != OF_OK) {
        *err = status_line("of_explain", s, of_last_error(nullptr));
        return false;
    }
    // The library promises NUL-terminated text; do not rely on it when printing.
    out->variant[sizeof out->variant - 1] = '\0';
    out->reason[sizeof out->reason - 1] = '\0';
    out->board[sizeof out->board - 1] = '\0';
    out->board_match[sizeof out->board_match - 1] = '\0';
    out->board_reason[sizeof out->board_reason - 1] = '\0';
    return true;
}

bool Flow::create(const Options& o, int width, int height, of_pixel_format format,
                  std::string* err) {
    of_config& cfg = cfg_;
    if (!make_config(o, width, height, format, &cfg, err)) return false;
    of_destroy(ctx_);
    ctx_ = nullptr;
    const of_status s = of_create(&cfg, &ctx_);
    if (s != OF_OK) {
        ctx_ = nullptr;
        *err = status_line("of_create", s, of_last_error(nullptr));
        return false;
    }
    width_ = width;
    height_ = height;
    format_ = format;
    flow_format_ = o.flow_format == "f16"     ? OF_FLOW_FORMAT_F16
                   : o.flow_format == "s10.5" ? OF_FLOW_FORMAT_S10_5
                                              : OF_FLOW_FORMAT_F32;
    return true;
}

of_image Flow::frame_view(const void* data, std::size_t stride) const {
    of_image img = of_image();
    img.struct_size = sizeof(of_image);
    img.format = format_;
    img.memory = OF_MEMORY_HOST;
    img.width = static_cast<uint32_t>(width_);
    img.height = static_cast<uint32_t>(height_);
    img.stride = stride;
    img.data = data;
    return img;
}

of_flow Flow::output(std::vector<float>* uv, std::vector<uint16_t>* packed, std::vector<unsigned char>* valid) const {
    const std::size_t n = 2 * static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_);
    uv->assign(n, 0.0f);
    // A compact format goes into 16-bit elements first and comes back to float in unpack().
    const bool compact = flow_format_ != OF_FLOW_FORMAT_F32;
    packed->assign(compact ? n : 0, 0);
    if (valid) valid->assign(static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_), 0);
    of_flow flow = of_flow();
    flow.struct_size = sizeof(of_flow);
    flow.layout = OF_FLOW_INTERLEAVED;
    flow.memory = OF_MEMORY_HOST;
    flow.width = static_cast<uint32_t>(width_);
    flow.height = static_cast<uint32_t>(height_);
    flow.stride = 2 * (compact ? sizeof(uint16_t) : sizeof(float)) * static_cast<std::size_t>(width_);
    flow.u = compact ? reinterpret_cast<float*>(packed->data()) : uv->data();
    flow.v = nullptr;
    flow.format = flow_format_;
    if (valid) { // else OF_VALID_NONE, valid NULL (zero-initialised): no validity pass
        flow.valid_format = OF_VALID_MASK_U8;
        flow.valid_stride = static_cast<std::size_t>(width_);
        flow.valid = valid->data();
    }
    return flow;
}

void Flow::unpack(const std::vector<uint16_t>& packed, std::vector<float>* uv) const {
    for (std::size_t i = 0; i < packed.size(); ++i)
        (*uv)[i] = flow_format_ == OF_FLOW_FORMAT_F16 ? oflow::f16_to_float(packed[i])
                                                      : oflow::s10_5_to_float(static_cast<int16_t>(packed[i]));
}

bool Flow::process(const void* frame0, const void* frame1, std::size_t stride, uint32_t repeat,
                   std::vector<float>* uv, std::vector<unsigned char>* valid, std::vector<float>* confidence,
                   double* median_ms, std::string* err) {
    const of_image img[2] = {frame_view(frame0, stride), frame_view(frame1, stride)};
    std::vector<uint16_t> packed;
    of_flow flow = output(uv, &packed, valid);
    std::vector<double> ms;
    for (uint32_t r = 0; r < repeat; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        const of_status s = of_process(ctx_, &img[0], &img[1], &flow);
        const auto t1 = std::chrono::steady_clock::now();
        if (s != OF_OK) {
            *err = status_line("of_process", s, of_last_error(ctx_));
            return false;
        }
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    if (confidence) { // the same pair once more, the flow into scratch, the confidence plane into *confidence
        std::vector<float> uv2;
        std::vector<uint16_t> packed2;
        std::vector<unsigned char> unused;
        of_flow f2 = output(&uv2, &packed2, &unused);
        confidence->assign(static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_), 0.0f);
        f2.valid_format = OF_VALID_CONFIDENCE_F32;
        f2.valid_stride = sizeof(float) * static_cast<std::size_t>(width_);
        f2.valid = confidence->data();
        const of_status s = of_process(ctx_, &img[0], &img[1], &f2);
        if (s != OF_OK) {
            *err = status_line("of_process", s, of_last_error(ctx_));
            return false;
        }
    }
    unpack(packed, uv);
    std::sort(ms.begin(), ms.end());
    const std::size_t m = ms.size();
    *median_ms = m % 2 ? ms[m / 2] : 0.5 * (ms[m / 2 - 1] + ms[m / 2]);
    return true;
}

bool Flow::push(const void* frame, std::size_t stride, std::vector<float>* uv, std::vector<unsigned char>* valid,
                bool* pending, double* ms, std::string* err) {
    const of_image img = frame_view(frame, stride);
    std::vector<uint16_t> packed;
    of_flow flow = output(uv, &packed, valid);
    const auto t0 = std::chrono::steady_clock::now();
    const of_status s = of_push_frame(ctx_, &img, &flow);
    const auto t1 = std::chrono::steady_clock::now();
    *ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    *pending = s == OF_PENDING;
    if (s != OF_OK && s != OF_PENDING) {
        *err = status_line("of_push_frame", s, of_last_error(ctx_));
        return false;
    }
    unpack(packed, uv);
    return true;
}

bool Flow::info(of_info* out, std::string* err) const {
    *out = of_info();
    out->struct_size = sizeof(of_info);
    const of_status s = of_get_info(ctx_, out);
    if (s != OF_OK) {
        *err = status_line("of_get_info", s, of_last_error(ctx_));
        return false;
    }
    // The library promises NUL-terminated text; do not rely on it when printing.
    out->variant[sizeof out->variant - 1] = '\0';
    out->reason[sizeof out->reason - 1] = '\0';
    return true;
}

} // namespace cli
