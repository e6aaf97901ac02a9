// gpu_exposure: the exposure grid (tests/exposure_grid.hpp: gain x offset x noise on the fine
// and the default texture, 512x512, automatic levels, the library's defaults but the schedule)
// on the CUDA path, F32 and F16 (default variant). Held to the reference path's bounds; F16
// storage of the duals and gradients gets 10 % more. Skipped (77) without a CUDA device.
// With OFLOW_GPU_SMALL=1 (the compute-sanitizer step of scripts/gpu_check.sh, where every
// access is instrumented) it runs the grid's emulator subset (256x256, two far corners).
#include "gpu_util.hpp"

#include "exposure_grid.hpp"

#include <initializer_list>

using namespace oftest;
using namespace oftest::exposure;

int main() {
    if (!gputest::cuda_ready()) return 77;
    const bool small = gputest::small_run();
    for (of_precision p : {OF_PRECISION_F32, OF_PRECISION_F16}) {
        for (Tex t : {Tex::Fine, Tex::Default}) {
            of_config cfg = grid_config();
            cfg.backend = OF_BACKEND_CUDA;
            cfg.precision = p;
            if (small) {
                cfg.max_width = kSubsetSize;
                cfg.max_height = kSubsetSize;
            }
            const double* bounds = small ? (t == Tex::Fine ? kFineSubsetBounds : kDefaultSubsetBounds)
                                         : (t == Tex::Fine ? kFineBounds : kDefaultBounds);
            run_grid(cfg, t, bounds, p == OF_PRECISION_F16 ? 1.1 : 1.0, p == OF_PRECISION_F16 ? "cuda f16" : "cuda f32",
                     small);
        }
    }
    return finish("gpu_exposure");
}
