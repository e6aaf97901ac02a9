#include "photo_view.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace phototest {

void Homography::apply(double x, double y, double* ox, double* oy) const {
    const double w = m[6] * x + m[7] * y + m[8];
    *ox = (m[0] * x + m[1] * y + m[2]) / w;
    *oy = (m[3] * x + m[4] * y + m[5]) / w;
}

Homography compose(const Homography& a, const Homography& b) {
    Homography r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            r.m[3 * i + j] = a.m[3 * i] * b.m[j] + a.m[3 * i + 1] * b.m[3 + j] + a.m[3 * i + 2] * b.m[6 + j];
    return r;
}

Homography inverse(const Homography& a) {
    const double* m = a.m;
    Homography r;
    r.m[0] = m[4] * m[8] - m[5] * m[7];
    r.m[1] = m[2] * m[7] - m[1] * m[8];
    r.m[2] = m[1] * m[5] - m[2] * m[4];
    r.m[3] = m[5] * m[6] - m[3] * m[8];
    r.m[4] = m[0] * m[8] - m[2] * m[6];
    r.m[5] = m[2] * m[3] - m[0] * m[5];
    r.m[6] = m[3] * m[7] - m[4] * m[6];
    r.m[7] = m[1] * m[6] - m[0] * m[7];
    r.m[8] = m[0] * m[4] - m[1] * m[3];
    const double det = m[0] * r.m[0] + m[1] * r.m[3] + m[2] * r.m[6];
    for (double& x : r.m) x /= det;
    return r;
}

Homography translation(double tx, double ty) {
    Homography r;
    r.m[2] = tx;
    r.m[5] = ty;
    return r;
}

Homography rotation_scale(double radians, double scale) {
    Homography r;
    const double c = scale * std::cos(radians), s = scale * std::sin(radians);
    r.m[0] = c;
    r.m[1] = -s;
    r.m[3] = s;
    r.m[4] = c;
    return r;
}

Homography keystone(double kx, double ky) {
    Homography r;
    r.m[6] = kx;
    r.m[7] = ky;
    return r;
}

namespace {

// One separable Gaussian pass along rows (dx 1) or columns (dx w) of a w x h plane, borders
// replicated; taps of weights exp(-k^2 / (2 sigma^2)) normalised to sum 1.
void gauss_pass(const std::vector<float>& in, std::vector<float>* out, int w, int h, bool rows,
                const std::vector<double>& taps) {
    const int r = static_cast<int>(taps.size()) - 1;
    out->assign(in.size(), 0.0f);
    auto px = [&](int x, int y) { // replicated borders
        x = std::min(std::max(x, 0), w - 1);
        y = std::min(std::max(y, 0), h - 1);
        return static_cast<double>(in[static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)]);
    };
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            double s = taps[0] * px(x, y);
            for (int k = 1; k <= r; ++k)
                s += taps[static_cast<size_t>(k)] * (rows ? px(x - k, y) + px(x + k, y) : px(x, y - k) + px(x, y + k));
            (*out)[static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)] = static_cast<float>(s);
        }
    }
}

// Catmull-Rom weights of the 4 taps at offsets -1, 0, 1, 2 for a fraction t in [0, 1).
void catmull_rom(double t, double wt[4]) {
    const double t2 = t * t, t3 = t2 * t;
    wt[0] = 0.5 * (-t3 + 2.0 * t2 - t);
    wt[1] = 0.5 * (3.0 * t3 - 5.0 * t2 + 2.0);
    wt[2] = 0.5 * (-3.0 * t3 + 4.0 * t2 + t);
    wt[3] = 0.5 * (t3 - t2);
}

} // namespace

PhotoSampler::PhotoSampler(const Photo& photo, double scale) : w_(photo.w), h_(photo.h), img_(photo.grey) {
    const double sigma = scale > 1.0 ? 0.5 * std::sqrt(scale * scale - 1.0) : 0.0;
    const int r = sigma > 0.0 ? static_cast<int>(std::ceil(3.0 * sigma)) : 0;
    margin_ = 2 + r;
    if (r == 0) return;
    std::vector<double> taps(static_cast<size_t>(r) + 1);
    double sum = 0.0;
    for (int k = 0; k <= r; ++k) {
        taps[static_cast<size_t>(k)] = std::exp(-0.5 * k * k / (sigma * sigma));
        sum += k == 0 ? taps[0] : 2.0 * taps[static_cast<size_t>(k)];
    }
    for (double& t : taps) t /= sum;
    std::vector<float> tmp;
    gauss_pass(img_, &tmp, w_, h_, true, taps);
    gauss_pass(tmp, &img_, w_, h_, false, taps);
}

bool PhotoSampler::inside(double x, double y) const {
    return x - margin_ >= 0.0 && y - margin_ >= 0.0 && x + margin_ <= w_ - 1.0 && y + margin_ <= h_ - 1.0;
}

double PhotoSampler::at(double x, double y) const {
    const double fx = std::floor(x), fy = std::floor(y);
    const int ix = static_cast<int>(fx), iy = static_cast<int>(fy);
    double wx[4], wy[4];
    catmull_rom(x - fx, wx);
    catmull_rom(y - fy, wy);
    double s = 0.0;
    for (int j = 0; j < 4; ++j) {
        const float* row = img_.data() + static_cast<size_t>(iy - 1 + j) * w_ + (ix - 1);
        s += wy[j] * (wx[0] * row[0] + wx[1] * row[1] + wx[2] * row[2] + wx[3] * row[3]);
    }
    return s;
}

bool view_inside(const PhotoSampler& p, const Homography& view_to_photo, int w, int h) {
    const double cx[4] = {0.0, w - 1.0, 0.0, w - 1.0}, cy[4] = {0.0, 0.0, h - 1.0, h - 1.0};
    for (int i = 0; i < 4; ++i) {
        const double den = view_to_photo.m[6] * cx[i] + view_to_photo.m[7] * cy[i] + view_to_photo.m[8];
        double x, y;
        view_to_photo.apply(cx[i], cy[i], &x, &y);
        if (!(den > 0.0) || !p.inside(x, y)) return false; // den <= 0: the frame crosses the horizon
    }
    return true;
}

bool render_view(const PhotoSampler& p, const Homography& view_to_photo, int w, int h, float* out) {
    if (!view_inside(p, view_to_photo, w, h)) return false;
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            double px, py;
            view_to_photo.apply(x, y, &px, &py);
            const double v = p.at(px, py);
            out[static_cast<size_t>(y) * w + x] = static_cast<float>(v < 0.0 ? 0.0 : (v > 255.0 ? 255.0 : v));
        }
    }
    return true;
}

void view_flow(const Homography& m0, const Homography& m1, int w, int h, float* u, float* v) {
    const Homography g = compose(inverse(m1), m0);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            double tx, ty;
            g.apply(x, y, &tx, &ty);
            u[static_cast<size_t>(y) * w + x] = static_cast<float>(tx - x);
            v[static_cast<size_t>(y) * w + x] = static_cast<float>(ty - y);
        }
    }
}

} // namespace phototest
