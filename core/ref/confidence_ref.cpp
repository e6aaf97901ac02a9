// The residual confidence's kernels (core/confidence.hpp): the per-pixel terms, the row means and
// the column means with the map to [0, 1]. Shared by every CPU path (the NEON path runs these
// too: a few dozen operations per pixel, once per frame, a small share of a solve), so both CPU
// paths give the same bits. Each output row depends only on its inputs, never on how the rows
// are split between threads. The window mean adds its in-frame samples in order k = -r..r and
// divides by their count; the CUDA kernel (cuda/confidence_cuda.cu) adds in the same order.
#include "core/confidence.hpp"
#include "core/robust.hpp"

namespace oflow {

namespace {

inline int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

} // namespace

void conf_terms_ref(Plane n0, Plane n1, Plane u1, Plane u2, Plane r, Plane g, int y0, int y1) {
    const int w = n0.w, h = n0.h;
    for (int y = y0; y < y1; ++y) {
        const float* a = n0.row(y);
        const float* up = n0.row(clamp_index(y - 1, h));
        const float* dn = n0.row(clamp_index(y + 1, h));
        const float* du = u1.row(y);
        const float* dv = u2.row(y);
        float* ro = r.row(y);
        float* go = g.row(y);
        for (int x = 0; x < w; ++x) {
            ro[x] = pick_term(n1.data, n1.pitch, n1.w, n1.h, static_cast<float>(x) + du[x], static_cast<float>(y) + dv[x], a[x]);
            const float gx = 0.5f * (a[clamp_index(x + 1, w)] - a[clamp_index(x - 1, w)]);
            const float gy = 0.5f * (dn[x] - up[x]);
            go[x] = gx * gx + gy * gy;
        }
    }
}

void conf_box_rows_ref(Plane a, Plane b, Plane ma, Plane mb, int y0, int y1) {
    const int w = a.w;
    for (int y = y0; y < y1; ++y) {
        const float* ia = a.row(y);
        const float* ib = b.row(y);
        float* oa = ma.row(y);
        float* ob = mb.row(y);
        for (int x = 0; x < w; ++x) {
            float sa = 0.0f, sb = 0.0f;
            int n = 0;
            for (int k = -kConfRadius; k <= kConfRadius; ++k) {
                const int xx = x + k;
                if (xx < 0 || xx >= w) continue;
                sa += ia[xx];
                sb += ib[xx];
                ++n;
            }
            const float inv = 1.0f / static_cast<float>(n);
            oa[x] = sa * inv;
            ob[x] = sb * inv;
        }
    }
}

void conf_finish_ref(Plane ma, Plane mb, Plane u1, Plane u2, Plane out, int y0, int y1) {
    const int w = ma.w, h = ma.h;
    for (int y = y0; y < y1; ++y) {
        const int lo = y - kConfRadius < 0 ? 0 : y - kConfRadius;
        const int hi = y + kConfRadius >= h ? h - 1 : y + kConfRadius;
        const float inv = 1.0f / static_cast<float>(hi - lo + 1);
        const float* du = u1.row(y);
        const float* dv = u2.row(y);
        float* o = out.row(y);
        for (int x = 0; x < w; ++x) {
            float sa = 0.0f, sb = 0.0f;
            for (int yy = lo; yy <= hi; ++yy) {
                sa += ma.row(yy)[x];
                sb += mb.row(yy)[x];
            }
            const bool finite = std::isfinite(du[x]) && std::isfinite(dv[x]);
            o[x] = finite ? residual_confidence(sa * inv, sb * inv) : 0.0f;
        }
    }
}

} // namespace oflow
