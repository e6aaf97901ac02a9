// oflow-tablegen: the build-time host tool that validates platform/tables/*.xml (through the
// same reader the library's optional loader uses, platform/table_load.cpp) and writes
//  - the C++ source of the compiled-in tables (builtin_tables(), platform/tuning.hpp), and
//  - their canonical text (format_board), which a test compares with the compiled tables.
//
//   oflow-tablegen --root DIR --cpp OUT.cpp --dump OUT.txt TABLE.xml...
//   oflow-tablegen --check TABLE.xml...          (validate only; exit 1 on the first error of each)
//
// With --root, file names in messages and in the tables are relative to DIR (the repository
// root), so nothing of the build machine's paths ends up in the library. Besides the schema,
// generation checks the set: each table's board name is its file name, names are unique, and
// a "generic" table exists (the end of the fallback chain). Errors go to stderr as
// "FILE:LINE: message"; the exit status is 1 when any table is bad, 2 on bad usage.
#include "platform/table_load.hpp"
#include "platform/tuning.hpp"

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using oflow::ErrorSink;
using namespace oflow::platform;

bool read_file(const char* path, std::string* out) {
    std::FILE* f = std::fopen(path, "rb");
    if (!f) return false;
    char buf[4096];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->append(buf, n);
    const bool ok = !std::ferror(f);
    std::fclose(f);
    return ok;
}

// path relative to root when it lies under it ("platform/tables/x.xml"), else as given.
std::string display_name(const std::string& path, const std::string& root) {
    if (root.empty()) return path;
    std::string r = root;
    while (r.size() > 1 && r.back() == '/') r.pop_back();
    if (path.size() > r.size() && path.compare(0, r.size(), r) == 0 && path[r.size()] == '/')
        return path.substr(r.size() + 1);
    return path;
}

std::string stem(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    std::string s = slash == std::string::npos ? path : path.substr(slash + 1);
    const std::size_t dot = s.rfind('.');
    return dot == std::string::npos ? s : s.substr(0, dot);
}

// A C++ string literal: '"', '\\' escaped; bytes outside printable ASCII as 3-digit octal.
std::string literal(const char* s) {
    std::string o = "\"";
    for (const char* c = s; *c; ++c) {
        const unsigned char u = static_cast<unsigned char>(*c);
        if (u == '"' || u == '\\') {
            o += '\\';
            o += *c;
        } else if (u < 0x20 || u >= 0x7f || u == '?') { // '?': no trigraphs
            char e[8];
            std::snprintf(e, sizeof e, "\\%03o", u);
            o += e;
        } else {
            o += *c;
        }
    }
    return o + "\"";
}

// A double literal that reads back to the same value, always with a '.' or an exponent.
std::string real(double x) {
    char b[40];
    std::snprintf(b, sizeof b, "%.17g", x);
    std::string s = b;
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
}

const char* algorithm_enum(of_algorithm a) {
    switch (a) {
    case OF_ALGO_TVL1: return "OF_ALGO_TVL1";
    case OF_ALGO_HS: return "OF_ALGO_HS";
    case OF_ALGO_CLG: return "OF_ALGO_CLG";
    case OF_ALGO_LK: return "OF_ALGO_LK";
    default: return "OF_ALGO_DIS";
    }
}
const char* precision_enum(of_precision p) { return p == OF_PRECISION_F16 ? "OF_PRECISION_F16" : "OF_PRECISION_F32"; }
const char* variant_enum(Variant v) {
    switch (v) {
    case kVariantGlobal: return "kVariantGlobal";
    case kVariantFused: return "kVariantFused";
    case kVariantMultiIter: return "kVariantMultiIter";
    default: return "kVariantPipeline";
    }
}
const char* bucket_enum(Bucket b) {
    switch (b) {
    case kBucket256: return "kBucket256";
    case kBucket512: return "kBucket512";
    case kBucket1024: return "kBucket1024";
    case kBucket2048: return "kBucket2048";
    default: return "kBucketLarger";
    }
}

void emit_board(std::string& o, const BoardTable& t) {
    const std::string id = t.name;
    char b[256];
    for (int r = 0; r < t.row_count; ++r) {
        const TuningRow& row = t.rows[r];
        std::snprintf(b, sizeof b, "const LaunchRow k_%s_launches_%d[] = {\n", id.c_str(), r);
        o += b;
        for (int i = 0; i < row.launch_count; ++i) {
            const LaunchRow& l = row.launches[i];
            std::snprintf(b, sizeof b, "    {%s, %s, %d, %d, %d, %d, %d, %d, %d, ", variant_enum(l.variant),
                          bucket_enum(l.bucket), l.rank, l.block_w, l.block_h, l.rows, l.grid, l.depth, l.bound);
            o += b;
            o += literal(l.source);
            o += ", " + std::to_string(l.line) + "},\n";
        }
        o += "};\n";
    }
    o += "const TuningRow k_" + id + "_rows[] = {\n";
    for (int r = 0; r < t.row_count; ++r) {
        const TuningRow& row = t.rows[r];
        o += "    {";
        o += algorithm_enum(row.algorithm);
        o += ", ";
        o += precision_enum(row.precision);
        o += ", " + std::to_string(row.crossover_area) + "ull, " + (row.crossover_per_level ? "true" : "false") + ", ";
        o += literal(row.crossover_source) + ", " + std::to_string(row.crossover_line) + ",\n     {";
        for (int k = 0; k < kPathCount; ++k) {
            const PathCost& c = row.path[k];
            o += k ? ",\n      {" : "{";
            o += precision_enum(c.arith);
            o += ", " + real(c.ns_per_it_px) + ", " + real(c.warn) + ", " + real(c.fail) + ", " + real(c.frame_us) + ", " +
                 real(c.frame_ns_per_px) + ", " + real(c.launch_us) + ", " + real(c.level_us) + ", " +
                 real(c.ref_ns_per_it_px) + ", " + real(c.ref_frame_ns_per_px) + ", " + literal(c.source) + ", " + std::to_string(c.line) + "}";
        }
        o += "},\n     k_" + id + "_launches_" + std::to_string(r) + ", " + std::to_string(row.launch_count) + ", " +
             std::to_string(row.line) + "},\n";
    }
    o += "};\n";
    o += "const AlgorithmDefaults k_" + id + "_algorithms[] = {\n";
    for (int i = 0; i < t.algorithm_count; ++i) {
        const AlgorithmDefaults& a = t.algorithms[i];
        o += "    {";
        o += algorithm_enum(a.algorithm);
        o += ", ";
        o += precision_enum(a.auto_precision);
        o += ", " + literal(a.source) + ", " + std::to_string(a.line) + "},\n";
    }
    o += "};\n";
    o += "const BoardTable k_" + id + " = {\n    " + literal(t.name) + ", " + literal(t.title) + ", " + literal(t.file) +
         ",\n    " + std::to_string(t.cc_major) + ", " + std::to_string(t.cc_minor) + ", " +
         std::to_string(t.sm_count) + ", " + std::to_string(t.regs_per_block) + ", " +
         std::to_string(t.shared_per_block) + ", " + (t.cpu_fp16 ? "true" : "false") + ",\n    " + literal(t.source) +
         ", " + std::to_string(t.line) + ",\n    k_" + id + "_algorithms, " + std::to_string(t.algorithm_count) +
         ", k_" + id + "_rows, " + std::to_string(t.row_count) + "};\n\n";
}

bool write_file(const std::string& path, const std::string& text) {
    const std::string tmp = path + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) return false;
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (std::fclose(f) != 0 || !ok) return false;
    return std::rename(tmp.c_str(), path.c_str()) == 0;
}

int usage() {
    std::fprintf(stderr, "usage: oflow-tablegen --root DIR --cpp OUT.cpp --dump OUT.txt TABLE.xml...\n"
                         "       oflow-tablegen --check TABLE.xml...\n");
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    std::string root, cpp, dump;
    bool check = false;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--check") {
            check = true;
        } else if ((a == "--root" || a == "--cpp" || a == "--dump") && i + 1 < argc) {
            (a == "--root" ? root : a == "--cpp" ? cpp : dump) = argv[++i];
        } else if (!a.empty() && a[0] == '-') {
            return usage();
        } else {
            files.push_back(a);
        }
    }
    if (files.empty() || (!check && (cpp.empty() || dump.empty()))) return usage();

    char msg[oflow::kErrorCapacity] = {0};
    const ErrorSink err{msg};
    std::vector<std::unique_ptr<LoadedTable>> tables;
    bool bad = false;
    for (const std::string& f : files) {
        const std::string name = display_name(f, root);
        std::string text;
        if (!read_file(f.c_str(), &text)) {
            std::fprintf(stderr, "%s: cannot read the file\n", name.c_str());
            bad = true;
            continue;
        }
        std::unique_ptr<LoadedTable> t(new LoadedTable());
        if (parse_table_text(text.data(), text.size(), name.c_str(), t.get(), err) != OF_OK) {
            std::fprintf(stderr, "%s\n", msg);
            bad = true;
            continue;
        }
        if (!check && stem(f) != t->board.name) {
            std::fprintf(stderr, "%s:%d: <board> name=\"%s\": must be the file's name \"%s\"\n", name.c_str(),
                         t->board.line, t->board.name, stem(f).c_str());
            bad = true;
            continue;
        }
        for (const auto& o : tables)
            if (std::strcmp(o->board.name, t->board.name) == 0) {
                std::fprintf(stderr, "%s:%d: <board> name=\"%s\": also the name of %s\n", name.c_str(), t->board.line,
                             t->board.name, o->board.file);
                bad = true;
            }
        tables.push_back(std::move(t));
    }
    if (bad) return 1;
    if (check) return 0;
    bool generic = false;
    for (const auto& t : tables) generic = generic || std::strcmp(t->board.name, "generic") == 0;
    if (!generic) {
        std::fprintf(stderr, "oflow-tablegen: no table named \"generic\" (the end of the fallback chain)\n");
        return 1;
    }

    std::string o = "// Generated by oflow-tablegen from";
    for (const auto& t : tables) o += std::string(" ") + t->board.file;
    o += ".\n// Do not edit: change the XML (schema: platform/tables/README.md).\n"
         "#include \"platform/tuning.hpp\"\n\nnamespace oflow {\nnamespace platform {\nnamespace {\n\n";
    for (const auto& t : tables) emit_board(o, t->board);
    o += "const BoardTable* const kBoards[] = {";
    for (std::size_t i = 0; i < tables.size(); ++i) o += std::string(i ? ", " : "") + "&k_" + tables[i]->board.name;
    o += "};\n\n} // namespace\n\nTableSet builtin_tables() { return TableSet{kBoards, " +
         std::to_string(tables.size()) + "}; }\n\n} // namespace platform\n} // namespace oflow\n";

    std::string d;
    for (const auto& t : tables) {
        const std::size_t n = format_board(t->board, nullptr, 0);
        std::string s(n + 1, '\0');
        format_board(t->board, &s[0], s.size());
        s.resize(n);
        d += s;
    }
    if (!write_file(cpp, o) || !write_file(dump, d)) {
        std::fprintf(stderr, "oflow-tablegen: cannot write %s / %s\n", cpp.c_str(), dump.c_str());
        return 1;
    }
    return 0;
}
