#include "core/select.hpp"

#if OF_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#endif
#if OF_HAVE_NEON
#include "neon/kernels_neon.hpp"
#endif

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace oflow {
namespace {

const char kForceVar[] = "OFLOW_FORCE_BACKEND";

// Whether CUDA can run here; why (why_len bytes) says why not.
bool cuda_usable(char* why, std::size_t why_len) {
#if OF_HAVE_CUDA
    return cuda::available(why, why_len);
#else
    std::snprintf(why, why_len, "this build has no CUDA backend (OF_WITH_CUDA was OFF or nvcc was missing)");
    return false;
#endif
}

// Whether NEON can run here; why (why_len bytes) says why not.
bool neon_usable(char* why, std::size_t why_len) {
#if OF_HAVE_NEON
    if (neon_available()) return true;
    std::snprintf(why, why_len, "this CPU has no Advanced SIMD");
    return false;
#else
    std::snprintf(why, why_len, "this build has no NEON backend (not aarch64, or OF_WITH_NEON=OFF)");
    return false;
#endif
}

thread_local bool t_ignore_force = false; // set by of_selftest (ForceOverrideOff)

// The backend to resolve: cfg.backend, or OFLOW_FORCE_BACKEND when it is set and not empty
// (*forced then points at its value). An unknown value is an error, never ignored.
of_status requested_backend(const of_config& cfg, const ErrorSink& err, of_backend* out,
                            const char** forced) {
    *out = cfg.backend;
    *forced = nullptr;
    if (t_ignore_force) return OF_OK;
    const char* v = std::getenv(kForceVar);
    if (!v || v[0] == '\0') return OF_OK;
    struct Name {
        const char* name;
        of_backend backend;
    };
    static const Name kNames[] = {{"reference", OF_BACKEND_REFERENCE},
                                  {"neon", OF_BACKEND_NEON},
                                  {"cuda", OF_BACKEND_CUDA},
                                  {"auto", OF_BACKEND_AUTO}};
    for (const Name& n : kNames)
        if (std::strcmp(v, n.name) == 0) {
            *out = n.backend;
            *forced = n.name;
            return OF_OK;
        }
    return err.fail(OF_ERR_INVALID_ARGUMENT,
                    "%s=\"%.40s\": unknown backend (use reference, neon, cuda or auto)", kForceVar, v);
}

} // namespace

ForceOverrideOff::ForceOverrideOff() : was_(t_ignore_force) { t_ignore_force = true; }
ForceOverrideOff::~ForceOverrideOff() { t_ignore_force = was_; }

of_status select_and_plan(const of_config& cfg, std::size_t context_bytes, const ErrorSink& err,
                          Plan* plan, char* reason, std::size_t reason_len) {
    PlanInputs in{OF_BACKEND_REFERENCE, context_bytes, 0, 0, 0};
    of_backend want = OF_BACKEND_AUTO;
    const char* forced = nullptr;
    of_status s = requested_backend(cfg, err, &want, &forced);
    if (s != OF_OK) return s;
    // Who asked, for the messages: the config, or the environment variable (named with its value).
    char who[48];
    if (forced)
        std::snprintf(who, sizeof(who), "%s=%s", kForceVar, forced);
    else
        std::snprintf(who, sizeof(who), "config");
    const char* how = forced ? "forced by " : "requested";
    char why[160] = {0};
    switch (want) {
    case OF_BACKEND_REFERENCE:
        std::snprintf(reason, reason_len, "reference %s%s", how, forced ? kForceVar : "");
        break;
    case OF_BACKEND_NEON:
        if (!neon_usable(why, sizeof(why)))
            return err.fail(OF_ERR_BACKEND_UNAVAILABLE, "%s: backend NEON unavailable: %s", who, why);
        in.backend = OF_BACKEND_NEON;
        std::snprintf(reason, reason_len, "NEON %s%s", how, forced ? kForceVar : "");
        break;
    case OF_BACKEND_CUDA:
        if (!cuda_usable(why, sizeof(why)))
            return err.fail(OF_ERR_BACKEND_UNAVAILABLE, "%s: backend CUDA unavailable: %s", who, why);
        in.backend = OF_BACKEND_CUDA;
        std::snprintf(reason, reason_len, "CUDA %s%s", how, forced ? kForceVar : "");
        break;
    case OF_BACKEND_AUTO:
    default: {
        // CUDA when a device is present, else NEON when built, else the reference path. (The
        // per-size CPU/GPU crossover comes with the board tables.)
        const char* tag = forced ? "auto (forced)" : "auto";
        char neon_why[96] = {0};
        if (cuda_usable(why, sizeof(why))) {
            in.backend = OF_BACKEND_CUDA;
            std::snprintf(reason, reason_len, "%s: CUDA device present", tag);
        } else if (neon_usable(neon_why, sizeof(neon_why))) {
            in.backend = OF_BACKEND_NEON;
            std::snprintf(reason, reason_len, "%s: NEON (%s)", tag, why);
        } else {
            std::snprintf(reason, reason_len, "%s: reference path (%s)", tag, why);
        }
        break;
    }
    }
#if OF_HAVE_CUDA
    if (in.backend == OF_BACKEND_CUDA) {
        cuda::Need need{0, 0, 0};
        s = cuda::plan(cfg, &need, err);
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
