/*
 * oflow.hpp - optional header-only C++11 RAII wrapper over oflow.h. No exceptions: every call
 * returns the of_status of the C call it wraps. Nothing here adds to the ABI.
 */
#ifndef OFLOW_HPP
#define OFLOW_HPP

#include "oflow.h"

namespace oflow {

/** Owns one of_context; move-only; destroys it on destruction. */
class Context {
public:
    Context() = default;
    ~Context() { of_destroy(ctx_); }
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
    Context(Context&& o) noexcept : ctx_(o.ctx_) { o.ctx_ = nullptr; }
    Context& operator=(Context&& o) noexcept {
        if (this != &o) {
            of_destroy(ctx_);
            ctx_ = o.ctx_;
            o.ctx_ = nullptr;
        }
        return *this;
    }

    /** Replaces any context held with a new one for cfg. */
    of_status create(const of_config& cfg) {
        of_destroy(ctx_);
        ctx_ = nullptr;
        return of_create(&cfg, &ctx_);
    }
    of_status process(const of_image& prev, const of_image& next, of_flow& out) {
        return of_process(ctx_, &prev, &next, &out);
    }
    of_status info(of_info& out) const {
        out.struct_size = sizeof(of_info);
        return of_get_info(ctx_, &out);
    }
    /** Message of the last failure on this context (or of create, when it failed). */
    const char* last_error() const { return of_last_error(ctx_); }
    of_context* get() const { return ctx_; }
    explicit operator bool() const { return ctx_ != nullptr; }

private:
    of_context* ctx_ = nullptr;
};

/** A host image descriptor for a single-channel plane. */
inline of_image host_image(const void* data, uint32_t width, uint32_t height, size_t stride,
                           of_pixel_format format) {
    of_image im;
    im.struct_size = sizeof(of_image);
    im.format = format;
    im.memory = OF_MEMORY_HOST;
    im.width = width;
    im.height = height;
    im.stride = stride;
    im.data = data;
    return im;
}

/** A planar host flow descriptor, without a validity plane (set valid_format, valid_stride and
 *  valid for one). */
inline of_flow host_flow(float* u, float* v, uint32_t width, uint32_t height, size_t stride) {
    of_flow f;
    f.struct_size = sizeof(of_flow);
    f.layout = OF_FLOW_PLANAR;
    f.memory = OF_MEMORY_HOST;
    f.width = width;
    f.height = height;
    f.stride = stride;
    f.u = u;
    f.v = v;
    f.valid_format = OF_VALID_NONE;
    f.valid_stride = 0;
    f.valid = nullptr;
    f.format = OF_FLOW_FORMAT_F32;
    return f;
}

} // namespace oflow

#endif /* OFLOW_HPP */
