// write_sequence NAME W H N PREFIX: frames 0..N-1 of a generated sequence (core/synth_sequence.hpp)
// as 8-bit PNGs PREFIX_00.png ..., and the ground truth of every pair k -> k+1 that has one as
// PREFIX_gt_00.flo ... (the scene cut's spanning pair has none): the stream CLI tests' input.
#include "flo_io.hpp"
#include "image_io.hpp"

#include "core/synth_sequence.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

std::string name(const std::string& prefix, const char* mid, int k) {
    char b[16];
    std::snprintf(b, sizeof b, "%02d", k);
    return prefix + mid + b;
}

} // namespace

int main(int argc, char** argv) {
    oflow::synth::Sequence s;
    if (argc != 6 || !oflow::synth::sequence_from_name(argv[1], &s)) {
        std::fprintf(stderr, "usage: write_sequence camera-path|moving-object|exposure-ramp|scene-cut W H N PREFIX\n");
        return 2;
    }
    const int w = std::atoi(argv[2]), h = std::atoi(argv[3]), n = std::atoi(argv[4]);
    const std::string prefix = argv[5];
    if (w < 1 || h < 1 || n < 1 || n > 99) return 2;
    const std::size_t px = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    std::vector<float> f(px), gu(px), gv(px), uv(2 * px);
    std::vector<unsigned char> u8(px);
    std::string err;
    for (int k = 0; k < n; ++k) {
        oflow::synth::sequence_frame(s, w, h, 1, k, f.data(), w);
        for (std::size_t i = 0; i < px; ++i) u8[i] = static_cast<unsigned char>(std::lround(f[i]));
        if (!cli::write_png(name(prefix, "_", k) + ".png", w, h, 1, 8, u8.data(), &err)) {
            std::fprintf(stderr, "%s\n", err.c_str());
            return 1;
        }
        if (k + 1 < n && oflow::synth::sequence_flow(s, w, h, 1, k, gu.data(), gv.data(), w)) {
            for (std::size_t i = 0; i < px; ++i) {
                uv[2 * i] = gu[i];
                uv[2 * i + 1] = gv[i];
            }
            if (!cli::write_flo(name(prefix, "_gt_", k) + ".flo", w, h, uv.data(), &err)) {
                std::fprintf(stderr, "%s\n", err.c_str());
                return 1;
            }
        }
    }
    return 0;
}
