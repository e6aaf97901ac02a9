// PNG through libpng with our own error handlers (libpng never prints); setjmp is used only
// in the functions marked "setjmp frame", whose locals are all PODs, so longjmp skips no
// destructor. Their C++ callers own every resource through PngRead/PngWrite.
#include "image_io.hpp"

#include "file_util.hpp"

#include <png.h>

#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace cli {
namespace {

// ---- PNG read -----------------------------------------------------------------------------

struct PngRead { // POD: shared by the setjmp frames and their owner
    png_structp png;
    png_infop info;
    const unsigned char* data;
    std::size_t size;
    std::size_t pos;
    uint32_t width, height;
    int channels, depth, passes;
    std::size_t rowbytes;
    unsigned char* rows; // malloc'd: one row, or the whole image when interlaced
    uint16_t* out;       // width * height luma values, owned by the caller
    char error[200];
};

extern "C" {
static void png_error_handler(png_structp png, png_const_charp msg) {
    char* error = static_cast<char*>(png_get_error_ptr(png));
    std::snprintf(error, 200, "%s", msg ? msg : "libpng error");
    png_longjmp(png, 1);
}
static void png_warning_handler(png_structp, png_const_charp) {}

static void png_read_memory(png_structp png, png_bytep dst, png_size_t n) {
    PngRead* r = static_cast<PngRead*>(png_get_io_ptr(png));
    if (n > r->size - r->pos) png_error(png, "file is truncated");
    std::memcpy(dst, r->data + r->pos, n);
    r->pos += n;
}
}

// setjmp frame: reads the header and sets the transforms to 8/16-bit grey or RGB.
bool png_read_header(PngRead* r) {
    if (setjmp(png_jmpbuf(r->png))) return false;
    png_set_read_fn(r->png, r, png_read_memory);
    png_set_user_limits(r->png, kMaxSide, kMaxSide);
    png_read_info(r->png, r->info);
    png_uint_32 w = 0, h = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(r->png, r->info, &w, &h, &depth, &color, &interlace, nullptr, nullptr);
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(r->png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(r->png);
    if (color & PNG_COLOR_MASK_ALPHA) png_set_strip_alpha(r->png);
    r->passes = png_set_interlace_handling(r->png);
    png_read_update_info(r->png, r->info);
    r->width = w;
    r->height = h;
    r->channels = png_get_channels(r->png, r->info);
    r->depth = png_get_bit_depth(r->png, r->info);
    r->rowbytes = png_get_rowbytes(r->png, r->info);
    return true;
}

void png_row_to_luma(const PngRead* r, const unsigned char* row, uint16_t* dst) {
    const int bytes = r->depth / 8;
    for (uint32_t x = 0; x < r->width; ++x) {
        uint32_t s[3] = {0, 0, 0};
        for (int c = 0; c < r->channels; ++c) {
            const unsigned char* p = row + (static_cast<std::size_t>(x) * r->channels + c) * bytes;
            s[c] = bytes == 2 ? (static_cast<uint32_t>(p[0]) << 8 | p[1]) : p[0];
        }
        dst[x] = r->channels == 1 ? static_cast<uint16_t>(s[0]) : luma601(s[0], s[1], s[2]);
    }
}

// setjmp frame: decodes every row into r->out.
bool png_read_pixels(PngRead* r) {
    if (setjmp(png_jmpbuf(r->png))) return false;
    const bool whole = r->passes > 1;
    r->rows = static_cast<unsigned char*>(
        std::malloc(whole ? r->rowbytes * r->height : r->rowbytes));
    if (!r->rows) png_error(r->png, "out of memory");
    for (int pass = 0; pass < r->passes; ++pass) {
        for (uint32_t y = 0; y < r->height; ++y) {
            unsigned char* row = whole ? r->rows + r->rowbytes * y : r->rows;
            png_read_row(r->png, row, nullptr);
            if (!whole) png_row_to_luma(r, row, r->out + static_cast<std::size_t>(r->width) * y);
        }
    }
    if (whole) {
        for (uint32_t y = 0; y < r->height; ++y)
            png_row_to_luma(r, r->rows + r->rowbytes * y,
                            r->out + static_cast<std::size_t>(r->width) * y);
    }
    png_read_end(r->png, nullptr);
    return true;
}

// ---- PNG write ----------------------------------------------------------------------------

struct PngWrite { // POD
    png_structp png;
    png_infop info;
    std::FILE* file;
    int width, height, channels, depth;
    const void* samples;
    unsigned char* row; // caller-owned, width * channels * depth / 8 bytes
    char error[200];
};

// setjmp frame: writes the whole image to w->file.
bool png_write_all(PngWrite* w) {
    if (setjmp(png_jmpbuf(w->png))) return false;
    png_init_io(w->png, w->file);
    png_set_IHDR(w->png, w->info, static_cast<png_uint_32>(w->width),
                 static_cast<png_uint_32>(w->height), w->depth,
                 w->channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(w->png, w->info);
    const std::size_t n = static_cast<std::size_t>(w->width) * w->channels;
    for (int y = 0; y < w->height; ++y) {
        const std::size_t base = n * static_cast<std::size_t>(y);
        if (w->depth == 8) {
            std::memcpy(w->row, static_cast<const uint8_t*>(w->samples) + base, n);
        } else {
            const uint16_t* s = static_cast<const uint16_t*>(w->samples) + base;
            for (std::size_t i = 0; i < n; ++i) {
                w->row[2 * i] = static_cast<unsigned char>(s[i] >> 8);
                w->row[2 * i + 1] = static_cast<unsigned char>(s[i] & 0xff);
            }
        }
        png_write_row(w->png, w->row);
    }
    png_write_end(w->png, nullptr);
    return true;
}

// ---- PNM ----------------------------------------------------------------------------------

struct PnmReader {
    const unsigned char* p;
    const unsigned char* end;

    void skip_space_and_comments() {
        while (p < end) {
            if (*p == '#') {
                while (p < end && *p != '\n' && *p != '\r') ++p;
            } else if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\v' ||
                       *p == '\f') {
                ++p;
            } else {
                break;
            }
        }
    }
    // An unsigned decimal number <= limit, preceded by whitespace/comments.
    bool number(uint32_t limit, uint32_t* out) {
        skip_space_and_comments();
        if (p >= end || *p < '0' || *p > '9') return false;
        uint64_t v = 0;
        while (p < end && *p >= '0' && *p <= '9') {
            v = v * 10 + static_cast<uint64_t>(*p - '0');
            if (v > limit) return false;
            ++p;
        }
        *out = static_cast<uint32_t>(v);
        return true;
    }
};

} // namespace

bool decode_png(const unsigned char* data, std::size_t size, LumaImage* out, std::string* err) {
    if (size < 8 || png_sig_cmp(data, 0, 8) != 0) {
        *err = "not a PNG file";
        return false;
    }
    PngRead r;
    std::memset(&r, 0, sizeof r);
    r.data = data;
    r.size = size;
    struct Owner {
        PngRead* r;
        ~Owner() {
            if (r->png) png_destroy_read_struct(&r->png, r->info ? &r->info : nullptr, nullptr);
            std::free(r->rows);
        }
    } owner{&r};
    r.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, r.error, png_error_handler,
                                   png_warning_handler);
    if (r.png) r.info = png_create_info_struct(r.png);
    if (!r.png || !r.info) {
        *err = "out of memory";
        return false;
    }
    if (!png_read_header(&r)) {
        *err = std::string("corrupt PNG: ") + r.error;
        return false;
    }
    const bool shape_ok = r.width >= 1 && r.height >= 1 && r.width <= kMaxSide &&
                          r.height <= kMaxSide && (r.channels == 1 || r.channels == 3) &&
                          (r.depth == 8 || r.depth == 16) &&
                          r.rowbytes == static_cast<std::size_t>(r.width) * r.channels * (r.depth / 8);
    if (!shape_ok) {
        *err = "unsupported PNG layout";
        return false;
    }
    // Deflate cannot expand more than 1032:1, so a header claiming far more pixels than the
    // file could hold is corrupt; refusing it early avoids allocating for a lie.
    const uint64_t raw = static_cast<uint64_t>(r.rowbytes + 1) * r.height;
    if (raw / 1100 > size) {
        *err = "corrupt PNG: " + std::to_string(r.width) + "x" + std::to_string(r.height) +
               " does not fit in " + std::to_string(size) + " bytes";
        return false;
    }
    std::vector<uint16_t> pixels(static_cast<std::size_t>(r.width) * r.height);
    r.out = pixels.data();
    if (!png_read_pixels(&r)) {
        *err = std::string("corrupt PNG: ") + r.error;
        return false;
    }
    out->width = static_cast<int>(r.width);
    out->height = static_cast<int>(r.height);
    out->depth = r.depth;
    out->pixels.swap(pixels);
    return true;
}

bool decode_pnm(const unsigned char* data, std::size_t size, LumaImage* out, std::string* err) {
    if (size < 2 || data[0] != 'P' ||
        (data[1] != '2' && data[1] != '3' && data[1] != '5' && data[1] != '6')) {
        *err = "not a PGM/PPM file (P2, P3, P5 or P6)";
        return false;
    }
    const bool ascii = data[1] == '2' || data[1] == '3';
    const int channels = (data[1] == '3' || data[1] == '6') ? 3 : 1;
    PnmReader rd{data + 2, data + size};
    uint32_t w = 0, h = 0, maxval = 0;
    if (!rd.number(kMaxSide, &w) || !rd.number(kMaxSide, &h) || !rd.number(65535, &maxval) ||
        w == 0 || h == 0 || maxval == 0) {
        *err = "corrupt PGM/PPM header (width and height 1.." + std::to_string(kMaxSide) +
               ", maxval 1..65535)";
        return false;
    }
    const uint64_t samples = static_cast<uint64_t>(w) * h * channels;
    const int bytes = maxval > 255 ? 2 : 1;
    if (!ascii) {
        // Exactly one whitespace byte separates maxval from the raster.
        if (rd.p >= rd.end) {
            *err = "PGM/PPM file is truncated";
            return false;
        }
        ++rd.p;
    }
    const uint64_t left = static_cast<uint64_t>(rd.end - rd.p);
    if (left < (ascii ? samples : samples * bytes)) { // ascii needs >= 1 byte per sample
        *err = "PGM/PPM file is truncated";
        return false;
    }
    const int depth = maxval > 255 ? 16 : 8;
    const uint32_t full = depth == 16 ? 65535u : 255u;
    std::vector<uint16_t> pixels(static_cast<std::size_t>(w) * h);
    for (std::size_t i = 0; i < pixels.size(); ++i) {
        uint32_t s[3] = {0, 0, 0};
        for (int c = 0; c < channels; ++c) {
            uint32_t v = 0;
            if (ascii) {
                if (!rd.number(maxval, &v)) {
                    *err = "PGM/PPM pixel data is truncated or holds a value above maxval";
                    return false;
                }
            } else {
                v = bytes == 2 ? (static_cast<uint32_t>(rd.p[0]) << 8 | rd.p[1]) : rd.p[0];
                rd.p += bytes;
                if (v > maxval) {
                    *err = "PGM/PPM pixel value above maxval";
                    return false;
                }
            }
            s[c] = maxval == full ? v : (v * full + maxval / 2) / maxval;
        }
        pixels[i] = channels == 1 ? static_cast<uint16_t>(s[0]) : luma601(s[0], s[1], s[2]);
    }
    out->width = static_cast<int>(w);
    out->height = static_cast<int>(h);
    out->depth = depth;
    out->pixels.swap(pixels);
    return true;
}

bool read_image(const std::string& path, LumaImage* out, std::string* err) {
    std::vector<unsigned char> bytes;
    if (!read_file(path, &bytes, err)) return false;
    const unsigned char* d = bytes.data();
    bool ok;
    if (bytes.size() >= 4 && d[0] == 0x89 && d[1] == 'P' && d[2] == 'N' && d[3] == 'G') {
        ok = decode_png(d, bytes.size(), out, err);
    } else if (bytes.size() >= 2 && d[0] == 'P' && d[1] >= '1' && d[1] <= '7') {
        ok = decode_pnm(d, bytes.size(), out, err);
    } else {
        *err = bytes.empty() ? "empty file" : "unknown image format (expected PNG, PGM or PPM)";
        ok = false;
    }
    if (!ok) *err = path + ": " + *err;
    return ok;
}

bool write_png(const std::string& path, int width, int height, int channels, int depth,
               const void* samples, std::string* err) {
    if (width < 1 || height < 1 || width > kMaxSide || height > kMaxSide ||
        (channels != 1 && channels != 3) || (depth != 8 && depth != 16)) {
        *err = path + ": cannot write a PNG of this shape";
        return false;
    }
    std::vector<unsigned char> row(static_cast<std::size_t>(width) * channels * (depth / 8));
    PngWrite w;
    std::memset(&w, 0, sizeof w);
    w.width = width;
    w.height = height;
    w.channels = channels;
    w.depth = depth;
    w.samples = samples;
    w.row = row.data();
    w.file = std::fopen(path.c_str(), "wb");
    if (!w.file) {
        *err = errno_message(path, "cannot open for writing");
        return false;
    }
    w.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, w.error, png_error_handler,
                                    png_warning_handler);
    if (w.png) w.info = png_create_info_struct(w.png);
    bool ok = w.png && w.info && png_write_all(&w);
    if (!ok) *err = path + ": cannot write PNG: " + (w.png && w.info ? w.error : "out of memory");
    if (w.png) png_destroy_write_struct(&w.png, w.info ? &w.info : nullptr);
    errno = 0;
    if (std::fclose(w.file) != 0 && ok) {
        *err = errno_message(path, "write error");
        ok = false;
    }
    return ok;
}

} // namespace cli
