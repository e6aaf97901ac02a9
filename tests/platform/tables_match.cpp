// The compiled-in tables equal what oflow-tablegen read from platform/tables/*.xml: the tool
// wrote their canonical text (format_board) at build time; this binary, built for the target
// (and run under qemu in cross builds), prints its compiled tables the same way and compares.
// Also: the set holds the five boards in order, and no table records a path of the build machine.
//   platform_tables_match <build>/platform/tuning_tables.txt
#include "check.hpp"
#include "table_text.hpp"
#include "platform/tuning.hpp"

#include <cstdio>
#include <cstring>
#include <string>

using namespace oflow::platform;
using oftest::read_file;
using oftest::text_of;


int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: platform_tables_match TUNING_TABLES.txt\n");
        return 1;
    }
    std::string expected;
    CHECK_MSG(read_file(argv[1], &expected), "cannot read %s", argv[1]);

    const TableSet set = builtin_tables();
    const char* const names[] = {"nano", "tx2", "xavier", "orin", "generic"};
    CHECK(set.count == 5);
    std::string got;
    for (int i = 0; i < set.count; ++i) {
        const BoardTable& t = *set.boards[i];
        if (i < 5) CHECK_MSG(std::strcmp(t.name, names[i]) == 0, "table %d is %s", i, t.name);
        const std::string want_file = std::string("platform/tables/") + t.name + ".xml";
        CHECK_MSG(want_file == t.file, "%s: file %s", t.name, t.file);
        CHECK(t.rows && t.row_count > 0 && t.algorithms && t.algorithm_count > 0);
        got += text_of(t);
    }
    CHECK(got == expected);
    if (got != expected) { // the first differing line
        std::size_t at = 0;
        while (at < got.size() && at < expected.size() && got[at] == expected[at]) ++at;
        const std::size_t line_start = got.rfind('\n', at == 0 ? 0 : at - 1);
        const std::size_t from = line_start == std::string::npos ? 0 : line_start + 1;
        std::fprintf(stderr, "compiled: %.200s\nXML:      %.200s\n", got.c_str() + from,
                     from < expected.size() ? expected.c_str() + from : "");
    }

    // format_board truncates like snprintf and still reports the full length.
    char small[16];
    const std::size_t full = format_board(*set.boards[0], small, sizeof small);
    CHECK(full > sizeof small && std::strlen(small) == sizeof small - 1);
    return oftest::finish("platform_tables_match");
}
