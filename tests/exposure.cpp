// exposure: the exposure grid (tests/exposure_grid.hpp) on the CPU path that ctest's
// OFLOW_FORCE_BACKEND selects (reference on the host, reference and NEON under qemu).
// Argument: fine | default (the texture; two CTest tests, so they run in parallel).
// With OFLOW_CALIBRATE=1 it prints the measured EPEs, from which the bounds were set
// (tests/exposure_grid.hpp).
#include "exposure_grid.hpp"

using namespace oftest;
using namespace oftest::exposure;

int main(int argc, char** argv) {
    const std::string which = argc > 1 ? argv[1] : "fine";
    const Tex t = which == "default" ? Tex::Default : Tex::Fine;
    of_config cfg = grid_config();
    cfg.backend = OF_BACKEND_REFERENCE; // OFLOW_FORCE_BACKEND picks the path under test
    run_grid(cfg, t, t == Tex::Fine ? kFineBounds : kDefaultBounds, 1.0, "exposure");
    return finish("exposure");
}
