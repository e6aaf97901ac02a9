// The context: everything one stream needs, living at the start of its own host arena.
// Created by context_create (the only place that allocates), used by the frame drivers
// (core/process.cpp), released by context_destroy.
#ifndef OFLOW_CORE_CONTEXT_HPP
#define OFLOW_CORE_CONTEXT_HPP

#include "core/dis_kernels.hpp"
#include "core/hs_kernels.hpp"
#include "core/kernels.hpp"
#include "core/lk_kernels.hpp"
#include "core/plan.hpp"
#include "core/status.hpp"
#include "core/stream.hpp"
#include "core/thread_pool.hpp"

namespace oflow {
struct Algorithm;
namespace cuda {
struct State;
}
namespace platform {
struct BoardTable;
}
} // namespace oflow

struct of_context {
    of_config cfg;                  // the effective config (core/select.hpp Selection::cfg): precision
                                    // resolved, iterations from a time budget; platform and
                                    // tuning_path cleared (not retained)
    const oflow::Algorithm* algo;   // the registry entry of cfg.algorithm (core/algorithm.hpp)
    oflow::Plan plan;
    oflow::KernelTable kt;          // the shared stages and TV-L1's
    oflow::HsKernels hs;            // Horn-Schunck / CLG family (filled for those algorithms)
    oflow::LkKernels lk;            // Lucas-Kanade family (filled for LK)
    oflow::DisKernels dis;          // Dense Inverse Search family (filled for DIS; its refinement uses hs)
    oflow::ThreadPool own_pool;     // the workers this context started (none for a DIS pass's context)
    oflow::ThreadPool* pool;        // the pool its frames run on: &own_pool, or the parent's for the DIS
                                    // pass of config.init OF_INIT_DIS (core/init_dis.hpp)
    of_context* init;               // config.init OF_INIT_DIS: the DIS pass's context (in kBufInitArena), or null
    bool init_pass;                 // this context is config.init's DIS pass (its levels are not traced)
    oflow::Gaussian1D presmooth;    // applied to both frames at level 0
    oflow::Gaussian1D level_blur;   // anti-alias before each downscale
    oflow::Gaussian1D robust_blur;  // window of the local normalisation (config.robust_sigma)
    oflow::Gaussian1D rho_blur;     // CLG: the structure tensor's smoothing (config.hs.rho; HS: none)
    void* block;                    // the host arena (starts with this object)
    bool owns_block;                // allocated by the library
    void* buf[oflow::kHostBufCount];// carved buffers; buf[kBufContext] == this
    oflow::cuda::State* cuda;       // the CUDA path's state, or null
    const oflow::platform::BoardTable* table; // the tuning table chosen (built in, or in buf[kBufTable])
    of_info info;
    oflow::StreamState stream;      // of_push_frame's state (core/stream.hpp)
    mutable char error[oflow::kErrorCapacity]; // of_last_error; written by const calls too

    oflow::ErrorSink sink() const { return oflow::ErrorSink{error}; }
};

namespace oflow {

struct Selection;

/// Validates cfg, plans, takes the arena, constructs the context inside it. On failure
/// *out is null and err holds the reason. With config.tuning_path the table is read into a
/// temporary heap object, then copied into the arena (kBufTable).
/// borrow_pool: run on that pool (started, cfg->threads workers: the plan's per-band buffers
/// are sized for them) instead of starting one of the context's own (config.init's DIS pass).
of_status context_create(const of_config* cfg, const ErrorSink& err, of_context** out,
                         ThreadPool* borrow_pool = nullptr);

/// What context_create selects and plans for a checked cfg (reads config.tuning_path the same
/// way): of_query_memory's answer.
of_status select_for_config(const of_config& cfg, std::size_t context_bytes, const ErrorSink& err, Selection* out);
void context_destroy(of_context* ctx);

/// One validated frame pair through ctx's algorithm on its backend (of_process after the
/// argument checks): the CPU paths refuse F32 pixels beyond kMaxF32Pixel first, the CUDA path
/// checks them itself. Fills ctx->info's last_* fields on success.
of_status context_process(of_context* ctx, const of_image& prev, const of_image& next, const of_flow& out);

/// of_register_host / of_unregister_host after the API's checks: the CUDA path's (cuda::register_host),
/// OF_OK doing nothing on the CPU backends.
of_status context_register_host(of_context* ctx, void* p, std::size_t bytes);
of_status context_unregister_host(of_context* ctx, const void* p);

} // namespace oflow

#endif
