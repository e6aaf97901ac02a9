// Helpers of the platform tests that compare a table's dump (platform::format_board) with the
// text oflow-tablegen printed from the XML: a whole file into a string, and a table's dump.
#ifndef OFLOW_TESTS_PLATFORM_TABLE_TEXT_HPP
#define OFLOW_TESTS_PLATFORM_TABLE_TEXT_HPP

#include "check.hpp"
#include "platform/tuning.hpp"

#include <cstdio>
#include <string>

namespace oftest {

/// Appends the bytes of the file at path to *out; false when it cannot be opened.
inline bool read_file(const char* path, std::string* out) {
    std::FILE* f = std::fopen(path, "rb");
    if (!f) return false;
    char buf[4096];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
    std::fclose(f);
    return true;
}

/// t's dump, as format_board writes it (the length it reports is checked).
inline std::string text_of(const oflow::platform::BoardTable& t) {
    const std::size_t n = oflow::platform::format_board(t, nullptr, 0);
    std::string s(n + 1, '\0');
    CHECK(oflow::platform::format_board(t, &s[0], s.size()) == n);
    s.resize(n);
    return s;
}

} // namespace oftest

#endif
