// pfm_check: checks oflow-cli's --confidence and --valid files.
//   pfm_check C.pfm W H                 C.pfm is a greyscale little-endian PFM of W x H: its header
//                                       exactly "Pf\nW H\n-1.0\n", its size the header + W * H * 4
//                                       bytes, every value finite and in [0, 1]
//   pfm_check C.pfm W H MASK.png MIN    also: MASK.png (--valid of the same run) is 255 exactly where
//                                       the confidence is >= MIN, reading the PFM's rows bottom to
//                                       top (the format's order) and the mask's top to bottom; the
//                                       mask must tell the two row orders apart (not symmetric)
//   pfm_check --mask-all MASK.png V     every pixel of MASK.png is V
// The PFM is decoded here from its bytes, independently of samples/cli/pfm_io. Passes with exit
// 0; prints the first offence and exits 1; bad arguments or unreadable files: exit 2.
#include "file_util.hpp"
#include "image_io.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int fail(const char* what, const std::string& detail) {
    std::printf("pfm_check: %s%s\n", what, detail.c_str());
    return 1;
}

bool read_mask(const char* path, cli::LumaImage* m) {
    std::string err;
    if (!cli::read_image(path, m, &err)) {
        std::fprintf(stderr, "pfm_check: %s\n", err.c_str());
        return false;
    }
    return true;
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::strcmp(argv[1], "--mask-all") == 0) {
        cli::LumaImage m;
        if (!read_mask(argv[2], &m)) return 2;
        const unsigned want = static_cast<unsigned>(std::atoi(argv[3]));
        for (std::size_t i = 0; i < m.pixels.size(); ++i)
            if (m.pixels[i] != want)
                return fail("mask pixel ", std::to_string(i) + " is " + std::to_string(m.pixels[i]) + ", expected " +
                                               std::to_string(want));
        std::printf("pfm_check: %zu mask pixels, all %u\n", m.pixels.size(), want);
        return 0;
    }
    if (argc != 4 && argc != 6) {
        std::fprintf(stderr, "usage: pfm_check C.pfm W H [MASK.png MIN] | pfm_check --mask-all MASK.png V\n");
        return 2;
    }
    const int w = std::atoi(argv[2]), h = std::atoi(argv[3]);
    std::vector<unsigned char> bytes;
    std::string err;
    if (w < 1 || h < 1 || !cli::read_file(argv[1], &bytes, &err)) {
        std::fprintf(stderr, "pfm_check: %s\n", w < 1 || h < 1 ? "bad size" : err.c_str());
        return 2;
    }
    const std::string header = "Pf\n" + std::to_string(w) + " " + std::to_string(h) + "\n-1.0\n";
    if (bytes.size() < header.size() || std::memcmp(bytes.data(), header.data(), header.size()) != 0)
        return fail("the header is not exactly ", "\"Pf\\n" + std::to_string(w) + " " + std::to_string(h) + "\\n-1.0\\n\"");
    const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    if (bytes.size() != header.size() + 4 * n)
        return fail("size ", std::to_string(bytes.size()) + " bytes, expected " + std::to_string(header.size()) +
                                 " + " + std::to_string(4 * n));
    std::vector<float> file_rows(n); // as stored: the bottom row first
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned char* p = bytes.data() + header.size() + 4 * i;
        const uint32_t bits = static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
                              static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
        std::memcpy(&file_rows[i], &bits, 4);
        if (!(file_rows[i] >= 0.0f && file_rows[i] <= 1.0f))
            return fail("value out of [0, 1] at stored index ", std::to_string(i) + ": " + std::to_string(file_rows[i]));
    }
    if (argc == 4) {
        std::printf("pfm_check: %dx%d, header %zu bytes, every value in [0, 1]\n", w, h, header.size());
        return 0;
    }
    cli::LumaImage m;
    if (!read_mask(argv[4], &m)) return 2;
    if (m.width != w || m.height != h)
        return fail("the mask's size is ", std::to_string(m.width) + "x" + std::to_string(m.height));
    const float min_conf = static_cast<float>(std::atof(argv[5]));
    // Image row y is stored row h - 1 - y; `flipped` counts the disagreements of the other order.
    std::size_t valid = 0, flipped = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t img = static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x);
            const float c = file_rows[static_cast<std::size_t>(h - 1 - y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)];
            const float c_top_first = file_rows[img];
            const unsigned want = c >= min_conf ? 255u : 0u;
            if (m.pixels[img] != want)
                return fail("mask and confidence disagree at ", "(" + std::to_string(x) + ", " + std::to_string(y) +
                                                                    "): mask " + std::to_string(m.pixels[img]) +
                                                                    ", confidence " + std::to_string(c));
            valid += want == 255u;
            flipped += (c_top_first >= min_conf ? 255u : 0u) != m.pixels[img];
        }
    if (flipped == 0) return fail("the mask reads the same in both row orders: ", "the row order is not tested");
    std::printf("pfm_check: %dx%d, %zu valid at %g; mask = (confidence >= min) bottom-to-top (top-to-bottom: %zu "
                "disagree)\n",
                w, h, valid, static_cast<double>(min_conf), flipped);
    return 0;
}
