// matrix_frames: writes the accuracy matrix's frames (core/synth_matrix.hpp) for other tools
// (scripts/compare_opencv.py --matrix runs OpenCV on them).
//
// For every (motion, photometry) cell at the motion's native size, into OUTDIR (created if
// missing):
//   MOTION_PHOTOMETRY_0.f32, MOTION_PHOTOMETRY_1.f32   the frames: w * h float32, row by row
//   MOTION_PHOTOMETRY_gt.f32                           the flow: the u plane, then the v plane
// all raw little-endian with no header, and OUTDIR/cells.tsv: a `#` line with the seed, a header
// line, then one row per cell: motion, photometry, width, height, mean |gt|, max |gt| (px).
// Not a test: a study tool, built with the suite so it keeps compiling.
// Usage: matrix_frames OUTDIR [--seed N] [--only MOTION]   (seed 1 by default: the tests' figures)
#include "core/synth_matrix.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using oflow::synth::Motion;
using oflow::synth::Photometry;

int usage() {
    std::fprintf(stderr, "usage: matrix_frames OUTDIR [--seed N] [--only MOTION]\n  motions:");
    for (int i = 0; i < static_cast<int>(Motion::Count); ++i)
        std::fprintf(stderr, " %s", oflow::synth::motion_name(static_cast<Motion>(i)));
    std::fprintf(stderr, "\n");
    return 2;
}

// Appends n floats to f as little-endian bytes, whatever the host's order; false on a short write.
bool write_le(std::FILE* f, const float* p, size_t n) {
    unsigned char buf[4096];
    size_t used = 0;
    for (size_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &p[i], sizeof bits);
        for (int b = 0; b < 4; ++b) buf[used++] = static_cast<unsigned char>(bits >> (8 * b));
        if (used == sizeof buf || i + 1 == n) {
            if (std::fwrite(buf, 1, used, f) != used) return false;
            used = 0;
        }
    }
    return true;
}

// Writes the planes (each n floats, one after the other) to `path`; false after printing why.
bool write_file(const std::string& path, const std::vector<const std::vector<float>*>& planes) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    bool ok = f != nullptr;
    for (const std::vector<float>* p : planes) ok = ok && write_le(f, p->data(), p->size());
    if (f && std::fclose(f) != 0) ok = false;
    if (!ok) std::fprintf(stderr, "matrix_frames: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argv[1][0] == '-') return usage();
    const std::string out = argv[1];
    unsigned long seed = 1;
    int only = -1;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            char* end = nullptr;
            seed = std::strtoul(argv[++i], &end, 10);
            if (!end || *end || seed > 0xffffffffUL) return usage();
        } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            Motion m = Motion::Count;
            if (!oflow::synth::motion_from_name(argv[++i], &m)) return usage();
            only = static_cast<int>(m);
        } else {
            return usage();
        }
    }
    if (mkdir(out.c_str(), 0777) != 0 && errno != EEXIST) {
        std::fprintf(stderr, "matrix_frames: cannot create %s: %s\n", out.c_str(), std::strerror(errno));
        return 1;
    }
    std::FILE* tsv = std::fopen((out + "/cells.tsv").c_str(), "w");
    if (!tsv) {
        std::fprintf(stderr, "matrix_frames: cannot write %s/cells.tsv: %s\n", out.c_str(), std::strerror(errno));
        return 1;
    }
    std::fprintf(tsv, "# matrix_frames seed %lu (core/synth_matrix.hpp)\n", seed);
    std::fprintf(tsv, "motion\tphotometry\twidth\theight\tmean_gt\tmax_gt\n");
    for (int mi = 0; mi < static_cast<int>(Motion::Count); ++mi) {
        if (only >= 0 && mi != only) continue;
        const Motion m = static_cast<Motion>(mi);
        int w = 0, h = 0;
        oflow::synth::motion_size(m, &w, &h);
        const size_t n = static_cast<size_t>(w) * h;
        std::vector<float> i0(n), i1(n), gu(n), gv(n);
        for (int pi = 0; pi < static_cast<int>(Photometry::Count); ++pi) {
            const Photometry p = static_cast<Photometry>(pi);
            oflow::synth::generate_cell(m, p, w, h, static_cast<uint32_t>(seed), i0.data(), i1.data(), gu.data(),
                                        gv.data(), w);
            double sum = 0.0, most = 0.0;
            for (size_t i = 0; i < n; ++i) {
                const double mag = std::sqrt(static_cast<double>(gu[i]) * gu[i] + static_cast<double>(gv[i]) * gv[i]);
                sum += mag;
                most = mag > most ? mag : most;
            }
            const std::string stem =
                out + "/" + oflow::synth::motion_name(m) + "_" + oflow::synth::photometry_name(p) + "_";
            if (!write_file(stem + "0.f32", {&i0}) || !write_file(stem + "1.f32", {&i1}) ||
                !write_file(stem + "gt.f32", {&gu, &gv})) {
                std::fclose(tsv);
                return 1;
            }
            std::fprintf(tsv, "%s\t%s\t%d\t%d\t%.4f\t%.4f\n", oflow::synth::motion_name(m),
                         oflow::synth::photometry_name(p), w, h, sum / static_cast<double>(n), most);
            std::fflush(tsv);
        }
    }
    return std::fclose(tsv) == 0 ? 0 : 1;
}
