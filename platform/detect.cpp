// Board and CPU detection (detect.hpp). Linux: the device tree under /proc and getauxval; other
// systems compile to "nothing found".
#include "platform/detect.hpp"

#include <cstdio>
#include <cstring>

#if defined(__linux__)
#include <fcntl.h>
#include <sys/auxv.h>
#include <unistd.h>
#endif

namespace oflow {
namespace platform {
namespace {

const unsigned long kHwcapFp = 1ul << 0;
const unsigned long kHwcapAsimd = 1ul << 1;
const unsigned long kHwcapFphp = 1ul << 9;
const unsigned long kHwcapAsimdhp = 1ul << 10;

struct KeyBoard {
    const char* key;   // a device-tree compatible entry, or a word of the model text
    const char* board; // table name
};
// The SoC fixes the GPU (and the CPU cores), which is what a table is about: the Jetson
// modules of one SoC (Nano and TX1; TX2 and TX2 NX; AGX Xavier and Xavier NX; AGX Orin, Orin NX
// and Orin Nano) share its table, and the SM count the caller passes tells them apart.
const KeyBoard kSocBoards[] = {
    {"nvidia,tegra234", "orin"},
    {"nvidia,tegra194", "xavier"},
    {"nvidia,tegra186", "tx2"},
    {"nvidia,tegra210", "nano"},
};
// Words of /proc/device-tree/model, in this order ("Jetson Orin Nano" is an Orin).
const KeyBoard kModelBoards[] = {
    {"Orin", "orin"},
    {"Xavier", "xavier"},
    {"TX2", "tx2"},
    {"Nano", "nano"},
};

void copy(char* dst, std::size_t cap, const char* src) {
    if (!cap) return;
    std::snprintf(dst, cap, "%s", src);
}

// Reads up to cap-1 bytes of dir/name into buf (NUL-terminated); returns the byte count, or
// -1 when the file cannot be read.
long read_small_file(const char* dir, const char* name, char* buf, std::size_t cap) {
#if defined(__linux__)
    char path[512];
    const int n = std::snprintf(path, sizeof path, "%s/%s", dir, name);
    if (n < 0 || static_cast<std::size_t>(n) >= sizeof path) return -1;
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    std::size_t len = 0;
    while (len + 1 < cap) {
        const ssize_t got = ::read(fd, buf + len, cap - 1 - len);
        if (got < 0) {
            ::close(fd);
            return -1;
        }
        if (got == 0) break;
        len += static_cast<std::size_t>(got);
    }
    ::close(fd);
    buf[len] = '\0';
    return static_cast<long>(len);
#else
    (void)dir;
    (void)name;
    if (cap) buf[0] = '\0';
    return -1;
#endif
}

} // namespace

CpuFeatures cpu_features_from_hwcap(unsigned long hwcap, bool aarch64) {
    CpuFeatures f{};
    f.aarch64 = aarch64;
    if (!aarch64) return f;
    f.asimd = (hwcap & kHwcapAsimd) != 0 && (hwcap & kHwcapFp) != 0;
    f.fp16_scalar = (hwcap & kHwcapFphp) != 0;
    f.fp16_vector = f.asimd && (hwcap & kHwcapAsimdhp) != 0;
    return f;
}

CpuFeatures detect_cpu_features() {
#if defined(__aarch64__) && defined(__linux__)
    return cpu_features_from_hwcap(getauxval(AT_HWCAP), true);
#else
    return cpu_features_from_hwcap(0, false);
#endif
}

bool board_from_device_tree(const char* dt_root, char* board, std::size_t board_cap, char* evidence,
                            std::size_t evidence_cap) {
    const char* root = dt_root ? dt_root : "/proc/device-tree";
    copy(board, board_cap, "");
    copy(evidence, evidence_cap, "no Jetson device tree");
    char buf[1024];
    // compatible: entries separated (and ended) by NUL bytes.
    const long n = read_small_file(root, "compatible", buf, sizeof buf);
    if (n > 0) {
        for (const KeyBoard& sb : kSocBoards) {
            for (long at = 0; at < n;) {
                const char* entry = buf + at;
                const std::size_t len = std::strlen(entry);
                if (std::strcmp(entry, sb.key) == 0) {
                    copy(board, board_cap, sb.board);
                    char e[96];
                    std::snprintf(e, sizeof e, "device tree compatible %s", sb.key);
                    copy(evidence, evidence_cap, e);
                    return true;
                }
                at += static_cast<long>(len) + 1;
            }
        }
    }
    // model: one NUL-terminated string.
    if (read_small_file(root, "model", buf, sizeof buf) > 0) {
        for (const KeyBoard& mb : kModelBoards) {
            const char* hit = std::strstr(buf, mb.key);
            if (!hit || !std::strstr(buf, "Jetson")) continue;
            copy(board, board_cap, mb.board);
            char e[96];
            std::snprintf(e, sizeof e, "device tree model '%.60s'", buf);
            copy(evidence, evidence_cap, e);
            return true;
        }
    }
    return false;
}

void detect_platform(const char* dt_root, int cc_major, int cc_minor, int sm_count,
                     DetectedPlatform* out) {
    board_from_device_tree(dt_root, out->board, sizeof out->board, out->evidence, sizeof out->evidence);
    out->cc_major = cc_major > 0 ? cc_major : 0;
    out->cc_minor = cc_major > 0 ? cc_minor : 0;
    out->sm_count = cc_major > 0 ? sm_count : 0;
}

} // namespace platform
} // namespace oflow
