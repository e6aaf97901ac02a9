// oflow-tune's pure parts (tune_core.hpp).
#include "tune_core.hpp"

#include "core/plan.hpp" // pyramid_dims: the levels of a whole frame
#include "cuda/cuda_layout.hpp" // MULTI_ITER limits and FUSED's shared memory bound (plain C++)

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace oflow {
namespace tune {

bool operator==(const Shape& a, const Shape& b) {
    return a.variant == b.variant && a.bw == b.bw && a.bh == b.bh && a.rows == b.rows && a.depth == b.depth;
}

std::string shape_text(const Shape& s) {
    char b[64];
    if (s.variant == platform::kVariantMultiIter)
        std::snprintf(b, sizeof b, "%s %dx%d r%d d%d", platform::variant_name(s.variant), s.bw, s.bh, s.rows, s.depth);
    else
        std::snprintf(b, sizeof b, "%s %dx%d", platform::variant_name(s.variant), s.bw, s.bh);
    return b;
}

namespace {

// FUSED's dynamic shared memory, as cuda/cuda_layout.cu resolve_tuning computes it.
std::size_t fused_shared(of_precision p, int bw, int bh) {
    const std::size_t pair = p == OF_PRECISION_F16 ? 4u : 8u;
    const std::size_t w = static_cast<std::size_t>(bw), h = static_cast<std::size_t>(bh);
    return (w + 1) * (h + 1) * 8 + 2 * (w + 2) * (h + 2) * pair;
}

// The GLOBAL (and TV-L1 FUSED) blocks, the library default 32x8 first.
const int kBlocks[][2] = {{32, 8}, {32, 4}, {32, 16}, {64, 4}, {64, 8}, {128, 4}};

// Whether a block of 32 x warps threads of the register-tiled kernels fits the board's registers.
bool warps_fit(int warps, int regs_per_block) {
    return 32 * warps * platform::kMultiIterRegistersPerThread <= regs_per_block;
}

// MULTI_ITER shapes in the order warps, rows, depth 2..max_depth: those of at most max_warps
// warps whose registers fit and whose region (region_w x warps * rows) exceeds 2 x depth on
// each side.
void add_multi_iter(const std::vector<int>& warps, const std::vector<int>& rows, int max_warps, int region_w,
                    int max_depth, int regs_per_block, std::vector<Shape>* out) {
    for (int bh : warps) {
        if (bh > max_warps || !warps_fit(bh, regs_per_block)) continue;
        for (int r : rows)
            for (int depth = 2; depth <= max_depth; ++depth)
                if (region_w > 2 * depth && bh * r > 2 * depth)
                    out->push_back(Shape{platform::kVariantMultiIter, 32, bh, r, depth});
    }
}

std::vector<Shape> tvl1_shapes(of_precision p, int regs_per_block) {
    std::vector<Shape> out;
    for (const auto& b : kBlocks) out.push_back(Shape{platform::kVariantGlobal, b[0], b[1], 1, 1});
    for (const auto& b : kBlocks)
        if (fused_shared(p, b[0], b[1]) <= cuda::kMaxDynamicShared)
            out.push_back(Shape{platform::kVariantFused, b[0], b[1], 1, 1});
    const bool f16 = p == OF_PRECISION_F16;
    add_multi_iter(f16 ? std::vector<int>{2, 4, 8, 16} : std::vector<int>{2, 4, 8},
                   f16 ? std::vector<int>{4, 6, 8} : std::vector<int>{cuda::kMultiRowsF32},
                   f16 ? cuda::kMultiMaxWarpsF16 : cuda::kMultiMaxWarps, cuda::multi_region_w(p), 8, regs_per_block,
                   &out);
    return out;
}

std::vector<Shape> hs_shapes(of_precision p, int regs_per_block) {
    std::vector<Shape> out;
    for (const auto& b : kBlocks) out.push_back(Shape{platform::kVariantGlobal, b[0], b[1], 1, 1});
    const std::vector<int> warps = {2, 4, 8};
    for (int bh : warps)
        if (bh <= cuda::kMultiMaxWarps && warps_fit(bh, regs_per_block))
            out.push_back(Shape{platform::kVariantFused, 32, bh, 1, 1});
    const int rows = p == OF_PRECISION_F16 ? cuda::kHsRowsF16 : cuda::kHsRowsF32;
    add_multi_iter(warps, {rows}, cuda::kMultiMaxWarps, 32 * cuda::hs_multi_cols(p), cuda::kHsCoarseDepth,
                   regs_per_block, &out);
    return out;
}

} // namespace

std::vector<Shape> candidate_shapes(of_algorithm a, of_precision p, int regs_per_block) {
    return cuda::is_variational(a) ? hs_shapes(p, regs_per_block) : tvl1_shapes(p, regs_per_block);
}

Shape baseline_shape() { return Shape{platform::kVariantGlobal, 32, 8, 1, 1}; }

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double percentile90(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    std::size_t k = (9 * n + 9) / 10; // ceil(0.9 n), 1-based
    if (k < 1) k = 1;
    return v[k - 1];
}

int iterations_for(const Shape& s) {
    if (s.variant != platform::kVariantMultiIter || s.depth < 1) return 24;
    return (24 + s.depth - 1) / s.depth * s.depth;
}

std::vector<VariantRanking> rank_bucket(const std::vector<Timing>& timings, int keep) {
    std::vector<VariantRanking> out;
    for (int v = 0; v < platform::kVariantCount; ++v) {
        VariantRanking r;
        r.variant = static_cast<platform::Variant>(v);
        r.rank = 0;
        for (const Timing& t : timings)
            if (t.ok && t.shape.variant == r.variant && t.ns > 0.0) r.top.push_back(t);
        if (r.top.empty()) continue;
        // Fastest first; equal times keep the candidate order (defaults come first).
        std::stable_sort(r.top.begin(), r.top.end(), [](const Timing& a, const Timing& b) { return a.ns < b.ns; });
        if (static_cast<int>(r.top.size()) > keep) r.top.resize(static_cast<std::size_t>(keep));
        out.push_back(r);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const VariantRanking& a, const VariantRanking& b) { return a.top[0].ns < b.top[0].ns; });
    for (std::size_t i = 0; i < out.size(); ++i) out[i].rank = static_cast<int>(i) + 1;
    return out;
}

Factors warn_fail(double spread, double size_ratio) {
    double w = 1.5;
    if (std::isfinite(spread)) w = std::max(w, 1.2 * spread);
    if (std::isfinite(size_ratio)) w = std::max(w, 1.2 * size_ratio);
    w = std::ceil(w * 100.0 - 1e-9) / 100.0;
    if (w > 300.0) w = 300.0;
    // fail to 0.01 as well: 3 x 2.6 is 7.800000000000001 in binary, which reads badly in a table
    return Factors{w, std::round(300.0 * w) / 100.0};
}

std::string warn_fail_text(double spread, double size_ratio, const Factors& f) {
    char b[200];
    std::snprintf(b, sizeof b, "warn = max(1.5, 1.2 x p90/median %.3f, 1.2 x self-test-size slowdown %.3f) = %.2f, fail = 3 warn",
                  spread, size_ratio, f.warn);
    return b;
}

Crossover bisect_crossover(int lo, int hi, const std::function<bool(int side, bool* gpu_faster)>& probe) {
    Crossover c{false, 0, 0, 0};
    bool g = false;
    ++c.probes;
    if (!probe(lo, &g)) return c;
    if (g) {
        c.ok = true;
        c.gpu_side = lo;
        return c;
    }
    c.cpu_side = lo;
    ++c.probes;
    if (!probe(hi, &g)) return c;
    if (!g) {
        c.ok = true;
        c.cpu_side = hi;
        return c;
    }
    c.gpu_side = hi;
    // Invariant: the CPU was faster at cpu_side, the GPU at gpu_side.
    while (c.gpu_side - c.cpu_side > 1 &&
           static_cast<double>(c.gpu_side) / static_cast<double>(c.cpu_side) > 1.05) {
        int mid = static_cast<int>(std::lround(std::sqrt(static_cast<double>(c.cpu_side) * c.gpu_side)));
        if (mid <= c.cpu_side) mid = c.cpu_side + 1;
        if (mid >= c.gpu_side) mid = c.gpu_side - 1;
        ++c.probes;
        if (!probe(mid, &g)) return c;
        (g ? c.gpu_side : c.cpu_side) = mid;
    }
    c.ok = true;
    return c;
}

FramePoint frame_point(int side, const Schedule& sch, int depth, double ns_per_it_px, double t_ns) {
    LevelDims dims[kMaxLevels];
    const int levels = pyramid_dims(side, side, sch.levels, 0.5f, dims);
    double area = 0.0;
    for (int l = 0; l < levels; ++l) area += static_cast<double>(dims[l].w) * static_cast<double>(dims[l].h);
    const int d = std::max(1, depth);
    const double warps = static_cast<double>(sch.warps);
    FramePoint fp;
    fp.t_ns = t_ns;
    fp.area0 = static_cast<double>(side) * static_cast<double>(side);
    fp.iteration_ns = warps * sch.iterations * area * ns_per_it_px;
    fp.launches = warps * levels * ((sch.iterations + d - 1) / d);
    fp.level_runs = warps * levels;
    return fp;
}

std::string term_schedules_text() {
    std::string s;
    for (const Schedule& sch : kTermSchedules) {
        char b[48];
        if (sch.levels > 0)
            std::snprintf(b, sizeof b, "%s%d/%d/%d", s.empty() ? "" : ", ", sch.levels, sch.warps, sch.iterations);
        else
            std::snprintf(b, sizeof b, "%sauto/%d/%d", s.empty() ? "" : ", ", sch.warps, sch.iterations);
        s += b;
    }
    return s;
}

namespace {

const int kTerms = 4; // frame_us, frame_ns_per_px, launch_us, level_us (as ns, ns/px, ns, ns)

// The regressors of a point, in the order of kTerms.
void regressors(const FramePoint& p, double f[kTerms]) {
    f[0] = 1.0;
    f[1] = p.area0;
    f[2] = p.launches;
    f[3] = p.level_runs;
}

double model_ns(const FramePoint& p, const double coef[kTerms]) {
    double f[kTerms];
    regressors(p, f);
    double t = p.iteration_ns;
    for (int k = 0; k < kTerms; ++k) t += coef[k] * f[k];
    return t;
}

// Solves the n x n system a x = b (n <= kTerms) by Gaussian elimination with partial pivoting;
// false when a pivot vanishes against the matrix's scale (terms the points cannot tell apart).
bool solve(int n, double a[kTerms][kTerms], double b[kTerms], double x[kTerms]) {
    double big = 0.0;
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) big = std::max(big, std::fabs(a[r][c]));
    for (int c = 0; c < n; ++c) {
        int piv = c;
        for (int r = c + 1; r < n; ++r)
            if (std::fabs(a[r][c]) > std::fabs(a[piv][c])) piv = r;
        if (!(std::fabs(a[piv][c]) > 1e-12 * big)) return false;
        for (int k = 0; k < n; ++k) std::swap(a[c][k], a[piv][k]);
        std::swap(b[c], b[piv]);
        for (int r = c + 1; r < n; ++r) {
            const double f = a[r][c] / a[c][c];
            for (int k = c; k < n; ++k) a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int c = n - 1; c >= 0; --c) {
        double v = b[c];
        for (int k = c + 1; k < n; ++k) v -= a[c][k] * x[k];
        x[c] = v / a[c][c];
    }
    return true;
}

} // namespace

FrameFit fit_frame_terms(const std::vector<FramePoint>& points) {
    FrameFit best{false, 0.0, 0.0, 0.0, 0.0, 0.0};
    if (points.size() < static_cast<std::size_t>(kTerms)) return best;
    for (const FramePoint& p : points)
        if (!(p.t_ns > 0.0) || !std::isfinite(p.t_ns) || !std::isfinite(p.area0) || !std::isfinite(p.iteration_ns) ||
            !std::isfinite(p.launches) || !std::isfinite(p.level_runs))
            return best;
    // Columns scaled to about 1 so the normal equations stay well conditioned.
    double scale[kTerms] = {0.0, 0.0, 0.0, 0.0};
    for (const FramePoint& p : points) {
        double f[kTerms];
        regressors(p, f);
        for (int k = 0; k < kTerms; ++k) scale[k] = std::max(scale[k], std::fabs(f[k]));
    }
    for (double& s : scale)
        if (!(s > 0.0)) s = 1.0;
    double best_sse = INFINITY;
    double coef[kTerms] = {0.0, 0.0, 0.0, 0.0};
    for (unsigned mask = 0; mask < (1u << kTerms); ++mask) {
        int cols[kTerms], n = 0;
        for (int k = 0; k < kTerms; ++k)
            if (mask & (1u << k)) cols[n++] = k;
        double x[kTerms] = {0.0, 0.0, 0.0, 0.0};
        if (n > 0) {
            double a[kTerms][kTerms] = {{0.0}}, b[kTerms] = {0.0, 0.0, 0.0, 0.0};
            for (const FramePoint& p : points) {
                const double w = 1.0 / p.t_ns; // relative error
                double f[kTerms];
                regressors(p, f);
                for (int k = 0; k < kTerms; ++k) f[k] /= scale[k];
                const double y = (p.t_ns - p.iteration_ns) * w;
                for (int i = 0; i < n; ++i) {
                    for (int j = 0; j < n; ++j) a[i][j] += f[cols[i]] * w * f[cols[j]] * w;
                    b[i] += f[cols[i]] * w * y;
                }
            }
            if (!solve(n, a, b, x)) continue;
        }
        double c[kTerms] = {0.0, 0.0, 0.0, 0.0};
        bool nonneg = true;
        for (int i = 0; i < n; ++i) {
            c[cols[i]] = x[i] / scale[cols[i]];
            nonneg = nonneg && x[i] >= 0.0 && std::isfinite(x[i]);
        }
        if (!nonneg) continue;
        double sse = 0.0;
        for (const FramePoint& p : points) {
            const double e = (model_ns(p, c) - p.t_ns) / p.t_ns;
            sse += e * e;
        }
        if (sse < best_sse - 1e-15) {
            best_sse = sse;
            for (int k = 0; k < kTerms; ++k) coef[k] = c[k];
        }
    }
    if (!std::isfinite(best_sse)) return best;
    best.ok = true;
    best.frame_us = coef[0] * 1e-3;
    best.frame_ns_per_px = coef[1];
    best.launch_us = coef[2] * 1e-3;
    best.level_us = coef[3] * 1e-3;
    for (const FramePoint& p : points)
        best.worst_rel_error = std::max(best.worst_rel_error, std::fabs(model_ns(p, coef) - p.t_ns) / p.t_ns);
    return best;
}

} // namespace tune
} // namespace oflow
