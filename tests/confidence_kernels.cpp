// confidence_kernels: the residual confidence's CPU kernels (core/ref/confidence_ref.cpp, both CPU
// paths) against a brute-force evaluation of core/confidence.hpp's definition, and its maps:
//  - terms, row means and column means + map on random planes and flows, at sizes where the
//    5x5 window is clipped by every border (1x1, 2x3, 5x4, 37x23), in row bands of every split:
//    within 1e-6 relative of the brute force (double sums), and the same bits whatever the split;
//  - a target outside the frame counts kPickOutside; a non-finite flow gives 0;
//  - residual_confidence: 1 at zero error on a textured window, 0.5 at e = kConfHalf, monotone;
//  - plane_confidence (LK's map): 0.5 at v = half, 1 with half 0, 0 for a negative or NaN v;
//  - combined_confidence: the residual's where the own rule holds, else half of it;
//    confidence_mask: 255 from min_conf up.
#include "test_util.hpp"

#include "core/confidence.hpp"
#include "core/robust.hpp"

#include <random>

using namespace oftest;

namespace {

typedef std::vector<float> V;

oflow::Plane plane(V& v, int w, int h) { return oflow::Plane{v.data(), w, h, w}; }

// core/confidence.hpp's definition, evaluated directly in double.
double brute(const V& n0, const V& n1, const V& u, const V& v, int w, int h, int x, int y) {
    const auto at = [&](const V& p, int xx, int yy) {
        xx = xx < 0 ? 0 : xx >= w ? w - 1 : xx;
        yy = yy < 0 ? 0 : yy >= h ? h - 1 : yy;
        return static_cast<double>(p[static_cast<size_t>(yy) * w + xx]);
    };
    double sr = 0.0, sg = 0.0;
    int n = 0;
    for (int dy = -oflow::kConfRadius; dy <= oflow::kConfRadius; ++dy)
        for (int dx = -oflow::kConfRadius; dx <= oflow::kConfRadius; ++dx) {
            const int xx = x + dx, yy = y + dy;
            if (xx < 0 || xx >= w || yy < 0 || yy >= h) continue;
            const size_t i = static_cast<size_t>(yy) * w + xx;
            sr += oflow::pick_term(n1.data(), w, w, h, static_cast<float>(xx) + u[i], static_cast<float>(yy) + v[i], n0[i]);
            const double gx = 0.5 * (at(n0, xx + 1, yy) - at(n0, xx - 1, yy)), gy = 0.5 * (at(n0, xx, yy + 1) - at(n0, xx, yy - 1));
            sg += gx * gx + gy * gy;
            ++n;
        }
    const double e = sr / n + oflow::kConfFlatWeight / (1.0 + sg / n);
    return std::exp2(-e / oflow::kConfHalf);
}

// The three kernels over rows in `bands` equal bands.
V run(V& n0, V& n1, V& u, V& v, int w, int h, int bands) {
    V r(static_cast<size_t>(w) * h), g(r.size()), mr(r.size()), mg(r.size()), out(r.size(), -1.0f);
    const auto each = [&](auto fn) {
        for (int b = 0; b < bands; ++b) fn(h * b / bands, h * (b + 1) / bands);
    };
    each([&](int y0, int y1) { oflow::conf_terms_ref(plane(n0, w, h), plane(n1, w, h), plane(u, w, h), plane(v, w, h), plane(r, w, h), plane(g, w, h), y0, y1); });
    each([&](int y0, int y1) { oflow::conf_box_rows_ref(plane(r, w, h), plane(g, w, h), plane(mr, w, h), plane(mg, w, h), y0, y1); });
    each([&](int y0, int y1) { oflow::conf_finish_ref(plane(mr, w, h), plane(mg, w, h), plane(u, w, h), plane(v, w, h), plane(out, w, h), y0, y1); });
    return out;
}

void test_against_brute() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> grey(0.0f, 255.0f), flow(-4.0f, 4.0f);
    const int sizes[][2] = {{1, 1}, {2, 3}, {5, 4}, {37, 23}};
    for (const auto& s : sizes) {
        const int w = s[0], h = s[1];
        const size_t n = static_cast<size_t>(w) * h;
        V n0(n), n1(n), u(n), v(n);
        for (size_t i = 0; i < n; ++i) {
            n0[i] = grey(rng);
            n1[i] = grey(rng);
            u[i] = flow(rng);
            v[i] = flow(rng);
        }
        const V one = run(n0, n1, u, v, w, h, 1);
        double worst = 0.0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const double want = brute(n0, n1, u, v, w, h, x, y);
                const double got = one[static_cast<size_t>(y) * w + x];
                worst = std::max(worst, std::fabs(got - want) / std::max(want, 1e-30));
            }
        CHECK_MSG(worst <= 1e-5, "%dx%d: relative error %g against the brute force", w, h, worst);
        for (int bands : {2, 3, 7})
            if (bands <= h) CHECK_MSG(run(n0, n1, u, v, w, h, bands) == one, "%dx%d: %d bands change the bits", w, h, bands);
    }
}

void test_edges() {
    const int w = 16, h = 12;
    const size_t n = static_cast<size_t>(w) * h;
    V n0(n), n1(n), u(n, 0.0f), v(n, 0.0f);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) n0[static_cast<size_t>(y) * w + x] = n1[static_cast<size_t>(y) * w + x] = static_cast<float>((x * 53 + y * 97) % 200);
    // Zero flow on identical textured frames: no residual, a strong gradient: confidence near 1.
    V c = run(n0, n1, u, v, w, h, 1);
    CHECK_MSG(c[5 * w + 8] > 0.99f, "identical textured frames: confidence %g", static_cast<double>(c[5 * w + 8]));
    // Every target outside the frame: each window's mean residual is kPickOutside.
    V far(n, 100.0f);
    c = run(n0, n1, far, v, w, h, 1);
    const float want = oflow::residual_confidence(oflow::kPickOutside, 1e30f);
    CHECK_MSG(std::fabs(c[5 * w + 8] - want) <= 1e-3f * want + 1e-3f, "outside: %g, want about %g", static_cast<double>(c[5 * w + 8]),
              static_cast<double>(want));
    // A non-finite flow: 0 there.
    u[3 * w + 4] = std::numeric_limits<float>::quiet_NaN();
    c = run(n0, n1, u, v, w, h, 1);
    CHECK_MSG(c[3 * w + 4] == 0.0f, "NaN flow: confidence %g", static_cast<double>(c[3 * w + 4]));
}

void test_maps() {
    using namespace oflow;
    CHECK(std::fabs(residual_confidence(kConfHalf, 1e30f) - 0.5f) < 1e-5f);
    CHECK(residual_confidence(0.0f, 1e30f) == 1.0f);
    float last = 2.0f;
    bool monotone = true;
    for (float e = 0.0f; e < 60.0f; e += 0.25f) {
        const float c = residual_confidence(e, 1e30f);
        monotone = monotone && c < last && c >= 0.0f;
        last = c;
    }
    CHECK_MSG(monotone, "residual_confidence not decreasing in the error");
    CHECK(residual_confidence(std::numeric_limits<float>::quiet_NaN(), 1.0f) == 0.0f);
    CHECK(plane_confidence(1.0f, 1.0f) == 0.5f && plane_confidence(3.0f, 1.0f) == 0.75f);
    CHECK(plane_confidence(0.0f, 0.0f) == 1.0f && plane_confidence(7.0f, 0.0f) == 1.0f);
    CHECK(plane_confidence(-1.0f, 1.0f) == 0.0f && plane_confidence(std::numeric_limits<float>::quiet_NaN(), 1.0f) == 0.0f);
    CHECK(combined_confidence(0.3f, 0.9f) == 0.3f && combined_confidence(0.9f, 0.5f) == 0.9f &&
          combined_confidence(0.9f, 0.2f) == 0.45f);
    CHECK(confidence_mask(0.5f, 0.5f) == 255 && confidence_mask(0.4999f, 0.5f) == 0 && confidence_mask(0.0f, 0.0f) == 255);
}

} // namespace

int main() {
    test_against_brute();
    test_edges();
    test_maps();
    return finish("confidence_kernels");
}
