// Planes with a sentinel for the kernel-contract tests (tests/hs_kernels_ref.cpp,
// tests/lk_kernels_ref.cpp): a w x h plane whose rows are padded by `pad` floats (an odd pitch
// when asked for), every float, padding and one past the last row included, first set to
// kSentinel, so that a test can prove a kernel wrote only the rows it was given.
#ifndef OFLOW_TESTS_SENTINEL_PLANE_HPP
#define OFLOW_TESTS_SENTINEL_PLANE_HPP

#include "core/plane.hpp"

#include <cstddef>
#include <cstring>
#include <random>
#include <vector>

namespace oftest {

const float kSentinel = -12345.0f;

struct Buf {
    std::vector<float> v;
    oflow::Plane p;
    Buf(int w, int h, int pad) : v(static_cast<size_t>(w + pad) * h + 1, kSentinel) {
        p = oflow::Plane{v.data(), w, h, w + pad};
    }
    void fill(std::mt19937& rng, float lo, float hi) {
        std::uniform_real_distribution<float> d(lo, hi);
        for (int y = 0; y < p.h; ++y)
            for (int x = 0; x < p.w; ++x) p.row(y)[x] = d(rng);
    }
    void set(float v0) {
        for (int y = 0; y < p.h; ++y)
            for (int x = 0; x < p.w; ++x) p.row(y)[x] = v0;
    }
    float& at(int x, int y) { return p.row(y)[x]; }
};

/// Bitwise equal, padding and sentinels included.
inline bool same(const Buf& a, const Buf& b) {
    return a.v.size() == b.v.size() && std::memcmp(a.v.data(), b.v.data(), a.v.size() * sizeof(float)) == 0;
}

/// Rows outside [y0, y1), and the padding of every row, still hold the sentinel.
inline bool untouched_outside(const Buf& b, int y0, int y1) {
    for (int y = 0; y < b.p.h; ++y)
        for (int x = 0; x < b.p.pitch; ++x) {
            const bool inside = y >= y0 && y < y1 && x < b.p.w;
            if (!inside && b.p.row(y)[x] != kSentinel) return false;
        }
    return true;
}

/// p at (x, y) with both clamped into the plane: the kernels' replicated border.
inline float at(const oflow::Plane& p, int x, int y) {
    x = x < 0 ? 0 : (x >= p.w ? p.w - 1 : x);
    y = y < 0 ? 0 : (y >= p.h ? p.h - 1 : y);
    return p.row(y)[x];
}

} // namespace oftest

#endif
