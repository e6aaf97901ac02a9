#include "stream_mode.hpp"

#include "flo_io.hpp"
#include "flow_color.hpp"
#include "flow_metrics.hpp"
#include "image_io.hpp"
#include "runner.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace cli {
namespace {

// The field of a checked pattern: [begin, end) in the string, its width and zero flag.
struct Field {
    std::size_t begin = 0, end = 0;
    int width = 0;
    bool zero = false;
};

// Scans p: the number of integer fields (other conversions are refused), the first one in *f.
bool scan(const std::string& p, Field* f, int* fields, std::string* why) {
    *fields = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (p[i] != '%') continue;
        if (i + 1 < p.size() && p[i + 1] == '%') {
            ++i;
            continue;
        }
        Field g;
        g.begin = i;
        std::size_t j = i + 1;
        if (j < p.size() && p[j] == '0') {
            g.zero = true;
            ++j;
        }
        while (j < p.size() && p[j] >= '0' && p[j] <= '9' && g.width < 100) g.width = g.width * 10 + (p[j++] - '0');
        if (j >= p.size() || (p[j] != 'd' && p[j] != 'i' && p[j] != 'u')) {
            *why = "'" + p + "' has a '%' that is not an integer field (%d, %04d, ...; %% for a '%')";
            return false;
        }
        g.end = j + 1;
        if (++*fields == 1) *f = g;
        i = j;
    }
    return true;
}

std::string unescape(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        out += s[i];
        if (s[i] == '%' && i + 1 < s.size() && s[i + 1] == '%') ++i;
    }
    return out;
}

struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void check(bool ok, const std::string& message) {
    if (!ok) throw Failure(message);
}

std::string size_text(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

} // namespace

bool check_pattern(const std::string& pattern, std::string* why) {
    Field f;
    int n = 0;
    if (!scan(pattern, &f, &n, why)) return false;
    if (n != 1) {
        *why = "'" + pattern + "' has " + (n == 0 ? std::string("no integer field") : std::to_string(n) + " integer fields") +
               ": it needs exactly one (like out/flow_%04d.flo)";
        return false;
    }
    return true;
}

std::string expand_pattern(const std::string& pattern, int i) {
    Field f;
    int n = 0;
    std::string why;
    if (!scan(pattern, &f, &n, &why) || n != 1) return pattern;
    std::string digits = std::to_string(i < 0 ? -i : i);
    const std::size_t width = static_cast<std::size_t>(f.width) > digits.size() + (i < 0) ? static_cast<std::size_t>(f.width) : 0;
    if (f.zero && width > 0) digits.insert(0, width - digits.size() - (i < 0), '0');
    if (i < 0) digits.insert(0, 1, '-');
    if (!f.zero && width > digits.size()) digits.insert(0, width - digits.size(), ' ');
    return unescape(pattern.substr(0, f.begin)) + digits + unescape(pattern.substr(f.end));
}

int run_stream(const Options& o) {
    std::string why;
    const struct {
        const std::string& p;
        const char* flag;
    } patterns[] = {{o.out_flo, "-o"}, {o.color_png, "--color"}, {o.gt_flo, "--gt"}};
    for (const auto& p : patterns)
        if (!p.p.empty() && !check_pattern(p.p, &why)) throw Failure(std::string("--stream: ") + p.flag + " pattern " + why);

    // Every frame and ground truth first: bad input writes nothing.
    const std::size_t n = o.frames.size();
    std::vector<LumaImage> img(n);
    bool deep = false;
    for (std::size_t i = 0; i < n; ++i) {
        if (!read_image(o.frames[i], &img[i], &why)) throw Failure(why);
        if (i > 0)
            check(img[i].width == img[0].width && img[i].height == img[0].height,
                  "--stream: " + o.frames[i] + " is " + size_text(img[i].width, img[i].height) + " but " + o.frames[0] +
                      " is " + size_text(img[0].width, img[0].height) + ": every frame of a stream has one size");
        deep = deep || img[i].depth != 8;
    }
    const int w = img[0].width, h = img[0].height;
    std::vector<FlowField> gt(o.gt_flo.empty() ? 0 : n - 1);
    for (std::size_t i = 0; i < gt.size(); ++i) {
        const std::string path = expand_pattern(o.gt_flo, static_cast<int>(i));
        if (!read_flo(path, &gt[i], &why)) throw Failure(why);
        check(gt[i].width == w && gt[i].height == h, path + ": ground truth is " + size_text(gt[i].width, gt[i].height) +
                                                         " but the frames are " + size_text(w, h));
    }
    const of_pixel_format format = deep ? OF_PIXEL_U16 : OF_PIXEL_U8;
    Flow flow;
    if (!flow.create(o, w, h, format, &why)) throw Failure(why);

    const std::size_t px = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
    std::vector<uint8_t> u8(px);
    std::vector<uint16_t> u16(px);
    std::vector<float> uv;
    std::vector<unsigned char> valid;
    double sum_ms = 0.0, sum_epe = 0.0;
    int pairs = 0, warm = 0;
    std::string json = "{\"pairs\":[";
    for (std::size_t i = 0; i < n; ++i) {
        const std::vector<uint16_t>& p = img[i].pixels;
        const void* data = nullptr;
        if (format == OF_PIXEL_U8) {
            for (std::size_t k = 0; k < px; ++k) u8[k] = static_cast<uint8_t>(p[k]);
            data = u8.data();
        } else {
            for (std::size_t k = 0; k < px; ++k) u16[k] = static_cast<uint16_t>(img[i].depth == 8 ? p[k] * 257 : p[k]);
            data = u16.data();
        }
        bool pending = false;
        double ms = 0.0;
        if (!flow.push(data, static_cast<std::size_t>(w) * (format == OF_PIXEL_U8 ? 1 : 2), &uv, o.no_validity ? nullptr : &valid, &pending, &ms,
                       &why))
            throw Failure(why);
        if (i == 0) {
            check(pending, "of_push_frame: the first frame of a stream was not OF_PENDING");
            continue;
        }
        const int k = static_cast<int>(i) - 1;
        of_info info;
        if (!flow.info(&info, &why)) throw Failure(why);
        warm += info.last_warm == 1;
        sum_ms += ms;
        ++pairs;
        char line[512];
        int len = std::snprintf(line, sizeof line, "pair %-4d %s -> %s  %9.3f ms", k, o.frames[i - 1].c_str(),
                                o.frames[i].c_str(), ms);
        std::string entry = "{\"pair\":" + std::to_string(k) + ",\"ms\":" + std::to_string(ms) +
                            ",\"warm\":" + (info.last_warm == 1 ? "true" : "false");
        if (!gt.empty()) {
            const FlowError e = flow_error(uv.data(), gt[static_cast<std::size_t>(k)].uv.data(), px);
            sum_epe += e.epe;
            len += std::snprintf(line + len, sizeof line - static_cast<std::size_t>(len), "  EPE %.4f", e.epe);
            entry += ",\"epe\":" + std::to_string(e.epe);
        }
        if (info.last_warm == 1) std::snprintf(line + len, sizeof line - static_cast<std::size_t>(len), "  warm");
        json += (k ? "," : "") + entry + "}";
        if (!o.json) std::printf("%s\n", line);
        if (!o.out_flo.empty() && !write_flo(expand_pattern(o.out_flo, k), w, h, uv.data(), &why)) throw Failure(why);
        if (!o.color_png.empty()) {
            std::vector<uint8_t> rgb(px * 3);
            flow_to_rgb(uv.data(), px, rgb.data());
            if (!write_png(expand_pattern(o.color_png, k), w, h, 3, 8, rgb.data(), &why)) throw Failure(why);
        }
    }
    of_info info;
    if (!flow.info(&info, &why)) throw Failure(why);
    if (o.json) {
        json += "],\"mean_ms\":" + std::to_string(sum_ms / pairs) + ",\"warm_pairs\":" + std::to_string(warm);
        if (!gt.empty()) json += ",\"mean_epe\":" + std::to_string(sum_epe / pairs);
        json += ",\"backend\":\"" + std::string(backend_name(info.backend)) + "\",\"warm_start\":" +
                (info.warm_start ? "true" : "false") + "}";
        std::printf("%s\n", json.c_str());
    } else {
        std::printf("mean      %d pairs on %s (%s), warm start %s (taken on %d)  %9.3f ms", pairs,
                    backend_name(info.backend), info.variant, info.warm_start ? "on" : "off", warm, sum_ms / pairs);
        if (!gt.empty()) std::printf("  EPE %.4f", sum_epe / pairs);
        std::printf("\n");
    }
    return 0;
}

} // namespace cli
