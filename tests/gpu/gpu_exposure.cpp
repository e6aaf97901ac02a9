// gpu_exposure: the exposure grid (tests/exposure_grid.hpp: gain x offset x noise on the fine
// and the default texture, 512x512, automatic levels, the library's defaults but the schedule)
// on the CUDA path, F32 and F16 (default variant). Held to the reference path's bounds; F16
// storage of the duals and gradients gets 10 % more. Skipped (77) without a CUDA device.
#include "gpu_util.hpp"

#include "exposure_grid.hpp"

#include <initializer_list>

using namespace oftest;
using namespace oftest::exposure;

int main() {
    if (!gputest::cuda_ready()) return 77;
    for (of_precision p : {OF_PRECISION_F32, OF_PRECISION_F16}) {
        for (Tex t : {Tex::Fine, Tex::Default}) {
            of_config cfg = grid_config();
            cfg.backend = OF_BACKEND_CUDA;
            cfg.precision = p;
            run_grid(cfg, t, t == Tex::Fine ? kFineBounds : kDefaultBounds, p == OF_PRECISION_F16 ? 1.1 : 1.0,
                     p == OF_PRECISION_F16 ? "cuda f16" : "cuda f32");
        }
    }
    return finish("gpu_exposure");
}
