// oflow-cli's command line: parsing and the usage text. Values are checked for syntax and
// obvious ranges here; the library checks its own parameter ranges at of_create.
//
// Every of_config field has a flag (tests/cli/config_coverage.cmake holds the field -> flag
// map and fails when api/oflow.h gains a field it does not list), except:
//   format                 follows the input: U8 for 8-bit PNG/PGM pairs, U16 when either
//                          frame is 16-bit, F32 for --synth
//   struct_size, algorithm set by of_config_init (--algo picks the algorithm)
//   max_width, max_height  the frames' size (--size for --synth and --explain)
//   host_arena, host_arena_size, device_arena, device_arena_size, cuda_stream
//                          caller memory and streams: not command-line material
#ifndef OFLOW_CLI_ARGS_HPP
#define OFLOW_CLI_ARGS_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cli {

struct Options {
    std::vector<std::string> frames; ///< FRAME0 FRAME1 (empty with --synth)
    std::string out_flo;             ///< -o
    std::string color_png;           ///< --color
    std::string gt_flo;              ///< --gt
    std::string valid_png;           ///< --valid (the validity mask as an 8-bit PNG)
    std::string confidence_pfm;      ///< --confidence (the confidence plane as a greyscale PFM)
    std::string synth;               ///< --synth CASE|all
    std::string save_prefix;         ///< --save-frames
    int width = 640, height = 480;   ///< --size
    bool size_given = false;
    uint32_t seed = 1;
    uint32_t repeat = 1;
    bool explain = false;
    bool json = false;
    bool no_validity = false;        ///< --no-validity: of_flow.valid not asked for (no confidence pass;
                                     ///< the flow is timed alone), no valid share / EPE over the valid pixels
    bool stream = false;             ///< --stream: frames FRAME0..FRAMEn as one camera stream (of_push_frame);
                                     ///< -o, --color, --gt are then PATTERNs with one printf integer field
    std::optional<bool> warm_start;  ///< --warm-start on|off (config.warm_start)

    std::string algo = "tvl1";   ///< tvl1|hs|clg|lk|dis
    std::string backend = "auto";   ///< auto|reference|neon|cuda
    std::string precision = "auto"; ///< auto|f32|f16
    std::string variant = "auto";   ///< auto|global|fused|multi-iter
    std::string flow_format = "f32"; ///< --flow-format f32|f16|s10.5 (of_flow.format; the result is
                                     ///< converted back to float for -o, --color and the metrics)
    std::optional<std::string> platform;
    std::string tuning;             ///< --tuning FILE (a table file; needs OF_WITH_TINYXML2)
    std::optional<float> budget;    ///< --budget MS (time_budget_ms: iterations from the table)
    int block_w = 0, block_h = 0;   ///< --block WxH (0 = the variant's default)
    std::optional<uint32_t> levels, warps, iters, threads, window, fused_depth; ///< window: lk.window (--algo lk only)
    std::optional<float> scale, epsilon, lambda, tau, theta, alpha, rho;
    std::optional<float> presmooth;         ///< --presmooth F (presmooth_sigma)
    std::optional<std::string> robust;      ///< --robust none|local-norm
    std::optional<float> robust_sigma;      ///< --robust-sigma F
    std::optional<std::string> init;        ///< --init none|dis
    std::optional<uint32_t> median;         ///< --median 0|3|5 (median_size)
    std::optional<float> min_texture;       ///< --min-texture F
    std::optional<float> growth;            ///< --growth F (config.iteration_growth)
    std::optional<std::string> solver;      ///< --solver jacobi|sor (hs.solver)
    std::optional<float> omega, min_eigen;  ///< --omega F (hs.omega), --min-eigen F (lk.min_eigen; --algo lk only)
    std::optional<float> min_confidence;    ///< --min-confidence F (min_confidence; the library checks [0, 1])
    // DIS (--algo dis only): the preset first (of_dis_preset), then each field given.
    std::optional<std::string> preset;      ///< --preset ultrafast|fast|medium
    std::optional<uint32_t> patch, stride, dis_iters, finest, refine; ///< --patch --stride --dis-iters --finest --refine
    std::optional<float> refine_alpha, refine_delta, refine_gamma;    ///< --refine-alpha --refine-delta --refine-gamma

    // Synthetic frames only (--synth): frame 1's brightness change and the texture.
    bool exposure_given = false;
    double exposure[3] = {1.0, 0.0, 0.0}; ///< --exposure GAIN,OFFSET,SIGMA
    std::string texture = "default";      ///< --texture default|fine
    bool texture_given = false;
};

enum class ParseResult { Run, Help, Error };

/// Parses argv. Error: *err holds one line (without the "oflow-cli: error: " prefix).
ParseResult parse_args(int argc, const char* const* argv, Options* opt, std::string* err);

/// The --help text.
const char* usage_text();

} // namespace cli

#endif
