// A camera's view of a photograph through a homography, and the exact flow between two views.
//
// Contract: a view is the photograph seen through a plane-to-plane map M (view pixel -> photo
// pixel, a 3x3 homography; pixel (i, j) is the point (i, j), pixel centres on integers): frame
// pixel x shows P(M(x)), P the photograph as one continuous function (its antialias prefilter,
// then Catmull-Rom bicubic interpolation). Two views M0, M1 of one photograph have the exact flow
//   gt(x) = M1^-1(M0(x)) - x   (frame 0 -> frame 1),
// since frame 1 at x + gt(x) shows P(M0(x)), frame 0's sample at x (up to the float rounding of
// both frames and of gt). In the homographies H_k = M_k^-1 (photo -> view) that is
// gt = H1 o H0^-1 - id. Every pixel has its gt, also those whose match lies outside frame 1.
// A view is rendered only when every sample it needs (the interpolator's 4x4 support around M(x)
// for x on the frame's corners; the image of the frame is a convex quadrilateral, so its
// corners bound it) lies inside the photograph: no sample is ever clamped or extrapolated.
// Deterministic: the same arguments give the same bits.
#ifndef OFLOW_TESTS_PHOTO_VIEW_HPP
#define OFLOW_TESTS_PHOTO_VIEW_HPP

#include "photo_png.hpp"

#include <vector>

namespace phototest {

/// A 3x3 homography, row-major: (x, y) -> ((m0 x + m1 y + m2) / w, (m3 x + m4 y + m5) / w),
/// w = m6 x + m7 y + m8.
struct Homography {
    double m[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

    void apply(double x, double y, double* ox, double* oy) const;
};

/// a o b (b first).
Homography compose(const Homography& a, const Homography& b);
/// The inverse (adjugate over the determinant); a singular map is not a camera and never given.
Homography inverse(const Homography& a);
Homography translation(double tx, double ty);
/// Rotation by `radians` and isotropic scale `scale` about the origin.
Homography rotation_scale(double radians, double scale);
/// A keystone about the origin: w = 1 + kx x + ky y.
Homography keystone(double kx, double ky);

/// The photograph as a continuous function at `scale` photo pixels per view pixel (scale >= 1;
/// 1 = no prefilter): first blurred by a Gaussian of sigma 0.5 sqrt(scale^2 - 1) photo pixels
/// (the antialias prefilter of a camera whose pixel spans `scale` photo pixels; radius
/// ceil(3 sigma), borders replicated, only ever read away from them), then interpolated by
/// Catmull-Rom bicubic.
class PhotoSampler {
public:
    PhotoSampler(const Photo& photo, double scale);

    /// How far beyond a sample point, in photo pixels, the prefilter and the interpolator read:
    /// a point p is sampled exactly (no border involved) when p +- margin() lies in the photo.
    int margin() const { return margin_; }
    int width() const { return w_; }
    int height() const { return h_; }

    /// P at photo point (x, y); only meaningful where inside(x, y).
    double at(double x, double y) const;
    bool inside(double x, double y) const;

private:
    int w_ = 0, h_ = 0, margin_ = 2;
    std::vector<float> img_; // the prefiltered photograph
};

/// Whether every sample of the w x h view through M (view -> photo) is exact (the contract).
bool view_inside(const PhotoSampler& p, const Homography& view_to_photo, int w, int h);

/// Renders the view: out[y * w + x] = P(M(x, y)), float 0..255 (Catmull-Rom may overshoot by a
/// few grey levels: clamped to [0, 255]). False (nothing written) when !view_inside().
bool render_view(const PhotoSampler& p, const Homography& view_to_photo, int w, int h, float* out);

/// The exact flow from the view through m0 to the view through m1 (the contract), w x h planes.
void view_flow(const Homography& m0, const Homography& m1, int w, int h, float* u, float* v);

} // namespace phototest

#endif
