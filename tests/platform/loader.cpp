// The optional run-time loader (OF_WITH_TINYXML2, platform/table_load.hpp): every shipped table
// loads to exactly the compiled-in one; every bad fixture is refused with the same message the
// build-time tool gives (its first-line "expect:" comment) and leaves no table behind; a
// missing file says so; a loaded table resolves as an override and shadows a compiled-in one.
//   platform_loader REPOSITORY_ROOT FIXTURE_DIR
#include "check.hpp"
#include "platform/table_load.hpp"
#include "platform/tuning.hpp"

#include <dirent.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace oflow;
using namespace oflow::platform;

namespace {

char g_err[kErrorCapacity];
const ErrorSink kErr{g_err};
LoadedTable g_table; // ~60 KB: not on the stack
LoadedTable g_copy;

std::string text_of(const BoardTable& t) {
    std::string s(format_board(t, nullptr, 0) + 1, '\0');
    s.resize(format_board(t, &s[0], s.size()));
    return s;
}

std::string first_line(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return "";
    char buf[512] = {0};
    const bool ok = std::fgets(buf, sizeof buf, f) != nullptr;
    std::fclose(f);
    std::string s = ok ? buf : "";
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: platform_loader REPOSITORY_ROOT FIXTURE_DIR\n");
        return 1;
    }
    const std::string root = argv[1], data = argv[2];

    // The shipped tables load to exactly what is compiled in (file name aside).
    const TableSet set = builtin_tables();
    for (int i = 0; i < set.count; ++i) {
        const BoardTable& b = *set.boards[i];
        const std::string path = root + "/" + b.file;
        const of_status s = load_table_file(path.c_str(), &g_table, kErr);
        CHECK_MSG(s == OF_OK, "%s", g_err);
        if (s != OF_OK) continue;
        CHECK(std::strcmp(g_table.board.file, path.c_str()) == 0);
        BoardTable loaded = g_table.board;
        loaded.file = b.file;
        CHECK_MSG(text_of(loaded) == text_of(b), "%s: loaded != compiled", b.name);
    }

    // Every fixture: good ones load, bad ones fail with the tool's message.
    std::vector<std::string> names;
    if (DIR* d = opendir(data.c_str())) {
        while (const dirent* e = readdir(d)) {
            const std::string n = e->d_name;
            if (n.size() > 4 && n.compare(n.size() - 4, 4, ".xml") == 0) names.push_back(n);
        }
        closedir(d);
    }
    CHECK(names.size() >= 20);
    for (const std::string& n : names) {
        const std::string path = data + "/" + n;
        g_err[0] = '\0';
        const of_status s = load_table_file(path.c_str(), &g_table, kErr);
        if (n.compare(0, 5, "good_") == 0) {
            CHECK_MSG(s == OF_OK, "%s: %s", n.c_str(), g_err);
            continue;
        }
        const std::string line = first_line(path);
        const std::string head = "<!-- expect: ", tail = " -->";
        CHECK_MSG(line.compare(0, head.size(), head) == 0, "%s: no expect comment", n.c_str());
        const std::string want = line.substr(head.size(), line.size() - head.size() - tail.size());
        CHECK_MSG(s == OF_ERR_INVALID_ARGUMENT && std::strstr(g_err, want.c_str()) != nullptr,
                  "%s:\n  want %s\n  got  %s", n.c_str(), want.c_str(), g_err);
        CHECK_MSG(g_table.board.name == nullptr && g_table.board.row_count == 0, "%s: a table was left", n.c_str());
    }

    // Text in memory: an empty document, and a missing file.
    CHECK(parse_table_text("", 0, "mem.xml", &g_table, kErr) == OF_ERR_INVALID_ARGUMENT);
    CHECK_MSG(std::strstr(g_err, "mem.xml: empty document") != nullptr, "%s", g_err);
    CHECK(load_table_file((data + "/no-such-table.xml").c_str(), &g_table, kErr) == OF_ERR_INVALID_ARGUMENT);
    CHECK_MSG(std::strstr(g_err, "no-such-table.xml: cannot open") != nullptr, "%s", g_err);
    CHECK(load_table_file(nullptr, &g_table, kErr) == OF_ERR_NULL_POINTER);

    // A loaded table named like a compiled-in one shadows it and serves selection.
    CHECK(load_table_file((root + "/platform/tables/xavier.xml").c_str(), &g_table, kErr) == OF_OK);
    const BoardTable* storage[8];
    const TableSet with = tables_with(&g_table.board, storage, 8);
    DetectedPlatform none{};
    Resolution r{};
    CHECK(resolve_table(with, "xavier", nullptr, none, &r, kErr) == OF_OK && r.table == &g_table.board);
    LaunchChoice c{};
    CHECK(select_launch(*r.table, OF_ALGO_TVL1, OF_PRECISION_F32, 1024ull * 1024, kVariantsCuda, &c, kErr) == OF_OK);
    CHECK(c.row && c.row->depth == 4 && c.row->block_h == 4);
    // copy_table: the copy stands alone (its pointers lead into itself) and reads the same
    const std::string before = text_of(g_table.board);
    copy_table(g_table, &g_copy);
    std::memset(static_cast<void*>(&g_table), 0x5a, sizeof g_table);
    CHECK(text_of(g_copy.board) == before);
    CHECK(g_copy.board.rows == g_copy.rows && g_copy.board.algorithms == g_copy.algorithms);
    CHECK(g_copy.board.name >= g_copy.text && g_copy.board.name < g_copy.text + kMaxTableText);
    CHECK(g_copy.rows[0].launches >= g_copy.launches && g_copy.rows[0].launches < g_copy.launches + kMaxTableLaunches);
    copy_table(g_copy, &g_table);
    CHECK(text_of(g_table.board) == before);
    // ... and its messages name the loaded file
    CHECK(select_launch(*r.table, OF_ALGO_LK, OF_PRECISION_F16, 100, kVariantsCuda, &c, kErr) == OF_ERR_UNSUPPORTED);
    CHECK_MSG(std::strstr(g_err, (root + "/platform/tables/xavier.xml").c_str()) != nullptr, "%s", g_err);
    return oftest::finish("platform_loader");
}
