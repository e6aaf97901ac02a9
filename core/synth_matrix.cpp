// The accuracy matrix's frames (see synth_matrix.hpp for the motions, the photometry and the
// contract).
//
// A cell builds its scene (textures, up to four layers) on the stack, then evaluates every sample
// from its frame position alone: frame 0 and the gt from the frontmost layer holding the pixel,
// frame 1 from the frontmost layer whose inverse motion lands in its own region, then the
// photometric change. Nothing depends on the window, so a window's bits are the frame's.
#include "synth_matrix.hpp"

#include "synth.hpp"

#include <cmath>
#include <cstring>

namespace oflow {
namespace synth {
namespace {

using detail::DefaultTexture;
using detail::FineTexture;
using detail::SmoothField;
using detail::unit;

const double kPi = 3.14159265358979323846;
const double kDeg = kPi / 180.0;

// ---- the blocks texture ----------------------------------------------------------------------

// Mondrian (the header's description). Shapes live in 40-px cells, two per cell, each with its
// centre inside its cell and its extent (rotated rectangle: half-diagonal <= 26 sqrt 2 = 36.8,
// plus the 0.75-px edge ramp) below the cell size: a point of cell (i, j) is covered only by
// shapes of cells i-1..i+1, j-1..j+1, so evaluating those 18 keeps the texture continuous across
// cell borders. Overlaps are painted in the order of a hashed priority (ties by position in the
// neighbourhood, which is the same for every point of a cell pair: a tie needs two equal 53-bit
// hashes).
class BlocksTexture {
public:
    explicit BlocksTexture(uint32_t s) : seed_(s), weak_(s ^ 0x68e31da4u) {}

    double operator()(double x, double y) const {
        struct Paint {
            double z, alpha, grey;
        } paint[9 * kPerCell];
        int n = 0;
        const int64_t cx = static_cast<int64_t>(std::floor(x / kCell));
        const int64_t cy = static_cast<int64_t>(std::floor(y / kCell));
        for (int64_t j = cy - 1; j <= cy + 1; ++j)
            for (int64_t i = cx - 1; i <= cx + 1; ++i)
                for (int k = 0; k < kPerCell; ++k) {
                    const int64_t id = j * kPerCell + k;
                    const double alpha = coverage(i, id, x - (static_cast<double>(i) + unit(seed_, 60, i, id)) * kCell,
                                                  y - (static_cast<double>(j) + unit(seed_, 61, i, id)) * kCell);
                    if (alpha <= 0.0) continue;
                    // Insertion by priority, lowest first (painted first).
                    const double z = unit(seed_, 67, i, id);
                    int at = n++;
                    for (; at > 0 && paint[at - 1].z > z; --at) paint[at] = paint[at - 1];
                    paint[at] = {z, alpha, 20.0 + 215.0 * unit(seed_, 66, i, id)};
                }
        double v = 110.0;
        for (int k = 0; k < n; ++k) v += paint[k].alpha * (paint[k].grey - v);
        v += 0.08 * (weak_(x, y) - 128.0);
        return v < 0.0 ? 0.0 : (v > 255.0 ? 255.0 : v);
    }

private:
    static constexpr int kPerCell = 2;
    static constexpr double kCell = 40.0, kRamp = 0.75; // edges blend over [-kRamp, kRamp]
    static constexpr double kReach = 26.0 * 1.4142135623730951 + kRamp; // no shape reaches farther

    // Coverage in [0, 1] of shape `id` of column i at offset (dx, dy) from its centre: a smoothstep
    // of the signed distance to its outline (negative inside).
    double coverage(int64_t i, int64_t id, double dx, double dy) const {
        if (std::fabs(dx) > kReach || std::fabs(dy) > kReach) return 0.0;
        const double hx = 5.0 + 21.0 * unit(seed_, 62, i, id), hy = 5.0 + 21.0 * unit(seed_, 63, i, id);
        // A direction from two uniforms (no trigonometry), its angle not quite uniform.
        double c = 2.0 * unit(seed_, 64, i, id) - 1.0, s = 2.0 * unit(seed_, 65, i, id) - 1.0;
        const double norm = std::sqrt(c * c + s * s);
        c = norm > 1e-3 ? c / norm : 1.0;
        s = norm > 1e-3 ? s / norm : 0.0;
        const double lx = c * dx + s * dy, ly = -s * dx + c * dy;
        double d;
        if (unit(seed_, 68, i, id) < 0.4) { // ellipse: the first-order distance k0 (k0 - 1) / k1
            const double k0 = std::sqrt((lx / hx) * (lx / hx) + (ly / hy) * (ly / hy));
            const double k1 = std::sqrt((lx / (hx * hx)) * (lx / (hx * hx)) + (ly / (hy * hy)) * (ly / (hy * hy)));
            d = k1 > 0.0 ? k0 * (k0 - 1.0) / k1 : -(hx < hy ? hx : hy);
        } else { // rectangle: the exact distance
            const double qx = std::fabs(lx) - hx, qy = std::fabs(ly) - hy;
            const double ox = qx > 0.0 ? qx : 0.0, oy = qy > 0.0 ? qy : 0.0;
            d = (ox > 0.0 || oy > 0.0) ? std::sqrt(ox * ox + oy * oy) : (qx > qy ? qx : qy);
        }
        if (d >= kRamp) return 0.0;
        if (d <= -kRamp) return 1.0;
        const double t = (kRamp - d) / (2.0 * kRamp);
        return t * t * (3.0 - 2.0 * t);
    }

    uint32_t seed_;
    DefaultTexture weak_;
};

// ---- the scene: textures and layers ----------------------------------------------------------

enum class Tex { Default, Fine, Blocks, Foreground };
enum class Region { Plane, Rect, Disc };
enum class Warp { Similarity, Field, RowShift };

// x' = [a -b; b a] x + t.
struct Similarity {
    double a = 1.0, b = 0.0, tx = 0.0, ty = 0.0;
};

// x' = c + p + zoom R(angle) (x - c). A pure translation (angle 0, zoom 1) gives t = p exactly.
Similarity about_centre(double cx, double cy, double px, double py, double angle, double zoom) {
    Similarity s;
    s.a = angle == 0.0 ? zoom : zoom * std::cos(angle);
    s.b = angle == 0.0 ? 0.0 : zoom * std::sin(angle);
    s.tx = px + (cx - (s.a * cx - s.b * cy));
    s.ty = py + (cy - (s.b * cx + s.a * cy));
    return s;
}

struct Layer {
    Region region = Region::Plane;
    double r0 = 0.0, r1 = 0.0, r2 = 0.0, r3 = 0.0; // Rect: [r0, r2) x [r1, r3); Disc: centre (r0, r1), radius r2
    Warp warp = Warp::Similarity;
    Similarity fwd, inv;       // Similarity: W and W^-1
    double d0 = 0.0, d1 = 0.0; // RowShift: u = -(d0 + d1 y), v = 0
    Tex tex = Tex::Default;
    double ox = 0.0, oy = 0.0; // the texture is sampled at x - (ox, oy)

    bool holds(double x, double y) const {
        switch (region) {
        case Region::Plane: return true;
        case Region::Rect: return x >= r0 && x < r2 && y >= r1 && y < r3;
        case Region::Disc: return (x - r0) * (x - r0) + (y - r1) * (y - r1) < r2 * r2;
        }
        return false;
    }
};

struct Scene {
    explicit Scene(uint32_t seed)
        : def(seed), fine(seed), fg(seed ^ kMatrixForegroundSalt), blocks(seed), field(seed) {}

    DefaultTexture def;
    FineTexture fine;
    DefaultTexture fg;
    BlocksTexture blocks;
    SmoothField field;
    double field_scale = 0.0; // small's: the field times this
    Layer layer[4];           // front to back; the last is a plane
    int layers = 0;

    double texture(const Layer& l, double x, double y) const {
        x -= l.ox;
        y -= l.oy;
        switch (l.tex) {
        case Tex::Default: return def(x, y);
        case Tex::Fine: return fine(x, y);
        case Tex::Blocks: return blocks(x, y);
        case Tex::Foreground: return fg(x, y);
        }
        return 0.0;
    }

    // The layer's flow at frame-0 point (x, y).
    void flow(const Layer& l, double x, double y, double* u, double* v) const {
        switch (l.warp) {
        case Warp::Similarity: // in displacement form: a pure translation's gt is t exactly
            *u = (l.fwd.a - 1.0) * x - l.fwd.b * y + l.fwd.tx;
            *v = l.fwd.b * x + (l.fwd.a - 1.0) * y + l.fwd.ty;
            return;
        case Warp::Field: {
            double fu, fv;
            field.at(x, y, &fu, &fv);
            *u = field_scale * fu;
            *v = field_scale * fv;
            return;
        }
        case Warp::RowShift:
            *u = -(l.d0 + l.d1 * y);
            *v = 0.0;
            return;
        }
    }

    // The frame-0 point that the layer's motion takes to frame-1 point (x, y).
    void source(const Layer& l, double x, double y, double* sx, double* sy) const {
        switch (l.warp) {
        case Warp::Similarity:
            *sx = l.inv.a * x - l.inv.b * y + l.inv.tx;
            *sy = l.inv.b * x + l.inv.a * y + l.inv.ty;
            return;
        case Warp::Field: {
            // s + k f(s) = (x, y) by fixed point, a contraction: |k grad f| <= 0.39 on seeds 1..10
            // (tests/synth_matrix.cpp checks < 0.5). Stops once a step moves less than 1e-12 px
            // (at most 60 steps).
            double px = x, py = y;
            for (int it = 0; it < 60; ++it) {
                double u = 0.0, v = 0.0;
                flow(l, px, py, &u, &v);
                const double nx = x - u, ny = y - v, step = std::fabs(nx - px) + std::fabs(ny - py);
                px = nx;
                py = ny;
                if (step < 1e-12) break;
            }
            *sx = px;
            *sy = py;
            return;
        }
        case Warp::RowShift: // v = 0 and d depends on the row alone
            *sx = x + l.d0 + l.d1 * y;
            *sy = y;
            return;
        }
    }

    void add_similarity(Tex t, double cx, double cy, double px, double py, double angle, double zoom) {
        Layer& l = layer[layers++];
        l.tex = t;
        l.fwd = about_centre(cx, cy, px, py, angle, zoom);
        // The inverse of x' = c + p + z R(a) (x - c) is x = (c + p) - p + (1 / z) R(-a) (x' - (c + p)).
        l.inv = about_centre(cx + px, cy + py, -px, -py, -angle, 1.0 / zoom);
    }
};

const int kNative[][2] = {{320, 240}, {384, 288}, {512, 512}, {1280, 720}, {1920, 1080}, {320, 240}, {448, 256}};

// Small's field scale: the largest |field| on a 4-px grid of the native 320x240 frame becomes 5.5 px
// (the mean is then 2.1..2.7 px on seeds 1..10).
double small_scale(const SmoothField& f) {
    double most = 0.0;
    for (int y = 0; y < kNative[0][1]; y += 4)
        for (int x = 0; x < kNative[0][0]; x += 4) {
            double u, v;
            f.at(x, y, &u, &v);
            const double m = std::sqrt(u * u + v * v);
            most = m > most ? m : most;
        }
    return most > 0.0 ? 5.5 / most : 0.0;
}

// The layers of motion m at w x h (the header's table).
void build(Motion m, int w, int h, Scene* s) {
    const double cx = 0.5 * (w - 1), cy = 0.5 * (h - 1);
    const double sx = static_cast<double>(w) / kNative[static_cast<int>(m)][0];
    const double sy = static_cast<double>(h) / kNative[static_cast<int>(m)][1];
    switch (m) {
    case Motion::Small: {
        Layer& l = s->layer[s->layers++];
        l.warp = Warp::Field;
        l.tex = Tex::Fine;
        s->field_scale = small_scale(s->field);
        break;
    }
    case Motion::Translation: s->add_similarity(Tex::Blocks, cx, cy, 26.4, -15.3, 0.0, 1.0); break;
    case Motion::RotationZoom: s->add_similarity(Tex::Default, cx, cy, 0.0, 0.0, 3.5 * kDeg, 1.05); break;
    case Motion::Rotation720p: s->add_similarity(Tex::Fine, cx, cy, 0.0, 0.0, 3.1 * kDeg, 1.0); break;
    case Motion::CameraPath1080p: s->add_similarity(Tex::Default, cx, cy, 7.5, -4.5, 2.3 * kDeg, 1.032); break;
    case Motion::Occlusion: {
        // The rectangle's corner in frame 0, (12, -8) px (native) off centre; it stays inside.
        const double rw = 90.0 * sx, rh = 70.0 * sy, qx = cx - 0.5 * rw + 12.0 * sx, qy = cy - 0.5 * rh - 8.0 * sy;
        s->add_similarity(Tex::Foreground, cx, cy, -13.6, 9.4, 0.0, 1.0);
        Layer& fg = s->layer[0];
        fg.region = Region::Rect;
        fg.r0 = qx;
        fg.r1 = qy;
        fg.r2 = qx + rw;
        fg.r3 = qy + rh;
        fg.ox = qx;
        fg.oy = qy;
        s->add_similarity(Tex::Blocks, cx, cy, 6.3, 2.7, 0.0, 1.0);
        break;
    }
    case Motion::Stereo: {
        // Front to back: disparity 60.3 (disc), 47.6 (rectangle), 35.4 (disc); native positions, each
        // object's texture 1000 px from the previous one's.
        const double rs = sx < sy ? sx : sy;
        const struct {
            double d;
            Region r;
            double a, b, c, e;
        } obj[3] = {{60.3, Region::Disc, 320.0 * sx, 150.0 * sy, 45.0 * rs, 0.0},
                    {47.6, Region::Rect, 190.0 * sx, 50.0 * sy, 300.0 * sx, 130.0 * sy},
                    {35.4, Region::Disc, 150.0 * sx, 120.0 * sy, 55.0 * rs, 0.0}};
        for (int k = 0; k < 3; ++k) {
            s->add_similarity(Tex::Foreground, cx, cy, -obj[k].d, 0.0, 0.0, 1.0);
            Layer& l = s->layer[k];
            l.region = obj[k].r;
            l.r0 = obj[k].a;
            l.r1 = obj[k].b;
            l.r2 = obj[k].c;
            l.r3 = obj[k].e;
            l.ox = l.r0 - 1000.0 * k;
            l.oy = l.r1;
        }
        Layer& bg = s->layer[s->layers++];
        bg.warp = Warp::RowShift;
        bg.tex = Tex::Blocks;
        bg.d0 = 8.0;
        bg.d1 = h > 1 ? 20.0 / (h - 1) : 0.0;
        break;
    }
    case Motion::Count: break;
    }
}

// ---- photometry ------------------------------------------------------------------------------

// 1 - k r^2, r the distance of (x, y) from (px, py) over the half-diagonal.
double vignette(double k, double x, double y, double px, double py, double half_diag) {
    const double dx = (x - px) / half_diag, dy = (y - py) / half_diag;
    return 1.0 - k * (dx * dx + dy * dy);
}

double clamp255(double v) { return v < 0.0 ? 0.0 : (v > 255.0 ? 255.0 : v); }

// The photometric change of frame `frame` (0 or 1) at frame position (x, y) of a w x h frame.
double photometric(Photometry p, int frame, int w, int h, uint32_t seed, int64_t x, int64_t y, double v) {
    switch (p) {
    case Photometry::None: return v;
    case Photometry::GainNoise: {
        Exposure e;
        e.gain = 1.06;
        e.offset = 4.0;
        e.noise_sigma = 3.0;
        return frame == 0 ? v : detail::exposed(e, seed, x, y, v);
    }
    case Photometry::Ramp: {
        Exposure e;
        e.gain = 1.015;
        return frame == 0 ? v : detail::exposed(e, seed, x, y, v);
    }
    case Photometry::Shading: {
        const double cx = 0.5 * (w - 1), cy = 0.5 * (h - 1), hd = 0.5 * std::sqrt(double(w) * w + double(h) * h);
        const double X = static_cast<double>(x), Y = static_cast<double>(y);
        if (frame == 0) return clamp255(v * vignette(0.30, X, Y, cx, cy, hd));
        return clamp255(v * vignette(0.40, X, Y, cx + 0.1 * w, cy, hd) * (1.0 + 0.08 * (X / w - 0.5)));
    }
    case Photometry::Count: break;
    }
    return v;
}

} // namespace

const char* motion_name(Motion m) {
    switch (m) {
    case Motion::Small: return "small";
    case Motion::Translation: return "translation";
    case Motion::RotationZoom: return "rotation-zoom";
    case Motion::Rotation720p: return "rotation-720p";
    case Motion::CameraPath1080p: return "camera-1080p";
    case Motion::Occlusion: return "occlusion";
    case Motion::Stereo: return "stereo";
    case Motion::Count: break;
    }
    return "unknown";
}

const char* photometry_name(Photometry p) {
    switch (p) {
    case Photometry::None: return "none";
    case Photometry::GainNoise: return "gain-noise";
    case Photometry::Ramp: return "ramp";
    case Photometry::Shading: return "shading";
    case Photometry::Count: break;
    }
    return "unknown";
}

namespace {

// The value of E whose name(value) is `name`, among 0..E::Count - 1.
template <class E>
bool from_name(const char* name, const char* (*name_of)(E), E* out) {
    if (!name) return false;
    for (int i = 0; i < static_cast<int>(E::Count); ++i)
        if (std::strcmp(name, name_of(static_cast<E>(i))) == 0) {
            if (out) *out = static_cast<E>(i);
            return true;
        }
    return false;
}

bool valid(Motion m, Photometry p) {
    return static_cast<int>(m) >= 0 && m < Motion::Count && static_cast<int>(p) >= 0 && p < Photometry::Count;
}

} // namespace

bool motion_from_name(const char* name, Motion* out) { return from_name(name, motion_name, out); }

bool photometry_from_name(const char* name, Photometry* out) { return from_name(name, photometry_name, out); }

void motion_size(Motion m, int* w, int* h) {
    const bool ok = static_cast<int>(m) >= 0 && m < Motion::Count;
    if (w) *w = ok ? kNative[static_cast<int>(m)][0] : 0;
    if (h) *h = ok ? kNative[static_cast<int>(m)][1] : 0;
}

void generate_cell(Motion m, Photometry p, int w, int h, uint32_t seed, float* i0, float* i1, float* gt_u,
                   float* gt_v, std::ptrdiff_t pitch) {
    generate_cell_window(m, p, w, h, seed, 0, 0, w, h, i0, i1, gt_u, gt_v, pitch);
}

void generate_cell_window(Motion m, Photometry p, int w, int h, uint32_t seed, int x0, int y0, int ww, int wh,
                          float* i0, float* i1, float* gt_u, float* gt_v, std::ptrdiff_t pitch) {
    if (w <= 0 || h <= 0 || ww <= 0 || wh <= 0 || !valid(m, p)) return;
    Scene s(seed);
    build(m, w, h, &s);
    for (int j = 0; j < wh; ++j)
        for (int i = 0; i < ww; ++i) {
            const int64_t x = static_cast<int64_t>(x0) + i, y = static_cast<int64_t>(y0) + j;
            const double X = static_cast<double>(x), Y = static_cast<double>(y);
            const std::ptrdiff_t k = static_cast<std::ptrdiff_t>(j) * pitch + i;
            if (i0 || gt_u || gt_v) {
                int l = 0;
                while (!s.layer[l].holds(X, Y)) ++l; // the last layer is a plane
                double u = 0.0, v = 0.0;
                s.flow(s.layer[l], X, Y, &u, &v);
                if (i0) i0[k] = static_cast<float>(photometric(p, 0, w, h, seed, x, y, s.texture(s.layer[l], X, Y)));
                if (gt_u) gt_u[k] = static_cast<float>(u);
                if (gt_v) gt_v[k] = static_cast<float>(v);
            }
            if (i1) {
                double sx = 0.0, sy = 0.0;
                int l = 0;
                for (;; ++l) {
                    s.source(s.layer[l], X, Y, &sx, &sy);
                    if (l == s.layers - 1 || s.layer[l].holds(sx, sy)) break;
                }
                i1[k] = static_cast<float>(photometric(p, 1, w, h, seed, x, y, s.texture(s.layer[l], sx, sy)));
            }
        }
}

} // namespace synth
} // namespace oflow
