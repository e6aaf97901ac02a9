// The residual confidence of a level-0 flow on the device (core/confidence.hpp; the CPU's kernels
// are core/ref/confidence_ref.cpp, and this kernel computes exactly what they do): TV-L1, HS and
// CLG's validity output (of_flow.valid), and LK's combined with its own rule, enqueued by
// cuda_frame.cu residual_confidence after the solve, only when a frame asks for it.
//
// Contract: n0, n1 are both frames normalised as OF_ROBUST_LOCAL_NORM (robust pick's judge
// images, or the same normalisation redone after the solve: cuda_state.cuh conf_planes), u the
// final level-0 flow, out the confidence (a free plane, conf_planes' conf), all of the frame's
// level-0 size; out overlaps none of the others. For every pixel:
//   r = pick_term(n1, x + u, n0(x)) (bilinear, kPickOutside outside the frame),
//   g = gx^2 + gy^2, gx, gy the halved central differences of n0, neighbours clamped,
//   row means of r and g over x-2..x+2 (the samples inside the frame, added k = -2..2, times
//   1 / count), then column means of those over y-2..y+2 (the same rule), and
//   out = residual_confidence(mean r, mean g), 0 where u is not finite; with an own plane (LK's
//   lambda plane lk_conf, own.p not null) then combined_confidence(out, plane_confidence(own,
//   half)), as core/flow_driver.cpp write_validity combines them.
// The same operations in the same order as the reference (this file is compiled without mul+add
// contraction, cuda/CMakeLists.txt); residual_confidence's exp2f is the device's (2 ulp), so the
// result matches the reference to a few ulp, not bit for bit.
//
// One kernel, one block of kPlaneBlockX x kPlaneBlockY threads per tile of kTileW x kTileH
// outputs, three phases separated by __syncthreads():
//   1. r and g of the tile plus a kConfRadius halo on every side, (32 + 4) x (8 + 4) samples,
//      into shared memory (positions outside the frame are never read by phase 2: 0);
//   2. the row means of the tile's columns on its rows plus the vertical halo, 32 x 12;
//   3. per output, the column mean of phase 2's values and the map to [0, 1].
// Shared memory (static): 2 x 36 x 12 + 2 x 32 x 12 floats = 6528 bytes per block, within every
// board's 48 KB (a Nano runs 6 such blocks of 256 threads per SM; the register file limits it
// first). Global traffic per pixel: n0 (its own and 4 neighbours, mostly cached), u (8 B), 4
// bilinear reads of n1, the halo's redundancy (432 / 256 = 1.7x of those) and 4 B out. No
// allocation, no host wait (enqueue only).
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_layout.hpp"

#include "core/confidence.hpp"
#include "core/robust.hpp"

namespace oflow {
namespace cuda {
namespace {

const int kBX = kPlaneBlockX, kBY = kPlaneBlockY;
const int kTileW = kBX, kTileH = kBY;                 // outputs per block
const int kRegW = kTileW + 2 * kConfRadius;           // r, g region: 36
const int kRegH = kTileH + 2 * kConfRadius;           // 12
const int kThreads = kBX * kBY;

__global__ void __launch_bounds__(kThreads) k_confidence(DPlane<const float> n0, DPlane<const float> n1,
                                                         DPlane<const float2> u, DPlane<const float> own, float half,
                                                         DPlane<float> out) {
    __shared__ float sr[kRegH][kRegW], sg[kRegH][kRegW];     // terms, tile + halo
    __shared__ float mr[kRegH][kTileW], mg[kRegH][kTileW];   // row means, tile columns x (rows + halo)
    const int w = n0.w, h = n0.h;
    const int x0 = static_cast<int>(blockIdx.x) * kTileW, y0 = static_cast<int>(blockIdx.y) * kTileH;
    const int t = static_cast<int>(threadIdx.y) * kBX + static_cast<int>(threadIdx.x);

    // 1. The terms (conf_terms_ref) of the region, origin (x0 - R, y0 - R).
    for (int i = t; i < kRegW * kRegH; i += kThreads) {
        const int ry = i / kRegW, rx = i % kRegW;
        const int x = x0 - kConfRadius + rx, y = y0 - kConfRadius + ry;
        float r = 0.0f, g = 0.0f;
        if (x >= 0 && x < w && y >= 0 && y < h) {
            const float* a = n0.row(y);
            const float* up = n0.row(clampi(y - 1, 0, h - 1));
            const float* dn = n0.row(clampi(y + 1, 0, h - 1));
            const float2 f = u.row(y)[x];
            r = pick_term(n1.p, n1.pitch, n1.w, n1.h, static_cast<float>(x) + f.x, static_cast<float>(y) + f.y, a[x]);
            const float gx = 0.5f * (a[clampi(x + 1, 0, w - 1)] - a[clampi(x - 1, 0, w - 1)]);
            const float gy = 0.5f * (dn[x] - up[x]);
            g = gx * gx + gy * gy;
        }
        sr[ry][rx] = r;
        sg[ry][rx] = g;
    }
    __syncthreads();

    // 2. Row means (conf_box_rows_ref) of the tile's columns, every region row.
    for (int i = t; i < kTileW * kRegH; i += kThreads) {
        const int ry = i / kTileW, tx = i % kTileW;
        const int x = x0 + tx;
        float sa = 0.0f, sb = 0.0f;
        int n = 0;
        for (int k = -kConfRadius; k <= kConfRadius; ++k) {
            const int xx = x + k;
            if (xx < 0 || xx >= w) continue;
            sa += sr[ry][tx + kConfRadius + k];
            sb += sg[ry][tx + kConfRadius + k];
            ++n;
        }
        const float inv = n > 0 ? 1.0f / static_cast<float>(n) : 0.0f; // n 0: a column outside the frame, unused
        mr[ry][tx] = sa * inv;
        mg[ry][tx] = sb * inv;
    }
    __syncthreads();

    // 3. Column means and the map (conf_finish_ref), one output per thread.
    const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
    const int x = x0 + tx, y = y0 + ty;
    if (x >= w || y >= h) return;
    const int lo = y - kConfRadius < 0 ? 0 : y - kConfRadius;
    const int hi = y + kConfRadius >= h ? h - 1 : y + kConfRadius;
    const float inv = 1.0f / static_cast<float>(hi - lo + 1);
    float sa = 0.0f, sb = 0.0f;
    for (int yy = lo; yy <= hi; ++yy) {
        const int ry = yy - y0 + kConfRadius;
        sa += mr[ry][tx];
        sb += mg[ry][tx];
    }
    const float2 f = u.row(y)[x];
    const bool finite = isfinite(f.x) && isfinite(f.y);
    float c = finite ? residual_confidence(sa * inv, sb * inv) : 0.0f;
    if (own.p) c = combined_confidence(c, plane_confidence(own.row(y)[x], half));
    out.row(y)[x] = c;
}

} // namespace

cudaError_t launch_confidence(DPlane<const float> n0, DPlane<const float> n1, DPlane<const float2> u, DPlane<const float> own,
                              float half, DPlane<float> out, cudaStream_t s) {
    const dim3 grid(static_cast<unsigned>((out.w + kTileW - 1) / kTileW), static_cast<unsigned>((out.h + kTileH - 1) / kTileH));
    k_confidence<<<grid, dim3(kBX, kBY), 0, s>>>(n0, n1, u, own, half, out);
    return cudaGetLastError();
}

void list_confidence_kernels(KernelList* l) { l->add(reinterpret_cast<const void*>(&k_confidence), "confidence"); }

} // namespace cuda
} // namespace oflow
