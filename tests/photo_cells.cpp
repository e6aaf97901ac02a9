#include "photo_cells.hpp"

#include <cmath>
#include <cstdio>

namespace phototest {

namespace {

const PhotoEntry kPhotos[] = {
    {"camera", "camera.png", "smooth"},         {"moon", "moon.png", "smooth"},
    {"basketball", "basketball1.png", "smooth"}, {"grass", "grass.png", "texture"},
    {"gravel", "gravel.png", "texture"},        {"brick", "brick.png", "texture"},
    {"astronaut", "astronaut.png", "scene"},    {"coffee", "coffee.png", "scene"},
    {"graf", "graf1.png", "scene"},             {"box", "box_in_scene.png", "scene"},
};
const int kPhotoCount = static_cast<int>(sizeof kPhotos / sizeof kPhotos[0]);

// The quick subset (12 cells, 16 pairs): every photograph, motion and condition at least once,
// the hard pairings among them (a large motion over a smooth photograph and over fine texture,
// each condition on a smooth and on a textured photograph, the low-contrast moon and the fine
// grass under a small motion too), and one stream.
struct QuickCell {
    const char* photo;
    Move move;
    Light light;
};
const QuickCell kQuick[] = {
    {"camera", Move::Small, Light::GainNoise},   {"moon", Move::Medium, Light::Vignette},
    {"basketball", Move::Large, Light::None},    {"grass", Move::Large, Light::Ramp},
    {"gravel", Move::Medium, Light::GainNoise},  {"brick", Move::Small, Light::Vignette},
    {"astronaut", Move::Medium, Light::None},    {"coffee", Move::Large, Light::GainNoise},
    {"graf", Move::Small, Light::Ramp},          {"box", Move::Stream, Light::Vignette},
    {"moon", Move::Small, Light::None},          {"grass", Move::Small, Light::Ramp},
};

// Scales are found with this sampler margin (PhotoSampler::margin() at scale 2: 2 + ceil(3 x
// 0.5 sqrt(3)) = 5; one more for the rounding of the corner points).
const int kScaleMargin = 6;

} // namespace

int photo_count() { return kPhotoCount; }

const PhotoEntry& photo_entry(int i) { return kPhotos[i]; }

int photo_index(const std::string& name) {
    for (int i = 0; i < kPhotoCount; ++i)
        if (name == kPhotos[i].name) return i;
    return -1;
}

bool known_subset(const std::string& s) { return s == "all" || s == "quick" || s == "sanitize"; }

bool in_subset(const std::string& subset, const CellId& c) {
    if (subset == "all") return true;
    if (subset == "sanitize") // a smooth photograph's small motion under noise, a texture's medium one
        return (c.photo == photo_index("camera") && c.move == Move::Small && c.light == Light::GainNoise) ||
               (c.photo == photo_index("gravel") && c.move == Move::Medium && c.light == Light::GainNoise);
    if (subset != "quick") return false;
    for (const QuickCell& q : kQuick)
        if (c.photo == photo_index(q.photo) && c.move == q.move && c.light == q.light) return true;
    return false;
}

double photo_scale(int pw, int ph, int w, int h) {
    double ex, ey;
    move_extent(w, h, &ex, &ey);
    const double sx = (0.5 * (pw - 1) - kScaleMargin) / ex, sy = (0.5 * (ph - 1) - kScaleMargin) / ey;
    const double s = std::fmin(2.0, std::fmin(sx, sy));
    return s >= 1.0 ? s : 0.0;
}

uint32_t cell_seed(const CellId& c) {
    return 1u + 64u * static_cast<uint32_t>(c.photo) + 8u * static_cast<uint32_t>(c.move) + static_cast<uint32_t>(c.light);
}

bool render_cell(const Photo& photo, const CellId& c, int w, int h, CellFrames* out, std::string* err) {
    const double s = photo_scale(photo.w, photo.h, w, h);
    if (s <= 0.0) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s (%dx%d) is too small for a %dx%d view at scale 1",
                      photo_entry(c.photo).name, photo.w, photo.h, w, h);
        *err = buf;
        return false;
    }
    const PhotoSampler sampler(photo, s);
    return render_cell_with(sampler, s, c, w, h, out, err);
}

bool render_cell_with(const PhotoSampler& sampler, double scale, const CellId& c, int w, int h, CellFrames* out,
                      std::string* err) {
    const int n = move_frames(c.move);
    const size_t px = static_cast<size_t>(w) * static_cast<size_t>(h);
    const Homography place = compose(translation(0.5 * (sampler.width() - 1), 0.5 * (sampler.height() - 1)),
                                     rotation_scale(0.0, scale));
    out->w = w;
    out->h = h;
    out->scale = scale;
    out->frames.assign(static_cast<size_t>(n), std::vector<uint8_t>(px));
    out->gt_u.assign(static_cast<size_t>(n - 1), std::vector<float>(px));
    out->gt_v.assign(static_cast<size_t>(n - 1), std::vector<float>(px));
    std::vector<float> frame(px);
    for (int k = 0; k < n; ++k) {
        const Homography cam = move_camera(c.move, k, w, h);
        if (!render_view(sampler, compose(place, cam), w, h, frame.data())) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "%s: frame %d of %s leaves the photograph at scale %.3f",
                          photo_entry(c.photo).name, k, move_name(c.move), scale);
            *err = buf;
            return false;
        }
        apply_light(c.light, k, w, h, cell_seed(c), frame.data());
        to_gray8(frame.data(), static_cast<int>(px), out->frames[static_cast<size_t>(k)].data());
        if (k + 1 < n)
            view_flow(cam, move_camera(c.move, k + 1, w, h), w, h, out->gt_u[static_cast<size_t>(k)].data(),
                      out->gt_v[static_cast<size_t>(k)].data());
    }
    return true;
}

bool find_photo(const std::vector<std::string>& dirs, const std::string& file, std::string* path) {
    for (const std::string& d : dirs) {
        const std::string p = d + "/" + file;
        if (std::FILE* f = std::fopen(p.c_str(), "rb")) {
            std::fclose(f);
            *path = p;
            return true;
        }
    }
    return false;
}

} // namespace phototest
