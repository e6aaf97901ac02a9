// TV-L1's entry in the algorithm registry (core/algorithm.hpp): its parameters' validation, its
// CPU work planes and level solver (core/tvl1_level_cpu.cpp), its CUDA driver (cuda/). Its
// kernels are the KernelTable's tvl1_* entries, filled with the shared ones.
#include "core/algorithm.hpp"
#include "core/algorithms.hpp"
#include "core/tvl1_level_cpu.hpp"

#include <cmath>

namespace oflow {
namespace {

// The solver forms tau / theta, lambda theta |grad I| and 1 / (1 + tau/theta |grad u|) in F32
// (F16 on some paths). Bounded so that each stays finite and normal: a denormal theta made
// tau / theta infinite, and lambda = theta = 1e30 moved the flow by 20,000 px.
of_status tvl1_check_params(const of_config& cfg, const ErrorSink& err) {
    if (!(cfg.tvl1.tau >= 1e-4f && cfg.tvl1.tau <= 0.25f))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: tvl1.tau %g not in [1e-4, 0.25]",
                        static_cast<double>(cfg.tvl1.tau));
    if (!(cfg.tvl1.lambda >= 1e-4f && cfg.tvl1.lambda <= 1e3f))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: tvl1.lambda %g not in [1e-4, 1000]",
                        static_cast<double>(cfg.tvl1.lambda));
    if (!(cfg.tvl1.theta >= 1e-4f && cfg.tvl1.theta <= 10.0f))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "config: tvl1.theta %g not in [1e-4, 10]",
                        static_cast<double>(cfg.tvl1.theta));
    return OF_OK;
}

int tvl1_work_planes(const of_config& cfg) { return cfg.robust == OF_ROBUST_CENSUS ? kTvPlanesCensus : kTvPlanes; }

const char* tvl1_work_plane_name(const of_config& cfg, int i) {
    static const char* const names[kTvPlanesCensus] = {"I1w", "I1wx", "I1wy", "I1x", "I1y", "grad2", "rho_c",
                                                       "p11", "p12", "p21", "p22", "census_gx", "census_gy",
                                                       "minor_q", "minor_rho_c"};
    return i >= 0 && i < tvl1_work_planes(cfg) ? names[i] : "?";
}

#if OF_HAVE_CUDA
const CudaDriver kTvl1Cuda = {cuda::resolve_tuning, cuda::plan, cuda::create, cuda::process, cuda::destroy, cuda::push,
                                  cuda::register_host, cuda::unregister_host, cuda::last_pick};
#endif

} // namespace

const Algorithm kTvl1 = {
    OF_ALGO_TVL1,
    "tvl1",
    tvl1_check_params,
    tvl1_work_planes,
    tvl1_work_plane_name,
    tvl1_solve_level_cpu,
    nullptr, // kernels: the KernelTable's tvl1_* entries
    true,    // NEON F16 (neon/tvl1_f16_neon.cpp)
    true,
#if OF_HAVE_CUDA
    &kTvl1Cuda,
#else
    nullptr,
#endif
    nullptr, // self-test: the shared cases of core/selftest.cpp are TV-L1's
    -1,      // validity: the residual confidence (core/confidence.hpp)
    nullptr,
    100,     // warps: config_check's bound
    nullptr, // every level is solved
    nullptr, // the shared iteration model
    0,       // LEVEL_NORM: every level at its own scale
};

} // namespace oflow
