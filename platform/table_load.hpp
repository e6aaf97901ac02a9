// Reading a tuning table from XML (schema: platform/tables/README.md) into the runtime structs
// of tuning.hpp, with full validation. One implementation serves two callers:
//  - oflow-tablegen (host tool, build time) validates platform/tables/*.xml and compiles them in;
//  - the library, when built with OF_WITH_TINYXML2, loads a table file at create.
//
// Contract:
//  - Any schema violation is an error, never a default: a broken or truncated file, an unknown
//    element or attribute, a missing one, a bad or out-of-range number, a duplicate row, a
//    precision without a row for every size bucket, a launch shape the board cannot run. The
//    status is OF_ERR_INVALID_ARGUMENT and the message reads "FILE:LINE: <element> field=...:
//    what is wrong" (file not readable: OF_ERR_INVALID_ARGUMENT, "FILE: cannot open ...").
//  - Memory: the result lives entirely in the caller's LoadedTable (fixed capacity, about 60 KB;
//    the caller places it in its arena or allocates it at create). tinyxml2 allocates its
//    document on the heap during the call and frees it before returning, so call this at create,
//    never per frame. No exceptions.
//  - On failure *out holds no table (out->board.name is NULL).
//  - Numbers are read in the "C" locale's format ("0.25"); the library never changes the locale.
#ifndef OFLOW_PLATFORM_TABLE_LOAD_HPP
#define OFLOW_PLATFORM_TABLE_LOAD_HPP

#include "core/status.hpp"
#include "platform/tuning.hpp"

#include <cstddef>

namespace oflow {
namespace platform {

const int kMaxTableAlgorithms = 5;                       // one per of_algorithm
const int kMaxTableRows = 2 * kMaxTableAlgorithms;       // x F32, F16
const int kMaxTableLaunches = kMaxTableRows * kBucketCount * kVariantCount; // (variant, bucket) unique
const std::size_t kMaxTableText = 48 * 1024;             // names, titles, sources, file name

/// A table read from XML; board points into the arrays below (do not copy the struct: use
/// copy_table()).
struct LoadedTable {
    BoardTable board;
    AlgorithmDefaults algorithms[kMaxTableAlgorithms];
    TuningRow rows[kMaxTableRows];
    LaunchRow launches[kMaxTableLaunches];
    char text[kMaxTableText];
    std::size_t text_used;
};

/// Validates XML text of len bytes; `file` names it in messages and becomes board.file.
of_status parse_table_text(const char* xml, std::size_t len, const char* file, LoadedTable* out,
                           const ErrorSink& err);

/// Reads and validates the file at path (messages and board.file use path as given).
of_status load_table_file(const char* path, LoadedTable* out, const ErrorSink& err);

/// Copies a loaded table to another place (e.g. from a temporary into a context's arena) and
/// points every pointer of the copy into the copy. No allocation; `to` must not overlap `from`.
void copy_table(const LoadedTable& from, LoadedTable* to);

} // namespace platform
} // namespace oflow

#endif
