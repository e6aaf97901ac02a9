// replay_main: the main() of a fuzz target in builds without libFuzzer (any compiler). Runs
// LLVMFuzzerTestOneInput once on every file named on the command line, and on every regular file
// of every directory named (sorted by name, not recursive), so that the seed corpus and the
// regression inputs of tests/fuzz run as ordinary CTest tests in every build (host, sanitizers,
// qemu). A broken contract aborts inside the target, which fails the test.
// Exit status: 0 when every input ran, 1 when an argument cannot be read or names no input.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

bool read_file(const std::string& path, std::vector<uint8_t>* out) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    out->clear();
    uint8_t buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->insert(out->end(), buf, buf + n);
    const bool ok = std::ferror(f) == 0;
    std::fclose(f);
    return ok;
}

// The regular files an argument names: itself, or a directory's entries (dot files skipped).
bool inputs_of(const std::string& arg, std::vector<std::string>* out) {
    struct stat sb;
    if (stat(arg.c_str(), &sb) != 0) return false;
    if (!S_ISDIR(sb.st_mode)) {
        out->push_back(arg);
        return true;
    }
    DIR* d = opendir(arg.c_str());
    if (!d) return false;
    std::vector<std::string> names;
    while (const dirent* e = readdir(d)) {
        if (e->d_name[0] == '.') continue;
        const std::string p = arg + "/" + e->d_name;
        if (stat(p.c_str(), &sb) == 0 && S_ISREG(sb.st_mode)) names.push_back(p);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    out->insert(out->end(), names.begin(), names.end());
    return true;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        if (!inputs_of(argv[i], &files)) {
            std::fprintf(stderr, "replay: cannot read %s\n", argv[i]);
            return 1;
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "replay: no inputs (usage: %s FILE|DIR...)\n", argc > 0 ? argv[0] : "replay");
        return 1;
    }
    std::vector<uint8_t> data;
    for (const std::string& f : files) {
        if (!read_file(f, &data)) {
            std::fprintf(stderr, "replay: cannot read %s\n", f.c_str());
            return 1;
        }
        LLVMFuzzerTestOneInput(data.data(), data.size());
    }
    std::printf("replay: %zu inputs, every contract held\n", files.size());
    return 0;
}
