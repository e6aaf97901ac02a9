/* Built with only `pkg-config --cflags --libs oflow`: the C header and the static library. */
#include <oflow.h>
#include <stdio.h>

int main(void) {
    of_config cfg;
    of_memory need = {sizeof(of_memory), 0, 0, 0, 0};
    if (of_config_init(&cfg, OF_ALGO_TVL1) != OF_OK) return 1;
    if (of_query_memory(&cfg, &need) != OF_OK || need.host_bytes == 0) return 1;
    printf("pkg-config consumer ok: %zu host bytes\n", need.host_bytes);
    return 0;
}
