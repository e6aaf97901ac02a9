// Lucas-Kanade window sums, NEON F32 (core/lk_kernels.hpp, LkBoxFn): box sums of radius r over n
// channels, horizontal and vertical, by block running sums (van Herk / Gil-Werman's scheme, for
// sums): O(1) operations per pixel whatever the window, where the reference adds 2r + 1 terms.
//
// The scheme, along either direction, with s = 2r + 1: block k holds the s terms of output ks's
// window (positions ks - r .. ks + r, clamped into the plane as the reference clamps them). A
// backward running sum over block k gives the suffixes S_k(o) (terms o .. s - 1 of the block),
// a forward one over block k + 1 the prefixes P_{k+1}(o - 1) (its terms 0 .. o - 1), and
//     out(ks) = S_k(0),   out(ks + o) = S_k(o) + P_{k+1}(o - 1)   (0 < o < s):
// each output is a sum of its own window's terms only, in a fixed order: s - 1 additions and
// no subtraction. Three properties the plain running sum (add the entering term, subtract the
// leaving one) does not have:
//  - no drift: the plain sum's error grows with every term that passed through its
//    accumulator, and a flat region after a textured one keeps the texture's rounding residue,
//    of either sign, where the reference has exact zeros (a negative g11, a spurious
//    confidence and, with min_eigen 0, a Newton step on noise). Measured with window 11 down a
//    column of 50 to 1000 rows of squared gradients (0..16256) followed by zeros: 93 % of the
//    all-zero windows came out nonzero, half of them negative, up to 0.18;
//  - a window of zeros sums to exactly 0, one of non-negative terms (g11, g22) stays >= 0;
//  - the blocks are anchored at multiples of s of the plane, not of the call, so an output has
//    the same bits whatever row band (or column tile) computes it: the flow stays independent
//    of the thread count (docs/design.md, section 4).
//
// Accuracy: both the reference's left-to-right sum and these sums are within
// gamma_{s-1} sum|terms| of the exact window sum (gamma_m = m 2^-24 / (1 - m 2^-24)), so per
// pass |neon - ref| <= 2 gamma_{s-1} sum over the window of |terms| (tests/neon/
// neon_lk_kernels.cpp checks every value against it; the measured maxima are there). The
// horizontal pass's error enters the vertical one's terms, so the window sums G differ from
// the reference's by at most about 4 (s - 1) 2^-24 of the sum of the window's magnitudes
// (7.6e-6 at s = 33).
//
// Vectorisation:
//  - vertical: columns in strips of 16 (four vectors), each strip down the band's rows; the
//    suffixes of a block go to a stack scratch of s x 16 floats. Per pixel: two loads of the
//    source, three additions, one scratch store and load, one store.
//  - horizontal: four rows at a time, one row per lane. Columns are transposed (4 x 4, trn1 /
//    trn2) into a stack tile of column vectors (at most 256 outputs, a whole number of blocks,
//    plus the s - 1 columns after them), the running sums run over the tile in place (suffixes
//    over the block's terms, then outputs over the suffixes), and the outputs are transposed
//    back. A band's last group of fewer than four rows repeats its last row in the spare lanes
//    and stores only its own rows; lanes never mix, so a row's bits do not depend on its group.
//
// Over-read: none. Source rows are read in [0, w) only: a transposed chunk of four columns is
// loaded directly only when it lies inside the row, else column by column with the column
// clamped; rows are clamped; strips and tails use partial loads and stores (neon_util.hpp).
// Scratch: stack only (vertical 2 KB, horizontal 4.7 KB at most), nothing allocated.
#include "neon/neon_kernels.hpp"

#include "neon/neon_util.hpp"

namespace oflow {
namespace {

using namespace neon;

// ---- vertical -----------------------------------------------------------------------------------
const int kStripVecs = 4;                         // vectors per column strip
const int kStrip = kStripVecs * kLanes;           // columns per strip

/// Up to kStrip columns of one row: full strips load and store whole vectors, the last strip of
/// a row its n columns only.
template <bool kFull>
struct Strip {
    float32x4_t v[kStripVecs];

    static Strip zero() {
        Strip s;
        for (int i = 0; i < kStripVecs; ++i) s.v[i] = vdupq_n_f32(0.0f);
        return s;
    }
    void add_row(const float* p, int n) {
        for (int i = 0; i < kStripVecs; ++i)
            v[i] = vaddq_f32(v[i], kFull ? vld1q_f32(p + i * kLanes) : load_n(p + i * kLanes, n - i * kLanes));
    }
    void put(float32x4_t* to) const {
        for (int i = 0; i < kStripVecs; ++i) to[i] = v[i];
    }
    /// dst[0 .. n) = from + this.
    void store_sum(const float32x4_t* from, float* dst, int n) const {
        for (int i = 0; i < kStripVecs; ++i) {
            const float32x4_t o = vaddq_f32(from[i], v[i]);
            if (kFull)
                vst1q_f32(dst + i * kLanes, o);
            else
                store_n(dst + i * kLanes, o, n - i * kLanes);
        }
    }
    static void store(const float32x4_t* from, float* dst, int n) {
        for (int i = 0; i < kStripVecs; ++i) {
            if (kFull)
                vst1q_f32(dst + i * kLanes, from[i]);
            else
                store_n(dst + i * kLanes, from[i], n - i * kLanes);
        }
    }
};

// Rows [y0, y1) of one channel, columns [x, x + n) (n = kStrip when kFull). sfx: s x kStripVecs
// vectors of scratch (the suffixes of the current block).
// The planes by value: the compiler keeps their fields in registers (the vector stores below
// may alias anything for it).
template <bool kFull>
void box_v_strip(Plane src, Plane dst, int r, int y0, int y1, int x, int n, float32x4_t* sfx) {
    const int s = 2 * r + 1, h = src.h;
    auto row = [&](int q) { return src.row(clampi(q, 0, h - 1)) + x; };
    int y = y0;
    for (int k = y0 / s; y < y1; ++k) {
        const int first = k * s - r; // block k: rows first .. first + s - 1 (unclamped)
        const int o0 = y - k * s;    // the band's first output in this block (0 after the first)
        // Suffixes S_k(j) for j = s - 1 down to o0, always from the block's end: the same
        // operations for an output whatever band it is in.
        Strip<kFull> acc = Strip<kFull>::zero();
        for (int j = s - 1; j >= o0; --j) {
            acc.add_row(row(first + j), n);
            acc.put(sfx + j * kStripVecs);
        }
        if (o0 == 0) Strip<kFull>::store(sfx, dst.row(y++) + x, n); // out(ks) = S_k(0)
        // Prefixes of block k + 1 from its first row; outputs ks + o = S_k(o) + P_{k+1}(o - 1).
        Strip<kFull> pre = Strip<kFull>::zero();
        for (int o = 1; o < s && y < y1; ++o) {
            pre.add_row(row(first + s + o - 1), n);
            if (o >= o0) pre.store_sum(sfx + o * kStripVecs, dst.row(y++) + x, n);
        }
    }
}

// ---- horizontal ---------------------------------------------------------------------------------
const int kTileOut = 256;                              // outputs per tile, at most
const int kTileCols = kTileOut + kLkMaxWindow - 1 + 3; // + the window's span, + a partial chunk

/// Four rows, one per lane (rows past the group's count repeat its last row).
struct Rows4 {
    const float* p[kLanes];
};

/// Column q (clamped) of the four rows as one vector.
inline float32x4_t column(const Rows4& rows, int q, int w) {
    const int c = clampi(q, 0, w - 1);
    float32x4_t v = vdupq_n_f32(0.0f);
    v = vld1q_lane_f32(rows.p[0] + c, v, 0);
    v = vld1q_lane_f32(rows.p[1] + c, v, 1);
    v = vld1q_lane_f32(rows.p[2] + c, v, 2);
    v = vld1q_lane_f32(rows.p[3] + c, v, 3);
    return v;
}

// Outputs [x0, x0 + nout) of four rows (x0 a multiple of s, nout <= kTileOut a whole number of
// blocks except at the row's end) into out[0 .. nrows) from the column tile t.
void box_h_tile(const Rows4& in, float* const* out, int nrows, int w, int r, int x0, int nout, float32x4_t* t) {
    const int s = 2 * r + 1;
    // The tile: t[i] = column x0 - r + i, for i < nout + s - 1 rounded up to whole chunks.
    const int ncols = nout + s - 1;
    for (int i = 0; i < ncols; i += kLanes) {
        const int q = x0 - r + i;
        if (q >= 0 && q + kLanes <= w) {
            float32x4_t c[kLanes] = {vld1q_f32(in.p[0] + q), vld1q_f32(in.p[1] + q), vld1q_f32(in.p[2] + q),
                                     vld1q_f32(in.p[3] + q)};
            transpose4(c);
            for (int j = 0; j < kLanes; ++j) t[i + j] = c[j];
        } else {
            for (int j = 0; j < kLanes; ++j) t[i + j] = column(in, q + j, w);
        }
    }
    // Running sums per block, in place: t[bs + j] becomes S_b(j) (backward), then the outputs
    // S_b(o) + P_{b+1}(o - 1) (forward over the next block's columns, not yet touched).
    const float32x4_t zero = vdupq_n_f32(0.0f);
    for (int b = 0; b < nout; b += s) {
        float32x4_t* blk = t + b;
        float32x4_t acc = zero;
        for (int j = s - 1; j >= 0; --j) {
            acc = vaddq_f32(acc, blk[j]);
            blk[j] = acc;
        }
        float32x4_t pre = zero;
        const int last = nout - b < s ? nout - b : s; // outputs of this block
        for (int o = 1; o < last; ++o) {
            pre = vaddq_f32(pre, blk[s + o - 1]);
            blk[o] = vaddq_f32(blk[o], pre);
        }
    }
    // Back to rows: t[j .. j + 3] transposed are columns j .. j + 3 of the four rows.
    for (int j = 0; j < nout; j += kLanes) {
        float32x4_t c[kLanes] = {t[j], t[j + 1], t[j + 2], t[j + 3]};
        transpose4(c);
        const int n = nout - j;
        for (int k = 0; k < nrows; ++k) store_n(out[k] + x0 + j, c[k], n);
    }
}

} // namespace

void lk_box_v_multi_neon(const Plane* src, const Plane* dst, int n, int radius, int y0, int y1) {
    float32x4_t sfx[kLkMaxWindow * kStripVecs];
    for (int ch = 0; ch < n; ++ch) {
        const int w = src[ch].w;
        int x = 0;
        for (; x + kStrip <= w; x += kStrip) box_v_strip<true>(src[ch], dst[ch], radius, y0, y1, x, kStrip, sfx);
        if (x < w) box_v_strip<false>(src[ch], dst[ch], radius, y0, y1, x, w - x, sfx);
    }
}

void lk_box_h_multi_neon(const Plane* src, const Plane* dst, int n, int radius, int y0, int y1) {
    float32x4_t tile[kTileCols];
    const int s = 2 * radius + 1;
    const int step = kTileOut / s * s; // a whole number of blocks per tile
    for (int y = y0; y < y1; y += kLanes) {
        const int nrows = y1 - y < kLanes ? y1 - y : kLanes;
        for (int ch = 0; ch < n; ++ch) {
            const int w = src[ch].w;
            Rows4 in;
            float* out[kLanes];
            for (int k = 0; k < kLanes; ++k) {
                const int yy = y + (k < nrows ? k : nrows - 1);
                in.p[k] = src[ch].row(yy);
                out[k] = dst[ch].row(yy);
            }
            for (int x0 = 0; x0 < w; x0 += step)
                box_h_tile(in, out, nrows, w, radius, x0, w - x0 < step ? w - x0 : step, tile);
        }
    }
}

} // namespace oflow
