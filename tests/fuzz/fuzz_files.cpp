// fuzz_files: libFuzzer target over the file decoders of the tools (samples/cli): the first byte
// picks PNG, PGM/PPM or Middlebury .flo; the rest is the file. A decoder must either fail with a
// message or return an image / field whose sizes match its data, within the 32768 side limit.
#include "flo_io.hpp"
#include "image_io.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void broken(const char* what) {
    std::fprintf(stderr, "fuzz_files: contract broken: %s\n", what);
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const unsigned char* file = data + 1;
    const size_t n = size - 1;
    std::string err;
    switch (data[0] % 3) {
    case 0:
    case 1: {
        cli::LumaImage img;
        const bool ok = data[0] % 3 == 0 ? cli::decode_png(file, n, &img, &err) : cli::decode_pnm(file, n, &img, &err);
        if (!ok) {
            if (err.empty()) broken("image decoder failed without a message");
            break;
        }
        if (img.width < 1 || img.height < 1 || img.width > cli::kMaxSide || img.height > cli::kMaxSide)
            broken("image size out of range");
        if (img.pixels.size() != static_cast<size_t>(img.width) * static_cast<size_t>(img.height))
            broken("image pixel count != width x height");
        if (img.depth != 8 && img.depth != 16) broken("image depth not 8 or 16");
        if (img.depth == 8)
            for (uint16_t p : img.pixels)
                if (p > 255) broken("8-bit image value above 255");
        break;
    }
    default: {
        cli::FlowField f;
        if (!cli::decode_flo(file, n, &f, &err)) {
            if (err.empty()) broken("flo decoder failed without a message");
            break;
        }
        if (f.width < 1 || f.height < 1 || f.width > 32768 || f.height > 32768) broken("flo size out of range");
        if (f.uv.size() != 2 * static_cast<size_t>(f.width) * static_cast<size_t>(f.height))
            broken("flo value count != 2 x width x height");
        break;
    }
    }
    return 0;
}
