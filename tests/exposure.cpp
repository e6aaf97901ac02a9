// exposure: the exposure grid (tests/exposure_grid.hpp) on the CPU path that ctest's
// OFLOW_FORCE_BACKEND selects (reference on the host, reference and NEON under qemu).
// Arguments: fine | default (the texture; two CTest tests, so they run in parallel), then
// optionally "subset": tests/exposure_grid.hpp's emulator subset (256x256, two far corners of
// the grid). The suite under qemu-aarch64 runs the subset on NEON and skips the reference path,
// whose whole grid the host stage ran. "small": the same subset on every path, for the
// sanitizer builds (ASan + UBSan: the instrumented code is the same, the whole grid would take
// minutes and find nothing the subset does not reach).
// With OFLOW_CALIBRATE=1 it prints the measured EPEs, from which the bounds were set
// (tests/exposure_grid.hpp).
#include "exposure_grid.hpp"

using namespace oftest;
using namespace oftest::exposure;

int main(int argc, char** argv) {
    const std::string which = argc > 1 ? argv[1] : "fine";
    const Tex t = which == "default" ? Tex::Default : Tex::Fine;
    const std::string mode = argc > 2 ? argv[2] : "";
    const bool subset = mode == "subset" || mode == "small";
    if (mode == "subset" && expected_backend(OF_BACKEND_REFERENCE) == OF_BACKEND_REFERENCE) {
        std::printf("exposure: subset run on the reference path: skipped (the host stage runs its whole grid)\n");
        return 77;
    }
    of_config cfg = grid_config();
    if (subset) { // one thread: under qemu a second one only competes for the same emulation
        cfg.max_width = kSubsetSize;
        cfg.max_height = kSubsetSize;
        cfg.threads = 1;
    }
    cfg.backend = OF_BACKEND_REFERENCE; // OFLOW_FORCE_BACKEND picks the path under test
    const double* bounds = subset ? (t == Tex::Fine ? kFineSubsetBounds : kDefaultSubsetBounds)
                                  : (t == Tex::Fine ? kFineBounds : kDefaultBounds);
    run_grid(cfg, t, bounds, 1.0, "exposure", subset);
    return finish("exposure");
}
