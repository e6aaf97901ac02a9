// oflow-cli's file formats and metrics: .flo round trip and rejection, the PFM writer's exact
// bytes (--confidence), PNG and PGM/PPM
// decoding (all colour types, depths, interlacing; corrupt and truncated input), the
// Middlebury colour wheel, and EPE/AAE on hand-computed values. Files go to the working
// directory (the test's binary dir).
#include "check.hpp"

#include "file_util.hpp"
#include "flo_io.hpp"
#include "flow_color.hpp"
#include "flow_metrics.hpp"
#include "image_io.hpp"
#include "pfm_io.hpp"

#include <png.h>

#include <cmath>
#include <csetjmp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace cli;

namespace {

// ---- helpers ------------------------------------------------------------------------------

std::vector<unsigned char> bytes_of(const std::string& s) {
    return std::vector<unsigned char>(s.begin(), s.end());
}

bool decode_pnm_text(const std::string& s, LumaImage* img, std::string* err) {
    std::vector<unsigned char> b = bytes_of(s);
    return decode_pnm(b.data(), b.size(), img, err);
}

uint32_t crc32_of(const unsigned char* p, std::size_t n) {
    uint32_t c = 0xffffffffu;
    for (std::size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return ~c;
}

void put_be32(unsigned char* p, uint32_t v) {
    p[0] = static_cast<unsigned char>(v >> 24);
    p[1] = static_cast<unsigned char>(v >> 16);
    p[2] = static_cast<unsigned char>(v >> 8);
    p[3] = static_cast<unsigned char>(v);
}

// A PNG encoder for layouts the CLI never writes (palette, alpha, 1-bit, Adam7), built on
// libpng directly. POD state only: the setjmp frame below holds no C++ objects.
struct MemPng {
    unsigned char* data;
    std::size_t size, cap;
};

extern "C" {
static void mem_write(png_structp png, png_bytep p, png_size_t n) {
    MemPng* m = static_cast<MemPng*>(png_get_io_ptr(png));
    if (m->size + n > m->cap) {
        std::size_t cap = (m->size + n) * 2;
        unsigned char* d = static_cast<unsigned char*>(std::realloc(m->data, cap));
        if (!d) png_error(png, "oom");
        m->data = d;
        m->cap = cap;
    }
    std::memcpy(m->data + m->size, p, n);
    m->size += n;
}
static void mem_flush(png_structp) {}
static void quiet_error(png_structp png, png_const_charp) { png_longjmp(png, 1); }
static void quiet_warning(png_structp, png_const_charp) {}
}

struct EncodeJob { // POD
    png_structp png;
    png_infop info;
    int w, h, color, depth, interlace;
    const unsigned char* raw; // packed rows as PNG stores them
    std::size_t rowbytes;
    const png_color* palette;
    int npalette;
    MemPng* out;
};

bool encode_frame(EncodeJob* j) { // setjmp frame
    if (setjmp(png_jmpbuf(j->png))) return false;
    png_set_write_fn(j->png, j->out, mem_write, mem_flush);
    png_set_IHDR(j->png, j->info, static_cast<png_uint_32>(j->w), static_cast<png_uint_32>(j->h),
                 j->depth, j->color, j->interlace, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (j->palette) png_set_PLTE(j->png, j->info, j->palette, j->npalette);
    png_write_info(j->png, j->info);
    const int passes = png_set_interlace_handling(j->png);
    for (int p = 0; p < passes; ++p)
        for (int y = 0; y < j->h; ++y)
            png_write_row(j->png, j->raw + j->rowbytes * static_cast<std::size_t>(y));
    png_write_end(j->png, nullptr);
    return true;
}

std::vector<unsigned char> encode_png(int w, int h, int color, int depth, bool interlace,
                                      const std::vector<unsigned char>& raw,
                                      const std::vector<png_color>& palette = {}) {
    MemPng m = {nullptr, 0, 0};
    EncodeJob j;
    std::memset(&j, 0, sizeof j);
    j.w = w;
    j.h = h;
    j.color = color;
    j.depth = depth;
    j.interlace = interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE;
    j.raw = raw.data();
    j.rowbytes = raw.size() / static_cast<std::size_t>(h);
    j.palette = palette.empty() ? nullptr : palette.data();
    j.npalette = static_cast<int>(palette.size());
    j.out = &m;
    j.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, quiet_error, quiet_warning);
    j.info = png_create_info_struct(j.png);
    const bool ok = encode_frame(&j);
    png_destroy_write_struct(&j.png, &j.info);
    std::vector<unsigned char> out;
    if (ok) out.assign(m.data, m.data + m.size);
    std::free(m.data);
    CHECK(ok);
    return out;
}

bool decode(const std::vector<unsigned char>& b, LumaImage* img) {
    std::string err;
    return decode_png(b.data(), b.size(), img, &err);
}

// ---- .flo ---------------------------------------------------------------------------------

void test_flo() {
    const int w = 5, h = 3;
    std::vector<float> uv(2 * w * h);
    for (std::size_t i = 0; i < uv.size(); ++i) uv[i] = 0.37f * static_cast<float>(i) - 4.0f;
    uv[0] = -0.0f;
    uv[1] = 1e10f; // unknown
    uv[2] = std::numeric_limits<float>::quiet_NaN();
    uv[3] = std::numeric_limits<float>::denorm_min();
    uv[4] = -std::numeric_limits<float>::infinity();
    std::string err;
    CHECK(write_flo("cli_io_rt.flo", w, h, uv.data(), &err));
    FlowField f;
    CHECK_MSG(read_flo("cli_io_rt.flo", &f, &err), "%s", err.c_str());
    CHECK(f.width == w && f.height == h && f.uv.size() == uv.size());
    CHECK(f.uv.size() == uv.size() && std::memcmp(f.uv.data(), uv.data(), uv.size() * 4) == 0);

    std::vector<unsigned char> file;
    CHECK(read_file("cli_io_rt.flo", &file, &err));
    CHECK(file.size() == 12 + uv.size() * 4);
    CHECK(file.size() > 12 && std::memcmp(file.data(), "PIEH", 4) == 0);
    float tag = 0.0f;
    std::memcpy(&tag, file.data(), 4); // little-endian host
    CHECK(tag == 202021.25f);
    CHECK(file[4] == 5 && file[5] == 0 && file[8] == 3);

    // Rejections: every one fails with a message and leaves *out alone.
    auto rejects = [&](std::vector<unsigned char> b, const char* why) {
        FlowField g;
        std::string e;
        const bool ok = decode_flo(b.data(), b.size(), &g, &e);
        CHECK_MSG(!ok && !e.empty() && g.width == 0 && g.uv.empty(), "%s accepted", why);
    };
    std::vector<unsigned char> bad = file;
    bad[0] = 'X';
    rejects(bad, "bad magic");
    rejects(std::vector<unsigned char>(file.begin(), file.end() - 1), "truncated by one byte");
    rejects(std::vector<unsigned char>(file.begin(), file.begin() + 12), "header only");
    rejects(std::vector<unsigned char>(file.begin(), file.begin() + 7), "short header");
    rejects({}, "empty");
    bad = file;
    bad.push_back(0);
    rejects(bad, "trailing byte");
    bad = file;
    bad[4] = 0x40; // width 0x9c40 = 40000
    bad[5] = 0x9c;
    rejects(bad, "width 40000");
    bad = file;
    bad[8] = bad[9] = bad[10] = bad[11] = 0xff; // height -1
    rejects(bad, "negative height");
    bad = file;
    bad[4] = 0;
    rejects(bad, "zero width");
    bad = file;
    const unsigned char side32768[4] = {0x00, 0x80, 0, 0}; // little-endian 32768
    std::memcpy(&bad[4], side32768, 4);
    std::memcpy(&bad[8], side32768, 4);
    rejects(bad, "32768x32768 in a tiny file");

    FlowField g;
    CHECK(!read_flo("cli_io_does_not_exist.flo", &g, &err));
    CHECK(err.find("cli_io_does_not_exist.flo") != std::string::npos);
    CHECK(!write_flo("/nonexistent-dir/x.flo", w, h, uv.data(), &err));
    CHECK(err.find("/nonexistent-dir/x.flo") != std::string::npos);
}

// ---- PFM (--confidence) --------------------------------------------------------------------

// A 3x2 plane in a stride of 4 floats: the exact bytes, header "Pf\n3 2\n-1.0\n", then the
// bottom row, then the top row, each float little-endian (built here from the bits, not by
// memcpy, so the test holds on any host).
void test_pfm() {
    const float plane[8] = {0.0f, 0.25f, 1.0f, -7.0f /* padding */, 0.5f, 0.125f, 0.75f, -7.0f};
    const std::vector<unsigned char> b = encode_pfm(3, 2, plane, 4);
    const char header[] = "Pf\n3 2\n-1.0\n";
    const std::size_t hn = sizeof header - 1;
    CHECK(hn == 12 && b.size() == hn + 3 * 2 * 4);
    CHECK(b.size() >= hn && std::memcmp(b.data(), header, hn) == 0);
    const float order[6] = {0.5f, 0.125f, 0.75f, 0.0f, 0.25f, 1.0f}; // bottom row first
    for (int i = 0; i < 6 && b.size() == hn + 24; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &order[i], 4);
        const unsigned char* p = b.data() + hn + 4 * i;
        CHECK_MSG(p[0] == (bits & 0xffu) && p[1] == ((bits >> 8) & 0xffu) && p[2] == ((bits >> 16) & 0xffu) &&
                      p[3] == (bits >> 24),
                  "value %d is not %g little-endian", i, static_cast<double>(order[i]));
    }
    // 0.5f is 0x3f000000: its bytes 00 00 00 3f, whatever the host.
    CHECK(b.size() == hn + 24 && b[hn] == 0 && b[hn + 1] == 0 && b[hn + 2] == 0 && b[hn + 3] == 0x3f);
    // Wider sides: the header grows with the digits.
    std::vector<float> big(static_cast<std::size_t>(1234) * 10, 0.5f);
    const std::vector<unsigned char> bb = encode_pfm(1234, 10, big.data(), 1234);
    CHECK(bb.size() == 16 + 1234 * 10 * 4 && std::memcmp(bb.data(), "Pf\n1234 10\n-1.0\n", 16) == 0);

    std::string err;
    CHECK(write_pfm("cli_io.pfm", 3, 2, plane, 4, &err));
    std::vector<unsigned char> file;
    CHECK(read_file("cli_io.pfm", &file, &err) && file == b);
    CHECK(!write_pfm("/nonexistent-dir/x.pfm", 3, 2, plane, 4, &err));
    CHECK(err.find("/nonexistent-dir/x.pfm") != std::string::npos);
}

// ---- PNG ----------------------------------------------------------------------------------

void test_png_roundtrip() {
    const int w = 7, h = 5; // odd sizes: no row padding assumptions
    std::string err;
    for (int depth : {8, 16}) {
        for (int ch : {1, 3}) {
            const std::size_t n = static_cast<std::size_t>(w) * h * ch;
            std::vector<uint8_t> s8(n);
            std::vector<uint16_t> s16(n);
            for (std::size_t i = 0; i < n; ++i) {
                s16[i] = static_cast<uint16_t>((i * 7919u + 13u) % 65536u);
                s8[i] = static_cast<uint8_t>((i * 37u + 5u) % 256u);
            }
            s16[0] = 65535;
            s8[0] = 255;
            const std::string path = "cli_io_rt_" + std::to_string(depth) + "_" +
                                     std::to_string(ch) + ".png";
            const void* samples = depth == 8 ? static_cast<const void*>(s8.data())
                                             : static_cast<const void*>(s16.data());
            CHECK_MSG(write_png(path, w, h, ch, depth, samples, &err), "%s", err.c_str());
            LumaImage img;
            CHECK_MSG(read_image(path, &img, &err), "%s", err.c_str());
            CHECK(img.width == w && img.height == h && img.depth == depth);
            bool same = img.pixels.size() == static_cast<std::size_t>(w) * h;
            for (std::size_t i = 0; same && i < img.pixels.size(); ++i) {
                uint32_t s[3] = {0, 0, 0};
                for (int c = 0; c < ch; ++c)
                    s[c] = depth == 8 ? s8[i * ch + c] : s16[i * ch + c];
                const uint16_t want = ch == 1 ? static_cast<uint16_t>(s[0]) : luma601(s[0], s[1], s[2]);
                same = img.pixels[i] == want;
            }
            CHECK_MSG(same, "depth %d channels %d", depth, ch);
        }
    }
    CHECK(luma601(255, 255, 255) == 255 && luma601(65535, 65535, 65535) == 65535);
    CHECK(luma601(255, 0, 0) == 76 && luma601(0, 255, 0) == 150 && luma601(0, 0, 255) == 29);
    CHECK(!write_png("/nonexistent-dir/x.png", w, h, 1, 8, std::vector<uint8_t>(35).data(), &err));
    CHECK(err.find("/nonexistent-dir/x.png") != std::string::npos);
}

void test_png_layouts() {
    const int w = 9, h = 6;
    LumaImage img;
    // Grey + alpha, 8-bit, interlaced: alpha ignored, Adam7 combined.
    {
        std::vector<unsigned char> raw;
        for (int i = 0; i < w * h; ++i) {
            raw.push_back(static_cast<unsigned char>(i * 4));
            raw.push_back(static_cast<unsigned char>(255 - i));
        }
        CHECK(decode(encode_png(w, h, PNG_COLOR_TYPE_GRAY_ALPHA, 8, true, raw), &img));
        bool ok = img.depth == 8 && img.pixels.size() == static_cast<std::size_t>(w * h);
        for (int i = 0; ok && i < w * h; ++i) ok = img.pixels[i] == i * 4;
        CHECK(ok);
    }
    // RGBA, 16-bit: luma of RGB, big-endian samples.
    {
        std::vector<unsigned char> raw;
        std::vector<uint16_t> want;
        for (int i = 0; i < w * h; ++i) {
            uint32_t c[4] = {static_cast<uint32_t>(i * 1000), static_cast<uint32_t>(60000 - i * 500),
                             static_cast<uint32_t>(i * 77), 123};
            for (uint32_t v : c) {
                raw.push_back(static_cast<unsigned char>(v >> 8));
                raw.push_back(static_cast<unsigned char>(v & 0xff));
            }
            want.push_back(luma601(c[0], c[1], c[2]));
        }
        CHECK(decode(encode_png(w, h, PNG_COLOR_TYPE_RGB_ALPHA, 16, false, raw), &img));
        CHECK(img.depth == 16 && img.pixels == want);
    }
    // Palette, 4-bit: indices through the palette, then luma.
    {
        std::vector<png_color> pal;
        for (int i = 0; i < 16; ++i)
            pal.push_back(png_color{static_cast<png_byte>(i * 16), static_cast<png_byte>(255 - i * 8),
                                    static_cast<png_byte>(i * 3)});
        std::vector<unsigned char> raw;
        std::vector<uint16_t> want;
        const int rowbytes = (w + 1) / 2;
        for (int y = 0; y < h; ++y) {
            for (int b = 0; b < rowbytes; ++b) {
                int i0 = (y * w + 2 * b) % 16, i1 = (y * w + 2 * b + 1) % 16;
                raw.push_back(static_cast<unsigned char>(i0 << 4 | (2 * b + 1 < w ? i1 : 0)));
            }
            for (int x = 0; x < w; ++x) {
                const png_color& c = pal[(y * w + x) % 16];
                want.push_back(luma601(c.red, c.green, c.blue));
            }
        }
        CHECK(decode(encode_png(w, h, PNG_COLOR_TYPE_PALETTE, 4, false, raw, pal), &img));
        CHECK(img.depth == 8 && img.pixels == want);
    }
    // 1-bit grey: 0 and 255.
    {
        std::vector<unsigned char> raw;
        for (int y = 0; y < h; ++y) {
            raw.push_back(y % 2 ? 0xaa : 0x55); // x = 0..7
            raw.push_back(0x80);               // x = 8 set
        }
        CHECK(decode(encode_png(w, h, PNG_COLOR_TYPE_GRAY, 1, false, raw), &img));
        bool ok = img.depth == 8 && img.pixels.size() == static_cast<std::size_t>(w * h);
        for (int y = 0; ok && y < h; ++y)
            for (int x = 0; ok && x < 8; ++x)
                ok = img.pixels[y * w + x] == (((y % 2 ? 0xaa : 0x55) >> (7 - x)) & 1 ? 255 : 0) &&
                     img.pixels[y * w + 8] == 255;
        CHECK(ok);
    }
}

void test_png_corrupt() {
    // A real file to damage: 40x30 8-bit grey with texture, Adam7 and not.
    const int w = 40, h = 30;
    std::vector<unsigned char> raw(static_cast<std::size_t>(w) * h);
    for (std::size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<unsigned char>((i * i * 31u) >> 3);
    for (bool interlace : {false, true}) {
        const std::vector<unsigned char> good = encode_png(w, h, PNG_COLOR_TYPE_GRAY, 8, interlace, raw);
        LumaImage img;
        CHECK(decode(good, &img) && img.width == w);
        int accepted = 0;
        for (std::size_t n = 0; n < good.size(); ++n) { // every truncation
            std::vector<unsigned char> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
            LumaImage t;
            std::string err;
            const bool ok = decode_png(cut.data(), cut.size(), &t, &err);
            accepted += ok;
            CHECK_MSG(ok || !err.empty(), "no message at length %zu", n);
        }
        CHECK_MSG(accepted == 0, "%d truncated files accepted", accepted);
        for (std::size_t k = 8; k < good.size(); ++k) { // every single-byte corruption: no crash
            std::vector<unsigned char> bad = good;
            bad[k] ^= 0x5a;
            LumaImage t;
            std::string err;
            if (decode_png(bad.data(), bad.size(), &t, &err))
                CHECK(t.pixels.size() == static_cast<std::size_t>(t.width) * t.height);
        }
    }
    // A valid header claiming 32768x32768, and one claiming 40000 wide.
    std::vector<unsigned char> good = encode_png(w, h, PNG_COLOR_TYPE_GRAY, 8, false, raw);
    for (uint32_t side : {32768u, 40000u}) {
        std::vector<unsigned char> big = good;
        put_be32(&big[16], side); // IHDR data starts at 16: width, height
        put_be32(&big[20], side);
        put_be32(&big[29], crc32_of(&big[12], 17)); // CRC of "IHDR" + 13 data bytes
        LumaImage t;
        std::string err;
        CHECK_MSG(!decode_png(big.data(), big.size(), &t, &err), "side %u accepted", side);
    }
    // Files that are not images, through read_image.
    std::string err;
    LumaImage t;
    CHECK(write_file("cli_io_junk.png", "hello world", 11, &err));
    CHECK(!read_image("cli_io_junk.png", &t, &err) && err.find("cli_io_junk.png") == 0);
    CHECK(write_file("cli_io_empty.png", "", 0, &err));
    CHECK(!read_image("cli_io_empty.png", &t, &err) && err.find("cli_io_empty.png") == 0);
    CHECK(!read_image("cli_io_missing.png", &t, &err) && err.find("cli_io_missing.png") == 0);
}

// ---- PGM / PPM ----------------------------------------------------------------------------

void test_pnm() {
    LumaImage img;
    std::string err;
    // P2 with comments everywhere whitespace may be.
    CHECK_MSG(decode_pnm_text("P2\n# a comment\n3 # width\n2\n255\n0 1 2\n# mid\n253 254 255\n", &img, &err),
              "%s", err.c_str());
    CHECK(img.width == 3 && img.height == 2 && img.depth == 8);
    CHECK((img.pixels == std::vector<uint16_t>{0, 1, 2, 253, 254, 255}));
    // P2 with maxval 15: rescaled to 0..255.
    CHECK(decode_pnm_text("P2 2 1 15 0 15", &img, &err));
    CHECK(img.depth == 8 && (img.pixels == std::vector<uint16_t>{0, 255}));
    // P2 with maxval 1000: depth 16, rescaled to 0..65535.
    CHECK(decode_pnm_text("P2 3 1 1000 0 500 1000", &img, &err));
    CHECK(img.depth == 16 && (img.pixels == std::vector<uint16_t>{0, 32768, 65535}));
    // P3: luma.
    CHECK(decode_pnm_text("P3 2 1 255  255 0 0  10 20 30", &img, &err));
    CHECK((img.pixels == std::vector<uint16_t>{luma601(255, 0, 0), luma601(10, 20, 30)}));
    // P5 8-bit with a comment in the header; raster bytes may look like whitespace or '#'.
    std::string p5 = "P5\n#c\n4 1\n255\n";
    p5 += std::string("\n#\x00\xff", 4);
    CHECK(decode_pnm_text(p5, &img, &err));
    CHECK((img.pixels == std::vector<uint16_t>{'\n', '#', 0, 255}));
    // P5 16-bit, big-endian samples.
    std::string p5b = "P5 2 1 65535\n";
    p5b += std::string("\x12\x34\xff\xff", 4);
    CHECK(decode_pnm_text(p5b, &img, &err));
    CHECK(img.depth == 16 && (img.pixels == std::vector<uint16_t>{0x1234, 0xffff}));
    // P6 8-bit and 16-bit.
    std::string p6 = "P6 1 2 255\n";
    p6 += std::string("\xff\x00\x00\x00\x00\xff", 6);
    CHECK(decode_pnm_text(p6, &img, &err));
    CHECK((img.pixels == std::vector<uint16_t>{luma601(255, 0, 0), luma601(0, 0, 255)}));
    std::string p6b = "P6 1 1 65535\n";
    p6b += std::string("\xff\xff\x80\x00\x00\x10", 6);
    CHECK(decode_pnm_text(p6b, &img, &err));
    CHECK(img.depth == 16 && (img.pixels == std::vector<uint16_t>{luma601(65535, 32768, 16)}));
    // Through a file (read_image picks the format by content).
    CHECK(write_file("cli_io.pgm", p5b.data(), p5b.size(), &err));
    CHECK(read_image("cli_io.pgm", &img, &err) && img.width == 2 && img.depth == 16);

    // Rejections.
    const char* bad[] = {
        "P5 2 2 255\n\x01\x02\x03",     // truncated raster
        "P5 2 1 255",                   // no raster at all
        "P2 2 2 255 1 2 3",             // truncated ascii raster
        "P2 2 1 100 50 101",            // value above maxval
        "P2 0 1 255",                   // zero width
        "P2 40000 1 255 0",             // absurd width
        "P2 1 40000 255 0",             // absurd height
        "P2 1 1 70000 0",               // maxval too large
        "P2 1 1 0 0",                   // maxval zero
        "P2 1 1 -5 0",                  // sign
        "P2 99999999999999999999 1 255 0", // overflow
        "P2 2 1 255 1 x",               // garbage
        "P4 1 1\n\x80",                 // PBM: unsupported
        "P",                            // nothing
        "P5 32768 32768 65535\n\x00",   // huge claim, tiny file
    };
    for (const char* b : bad) {
        LumaImage t;
        CHECK_MSG(!decode_pnm_text(b, &t, &err) && !err.empty() && t.pixels.empty(), "accepted: %s", b);
    }
    LumaImage t;
    std::string p6bad = "P6 2 1 200\n";
    p6bad += std::string("\x01\x02\x03\x04\x05\xc9", 6); // 201 > maxval
    CHECK(!decode_pnm_text(p6bad, &t, &err));
}

// ---- colour wheel -------------------------------------------------------------------------

bool rgb_is(const uint8_t* p, int r, int g, int b) { return p[0] == r && p[1] == g && p[2] == b; }

void test_color() {
    uint8_t c[3];
    flow_wheel_color(1.0f, 0.0f, c);
    CHECK(rgb_is(c, 255, 0, 0)); // angle 0: the wheel's first entry
    flow_wheel_color(1.0f, -0.0f, c);
    CHECK(rgb_is(c, 255, 0, 0));
    flow_wheel_color(0.0f, 0.0f, c);
    CHECK(rgb_is(c, 255, 255, 255));
    flow_wheel_color(0.5f, 0.0f, c);
    CHECK(rgb_is(c, 255, 128, 128)); // half saturation
    flow_wheel_color(2.0f, 0.0f, c);
    CHECK(rgb_is(c, 191, 0, 0)); // out of range: 75 %
    flow_wheel_color(-1.0f, 0.0f, c); // 27/54 of the way: CB segment entry 2
    CHECK(rgb_is(c, 0, 255 - 255 * 2 / 11, 255));
    flow_wheel_color(0.0f, 1.0f, c); // +y (down): between RY entries 13 and 14
    CHECK(c[0] == 255 && c[2] == 0 && c[1] >= 221 && c[1] <= 238);
    flow_wheel_color(0.0f, -1.0f, c); // -y: between BM entries 4 and 5
    CHECK(c[1] == 0 && c[2] == 255 && c[0] >= 255 * 4 / 13 && c[0] <= 255 * 5 / 13);

    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const float uv[] = {2.0f, 0.0f, 1.0f, 0.0f, 1e10f, 0.0f, 0.0f, -2e9f,
                       nan,  0.0f, 0.0f, inf,  0.0f,  0.0f};
    uint8_t rgb[7 * 3];
    flow_to_rgb(uv, 7, rgb); // max known radius 2
    CHECK(rgb_is(rgb + 0, 255, 0, 0));
    CHECK(rgb_is(rgb + 3, 255, 128, 128));
    for (int i = 2; i < 6; ++i) CHECK_MSG(rgb_is(rgb + 3 * i, 0, 0, 0), "unknown pixel %d", i);
    CHECK(rgb_is(rgb + 18, 255, 255, 255));
    flow_to_rgb(uv, 1, rgb, 4.0f); // explicit radius
    CHECK(rgb_is(rgb, 255, 128, 128));
    const float zero[] = {0.0f, 0.0f, 1e10f, 1e10f};
    flow_to_rgb(zero, 2, rgb); // nothing known but zero: no division by zero
    CHECK(rgb_is(rgb, 255, 255, 255) && rgb_is(rgb + 3, 0, 0, 0));
}

// ---- EPE / AAE ----------------------------------------------------------------------------

bool near(double a, double b) { return std::fabs(a - b) < 1e-9; }

void test_metrics() {
    const float uv[] = {1.0f, 0.0f, 0.0f, 0.0f, 3.0f, 4.0f, 7.0f, 7.0f};
    const float gt[] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1e10f, 0.0f};
    FlowError e = flow_error(uv, gt, 2);
    CHECK(e.count == 2 && near(e.epe, 0.5)); // (1 + 0) / 2
    CHECK(near(e.aae, 22.5));                // (45 + 0) / 2: (1,0,1) vs (0,0,1)
    e = flow_error(uv, gt, 4);               // the unknown GT pixel is left out
    CHECK(e.count == 3 && near(e.epe, 2.0)); // (1 + 0 + 5) / 3
    const double a3 = std::acos(1.0 / std::sqrt(26.0)) * 180.0 / 3.14159265358979323846;
    CHECK(near(e.aae, (45.0 + 0.0 + a3) / 3.0));
    // Equal vectors: zero error even when large; opposite unit vectors: 90 degrees.
    const float a[] = {-2.5f, 1.5f, 1.0f, 0.0f};
    const float b[] = {-2.5f, 1.5f, -1.0f, 0.0f};
    e = flow_error(a, b, 1);
    CHECK(near(e.epe, 0.0) && near(e.aae, 0.0));
    e = flow_error(a + 2, b + 2, 1);
    CHECK(near(e.epe, 2.0) && near(e.aae, 90.0));
    e = flow_error(uv + 6, gt + 6, 1); // nothing known
    CHECK(e.count == 0 && std::isnan(e.epe) && std::isnan(e.aae));
}

} // namespace

int main() {
    test_flo();
    test_pfm();
    test_png_roundtrip();
    test_png_layouts();
    test_png_corrupt();
    test_pnm();
    test_color();
    test_metrics();
    return oftest::finish("test_cli_io");
}
