// The checkasm-style harness of the NEON kernel checks (neon_kernels.cpp, neon_hs_kernels.cpp):
// a seeded random generator, planes between inaccessible pages, and the per-stage bookkeeping
// of the largest error.
//
// A GPlane lies between two PROT_NONE pages, flush against the trailing one (or the leading
// one), so any read before the first or past the last element of the plane faults: that is the
// "no over-read" contract of neon/*.cpp. Its row padding and every element start as a quiet NaN
// pattern (kPadBits: a kernel that used the padding would produce NaN), and snapshots let a
// check compare every byte outside the rows and columns a call may write with its old value.
#ifndef OFLOW_TESTS_NEON_GUARDED_PLANE_HPP
#define OFLOW_TESTS_NEON_GUARDED_PLANE_HPP

#include "core/plane.hpp"
#include "neon/neon_arch.hpp" // float16_t: __fp16 on AArch64, SIMDe's on x86-64

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace neontest {

// ---- random numbers ---------------------------------------------------------------------------
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 0x1234567ull) {}
    uint32_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return static_cast<uint32_t>(s >> 32);
    }
    float uni(float lo, float hi) { return lo + (hi - lo) * static_cast<float>(next() >> 8) * (1.0f / 16777216.0f); }
    int below(int n) { return static_cast<int>(next() % static_cast<uint32_t>(n)); }
};

// ---- guarded planes ---------------------------------------------------------------------------
const uint32_t kPadBits = 0x7fc0deadu; // a quiet NaN

/// A w x h plane, pitch floats apart, between two PROT_NONE pages. `elem` = 2 makes the last
/// row 2w bytes long (the F16 duals), rounded up to 4 bytes so rows stay float-aligned.
class GPlane {
public:
    oflow::Plane p{nullptr, 0, 0, 0};

    GPlane(int w, int h, std::ptrdiff_t pitch, bool flush_end, int elem = 4) {
        page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        bytes_ = static_cast<std::size_t>(h - 1) * static_cast<std::size_t>(pitch) * 4u +
                 (static_cast<std::size_t>(w) * static_cast<std::size_t>(elem) + 3u) / 4u * 4u;
        const std::size_t span = (bytes_ + page_ - 1) / page_ * page_;
        total_ = span + 2 * page_;
        void* m = mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        base_ = m == MAP_FAILED ? nullptr : static_cast<unsigned char*>(m);
        if (!base_) return;
        mprotect(base_, page_, PROT_NONE);
        mprotect(base_ + page_ + span, page_, PROT_NONE);
        unsigned char* d = base_ + page_ + (flush_end ? span - bytes_ : 0);
        for (std::size_t i = 0; i < bytes_; i += 4) std::memcpy(d + i, &kPadBits, 4);
        p = oflow::Plane{reinterpret_cast<float*>(d), w, h, pitch};
    }
    ~GPlane() {
        if (base_) munmap(base_, total_);
    }
    GPlane(const GPlane&) = delete;
    GPlane& operator=(const GPlane&) = delete;

    bool ok() const { return base_ != nullptr; }
    float& at(int x, int y) { return p.row(y)[x]; }
    float16_t* half_row(int y) const { return reinterpret_cast<float16_t*>(p.row(y)); }
    const unsigned char* bytes() const { return reinterpret_cast<const unsigned char*>(p.data); }
    std::vector<unsigned char> snapshot() const { return std::vector<unsigned char>(bytes(), bytes() + bytes_); }
    /// Copies the values (not the padding) of o, which has the same size.
    void copy_from(const GPlane& o) {
        for (int y = 0; y < p.h; ++y) std::memcpy(p.row(y), o.p.row(y), static_cast<std::size_t>(p.w) * 4u);
    }
    /// True when no byte differs from snap except bytes [0, row_bytes) of rows [y0, y1).
    bool untouched_outside(const std::vector<unsigned char>& snap, int y0, int y1, std::size_t row_bytes) const {
        const unsigned char* b = bytes();
        const std::size_t rowb = static_cast<std::size_t>(p.pitch) * 4u;
        for (std::size_t i = 0; i < bytes_; ++i) {
            const int y = static_cast<int>(i / rowb);
            const std::size_t col = i % rowb;
            if (y >= y0 && y < y1 && col < row_bytes) continue;
            if (b[i] != snap[i]) return false;
        }
        return true;
    }
    bool unchanged(const std::vector<unsigned char>& snap) const { return untouched_outside(snap, 0, 0, 0); }

private:
    unsigned char* base_ = nullptr;
    std::size_t page_ = 0, bytes_ = 0, total_ = 0;
};

/// Odd pitch > w, or w itself (no padding) when `tight`.
inline std::ptrdiff_t pitch_for(int w, bool tight) { return tight ? w : (w % 2 == 0 ? w + 1 : w + 2); }

/// Bands to check: all rows, and an inner band.
struct Band {
    int y0, y1;
};
inline int bands_for(int h, Band out[2]) {
    out[0] = Band{0, h};
    if (h < 3) return 1;
    out[1] = Band{h / 3, h - h / 3};
    return 2;
}

// ---- bookkeeping -------------------------------------------------------------------------------
struct Stat {
    const char* stage;
    double max_err; // in the stage's error measure
    double bound;
    long values;
};
inline std::vector<Stat>& stats() {
    static std::vector<Stat> s;
    return s;
}
inline void record(const char* stage, double err, double bound, long n) {
    for (Stat& s : stats())
        if (std::strcmp(s.stage, stage) == 0) {
            s.max_err = err > s.max_err ? err : s.max_err;
            s.values += n;
            return;
        }
    stats().push_back(Stat{stage, err, bound, n});
}
/// Prints every stage's largest error (and its bound where it has one).
inline void print_stats() {
    for (const Stat& s : stats())
        if (s.bound > 0.0)
            std::printf("  %-40s max error %.3g (bound %.3g) over %ld values\n", s.stage, s.max_err, s.bound, s.values);
        else
            std::printf("  %-40s max error %.3g over %ld values\n", s.stage, s.max_err, s.values);
}

/// Error measure of one value; NaN or infinity (a wrong or missing value) gives +inf.
inline double rel(float a, float b, double scale) {
    if (!std::isfinite(a) || !std::isfinite(b)) return a == b ? 0.0 : HUGE_VAL;
    const double d = std::fabs(static_cast<double>(a) - static_cast<double>(b));
    const double m = std::fabs(static_cast<double>(b)) > scale ? std::fabs(static_cast<double>(b)) : scale;
    return m > 0.0 ? d / m : d;
}

/// Max error over rows [y0, y1) of a against the reference b, each value against the scale
/// scale(x, y).
template <class Scale>
double plane_err(const oflow::Plane& a, const oflow::Plane& b, int y0, int y1, Scale scale) {
    double e = 0.0;
    for (int y = y0; y < y1; ++y)
        for (int x = 0; x < a.w; ++x) {
            const double r = rel(a.row(y)[x], b.row(y)[x], scale(x, y));
            e = r > e ? r : e;
        }
    return e;
}

inline double max_abs(const oflow::Plane& p) {
    double m = 0.0;
    for (int y = 0; y < p.h; ++y)
        for (int x = 0; x < p.w; ++x) m = std::fabs(p.row(y)[x]) > m ? std::fabs(p.row(y)[x]) : m;
    return m;
}

/// Rows [y0, y1) of a and b hold the same bytes in their first w floats.
inline bool same_rows(const oflow::Plane& a, const oflow::Plane& b, int y0, int y1) {
    for (int y = y0; y < y1; ++y)
        if (std::memcmp(a.row(y), b.row(y), static_cast<std::size_t>(a.w) * 4u) != 0) return false;
    return true;
}

/// F32 kernels against the reference: 1e-5 of the stage's scale (the magnitude of its inputs,
/// or the terms that cancel): the NEON kernels fuse multiply-adds and sum in another order, so
/// results near zero after cancellation are compared with what cancelled.
const double kTolF32 = 1e-5;

} // namespace neontest

#endif
