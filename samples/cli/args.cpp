#include "args.hpp"

#include "image_io.hpp"

#include "core/synth.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>

namespace cli {
namespace {

bool parse_u32(const std::string& s, uint32_t lo, uint32_t hi, uint32_t* out) {
    if (s.empty() || s.size() > 10) return false;
    uint64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    if (v < lo || v > hi) return false;
    *out = static_cast<uint32_t>(v);
    return true;
}

// Why a number was refused: its syntax, or a value a float cannot hold.
enum class FloatParse { Ok, Syntax, NonFinite, Huge, Tiny };

// A float option: a whole decimal (or hex) number, rounded to the nearest float (strtof), that
// is 0 or a normal float. Values a float cannot hold are refused, not rounded: above FLT_MAX
// they would be infinite, and a nonzero value below FLT_MIN (the smallest normal) would become
// a denormal or 0, which turned --epsilon 1e-50 into "never stop" and --min-texture 1e-50 into
// "size rule only" without a word.
FloatParse parse_float_why(const std::string& s, float* out) {
    if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return FloatParse::Syntax;
    char* end = nullptr;
    errno = 0;
    const float v = std::strtof(s.c_str(), &end);
    const bool range = errno == ERANGE;
    if (*end != '\0') return FloatParse::Syntax;
    if (std::isnan(v)) return FloatParse::NonFinite;
    if (std::isinf(v)) return range ? FloatParse::Huge : FloatParse::NonFinite; // "1e39" vs "inf"
    if (v != 0.0f ? std::fabs(v) < std::numeric_limits<float>::min() : range) return FloatParse::Tiny;
    *out = v;
    return FloatParse::Ok;
}

bool parse_float(const std::string& s, float* out) { return parse_float_why(s, out) == FloatParse::Ok; }

// What a refused float option should have been: "a number" for a syntax error, else the range.
std::string float_expected(FloatParse why) {
    char buf[96];
    switch (why) {
    case FloatParse::NonFinite: return "a finite number";
    case FloatParse::Huge:
        std::snprintf(buf, sizeof buf, "a number of magnitude <= %.9g",
                      static_cast<double>(std::numeric_limits<float>::max()));
        return buf;
    case FloatParse::Tiny:
        std::snprintf(buf, sizeof buf, "a number: 0, or of magnitude >= %.9g",
                      static_cast<double>(std::numeric_limits<float>::min()));
        return buf;
    default: return "a number";
    }
}

// The same for --budget (a time in ms, > 0).
std::string budget_expected(FloatParse why) {
    char buf[96];
    switch (why) {
    case FloatParse::Huge:
        std::snprintf(buf, sizeof buf, "a time in ms, <= %.9g", static_cast<double>(std::numeric_limits<float>::max()));
        return buf;
    case FloatParse::Tiny:
        std::snprintf(buf, sizeof buf, "a time in ms, >= %.9g", static_cast<double>(std::numeric_limits<float>::min()));
        return buf;
    case FloatParse::NonFinite: return "a finite time in ms, > 0";
    default: return "a time in ms, > 0";
    }
}

bool parse_size(const std::string& s, int* w, int* h) {
    const std::size_t x = s.find('x');
    uint32_t a = 0, b = 0;
    if (x == std::string::npos || !parse_u32(s.substr(0, x), 1, kMaxSide, &a) ||
        !parse_u32(s.substr(x + 1), 1, kMaxSide, &b))
        return false;
    *w = static_cast<int>(a);
    *h = static_cast<int>(b);
    return true;
}

// "a,b,c": exactly three numbers.
bool parse_triple(const std::string& s, double out[3]) {
    std::size_t start = 0;
    for (int k = 0; k < 3; ++k) {
        const std::size_t comma = s.find(',', start);
        if ((k < 2) != (comma != std::string::npos)) return false;
        float f = 0.0f;
        if (!parse_float(s.substr(start, k < 2 ? comma - start : std::string::npos), &f)) return false;
        out[k] = static_cast<double>(f);
        start = comma + 1;
    }
    return true;
}

// "translation, rotation-zoom, ... or all" from the synthetic cases the library has.
std::string synth_names() {
    std::string s;
    for (int i = 0; i < static_cast<int>(oflow::synth::Case::Count); ++i)
        s += std::string(oflow::synth::case_name(static_cast<oflow::synth::Case>(i))) + ", ";
    return s.substr(0, s.size() - 2) + " or all";
}

bool one_of(const std::string& s, std::initializer_list<const char*> names) {
    for (const char* n : names)
        if (s == n) return true;
    return false;
}

} // namespace

const char* usage_text() {
    return "usage: oflow-cli [options] FRAME0 FRAME1 [-o FLOW.flo] [--color FLOW.png] [--gt GT.flo]\n"
           "       oflow-cli [options] --synth CASE|all [--size WxH] [--seed N] [-o FLOW.flo]\n"
           "       oflow-cli [options] --stream FRAME0 FRAME1 ... FRAMEn [-o PATTERN] [--color PATTERN]\n"
           "                 [--gt PATTERN] [--warm-start on|off]\n"
           "Dense optical flow from FRAME0 to FRAME1 (PNG 8/16-bit, PGM/PPM; colour -> luma).\n"
           "--stream: the frames as one camera stream (of_push_frame, one frame per call); pair i\n"
           "(FRAMEi -> FRAMEi+1) is written to PATTERN(i), its ground truth read from the --gt\n"
           "PATTERN(i); a PATTERN holds one printf integer field (out/flow_%04d.flo). One line per\n"
           "pair (time, EPE with --gt), then the means.\n"
           "\n"
           "input/output:\n"
           "  -o FILE             write the flow as Middlebury .flo\n"
           "  --color FILE        write the Middlebury colour coding of the flow as PNG\n"
           "  --gt FILE           ground truth .flo: print EPE and AAE (over all pixels, and\n"
           "                      over the valid pixels: confidence >= --min-confidence)\n"
           "  --valid FILE        write the validity mask as an 8-bit PNG (every algorithm):\n"
           "                      255 where the confidence is >= --min-confidence, else 0\n"
           "  --confidence FILE   write the confidence (of_flow.valid as F32: 0..1, higher =\n"
           "                      more trustworthy, 0 = no answer) as a greyscale PFM\n"
           "                      (little-endian, rows bottom to top as PFM has them).\n"
           "                      TV-L1, HS, CLG: from the data residual (occlusions, flat\n"
           "                      regions score low); LK: its eigenvalue rule\n"
           "  --min-confidence F  the confidence a valid pixel needs (--valid, the valid share\n"
           "                      and its EPE), in [0, 1]; default 0.5, 0: every pixel valid\n"
           "  --synth CASE        built-in frames with exact ground truth: translation,\n"
           "                      rotation-zoom, smooth-field, occlusion, noise-gain,\n"
           "                      fine-texture, camera-motion, or all\n"
           "  --size WxH          synthetic frame size / --explain size (default 640x480)\n"
           "  --seed N            synthetic texture seed (default 1)\n"
           "  --exposure G,O,S    synthetic frame 1 becomes G * I + O + noise of sigma S grey\n"
           "                      levels, clamped to 0..255 (default 1,0,0: no change)\n"
           "  --texture T         synthetic texture: default | fine (fine-texture: always fine)\n"
           "  --save-frames P     write the synthetic frames to P0.png, P1.png and P_gt.flo\n"
           "                      (frame 1 as exposed)\n"
           "The pixel format follows the input: u8 for 8-bit PNG/PGM pairs, u16 when either\n"
           "frame is 16-bit, f32 for --synth.\n"
           "solver:\n"
           "  --algo A            tvl1 | hs | clg | lk | dis (default tvl1)\n"
           "  --backend B         auto | reference | neon | cuda (default auto)\n"
           "  --precision P       auto | f32 | f16 (default auto)\n"
           "  --variant V         GPU kernels: auto | global | fused | multi-iter\n"
           "  --flow-format F     element format the library writes the flow in: f32 | f16 |\n"
           "                      s10.5 (1/32 px int16) (default f32); the CLI converts it\n"
           "                      back to float for -o, --color and the metrics\n"
           "  --block WxH         GPU block size (default: the variant's)\n"
           "  --fused-depth N     iterations per launch for multi-iter (0 = default)\n"
           "  --levels N          pyramid levels, 0 = automatic\n"
           "  --scale F           pyramid downscale factor per level, in [0.01, 0.99]\n"
           "  --warps N           warps per level\n"
           "  --iters N           iterations per warp\n"
           "  --warm-start on|off --stream: start each pair at level 1 from the previous pair's\n"
           "                      flow where it explains the pair better (default: the library's;\n"
           "                      not applied under --robust pick)\n"
           "  --growth F          iteration growth per coarser level: level l runs\n"
           "                      iters * (1 + F * l) (default 0 = every level the same)\n"
           "  --epsilon F         stopping threshold per warp (0 = never stop early)\n"
           "  --presmooth F       Gaussian sigma on both frames before the pyramid (0 = off)\n"
           "  --robust R          illumination-robust preprocessing: none | local-norm |\n"
           "                      range-match | level-norm | shade-norm | pick (the\n"
           "                      best of local-norm, none and level-norm; TV-L1: of\n"
           "                      none, level-norm, range-match and shade-norm; no\n"
           "                      warm start) | census (TV-L1, HS, CLG, LK: soft\n"
           "                      census data term, one solve) (default census;\n"
           "                      --algo dis: level-norm)\n"
           "  --init I            coarse flow: none | dis (TV-L1, HS, CLG, LK: a DIS pass\n"
           "                      repairs the coarse-to-fine flow) (default dis;\n"
           "                      --algo dis: none)\n"
           "  --robust-sigma F    local-norm / level-norm window, Gaussian sigma in px\n"
           "                      (level-norm: in each level's px), 0.5..10\n"
           "  --median N          median filter of the flow after every warp: 0 (off), 3, 5\n"
           "  --min-texture F     automatic levels: coarsest level used needs this mean squared\n"
           "                      gradient (0 = size rule only); --explain shows the defaults\n"
           "  --threads N         CPU worker threads\n"
           "  --lambda F --tau F --theta F   TV-L1 parameters\n"
           "  --alpha F --rho F   HS/CLG parameters\n"
           "  --solver S --omega F  HS/CLG linear solver: jacobi | sor, SOR over-relaxation\n"
           "  --preset P          DIS (--algo dis only): ultrafast | fast | medium (OpenCV's\n"
           "                      presets; default medium); the flags below change one field\n"
           "  --patch N --stride N --dis-iters N --finest N --refine N   DIS: patch side\n"
           "                      (4..32), grid step (1..patch), Gauss-Newton steps per patch,\n"
           "                      finest level solved, refinement iterations (0 = none)\n"
           "  --refine-alpha F --refine-delta F --refine-gamma F   DIS refinement weights:\n"
           "                      smoothness, brightness constancy, gradient constancy\n"
           "  --window N --min-eigen F   LK (--algo lk only): window side (odd, 3..33), the\n"
           "                      smallest eigenvalue of a window's gradient tensor per pixel\n"
           "                      of the window that is valid (>= 0)\n"
           "  --platform NAME     tuning table of this board instead of the detected one\n"
           "                      (nano, tx2, xavier, orin, generic, or the --tuning table's)\n"
           "  --tuning FILE       also read this tuning table (XML; needs OF_WITH_TINYXML2)\n"
           "  --budget MS         time budget per frame: iterations from the table's model\n"
           "reporting:\n"
           "  --explain           print what the library would choose (board table, backend\n"
           "                      per level, variant, launch shape, iterations, reason) for\n"
           "                      --size WxH or the frames' size, without processing; needs\n"
           "                      no GPU (a --platform board's GPU is assumed)\n"
           "  --json              print one JSON object instead of text; its \"config\" member\n"
           "                      is the of_config that ran (--explain --json too)\n"
           "  --repeat N          run N times and report the median time\n"
           "  --no-validity       do not ask for of_flow.valid: no confidence pass, so the time\n"
           "                      is the flow's alone; no valid share / EPE over the valid\n"
           "                      pixels (not with --valid, --confidence, --min-confidence)\n"
           "  -h, --help          this text\n"
           "Errors print one line on stderr and exit with status 2.\n";
}

ParseResult parse_args(int argc, const char* const* argv, Options* o, std::string* err) {
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") return ParseResult::Help;
        if (arg.size() < 2 || arg[0] != '-') {
            o->frames.push_back(arg);
            continue;
        }
        if (arg == "--") { // everything after is a frame
            for (++i; i < argc; ++i) o->frames.push_back(argv[i]);
            break;
        }
        std::string value;
        bool inline_value = false;
        const std::size_t eq = arg.find('=');
        if (arg.compare(0, 2, "--") == 0 && eq != std::string::npos) {
            value = arg.substr(eq + 1);
            arg = arg.substr(0, eq);
            inline_value = true;
        }
        if (arg == "--explain" || arg == "--json" || arg == "--stream" || arg == "--no-validity") {
            if (inline_value) {
                *err = "option " + arg + " takes no value";
                return ParseResult::Error;
            }
            (arg == "--json"          ? o->json
             : arg == "--stream"      ? o->stream
             : arg == "--no-validity" ? o->no_validity
                                      : o->explain) = true;
            continue;
        }
        static const char* const kWithValue[] = {
            "-o", "--color", "--gt", "--valid", "--synth", "--size", "--seed", "--save-frames",
            "--algo", "--backend", "--precision", "--levels", "--scale", "--warps", "--iters",
            "--epsilon", "--threads", "--lambda", "--tau", "--theta", "--alpha", "--rho",
            "--window", "--platform", "--repeat", "--variant", "--block", "--fused-depth",
            "--tuning", "--budget", "--presmooth", "--robust", "--robust-sigma", "--init", "--median",
            "--min-texture", "--solver", "--omega", "--min-eigen", "--exposure", "--texture", "--growth",
            "--warm-start", "--flow-format", "--confidence", "--min-confidence", "--preset", "--patch",
            "--stride", "--dis-iters", "--finest", "--refine", "--refine-alpha", "--refine-delta",
            "--refine-gamma"};
        bool known = false;
        for (const char* k : kWithValue) known = known || arg == k;
        if (!known) {
            *err = "unknown option '" + arg + "' (see --help)";
            return ParseResult::Error;
        }
        if (!inline_value) {
            if (i + 1 >= argc) {
                *err = "option " + arg + " needs a value";
                return ParseResult::Error;
            }
            value = argv[++i];
        }
        auto bad = [&](const char* what) {
            *err = "bad value '" + value + "' for " + arg + " (" + what + ")";
            return ParseResult::Error;
        };
        uint32_t u = 0;
        float f = 0.0f;
        if (arg == "-o") {
            o->out_flo = value;
        } else if (arg == "--color") {
            o->color_png = value;
        } else if (arg == "--gt") {
            o->gt_flo = value;
        } else if (arg == "--valid") {
            if (value.empty()) return bad("a file name");
            o->valid_png = value;
        } else if (arg == "--confidence") {
            if (value.empty()) return bad("a file name");
            o->confidence_pfm = value;
        } else if (arg == "--save-frames") {
            o->save_prefix = value;
        } else if (arg == "--platform") {
            o->platform = value;
        } else if (arg == "--tuning") {
            if (value.empty()) return bad("a file name");
            o->tuning = value;
        } else if (arg == "--budget") {
            const FloatParse why = parse_float_why(value, &f);
            if (why != FloatParse::Ok || !(f > 0.0f)) return bad(budget_expected(why).c_str());
            o->budget = f;
        } else if (arg == "--synth") {
            if (value != "all" && !oflow::synth::case_from_name(value.c_str(), nullptr))
                return bad(synth_names().c_str());
            o->synth = value;
        } else if (arg == "--exposure") {
            if (!parse_triple(value, o->exposure) || !(o->exposure[0] > 0.0) || !(o->exposure[2] >= 0.0))
                return bad("GAIN,OFFSET,SIGMA: three numbers, gain > 0, sigma >= 0");
            o->exposure_given = true;
        } else if (arg == "--texture") {
            if (!one_of(value, {"default", "fine"})) return bad("default or fine");
            o->texture = value;
            o->texture_given = true;
        } else if (arg == "--robust") {
            if (!one_of(value, {"none", "local-norm", "range-match", "level-norm", "pick", "shade-norm", "census"}))
                return bad("none, local-norm, range-match, level-norm, pick, shade-norm or census");
            o->robust = value;
        } else if (arg == "--init") {
            if (!one_of(value, {"none", "dis"})) return bad("none or dis");
            o->init = value;
        } else if (arg == "--warm-start") {
            if (!one_of(value, {"on", "off"})) return bad("on or off");
            o->warm_start = value == "on";
        } else if (arg == "--solver") {
            if (!one_of(value, {"jacobi", "sor"})) return bad("jacobi or sor");
            o->solver = value;
        } else if (arg == "--median") {
            if (!parse_u32(value, 0, 5, &u) || (u != 0 && u != 3 && u != 5)) return bad("0, 3 or 5");
            o->median = u;
        } else if (arg == "--algo") {
            if (!one_of(value, {"tvl1", "hs", "clg", "lk", "dis"})) return bad("tvl1, hs, clg, lk or dis");
            o->algo = value;
        } else if (arg == "--preset") {
            if (!one_of(value, {"ultrafast", "fast", "medium"})) return bad("ultrafast, fast or medium");
            o->preset = value;
        } else if (arg == "--patch" || arg == "--stride" || arg == "--dis-iters" || arg == "--finest" ||
                   arg == "--refine") {
            if (!parse_u32(value, 0, 0xffffffffu, &u)) return bad("a non-negative integer");
            (arg == "--patch"       ? o->patch
             : arg == "--stride"    ? o->stride
             : arg == "--dis-iters" ? o->dis_iters
             : arg == "--finest"    ? o->finest
                                    : o->refine) = u;
        } else if (arg == "--refine-alpha" || arg == "--refine-delta" || arg == "--refine-gamma") {
            const FloatParse why = parse_float_why(value, &f);
            if (why != FloatParse::Ok) return bad(float_expected(why).c_str());
            (arg == "--refine-alpha" ? o->refine_alpha : arg == "--refine-delta" ? o->refine_delta : o->refine_gamma) = f;
        } else if (arg == "--backend") {
            if (!one_of(value, {"auto", "reference", "neon", "cuda"}))
                return bad("auto, reference, neon or cuda");
            o->backend = value;
        } else if (arg == "--precision") {
            if (!one_of(value, {"auto", "f32", "f16"})) return bad("auto, f32 or f16");
            o->precision = value;
        } else if (arg == "--flow-format") {
            if (!one_of(value, {"f32", "f16", "s10.5"})) return bad("f32, f16 or s10.5");
            o->flow_format = value;
        } else if (arg == "--variant") {
            if (!one_of(value, {"auto", "global", "fused", "multi-iter"}))
                return bad("auto, global, fused or multi-iter");
            o->variant = value;
        } else if (arg == "--block") {
            if (!parse_size(value, &o->block_w, &o->block_h)) return bad("WxH");
        } else if (arg == "--size") {
            if (!parse_size(value, &o->width, &o->height)) return bad("WxH, each 1..32768");
            o->size_given = true;
        } else if (arg == "--seed") {
            if (!parse_u32(value, 0, 0xffffffffu, &o->seed)) return bad("an integer 0..4294967295");
        } else if (arg == "--repeat") {
            if (!parse_u32(value, 1, 10000, &o->repeat)) return bad("an integer 1..10000");
        } else if (arg == "--levels" || arg == "--warps" || arg == "--iters" ||
                   arg == "--threads" || arg == "--window" || arg == "--fused-depth") {
            if (!parse_u32(value, 0, 0xffffffffu, &u)) return bad("a non-negative integer");
            (arg == "--levels"    ? o->levels
             : arg == "--warps"   ? o->warps
             : arg == "--iters"   ? o->iters
             : arg == "--threads" ? o->threads
             : arg == "--window"  ? o->window
                                  : o->fused_depth) = u;
        } else {
            const FloatParse why = parse_float_why(value, &f);
            if (why != FloatParse::Ok) return bad(float_expected(why).c_str());
            (arg == "--scale"          ? o->scale
             : arg == "--epsilon"      ? o->epsilon
             : arg == "--lambda"       ? o->lambda
             : arg == "--tau"          ? o->tau
             : arg == "--theta"        ? o->theta
             : arg == "--alpha"        ? o->alpha
             : arg == "--rho"          ? o->rho
             : arg == "--presmooth"    ? o->presmooth
             : arg == "--robust-sigma" ? o->robust_sigma
             : arg == "--min-texture"  ? o->min_texture
             : arg == "--omega"        ? o->omega
             : arg == "--growth"       ? o->growth
             : arg == "--min-confidence" ? o->min_confidence
                                       : o->min_eigen) = f;
        }
    }

    if ((o->window || o->min_eigen) && o->algo != "lk") {
        *err = std::string(o->window ? "--window" : "--min-eigen") + " applies to --algo lk only (the algorithm is " +
               o->algo + ")";
        return ParseResult::Error;
    }
    if (o->no_validity) { // the validity plane is what these flags write or tune
        const char* needs = !o->valid_png.empty()        ? "--valid"
                            : !o->confidence_pfm.empty() ? "--confidence"
                            : o->min_confidence          ? "--min-confidence"
                                                         : nullptr;
        if (needs) {
            *err = std::string("--no-validity and ") + needs + " exclude each other (" + needs +
                   " needs the validity plane that --no-validity does not ask for)";
            return ParseResult::Error;
        }
    }
    const bool dis_flag = o->preset || o->patch || o->stride || o->dis_iters || o->finest || o->refine ||
                          o->refine_alpha || o->refine_delta || o->refine_gamma;
    if (dis_flag && o->algo != "dis") {
        *err = "--preset and the DIS flags (--patch, --stride, --dis-iters, --finest, --refine, --refine-*) apply "
               "to --algo dis only (the algorithm is " + o->algo + ")";
        return ParseResult::Error;
    }
    const bool synth = !o->synth.empty();
    if (synth && !o->frames.empty()) {
        *err = "give either FRAME0 FRAME1 or --synth, not both";
        return ParseResult::Error;
    }
    if (o->stream) {
        if (synth || o->explain) {
            *err = std::string("--stream takes frame files, not ") + (synth ? "--synth" : "--explain");
            return ParseResult::Error;
        }
        if (o->frames.size() < 2) {
            *err = "--stream needs at least two frames, got " + std::to_string(o->frames.size());
            return ParseResult::Error;
        }
        // --valid and --confidence write one file of one pair: run that pair alone.
        const char* per_pair = !o->valid_png.empty() ? "--valid" : !o->confidence_pfm.empty() ? "--confidence" : nullptr;
        if (per_pair) {
            *err = std::string(per_pair) + " does not apply to --stream (it writes one pair's plane: give that pair as "
                                           "FRAME0 FRAME1 without --stream)";
            return ParseResult::Error;
        }
        if (o->repeat != 1) {
            *err = "--repeat does not apply to --stream";
            return ParseResult::Error;
        }
        return ParseResult::Run; // the patterns are checked with the frames (stream_mode.cpp)
    }
    if (o->warm_start && *o->warm_start && !o->explain) {
        *err = "--warm-start on applies to --stream (a single pair has no previous flow)";
        return ParseResult::Error;
    }
    if (!synth && !o->frames.empty() && o->frames.size() != 2) {
        *err = "expected two frames, got " + std::to_string(o->frames.size());
        return ParseResult::Error;
    }
    if (!synth && o->frames.empty() && !o->explain) {
        *err = "no input: give FRAME0 FRAME1 or --synth CASE (see --help)";
        return ParseResult::Error;
    }
    if (synth && !o->gt_flo.empty()) {
        *err = "--gt does not apply to --synth (its ground truth is built in)";
        return ParseResult::Error;
    }
    if (!synth && !o->save_prefix.empty()) {
        *err = "--save-frames needs --synth";
        return ParseResult::Error;
    }
    if (!synth && (o->exposure_given || o->texture_given)) {
        *err = std::string(o->exposure_given ? "--exposure" : "--texture") + " needs --synth";
        return ParseResult::Error;
    }
    if (!o->frames.empty() && o->size_given) {
        *err = "--size applies to --synth and --explain without frames";
        return ParseResult::Error;
    }
    return ParseResult::Run;
}

} // namespace cli
