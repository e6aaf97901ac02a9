// Backend selection and planning: the one function behind both of_query_memory and of_create,
// so the bytes a query reports are the bytes create takes.
#ifndef OFLOW_CORE_SELECT_HPP
#define OFLOW_CORE_SELECT_HPP

#include "core/plan.hpp"
#include "core/status.hpp"

namespace oflow {

/// Resolves the backend and plans its memory; reason (reason_len bytes) says why.
/// The backend is cfg.backend, or the environment variable OFLOW_FORCE_BACKEND
/// (reference|neon|cuda|auto) when it is set and not empty: both of_query_memory and of_create
/// come here, so they agree. An unknown value is OF_ERR_INVALID_ARGUMENT; a backend this build
/// or machine lacks is OF_ERR_BACKEND_UNAVAILABLE (config or variable named in the message);
/// neither ever falls back. AUTO: CUDA when built and a device is present, else NEON when
/// built (aarch64) and usable, else the reference path.
/// While alive, OFLOW_FORCE_BACKEND is ignored on this thread: of_selftest creates contexts of
/// each backend on purpose and compares them, which the test suite's override must not undo.
class ForceOverrideOff {
public:
    ForceOverrideOff();
    ~ForceOverrideOff();
    ForceOverrideOff(const ForceOverrideOff&) = delete;
    ForceOverrideOff& operator=(const ForceOverrideOff&) = delete;

private:
    bool was_;
};

/// cfg must have passed check_config.
of_status select_and_plan(const of_config& cfg, std::size_t context_bytes, const ErrorSink& err,
                          Plan* plan, char* reason, std::size_t reason_len);

} // namespace oflow

#endif
