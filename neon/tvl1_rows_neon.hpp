// The row pipeline shared by the F32 and F16 inner iterations (KernelTable::tvl1_iter_rows):
// u of row y, then p of row y - 1, down the band, while those rows are still in cache.
//
// Why the order is exact: calc_u of row y reads p of rows y and y - 1 before the update
// (p of row y - 1 is updated right after it, p of row y one step later), and calc_p of row
// y - 1 reads u of rows y - 1 and y after the update. So one pass gives the same values as
// calc_u over all rows followed by calc_p over all rows, with the same row functions.
#ifndef OFLOW_NEON_TVL1_ROWS_NEON_HPP
#define OFLOW_NEON_TVL1_ROWS_NEON_HPP

#include "core/kernels.hpp"

namespace oflow {
namespace neon {

/// u_row(a, y) updates u of row y and returns its sum of squared changes; p_row(a, y) updates
/// p of row y. Runs rows [y0, y1) as KernelTable::tvl1_iter_rows specifies.
template <float (*URow)(const Tvl1IterArgs&, int), void (*PRow)(const Tvl1IterArgs&, int)>
double iter_rows(const Tvl1IterArgs& a, int y0, int y1) {
    double err = 0.0;
    for (int y = y0; y < y1; ++y) {
        err += static_cast<double>(URow(a, y));
        if (y > y0) PRow(a, y - 1);
    }
    if (y1 == a.u1.h && y1 > y0) PRow(a, y1 - 1); // the last row has no row below to wait for
    return err;
}

/// calc_u over rows [y0, y1) with the same row function (per-row float sums, added in double).
template <float (*URow)(const Tvl1IterArgs&, int)>
double calc_u_rows(const Tvl1IterArgs& a, int y0, int y1) {
    double err = 0.0;
    for (int y = y0; y < y1; ++y) err += static_cast<double>(URow(a, y));
    return err;
}

template <void (*PRow)(const Tvl1IterArgs&, int)>
void calc_p_rows(const Tvl1IterArgs& a, int y0, int y1) {
    for (int y = y0; y < y1; ++y) PRow(a, y);
}

} // namespace neon
} // namespace oflow

#endif
