// Validation of an of_config: every field against its documented range (api/oflow.h).
#ifndef OFLOW_CORE_CONFIG_CHECK_HPP
#define OFLOW_CORE_CONFIG_CHECK_HPP

#include "core/status.hpp"

namespace oflow {

/// Defaults of of_config_init for algo (struct_size included); false for an unknown algo.
bool config_defaults(of_config* cfg, of_algorithm algo);

/// Fills *d with an OpenCV DIS preset (the raw value of an of_dis_preset_id, api/oflow.h); false
/// for an unknown one.
bool dis_preset_params(of_dis_params* d, int32_t preset);

/// OF_OK when cfg is complete and in range for this build; otherwise the status of the first
/// problem, with a message naming the field and its value.
of_status check_config(const of_config* cfg, const ErrorSink& err);

} // namespace oflow

#endif
