// libpng's simplified API (png_image): no setjmp here, libpng keeps its own error state and
// returns 0 with the message in png_image.message.
#include "photo_png.hpp"

#include <png.h>

#include <cstring>

namespace phototest {

bool read_photo(const std::string& path, Photo* out, std::string* err) {
    png_image img;
    std::memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path.c_str())) {
        *err = path + ": " + img.message;
        return false;
    }
    if (img.width == 0 || img.height == 0 || img.width > 16384 || img.height > 16384) {
        png_image_free(&img);
        *err = path + ": unexpected size";
        return false;
    }
    img.format = PNG_FORMAT_RGB;
    std::vector<png_byte> rgb(PNG_IMAGE_SIZE(img), 0);
    if (!png_image_finish_read(&img, nullptr, rgb.data(), 0, nullptr)) {
        *err = path + ": " + img.message;
        png_image_free(&img);
        return false;
    }
    out->w = static_cast<int>(img.width);
    out->h = static_cast<int>(img.height);
    const size_t n = static_cast<size_t>(out->w) * static_cast<size_t>(out->h);
    out->grey.resize(n);
    for (size_t i = 0; i < n; ++i)
        out->grey[i] = 0.299f * rgb[3 * i] + 0.587f * rgb[3 * i + 1] + 0.114f * rgb[3 * i + 2];
    return true;
}

bool write_grey_png(const std::string& path, int w, int h, const uint8_t* samples, std::string* err) {
    png_image img;
    std::memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = static_cast<png_uint_32>(w);
    img.height = static_cast<png_uint_32>(h);
    img.format = PNG_FORMAT_GRAY;
    if (!png_image_write_to_file(&img, path.c_str(), 0, samples, 0, nullptr)) {
        *err = path + ": " + img.message;
        return false;
    }
    return true;
}

} // namespace phototest
