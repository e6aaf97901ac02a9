// oflow-cli's command line: parsing and the usage text. Values are checked for syntax and
// obvious ranges here; the library checks its own parameter ranges at of_create.
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
    std::string synth;               ///< --synth CASE|all
    std::string save_prefix;         ///< --save-frames
    int width = 640, height = 480;   ///< --size
    bool size_given = false;
    uint32_t seed = 1;
    uint32_t repeat = 1;
    bool explain = false;
    bool json = false;

    std::string algo = "tvl1";   ///< tvl1|hs|clg|lk
    std::string backend = "auto";   ///< auto|reference|neon|cuda
    std::string precision = "auto"; ///< auto|f32|f16
    std::string variant = "auto";   ///< auto|global|fused|multi-iter
    std::optional<std::string> platform;
    std::string tuning;             ///< --tuning FILE (a table file; needs OF_WITH_TINYXML2)
    std::optional<float> budget;    ///< --budget MS (time_budget_ms: iterations from the table)
    int block_w = 0, block_h = 0;   ///< --block WxH (0 = the variant's default)
    std::optional<uint32_t> levels, warps, iters, threads, window, fused_depth;
    std::optional<float> scale, epsilon, lambda, tau, theta, alpha, rho;
};

enum class ParseResult { Run, Help, Error };

/// Parses argv. Error: *err holds one line (without the "oflow-cli: error: " prefix).
ParseResult parse_args(int argc, const char* const* argv, Options* opt, std::string* err);

/// The --help text.
const char* usage_text();

} // namespace cli

#endif
