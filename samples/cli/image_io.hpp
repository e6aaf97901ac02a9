// Frame files for oflow-cli: PNG (libpng) and PGM/PPM (P2, P3, P5, P6) in, PNG out.
// Every reader bounds-checks the header before allocating and never prints: failures come
// back as one line of text.
#ifndef OFLOW_CLI_IMAGE_IO_HPP
#define OFLOW_CLI_IMAGE_IO_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cli {

/// Largest accepted width or height of any file (the library's own limit).
constexpr int kMaxSide = 32768;

/// A single-channel image: colour files are reduced to luma with BT.601 weights
/// (0.299, 0.587, 0.114); alpha and palettes' transparency are ignored.
struct LumaImage {
    int width = 0;
    int height = 0;
    int depth = 8;                ///< 8: values 0..255; 16: values 0..65535
    std::vector<uint16_t> pixels; ///< width * height values, row-major, no padding
};

/// Reads a PNG or PGM/PPM file, chosen by its first bytes. On failure returns false and sets
/// *err to "PATH: why".
bool read_image(const std::string& path, LumaImage* out, std::string* err);

/// Decoders behind read_image; on failure *err says why (without a file name).
/// PNG: any bit depth and colour type; 1/2/4-bit grey and palettes become 8-bit.
bool decode_png(const unsigned char* data, std::size_t size, LumaImage* out, std::string* err);
/// PNM: maxval 1..65535; maxval <= 255 gives depth 8, larger depth 16, both rescaled to the
/// full range of that depth. Comments (#) are allowed wherever whitespace is.
bool decode_pnm(const unsigned char* data, std::size_t size, LumaImage* out, std::string* err);

/// Writes a PNG with channels 1 (grey) or 3 (RGB) and depth 8 or 16. samples holds
/// width * height * channels interleaved values, uint8_t for depth 8, uint16_t for depth 16.
/// On failure returns false and sets *err to "PATH: why".
bool write_png(const std::string& path, int width, int height, int channels, int depth,
               const void* samples, std::string* err);

/// BT.601 luma of one RGB sample, rounded; exact for every depth up to 16 bits.
inline uint16_t luma601(uint32_t r, uint32_t g, uint32_t b) {
    return static_cast<uint16_t>((299u * r + 587u * g + 114u * b + 500u) / 1000u);
}

} // namespace cli

#endif
