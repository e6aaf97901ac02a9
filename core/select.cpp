#include "core/select.hpp"

#if OF_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#endif

#include <cstdio>

namespace oflow {
namespace {

// Whether CUDA can run here; why (why_len bytes) says why not.
bool cuda_usable(char* why, std::size_t why_len) {
#if OF_HAVE_CUDA
    return cuda::available(why, why_len);
#else
    std::snprintf(why, why_len, "this build has no CUDA backend (OF_WITH_CUDA was OFF or nvcc was missing)");
    return false;
#endif
}

} // namespace

of_status select_and_plan(const of_config& cfg, std::size_t context_bytes, const ErrorSink& err,
                          Plan* plan, char* reason, std::size_t reason_len) {
    PlanInputs in{OF_BACKEND_REFERENCE, context_bytes, 0, 0, 0};
    char why[160] = {0};
    switch (cfg.backend) {
    case OF_BACKEND_REFERENCE:
        std::snprintf(reason, reason_len, "reference requested");
        break;
    case OF_BACKEND_NEON:
        return err.fail(OF_ERR_BACKEND_UNAVAILABLE, "config: backend NEON is not in this build");
    case OF_BACKEND_CUDA:
        if (!cuda_usable(why, sizeof(why)))
            return err.fail(OF_ERR_BACKEND_UNAVAILABLE, "config: backend CUDA unavailable: %s", why);
        in.backend = OF_BACKEND_CUDA;
        std::snprintf(reason, reason_len, "CUDA requested");
        break;
    case OF_BACKEND_AUTO:
    default:
        if (cuda_usable(why, sizeof(why))) {
            in.backend = OF_BACKEND_CUDA;
            std::snprintf(reason, reason_len, "auto: CUDA device present");
        } else {
            std::snprintf(reason, reason_len, "auto: reference path (%s)", why);
        }
        break;
    }
#if OF_HAVE_CUDA
    if (in.backend == OF_BACKEND_CUDA) {
        cuda::Need need{0, 0, 0};
        of_status s = cuda::plan(cfg, &need, err);
        if (s != OF_OK) return s;
        in.cuda_state_bytes = need.state_bytes;
        in.pinned_bytes = need.pinned_bytes;
        in.device_bytes = need.device_bytes;
    }
#endif
    if (make_plan(cfg, in, plan) != OF_OK)
        return err.fail(OF_ERR_OVERFLOW, "config: memory plan for %ux%u overflows size_t",
                        cfg.max_width, cfg.max_height);
    return OF_OK;
}

} // namespace oflow
