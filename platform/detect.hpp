// What machine this is, for choosing a tuning table: the Jetson board from the device tree, the
// CPU's SIMD features from the kernel's auxiliary vector. The CUDA device's compute capability
// and SM count are inputs (the CUDA runtime query lives in cuda/).
//
// Contract: runs at create time only. Reads at most two small files with open/read into stack
// buffers; no allocation, no exceptions, never fails: what cannot be read is reported as "not
// found" (an empty board), and the table lookup then falls back (tuning.hpp).
#ifndef OFLOW_PLATFORM_DETECT_HPP
#define OFLOW_PLATFORM_DETECT_HPP

#include "platform/tuning.hpp"

#include <cstddef>

namespace oflow {
namespace platform {

/// CPU features that decide the CPU path.
struct CpuFeatures {
    bool aarch64;     // the library was built for aarch64
    bool asimd;       // Advanced SIMD (NEON); always on aarch64 Linux
    bool fp16_scalar; // FP16 scalar arithmetic (HWCAP_FPHP)
    bool fp16_vector; // FP16 vector arithmetic (HWCAP_ASIMDHP): the NEON F16 kernels need it
};

/// Decodes an AT_HWCAP word of an aarch64 Linux kernel (bits: FP 0, ASIMD 1, FPHP 9, ASIMDHP 10).
/// With aarch64 false (x86 and others) every feature is false: no CPU feature is needed there.
CpuFeatures cpu_features_from_hwcap(unsigned long hwcap, bool aarch64);

/// getauxval(AT_HWCAP) of this process, decoded (Linux; elsewhere all false).
CpuFeatures detect_cpu_features();

/// The Jetson board named by a device tree: `compatible` (NUL-separated entries; the SoC entry
/// decides: nvidia,tegra210 -> nano, tegra186 -> tx2, tegra194 -> xavier, tegra234 -> orin),
/// else `model` ("... Orin ...", "... Xavier ...", "... TX2 ...", "... Nano ...", checked in
/// that order since "Orin Nano" is an Orin). dt_root NULL means /proc/device-tree; tests pass a
/// directory of their own. Writes board ("" when not a known Jetson, or no device tree) and
/// evidence (what named it, e.g. "device tree compatible nvidia,tegra194"); both always
/// NUL-terminated. Returns true when a board was named.
bool board_from_device_tree(const char* dt_root, char* board, std::size_t board_cap, char* evidence,
                            std::size_t evidence_cap);

/// Detection for resolve_table(): the board from the device tree under dt_root (NULL: the
/// machine's) and the CUDA device the caller found (cc 0.0 and 0 SMs: none).
void detect_platform(const char* dt_root, int cc_major, int cc_minor, int sm_count,
                     DetectedPlatform* out);

} // namespace platform
} // namespace oflow

#endif
