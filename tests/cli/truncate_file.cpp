// truncate_file IN OUT BYTES: copies the first BYTES bytes of IN to OUT (the CLI tests use it
// to make a truncated PNG from one the CLI saved; CMake scripts cannot write binary data).
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: truncate_file IN OUT BYTES\n");
        return 2;
    }
    std::FILE* in = std::fopen(argv[1], "rb");
    if (!in) {
        std::perror(argv[1]);
        return 1;
    }
    std::vector<unsigned char> buf(std::strtoul(argv[3], nullptr, 10));
    const std::size_t n = std::fread(buf.data(), 1, buf.size(), in);
    std::fclose(in);
    if (n != buf.size()) {
        std::fprintf(stderr, "%s is shorter than %s bytes\n", argv[1], argv[3]);
        return 1;
    }
    std::FILE* out = std::fopen(argv[2], "wb");
    if (!out || std::fwrite(buf.data(), 1, n, out) != n || std::fclose(out) != 0) {
        std::perror(argv[2]);
        return 1;
    }
    return 0;
}
