// Which table serves a machine: names, the fallback chain (exact board -> same compute
// capability -> generic), the overrides (OFLOW_PLATFORM over config.platform, "auto" = detect,
// unknown names rejected), board detection from device trees the test writes itself, and the
// CPU features decoded from AT_HWCAP. Runs everywhere (host and qemu); no XML.
#include "check.hpp"
#include "platform/detect.hpp"
#include "platform/tuning.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

using namespace oflow;
using namespace oflow::platform;

namespace {

char g_err[kErrorCapacity];
const ErrorSink kErr{g_err};

bool has(const char* text, const char* part) { return std::strstr(text, part) != nullptr; }

// A scratch device tree: compatible (entries joined with NUL bytes) and/or model.
struct FakeDeviceTree {
    std::string dir;
    FakeDeviceTree() {
        // In the test's working directory (CTest runs it in the build tree): no fixed path.
        char tmpl[] = "oflow-dt-XXXXXX";
        const char* d = mkdtemp(tmpl);
        CHECK(d != nullptr);
        dir = d ? d : "/nonexistent";
    }
    ~FakeDeviceTree() {
        std::remove((dir + "/compatible").c_str());
        std::remove((dir + "/model").c_str());
        rmdir(dir.c_str());
    }
    void write(const char* name, const std::string& bytes) {
        std::FILE* f = std::fopen((dir + "/" + name).c_str(), "wb");
        CHECK(f != nullptr);
        if (!f) return;
        CHECK(std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
        std::fclose(f);
    }
    void erase(const char* name) { std::remove((dir + "/" + name).c_str()); }
};

std::string nul_joined(std::initializer_list<const char*> entries) {
    std::string s;
    for (const char* e : entries) {
        s += e;
        s += '\0';
    }
    return s;
}

std::string board_of(const FakeDeviceTree& dt, std::string* evidence = nullptr) {
    char board[16], ev[64];
    const bool found = board_from_device_tree(dt.dir.c_str(), board, sizeof board, ev, sizeof ev);
    CHECK(found == (board[0] != '\0'));
    if (evidence) *evidence = ev;
    return board;
}

DetectedPlatform detected(const char* board, int major, int minor, int sms) {
    DetectedPlatform d{};
    std::snprintf(d.board, sizeof d.board, "%s", board);
    std::snprintf(d.evidence, sizeof d.evidence, "test");
    d.cc_major = major;
    d.cc_minor = minor;
    d.sm_count = sms;
    return d;
}

void test_names() {
    const char* const names[] = {"nano", "tx2", "xavier", "orin", "generic"};
    for (const char* n : names) {
        const BoardTable* t = find_board(n);
        CHECK_MSG(t && std::strcmp(t->name, n) == 0, "find_board(%s)", n);
    }
    CHECK(find_board("bogus") == nullptr);
    CHECK(find_board("") == nullptr);
    CHECK(find_board(nullptr) == nullptr);
    CHECK(find_board("Xavier") == nullptr); // names are exact

    // The board facts: Nano, TX2, Xavier from T. Romera, "Adequation algorithme architecture pour
    // flot optique sur GPU embarque", PhD thesis, Sorbonne Universite, 2023, section 3.2 (Tables
    // 3.4, 3.6, 3.8); Orin from NVIDIA's Jetson AGX Orin Series Technical Brief and the CUDA C++
    // Programming Guide (compute capability 8.7); generic from generic.xml (the H200 its GPU rows
    // were measured on).
    struct Fact {
        const char* name;
        int major, minor, sms, regs;
        bool fp16;
    } const facts[] = {{"nano", 5, 3, 1, 32768, false},   {"tx2", 6, 2, 2, 32768, false},
                       {"xavier", 7, 2, 8, 65536, true},  {"orin", 8, 7, 16, 65536, true},
                       {"generic", 7, 5, 132, 65536, false}};
    for (const Fact& f : facts) {
        const BoardTable* t = find_board(f.name);
        if (!t) continue;
        CHECK_MSG(t->cc_major == f.major && t->cc_minor == f.minor && t->sm_count == f.sms &&
                      t->regs_per_block == f.regs && t->cpu_fp16 == f.fp16 && t->shared_per_block == 49152,
                  "%s board facts", f.name);
        CHECK(t->source && *t->source);
    }
    // Orin says it is an estimate, generic that it was measured.
    if (const BoardTable* o = find_board("orin")) CHECK(has(o->source, "estimate"));
    if (const BoardTable* g = find_board("generic")) {
        const TuningRow* r = find_row(*g, OF_ALGO_TVL1, OF_PRECISION_F32);
        CHECK(r && has(r->path[kPathGpu].source, "measured on NVIDIA H200, oflow-bench, 2026-11-21"));
    }
}

void test_fallback() {
    const TableSet set = builtin_tables();
    Match how = kMatchOverride;
    // exact board wins, whatever the GPU says
    CHECK(fallback(set, "xavier", 0, 0, 0, &how) == find_board("xavier") && how == kMatchBoard);
    CHECK(fallback(set, "orin", 7, 2, 8, &how) == find_board("orin") && how == kMatchBoard);
    // an unknown board (Jetson TX1: no table) with a known compute capability
    CHECK(fallback(set, "tx1", 5, 3, 2, &how) == find_board("nano") && how == kMatchComputeCapability);
    // no board named (a Xavier NX whose device tree was not readable): 7.2 -> xavier
    CHECK(fallback(set, "", 7, 2, 6, &how) == find_board("xavier") && how == kMatchComputeCapability);
    CHECK(fallback(set, nullptr, 6, 2, 2, &how) == find_board("tx2") && how == kMatchComputeCapability);
    CHECK(fallback(set, nullptr, 8, 7, 8, &how) == find_board("orin") && how == kMatchComputeCapability);
    // desktop GPUs and no GPU: generic
    CHECK(fallback(set, nullptr, 8, 6, 84, &how) == find_board("generic") && how == kMatchGeneric);
    CHECK(fallback(set, nullptr, 9, 0, 132, &how) == find_board("generic") && how == kMatchGeneric);
    CHECK(fallback(set, nullptr, 0, 0, 0, &how) == find_board("generic") && how == kMatchGeneric);
    CHECK(fallback(set, "", 6, 1, 20, &how) == find_board("generic") && how == kMatchGeneric);
    // cc 7.5 matches generic's own cc: still generic (never "generic" by compute capability)
    CHECK(fallback(set, nullptr, 7, 5, 40, &how) == find_board("generic") && how == kMatchGeneric);

    // Two tables of one compute capability: the nearest SM count wins.
    BoardTable agx = *find_board("xavier"), nx = agx;
    nx.name = "xavier_nx";
    nx.sm_count = 6;
    const BoardTable* both[] = {&agx, &nx, find_board("generic")};
    const TableSet two{both, 3};
    CHECK(fallback(two, nullptr, 7, 2, 6, &how) == &nx && how == kMatchComputeCapability);
    CHECK(fallback(two, nullptr, 7, 2, 8, &how) == &agx);
    CHECK(fallback(two, nullptr, 7, 2, 7, &how) == &agx); // a tie: the first

    // A set without generic has nothing to fall back to.
    const BoardTable* lonely[] = {&agx};
    const TableSet none{lonely, 1};
    CHECK(fallback(none, nullptr, 9, 0, 132, &how) == nullptr);
    Resolution r{};
    CHECK(resolve_table(none, nullptr, nullptr, detected("", 9, 0, 132), &r, kErr) == OF_ERR_INTERNAL);
    CHECK(has(g_err, "generic"));

    // tables_with: a loaded table first, so it shadows a compiled-in one of the same name.
    BoardTable mine = *find_board("xavier");
    const BoardTable* storage[8];
    const TableSet with = tables_with(&mine, storage, 8);
    CHECK(with.count == builtin_tables().count + 1 && with.boards[0] == &mine);
    CHECK(find_board_in(with, "xavier") == &mine);
    CHECK(tables_with(nullptr, storage, 8).count == builtin_tables().count);
    CHECK(tables_with(&mine, storage, 2).count == 2);
}

void test_overrides() {
    const TableSet set = builtin_tables();
    const DetectedPlatform on_xavier = detected("xavier", 7, 2, 8);
    Resolution r{};
    // detection
    CHECK(resolve_table(set, nullptr, nullptr, on_xavier, &r, kErr) == OF_OK);
    CHECK(r.table == find_board("xavier") && r.how == kMatchBoard && has(r.reason, "xavier"));
    // config.platform overrides detection
    CHECK(resolve_table(set, "nano", nullptr, on_xavier, &r, kErr) == OF_OK);
    CHECK(r.table == find_board("nano") && r.how == kMatchOverride && has(r.reason, "config.platform"));
    // OFLOW_PLATFORM overrides config.platform
    CHECK(resolve_table(set, "nano", "tx2", on_xavier, &r, kErr) == OF_OK);
    CHECK(r.table == find_board("tx2") && r.how == kMatchOverride && has(r.reason, "OFLOW_PLATFORM"));
    // "auto" means detect, in either place; an empty string is no override
    CHECK(resolve_table(set, "nano", "auto", on_xavier, &r, kErr) == OF_OK && r.table == find_board("xavier"));
    CHECK(resolve_table(set, "auto", nullptr, on_xavier, &r, kErr) == OF_OK && r.how == kMatchBoard);
    CHECK(resolve_table(set, "", "", on_xavier, &r, kErr) == OF_OK && r.how == kMatchBoard);
    CHECK(resolve_table(set, "orin", "", on_xavier, &r, kErr) == OF_OK && r.table == find_board("orin"));
    // any table for any machine (oflow-cli --explain --platform NAME)
    CHECK(resolve_table(set, "generic", nullptr, on_xavier, &r, kErr) == OF_OK && r.table == find_board("generic"));

    // unknown names: a status and a message naming where the name came from; never a fallback
    g_err[0] = '\0';
    CHECK(resolve_table(set, "bogus", nullptr, on_xavier, &r, kErr) == OF_ERR_INVALID_ARGUMENT);
    CHECK_MSG(has(g_err, "config.platform: unknown platform 'bogus'") &&
                  has(g_err, "known: nano, tx2, xavier, orin, generic, auto"),
              "%s", g_err);
    CHECK(resolve_table(set, "nano", "Xavier", on_xavier, &r, kErr) == OF_ERR_INVALID_ARGUMENT);
    CHECK_MSG(has(g_err, "OFLOW_PLATFORM: unknown platform 'Xavier'"), "%s", g_err);

    // the reasons say how the table was found
    CHECK(resolve_table(set, nullptr, nullptr, detected("", 7, 2, 6), &r, kErr) == OF_OK);
    CHECK_MSG(r.how == kMatchComputeCapability && has(r.reason, "compute capability 7.2") && has(r.reason, "6 SMs"),
              "%s", r.reason);
    CHECK(resolve_table(set, nullptr, nullptr, detected("", 8, 9, 76), &r, kErr) == OF_OK);
    CHECK_MSG(r.how == kMatchGeneric && has(r.reason, "8.9"), "%s", r.reason);
    CHECK(resolve_table(set, nullptr, nullptr, detected("", 0, 0, 0), &r, kErr) == OF_OK);
    CHECK_MSG(r.how == kMatchGeneric && has(r.reason, "no CUDA device"), "%s", r.reason);

    // the environment variable
    unsetenv("OFLOW_PLATFORM");
    CHECK(platform_from_environment() == nullptr);
    setenv("OFLOW_PLATFORM", "", 1);
    CHECK(platform_from_environment() == nullptr);
    setenv("OFLOW_PLATFORM", "orin", 1);
    CHECK(platform_from_environment() && std::strcmp(platform_from_environment(), "orin") == 0);
    unsetenv("OFLOW_PLATFORM");
}

void test_device_tree() {
    std::string ev;
    {
        FakeDeviceTree dt; // AGX Xavier devkit
        dt.write("compatible", nul_joined({"nvidia,p2972-0000", "nvidia,galen", "nvidia,tegra194"}));
        dt.write("model", std::string("Jetson-AGX") + '\0');
        CHECK(board_of(dt, &ev) == "xavier" && has(ev.c_str(), "nvidia,tegra194"));
    }
    {
        FakeDeviceTree dt; // Orin Nano: an Orin, although the model says "Nano"
        dt.write("compatible", nul_joined({"nvidia,p3768-0000+p3767-0005", "nvidia,p3767-0005", "nvidia,tegra234"}));
        dt.write("model", std::string("NVIDIA Jetson Orin Nano Developer Kit") + '\0');
        CHECK(board_of(dt) == "orin");
        dt.erase("compatible");
        CHECK(board_of(dt, &ev) == "orin" && has(ev.c_str(), "model"));
    }
    {
        FakeDeviceTree dt; // Nano devkit, TX2
        dt.write("compatible", nul_joined({"nvidia,p3450-0000", "nvidia,jetson-nano", "nvidia,tegra210"}));
        CHECK(board_of(dt) == "nano");
        dt.write("compatible", nul_joined({"nvidia,p2771-0000", "nvidia,tegra186"}));
        CHECK(board_of(dt) == "tx2");
    }
    {
        FakeDeviceTree dt; // model only
        dt.write("model", std::string("NVIDIA Jetson Nano Developer Kit") + '\0');
        CHECK(board_of(dt) == "nano");
        dt.write("model", std::string("NVIDIA Jetson TX2") + '\0');
        CHECK(board_of(dt) == "tx2");
        dt.write("model", std::string("NVIDIA Jetson AGX Xavier Developer Kit") + '\0');
        CHECK(board_of(dt) == "xavier");
        dt.write("compatible", ""); // empty: the model decides
        CHECK(board_of(dt) == "xavier");
    }
    {
        FakeDeviceTree dt; // not a Jetson
        dt.write("compatible", nul_joined({"raspberrypi,4-model-b", "brcm,bcm2711"}));
        dt.write("model", std::string("Raspberry Pi 4 Model B Rev 1.4") + '\0');
        CHECK(board_of(dt, &ev).empty());
        dt.write("model", std::string("Orin-like board without the magic word") + '\0');
        CHECK(board_of(dt).empty()); // a model must say Jetson
    }
    {
        FakeDeviceTree dt; // no files at all, and no directory
        CHECK(board_of(dt).empty());
        char board[16], e[64];
        CHECK(!board_from_device_tree("/nonexistent/oflow", board, sizeof board, e, sizeof e));
        CHECK(board[0] == '\0' && e[0] != '\0');
        // tiny buffers stay terminated
        char b2[2];
        dt.write("compatible", nul_joined({"nvidia,tegra194"}));
        CHECK(board_from_device_tree(dt.dir.c_str(), b2, sizeof b2, e, sizeof e) && b2[1] == '\0');
    }
    // This machine's own device tree: whatever it is, the call answers.
    char board[16], e[64];
    board_from_device_tree(nullptr, board, sizeof board, e, sizeof e);
    CHECK(std::strlen(board) < sizeof board);

    // detect_platform takes the GPU facts as given; no GPU clears them.
    FakeDeviceTree dt;
    dt.write("compatible", nul_joined({"nvidia,tegra194"}));
    DetectedPlatform d{};
    detect_platform(dt.dir.c_str(), 7, 2, 8, &d);
    CHECK(std::strcmp(d.board, "xavier") == 0 && d.cc_major == 7 && d.cc_minor == 2 && d.sm_count == 8);
    detect_platform(dt.dir.c_str(), 0, 5, 3, &d);
    CHECK(d.cc_major == 0 && d.cc_minor == 0 && d.sm_count == 0);
    Resolution r{};
    CHECK(resolve_table(builtin_tables(), nullptr, nullptr, d, &r, kErr) == OF_OK);
    CHECK(r.table == find_board("xavier") && r.how == kMatchBoard && has(r.reason, "tegra194"));
}

void test_cpu_features() {
    const unsigned long fp = 1ul << 0, asimd = 1ul << 1, fphp = 1ul << 9, asimdhp = 1ul << 10;
    CpuFeatures f = cpu_features_from_hwcap(fp | asimd, true); // Cortex-A57 (Nano, TX2)
    CHECK(f.aarch64 && f.asimd && !f.fp16_scalar && !f.fp16_vector);
    f = cpu_features_from_hwcap(fp | asimd | fphp | asimdhp, true); // Carmel, A78AE
    CHECK(f.asimd && f.fp16_scalar && f.fp16_vector);
    f = cpu_features_from_hwcap(fp | fphp | asimdhp, true); // no ASIMD: no vector F16 either
    CHECK(!f.asimd && f.fp16_scalar && !f.fp16_vector);
    f = cpu_features_from_hwcap(~0ul, false); // x86: nothing is needed, nothing is claimed
    CHECK(!f.aarch64 && !f.asimd && !f.fp16_scalar && !f.fp16_vector);

    const CpuFeatures here = detect_cpu_features();
#if defined(__aarch64__) && defined(__linux__)
    CHECK(here.aarch64 && here.asimd); // Advanced SIMD is mandatory on aarch64 Linux
    std::printf("this CPU: asimd %d, fphp %d, asimdhp %d\n", here.asimd, here.fp16_scalar, here.fp16_vector);
#else
    CHECK(!here.aarch64 && !here.asimd && !here.fp16_vector);
#endif
}

} // namespace

int main() {
    test_names();
    test_fallback();
    test_overrides();
    test_device_tree();
    test_cpu_features();
    return oftest::finish("platform_lookup");
}
