#include "flo_io.hpp"

#include "file_util.hpp"
#include "image_io.hpp"

#include <cstdint>
#include <cstring>

namespace cli {
namespace {

const unsigned char kMagic[4] = {'P', 'I', 'E', 'H'}; // 202021.25f, little-endian

uint32_t load_le32(const unsigned char* p) {
    return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
           static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

void store_le32(unsigned char* p, uint32_t v) {
    p[0] = static_cast<unsigned char>(v);
    p[1] = static_cast<unsigned char>(v >> 8);
    p[2] = static_cast<unsigned char>(v >> 16);
    p[3] = static_cast<unsigned char>(v >> 24);
}

} // namespace

bool decode_flo(const unsigned char* data, std::size_t size, FlowField* out, std::string* err) {
    if (size < 12 || std::memcmp(data, kMagic, 4) != 0) {
        *err = size < 4 ? "not a .flo file (too short)" : "not a .flo file (bad magic)";
        return false;
    }
    const int32_t w = static_cast<int32_t>(load_le32(data + 4));
    const int32_t h = static_cast<int32_t>(load_le32(data + 8));
    if (w < 1 || h < 1 || w > kMaxSide || h > kMaxSide) {
        *err = "corrupt .flo: size " + std::to_string(w) + "x" + std::to_string(h) +
               " (each side must be 1.." + std::to_string(kMaxSide) + ")";
        return false;
    }
    const uint64_t n = static_cast<uint64_t>(w) * static_cast<uint64_t>(h) * 2;
    if (size - 12 != n * 4) {
        *err = std::string(size - 12 < n * 4 ? "truncated" : "corrupt") + " .flo: " +
               std::to_string(w) + "x" + std::to_string(h) + " needs " +
               std::to_string(12 + n * 4) + " bytes, file has " + std::to_string(size);
        return false;
    }
    std::vector<float> uv(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < uv.size(); ++i) {
        uint32_t bits = load_le32(data + 12 + 4 * i);
        std::memcpy(&uv[i], &bits, 4);
    }
    out->width = w;
    out->height = h;
    out->uv.swap(uv);
    return true;
}

bool read_flo(const std::string& path, FlowField* out, std::string* err) {
    std::vector<unsigned char> bytes;
    if (!read_file(path, &bytes, err)) return false;
    if (!decode_flo(bytes.data(), bytes.size(), out, err)) {
        *err = path + ": " + *err;
        return false;
    }
    return true;
}

bool write_flo(const std::string& path, int width, int height, const float* uv,
               std::string* err) {
    const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 2;
    std::vector<unsigned char> bytes(12 + 4 * n);
    std::memcpy(bytes.data(), kMagic, 4);
    store_le32(bytes.data() + 4, static_cast<uint32_t>(width));
    store_le32(bytes.data() + 8, static_cast<uint32_t>(height));
    for (std::size_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &uv[i], 4);
        store_le32(bytes.data() + 12 + 4 * i, bits);
    }
    return write_file(path, bytes.data(), bytes.size(), err);
}

} // namespace cli
