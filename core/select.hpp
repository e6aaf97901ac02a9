// Backend selection and planning: the one function behind both of_query_memory and of_create,
// so the bytes a query reports are the bytes create takes.
#ifndef OFLOW_CORE_SELECT_HPP
#define OFLOW_CORE_SELECT_HPP

#include "core/plan.hpp"
#include "core/status.hpp"

namespace oflow {

/// Resolves cfg.backend (AUTO: CUDA when this build has it and a device is present, else the
/// CPU path of this machine) and plans its memory. reason (reason_len bytes) says why.
/// cfg must have passed check_config.
of_status select_and_plan(const of_config& cfg, std::size_t context_bytes, const ErrorSink& err,
                          Plan* plan, char* reason, std::size_t reason_len);

} // namespace oflow

#endif
