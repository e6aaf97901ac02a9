// The table oflow-tune writes (tune_table.hpp).
#include "tune_table.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

namespace oflow {
namespace tune {

std::string clip(const std::string& s, std::size_t max) {
    std::string o;
    o.reserve(s.size());
    for (char c : s) {
        const unsigned char u = static_cast<unsigned char>(c);
        o += (u < 0x20 || u == 0x7f) ? ' ' : c;
    }
    if (o.size() <= max) return o;
    if (max < 3) return o.substr(0, max); // not used with such bounds
    std::size_t n = max - 3;
    // Back off to a UTF-8 character boundary (continuation bytes are 10xxxxxx).
    while (n > 0 && (static_cast<unsigned char>(o[n]) & 0xC0) == 0x80) --n;
    return o.substr(0, n) + "...";
}

std::string decimal(double x) {
    char b[64];
    // Plain digits when that reads back ("40", "0.0078"), else the shortest exponent form.
    if (std::fabs(x) < 1e15)
        for (int d = 0; d <= 20; ++d) {
            std::snprintf(b, sizeof b, "%.*f", d, x);
            if (std::strtod(b, nullptr) == x) return b;
        }
    for (int prec = 1; prec <= 17; ++prec) {
        std::snprintf(b, sizeof b, "%.*g", prec, x);
        if (std::strtod(b, nullptr) == x) break;
    }
    return b;
}

namespace {

std::string escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        switch (c) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        case '\'': o += "&apos;"; break;
        default: o += c;
        }
    }
    return o;
}

// XML comments may not contain "--" nor end with '-'.
std::string comment_text(const std::string& s) {
    std::string o = clip(s, 4000);
    std::size_t at = 0;
    while ((at = o.find("--", at)) != std::string::npos) o.replace(at, 2, "- -");
    if (!o.empty() && o.back() == '-') o += ' ';
    return o;
}

std::string attr(const char* name, const std::string& value) {
    return std::string(" ") + name + "=\"" + escape(value) + "\"";
}
std::string attr(const char* name, long long value) { return attr(name, std::to_string(value)); }
std::string src(const std::string& s) { return attr("source", clip(s, kMaxSourceBytes)); }

std::string copied(const std::string& from, const char* source) {
    return clip("copied from " + from + ": " + (source ? source : ""), kMaxSourceBytes);
}

} // namespace

namespace {

template <class P>
void copy_terms(const P& c, XPath* x, std::true_type) {
    x->frame_us = c.frame_us;
    x->frame_ns_per_px = c.frame_ns_per_px;
    x->launch_us = c.launch_us;
    x->level_us = c.level_us;
    x->has_frame_terms = c.frame_us > 0.0 || c.frame_ns_per_px > 0.0 || c.launch_us > 0.0 || c.level_us > 0.0;
}
template <class P>
void copy_terms(const P&, XPath*, std::false_type) {}

} // namespace

XPath copy_path(const platform::PathCost& c, const std::string& from) {
    XPath x;
    x.arith = c.arith;
    x.ns_per_it_px = c.ns_per_it_px;
    x.warn = c.warn;
    x.fail = c.fail;
    x.source = copied(from, c.source);
    copy_terms(c, &x, HasFrameTerms<platform::PathCost>());
    x.ref_ns_per_it_px = c.ref_ns_per_it_px;
    x.ref_frame_ns_per_px = c.ref_frame_ns_per_px;
    return x;
}

XLaunch copy_launch(const platform::LaunchRow& l, const std::string& from) {
    return XLaunch{l.variant, l.bucket, l.rank, l.block_w, l.block_h, l.rows, l.grid, l.depth, l.bound, copied(from, l.source)};
}

XPrecision copy_precision(const platform::TuningRow& r, const std::string& from) {
    XPrecision p;
    p.precision = r.precision;
    p.crossover_area = r.crossover_area;
    p.per_level = r.crossover_per_level;
    p.crossover_source = copied(from, r.crossover_source);
    for (int k = 0; k < platform::kPathCount; ++k) p.path[k] = copy_path(r.path[k], from);
    for (int i = 0; i < r.launch_count; ++i) p.launches.push_back(copy_launch(r.launches[i], from));
    return p;
}

XTable copy_board(const platform::BoardTable& t, const std::string& from) {
    XTable x;
    x.name = t.name;
    x.title = t.title;
    x.cc_major = t.cc_major;
    x.cc_minor = t.cc_minor;
    x.sms = t.sm_count;
    x.regs_per_block = t.regs_per_block;
    x.shared_per_block = t.shared_per_block;
    x.cpu_fp16 = t.cpu_fp16;
    x.source = copied(from, t.source);
    for (int a = 0; a < t.algorithm_count; ++a) {
        const platform::AlgorithmDefaults& d = t.algorithms[a];
        XAlgorithm xa;
        xa.algorithm = d.algorithm;
        xa.auto_precision = d.auto_precision;
        xa.source = copied(from, d.source);
        for (int r = 0; r < t.row_count; ++r)
            if (t.rows[r].algorithm == d.algorithm) xa.precisions.push_back(copy_precision(t.rows[r], from));
        x.algorithms.push_back(xa);
    }
    return x;
}

std::string write_xml(const XTable& t) {
    std::string o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    if (!t.header.empty()) {
        o += "<!--\n";
        for (const std::string& line : t.header) o += "  " + comment_text(line) + "\n";
        o += "-->\n";
    }
    o += "<oflow-tuning schema=\"1\">\n";
    char cc[16];
    std::snprintf(cc, sizeof cc, "%d.%d", t.cc_major, t.cc_minor);
    o += "  <board" + attr("name", t.name) + attr("title", clip(t.title, kMaxTitleBytes)) + attr("cc", cc) +
         attr("sms", t.sms) + attr("regs_per_block", t.regs_per_block) + attr("shared_per_block", t.shared_per_block) +
         attr("cpu_fp16", t.cpu_fp16 ? "yes" : "no") + "\n         " + src(t.source) + "/>\n";
    for (const XAlgorithm& a : t.algorithms) {
        o += "\n  <algorithm" + attr("name", platform::algorithm_name(a.algorithm)) +
             attr("auto_precision", platform::precision_name(a.auto_precision)) + "\n            " + src(a.source) + ">\n";
        for (const XPrecision& p : a.precisions) {
            o += "    <precision" + attr("name", platform::precision_name(p.precision)) + ">\n";
            o += "      <crossover" + attr("area", static_cast<long long>(p.crossover_area)) +
                 attr("per_level", p.per_level ? "yes" : "no") + "\n                 " + src(p.crossover_source) + "/>\n";
            for (int k : {platform::kPathGpu, platform::kPathCpu}) { // the order of the built-in tables
                const XPath& c = p.path[k];
                o += "      <path" + attr("kind", platform::path_name(static_cast<platform::Path>(k))) +
                     attr("arith", platform::precision_name(c.arith)) + attr("ns_per_it_px", decimal(c.ns_per_it_px)) +
                     attr("warn", decimal(c.warn)) + attr("fail", decimal(c.fail));
                if (c.has_frame_terms)
                    o += attr("frame_us", decimal(c.frame_us)) + attr("frame_ns_per_px", decimal(c.frame_ns_per_px)) +
                         attr("launch_us", decimal(c.launch_us)) + attr("level_us", decimal(c.level_us));
                if (k == platform::kPathCpu && c.ref_ns_per_it_px > 0.0) { // the schema's rule: cpu only
                    o += attr("ref_ns_per_it_px", decimal(c.ref_ns_per_it_px));
                    if (c.ref_frame_ns_per_px > 0.0) o += attr("ref_frame_ns_per_px", decimal(c.ref_frame_ns_per_px));
                }
                o += "\n            " + src(c.source) + "/>\n";
            }
            for (int b = 0; b < platform::kBucketCount; ++b) {
                for (const std::string& c : p.comments[b]) o += "      <!-- " + comment_text(c) + " -->\n";
                for (const XLaunch& l : p.launches) {
                    if (l.bucket != b) continue;
                    o += "      <launch" + attr("variant", platform::variant_name(l.variant)) +
                         attr("bucket", platform::bucket_name(l.bucket)) + attr("rank", l.rank) +
                         attr("block_w", l.block_w) + attr("block_h", l.block_h) + attr("rows", l.rows) +
                         attr("grid", l.grid) + attr("depth", l.depth) +
                         (l.bound ? attr("bound", l.bound) : std::string()) + "\n              " + src(l.source) + "/>\n";
                }
            }
            o += "    </precision>\n";
        }
        o += "  </algorithm>\n";
    }
    o += "</oflow-tuning>\n";
    return o;
}

} // namespace tune
} // namespace oflow
