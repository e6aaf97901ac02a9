// The table oflow-tune writes: an owning copy of schema 1 (platform/tables/README.md), filled
// from measurements or copied from a base table, and written as XML that oflow-tablegen and the
// OF_WITH_TINYXML2 loader accept.
#ifndef OFLOW_SAMPLES_TUNE_TUNE_TABLE_HPP
#define OFLOW_SAMPLES_TUNE_TUNE_TABLE_HPP

#include "oflow.h"
#include "platform/tuning.hpp"

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace oflow {
namespace tune {

const std::size_t kMaxSourceBytes = 400; // schema: source 1..400 bytes
const std::size_t kMaxTitleBytes = 80;   // schema: title 1..80 bytes

struct XPath {
    of_precision arith;
    double ns_per_it_px;
    double warn, fail;
    std::string source;
    // The optional whole-frame terms (written only when has_frame_terms).
    bool has_frame_terms = false;
    double frame_us = 0.0, frame_ns_per_px = 0.0, launch_us = 0.0, level_us = 0.0;
    // <path kind="cpu"> only: the reference path's speed where the row's own numbers are the NEON
    // kernels' (platform::PathCost); 0 = not stated (the attribute is left out). oflow-tune
    // times one CPU path: these come from the base table.
    double ref_ns_per_it_px = 0.0, ref_frame_ns_per_px = 0.0;
};

/// Whether this library's schema has the optional whole-frame terms of <path> (frame_us,
/// frame_ns_per_px, launch_us, level_us): platform::PathCost has them exactly when its reader
/// accepts them. The four come as one model (fit_frame_terms fits them together): a schema
/// with only some of them gets none.
template <class T, class = void>
struct HasFrameTerms : std::false_type {};
template <class T>
struct HasFrameTerms<T, decltype((void)std::declval<T&>().frame_us, (void)std::declval<T&>().frame_ns_per_px,
                                 (void)std::declval<T&>().launch_us, (void)std::declval<T&>().level_us, void())>
    : std::true_type {};
const bool kSchemaFrameTerms = HasFrameTerms<platform::PathCost>::value;

/// A path copied from a table read by the library, the whole-frame terms included where the
/// schema has them, and the reference path's ref_* terms.
XPath copy_path(const platform::PathCost& c, const std::string& from);

struct XLaunch {
    platform::Variant variant;
    platform::Bucket bucket;
    int rank, block_w, block_h, rows, grid, depth;
    int bound; // MULTI_ITER launch bound; 0 = not given (the attribute is left out)
    std::string source;
};

struct XPrecision {
    of_precision precision;
    std::uint64_t crossover_area;
    bool per_level;
    std::string crossover_source;
    XPath path[platform::kPathCount]; // indexed by platform::Path
    std::vector<XLaunch> launches;
    std::vector<std::string> comments[platform::kBucketCount]; // written before the bucket's rows
};

struct XAlgorithm {
    of_algorithm algorithm;
    of_precision auto_precision;
    std::string source;
    std::vector<XPrecision> precisions;
};

struct XTable {
    std::vector<std::string> header; // lines of the top comment
    std::string name, title;
    int cc_major, cc_minor, sms, regs_per_block, shared_per_block;
    bool cpu_fp16;
    std::string source;
    std::vector<XAlgorithm> algorithms;
};

/// An owning copy of a table read by the library (compiled in or loaded), every source
/// prefixed "copied from <from>: " (cut to 400 bytes).
XTable copy_board(const platform::BoardTable& t, const std::string& from);
XPrecision copy_precision(const platform::TuningRow& r, const std::string& from);
XLaunch copy_launch(const platform::LaunchRow& l, const std::string& from);

/// UTF-8 text cut to at most max bytes at a character boundary, control characters replaced
/// by spaces; "..." at the end when cut.
std::string clip(const std::string& s, std::size_t max);

/// A decimal that reads back to x: the fewest fraction digits, else the shortest exponent form
/// (schema: plain decimals; x finite).
std::string decimal(double x);

/// The XML text. Every attribute escaped, comments made safe ("--" split), sources clipped.
std::string write_xml(const XTable& t);

} // namespace tune
} // namespace oflow

#endif
