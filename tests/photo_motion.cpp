#include "photo_motion.hpp"

#include <cmath>
#include <cstring>

namespace phototest {

namespace {

const char* const kNames[] = {"small", "medium", "large", "stream"};

// One frame step of a motion: pan (px), rotation (degrees), zoom, keystone (1/px).
struct Step {
    double px, py, degrees, zoom, kx, ky;
};

const Step kSteps[] = {
    {3.2, -2.0, 0.7, 1.010, 0.0, 0.0},          // small
    {16.5, -7.5, 1.8, 1.025, 6.0e-5, -4.0e-5},  // medium
    {41.0, -17.0, 2.4, 1.030, 8.0e-5, 5.0e-5},  // large
    {3.6, -2.0, 0.6, 1.008, 0.0, 0.0},          // stream, per frame
};

const double kPi = 3.14159265358979323846;

} // namespace

const char* move_name(Move m) {
    const int i = static_cast<int>(m);
    return i >= 0 && i < static_cast<int>(Move::Count) ? kNames[i] : "unknown";
}

bool move_from_name(const char* name, Move* out) {
    if (!name) return false;
    for (int i = 0; i < static_cast<int>(Move::Count); ++i)
        if (std::strcmp(name, kNames[i]) == 0) {
            if (out) *out = static_cast<Move>(i);
            return true;
        }
    return false;
}

int move_frames(Move m) { return m == Move::Stream ? 6 : 2; }

Homography move_camera(Move m, int k, int w, int h) {
    const Step& s = kSteps[static_cast<int>(m)];
    const double t = k - 0.5 * (move_frames(m) - 1);
    double jx = 0.0, jy = 0.0;
    if (m == Move::Stream) { // a hand-held camera's unevenness
        jx = 0.5 * std::sin(1.7 * k);
        jy = 0.35 * std::cos(2.3 * k);
    }
    Homography c = translation(-0.5 * (w - 1), -0.5 * (h - 1));
    c = compose(keystone(t * s.kx, t * s.ky), c);
    c = compose(rotation_scale(t * s.degrees * kPi / 180.0, std::pow(s.zoom, -t)), c);
    return compose(translation(t * s.px + jx, t * s.py + jy), c);
}

void move_extent(int w, int h, double* ex, double* ey) {
    *ex = 0.0;
    *ey = 0.0;
    const double cx[4] = {0.0, w - 1.0, 0.0, w - 1.0}, cy[4] = {0.0, 0.0, h - 1.0, h - 1.0};
    for (int mi = 0; mi < static_cast<int>(Move::Count); ++mi) {
        const Move m = static_cast<Move>(mi);
        for (int k = 0; k < move_frames(m); ++k) {
            const Homography c = move_camera(m, k, w, h);
            for (int i = 0; i < 4; ++i) {
                double x, y;
                c.apply(cx[i], cy[i], &x, &y);
                *ex = std::fmax(*ex, std::fabs(x));
                *ey = std::fmax(*ey, std::fabs(y));
            }
        }
    }
}

} // namespace phototest
