// photo_frames: writes the photograph set's frames (tests/photo_cells.hpp) for other tools
// (scripts/compare_opencv.py --photos runs OpenCV on them).
//
// For every cell of the subset (default all), into OUTDIR (created if missing):
//   PHOTO_MOTION_PHOTOMETRY_K.png        frame K (0..1, a stream 0..5): 8-bit grey, the bits
//                                        photo_set hands to of_process
//   PHOTO_MOTION_PHOTOMETRY_K_gt.flo     the exact flow of pair (K, K + 1), Middlebury .flo
// and OUTDIR/cells.tsv: a `#` line, a header line, then one row per cell: photo, motion,
// photometry, width, height, pairs, photo scale, mean |gt| and max |gt| over its pairs (px).
// Not a test: a study tool, built with the suite so it keeps compiling.
// Usage: photo_frames OUTDIR --photo-dir DIR [--photo-dir DIR ...] [--cells all|quick|sanitize]
//                    [--size WxH]
#include "photo_cells.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace phototest;

namespace {

int usage() {
    std::fprintf(stderr, "usage: photo_frames OUTDIR --photo-dir DIR [--photo-dir DIR ...] [--cells all|quick|sanitize] "
                         "[--size WxH]\n");
    return 2;
}

// Appends the 32-bit word's bytes little-endian, whatever the host's order.
void put32(std::vector<unsigned char>* b, uint32_t x) {
    for (int i = 0; i < 4; ++i) b->push_back(static_cast<unsigned char>(x >> (8 * i)));
}

// Middlebury .flo: "PIEH" (202021.25f), width, height, then (u, v) per pixel, row by row.
bool write_flo(const std::string& path, int w, int h, const std::vector<float>& u, const std::vector<float>& v) {
    std::vector<unsigned char> b;
    const float tag = 202021.25f;
    uint32_t bits;
    std::memcpy(&bits, &tag, 4);
    put32(&b, bits);
    put32(&b, static_cast<uint32_t>(w));
    put32(&b, static_cast<uint32_t>(h));
    for (size_t i = 0; i < u.size(); ++i) {
        std::memcpy(&bits, &u[i], 4);
        put32(&b, bits);
        std::memcpy(&bits, &v[i], 4);
        put32(&b, bits);
    }
    std::FILE* f = std::fopen(path.c_str(), "wb");
    bool ok = f && std::fwrite(b.data(), 1, b.size(), f) == b.size();
    if (f && std::fclose(f) != 0) ok = false;
    if (!ok) std::fprintf(stderr, "photo_frames: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argv[1][0] == '-') return usage();
    const std::string out = argv[1];
    std::vector<std::string> dirs;
    std::string cells = "all";
    int w = kViewWidth, h = kViewHeight;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--photo-dir") == 0) dirs.push_back(argv[i + 1]);
        else if (std::strcmp(argv[i], "--cells") == 0 && known_subset(argv[i + 1])) cells = argv[i + 1];
        else if (std::strcmp(argv[i], "--size") != 0 || std::sscanf(argv[i + 1], "%dx%d", &w, &h) != 2) return usage();
    }
    if (dirs.empty() || argc % 2 != 0) return usage();
    if (mkdir(out.c_str(), 0777) != 0 && errno != EEXIST) {
        std::fprintf(stderr, "photo_frames: cannot create %s: %s\n", out.c_str(), std::strerror(errno));
        return 1;
    }
    std::FILE* tsv = std::fopen((out + "/cells.tsv").c_str(), "w");
    if (!tsv) {
        std::fprintf(stderr, "photo_frames: cannot write %s/cells.tsv: %s\n", out.c_str(), std::strerror(errno));
        return 1;
    }
    std::fprintf(tsv, "# photo_frames --cells %s, %dx%d (tests/photo_cells.hpp)\n", cells.c_str(), w, h);
    std::fprintf(tsv, "photo\tmotion\tphotometry\twidth\theight\tpairs\tscale\tmean_gt\tmax_gt\n");
    for (int pi = 0; pi < photo_count(); ++pi) {
        Photo photo;
        bool loaded = false;
        for (int mi = 0; mi < static_cast<int>(Move::Count); ++mi) {
            for (int li = 0; li < static_cast<int>(Light::Count); ++li) {
                CellId c;
                c.photo = pi;
                c.move = static_cast<Move>(mi);
                c.light = static_cast<Light>(li);
                if (!in_subset(cells, c)) continue;
                std::string path, err;
                if (!loaded) {
                    if (!find_photo(dirs, photo_entry(pi).file, &path) || !read_photo(path, &photo, &err)) {
                        std::fprintf(stderr, "photo_frames: %s: %s\n", photo_entry(pi).file,
                                     err.empty() ? "in none of the --photo-dir folders" : err.c_str());
                        std::fclose(tsv);
                        return 1;
                    }
                    loaded = true;
                }
                CellFrames f;
                if (!render_cell(photo, c, w, h, &f, &err)) {
                    std::fprintf(stderr, "photo_frames: %s\n", err.c_str());
                    std::fclose(tsv);
                    return 1;
                }
                const std::string stem = out + "/" + photo_entry(pi).name + "_" + move_name(c.move) + "_" +
                                         light_name(c.light) + "_";
                double sum = 0.0, most = 0.0;
                for (size_t k = 0; k < f.frames.size(); ++k) {
                    const std::string png = stem + std::to_string(k) + ".png";
                    if (!write_grey_png(png, w, h, f.frames[k].data(), &err)) {
                        std::fprintf(stderr, "photo_frames: %s\n", err.c_str());
                        std::fclose(tsv);
                        return 1;
                    }
                    if (k + 1 == f.frames.size()) break;
                    if (!write_flo(stem + std::to_string(k) + "_gt.flo", w, h, f.gt_u[k], f.gt_v[k])) {
                        std::fclose(tsv);
                        return 1;
                    }
                    for (size_t i = 0; i < f.gt_u[k].size(); ++i) {
                        const double m = std::sqrt(double(f.gt_u[k][i]) * f.gt_u[k][i] + double(f.gt_v[k][i]) * f.gt_v[k][i]);
                        sum += m;
                        most = std::fmax(most, m);
                    }
                }
                const size_t pairs = f.gt_u.size();
                std::fprintf(tsv, "%s\t%s\t%s\t%d\t%d\t%zu\t%.4f\t%.4f\t%.4f\n", photo_entry(pi).name,
                             move_name(c.move), light_name(c.light), w, h, pairs, f.scale,
                             sum / (static_cast<double>(pairs) * w * h), most);
                std::fflush(tsv);
            }
        }
    }
    return std::fclose(tsv) == 0 ? 0 : 1;
}
