// copy_table (table_load.hpp): a LoadedTable moved to another place with its pointers rebased.
// Separate from table_load.cpp, which needs tinyxml2, so every build links it (of_create copies
// a table read from config.tuning_path into the context's arena).
#include "platform/table_load.hpp"

#include <cstring>

namespace oflow {
namespace platform {

void copy_table(const LoadedTable& from, LoadedTable* to) {
    std::memcpy(static_cast<void*>(to), &from, sizeof(LoadedTable));
    // Every string lives in from.text and every launch row in from.launches; only the entries in
    // use are read (the rest may be uninitialised).
    auto text = [&](const char* p) -> const char* { return p ? to->text + (p - from.text) : nullptr; };
    const BoardTable& fb = from.board;
    BoardTable& b = to->board;
    b.name = text(fb.name);
    b.title = text(fb.title);
    b.file = text(fb.file);
    b.source = text(fb.source);
    b.algorithms = fb.algorithms ? to->algorithms : nullptr;
    b.rows = fb.rows ? to->rows : nullptr;
    for (int i = 0; i < fb.algorithm_count && i < kMaxTableAlgorithms; ++i)
        to->algorithms[i].source = text(from.algorithms[i].source);
    for (int i = 0; i < fb.row_count && i < kMaxTableRows; ++i) {
        const TuningRow& fr = from.rows[i];
        TuningRow& r = to->rows[i];
        r.crossover_source = text(fr.crossover_source);
        for (int k = 0; k < kPathCount; ++k) r.path[k].source = text(fr.path[k].source);
        const std::ptrdiff_t first = fr.launches - from.launches;
        r.launches = to->launches + first;
        for (int k = 0; k < fr.launch_count; ++k) to->launches[first + k].source = text(fr.launches[k].source);
    }
}

} // namespace platform
} // namespace oflow
