// photo_generator: the photograph set's frames (tests/photo_cells.hpp) keep their contracts.
//  - every photograph of the catalogue is found, read and fits every motion at a scale in [1, 2];
//  - each motion's |gt| at 320x240 is in its class (tests/photo_motion.hpp's table): small and
//    every stream pair max <= 8 px, medium mean >= 15 and max <= 30, large mean >= 40 and max
//    <= 60, the stream's mean over its pairs 4..5 px;
//  - the gt is exact: C1(x + gt(x)) = C0(x) to 5e-4 px at every pixel of every pair (the float
//    rounding of gt; M_k = T S C_k, so M1(x + gt) = M0(x) to 5e-4 x scale photo px);
//  - rendering is deterministic (two renders, the same bits) and a cell's conditions differ only
//    where they should (none and ramp frame 0 alike, ramp frame 1 = 1.015 x none's to rounding);
//  - the conditions on a flat grey of 100: ramp 101.5 at frame 1; gain-noise frame 1 mean 110,
//    sd 2.5; vignette 100 at frame 0's centre, 100 (1 - 0.30 r^2) at a corner.
// Usage: photo_generator --photo-dir DIR [--photo-dir DIR ...]
#include "photo_cells.hpp"
#include "test_util.hpp"

#include <string>
#include <vector>

using namespace phototest;

namespace {

void check_motions() {
    const int w = kViewWidth, h = kViewHeight;
    const size_t n = static_cast<size_t>(w) * h;
    std::vector<float> u(n), v(n);
    for (int mi = 0; mi < static_cast<int>(Move::Count); ++mi) {
        const Move m = static_cast<Move>(mi);
        double sum_mean = 0.0, worst = 0.0;
        for (int k = 0; k + 1 < move_frames(m); ++k) {
            const Homography c0 = move_camera(m, k, w, h), c1 = move_camera(m, k + 1, w, h);
            view_flow(c0, c1, w, h, u.data(), v.data());
            double sum = 0.0, most = 0.0, off = 0.0;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const size_t i = static_cast<size_t>(y) * w + x;
                    const double mag = std::sqrt(double(u[i]) * u[i] + double(v[i]) * v[i]);
                    sum += mag;
                    most = std::fmax(most, mag);
                    double ax, ay, bx, by; // the contract: C1(x + gt) = C0(x)
                    c0.apply(x, y, &ax, &ay);
                    c1.apply(x + double(u[i]), y + double(v[i]), &bx, &by);
                    off = std::fmax(off, std::fmax(std::fabs(ax - bx), std::fabs(ay - by)));
                }
            std::printf("%-7s pair %d: |gt| mean %6.2f max %6.2f px; contract off by %.2g px\n", move_name(m), k,
                        sum / n, most, off);
            CHECK_MSG(off < 1e-3 / 2.0, "%s pair %d: C1(x + gt) - C0(x) = %.3g px", move_name(m), k, off);
            sum_mean += sum / n;
            worst = std::fmax(worst, most);
        }
        const double mean = sum_mean / (move_frames(m) - 1);
        switch (m) {
        case Move::Small: CHECK_MSG(worst <= 8.0, "small: max %.2f", worst); break;
        case Move::Medium: CHECK_MSG(mean >= 15.0 && worst <= 30.0, "medium: mean %.2f max %.2f", mean, worst); break;
        case Move::Large: CHECK_MSG(mean >= 40.0 && worst <= 60.0, "large: mean %.2f max %.2f", mean, worst); break;
        case Move::Stream:
            CHECK_MSG(mean >= 4.0 && mean <= 5.0 && worst <= 8.0, "stream: mean %.2f max %.2f", mean, worst);
            break;
        case Move::Count: break;
        }
    }
}

void check_lights() {
    const int w = 64, h = 48;
    const size_t n = static_cast<size_t>(w) * h;
    std::vector<float> f(n);
    auto flat = [&]() { f.assign(n, 100.0f); };
    flat();
    apply_light(Light::Ramp, 1, w, h, 1u, f.data());
    CHECK(std::fabs(f[0] - 101.5f) < 1e-4f);
    flat();
    apply_light(Light::GainNoise, 0, w, h, 1u, f.data());
    CHECK(f[0] == 100.0f && f[n - 1] == 100.0f);
    flat();
    apply_light(Light::GainNoise, 1, w, h, 1u, f.data());
    double s = 0.0, s2 = 0.0;
    for (float x : f) {
        s += x;
        s2 += double(x) * x;
    }
    const double mean = s / n, sd = std::sqrt(s2 / n - mean * mean);
    CHECK_MSG(std::fabs(mean - 110.0) < 0.2 && std::fabs(sd - 2.5) < 0.2, "gain-noise: mean %.3f sd %.3f", mean, sd);
    std::vector<float> g(65 * 49, 100.0f); // odd sizes: the centre is a pixel, a corner at r 1
    apply_light(Light::Vignette, 0, 65, 49, 1u, g.data());
    CHECK(std::fabs(g[24 * 65 + 32] - 100.0f) < 1e-4f);
    const double r2 = (32.0 * 32.0 + 24.0 * 24.0) / (0.25 * (65.0 * 65.0 + 49.0 * 49.0));
    CHECK_MSG(std::fabs(g[0] - 100.0 * (1.0 - 0.30 * r2)) < 1e-3, "vignette corner %.4f", double(g[0]));
    const float in[5] = {-3.0f, 0.49f, 0.5f, 254.6f, 300.0f};
    uint8_t out[5];
    to_gray8(in, 5, out);
    CHECK(out[0] == 0 && out[1] == 0 && out[2] == 1 && out[3] == 255 && out[4] == 255);
}

void check_photos(const std::vector<std::string>& dirs) {
    for (int i = 0; i < photo_count(); ++i) {
        const PhotoEntry& e = photo_entry(i);
        std::string path, err;
        const bool found = find_photo(dirs, e.file, &path);
        CHECK_MSG(found, "%s (%s): in none of the --photo-dir folders", e.name, e.file);
        if (!found) continue;
        Photo p;
        const bool read = read_photo(path, &p, &err);
        CHECK_MSG(read, "%s", err.c_str());
        if (!read) continue;
        const double s = photo_scale(p.w, p.h, kViewWidth, kViewHeight);
        std::printf("%-11s %-8s %4dx%-4d scale %.3f\n", e.name, e.kind, p.w, p.h, s);
        CHECK_MSG(s >= 1.0 && s <= 2.0, "%s: scale %.3f", e.name, s);
        if (s <= 0.0) continue;
        const PhotoSampler sampler(p, s);
        for (int mi = 0; mi < static_cast<int>(Move::Count); ++mi) {
            CellId c;
            c.photo = i;
            c.move = static_cast<Move>(mi);
            c.light = Light::Ramp;
            CellFrames a, b, none;
            CHECK_MSG(render_cell_with(sampler, s, c, kViewWidth, kViewHeight, &a, &err), "%s", err.c_str());
            if (i == 0) { // determinism and the conditions' reach, once
                CHECK_MSG(render_cell(p, c, kViewWidth, kViewHeight, &b, &err), "%s", err.c_str());
                CHECK(a.frames == b.frames && a.gt_u == b.gt_u && a.gt_v == b.gt_v);
                c.light = Light::None;
                CHECK(render_cell_with(sampler, s, c, kViewWidth, kViewHeight, &none, &err));
                CHECK(none.frames[0] == a.frames[0] && none.gt_u == a.gt_u);
                int off = 0;
                for (size_t j = 0; j < none.frames[1].size(); ++j) {
                    const double want = std::fmin(255.0, 1.015 * none.frames[1][j]);
                    off += std::fabs(want - a.frames[1][j]) > 1.0075 + 1e-9 ? 1 : 0; // both rounded: 1.015 x 0.5 + 0.5
                }
                CHECK_MSG(off == 0, "ramp frame 1: %d pixels not 1.015 x none's", off);
            }
        }
    }
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> dirs;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--photo-dir") != 0) {
            std::fprintf(stderr, "usage: photo_generator --photo-dir DIR [--photo-dir DIR ...]\n");
            return 2;
        }
        dirs.push_back(argv[i + 1]);
    }
    check_motions();
    check_lights();
    check_photos(dirs);
    return oftest::finish("photo_generator");
}
