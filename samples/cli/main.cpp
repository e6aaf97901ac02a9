// oflow-cli: dense optical flow between two frames (or built-in synthetic frames), written
// as Middlebury .flo / colour PNG, with EPE/AAE against ground truth when it is known.
// Every failure ends in exactly one "oflow-cli: error: ..." line on stderr and exit code 2.
#include "args.hpp"
#include "flo_io.hpp"
#include "flow_color.hpp"
#include "flow_metrics.hpp"
#include "image_io.hpp"
#include "pfm_io.hpp"
#include "runner.hpp"
#include "stream_mode.hpp"

#include "core/synth.hpp"

#include <cmath>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

namespace {

using namespace cli;

struct Failure {
    std::string message;
};

void check(bool ok, const std::string& err) {
    if (!ok) throw Failure{err};
}

/// One frame pair in the format handed to the library.
struct Frames {
    std::string label; // "a.png b.png" or "synth translation"
    int width = 0, height = 0;
    of_pixel_format format = OF_PIXEL_U8;
    std::vector<uint8_t> u8[2];
    std::vector<uint16_t> u16[2];
    std::vector<float> f32[2];
    std::vector<float> gt; // interleaved ground truth, empty when unknown
    std::string synth_json; // --synth: {"case":..,"texture":..,"exposure":[g,o,s]}; else empty
    std::string synth_text; // --synth with an exposure or texture: a note for the text output

    const void* data(int i) const {
        return format == OF_PIXEL_U8    ? static_cast<const void*>(u8[i].data())
               : format == OF_PIXEL_U16 ? static_cast<const void*>(u16[i].data())
                                        : static_cast<const void*>(f32[i].data());
    }
    std::size_t stride() const {
        const std::size_t bpp = format == OF_PIXEL_U8 ? 1 : format == OF_PIXEL_U16 ? 2 : 4;
        return bpp * static_cast<std::size_t>(width);
    }
};

struct Result {
    std::string label;
    int width = 0, height = 0;
    of_pixel_format format = OF_PIXEL_U8;
    of_info info = of_info();
    of_config cfg = of_config(); // the config that ran
    std::string synth_json, synth_text;
    double ms = 0.0;
    uint32_t repeat = 1;
    bool has_gt = false;
    FlowError error;       // over every pixel with ground truth
    FlowError error_valid; // over those the validity mask calls valid (confidence >= cfg.min_confidence)
    double valid_share = 1.0; // of the pixels, valid (of_flow.valid), every algorithm
    bool has_valid = true;    // false with --no-validity: no mask asked for, valid_share / error_valid unset
};

// ---- inputs -------------------------------------------------------------------------------

Frames load_files(const Options& o) {
    LumaImage img[2];
    std::string err;
    for (int i = 0; i < 2; ++i) check(read_image(o.frames[i], &img[i], &err), err);
    if (img[0].width != img[1].width || img[0].height != img[1].height)
        throw Failure{"frames differ in size: " + o.frames[0] + " is " +
                      std::to_string(img[0].width) + "x" + std::to_string(img[0].height) +
                      ", " + o.frames[1] + " is " + std::to_string(img[1].width) + "x" +
                      std::to_string(img[1].height)};
    Frames f;
    f.label = o.frames[0] + " " + o.frames[1];
    f.width = img[0].width;
    f.height = img[0].height;
    f.format = img[0].depth == 8 && img[1].depth == 8 ? OF_PIXEL_U8 : OF_PIXEL_U16;
    for (int i = 0; i < 2; ++i) {
        const std::vector<uint16_t>& p = img[i].pixels;
        if (f.format == OF_PIXEL_U8) {
            f.u8[i].assign(p.begin(), p.end()); // values are 0..255
        } else {
            f.u16[i] = p;
            if (img[i].depth == 8)
                for (uint16_t& v : f.u16[i]) v = static_cast<uint16_t>(v * 257);
        }
    }
    if (!o.gt_flo.empty()) {
        FlowField gt;
        check(read_flo(o.gt_flo, &gt, &err), err);
        if (gt.width != f.width || gt.height != f.height)
            throw Failure{o.gt_flo + ": ground truth is " + std::to_string(gt.width) + "x" +
                          std::to_string(gt.height) + " but the frames are " +
                          std::to_string(f.width) + "x" + std::to_string(f.height)};
        f.gt.swap(gt.uv);
    }
    return f;
}

Frames make_synth(oflow::synth::Case c, const Options& o) {
    Frames f;
    f.label = std::string("synth ") + oflow::synth::case_name(c);
    f.width = o.width;
    f.height = o.height;
    f.format = OF_PIXEL_F32;
    const std::size_t n = static_cast<std::size_t>(o.width) * static_cast<std::size_t>(o.height);
    f.f32[0].resize(n);
    f.f32[1].resize(n);
    std::vector<float> gu(n), gv(n);
    oflow::synth::Exposure e;
    e.gain = o.exposure[0];
    e.offset = o.exposure[1];
    e.noise_sigma = o.exposure[2];
    const oflow::synth::Texture t =
        o.texture == "fine" ? oflow::synth::Texture::Fine : oflow::synth::Texture::Default;
    oflow::synth::generate_with(c, t, e, o.width, o.height, o.seed, f.f32[0].data(),
                                f.f32[1].data(), gu.data(), gv.data(), o.width);
    const char* texture = c == oflow::synth::Case::FineTexture ? "fine" : o.texture.c_str();
    char buf[160];
    std::snprintf(buf, sizeof buf, "{\"case\":\"%s\",\"texture\":\"%s\",\"exposure\":[%g,%g,%g]}",
                  oflow::synth::case_name(c), texture, e.gain, e.offset, e.noise_sigma);
    f.synth_json = buf;
    if (o.exposure_given || o.texture_given) {
        std::snprintf(buf, sizeof buf, ", texture %s, frame 1 exposure gain %g offset %g noise %g",
                      texture, e.gain, e.offset, e.noise_sigma);
        f.synth_text = buf;
    }
    f.gt.resize(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        f.gt[2 * i] = gu[i];
        f.gt[2 * i + 1] = gv[i];
    }
    return f;
}

void save_synth(const Frames& f, const std::string& prefix) {
    std::string err;
    std::vector<uint8_t> px(f.f32[0].size());
    for (int i = 0; i < 2; ++i) {
        for (std::size_t k = 0; k < px.size(); ++k) {
            const float v = std::round(f.f32[i][k]);
            px[k] = static_cast<uint8_t>(v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v));
        }
        check(write_png(prefix + std::to_string(i) + ".png", f.width, f.height, 1, 8, px.data(),
                        &err),
              err);
    }
    check(write_flo(prefix + "_gt.flo", f.width, f.height, f.gt.data(), &err), err);
}

// "out.flo" + "-translation" -> "out-translation.flo" (before the extension, if any).
std::string with_suffix(const std::string& path, const std::string& suffix) {
    const std::size_t slash = path.find_last_of('/');
    const std::size_t dot = path.find_last_of('.');
    if (dot == std::string::npos || dot == 0 || (slash != std::string::npos && dot < slash + 2))
        return path + suffix;
    return path.substr(0, dot) + suffix + path.substr(dot);
}

// ---- output -------------------------------------------------------------------------------

std::string json_string(const char* s) {
    std::string out = "\"";
    for (; *s; ++s) {
        const unsigned char c = static_cast<unsigned char>(*s);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

std::string json_number(double v, const char* fmt) {
    if (!std::isfinite(v)) return "null";
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

// The config that ran, every field the command line sets, named as in of_config.
std::string config_json(const of_config& c) {
    auto num = [](float v) { return json_number(static_cast<double>(v), "%g"); };
    auto u = [](uint32_t v) { return std::to_string(v); };
    return std::string("{\"algorithm\":") + json_string(algo_name(c.algorithm)) +
           ",\"max_width\":" + u(c.max_width) + ",\"max_height\":" + u(c.max_height) +
           ",\"format\":" + json_string(format_name(c.format)) + ",\"levels\":" + u(c.levels) +
           ",\"scale_factor\":" + num(c.scale_factor) + ",\"warps\":" + u(c.warps) +
           ",\"iterations\":" + u(c.iterations) + ",\"epsilon\":" + num(c.epsilon) +
           ",\"presmooth_sigma\":" + num(c.presmooth_sigma) +
           ",\"backend\":" + json_string(backend_name(c.backend)) +
           ",\"precision\":" + json_string(precision_name(c.precision)) +
           ",\"threads\":" + u(c.threads) + ",\"time_budget_ms\":" + num(c.time_budget_ms) +
           ",\"tvl1\":{\"tau\":" + num(c.tvl1.tau) + ",\"lambda\":" + num(c.tvl1.lambda) +
           ",\"theta\":" + num(c.tvl1.theta) + "},\"hs\":{\"alpha\":" + num(c.hs.alpha) +
           ",\"rho\":" + num(c.hs.rho) + ",\"solver\":" + json_string(solver_name(c.hs.solver)) +
           ",\"omega\":" + num(c.hs.omega) + "},\"lk\":{\"window\":" + u(c.lk.window) +
           ",\"min_eigen\":" + num(c.lk.min_eigen) + "},\"dis\":{\"patch_size\":" + u(c.dis.patch_size) +
           ",\"patch_stride\":" + u(c.dis.patch_stride) + ",\"iterations\":" + u(c.dis.iterations) +
           ",\"finest_level\":" + u(c.dis.finest_level) + ",\"refine_iterations\":" + u(c.dis.refine_iterations) +
           ",\"refine_alpha\":" + num(c.dis.refine_alpha) + ",\"refine_delta\":" + num(c.dis.refine_delta) +
           ",\"refine_gamma\":" + num(c.dis.refine_gamma) +
           "},\"platform\":" + (c.platform ? json_string(c.platform) : std::string("null")) +
           ",\"variant\":" + json_string(variant_name(c.variant)) +
           ",\"block_width\":" + u(c.block_width) + ",\"block_height\":" + u(c.block_height) +
           ",\"fused_depth\":" + u(c.fused_depth) +
           ",\"tuning_path\":" + (c.tuning_path ? json_string(c.tuning_path) : std::string("null")) +
           ",\"robust\":" + json_string(robust_name(c.robust)) +
           ",\"init\":" + json_string(c.init == OF_INIT_DIS ? "dis" : "none") +
           ",\"robust_sigma\":" + num(c.robust_sigma) + ",\"median_size\":" + u(c.median_size) +
           ",\"min_texture\":" + num(c.min_texture) + ",\"iteration_growth\":" + num(c.iteration_growth) +
           ",\"warm_start\":" + std::string(c.warm_start ? "true" : "false") +
           ",\"min_confidence\":" + num(c.min_confidence) + "}";
}

// What the preprocessing and the schedule are, from of_info (and the config's presmoothing).
std::string robust_json(const of_info& in, const of_config& c) {
    return ",\"robust\":" + json_string(robust_name(in.robust)) +
           (in.robust == OF_ROBUST_PICK ? ",\"robust_kept\":" + json_string(robust_name(in.last_pick)) : std::string()) +
           ",\"robust_sigma\":" + json_number(static_cast<double>(in.robust_sigma), "%g") +
           ",\"median\":" + std::to_string(in.median_size) +
           ",\"min_texture\":" + json_number(static_cast<double>(in.min_texture), "%g") +
           ",\"presmooth\":" + json_number(static_cast<double>(c.presmooth_sigma), "%g");
}

std::string robust_text(const of_info& in, const of_config& c) {
    char buf[224];
    char what[64];
    if (in.robust == OF_ROBUST_PICK) // the candidate the last frame kept
        std::snprintf(what, sizeof what, "pick (kept %s)", robust_name(in.last_pick));
    else
        std::snprintf(what, sizeof what, "%s", robust_name(in.robust));
    std::snprintf(buf, sizeof buf, "%s (sigma %g px), median %u%s, presmooth %g%s", what,
                  static_cast<double>(in.robust_sigma), in.median_size, in.median_size ? "" : " (off)",
                  static_cast<double>(c.presmooth_sigma), c.init == OF_INIT_DIS ? ", init dis" : "");
    return buf;
}

// The inner solver that runs (of_info): "primal-dual" (TV-L1), HS/CLG's with its parameters, or
// LK's window and threshold (of_info has no LK fields: from the config that ran).
std::string solver_text(const of_info& in, const of_config& c) {
    if (in.algorithm == OF_ALGO_LK) {
        char b[128];
        std::snprintf(b, sizeof b, "lucas-kanade, window %u, min_eigen %g", c.lk.window, static_cast<double>(c.lk.min_eigen));
        return b;
    }
    if (in.algorithm == OF_ALGO_DIS) {
        char b[160];
        std::snprintf(b, sizeof b, "dense inverse search, patch %u, stride %u, %u steps, finest level %u, refinement %u",
                      c.dis.patch_size, c.dis.patch_stride, c.dis.iterations, c.dis.finest_level,
                      c.dis.refine_iterations);
        return b;
    }
    if (in.solver == OF_SOLVER_PRIMAL_DUAL) return solver_name(in.solver);
    char b[128];
    int n = std::snprintf(b, sizeof b, "%s", solver_name(in.solver));
    if (in.solver == OF_SOLVER_RED_BLACK_SOR)
        n += std::snprintf(b + n, sizeof b - static_cast<size_t>(n), " omega %g", static_cast<double>(in.omega));
    n += std::snprintf(b + n, sizeof b - static_cast<size_t>(n), ", alpha %g", static_cast<double>(in.alpha));
    if (in.algorithm == OF_ALGO_CLG)
        std::snprintf(b + n, sizeof b - static_cast<size_t>(n), ", rho %g", static_cast<double>(in.rho));
    return b;
}

std::string solver_json(const of_info& in, const of_config& c) {
    auto num = [](float v) { return json_number(static_cast<double>(v), "%g"); };
    if (in.algorithm == OF_ALGO_LK)
        return ",\"solver\":{\"name\":\"lucas-kanade\",\"window\":" + std::to_string(c.lk.window) +
               ",\"min_eigen\":" + num(c.lk.min_eigen) + "}";
    if (in.algorithm == OF_ALGO_DIS)
        return ",\"solver\":{\"name\":\"dense-inverse-search\",\"patch_size\":" + std::to_string(c.dis.patch_size) +
               ",\"patch_stride\":" + std::to_string(c.dis.patch_stride) + ",\"iterations\":" +
               std::to_string(c.dis.iterations) + ",\"finest_level\":" + std::to_string(c.dis.finest_level) +
               ",\"refine_iterations\":" + std::to_string(c.dis.refine_iterations) + "}";
    return ",\"solver\":{\"name\":" + json_string(solver_name(in.solver)) + ",\"omega\":" + num(in.omega) +
           ",\"alpha\":" + num(in.alpha) + ",\"rho\":" + num(in.rho) + "}";
}

std::string result_json(const Result& r) {
    const of_info& in = r.info;
    std::string s = "{\"input\":" + json_string(r.label.c_str()) +
                    ",\"width\":" + std::to_string(r.width) +
                    ",\"height\":" + std::to_string(r.height) +
                    ",\"format\":" + json_string(format_name(r.format)) +
                    ",\"algorithm\":" + json_string(algo_name(in.algorithm)) +
                    ",\"backend\":" + json_string(backend_name(in.backend)) +
                    ",\"precision\":" + json_string(precision_name(in.precision)) +
                    ",\"variant\":" + json_string(in.variant) +
                    ",\"levels\":" + std::to_string(in.last_levels) +
                    ",\"coarsest\":" + std::to_string(in.last_coarsest) + robust_json(in, r.cfg) + solver_json(in, r.cfg) +
                    ",\"threads\":" + std::to_string(in.threads) +
                    ",\"iterations\":" + std::to_string(in.last_iterations) +
                    ",\"ms\":" + json_number(r.ms, "%.3f") +
                    ",\"repeat\":" + std::to_string(r.repeat);
    if (r.has_valid) s += ",\"valid\":" + json_number(r.valid_share, "%.6f"); // --no-validity: no key
    if (r.has_gt)
        s += ",\"epe\":" + json_number(r.error.epe, "%.6f") +
             ",\"aae\":" + json_number(r.error.aae, "%.6f");
    if (r.has_gt && r.has_valid)
        s += ",\"epe_valid\":" + json_number(r.error_valid.epe, "%.6f") +
             ",\"aae_valid\":" + json_number(r.error_valid.aae, "%.6f");
    if (!r.synth_json.empty()) s += ",\"synth\":" + r.synth_json;
    return s + ",\"config\":" + config_json(r.cfg) + "}";
}

void print_human(const Result& r) {
    const of_info& in = r.info;
    std::printf("input      %s: %dx%d %s%s\n", r.label.c_str(), r.width, r.height,
                format_name(r.format), r.synth_text.c_str());
    std::printf("flow       %s on %s (variant %s, precision %s), %u levels, coarsest solved %u, "
                "%u thread%s\n",
                algo_name(in.algorithm), backend_name(in.backend), in.variant,
                precision_name(in.precision), in.last_levels, in.last_coarsest, in.threads,
                in.threads == 1 ? "" : "s");
    std::printf("robust     %s\n", robust_text(in, r.cfg).c_str());
    std::printf("solver     %s\n", solver_text(in, r.cfg).c_str());
    std::printf("time       %.3f ms%s, %llu iterations\n", r.ms,
                r.repeat > 1 ? (" (median of " + std::to_string(r.repeat) + ")").c_str() : "",
                static_cast<unsigned long long>(in.last_iterations));
    if (r.has_gt) std::printf("EPE %.3f  AAE %.2f\n", r.error.epe, r.error.aae);
    if (!r.has_valid) return; // --no-validity: no mask was asked for
    std::printf("valid      %.1f%% of the pixels", 100.0 * r.valid_share);
    if (r.has_gt) std::printf(": EPE %.3f  AAE %.2f over them", r.error_valid.epe, r.error_valid.aae);
    std::printf(" (confidence >= %g)\n", static_cast<double>(r.cfg.min_confidence));
}

void print_table(const std::vector<Result>& rs) {
    if (!rs.empty()) {
        std::printf("robust     %s\n", robust_text(rs[0].info, rs[0].cfg).c_str());
        if (rs[0].synth_text.size() > 2) std::printf("synth      %s\n", rs[0].synth_text.c_str() + 2);
    }
    std::printf("%-14s %-10s %-10s %-8s %10s %10s %8s %8s %8s %7s %8s\n", "case", "size", "backend",
                "variant", "ms", "iters", "coarsest", "epe", "aae", "valid%", "epe_v");
    for (const Result& r : rs) {
        const std::string size = std::to_string(r.width) + "x" + std::to_string(r.height);
        std::printf("%-14s %-10s %-10s %-8s %10.3f %10llu %8u %8.3f %8.2f", r.label.c_str(), size.c_str(),
                    backend_name(r.info.backend), r.info.variant, r.ms,
                    static_cast<unsigned long long>(r.info.last_iterations), r.info.last_coarsest, r.error.epe,
                    r.error.aae);
        if (r.has_valid)
            std::printf(" %7.1f %8.3f\n", 100.0 * r.valid_share, r.error_valid.epe);
        else
            std::printf(" %7s %8s\n", "-", "-"); // --no-validity

    }
}

// ---- the work -----------------------------------------------------------------------------

Result run_one(const Options& o, const Frames& f, const std::string& out_flo,
               const std::string& color_png, const std::string& valid_png, const std::string& confidence_pfm) {
    std::string err;
    Flow flow;
    check(flow.create(o, f.width, f.height, f.format, &err), err);
    std::vector<float> uv, confidence;
    std::vector<unsigned char> valid;
    Result r;
    check(flow.process(f.data(0), f.data(1), f.stride(), o.repeat, &uv, o.no_validity ? nullptr : &valid,
                       confidence_pfm.empty() ? nullptr : &confidence, &r.ms, &err),
          err);
    check(flow.info(&r.info, &err), err);
    r.cfg = flow.config();
    r.synth_json = f.synth_json;
    r.synth_text = f.synth_text;
    r.label = f.label;
    r.width = f.width;
    r.height = f.height;
    r.format = f.format;
    r.repeat = o.repeat;
    r.has_valid = !o.no_validity;
    std::size_t n_valid = 0;
    for (unsigned char v : valid) n_valid += v == 255;
    r.valid_share = valid.empty() ? 0.0 : static_cast<double>(n_valid) / static_cast<double>(valid.size());
    if (!f.gt.empty()) {
        r.has_gt = true;
        r.error = flow_error(uv.data(), f.gt.data(), uv.size() / 2);
        if (r.has_valid) r.error_valid = flow_error(uv.data(), f.gt.data(), uv.size() / 2, valid.data());
    }
    if (!out_flo.empty()) check(write_flo(out_flo, f.width, f.height, uv.data(), &err), err);
    if (!valid_png.empty()) check(write_png(valid_png, f.width, f.height, 1, 8, valid.data(), &err), err);
    if (!confidence_pfm.empty())
        check(write_pfm(confidence_pfm, f.width, f.height, confidence.data(), static_cast<std::size_t>(f.width), &err),
              err);
    if (!color_png.empty()) {
        std::vector<uint8_t> rgb(uv.size() / 2 * 3);
        flow_to_rgb(uv.data(), uv.size() / 2, rgb.data());
        check(write_png(color_png, f.width, f.height, 3, 8, rgb.data(), &err), err);
    }
    return r;
}

// What the table wants for a level: its GPU path or its CPU path ("-": the table has no row).
const char* wanted_name(of_backend b) {
    return b == OF_BACKEND_CUDA ? "gpu" : b == OF_BACKEND_AUTO ? "-" : "cpu";
}

std::string explain_json(const of_info& in, const of_config& cfg, int w, int h, of_pixel_format format) {
    std::string s = "{\"width\":" + std::to_string(w) + ",\"height\":" + std::to_string(h) +
                    ",\"format\":" + json_string(format_name(format)) +
                    ",\"board\":" + json_string(in.board) +
                    ",\"board_match\":" + json_string(in.board_match) +
                    ",\"board_reason\":" + json_string(in.board_reason) +
                    ",\"algorithm\":" + json_string(algo_name(in.algorithm)) +
                    ",\"backend\":" + json_string(backend_name(in.backend)) +
                    ",\"precision\":" + json_string(precision_name(in.precision)) +
                    ",\"variant\":" + json_string(in.variant) + solver_json(in, cfg) +
                    ",\"block\":[" + std::to_string(in.block_width) + "," + std::to_string(in.block_height) +
                    "],\"rows_per_thread\":" + std::to_string(in.rows_per_thread) +
                    ",\"fused_depth\":" + std::to_string(in.fused_depth) +
                    ",\"iterations\":" + std::to_string(in.iterations) +
                    ",\"iteration_growth\":" + json_number(static_cast<double>(in.iteration_growth), "%g") +
                    ",\"warps\":" + std::to_string(in.warps) +
                    ",\"predicted_ms\":" + json_number(in.predicted_ms, "%.4f") +
                    robust_json(in, cfg) +
                    ",\"levels\":" + std::to_string(in.levels) + ",\"level\":[";
    for (uint32_t l = 0; l < in.levels && l < OF_MAX_LEVELS; ++l)
        s += std::string(l ? "," : "") + "{\"width\":" + std::to_string(in.level_width[l]) +
             ",\"height\":" + std::to_string(in.level_height[l]) +
             ",\"wanted\":" + json_string(wanted_name(in.level_wanted[l])) +
             ",\"runs\":" + json_string(backend_name(in.level_backend[l])) +
             ",\"iterations\":" + std::to_string(in.level_iterations[l]) + "}";
    s += "],\"threads\":" + std::to_string(in.threads) +
         ",\"host_bytes\":" + std::to_string(in.host_bytes) +
         ",\"device_bytes\":" + std::to_string(in.device_bytes) +
         ",\"reason\":" + json_string(in.reason) + ",\"config\":" + config_json(cfg) + "}";
    return s;
}

const char* block_name(of_buffer_block b) {
    return b == OF_BLOCK_DEVICE ? "device" : b == OF_BLOCK_STAGING ? "staging" : "host";
}

void explain_human(const of_info& in, const of_config& cfg, int w, int h, of_pixel_format format,
                   const std::string& label, const Options& o) {
    std::printf("size       %dx%d %s%s%s\n", w, h, format_name(format), label.empty() ? "" : " from ",
                label.c_str());
    std::printf("board      %s (%s): %s\n", in.board, in.board_match, in.board_reason);
    std::printf("algorithm  %s\n", algo_name(in.algorithm));
    std::printf("solver     %s\n", solver_text(in, cfg).c_str());
    std::printf("backend    %s\n", backend_name(in.backend));
    std::printf("precision  %s\n", precision_name(in.precision));
    std::printf("variant    %s\n", in.variant);
    if (in.backend == OF_BACKEND_CUDA)
        std::printf("launch     block %ux%u, %u row%s per thread, %u iteration%s per launch\n", in.block_width,
                    in.block_height, in.rows_per_thread, in.rows_per_thread == 1 ? "" : "s", in.fused_depth,
                    in.fused_depth == 1 ? "" : "s");
    else
        std::printf("launch     - (CPU path)\n");
    char budget[64] = "";
    if (o.budget) std::snprintf(budget, sizeof budget, " (time budget %g ms)", static_cast<double>(*o.budget));
    if (in.iteration_growth > 0.0f)
        std::printf("iterations %u per warp at level 0, x (1 + %g l) at level l%s, %u warp%s", in.iterations,
                    static_cast<double>(in.iteration_growth), budget, in.warps, in.warps == 1 ? "" : "s");
    else
        std::printf("iterations %u per warp on every level%s, %u warp%s", in.iterations, budget, in.warps,
                    in.warps == 1 ? "" : "s");
    if (in.predicted_ms > 0.0)
        std::printf("; table model %.3f ms per frame\n", in.predicted_ms);
    else
        std::printf("; no table model for this request\n");
    std::printf("robust     %s\n", robust_text(in, cfg).c_str());
    if (cfg.levels != 0)
        std::printf("min texture off (explicit levels)\n");
    else if (in.min_texture > 0.0f)
        std::printf("min texture %g (per frame: the coarsest level solved is the coarsest textured one)\n",
                    static_cast<double>(in.min_texture));
    else
        std::printf("min texture 0 (size rule only)\n");
    std::printf("levels     %u (table wants / runs)\n", in.levels);
    for (uint32_t l = 0; l < in.levels && l < OF_MAX_LEVELS; ++l) {
        const std::string size = std::to_string(in.level_width[l]) + "x" + std::to_string(in.level_height[l]);
        std::printf("  %2u  %-11s %-4s %-10s %u iterations\n", l, size.c_str(), wanted_name(in.level_wanted[l]),
                    backend_name(in.level_backend[l]), in.level_iterations[l]);
    }
    std::printf("threads    %u\n", in.threads);
    if (in.host_bytes == 0)
        std::printf("memory     not planned: this build has no backend for it\n");
    else
        std::printf("memory     host %llu bytes, device %llu bytes\n",
                    static_cast<unsigned long long>(in.host_bytes),
                    static_cast<unsigned long long>(in.device_bytes));
    std::printf("reason     %s\n", in.reason);
}

int explain(const Options& o) {
    int w = o.width, h = o.height;
    of_pixel_format format = o.synth.empty() ? OF_PIXEL_U8 : OF_PIXEL_F32;
    std::string label = o.synth.empty() ? "" : "synth " + o.synth;
    if (!o.frames.empty()) {
        Options quiet = o;
        quiet.gt_flo.clear();
        const Frames f = load_files(quiet);
        w = f.width;
        h = f.height;
        format = f.format;
        label = f.label;
    }
    std::string err;
    of_info in;
    of_config cfg;
    check(explain_config(o, w, h, format, &in, &cfg, &err), err);
    // Every buffer of the plan (of_explain_buffers, the same config).
    of_buffer_info bufs[64];
    uint32_t nbuf = 0;
    const of_status bs = of_explain_buffers(&cfg, bufs, 64, &nbuf);
    check(bs == OF_OK, std::string("of_explain_buffers: ") + of_status_string(bs) + " (" + of_last_error(nullptr) + ")");
    if (nbuf > 64) nbuf = 64;
    if (o.json) {
        std::string j = explain_json(in, cfg, w, h, format);
        j.pop_back(); // the closing brace: the buffers join the object
        j += ",\"buffers\":[";
        for (uint32_t i = 0; i < nbuf; ++i)
            j += std::string(i ? "," : "") + "{\"block\":" + json_string(block_name(bufs[i].block)) +
                 ",\"name\":" + json_string(bufs[i].name) + ",\"offset\":" + std::to_string(bufs[i].offset) +
                 ",\"bytes\":" + std::to_string(bufs[i].bytes) + ",\"holds\":" + json_string(bufs[i].holds) + "}";
        std::printf("%s]}\n", j.c_str());
    } else {
        explain_human(in, cfg, w, h, format, label, o);
        std::printf("buffers    block    offset        bytes         MB  name            holds\n");
        for (uint32_t i = 0; i < nbuf; ++i)
            std::printf("           %-8s %-13llu %-13llu %6.2f  %-15s %s\n", block_name(bufs[i].block),
                        static_cast<unsigned long long>(bufs[i].offset), static_cast<unsigned long long>(bufs[i].bytes),
                        static_cast<double>(bufs[i].bytes) / 1e6, bufs[i].name, bufs[i].holds);
    }
    return 0;
}

int run(const Options& o) {
    if (o.explain) return explain(o);
    if (o.stream) return run_stream(o);
    if (o.synth.empty()) {
        const Result r = run_one(o, load_files(o), o.out_flo, o.color_png, o.valid_png, o.confidence_pfm);
        if (o.json)
            std::printf("%s\n", result_json(r).c_str());
        else
            print_human(r);
        return 0;
    }
    std::vector<oflow::synth::Case> cases;
    const bool all = o.synth == "all";
    for (int i = 0; i < static_cast<int>(oflow::synth::Case::Count); ++i) {
        const auto c = static_cast<oflow::synth::Case>(i);
        if (all || o.synth == oflow::synth::case_name(c)) cases.push_back(c);
    }
    check(!cases.empty(), "unknown synthetic case '" + o.synth + "'");
    std::vector<Result> results;
    for (oflow::synth::Case c : cases) {
        const std::string tag = all ? std::string("-") + oflow::synth::case_name(c) : "";
        Frames f = make_synth(c, o);
        if (!o.save_prefix.empty()) save_synth(f, o.save_prefix + tag);
        results.push_back(run_one(o, f, o.out_flo.empty() ? "" : with_suffix(o.out_flo, tag),
                                  o.color_png.empty() ? "" : with_suffix(o.color_png, tag),
                                  o.valid_png.empty() ? "" : with_suffix(o.valid_png, tag),
                                  o.confidence_pfm.empty() ? "" : with_suffix(o.confidence_pfm, tag)));
        if (all) results.back().label = oflow::synth::case_name(c);
    }
    if (o.json) {
        if (!all) {
            std::printf("%s\n", result_json(results[0]).c_str());
        } else {
            std::printf("[");
            for (std::size_t i = 0; i < results.size(); ++i)
                std::printf("%s%s", i ? ",\n " : "", result_json(results[i]).c_str());
            std::printf("]\n");
        }
    } else if (all) {
        print_table(results);
    } else {
        print_human(results[0]);
    }
    return 0;
}

int fail(std::string message) {
    for (char& c : message)
        if (c == '\n' || c == '\r') c = ' ';
    std::fflush(stdout);
    std::fprintf(stderr, "oflow-cli: error: %s\n", message.c_str());
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    try {
        Options o;
        std::string err;
        switch (parse_args(argc, argv, &o, &err)) {
        case ParseResult::Help: std::fputs(usage_text(), stdout); return 0;
        case ParseResult::Error: return fail(err);
        case ParseResult::Run: break;
        }
        return run(o);
    } catch (const Failure& f) {
        return fail(f.message);
    } catch (const std::bad_alloc&) {
        return fail("out of memory");
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}
