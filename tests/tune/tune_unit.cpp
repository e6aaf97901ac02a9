// oflow-tune's pure parts (samples/tune/tune_core.hpp, tune_table.hpp): the shapes it tries
// obey the schema (TV-L1's, and HS / CLG's within their kernels' limits), statistics, ranking,
// the warn/fail rule, the crossover bisection, and the XML writer read back by the library's own
// reader (builds with OF_WITH_TINYXML2).
#include "check.hpp"
#include "tune_core.hpp"
#include "tune_measure.hpp"
#include "tune_table.hpp"

#include "cuda/cuda_layout.hpp"
#include "platform/tuning.hpp"
#if OF_TUNE_TINYXML2
#include "core/status.hpp"
#include "platform/table_load.hpp"
#endif

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

using namespace oflow;
using namespace oflow::tune;

namespace {

// What every candidate list obeys: whole warps of at most 1024 threads, GLOBAL 32x8 (the
// ratios' baseline) among them, no pipeline shape, no duplicates. Returns the shapes per variant.
std::vector<int> common_to_every_list(const std::vector<Shape>& s) {
    std::vector<int> per(platform::kVariantCount, 0);
    bool baseline = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const Shape& x = s[i];
        ++per[x.variant];
        baseline = baseline || x == baseline_shape();
        const int threads = x.bw * x.bh;
        CHECK_MSG(threads <= 1024 && threads % 32 == 0, "%s", shape_text(x).c_str());
        for (std::size_t j = i + 1; j < s.size(); ++j) CHECK(!(x == s[j]));
    }
    CHECK(baseline);
    CHECK(per[platform::kVariantPipeline] == 0);
    return per;
}

void shapes_follow_the_schema() {
    for (of_precision p : {OF_PRECISION_F32, OF_PRECISION_F16}) {
        const bool f16 = p == OF_PRECISION_F16;
        const std::vector<Shape> s = candidate_shapes(OF_ALGO_TVL1, p, 65536);
        const std::vector<int> per = common_to_every_list(s);
        bool warps16 = false;
        for (const Shape& x : s) {
            if (x.variant == platform::kVariantMultiIter) {
                CHECK(x.bw == 32 && x.bh >= 1 && x.bh <= (f16 ? cuda::kMultiMaxWarpsF16 : cuda::kMultiMaxWarps));
                CHECK(f16 ? (x.rows == 4 || x.rows == 6 || x.rows == 8) : x.rows == 8);
                CHECK(x.depth >= 2 && x.depth <= 8);
                CHECK_MSG(cuda::multi_region_w(p) > 2 * x.depth && x.bh * x.rows > 2 * x.depth, "%s", shape_text(x).c_str());
                warps16 = warps16 || x.bh == 16;
            } else {
                CHECK(x.rows == 1 && x.depth == 1);
            }
        }
        CHECK(per[platform::kVariantGlobal] == 6 && per[platform::kVariantFused] == 6);
        CHECK(warps16 == f16);
        // F32: 3 heights x depths 2..8, but 2 warps x 8 rows = 16 rows holds depth <= 7.
        // F16: 2 warps hold depth <= 3/5/7 at 4/6/8 rows, 4 warps <= 7/8/8, 8 and 16 warps <= 8.
        CHECK(per[platform::kVariantMultiIter] == (f16 ? 74 : 20));
    }
    // A board with 32768 registers per block cannot run 512 MULTI_ITER threads.
    for (const Shape& x : candidate_shapes(OF_ALGO_TVL1, OF_PRECISION_F16, 32768))
        if (x.variant == platform::kVariantMultiIter) CHECK(x.bh <= 8);
}

// HS / CLG: the Jacobi kernels' shapes (cuda/cuda_layout.hpp hs_resolve_tuning) that the schema
// also accepts (platform/tables/README.md: FUSED rows 1 and depth 1; MULTI_ITER 32 wide, F32 8
// rows, the region above 2 x depth, the registers fitting). CLG tries HS's list.
void hs_shapes_follow_the_kernels() {
    for (of_precision p : {OF_PRECISION_F32, OF_PRECISION_F16}) {
        const bool f16 = p == OF_PRECISION_F16;
        const std::vector<Shape> s = candidate_shapes(OF_ALGO_HS, p, 65536);
        const std::vector<int> per = common_to_every_list(s);
        const int region_w = 32 * cuda::hs_multi_cols(p);
        CHECK(region_w == cuda::multi_region_w(p)); // the region the schema's validator checks
        for (const Shape& x : s) {
            const bool tiled = x.variant != platform::kVariantGlobal; // the register-tiled kernel
            CHECK_MSG(!tiled || (x.bw == 32 && x.bh >= 1 && x.bh <= cuda::kMultiMaxWarps &&
                                 x.bw * x.bh * platform::kMultiIterRegistersPerThread <= 65536),
                      "%s", shape_text(x).c_str());
            if (x.variant != platform::kVariantMultiIter) {
                CHECK(x.rows == 1 && x.depth == 1);
                continue;
            }
            CHECK(x.rows == (f16 ? cuda::kHsRowsF16 : cuda::kHsRowsF32));
            CHECK(f16 ? (x.rows == 4 || x.rows == 6 || x.rows == 8) : x.rows == cuda::kMultiRowsF32); // the schema's
            CHECK(x.depth >= 2 && x.depth <= cuda::kHsCoarseDepth && x.depth <= 16);
            CHECK_MSG(region_w > 2 * x.depth && x.bh * x.rows > 2 * x.depth, "%s", shape_text(x).c_str());
        }
        CHECK(per[platform::kVariantGlobal] == 6 && per[platform::kVariantFused] == 3);
        // 2 warps x 8 rows = 16 rows hold depth <= 7 (6 depths); 4 and 8 warps depth 2..12 (11 each).
        CHECK_MSG(per[platform::kVariantMultiIter] == 28, "%d", per[platform::kVariantMultiIter]);
        // CLG iterates the same kernels: the same list, in the same order.
        const std::vector<Shape> clg = candidate_shapes(OF_ALGO_CLG, p, 65536);
        CHECK(clg.size() == s.size());
        for (std::size_t i = 0; i < s.size() && i < clg.size(); ++i) CHECK(clg[i] == s[i]);
    }
    // 16384 registers per block hold 4 warps of the register-tiled kernel, not 8.
    int tiled = 0;
    for (const Shape& x : candidate_shapes(OF_ALGO_HS, OF_PRECISION_F32, 16384))
        if (x.variant != platform::kVariantGlobal) {
            ++tiled;
            CHECK(x.bh <= 4);
        }
    CHECK(tiled == 2 + 6 + 11);
}

void statistics() {
    CHECK(median({}) == 0.0);
    CHECK(median({3.0, 1.0, 2.0}) == 2.0);
    CHECK(median({4.0, 1.0, 2.0, 3.0}) == 2.5);
    std::vector<double> v;
    for (int i = 1; i <= 10; ++i) v.push_back(i);
    CHECK(percentile90(v) == 9.0);
    v.push_back(11.0);
    CHECK(percentile90(v) == 10.0); // ceil(9.9) = 10th smallest
    CHECK(percentile90({5.0}) == 5.0);
    CHECK(iterations_for(baseline_shape()) == 24);
    for (int d = 2; d <= cuda::kHsCoarseDepth; ++d) { // TV-L1's depths 2..8, HS's up to 12
        const int n = iterations_for(Shape{platform::kVariantMultiIter, 32, 8, 8, d});
        CHECK(n >= 24 && n % d == 0 && n - d < 24);
    }
}

Timing timing(platform::Variant v, int bw, int bh, int depth, double ns, bool ok = true) {
    return Timing{Shape{v, bw, bh, v == platform::kVariantMultiIter ? 8 : 1, depth}, ok, ns, 1.0, 7, ok ? "" : "failed"};
}

void ranking() {
    using platform::kVariantFused;
    using platform::kVariantGlobal;
    using platform::kVariantMultiIter;
    std::vector<Timing> t = {timing(kVariantGlobal, 32, 8, 1, 0.020), timing(kVariantGlobal, 64, 4, 1, 0.019),
                             timing(kVariantFused, 32, 8, 1, 0.030), timing(kVariantMultiIter, 32, 8, 4, 0.008),
                             timing(kVariantMultiIter, 32, 8, 5, 0.007), timing(kVariantMultiIter, 32, 4, 3, 0.009),
                             timing(kVariantMultiIter, 32, 2, 2, 0.010), timing(kVariantMultiIter, 32, 8, 6, 0.001, false)};
    const std::vector<VariantRanking> r = rank_bucket(t, 3);
    CHECK(r.size() == 3);
    if (r.size() != 3) return;
    CHECK(r[0].variant == kVariantMultiIter && r[0].rank == 1);
    CHECK(r[0].top.size() == 3 && r[0].top[0].shape.depth == 5 && r[0].top[1].shape.depth == 4 && r[0].top[2].shape.depth == 3);
    CHECK(r[1].variant == kVariantGlobal && r[1].rank == 2 && r[1].top[0].shape.bw == 64 && r[1].top.size() == 2);
    CHECK(r[2].variant == kVariantFused && r[2].rank == 3 && r[2].top.size() == 1);
    // Equal times keep the candidate order.
    const std::vector<VariantRanking> e = rank_bucket({timing(kVariantGlobal, 32, 8, 1, 0.02), timing(kVariantGlobal, 64, 8, 1, 0.02)}, 3);
    CHECK(e.size() == 1 && e[0].top[0].shape.bw == 32);
    CHECK(rank_bucket({timing(kVariantGlobal, 32, 8, 1, 0.02, false)}, 3).empty());
}

void factors() {
    Factors f = warn_fail(1.0, 1.0);
    CHECK(f.warn == 1.5 && f.fail == 4.5);
    f = warn_fail(1.5, 1.0);
    CHECK(std::fabs(f.warn - 1.8) < 1e-12 && std::fabs(f.fail - 5.4) < 1e-12);
    f = warn_fail(1.01, 2.0);
    CHECK(std::fabs(f.warn - 2.4) < 1e-12 && std::fabs(f.fail - 7.2) < 1e-12);
    f = warn_fail(2.6 / 1.2, 1.0); // fail 3 x 2.6 is written as 7.8, not 7.800000000000001
    CHECK_MSG(decimal(f.warn) == "2.6" && decimal(f.fail) == "7.8", "%s %s", decimal(f.warn).c_str(), decimal(f.fail).c_str());
    f = warn_fail(1.3333, 0.5); // 1.59996 rounds up to 1.60
    CHECK(std::fabs(f.warn - 1.6) < 1e-12);
    f = warn_fail(NAN, INFINITY);
    CHECK(f.warn == 1.5);
    f = warn_fail(1e9, 1.0); // capped: the schema allows 1000 at most
    CHECK(f.warn == 300.0 && f.fail == 900.0);
    CHECK(warn_fail_text(1.0, 1.0, warn_fail(1.0, 1.0)).find("= 1.50") != std::string::npos);
}

void bisection() {
    for (int at : {17, 40, 100, 333, 1000}) {
        int probes = 0;
        const Crossover c = bisect_crossover(16, 1024, [&](int side, bool* g) {
            ++probes;
            *g = side >= at;
            return true;
        });
        CHECK(c.ok && c.probes == probes);
        CHECK_MSG(c.cpu_side < at && c.gpu_side >= at, "at %d: cpu %d gpu %d", at, c.cpu_side, c.gpu_side);
        CHECK_MSG(c.gpu_side - c.cpu_side <= 1 || c.gpu_side <= 1.05 * c.cpu_side, "at %d: cpu %d gpu %d", at, c.cpu_side,
                  c.gpu_side);
        CHECK(probes <= 12);
    }
    Crossover c = bisect_crossover(16, 1024, [](int, bool* g) {
        *g = true;
        return true;
    });
    CHECK(c.ok && c.gpu_side == 16 && c.cpu_side == 0 && c.probes == 1);
    c = bisect_crossover(16, 1024, [](int, bool* g) {
        *g = false;
        return true;
    });
    CHECK(c.ok && c.gpu_side == 0 && c.cpu_side == 1024 && c.probes == 2);
    c = bisect_crossover(16, 1024, [](int side, bool* g) {
        *g = side > 500;
        return side < 200 || side > 1000; // the first probe in between fails
    });
    CHECK(!c.ok);
}

// Whole frames of a path as oflow-tune times them (sides x kTermSchedules), timed exactly as
// t = frame_us*1e3 + frame_ns_per_px*area0 + iterations + launch_us*1e3*launches + level_us*1e3*levels.
std::vector<FramePoint> exact_frames(const Schedule* schedules, int count, int depth, double ns, const double terms[4]) {
    std::vector<FramePoint> pts;
    for (int side : {64, 128, 256, 512, 1024})
        for (int i = 0; i < count; ++i) {
            FramePoint p = frame_point(side, schedules[i], depth, ns, 0.0);
            p.t_ns = terms[0] * 1e3 + terms[1] * p.area0 + p.iteration_ns + terms[2] * 1e3 * p.launches +
                     terms[3] * 1e3 * p.level_runs;
            pts.push_back(p);
        }
    return pts;
}

// The non-negative least-squares optimum (Karush-Kuhn-Tucker): the derivative of the sum of
// squared relative errors is 0 in every term the fit kept and >= 0 in every term it set to 0
// (raising it would only cost), so a negative term was fixed at 0 and the others refitted.
bool nonnegative_optimum(const std::vector<FramePoint>& pts, const FrameFit& f) {
    const double c[4] = {f.frame_us * 1e3, f.frame_ns_per_px, f.launch_us * 1e3, f.level_us * 1e3};
    double grad[4] = {0.0, 0.0, 0.0, 0.0}, size[4] = {0.0, 0.0, 0.0, 0.0};
    for (const FramePoint& p : pts) {
        const double x[4] = {1.0, p.area0, p.launches, p.level_runs};
        double t = p.iteration_ns;
        for (int k = 0; k < 4; ++k) t += c[k] * x[k];
        const double e = (t - p.t_ns) / p.t_ns;
        for (int k = 0; k < 4; ++k) {
            grad[k] += e * x[k] / p.t_ns;
            size[k] += x[k] / p.t_ns;
        }
    }
    bool ok = true;
    for (int k = 0; k < 4; ++k) {
        const double g = grad[k] / size[k]; // a mean relative error, weighted by the term's share
        ok = ok && c[k] >= 0.0 && (c[k] > 0.0 ? std::fabs(g) < 1e-9 : g > -1e-9);
    }
    return ok;
}

void frame_fit() {
    // Exact data: the fit recovers the four terms, on the GPU (launches of 4 and 7 iterations)
    // and on the CPU (one launch per iteration), from the schedules oflow-tune times.
    const double terms[4] = {40.0, 0.1, 8.6, 18.0}; // frame_us, frame_ns_per_px, launch_us, level_us
    for (int depth : {1, 4, 7}) {
        const std::vector<FramePoint> pts = exact_frames(kTermSchedules, kTermScheduleCount, depth, 0.008, terms);
        const FrameFit f = fit_frame_terms(pts);
        CHECK_MSG(f.ok && std::fabs(f.frame_us - 40.0) < 1e-6 && std::fabs(f.frame_ns_per_px - 0.1) < 1e-9 &&
                      std::fabs(f.launch_us - 8.6) < 1e-6 && std::fabs(f.level_us - 18.0) < 1e-6 &&
                      f.worst_rel_error < 1e-9,
                  "depth %d: %g %g %g %g %g", depth, f.frame_us, f.frame_ns_per_px, f.launch_us, f.level_us,
                  f.worst_rel_error);
    }
    // Why four schedules: 3/1/10 and 3/3/30 alone fit the same frames as exactly without level_us
    // (levels x warps is a straight line in launches over two schedules), so they cannot tell it.
    {
        const FrameFit f = fit_frame_terms(exact_frames(kTermSchedules, 2, 4, 0.008, terms));
        CHECK_MSG(f.ok && f.worst_rel_error < 1e-9 && std::fabs(f.level_us - 18.0) > 1.0, "%g %g", f.level_us,
                  f.worst_rel_error);
    }
    CHECK(term_schedules_text() == "3/1/10, 3/3/30, 1/1/10, auto/2/4");
    // frame_point: levels x warps and launches as frame_ms counts them (auto levels: 7 at 1024^2).
    {
        const FramePoint p = frame_point(1024, Schedule{0, 2, 10}, 4, 0.01, 1e6);
        CHECK(p.level_runs == 14.0 && p.launches == 14.0 * 3 && p.area0 == 1024.0 * 1024.0 && p.t_ns == 1e6);
        CHECK(frame_point(1024, Schedule{3, 1, 10}, 0, 0.01, 1e6).launches == 30.0); // depth 0 counts as 1
    }

    // Non-negative terms: data that want a negative fixed cost get 0 there and the other terms
    // refitted; data that want two negative terms get both at 0.
    const double negative_fixed[4] = {-30.0, 0.1, 8.6, 18.0};
    std::vector<FramePoint> pts = exact_frames(kTermSchedules, kTermScheduleCount, 4, 0.008, negative_fixed);
    FrameFit f = fit_frame_terms(pts);
    CHECK_MSG(f.ok && f.frame_us == 0.0 && f.frame_ns_per_px > 0.0 && f.launch_us > 0.0 && f.level_us > 0.0 &&
                  nonnegative_optimum(pts, f),
              "%g %g %g %g", f.frame_us, f.frame_ns_per_px, f.launch_us, f.level_us);
    const double two_negative[4] = {-30.0, -0.02, 8.6, 18.0};
    pts = exact_frames(kTermSchedules, kTermScheduleCount, 4, 0.008, two_negative);
    f = fit_frame_terms(pts);
    CHECK_MSG(f.ok && f.frame_us == 0.0 && f.frame_ns_per_px == 0.0 && f.launch_us >= 0.0 && f.level_us >= 0.0 &&
                  nonnegative_optimum(pts, f),
              "%g %g %g %g", f.frame_us, f.frame_ns_per_px, f.launch_us, f.level_us);
    const double negative_level[4] = {40.0, 0.1, 8.6, -5.0};
    pts = exact_frames(kTermSchedules, kTermScheduleCount, 7, 0.004, negative_level);
    f = fit_frame_terms(pts);
    CHECK_MSG(f.ok && f.level_us == 0.0 && nonnegative_optimum(pts, f), "%g %g %g %g", f.frame_us, f.frame_ns_per_px,
              f.launch_us, f.level_us);
    // Data that would want a negative per-pixel term get 0 there, never a negative number.
    pts = exact_frames(kTermSchedules, kTermScheduleCount, 4, 0.008, terms);
    for (FramePoint& p : pts) p.t_ns -= 0.05 * p.area0 + 0.1 * p.area0;
    f = fit_frame_terms(pts);
    CHECK(f.ok && f.frame_us >= 0.0 && f.frame_ns_per_px == 0.0 && f.launch_us >= 0.0 && f.level_us >= 0.0 &&
          nonnegative_optimum(pts, f));
    // Four terms need four points; non-finite input fails.
    CHECK(!fit_frame_terms(std::vector<FramePoint>(pts.begin(), pts.begin() + 3)).ok);
    CHECK(fit_frame_terms(std::vector<FramePoint>(pts.begin(), pts.begin() + 4)).ok);
    pts[0].t_ns = NAN;
    CHECK(!fit_frame_terms(pts).ok);
    pts[0].t_ns = 1e6;
    pts[1].level_runs = INFINITY;
    CHECK(!fit_frame_terms(pts).ok);
}

void text() {
    for (double x : {0.0078, 12.0, 0.1 + 0.2, 1e-7, 3.0e5, 1.0 / 3.0}) CHECK(std::strtod(decimal(x).c_str(), nullptr) == x);
    CHECK(decimal(0.0078) == "0.0078");
    CHECK(decimal(4.5) == "4.5");
    CHECK(decimal(40.0) == "40");
    CHECK(decimal(0.1 + 0.2) == "0.30000000000000004");
    CHECK(std::strtod(decimal(1e-30).c_str(), nullptr) == 1e-30);
    CHECK(clip("abc", 3) == "abc");
    CHECK(clip("abcdef", 5) == "ab...");
    CHECK(clip("a\nb", 10) == "a b");
    // "é" is two bytes: never cut in the middle of it.
    const std::string e = clip("xx\xc3\xa9yyyy", 6);
    CHECK(e == "xx...");
}

// The optional whole-frame terms survive the copy and the round trip (where the schema has them).
template <class P>
bool same_terms(const P& a, const P& b, std::true_type) {
    return a.frame_us == b.frame_us && a.frame_ns_per_px == b.frame_ns_per_px && a.launch_us == b.launch_us &&
           a.level_us == b.level_us;
}
template <class P>
bool same_terms(const P&, const P&, std::false_type) {
    return true;
}

// A built-in table copied, given awkward text, written and read back by the library's reader.
void writer_round_trip() {
    const platform::BoardTable* g = platform::find_board("generic");
    CHECK(g != nullptr);
    if (!g) return;
    XTable t = copy_board(*g, "platform/tables/generic.xml");
    t.name = "roundtrip";
    t.title = "GPU <\"quoted\"> & 'apostrophes' -- and a long title that goes on well past the eighty bytes the schema allows";
    t.header = {"a header line -- with double dashes -", "second line"};
    t.algorithms[0].precisions[0].comments[platform::kBucket512].push_back("bucket comment -- dashes");
    t.algorithms[0].precisions[0].path[platform::kPathCpu].source = std::string(1000, 's');
    // The reference path's terms: written on the CPU path, never on the GPU's (the schema refuses them there).
    t.algorithms[0].precisions[0].path[platform::kPathCpu].ref_ns_per_it_px = 0.75;
    t.algorithms[0].precisions[0].path[platform::kPathCpu].ref_frame_ns_per_px = 0.125;
    t.algorithms[0].precisions[0].path[platform::kPathGpu].ref_ns_per_it_px = 9.0;
    const std::string xml = write_xml(t);
    CHECK(xml.find("ref_ns_per_it_px=\"0.75\" ref_frame_ns_per_px=\"0.125\"") != std::string::npos);
    CHECK(xml.find("ref_ns_per_it_px=\"9\"") == std::string::npos);
    CHECK(xml.find("<!--") != std::string::npos);
    // No "--" inside a comment body.
    for (std::size_t at = xml.find("<!--"); at != std::string::npos; at = xml.find("<!--", at + 4)) {
        const std::size_t end = xml.find("-->", at + 4);
        CHECK(end != std::string::npos);
        if (end == std::string::npos) break;
        CHECK(xml.substr(at + 4, end - at - 4).find("--") == std::string::npos);
    }
#if OF_TUNE_TINYXML2
    std::unique_ptr<platform::LoadedTable> r(new platform::LoadedTable());
    char msg[kErrorCapacity] = {0};
    const ErrorSink err{msg};
    const of_status s = platform::parse_table_text(xml.data(), xml.size(), "roundtrip.xml", r.get(), err);
    CHECK_MSG(s == OF_OK, "%s", msg);
    if (s != OF_OK) return;
    const platform::BoardTable& b = r->board;
    CHECK(std::strcmp(b.name, "roundtrip") == 0);
    CHECK(std::strlen(b.title) == kMaxTitleBytes && std::strncmp(b.title, "GPU <\"quoted\"> & 'apostrophes' -- and", 37) == 0);
    CHECK(b.cc_major == g->cc_major && b.cc_minor == g->cc_minor && b.sm_count == g->sm_count);
    CHECK(b.regs_per_block == g->regs_per_block && b.shared_per_block == g->shared_per_block && b.cpu_fp16 == g->cpu_fp16);
    CHECK(b.row_count == g->row_count && b.algorithm_count == g->algorithm_count);
    for (int i = 0; i < b.row_count && i < g->row_count; ++i) {
        const platform::TuningRow &x = b.rows[i], &y = g->rows[i];
        CHECK(x.precision == y.precision && x.crossover_area == y.crossover_area && x.crossover_per_level == y.crossover_per_level);
        for (int k = 0; k < platform::kPathCount; ++k) {
            CHECK(x.path[k].ns_per_it_px == y.path[k].ns_per_it_px && x.path[k].warn == y.path[k].warn &&
                  x.path[k].fail == y.path[k].fail && x.path[k].arith == y.path[k].arith);
            CHECK(same_terms(x.path[k], y.path[k], HasFrameTerms<platform::PathCost>()));
            const bool set = i == 0 && k == platform::kPathCpu; // ref_* set above
            CHECK(x.path[k].ref_ns_per_it_px == (set ? 0.75 : y.path[k].ref_ns_per_it_px) &&
                  x.path[k].ref_frame_ns_per_px == (set ? 0.125 : y.path[k].ref_frame_ns_per_px));
            if (!(i == 0 && k == platform::kPathCpu)) // replaced above
                CHECK(std::strncmp(x.path[k].source, "copied from platform/tables/generic.xml: ", 41) == 0);
        }
        CHECK(std::strlen(x.path[platform::kPathCpu].source) <= kMaxSourceBytes);
        CHECK(x.launch_count == y.launch_count);
        // The writer groups the rows by bucket: match them by (variant, bucket).
        for (int l = 0; l < y.launch_count; ++l) {
            const platform::LaunchRow& q = y.launches[l];
            int found = 0;
            for (int m = 0; m < x.launch_count; ++m) {
                const platform::LaunchRow& p = x.launches[m];
                if (p.variant != q.variant || p.bucket != q.bucket) continue;
                ++found;
                CHECK(p.rank == q.rank && p.block_w == q.block_w && p.block_h == q.block_h && p.rows == q.rows &&
                      p.grid == q.grid && p.depth == q.depth);
            }
            CHECK(found == 1);
        }
    }
#else
    std::printf("tune_unit: no OF_WITH_TINYXML2: the written XML is not read back here (tune_dry_run checks it)\n");
#endif
}

// The --dry-run model is deterministic, for every algorithm oflow-tune learns.
void model_is_deterministic() {
    std::unique_ptr<Measurer> a = model_measurer(), b = model_measurer();
    CHECK(a->modelled() && a->gpu().present);
    const Shape s{platform::kVariantMultiIter, 32, 8, 6, 7};
    const Runs x = a->gpu_inner(OF_ALGO_TVL1, OF_PRECISION_F16, s, 1024, 28, 1, 7);
    const Runs y = b->gpu_inner(OF_ALGO_TVL1, OF_PRECISION_F16, s, 1024, 28, 1, 7);
    CHECK(x.ok && y.ok && x.v == y.v && x.v.size() == 7);
    const Runs c = a->cpu_inner(OF_ALGO_TVL1, OF_PRECISION_F32, 256, 4, 24, 5);
    CHECK(c.ok && c.v.size() == 5 && median(c.v) > 0.0);
    // HS and CLG: the same kernels, so the same GPU times; their own CPU figure.
    const Shape h{platform::kVariantMultiIter, 32, 8, 8, 5};
    const Runs hs = a->gpu_inner(OF_ALGO_HS, OF_PRECISION_F32, h, 2048, 25, 1, 7);
    const Runs clg = b->gpu_inner(OF_ALGO_CLG, OF_PRECISION_F32, h, 2048, 25, 1, 7);
    CHECK(hs.ok && clg.ok && hs.v == clg.v && hs.v.size() == 7 && median(hs.v) > 0.0);
    const Runs hc = a->cpu_inner(OF_ALGO_HS, OF_PRECISION_F32, 512, 4, 24, 5);
    const Runs tc = a->cpu_inner(OF_ALGO_TVL1, OF_PRECISION_F32, 512, 4, 24, 5);
    CHECK(hc.ok && tc.ok && hc.v.size() == 5 && median(hc.v) > 0.0 && median(hc.v) != median(tc.v));
    // The model has a crossover inside the bisection's range, for each algorithm.
    for (of_algorithm al : {OF_ALGO_TVL1, OF_ALGO_HS, OF_ALGO_CLG}) {
        const Runs g16 = a->e2e(al, true, OF_PRECISION_F32, s, 16, kCrossoverSchedule, 3);
        const Runs g1k = a->e2e(al, true, OF_PRECISION_F32, s, 1024, kCrossoverSchedule, 3);
        const Runs c16 = a->e2e(al, false, OF_PRECISION_F32, s, 16, kCrossoverSchedule, 3);
        const Runs c1k = a->e2e(al, false, OF_PRECISION_F32, s, 1024, kCrossoverSchedule, 3);
        CHECK_MSG(median(c16.v) < median(g16.v) && median(g1k.v) < median(c1k.v), "%s", platform::algorithm_name(al));
    }
}

} // namespace

int main() {
    shapes_follow_the_schema();
    hs_shapes_follow_the_kernels();
    statistics();
    ranking();
    factors();
    bisection();
    frame_fit();
    text();
    writer_round_trip();
    model_is_deterministic();
    return oftest::finish("tune_unit");
}
