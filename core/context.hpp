// The context: everything one stream needs, living at the start of its own host arena.
// Created by context_create (the only place that allocates), used by the algorithm drivers,
// released by context_destroy.
#ifndef OFLOW_CORE_CONTEXT_HPP
#define OFLOW_CORE_CONTEXT_HPP

#include "core/kernels.hpp"
#include "core/plan.hpp"
#include "core/status.hpp"
#include "core/thread_pool.hpp"

namespace oflow {
namespace cuda {
struct State;
}
} // namespace oflow

struct of_context {
    of_config cfg;                  // validated copy; pointer fields not dereferenced later
    oflow::Plan plan;
    oflow::KernelTable kt;
    oflow::ThreadPool pool;
    oflow::Gaussian1D presmooth;    // applied to both frames at level 0
    oflow::Gaussian1D level_blur;   // anti-alias before each downscale
    void* block;                    // the host arena (starts with this object)
    bool owns_block;                // allocated by the library
    void* buf[oflow::kHostBufCount];// carved buffers; buf[kBufContext] == this
    oflow::cuda::State* cuda;       // the CUDA path's state, or null
    of_info info;
    mutable char error[oflow::kErrorCapacity]; // of_last_error; written by const calls too

    oflow::ErrorSink sink() const { return oflow::ErrorSink{error}; }
};

namespace oflow {

/// Validates cfg, plans, takes the arena, constructs the context inside it. On failure
/// *out is null and err holds the reason.
of_status context_create(const of_config* cfg, const ErrorSink& err, of_context** out);
void context_destroy(of_context* ctx);

} // namespace oflow

#endif
