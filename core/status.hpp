// Error reporting inside the core: a status plus a formatted message, written into a fixed
// buffer (the context's, or a thread-local one for calls without a context). No allocation.
#ifndef OFLOW_CORE_STATUS_HPP
#define OFLOW_CORE_STATUS_HPP

#include "oflow.h"

#include <cstddef>
#include <cstdint>

namespace oflow {

const std::size_t kErrorCapacity = 256;

/// Where an entry point reports what went wrong. `buf` holds kErrorCapacity chars.
struct ErrorSink {
    char* buf;

    /// Formats the message (printf style) into buf and returns s, so callers can write
    /// `return err.fail(OF_ERR_SIZE, "prev: width %u > max %u", w, mw);`
    of_status fail(of_status s, const char* fmt, ...) const
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;
    void clear() const { buf[0] = '\0'; }
};

/// The thread's error buffer for calls that have no context.
char* thread_error_buffer();

/// Static text for a raw status value; never null (unknown values get a generic text).
const char* status_text(int32_t s);

} // namespace oflow

#endif
