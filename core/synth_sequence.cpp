// Procedural frame sequences with exact flow between consecutive frames (see synth_sequence.hpp
// for the paths and the contract).
//
// A similarity is held as x' = M x + t with M = [a -b; b a] (zoom times rotation): composing and
// inverting stay in closed form, and frame k's transform A_k is the composition of the k steps
// D_0..D_{k-1}, evaluated in double in the same order on every call (the same bits).
#include "synth_sequence.hpp"

#include "synth.hpp"

#include <cmath>
#include <cstring>

namespace oflow {
namespace synth {
namespace {

const double kPi = 3.14159265358979323846;
const double kDeg = kPi / 180.0;

struct Sim {
    double a = 1.0, b = 0.0, tx = 0.0, ty = 0.0; // identity

    void apply(double x, double y, double* ox, double* oy) const {
        *ox = a * x - b * y + tx;
        *oy = b * x + a * y + ty;
    }
};

// (p o q)(x) = p(q(x)).
Sim compose(const Sim& p, const Sim& q) {
    Sim r;
    r.a = p.a * q.a - p.b * q.b;
    r.b = p.a * q.b + p.b * q.a;
    r.tx = p.a * q.tx - p.b * q.ty + p.tx;
    r.ty = p.b * q.tx + p.a * q.ty + p.ty;
    return r;
}

Sim inverse(const Sim& s) {
    const double n = s.a * s.a + s.b * s.b; // zoom^2 > 0
    Sim r;
    r.a = s.a / n;
    r.b = -s.b / n;
    r.tx = -(r.a * s.tx - r.b * s.ty);
    r.ty = -(r.b * s.tx + r.a * s.ty);
    return r;
}

// x' = c + pan + zoom R(angle) (x - c).
Sim about_centre(double cx, double cy, double pan_x, double pan_y, double angle, double zoom) {
    Sim s;
    s.a = zoom * std::cos(angle);
    s.b = zoom * std::sin(angle);
    s.tx = cx + pan_x - (s.a * cx - s.b * cy);
    s.ty = cy + pan_y - (s.b * cx + s.a * cy);
    return s;
}

// The camera step D_j (the header's formulas); `scale` 0.5 is the moving object's background.
Sim step(int j, double cx, double cy, double scale) {
    const double t = 2.0 * kPi * static_cast<double>(j) / 48.0;
    const double pan = 2.0 * scale, rot = 0.8 * kDeg * scale * std::cos(0.7 * t);
    const double zoom = std::exp(0.01 * scale * std::cos(0.5 * t));
    return about_centre(cx, cy, pan * std::cos(0.4 + t), pan * std::sin(0.4 + t), rot, zoom);
}

// A_k = D_{k-1} o ... o D_first o start.
Sim path(int first, int k, double cx, double cy, double scale, const Sim& start) {
    Sim a = start;
    for (int j = first; j < k; ++j) a = compose(step(j, cx, cy, scale), a);
    return a;
}

// The moving object's top-left corner in frame k (a double: k + 1 must not overflow).
void square_corner(int w, int h, double k, double* qx, double* qy) {
    const double side = (w < h ? w : h) / 4.0;
    const double rx = 0.3 * w < 30.0 ? 0.3 * w : 30.0, ry = 0.3 * h < 20.0 ? 0.3 * h : 20.0;
    const double a = 2.0 * kPi * k / 40.0;
    *qx = 0.5 * (w - 1) - 0.5 * side + rx * std::sin(a);
    *qy = 0.5 * (h - 1) - 0.5 * side + ry * std::cos(a);
}

bool in_square(double x, double y, double qx, double qy, double side) {
    return x >= qx && x < qx + side && y >= qy && y < qy + side;
}

bool valid(Sequence s, int w, int h, int k) {
    const int i = static_cast<int>(s);
    return i >= 0 && i < static_cast<int>(Sequence::Count) && w > 0 && h > 0 && k >= 0;
}

// SceneCut's start transform for the new scene: rotation 30 degrees about c, then a shift.
Sim cut_start(double cx, double cy) { return about_centre(cx, cy, 57.3, -31.9, 30.0 * kDeg, 1.0); }

float clamp_f(double v) { return static_cast<float>(v < 0.0 ? 0.0 : (v > 255.0 ? 255.0 : v)); }

} // namespace

const char* sequence_name(Sequence s) {
    switch (s) {
    case Sequence::CameraPath: return "camera-path";
    case Sequence::MovingObject: return "moving-object";
    case Sequence::ExposureRamp: return "exposure-ramp";
    case Sequence::SceneCut: return "scene-cut";
    case Sequence::Count: break;
    }
    return "unknown";
}

bool sequence_from_name(const char* name, Sequence* out) {
    if (!name) return false;
    for (int i = 0; i < static_cast<int>(Sequence::Count); ++i) {
        const Sequence s = static_cast<Sequence>(i);
        if (std::strcmp(name, sequence_name(s)) == 0) {
            if (out) *out = s;
            return true;
        }
    }
    return false;
}

int sequence_cut(Sequence s) { return s == Sequence::SceneCut ? kSceneCutFrame : -1; }

void sequence_frame(Sequence s, int w, int h, uint32_t seed, int k, float* img, std::ptrdiff_t pitch) {
    if (!img || !valid(s, w, h, k)) return;
    const double cx = 0.5 * (w - 1), cy = 0.5 * (h - 1);
    const bool new_scene = s == Sequence::SceneCut && k >= kSceneCutFrame;
    const detail::DefaultTexture tex(new_scene ? seed ^ kSceneCutSalt : seed);
    const detail::DefaultTexture fg(seed ^ kSequenceForegroundSalt);
    const double scale = s == Sequence::MovingObject ? 0.5 : 1.0;
    const Sim a = new_scene ? path(kSceneCutFrame, k, cx, cy, scale, cut_start(cx, cy))
                            : path(0, k, cx, cy, scale, Sim());
    const Sim inv = inverse(a); // image -> texture
    const double gain = s == Sequence::ExposureRamp ? 1.0 + kExposureGainStep * k : 1.0;
    const double offset = s == Sequence::ExposureRamp ? kExposureOffsetStep * k : 0.0;
    const double side = (w < h ? w : h) / 4.0;
    double qx = 0.0, qy = 0.0;
    square_corner(w, h, static_cast<double>(k), &qx, &qy);

    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double X = x, Y = y;
            double v;
            if (s == Sequence::MovingObject && in_square(X, Y, qx, qy, side)) {
                v = fg(X - qx, Y - qy);
            } else {
                double px, py;
                inv.apply(X, Y, &px, &py);
                v = gain * tex(px, py) + offset;
            }
            img[static_cast<std::ptrdiff_t>(y) * pitch + x] = clamp_f(v);
        }
}

bool sequence_flow(Sequence s, int w, int h, uint32_t seed, int k, float* gu, float* gv,
                   std::ptrdiff_t pitch) {
    (void)seed; // the motion does not depend on the seed (the header's contract)
    if (!valid(s, w, h, k)) return false;
    if (s == Sequence::SceneCut && k == kSceneCutFrame - 1) return false;
    const double cx = 0.5 * (w - 1), cy = 0.5 * (h - 1);
    const Sim d = step(k, cx, cy, s == Sequence::MovingObject ? 0.5 : 1.0);
    const double side = (w < h ? w : h) / 4.0;
    double qx = 0.0, qy = 0.0, nx = 0.0, ny = 0.0;
    square_corner(w, h, static_cast<double>(k), &qx, &qy);
    square_corner(w, h, static_cast<double>(k) + 1.0, &nx, &ny);

    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double X = x, Y = y;
            double u, v;
            if (s == Sequence::MovingObject && in_square(X, Y, qx, qy, side)) {
                u = nx - qx;
                v = ny - qy;
            } else {
                double ox, oy;
                d.apply(X, Y, &ox, &oy);
                u = ox - X;
                v = oy - Y;
            }
            const std::ptrdiff_t i = static_cast<std::ptrdiff_t>(y) * pitch + x;
            if (gu) gu[i] = static_cast<float>(u);
            if (gv) gv[i] = static_cast<float>(v);
        }
    return true;
}

} // namespace synth
} // namespace oflow
