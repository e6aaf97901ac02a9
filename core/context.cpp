#include "core/context.hpp"

#include "core/selftest.hpp"

#include "core/arena.hpp"
#include "core/config_check.hpp"
#include "core/select.hpp"

#if OF_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#endif
#if OF_HAVE_NEON
#include "neon/kernels_neon.hpp"
#endif

#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>

namespace oflow {

of_status context_create(const of_config* cfg, const ErrorSink& err, of_context** out) {
    *out = nullptr;
    of_status s = check_config(cfg, err);
    if (s != OF_OK) return s;
    Plan plan;
    char reason[sizeof(of_info::reason)] = {0};
    s = select_and_plan(*cfg, sizeof(of_context), err, &plan, reason, sizeof(reason));
    if (s != OF_OK) return s;
    void* block = cfg->host_arena;
    const bool owns = block == nullptr;
    std::size_t block_bytes = plan.host_bytes;
    if (!owns) {
        if (cfg->host_arena_size < plan.host_bytes)
            return err.fail(OF_ERR_ARENA, "config: host_arena_size %zu < %zu bytes needed",
                            cfg->host_arena_size, plan.host_bytes);
        block_bytes = cfg->host_arena_size;
    } else {
        block = arena_alloc_host(plan.host_bytes);
        if (!block)
            return err.fail(OF_ERR_OUT_OF_MEMORY, "of_create: cannot allocate %zu host bytes",
                            plan.host_bytes);
    }
    void* slot = arena_buffer(plan, block, block_bytes, kBufContext);
    if (slot != block) {
        if (owns) arena_free_host(block);
        return err.fail(OF_ERR_INTERNAL, "of_create: context slot not at the arena start");
    }
    of_context* c = new (slot) of_context();
    c->cfg = *cfg;
    c->cfg.platform = nullptr; // not retained: the caller's string may not outlive create
    c->plan = plan;
    c->block = block;
    c->owns_block = owns;
    c->error[0] = '\0';
    c->cuda = nullptr;
    for (int i = 0; i < kHostBufCount; ++i) {
        c->buf[i] = arena_buffer(plan, block, block_bytes, static_cast<HostBuf>(i));
        if (!c->buf[i]) {
            of_status st = err.fail(OF_ERR_INTERNAL, "of_create: buffer %s outside the arena",
                                    plan.host[i].name);
            context_destroy(c);
            return st;
        }
    }
    kernel_table_init_ref(&c->kt);
    // NEON overrides the entries it vectorises; F16 arithmetic only where the CPU has it.
    const bool f16_wanted = cfg->precision == OF_PRECISION_F16;
    bool neon_f16 = false;
#if OF_HAVE_NEON
    if (plan.backend == OF_BACKEND_NEON) {
        neon_f16 = f16_wanted && neon_has_f16_arith();
        kernel_table_init_neon(&c->kt, neon_f16);
    }
#endif
    selftest_hooks::apply(&c->kt); // a no-op unless a test broke a kernel on purpose
    c->presmooth = make_gaussian(cfg->presmooth_sigma);
    // Anti-aliasing before downscaling by `factor` (IPOL: sigma = 0.6 sqrt(1/f^2 - 1)).
    const float f = cfg->scale_factor;
    c->level_blur = make_gaussian(0.6f * std::sqrt(1.0f / (f * f) - 1.0f));
    if (!c->pool.start(static_cast<int>(cfg->threads))) {
        of_status st = err.fail(OF_ERR_OUT_OF_MEMORY, "of_create: cannot start %u worker threads",
                                cfg->threads);
        context_destroy(c);
        return st;
    }

    of_info& in = c->info;
    std::memset(&in, 0, sizeof(in));
    in.struct_size = sizeof(of_info);
    in.algorithm = cfg->algorithm;
    in.backend = plan.backend;
    in.precision = neon_f16 ? OF_PRECISION_F16 : OF_PRECISION_F32;
    if (plan.backend == OF_BACKEND_NEON)
        std::snprintf(in.variant, sizeof(in.variant), "%s", neon_f16 ? "neon_f16" : "neon");
    else
        std::snprintf(in.variant, sizeof(in.variant), "ref");
#if OF_HAVE_CUDA
    if (plan.backend == OF_BACKEND_CUDA) {
        s = cuda::create(c->buf[kBufCudaState], c->buf[kBufStaging], *cfg, err, &c->cuda);
        if (s != OF_OK) {
            context_destroy(c);
            return s;
        }
        in.precision = cuda::precision(c->cuda);
        std::snprintf(in.variant, sizeof(in.variant), "%s", cuda::variant_name(c->cuda));
    }
#endif
    in.levels = static_cast<uint32_t>(plan.levels);
    in.threads = cfg->threads;
    in.host_bytes = plan.host_bytes;
    in.device_bytes = plan.device_bytes;
    // The note fits after at most 90 characters of the selection reason (of_info.reason: 160).
    if (f16_wanted && in.precision != OF_PRECISION_F16 && plan.backend == OF_BACKEND_NEON)
        std::snprintf(in.reason, sizeof(in.reason),
                      "%.90s; F16 requested, this CPU has no FP16 vector arithmetic; runs F32", reason);
    else if (f16_wanted && in.precision != OF_PRECISION_F16)
        std::snprintf(in.reason, sizeof(in.reason), "%.100s; F16 requested, this path computes in F32",
                      reason);
    else
        std::snprintf(in.reason, sizeof(in.reason), "%s", reason);
    *out = c;
    return OF_OK;
}

void context_destroy(of_context* c) {
    if (!c) return;
    void* block = c->block;
    const bool owns = c->owns_block;
#if OF_HAVE_CUDA
    cuda::destroy(c->cuda);
#endif
    c->~of_context();
    if (owns) arena_free_host(block);
}

} // namespace oflow
