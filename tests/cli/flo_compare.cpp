// flo_compare A.flo B.flo ABS REL [GRID]: B is A written in a compact flow format and brought
// back to float (oflow-cli --flow-format). Passes (exit 0) when both have the same size and every
// component of B lies within max(ABS, REL * |a|) of A's, and B is on the format's grid: GRID
// "s10.5" (every value a multiple of 1/32 px) or "f16" (every value a half); otherwise prints the
// first offence and exits 1. Bad arguments or unreadable files: exit 2.
#include "flo_io.hpp"

#include "core/flow_format.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
    if (argc != 5 && argc != 6) {
        std::fprintf(stderr, "usage: flo_compare A.flo B.flo ABS REL [s10.5|f16]\n");
        return 2;
    }
    cli::FlowField a, b;
    std::string err;
    if (!cli::read_flo(argv[1], &a, &err) || !cli::read_flo(argv[2], &b, &err)) {
        std::fprintf(stderr, "flo_compare: %s\n", err.c_str());
        return 2;
    }
    const double abs_tol = std::atof(argv[3]), rel_tol = std::atof(argv[4]);
    const std::string grid = argc == 6 ? argv[5] : "";
    if (grid != "" && grid != "s10.5" && grid != "f16") {
        std::fprintf(stderr, "flo_compare: unknown grid '%s'\n", grid.c_str());
        return 2;
    }
    if (a.width != b.width || a.height != b.height) {
        std::printf("flo_compare: sizes differ: %dx%d vs %dx%d\n", a.width, a.height, b.width, b.height);
        return 1;
    }
    double worst = 0.0;
    std::size_t differ = 0;
    for (std::size_t i = 0; i < a.uv.size(); ++i) {
        const double x = a.uv[i], y = b.uv[i], d = std::fabs(x - y);
        const double tol = std::fmax(abs_tol, rel_tol * std::fabs(x));
        if (!(d <= tol)) {
            std::printf("flo_compare: component %zu (pixel %zu): %.9g vs %.9g, |d| %.3g > %.3g\n", i % 2, i / 2, x, y, d,
                        tol);
            return 1;
        }
        const bool on_grid = grid == "s10.5" ? std::floor(y * 32.0) == y * 32.0
                             : grid == "f16"  ? oflow::f16_to_float(oflow::flow_to_f16(b.uv[i])) == b.uv[i]
                                              : true;
        if (!on_grid) {
            std::printf("flo_compare: component %zu (pixel %zu): %.9g is not a %s value\n", i % 2, i / 2, y,
                        grid.c_str());
            return 1;
        }
        worst = std::fmax(worst, d);
        differ += d > 0.0 ? 1 : 0;
    }
    std::printf("flo_compare: %zu components, %zu differ, max |d| %.6g\n", a.uv.size(), differ, worst);
    return 0;
}
