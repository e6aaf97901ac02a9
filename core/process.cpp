// context_process: a validated frame pair to the context's algorithm on its backend. The one
// dispatch point of of_process: api/ validates the arguments and calls this.
#include "core/algorithm.hpp"
#include "core/context.hpp"
#include "core/flow_driver.hpp"
#include "core/ref/kernels_ref.hpp"

namespace oflow {

of_status context_process(of_context* ctx, const of_image& prev, const of_image& next, const of_flow& out) {
    const ErrorSink err = ctx->sink();
    // A pair ends a stream: on the CUDA path its frames take the upload slots a stream keeps
    // its frame in (core/stream.hpp).
    stream_forget(ctx);
    ctx->info.last_warm = 0;
    if (ctx->plan.backend == OF_BACKEND_CUDA) {
        // The CUDA path checks device-memory frames for NaN/Inf itself.
        if (!ctx->algo->cuda || !ctx->cuda)
            return err.fail(OF_ERR_INTERNAL, "of_process: %s: no CUDA state", ctx->algo->name);
        uint64_t iterations = 0;
        int levels = 0, coarsest = 0;
        // coarsest: exact with host or mapped output and split frames; levels - 1 with device
        // output when the texture rule decided on the device (no wait: cuda_backend.hpp).
        const of_status s = ctx->algo->cuda->process(ctx->cuda, prev, next, out, err, &iterations, &levels, &coarsest);
        if (s == OF_OK) {
            ctx->info.last_width = prev.width;
            ctx->info.last_height = prev.height;
            ctx->info.last_levels = static_cast<uint32_t>(levels);
            ctx->info.last_coarsest = static_cast<uint32_t>(coarsest);
            ctx->info.last_iterations = iterations;
            if (ctx->cfg.robust == OF_ROBUST_PICK) ctx->info.last_pick = ctx->algo->cuda->last_pick(ctx->cuda);
            err.clear();
        }
        return s;
    }
    if (!image_pixels_valid(prev)) return fail_invalid_pixels(err, "prev");
    if (!image_pixels_valid(next)) return fail_invalid_pixels(err, "next");
    const of_status s = flow_process_cpu(ctx, prev, next, out);
    if (s == OF_OK) err.clear();
    return s;
}

of_status context_register_host(of_context* ctx, void* p, std::size_t bytes) {
    if (ctx->plan.backend != OF_BACKEND_CUDA) return OF_OK; // the CPU paths read the caller's memory in place
    if (!ctx->algo->cuda || !ctx->cuda) return ctx->sink().fail(OF_ERR_INTERNAL, "of_register_host: no CUDA state");
    const of_status s = ctx->algo->cuda->register_host(ctx->cuda, p, bytes, ctx->sink());
    if (s == OF_OK) ctx->sink().clear();
    return s;
}

of_status context_unregister_host(of_context* ctx, const void* p) {
    if (ctx->plan.backend != OF_BACKEND_CUDA) return OF_OK;
    if (!ctx->algo->cuda || !ctx->cuda) return ctx->sink().fail(OF_ERR_INTERNAL, "of_unregister_host: no CUDA state");
    const of_status s = ctx->algo->cuda->unregister_host(ctx->cuda, p, ctx->sink());
    if (s == OF_OK) ctx->sink().clear();
    return s;
}

} // namespace oflow
