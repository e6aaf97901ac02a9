// The on-device self-test behind of_selftest (api/oflow.h): what one check reports and the
// checks themselves, split by kind (selftest_kernels.cpp: CPU kernel tables; selftest.cpp:
// device health, flow parity, accuracy, arena, determinism, timing).
//
// Contract: the self-test allocates (std::vector) and creates contexts of its own; it never
// touches a caller's context. It writes at most report->case_capacity cases and counts all.
#ifndef OFLOW_CORE_SELFTEST_HPP
#define OFLOW_CORE_SELFTEST_HPP

#include "core/synth.hpp"
#include "oflow.h"

#include <cstdarg>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

// Sanitizer builds: their allocator keeps no glibc heap statistics and their speed means
// nothing, so the self-test skips the heap and timing checks there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define OF_SELFTEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define OF_SELFTEST_SANITIZED 1
#endif
#endif

namespace oflow {

struct KernelTable;

namespace selftest {

/// One backend x precision under test, e.g. "neon/f16".
struct Path {
    of_backend backend;
    of_precision precision;
    char name[24];
};

/// Collects cases into the caller's report.
class Sink {
public:
    explicit Sink(of_selftest_report* r) : r_(r) {}
    /// Adds "<path>/<group>/<check>" with its result; fmt is the message (printf).
    void add(const Path& p, const char* group, const char* check, of_check_result res, double value, double limit,
             double seconds, const char* fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 9, 10)))
#endif
        ;
    /// Cases not tied to one path ("cuda/device/...").
    void add_named(const char* name, const char* group, of_backend b, of_precision pr, of_check_result res, double value,
                   double limit, double seconds, const char* fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 10, 11)))
#endif
        ;

    /// The board table the timing checks used (the first one named wins).
    void set_board(const char* board);

private:
    void add_v(const char* name, const char* group, of_backend b, of_precision pr, of_check_result res, double value,
               double limit, double seconds, const char* fmt, va_list ap);
    of_selftest_report* r_;
};

// ---- flow helpers (selftest.cpp), shared with the algorithms' cases (Algorithm::selftest) ----
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0);
const char* backend_label(of_backend b);
/// A synthetic pair with ground truth (core/synth.hpp, seed 7), F32 planes of w*h.
struct Pair {
    int w, h;
    std::vector<float> i0, i1, gu, gv;
};
Pair make_pair(synth::Case c, int w, int h, const synth::Exposure& e = synth::Exposure());
struct Flow {
    std::vector<float> u, v;
    std::vector<unsigned char> valid; // the validity mask (of_flow.valid, OF_VALID_MASK_U8): 255 valid
};
/// of_config_init(algo)'s defaults for F32 frames of up to w x h on path p (its backend and
/// precision), with `threads` worker threads: where every algorithm's cases start.
inline of_config path_config(const Path& p, of_algorithm algo, int w, int h, uint32_t threads) {
    of_config c;
    of_config_init(&c, algo);
    c.max_width = static_cast<uint32_t>(w);
    c.max_height = static_cast<uint32_t>(h);
    c.format = OF_PIXEL_F32;
    c.backend = p.backend;
    c.precision = p.precision;
    c.threads = threads;
    return c;
}
/// One frame pair through a fresh context of cfg (F32 frames), the validity mask requested too;
/// why: the message on failure.
of_status run_flow(const of_config& cfg, const Pair& p, Flow* out, char* why, std::size_t why_len);
double epe(const Flow& f, const std::vector<float>& gu, const std::vector<float>& gv);
double max_delta(const Flow& a, const Flow& b);
bool same_bits(const Flow& a, const Flow& b);

/// The confidence case of one algorithm (of_flow.valid against occlusions, selftest.cpp): the
/// accuracy matrix's occluding layers (core/synth_matrix.hpp, synth::Motion::Occlusion) at 96x72
/// (quick) or 160x120 (full) through cfg (its max size set here) with the mask at
/// cfg.min_confidence: most of the occluded pixels invalid, most of the visible ones valid.
/// Reported as "<path>/<group>/<check>".
void check_occlusion_confidence(Sink* sink, const Path& p, const char* group, const char* check, of_config cfg,
                                bool full);

/// Every stage of kt against closed-form results and, when kt is not the reference table,
/// against the reference kernels (selftest_kernels.cpp).
void check_kernels(Sink* sink, const Path& path, const KernelTable& kt);

/// Expected inner-loop time of a path on a board and the factors past which the self-test
/// warns and fails (from the board's tuning table). false when the table has no figure.
struct Expectation {
    double ns_per_iter_px;
    double warn_factor, fail_factor;
    char board[32];
    char source[96];
};
/// why: the reason when false (selftest_timing.cpp).
bool expected_timing(const char* platform, of_backend b, of_precision p, Expectation* out, char* why, std::size_t why_len);

} // namespace selftest

namespace selftest_hooks {
/// Test hook (not in the C ABI): while set, every context created afterwards gets a broken
/// `stage` kernel in its CPU kernel table ("tvl1_calc_p", "blur_h", ...; nullptr restores),
/// so that a test can prove the self-test names the broken case. Not thread-safe: tests only.
void break_kernel(const char* stage);
/// Applied by context creation to a freshly filled CPU kernel table.
void apply(KernelTable* kt);
} // namespace selftest_hooks

} // namespace oflow

#endif
