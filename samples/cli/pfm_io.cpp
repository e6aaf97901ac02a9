#include "pfm_io.hpp"

#include "file_util.hpp"

#include <cstdint>
#include <cstring>

namespace cli {

std::vector<unsigned char> encode_pfm(int width, int height, const float* plane, std::size_t stride) {
    const std::string header = "Pf\n" + std::to_string(width) + " " + std::to_string(height) + "\n-1.0\n";
    const std::size_t w = static_cast<std::size_t>(width), h = static_cast<std::size_t>(height);
    std::vector<unsigned char> bytes(header.size() + 4 * w * h);
    std::memcpy(bytes.data(), header.data(), header.size());
    unsigned char* out = bytes.data() + header.size();
    for (std::size_t r = 0; r < h; ++r) {
        const float* row = plane + (h - 1 - r) * stride; // bottom row first
        for (std::size_t x = 0; x < w; ++x, out += 4) {
            uint32_t bits;
            std::memcpy(&bits, &row[x], 4);
            out[0] = static_cast<unsigned char>(bits); // little-endian, as the scale -1.0 says
            out[1] = static_cast<unsigned char>(bits >> 8);
            out[2] = static_cast<unsigned char>(bits >> 16);
            out[3] = static_cast<unsigned char>(bits >> 24);
        }
    }
    return bytes;
}

bool write_pfm(const std::string& path, int width, int height, const float* plane, std::size_t stride,
               std::string* err) {
    const std::vector<unsigned char> bytes = encode_pfm(width, height, plane, stride);
    return write_file(path, bytes.data(), bytes.size(), err);
}

} // namespace cli
