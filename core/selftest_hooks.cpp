// The self-test's test hook (core/selftest.hpp): a deliberately wrong kernel put in place of a
// named stage of every CPU kernel table filled after break_kernel(stage). Used only by the
// tests that prove of_selftest names a broken case; a library nobody hooks never changes.
#include "core/selftest.hpp"

#include "core/kernels.hpp"

#include <cstring>

namespace oflow {
namespace selftest_hooks {
namespace {

char g_broken[32] = {0}; // the stage to break; "" = none

// Wrong on purpose: leave the outputs as they are.
void broken_blur(Plane, Plane, const Gaussian1D&, int, int) {}
void broken_calc_p(const Tvl1IterArgs&, int, int) {}
double broken_calc_u(const Tvl1IterArgs&, int, int) { return 0.0; }
void broken_gradient(Plane, Plane, Plane, int, int) {}

} // namespace

void break_kernel(const char* stage) {
    std::memset(g_broken, 0, sizeof g_broken);
    if (stage) std::strncpy(g_broken, stage, sizeof g_broken - 1);
}

void apply(KernelTable* kt) {
    if (!g_broken[0]) return;
    if (!std::strcmp(g_broken, "blur_h")) kt->blur_h = broken_blur;
    if (!std::strcmp(g_broken, "blur_v")) kt->blur_v = broken_blur;
    if (!std::strcmp(g_broken, "gradient")) kt->gradient = broken_gradient;
    // The row pipeline (NEON) would bypass a broken half-stencil: drop it with either.
    if (!std::strcmp(g_broken, "tvl1_calc_u")) {
        kt->tvl1_calc_u = broken_calc_u;
        kt->tvl1_iter_rows = nullptr;
    }
    if (!std::strcmp(g_broken, "tvl1_calc_p")) {
        kt->tvl1_calc_p = broken_calc_p;
        kt->tvl1_iter_rows = nullptr;
    }
}

} // namespace selftest_hooks
} // namespace oflow
