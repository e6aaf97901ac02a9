// Middlebury .flo files: the float 202021.25 ("PIEH"), int32 width, int32 height, then
// width * height interleaved (u, v) float32 pairs, row-major; everything little-endian.
#ifndef OFLOW_CLI_FLO_IO_HPP
#define OFLOW_CLI_FLO_IO_HPP

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace cli {

/// A flow field as interleaved (u, v) pairs.
struct FlowField {
    int width = 0;
    int height = 0;
    std::vector<float> uv; ///< 2 * width * height values
};

/// Middlebury's "unknown flow": a component above 1e9 in magnitude, or not finite.
inline bool flow_unknown(float u, float v) {
    return !std::isfinite(u) || !std::isfinite(v) || std::fabs(u) > 1e9f || std::fabs(v) > 1e9f;
}

/// Parses a whole .flo file held in memory: the size must match the header exactly and each
/// side be 1..32768. On failure *err says why (without a file name).
bool decode_flo(const unsigned char* data, std::size_t size, FlowField* out, std::string* err);

/// Reads path; on failure returns false and sets *err to "PATH: why".
bool read_flo(const std::string& path, FlowField* out, std::string* err);

/// Writes width * height interleaved (u, v) pairs to path; "PATH: why" on failure.
bool write_flo(const std::string& path, int width, int height, const float* uv,
               std::string* err);

} // namespace cli

#endif
