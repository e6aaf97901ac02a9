// PNG files of the photograph set (tests/photo_set.cpp): a photograph read as grey, and 8-bit
// grey frames written (tests/tools/photo_frames.cpp). libpng's simplified API; never prints:
// failures come back as one line of text. PNG only: the set uses no JPEG file.
#ifndef OFLOW_TESTS_PHOTO_PNG_HPP
#define OFLOW_TESTS_PHOTO_PNG_HPP

#include <cstdint>
#include <string>
#include <vector>

namespace phototest {

/// A photograph as grey intensities, float 0..255, row-major, no padding.
struct Photo {
    int w = 0, h = 0;
    std::vector<float> grey;
};

/// Reads an 8-bit PNG of any colour type: grey as it is, colour as BT.601 luma
/// 0.299 R + 0.587 G + 0.114 B (not rounded); alpha is dropped (composited on black). A 16-bit
/// file is read through libpng's 8-bit conversion. On failure returns false and sets *err to
/// "PATH: why".
bool read_photo(const std::string& path, Photo* out, std::string* err);

/// Writes w x h 8-bit grey samples (row-major, no padding) as a grey PNG. On failure returns
/// false and sets *err to "PATH: why".
bool write_grey_png(const std::string& path, int w, int h, const uint8_t* samples, std::string* err);

} // namespace phototest

#endif
