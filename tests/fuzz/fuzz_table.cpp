// fuzz_table: libFuzzer target over the tuning-table loader: the bytes are written to a file that
// config.tuning_path names, then of_query_memory, of_explain and of_create (reference backend)
// read it. Each must either fail with OF_ERR_INVALID_ARGUMENT (or OF_ERR_UNSUPPORTED without
// tinyxml2) and a message naming the file, or accept it; an accepted table must give an of_info
// with a board name, and query == create's plan.
#include "oflow.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

[[noreturn]] void broken(const char* what, const char* detail) {
    std::fprintf(stderr, "fuzz_table: contract broken: %s (%s)\n", what, detail ? detail : "");
    std::abort();
}

void remove_table();

// The file every input is written to: $TMPDIR (or /tmp)/fuzz_table_<pid>.xml, removed at exit.
const std::string& table_path() {
    static const std::string p = [] {
        const char* dir = std::getenv("TMPDIR");
        return std::string(dir && dir[0] ? dir : "/tmp") + "/fuzz_table_" + std::to_string(static_cast<long>(getpid())) +
               ".xml";
    }();
    // Registered after p is complete, so remove_table runs before p's destructor.
    static const bool registered = std::atexit(remove_table) == 0;
    (void)registered;
    return p;
}

void remove_table() { (void)std::remove(table_path().c_str()); }

void expect_refusal(of_status s, const char* call) {
    if (s != OF_ERR_INVALID_ARGUMENT && s != OF_ERR_UNSUPPORTED) broken(call, of_last_error(nullptr));
    const char* e = of_last_error(nullptr);
    if (e[0] == '\0') broken("refused without a message", call);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string& path = table_path();
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 0;
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);

    of_config cfg;
    of_config_init(&cfg, OF_ALGO_TVL1);
    cfg.max_width = 64;
    cfg.max_height = 48;
    cfg.backend = OF_BACKEND_REFERENCE;
    cfg.tuning_path = path.c_str();
    of_memory need;
    std::memset(&need, 0, sizeof need);
    need.struct_size = sizeof need;
    const of_status q = of_query_memory(&cfg, &need);
    of_info info;
    std::memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    const of_status x = of_explain(&cfg, &info);
    if ((q == OF_OK) != (x == OF_OK)) broken("of_query_memory and of_explain disagree", of_last_error(nullptr));
    if (q != OF_OK) {
        expect_refusal(q, "of_query_memory");
        return 0;
    }
    if (info.board[0] == '\0') broken("accepted table, empty board name", nullptr);
    of_context* ctx = nullptr;
    const of_status s = of_create(&cfg, &ctx);
    if (s != OF_OK) broken("of_create refused what of_query_memory accepted", of_last_error(nullptr));
    of_info got;
    std::memset(&got, 0, sizeof got);
    got.struct_size = sizeof got;
    if (of_get_info(ctx, &got) != OF_OK || got.host_bytes != need.host_bytes) broken("query != create's plan", nullptr);
    of_destroy(ctx);
    return 0;
}
