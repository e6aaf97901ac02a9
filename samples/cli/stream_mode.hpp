// oflow-cli --stream: a list of frame files as one camera stream (of_push_frame), each pair's
// flow written through a file-name pattern.
#ifndef OFLOW_CLI_STREAM_MODE_HPP
#define OFLOW_CLI_STREAM_MODE_HPP

#include "args.hpp"

#include <string>

namespace cli {

/// A file-name pattern with exactly one printf integer field: %d, %i or %u with an optional 0
/// flag and width (out/flow_%04d.flo); "%%" is a literal '%'. False with the reason in *why.
bool check_pattern(const std::string& pattern, std::string* why);

/// The pattern with its field replaced by i (check_pattern must have accepted it).
std::string expand_pattern(const std::string& pattern, int i);

/// Runs o.frames as a stream. Every argument is checked first (patterns, every frame readable
/// and of FRAME0's size, every ground truth readable and of that size): a failure throws the
/// one-line message before anything is written. Returns the exit status (0).
int run_stream(const Options& o);

} // namespace cli

#endif
