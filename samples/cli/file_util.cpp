#include "file_util.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace cli {

std::string errno_message(const std::string& path, const char* what) {
    return path + ": " + what + ": " + std::strerror(errno);
}

bool read_file(const std::string& path, std::vector<unsigned char>* out, std::string* err) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) {
        *err = errno_message(path, "cannot open");
        return false;
    }
    out->clear();
    unsigned char chunk[65536];
    for (;;) {
        std::size_t n = std::fread(chunk, 1, sizeof chunk, f);
        out->insert(out->end(), chunk, chunk + n);
        if (n < sizeof chunk) break;
    }
    bool failed = std::ferror(f) != 0;
    if (failed) *err = errno_message(path, "read error");
    std::fclose(f);
    return !failed;
}

bool write_file(const std::string& path, const void* data, std::size_t size, std::string* err) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
        *err = errno_message(path, "cannot open for writing");
        return false;
    }
    bool ok = std::fwrite(data, 1, size, f) == size;
    if (!ok) *err = errno_message(path, "write error");
    if (std::fclose(f) != 0 && ok) {
        ok = false;
        *err = errno_message(path, "write error");
    }
    return ok;
}

} // namespace cli
