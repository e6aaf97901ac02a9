/* Calls with enum arguments outside their enumerators, made from C: in C an enum object may
 * hold any value of its compatible integer type, so this is what a C caller can legally pass.
 * (In C++ such a value outside the enum's range would be undefined behaviour in the test.) */
#include "oflow.h"

of_status oftest_config_init_raw(of_config* cfg, int algo);
const char* oftest_status_string_raw(int s);
of_status oftest_dis_preset_raw(of_config* cfg, int preset);

of_status oftest_config_init_raw(of_config* cfg, int algo) {
    return of_config_init(cfg, (of_algorithm)algo);
}

const char* oftest_status_string_raw(int s) { return of_status_string((of_status)s); }

of_status oftest_dis_preset_raw(of_config* cfg, int preset) { return of_dis_preset(cfg, (of_dis_preset_id)preset); }
