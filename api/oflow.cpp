// The extern "C" entry points: validate every argument, map to a status and message, call
// the core, and never let an exception cross the boundary.
#include "oflow.h"

#include "core/algorithm.hpp"
#include "core/config_check.hpp"
#include "core/context.hpp"
#include "core/enum_raw.hpp"
#include "core/flow_format.hpp"
#include "core/plan.hpp"
#include "core/select.hpp"
#include "platform/table_load.hpp"

#include <cstdint>
#include <cstring>
#include <limits>
#include <new>

using oflow::ErrorSink;

namespace {

ErrorSink thread_sink() { return ErrorSink{oflow::thread_error_buffer()}; }

using oflow::raw_enum;

const char* memory_name(int32_t m) {
    switch (m) {
    case OF_MEMORY_HOST: return "HOST";
    case OF_MEMORY_CUDA_DEVICE: return "CUDA_DEVICE";
    case OF_MEMORY_CUDA_MAPPED: return "CUDA_MAPPED";
    default: return "unknown";
    }
}

// Bytes per pixel of a raw format value; 0 when unknown.
std::size_t pixel_bytes(int32_t f) {
    switch (f) {
    case OF_PIXEL_U8: return 1;
    case OF_PIXEL_U16: return 2;
    case OF_PIXEL_F32: return 4;
    default: return 0;
    }
}

// Checks that rows of `row_bytes` starting `stride` apart, `height` of them, can be addressed
// from `data` without overflowing size_t or the address space.
bool span_fits(const void* data, std::size_t stride, uint32_t height, std::size_t row_bytes) {
    const std::size_t max = std::numeric_limits<std::size_t>::max();
    const std::size_t rows = static_cast<std::size_t>(height) - 1;
    if (rows != 0 && stride > (max - row_bytes) / rows) return false;
    const std::size_t span = stride * rows + row_bytes;
    return reinterpret_cast<std::uintptr_t>(data) <= std::numeric_limits<std::uintptr_t>::max() - span;
}

// Host memory works everywhere; device and mapped memory only on the CUDA path.
of_status check_memory(int32_t m, of_backend backend, const char* name, const ErrorSink& err) {
    if (m != OF_MEMORY_HOST && m != OF_MEMORY_CUDA_DEVICE && m != OF_MEMORY_CUDA_MAPPED)
        return err.fail(OF_ERR_FORMAT, "%s: unknown memory kind %d", name, m);
    if (m != OF_MEMORY_HOST && backend != OF_BACKEND_CUDA)
        return err.fail(OF_ERR_FORMAT, "%s: memory kind %s (%d) needs the CUDA backend", name,
                        memory_name(m), m);
    return OF_OK;
}

of_status check_image(const of_config& cfg, of_backend backend, const of_image* img,
                      const char* name, const ErrorSink& err) {
    if (!img) return err.fail(OF_ERR_NULL_POINTER, "%s is NULL", name);
    if (img->struct_size != sizeof(of_image))
        return err.fail(OF_ERR_STRUCT_SIZE, "%s: struct_size %u, this library expects %u", name,
                        img->struct_size, static_cast<unsigned>(sizeof(of_image)));
    if (!img->data) return err.fail(OF_ERR_NULL_POINTER, "%s: data is NULL", name);
    const int32_t format = raw_enum(img->format);
    const std::size_t bpp = pixel_bytes(format);
    if (bpp == 0) return err.fail(OF_ERR_FORMAT, "%s: unknown pixel format %d", name, format);
    if (format != cfg.format)
        return err.fail(OF_ERR_FORMAT, "%s: pixel format %d differs from the config's %d", name,
                        format, static_cast<int>(cfg.format));
    of_status ms = check_memory(raw_enum(img->memory), backend, name, err);
    if (ms != OF_OK) return ms;
    if (img->width == 0 || img->height == 0)
        return err.fail(OF_ERR_SIZE, "%s: size %ux%u is empty", name, img->width, img->height);
    if (img->width > cfg.max_width || img->height > cfg.max_height)
        return err.fail(OF_ERR_SIZE, "%s: size %ux%u exceeds the configured maximum %ux%u", name,
                        img->width, img->height, cfg.max_width, cfg.max_height);
    const std::size_t row = static_cast<std::size_t>(img->width) * bpp;
    if (img->stride < row)
        return err.fail(OF_ERR_STRIDE, "%s: stride %zu < width %u x %zu bytes", name, img->stride,
                        img->width, bpp);
    if (img->stride % bpp != 0)
        return err.fail(OF_ERR_STRIDE, "%s: stride %zu is not a multiple of the %zu-byte pixel",
                        name, img->stride, bpp);
    if (reinterpret_cast<std::uintptr_t>(img->data) % bpp != 0)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "%s: data %p is not aligned to its %zu-byte pixel",
                        name, img->data, bpp);
    if (!span_fits(img->data, img->stride, img->height, row))
        return err.fail(OF_ERR_OVERFLOW, "%s: stride %zu x height %u overflows the address space",
                        name, img->stride, img->height);
    return OF_OK;
}

// The validity plane of a flow whose other fields are checked: its format, its pointer (NULL
// exactly when no plane is wanted), its stride, alignment and span. It lives in the flow's
// memory kind, which check_flow has checked.
of_status check_valid_plane(const of_flow& out, uint32_t w, uint32_t h, const ErrorSink& err) {
    const int32_t format = raw_enum(out.valid_format);
    if (format != OF_VALID_NONE && format != OF_VALID_MASK_U8 && format != OF_VALID_CONFIDENCE_F32)
        return err.fail(OF_ERR_FORMAT, "flow: unknown valid_format %d (0 none, 1 mask u8, 2 confidence f32)", format);
    if (format == OF_VALID_NONE) {
        if (out.valid)
            return err.fail(OF_ERR_FORMAT, "flow: valid must be NULL with valid_format OF_VALID_NONE");
        return OF_OK;
    }
    const bool mask = format == OF_VALID_MASK_U8;
    const char* name = mask ? "OF_VALID_MASK_U8" : "OF_VALID_CONFIDENCE_F32";
    if (!out.valid) return err.fail(OF_ERR_NULL_POINTER, "flow: valid is NULL with valid_format %s", name);
    const std::size_t bpp = mask ? 1u : 4u;
    const std::size_t row = static_cast<std::size_t>(w) * bpp;
    if (out.valid_stride < row)
        return err.fail(OF_ERR_STRIDE, "flow: valid_stride %zu < width %u x %zu bytes (%s)", out.valid_stride, w,
                        bpp, name);
    if (out.valid_stride % bpp != 0)
        return err.fail(OF_ERR_STRIDE, "flow: valid_stride %zu is not a multiple of 4 (%s)", out.valid_stride, name);
    if (reinterpret_cast<std::uintptr_t>(out.valid) % bpp != 0)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "flow: valid %p must be 4-byte aligned (%s)", out.valid, name);
    if (!span_fits(out.valid, out.valid_stride, h, row))
        return err.fail(OF_ERR_OVERFLOW, "flow: valid_stride %zu x height %u overflows the address space",
                        out.valid_stride, h);
    return OF_OK;
}

of_status check_flow(const of_flow* out, of_backend backend, uint32_t w, uint32_t h,
                     const ErrorSink& err) {
    if (!out) return err.fail(OF_ERR_NULL_POINTER, "flow is NULL");
    if (out->struct_size != sizeof(of_flow))
        return err.fail(OF_ERR_STRUCT_SIZE, "flow: struct_size %u, this library expects %u",
                        out->struct_size, static_cast<unsigned>(sizeof(of_flow)));
    const int32_t layout = raw_enum(out->layout);
    if (layout != OF_FLOW_PLANAR && layout != OF_FLOW_INTERLEAVED)
        return err.fail(OF_ERR_FORMAT, "flow: unknown layout %d", layout);
    of_status ms = check_memory(raw_enum(out->memory), backend, "flow", err);
    if (ms != OF_OK) return ms;
    if (!out->u) return err.fail(OF_ERR_NULL_POINTER, "flow: u is NULL");
    const bool planar = layout == OF_FLOW_PLANAR;
    if (planar && !out->v) return err.fail(OF_ERR_NULL_POINTER, "flow: v is NULL (planar layout)");
    if (!planar && out->v)
        return err.fail(OF_ERR_FORMAT, "flow: v must be NULL with the interleaved layout");
    if (out->width != w || out->height != h)
        return err.fail(OF_ERR_SIZE, "flow: size %ux%u differs from the frames' %ux%u", out->width,
                        out->height, w, h);
    const int32_t format = raw_enum(out->format);
    const unsigned eb = oflow::flow_format_bytes(format); // element bytes, 0: unknown format
    if (eb == 0)
        return err.fail(OF_ERR_FORMAT, "flow: unknown format %d (0 f32, 1 f16, 2 s10.5)", format);
    const char* fname = format == OF_FLOW_FORMAT_F32 ? "f32" : (format == OF_FLOW_FORMAT_F16 ? "f16" : "s10.5");
    const unsigned per = planar ? eb : 2u * eb;
    const std::size_t row = static_cast<std::size_t>(w) * per;
    if (out->stride < row)
        return err.fail(OF_ERR_STRIDE, "flow: stride %zu < width %u x %u bytes (format %s)", out->stride, w, per,
                        fname);
    if (out->stride % eb != 0)
        return err.fail(OF_ERR_STRIDE, "flow: stride %zu is not a multiple of %u (format %s)", out->stride, eb,
                        fname);
    if (reinterpret_cast<std::uintptr_t>(out->u) % eb != 0 ||
        (planar && reinterpret_cast<std::uintptr_t>(out->v) % eb != 0))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "flow: planes must be %u-byte aligned (format %s)", eb, fname);
    if (!span_fits(out->u, out->stride, h, row) || (planar && !span_fits(out->v, out->stride, h, row)))
        return err.fail(OF_ERR_OVERFLOW, "flow: stride %zu x height %u overflows the address space",
                        out->stride, h);
    return check_valid_plane(*out, w, h, err);
}

of_status process(of_context* ctx, const of_image* prev, const of_image* next, of_flow* out) {
    const ErrorSink err = ctx->sink();
    const of_backend backend = ctx->plan.backend;
    of_status s = check_image(ctx->cfg, backend, prev, "prev", err);
    if (s == OF_OK) s = check_image(ctx->cfg, backend, next, "next", err);
    if (s != OF_OK) return s;
    if (prev->width != next->width || prev->height != next->height)
        return err.fail(OF_ERR_SIZE, "next: size %ux%u differs from prev's %ux%u", next->width,
                        next->height, prev->width, prev->height);
    s = check_flow(out, backend, prev->width, prev->height, err);
    if (s != OF_OK) return s;
    return oflow::context_process(ctx, *prev, *next, *out);
}

// of_push_frame: the frame's checks, then the flow's when the frame makes a pair (the stream
// has a kept frame of the same size); otherwise out is not looked at.
of_status push(of_context* ctx, const of_image* frame, of_flow* out) {
    const ErrorSink err = ctx->sink();
    const of_backend backend = ctx->plan.backend;
    of_status s = check_image(ctx->cfg, backend, frame, "frame", err);
    if (s != OF_OK) return s;
    const oflow::StreamState& st = ctx->stream;
    const bool pair = st.frames > 0 && st.w == frame->width && st.h == frame->height;
    if (pair) {
        s = check_flow(out, backend, frame->width, frame->height, err);
        if (s != OF_OK) return s;
    }
    return oflow::context_push(ctx, *frame, pair ? out : nullptr);
}

of_status explain(const of_config& c, const oflow::platform::BoardTable* loaded, of_info* info,
                  const ErrorSink& err) {
    oflow::Selection sel;
    const of_status s = oflow::select_and_plan(c, sizeof(of_context), loaded, oflow::SelectFor::kExplain, err, &sel);
    if (s == OF_OK) oflow::selection_info(sel, info);
    return s;
}

// fn(&table.board) with config.tuning_path's table: the table (about 60 KB) lives in this frame
// only, so explaining without a file costs no such stack.
template <class Fn>
#if defined(__GNUC__)
__attribute__((noinline))
#endif
of_status with_loaded_table(const of_config& c, const ErrorSink& err, const Fn& fn) {
    oflow::platform::LoadedTable table;
    const of_status s = oflow::load_tuning_table(c.tuning_path, &table, err);
    return s == OF_OK ? fn(&table.board) : s;
}

// fn(board): the loaded table of config.tuning_path, or NULL without one (of_explain and
// of_explain_buffers).
template <class Fn>
of_status with_table(const of_config& c, const ErrorSink& err, const Fn& fn) {
    return c.tuning_path ? with_loaded_table(c, err, fn) : fn(nullptr);
}

// *c := *cfg without its arenas, checked: a query or an explanation allocates nothing, so a caller
// arena's size does not matter to it. cfg NULL: check_config's error.
of_status checked_without_arenas(const of_config* cfg, of_config* c, const ErrorSink& err) {
    if (cfg) {
        *c = *cfg;
        c->host_arena = nullptr;
        c->device_arena = nullptr;
    }
    return oflow::check_config(cfg ? c : nullptr, err);
}

// of_explain_buffers: the selection of_explain reports for c (loaded: config.tuning_path's table,
// or NULL), its buffers into out.
of_status explain_buffers(const of_config& c, const oflow::platform::BoardTable* loaded, of_buffer_info* out,
                          uint32_t capacity, uint32_t* count, const ErrorSink& err) {
    oflow::Selection sel;
    const of_status s = oflow::select_and_plan(c, sizeof(of_context), loaded, oflow::SelectFor::kExplain, err, &sel);
    if (s != OF_OK) return s;
    uint32_t n = 0;
    const auto put = [&](const char* name, const char* holds, of_buffer_block block, std::size_t off, std::size_t bytes) {
        if (bytes == 0) return;
        if (n < capacity) out[n] = of_buffer_info{name, holds, block, off, bytes};
        ++n;
    };
    if (sel.memory_planned) {
        for (int i = 0; i < oflow::kHostBufCount; ++i) {
            const oflow::BufferSpec& b = sel.plan.host[i];
            put(b.name, oflow::host_buffer_holds(i), OF_BLOCK_HOST, b.offset, b.bytes);
        }
        for (int i = 0; i < sel.pinned_count; ++i)
            put(sel.pinned_rows[i].name, sel.pinned_rows[i].holds, OF_BLOCK_STAGING, sel.pinned_rows[i].offset,
                sel.pinned_rows[i].bytes);
        for (int i = 0; i < sel.device_count; ++i)
            put(sel.device_rows[i].name, sel.device_rows[i].holds, OF_BLOCK_DEVICE, sel.device_rows[i].offset,
                sel.device_rows[i].bytes);
    }
    *count = n;
    return OF_OK;
}

} // namespace

extern "C" {

OF_API of_status of_config_init(of_config* cfg, of_algorithm algo) {
    const ErrorSink err = thread_sink();
    if (!cfg) return err.fail(OF_ERR_NULL_POINTER, "of_config_init: cfg is NULL");
    of_config tmp;
    const int32_t a = raw_enum(algo);
    if (!oflow::algorithm_known(a))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "of_config_init: unknown algorithm %d", a);
    oflow::config_defaults(&tmp, algo);
    *cfg = tmp;
    return OF_OK;
}

OF_API of_status of_dis_preset(of_config* cfg, of_dis_preset_id preset) {
    const ErrorSink err = thread_sink();
    if (!cfg) return err.fail(OF_ERR_NULL_POINTER, "of_dis_preset: cfg is NULL");
    if (cfg->struct_size != sizeof(of_config))
        return err.fail(OF_ERR_STRUCT_SIZE, "of_dis_preset: config struct_size %u, this library expects %u",
                        cfg->struct_size, static_cast<unsigned>(sizeof(of_config)));
    const int32_t id = raw_enum(preset); // a C caller may pass any int: never loaded as the enum
    if (!oflow::dis_preset_params(&cfg->dis, id))
        return err.fail(OF_ERR_INVALID_ARGUMENT, "of_dis_preset: unknown preset %d (0 ultrafast, 1 fast, 2 medium)",
                        id);
    return OF_OK;
}

OF_API of_status of_query_memory(const of_config* cfg, of_memory* need) {
    const ErrorSink err = thread_sink();
    try {
        if (!need) return err.fail(OF_ERR_NULL_POINTER, "of_query_memory: need is NULL");
        if (need->struct_size != sizeof(of_memory))
            return err.fail(OF_ERR_STRUCT_SIZE, "of_memory: struct_size %u, this library expects %u",
                            need->struct_size, static_cast<unsigned>(sizeof(of_memory)));
        of_config c;
        of_status s = checked_without_arenas(cfg, &c, err);
        if (s != OF_OK) return s;
        oflow::Selection sel;
        s = oflow::select_for_config(c, sizeof(of_context), err, &sel);
        if (s != OF_OK) return s;
        need->host_bytes = sel.plan.host_bytes;
        need->device_bytes = sel.plan.device_bytes;
        need->host_alignment = oflow::kHostAlign;
        need->device_alignment = oflow::kDeviceAlign;
        return OF_OK;
    } catch (...) {
        return err.fail(OF_ERR_INTERNAL, "of_query_memory: unexpected exception");
    }
}

OF_API of_status of_create(const of_config* cfg, of_context** out) {
    const ErrorSink err = thread_sink();
    if (!out) return err.fail(OF_ERR_NULL_POINTER, "of_create: out is NULL");
    *out = nullptr;
    try {
        return oflow::context_create(cfg, err, out);
    } catch (const std::bad_alloc&) {
        return err.fail(OF_ERR_OUT_OF_MEMORY, "of_create: out of memory");
    } catch (...) {
        return err.fail(OF_ERR_INTERNAL, "of_create: unexpected exception");
    }
}

OF_API of_status of_process(of_context* ctx, const of_image* prev, const of_image* next,
                            of_flow* out) {
    if (!ctx) return thread_sink().fail(OF_ERR_NULL_POINTER, "of_process: context is NULL");
    try {
        return process(ctx, prev, next, out);
    } catch (...) {
        return ctx->sink().fail(OF_ERR_INTERNAL, "of_process: unexpected exception");
    }
}

OF_API of_status of_push_frame(of_context* ctx, const of_image* frame, of_flow* out) {
    if (!ctx) return thread_sink().fail(OF_ERR_NULL_POINTER, "of_push_frame: context is NULL");
    try {
        return push(ctx, frame, out);
    } catch (...) {
        return ctx->sink().fail(OF_ERR_INTERNAL, "of_push_frame: unexpected exception");
    }
}

OF_API of_status of_reset(of_context* ctx) {
    if (!ctx) return thread_sink().fail(OF_ERR_NULL_POINTER, "of_reset: context is NULL");
    oflow::stream_forget(ctx);
    ctx->sink().clear();
    return OF_OK;
}

OF_API of_status of_register_host(of_context* ctx, void* p, size_t bytes) {
    if (!ctx) return thread_sink().fail(OF_ERR_NULL_POINTER, "of_register_host: context is NULL");
    const ErrorSink err = ctx->sink();
    if (!p) return err.fail(OF_ERR_NULL_POINTER, "of_register_host: p is NULL");
    if (bytes == 0) return err.fail(OF_ERR_INVALID_ARGUMENT, "of_register_host: 0 bytes");
    if (reinterpret_cast<std::uintptr_t>(p) > std::numeric_limits<std::uintptr_t>::max() - bytes)
        return err.fail(OF_ERR_OVERFLOW, "of_register_host: %zu bytes at %p overflow the address space", bytes, p);
    return oflow::context_register_host(ctx, p, bytes);
}

OF_API of_status of_unregister_host(of_context* ctx, const void* p) {
    if (!ctx) return thread_sink().fail(OF_ERR_NULL_POINTER, "of_unregister_host: context is NULL");
    if (!p) return ctx->sink().fail(OF_ERR_NULL_POINTER, "of_unregister_host: p is NULL");
    return oflow::context_unregister_host(ctx, p);
}

OF_API void of_destroy(of_context* ctx) { oflow::context_destroy(ctx); }

OF_API of_status of_get_info(const of_context* ctx, of_info* info) {
    if (!ctx) return thread_sink().fail(OF_ERR_NULL_POINTER, "of_get_info: context is NULL");
    const ErrorSink err = ctx->sink();
    if (!info) return err.fail(OF_ERR_NULL_POINTER, "of_get_info: info is NULL");
    if (info->struct_size != sizeof(of_info))
        return err.fail(OF_ERR_STRUCT_SIZE, "of_info: struct_size %u, this library expects %u",
                        info->struct_size, static_cast<unsigned>(sizeof(of_info)));
    *info = ctx->info;
    return OF_OK;
}

OF_API of_status of_explain(const of_config* cfg, of_info* info) {
    const ErrorSink err = thread_sink();
    try {
        if (!info) return err.fail(OF_ERR_NULL_POINTER, "of_explain: info is NULL");
        if (info->struct_size != sizeof(of_info))
            return err.fail(OF_ERR_STRUCT_SIZE, "of_info: struct_size %u, this library expects %u",
                            info->struct_size, static_cast<unsigned>(sizeof(of_info)));
        of_config c;
        const of_status s = checked_without_arenas(cfg, &c, err);
        if (s != OF_OK) return s;
        return with_table(c, err, [&](const oflow::platform::BoardTable* b) { return explain(c, b, info, err); });
    } catch (...) {
        return err.fail(OF_ERR_INTERNAL, "of_explain: unexpected exception");
    }
}

OF_API of_status of_explain_buffers(const of_config* cfg, of_buffer_info* out, uint32_t capacity, uint32_t* count) {
    const ErrorSink err = thread_sink();
    try {
        if (!count) return err.fail(OF_ERR_NULL_POINTER, "of_explain_buffers: count is NULL");
        if (!out && capacity > 0) return err.fail(OF_ERR_NULL_POINTER, "of_explain_buffers: out is NULL with capacity %u", capacity);
        of_config c;
        const of_status s = checked_without_arenas(cfg, &c, err);
        if (s != OF_OK) return s;
        return with_table(c, err, [&](const oflow::platform::BoardTable* b) {
            return explain_buffers(c, b, out, capacity, count, err);
        });
    } catch (...) {
        return err.fail(OF_ERR_INTERNAL, "of_explain_buffers: unexpected exception");
    }
}

OF_API const char* of_status_string(of_status s) { return oflow::status_text(raw_enum(s)); }

OF_API const char* of_last_error(const of_context* ctx) {
    return ctx ? ctx->error : oflow::thread_error_buffer();
}

OF_API uint32_t of_version(void) { return OF_VERSION; }

} // extern "C"
