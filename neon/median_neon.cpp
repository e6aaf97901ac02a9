// The flow's size x size median (size 3 or 5; KernelTable::median_flow), four pixels per vector,
// by forgetful selection (A. Paeth; N. Devillard, "Fast median search: an ANSI C
// implementation", 1998): of the n = size^2 window values, keep the first n / 2 + 2, drop their
// smallest and largest, add the next value, drop the smallest and largest again, and so on until
// one value is left: the median. Each "drop" is one bubbling pass of min / max pairs (vminq_f32 /
// vmaxq_f32) that moves the extremes to the ends of the kept set, so no lane branches.
//
// Contract (core/kernels.hpp): dst != src, rows [y0, y1) of dst written, nothing else; the
// window's rows and columns clamped to the plane as the reference does (core/ref/robust_ref.cpp).
// The value is the reference's: a median selects one of the window's values, whatever the
// method, so only -0 against +0 of equal values can differ (every comparison treats them as
// equal). No NaN is expected in a flow; with one in a window the lanes' result is unspecified,
// as std::nth_element's is. Over-read: none (columns where a vector would leave the row are
// gathered clamped into a stack row, as the row tail is).
#include "neon/neon_kernels.hpp"
#include "neon/neon_util.hpp"

namespace oflow {

using namespace neon;

namespace {

// After it, v[0] holds the smallest and v[K - 1] the largest of v[0 .. K) lane by lane, the
// others what is left of the set (in some order). K >= 2, a constant: the passes unroll.
template <int K>
inline void extremes_to_ends(float32x4_t* v) {
    for (int i = 0; i + 1 < K; ++i) { // the largest to the end
        const float32x4_t lo = vminq_f32(v[i], v[i + 1]);
        v[i + 1] = vmaxq_f32(v[i], v[i + 1]);
        v[i] = lo;
    }
    for (int i = K - 2; i > 0; --i) { // the smallest to the front (v[K - 1] is settled)
        const float32x4_t lo = vminq_f32(v[i - 1], v[i]);
        v[i] = vmaxq_f32(v[i - 1], v[i]);
        v[i - 1] = lo;
    }
}

// One round of forgetful selection over the kept set v[Lo .. Hi) of the N (odd) window values
// w[0 .. N), Next the first value not yet taken: the set's extremes to its ends, both dropped,
// the next value into the slot the largest left; then the next round, until one value is left.
// Every bound is a constant, so the whole selection unrolls and the set can stay in registers.
template <int N, int Lo, int Hi, int Next>
inline float32x4_t select_round(float32x4_t* v, const float32x4_t* w) {
    extremes_to_ends<Hi - Lo>(v + Lo);
    if constexpr (Next < N) {
        v[Hi - 1] = w[Next];
        return select_round<N, Lo + 1, Hi, Next + 1>(v, w);
    } else if constexpr (Hi - Lo == 3) {
        return v[Lo + 1];
    } else {
        return select_round<N, Lo + 1, Hi - 1, Next>(v, w);
    }
}

// The median of the N (odd) values w[0 .. N), lane by lane, by forgetful selection: the kept set
// starts as the first N / 2 + 2 values.
template <int N>
inline float32x4_t select_median(const float32x4_t* w) {
    float32x4_t v[N];
    for (int i = 0; i < N / 2 + 2; ++i) v[i] = w[i];
    return select_round<N, 0, N / 2 + 2, N / 2 + 2>(v, w);
}

// Rows [y0, y1) of the Side x Side median.
template <int Side>
void median_rows(Plane src, Plane dst, int y0, int y1) {
    const int r = Side / 2, w = src.w;
    float32x4_t win[Side * Side];
    const float* rows[Side];
    for (int y = y0; y < y1; ++y) {
        for (int dy = -r; dy <= r; ++dy) rows[dy + r] = src.row(clampi(y + dy, 0, src.h - 1));
        float* o = dst.row(y);
        for (int x = 0; x < w; x += kLanes) {
            const int lanes = w - x < kLanes ? w - x : kLanes;
            const bool inside = x - r >= 0 && x + kLanes - 1 + r < w;
            for (int j = 0; j < Side; ++j) {
                const float* s = rows[j];
                if (inside) {
                    for (int i = 0; i < Side; ++i) win[j * Side + i] = vld1q_f32(s + x - r + i);
                } else { // clamped columns, from a stack row (the row's border and tail)
                    float t[kLanes + Side - 1];
                    for (int c = 0; c < kLanes + 2 * r; ++c) t[c] = s[clampi(x - r + c, 0, w - 1)];
                    for (int i = 0; i < Side; ++i) win[j * Side + i] = vld1q_f32(t + i);
                }
            }
            store_n(o + x, select_median<Side * Side>(win), lanes);
        }
    }
}

} // namespace

void median_flow_neon(Plane src, Plane dst, int size, int y0, int y1) {
    if (size == 5)
        median_rows<5>(src, dst, y0, y1);
    else
        median_rows<3>(src, dst, y0, y1); // config_check admits 3 and 5 only
}

} // namespace oflow
