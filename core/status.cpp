#include "core/status.hpp"

#include <cstdarg>
#include <cstdio>

namespace oflow {

of_status ErrorSink::fail(of_status s, const char* fmt, ...) const {
    std::va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, kErrorCapacity, fmt, ap);
    va_end(ap);
    return s;
}

char* thread_error_buffer() {
    static thread_local char buf[kErrorCapacity] = {0};
    return buf;
}

const char* status_text(int32_t s) {
    switch (s) {
    case OF_OK: return "OF_OK: success";
    case OF_ERR_NULL_POINTER: return "OF_ERR_NULL_POINTER: a required pointer is NULL";
    case OF_ERR_STRUCT_SIZE: return "OF_ERR_STRUCT_SIZE: struct_size not known to this library";
    case OF_ERR_INVALID_ARGUMENT: return "OF_ERR_INVALID_ARGUMENT: a parameter is out of range";
    case OF_ERR_UNSUPPORTED: return "OF_ERR_UNSUPPORTED: not implemented in this build";
    case OF_ERR_BACKEND_UNAVAILABLE: return "OF_ERR_BACKEND_UNAVAILABLE: backend not available";
    case OF_ERR_SIZE: return "OF_ERR_SIZE: image size zero, too large or mismatched";
    case OF_ERR_STRIDE: return "OF_ERR_STRIDE: stride smaller than a row";
    case OF_ERR_FORMAT: return "OF_ERR_FORMAT: pixel format, memory kind or layout mismatch";
    case OF_ERR_NONFINITE: return "OF_ERR_NONFINITE: F32 input holds NaN, Inf or a magnitude above 1e6";
    case OF_ERR_ARENA: return "OF_ERR_ARENA: caller arena too small or misaligned";
    case OF_ERR_OVERFLOW: return "OF_ERR_OVERFLOW: a size computation would overflow";
    case OF_ERR_OUT_OF_MEMORY: return "OF_ERR_OUT_OF_MEMORY: allocation failed";
    case OF_ERR_DEVICE: return "OF_ERR_DEVICE: CUDA error";
    case OF_ERR_INTERNAL: return "OF_ERR_INTERNAL: internal error";
    case OF_PENDING: return "OF_PENDING: frame kept, no flow yet (a stream's first frame)";
    default: return "OF_ERR_?: unknown status value";
    }
}

} // namespace oflow
