// XML -> LoadedTable with the schema's every rule (table_load.hpp; the schema itself is
// platform/tables/README.md). Built into oflow-tablegen always, into the library only with
// OF_WITH_TINYXML2.
#include "platform/table_load.hpp"

#include "cuda/cuda_layout.hpp" // MULTI_ITER's launch limits, so a table cannot drift from them

#include <tinyxml2.h>

#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace oflow {
namespace platform {
namespace {

using tinyxml2::XMLAttribute;
using tinyxml2::XMLDocument;
using tinyxml2::XMLElement;
using tinyxml2::XMLNode;

const int kSchemaVersion = 1;
const std::size_t kMaxSource = 400;
const std::size_t kMaxTitle = 80;
const std::uint64_t kMaxArea = 1ull << 40;

struct Choice {
    const char* name;
    int value;
};
const Choice kAlgorithms[] = {{"tvl1", OF_ALGO_TVL1}, {"hs", OF_ALGO_HS}, {"clg", OF_ALGO_CLG}, {"lk", OF_ALGO_LK},
                              {"dis", OF_ALGO_DIS}, {nullptr, 0}};
const Choice kPrecisions[] = {{"f32", OF_PRECISION_F32}, {"f16", OF_PRECISION_F16}, {nullptr, 0}};
const Choice kPaths[] = {{"cpu", kPathCpu}, {"gpu", kPathGpu}, {nullptr, 0}};
const Choice kVariants[] = {{"global", kVariantGlobal}, {"fused", kVariantFused},
                            {"multi_iter", kVariantMultiIter}, {"pipeline", kVariantPipeline}, {nullptr, 0}};
const Choice kBuckets[] = {{"256", kBucket256}, {"512", kBucket512}, {"1024", kBucket1024},
                           {"2048", kBucket2048}, {"larger", kBucketLarger}, {nullptr, 0}};
const Choice kYesNo[] = {{"yes", 1}, {"no", 0}, {nullptr, 0}};

const char* const kRootAttrs[] = {"schema", nullptr};
const char* const kBoardAttrs[] = {"name", "title", "cc", "sms", "regs_per_block", "shared_per_block",
                                   "cpu_fp16", "source", nullptr};
const char* const kAlgorithmAttrs[] = {"name", "auto_precision", "source", nullptr};
const char* const kPrecisionAttrs[] = {"name", nullptr};
const char* const kCrossoverAttrs[] = {"area", "per_level", "source", nullptr};
// ref_ns_per_it_px, ref_frame_ns_per_px: kind="cpu" only (Parser::path refuses them on the GPU).
const char* const kPathAttrs[] = {"kind", "arith", "ns_per_it_px", "warn", "fail", "frame_us", "frame_ns_per_px",
                                  "launch_us", "level_us", "ref_ns_per_it_px", "ref_frame_ns_per_px", "source",
                                  nullptr};
const char* const kLaunchAttrs[] = {"variant", "bucket", "rank", "block_w", "block_h", "rows",
                                    "grid", "depth", "bound", "source", nullptr};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Why a tinyxml2 error happened, in words.
const char* xml_error_words(tinyxml2::XMLError e) {
    switch (e) {
    case tinyxml2::XML_ERROR_EMPTY_DOCUMENT: return "empty document";
    case tinyxml2::XML_ERROR_MISMATCHED_ELEMENT: return "mismatched end tag";
    case tinyxml2::XML_ERROR_PARSING: return "malformed or truncated XML (an element is not closed)";
    case tinyxml2::XML_ERROR_PARSING_ATTRIBUTE: return "malformed or duplicate attribute";
    case tinyxml2::XML_ERROR_PARSING_ELEMENT: return "malformed or truncated element";
    case tinyxml2::XML_ERROR_PARSING_COMMENT: return "malformed comment";
    case tinyxml2::XML_ERROR_PARSING_TEXT: return "malformed text";
    case tinyxml2::XML_ERROR_PARSING_DECLARATION: return "malformed declaration";
    default: return "malformed XML";
    }
}

class Parser {
  public:
    Parser(const char* file, LoadedTable* out, const ErrorSink& err) : file_(file), out_(out), err_(err) {}

    of_status document(const XMLDocument& doc);

  private:
    const char* file_;
    LoadedTable* out_;
    const ErrorSink& err_;
    int launches_used_ = 0;

    of_status fail(int line, const char* fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
    {
        char msg[kErrorCapacity];
        std::va_list ap;
        va_start(ap, fmt);
        std::vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        return err_.fail(OF_ERR_INVALID_ARGUMENT, "%s:%d: %s", file_, line, msg);
    }

    const char* keep(const char* s, int line);
    of_status blank(const XMLNode* text, const XMLElement* parent);
    of_status children_only(const XMLElement* e, const char* allowed_child);
    of_status attributes_only(const XMLElement* e, const char* const* allowed);
    of_status required(const XMLElement* e, const char* name, const char** value);
    of_status text_field(const XMLElement* e, const char* name, std::size_t max_len, const char** kept);
    of_status choice(const XMLElement* e, const char* name, const Choice* choices, int* value);
    of_status whole(const XMLElement* e, const char* name, std::uint64_t lo, std::uint64_t hi,
                    std::uint64_t* value);
    of_status whole_int(const XMLElement* e, const char* name, int lo, int hi, int* value);
    of_status real(const XMLElement* e, const char* name, double lo, bool lo_open, double hi,
                   double* value);
    of_status optional_real(const XMLElement* e, const char* name, double lo, double hi, double* value);
    of_status board(const XMLElement* e);
    of_status algorithm(const XMLElement* e);
    of_status precision(const XMLElement* e, of_algorithm algo, const char* algo_name, TuningRow* row);
    of_status path(const XMLElement* e, of_precision p, Path kind, PathCost* cost, bool* seen);
    of_status launch(const XMLElement* e, of_precision p, LaunchRow* l);
};

const char* Parser::keep(const char* s, int line) {
    const std::size_t n = std::strlen(s) + 1;
    if (n > kMaxTableText - out_->text_used) {
        fail(line, "table too large: more than %zu bytes of names and sources", kMaxTableText);
        return nullptr;
    }
    char* at = out_->text + out_->text_used;
    std::memcpy(at, s, n);
    out_->text_used += n;
    return at;
}

// Text inside an element must be whitespace.
of_status Parser::blank(const XMLNode* text, const XMLElement* parent) {
    const char* t = text->Value();
    while (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r') ++t;
    if (*t) return fail(text->GetLineNum(), "unexpected text '%.20s' in <%s>", t, parent->Name());
    return OF_OK;
}

// Only comments, whitespace and elements named allowed_child (NULL: none) inside e.
of_status Parser::children_only(const XMLElement* e, const char* allowed_child) {
    for (const XMLNode* c = e->FirstChild(); c; c = c->NextSibling()) {
        if (c->ToComment()) continue;
        if (const XMLElement* ce = c->ToElement()) {
            if (allowed_child && std::strcmp(ce->Name(), allowed_child) == 0) continue;
            return fail(ce->GetLineNum(), "unknown element <%s> in <%s>", ce->Name(), e->Name());
        }
        if (c->ToText()) {
            const of_status s = blank(c, e);
            if (s != OF_OK) return s;
            continue;
        }
        return fail(c->GetLineNum(), "unexpected node '%.30s' in <%s>", c->Value(), e->Name());
    }
    return OF_OK;
}

of_status Parser::attributes_only(const XMLElement* e, const char* const* allowed) {
    for (const XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) {
        bool known = false;
        for (const char* const* k = allowed; *k && !known; ++k) known = std::strcmp(*k, a->Name()) == 0;
        if (!known) return fail(a->GetLineNum(), "<%s>: unknown attribute '%s'", e->Name(), a->Name());
    }
    return OF_OK;
}

of_status Parser::required(const XMLElement* e, const char* name, const char** value) {
    *value = e->Attribute(name);
    if (!*value) return fail(e->GetLineNum(), "<%s>: missing attribute '%s'", e->Name(), name);
    return OF_OK;
}

// Line of attribute `name` of e (the element's line when absent).
int attr_line(const XMLElement* e, const char* name) {
    const XMLAttribute* a = e->FindAttribute(name);
    return a ? a->GetLineNum() : e->GetLineNum();
}

of_status Parser::text_field(const XMLElement* e, const char* name, std::size_t max_len, const char** kept) {
    const char* v = nullptr;
    of_status s = required(e, name, &v);
    if (s != OF_OK) return s;
    const std::size_t n = std::strlen(v);
    if (n == 0) return fail(attr_line(e, name), "<%s> %s: empty", e->Name(), name);
    if (n > max_len)
        return fail(attr_line(e, name), "<%s> %s: %zu bytes, more than %zu", e->Name(), name, n, max_len);
    *kept = keep(v, attr_line(e, name));
    return *kept ? OF_OK : OF_ERR_INVALID_ARGUMENT;
}

of_status Parser::choice(const XMLElement* e, const char* name, const Choice* choices, int* value) {
    const char* v = nullptr;
    of_status s = required(e, name, &v);
    if (s != OF_OK) return s;
    for (const Choice* c = choices; c->name; ++c)
        if (std::strcmp(c->name, v) == 0) {
            *value = c->value;
            return OF_OK;
        }
    char list[96];
    std::size_t len = 0;
    list[0] = '\0';
    for (const Choice* c = choices; c->name && len < sizeof list; ++c) {
        const int n = std::snprintf(list + len, sizeof list - len, "%s%s", c == choices ? "" : "|", c->name);
        if (n < 0) break;
        len += static_cast<std::size_t>(n);
    }
    return fail(attr_line(e, name), "<%s> %s=\"%.40s\": not one of %s", e->Name(), name, v, list);
}

of_status Parser::whole(const XMLElement* e, const char* name, std::uint64_t lo, std::uint64_t hi,
                        std::uint64_t* value) {
    const char* v = nullptr;
    of_status s = required(e, name, &v);
    if (s != OF_OK) return s;
    const int line = attr_line(e, name);
    const char* d = v;
    if (*d == '-' && is_digit(d[1])) {
        for (++d; is_digit(*d); ++d) {
        }
        if (!*d) return fail(line, "<%s> %s=\"%.40s\": negative", e->Name(), name, v);
    }
    std::uint64_t n = 0;
    d = v;
    if (!*d) return fail(line, "<%s> %s=\"\": not a whole number", e->Name(), name);
    for (; *d; ++d) {
        if (!is_digit(*d)) return fail(line, "<%s> %s=\"%.40s\": not a whole number", e->Name(), name, v);
        const std::uint64_t digit = static_cast<std::uint64_t>(*d - '0');
        if (n > (UINT64_MAX - digit) / 10)
            return fail(line, "<%s> %s=\"%.40s\": too large", e->Name(), name, v);
        n = n * 10 + digit;
    }
    if (n < lo || n > hi)
        return fail(line, "<%s> %s=\"%.40s\": out of range %llu..%llu", e->Name(), name, v,
                    static_cast<unsigned long long>(lo), static_cast<unsigned long long>(hi));
    *value = n;
    return OF_OK;
}

of_status Parser::whole_int(const XMLElement* e, const char* name, int lo, int hi, int* value) {
    std::uint64_t n = 0;
    const of_status s = whole(e, name, static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi), &n);
    if (s == OF_OK) *value = static_cast<int>(n);
    return s;
}

// A decimal number: -?digits[.digits][(e|E)[+-]digits], finite, in (lo or [lo, hi].
of_status Parser::real(const XMLElement* e, const char* name, double lo, bool lo_open, double hi,
                       double* value) {
    const char* v = nullptr;
    of_status s = required(e, name, &v);
    if (s != OF_OK) return s;
    const int line = attr_line(e, name);
    const char* d = v;
    if (*d == '-') ++d;
    bool ok = is_digit(*d);
    while (is_digit(*d)) ++d;
    if (ok && *d == '.') {
        ++d;
        ok = is_digit(*d);
        while (is_digit(*d)) ++d;
    }
    if (ok && (*d == 'e' || *d == 'E')) {
        ++d;
        if (*d == '+' || *d == '-') ++d;
        ok = is_digit(*d);
        while (is_digit(*d)) ++d;
    }
    if (!ok || *d) return fail(line, "<%s> %s=\"%.40s\": not a decimal number", e->Name(), name, v);
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(v, &end);
    if (!end || *end)
        return fail(line, "<%s> %s=\"%.40s\": not read as a number (LC_NUMERIC is not \"C\")", e->Name(), name, v);
    if (errno == ERANGE || !std::isfinite(x))
        return fail(line, "<%s> %s=\"%.40s\": out of the range of a double", e->Name(), name, v);
    if ((lo_open ? !(x > lo) : !(x >= lo)) || !(x <= hi))
        return fail(line, "<%s> %s=\"%.40s\": out of range %s%g..%g]", e->Name(), name, v, lo_open ? "(" : "[",
                    lo, hi);
    *value = x;
    return OF_OK;
}

// An optional attribute: absent is 0 (the schema's "not modelled"); present, a decimal in [lo, hi].
of_status Parser::optional_real(const XMLElement* e, const char* name, double lo, double hi, double* value) {
    *value = 0.0;
    if (!e->Attribute(name)) return OF_OK;
    return real(e, name, lo, false, hi, value);
}

of_status Parser::board(const XMLElement* e) {
    BoardTable& b = out_->board;
    of_status s = attributes_only(e, kBoardAttrs);
    if (s == OF_OK) s = children_only(e, nullptr);
    const char* name = nullptr;
    if (s == OF_OK) s = required(e, "name", &name);
    if (s != OF_OK) return s;
    const std::size_t n = std::strlen(name);
    bool ok = n >= 1 && n <= 15;
    for (const char* c = name; *c && ok; ++c) ok = is_digit(*c) || (*c >= 'a' && *c <= 'z') || *c == '_';
    if (!ok || std::strcmp(name, "auto") == 0)
        return fail(attr_line(e, "name"),
                    "<board> name=\"%.40s\": 1-15 characters of a-z, 0-9, _ and not \"auto\"", name);
    b.name = keep(name, e->GetLineNum());
    if (!b.name) return OF_ERR_INVALID_ARGUMENT;
    s = text_field(e, "title", kMaxTitle, &b.title);
    if (s != OF_OK) return s;
    // cc="M.m"
    const char* cc = nullptr;
    s = required(e, "cc", &cc);
    if (s != OF_OK) return s;
    const char* d = cc;
    int major = 0;
    while (is_digit(*d) && major < 100) major = major * 10 + (*d++ - '0');
    const bool dot = d != cc && *d == '.';
    const char* m = dot ? d + 1 : d;
    if (!dot || !is_digit(m[0]) || m[1] || major < 1 || major > 99)
        return fail(attr_line(e, "cc"), "<board> cc=\"%.40s\": not a compute capability MAJOR.MINOR (1.0..99.9)", cc);
    b.cc_major = major;
    b.cc_minor = m[0] - '0';
    s = whole_int(e, "sms", 1, 4096, &b.sm_count);
    if (s == OF_OK) s = whole_int(e, "regs_per_block", 1024, 1 << 20, &b.regs_per_block);
    if (s == OF_OK) s = whole_int(e, "shared_per_block", 1024, 1 << 24, &b.shared_per_block);
    int fp16 = 0;
    if (s == OF_OK) s = choice(e, "cpu_fp16", kYesNo, &fp16);
    if (s == OF_OK) s = text_field(e, "source", kMaxSource, &b.source);
    if (s != OF_OK) return s;
    b.cpu_fp16 = fp16 != 0;
    b.line = e->GetLineNum();
    return OF_OK;
}

of_status Parser::path(const XMLElement* e, of_precision p, Path kind, PathCost* cost, bool* seen) {
    int arith = 0;
    double ns = 0, warn = 0, fail_at = 0, frame_us = 0, frame_px = 0, launch_us = 0, level_us = 0;
    double ref_ns = 0, ref_frame_px = 0;
    // The reference path's own speed beside the NEON kernels' (tuning.hpp PathCost): the CPU
    // path's alone; a GPU path has one implementation.
    static const char* const kRefAttrs[] = {"ref_ns_per_it_px", "ref_frame_ns_per_px"};
    for (const char* ref : kRefAttrs)
        if (kind != kPathCpu && e->Attribute(ref))
            return fail(attr_line(e, ref),
                        "<path kind=\"%s\"> %s=\"%.40s\": only <path kind=\"cpu\"> states the reference path's speed",
                        path_name(kind), ref, e->Attribute(ref));
    of_status s = choice(e, "arith", kPrecisions, &arith);
    if (s == OF_OK) s = real(e, "ns_per_it_px", 0.0, true, 1e6, &ns);
    if (s == OF_OK) s = real(e, "warn", 1.0, false, 1000.0, &warn);
    if (s == OF_OK) s = real(e, "fail", 1.0, false, 1000.0, &fail_at);
    if (s == OF_OK) s = optional_real(e, "frame_us", 0.0, 1e7, &frame_us);
    if (s == OF_OK) s = optional_real(e, "frame_ns_per_px", 0.0, 1e6, &frame_px);
    if (s == OF_OK) s = optional_real(e, "launch_us", 0.0, 1e6, &launch_us);
    if (s == OF_OK) s = optional_real(e, "level_us", 0.0, 1e6, &level_us);
    // As ns_per_it_px (a decimal in (0, 1e6]) and frame_ns_per_px ([0, 1e6]) when present.
    if (s == OF_OK && e->Attribute("ref_ns_per_it_px")) s = real(e, "ref_ns_per_it_px", 0.0, true, 1e6, &ref_ns);
    if (s == OF_OK) s = optional_real(e, "ref_frame_ns_per_px", 0.0, 1e6, &ref_frame_px);
    if (s != OF_OK) return s;
    if (e->Attribute("ref_frame_ns_per_px") && !e->Attribute("ref_ns_per_it_px"))
        return fail(attr_line(e, "ref_frame_ns_per_px"),
                    "<path> ref_frame_ns_per_px=\"%.40s\": needs ref_ns_per_it_px (the reference path's iteration speed)",
                    e->Attribute("ref_frame_ns_per_px"));
    const int line = e->GetLineNum();
    if (arith == OF_PRECISION_F16 && p == OF_PRECISION_F32)
        return fail(attr_line(e, "arith"), "<path> arith=\"f16\" in an f32 <precision>: a path never computes in less than asked");
    if (!(fail_at > warn))
        return fail(attr_line(e, "fail"), "<path> fail=\"%s\": must be greater than warn=\"%s\"", e->Attribute("fail"),
                    e->Attribute("warn"));
    if (*seen) return fail(line, "<path> kind=\"%s\": a second one in this <precision>", e->Attribute("kind"));
    *seen = true;
    cost->arith = static_cast<of_precision>(arith);
    cost->ns_per_it_px = ns;
    cost->warn = warn;
    cost->fail = fail_at;
    cost->frame_us = frame_us;
    cost->frame_ns_per_px = frame_px;
    cost->launch_us = launch_us;
    cost->level_us = level_us;
    cost->ref_ns_per_it_px = ref_ns;
    cost->ref_frame_ns_per_px = ref_frame_px;
    cost->line = line;
    return text_field(e, "source", kMaxSource, &cost->source);
}

of_status Parser::launch(const XMLElement* e, of_precision p, LaunchRow* l) {
    int variant = 0, bucket = 0;
    of_status s = choice(e, "variant", kVariants, &variant);
    if (s == OF_OK) s = choice(e, "bucket", kBuckets, &bucket);
    if (s == OF_OK) s = whole_int(e, "rank", 1, 16, &l->rank);
    if (s == OF_OK) s = whole_int(e, "block_w", 1, 1024, &l->block_w);
    if (s == OF_OK) s = whole_int(e, "block_h", 1, 1024, &l->block_h);
    if (s == OF_OK) s = whole_int(e, "rows", 1, 16, &l->rows);
    if (s == OF_OK) s = whole_int(e, "grid", 0, 65535, &l->grid);
    if (s == OF_OK) s = whole_int(e, "depth", 1, 16, &l->depth);
    l->bound = 0;
    if (s == OF_OK && e->Attribute("bound")) s = whole_int(e, "bound", 128, 512, &l->bound);
    if (s == OF_OK) s = text_field(e, "source", kMaxSource, &l->source);
    if (s != OF_OK) return s;
    l->variant = static_cast<Variant>(variant);
    l->bucket = static_cast<Bucket>(bucket);
    l->line = e->GetLineNum();
    const int line = l->line;
    const int threads = l->block_w * l->block_h;
    const char* vn = variant_name(l->variant);
    if (threads > 1024)
        return fail(line, "<launch> %s block %dx%d: %d threads, more than 1024", vn, l->block_w, l->block_h, threads);
    if (threads % 32 != 0)
        return fail(line, "<launch> %s block %dx%d: %d threads, not whole warps of 32", vn, l->block_w, l->block_h,
                    threads);
    const bool f16 = p == OF_PRECISION_F16;
    switch (l->variant) {
    case kVariantGlobal:
    case kVariantFused:
        if (l->bound != 0)
            return fail(attr_line(e, "bound"), "<launch> %s bound=\"%d\": only multi_iter rows name a launch bound",
                        vn, l->bound);
        if (l->rows != 1 || l->depth != 1 || l->grid != 0)
            return fail(line, "<launch> %s: rows, depth must be 1 and grid 0 (one iteration per launch, "
                              "one block per tile), not rows=%d depth=%d grid=%d",
                        vn, l->rows, l->depth, l->grid);
        break;
    case kVariantMultiIter: {
        const int max_warps = f16 ? cuda::kMultiMaxWarpsF16 : cuda::kMultiMaxWarps;
        if (l->block_w != 32 || l->block_h > max_warps)
            return fail(attr_line(e, "block_w"),
                        "<launch> multi_iter block %dx%d: the width must be 32 (one lane per column) and the "
                        "height 1..%d warps (%s)",
                        l->block_w, l->block_h, max_warps, precision_name(p));
        const bool rows_ok = f16 ? (l->rows == 4 || l->rows == 6 || l->rows == 8) : l->rows == cuda::kMultiRowsF32;
        if (!rows_ok)
            return fail(attr_line(e, "rows"), "<launch> multi_iter rows=\"%d\": %s holds %s rows per thread", l->rows,
                        precision_name(p), f16 ? "4, 6 or 8" : "8");
        if (l->grid != 0)
            return fail(attr_line(e, "grid"), "<launch> multi_iter grid=\"%d\": must be 0 (one block per tile)",
                        l->grid);
        const int region_w = cuda::multi_region_w(p), region_h = l->block_h * l->rows;
        if (region_w <= 2 * l->depth || region_h <= 2 * l->depth)
            return fail(attr_line(e, "depth"),
                        "<launch> multi_iter depth=\"%d\": the %dx%d region has no output pixels (each side "
                        "must exceed 2 x depth)",
                        l->depth, region_w, region_h);
        if (l->bound != 0 && !cuda::multi_bound_ok(p, l->bound, threads))
            return fail(attr_line(e, "bound"),
                        "<launch> multi_iter bound=\"%d\": %s kernels are compiled for bounds %s, at least the "
                        "block's %d threads",
                        l->bound, precision_name(p), f16 ? "128, 256 or 512" : "128 or 256", threads);
        if (threads * kMultiIterRegistersPerThread > out_->board.regs_per_block)
            return fail(line,
                        "<launch> multi_iter block %dx%d: %d threads x %d registers exceed the board's %d "
                        "registers per block",
                        l->block_w, l->block_h, threads, kMultiIterRegistersPerThread, out_->board.regs_per_block);
        break;
    }
    case kVariantPipeline:
    default:
        if (l->block_h != 1 || l->rows != 1 || l->grid < 1)
            return fail(line, "<launch> pipeline: a 1-D block (block_h 1, rows 1) and a fixed grid >= 1, not "
                              "block %dx%d rows=%d grid=%d",
                        l->block_w, l->block_h, l->rows, l->grid);
        break;
    }
    return OF_OK;
}

of_status Parser::precision(const XMLElement* e, of_algorithm algo, const char* algo_name, TuningRow* row) {
    int p = 0;
    of_status s = attributes_only(e, kPrecisionAttrs);
    if (s == OF_OK) s = choice(e, "name", kPrecisions, &p);
    if (s != OF_OK) return s;
    row->algorithm = algo;
    row->precision = static_cast<of_precision>(p);
    row->line = e->GetLineNum();
    row->launches = out_->launches + launches_used_; // this row's launches follow, contiguous
    row->launch_count = 0;
    const char* pn = precision_name(row->precision);
    bool crossover_seen = false, path_seen[kPathCount] = {false, false};
    for (const XMLNode* c = e->FirstChild(); c; c = c->NextSibling()) {
        if (c->ToComment()) continue;
        if (c->ToText()) {
            s = blank(c, e);
            if (s != OF_OK) return s;
            continue;
        }
        const XMLElement* ce = c->ToElement();
        if (!ce) return fail(c->GetLineNum(), "unexpected node '%.30s' in <precision>", c->Value());
        const char* n = ce->Name();
        const int line = ce->GetLineNum();
        if (std::strcmp(n, "crossover") == 0) {
            if (crossover_seen) return fail(line, "<crossover>: a second one in <precision name=\"%s\">", pn);
            crossover_seen = true;
            int per_level = 0;
            s = attributes_only(ce, kCrossoverAttrs);
            if (s == OF_OK) s = children_only(ce, nullptr);
            if (s == OF_OK) s = whole(ce, "area", 0, kMaxArea, &row->crossover_area);
            if (s == OF_OK) s = choice(ce, "per_level", kYesNo, &per_level);
            if (s == OF_OK) s = text_field(ce, "source", kMaxSource, &row->crossover_source);
            if (s != OF_OK) return s;
            row->crossover_per_level = per_level != 0;
            row->crossover_line = line;
        } else if (std::strcmp(n, "path") == 0) {
            int kind = 0;
            s = attributes_only(ce, kPathAttrs);
            if (s == OF_OK) s = children_only(ce, nullptr);
            if (s == OF_OK) s = choice(ce, "kind", kPaths, &kind);
            if (s == OF_OK)
                s = path(ce, row->precision, static_cast<Path>(kind), &row->path[kind], &path_seen[kind]);
            if (s != OF_OK) return s;
            if (kind == kPathCpu && row->path[kind].arith == OF_PRECISION_F16 && !out_->board.cpu_fp16)
                return fail(attr_line(ce, "arith"), "<path kind=\"cpu\"> arith=\"f16\": board %s has cpu_fp16=\"no\"",
                            out_->board.name);
        } else if (std::strcmp(n, "launch") == 0) {
            s = attributes_only(ce, kLaunchAttrs);
            if (s == OF_OK) s = children_only(ce, nullptr);
            if (s != OF_OK) return s;
            if (launches_used_ >= kMaxTableLaunches)
                return fail(line, "table too large: more than %d <launch> rows", kMaxTableLaunches);
            LaunchRow* l = &out_->launches[launches_used_];
            s = launch(ce, row->precision, l);
            if (s != OF_OK) return s;
            for (int i = 0; i < row->launch_count; ++i) {
                const LaunchRow& o = row->launches[i];
                if (o.bucket == l->bucket && o.variant == l->variant)
                    return fail(line, "<launch> %s bucket %s: a second row (first at line %d)", variant_name(l->variant),
                                bucket_name(l->bucket), o.line);
                if (o.bucket == l->bucket && o.rank == l->rank)
                    return fail(attr_line(ce, "rank"), "<launch> rank=\"%d\" in bucket %s: also the rank of %s at line %d",
                                l->rank, bucket_name(l->bucket), variant_name(o.variant), o.line);
            }
            ++launches_used_;
            ++row->launch_count;
        } else {
            return fail(line, "unknown element <%s> in <precision>", n);
        }
    }
    if (!crossover_seen) return fail(row->line, "<precision name=\"%s\"> of %s: missing <crossover>", pn, algo_name);
    for (int k = 0; k < kPathCount; ++k)
        if (!path_seen[k])
            return fail(row->line, "<precision name=\"%s\"> of %s: missing <path kind=\"%s\">", pn, algo_name,
                        path_name(static_cast<Path>(k)));
    for (int b = 0; b < kBucketCount; ++b) {
        bool any = false;
        for (int i = 0; i < row->launch_count; ++i) any = any || row->launches[i].bucket == b;
        if (!any)
            return fail(row->line, "<precision name=\"%s\"> of %s: no <launch> for bucket %s", pn, algo_name,
                        bucket_name(static_cast<Bucket>(b)));
    }
    return OF_OK;
}

of_status Parser::algorithm(const XMLElement* e) {
    BoardTable& b = out_->board;
    int a = 0, auto_p = 0;
    of_status s = attributes_only(e, kAlgorithmAttrs);
    if (s == OF_OK) s = choice(e, "name", kAlgorithms, &a);
    if (s == OF_OK) s = choice(e, "auto_precision", kPrecisions, &auto_p);
    if (s != OF_OK) return s;
    const of_algorithm algo = static_cast<of_algorithm>(a);
    for (int i = 0; i < b.algorithm_count; ++i)
        if (out_->algorithms[i].algorithm == algo)
            return fail(e->GetLineNum(), "<algorithm name=\"%s\">: a second one (first at line %d)", algorithm_name(algo),
                        out_->algorithms[i].line);
    if (b.algorithm_count >= kMaxTableAlgorithms)
        return fail(e->GetLineNum(), "table too large: more than %d <algorithm> elements", kMaxTableAlgorithms);
    AlgorithmDefaults& d = out_->algorithms[b.algorithm_count];
    d.algorithm = algo;
    d.auto_precision = static_cast<of_precision>(auto_p);
    d.line = e->GetLineNum();
    s = text_field(e, "source", kMaxSource, &d.source);
    if (s != OF_OK) return s;
    s = children_only(e, "precision");
    if (s != OF_OK) return s;
    const int first_row = b.row_count;
    for (const XMLElement* c = e->FirstChildElement("precision"); c; c = c->NextSiblingElement("precision")) {
        if (b.row_count >= kMaxTableRows)
            return fail(c->GetLineNum(), "table too large: more than %d <precision> rows", kMaxTableRows);
        TuningRow& row = out_->rows[b.row_count];
        s = precision(c, algo, algorithm_name(algo), &row);
        if (s != OF_OK) return s;
        for (int i = first_row; i < b.row_count; ++i)
            if (out_->rows[i].precision == row.precision)
                return fail(row.line, "<precision name=\"%s\"> of %s: a second one (first at line %d)",
                            precision_name(row.precision), algorithm_name(algo), out_->rows[i].line);
        ++b.row_count;
    }
    if (b.row_count == first_row)
        return fail(e->GetLineNum(), "<algorithm name=\"%s\">: no <precision>", algorithm_name(algo));
    bool auto_found = false;
    for (int i = first_row; i < b.row_count; ++i) auto_found = auto_found || out_->rows[i].precision == d.auto_precision;
    if (!auto_found)
        return fail(attr_line(e, "auto_precision"), "<algorithm name=\"%s\"> auto_precision=\"%s\": no such <precision>",
                    algorithm_name(algo), precision_name(d.auto_precision));
    ++b.algorithm_count;
    return OF_OK;
}

of_status Parser::document(const XMLDocument& doc) {
    const XMLElement* root = nullptr;
    for (const XMLNode* c = doc.FirstChild(); c; c = c->NextSibling()) {
        if (c->ToComment() || c->ToDeclaration()) continue;
        const XMLElement* e = c->ToElement();
        if (!e) return fail(c->GetLineNum(), "unexpected node '%.30s' at the top level", c->Value());
        if (root) return fail(e->GetLineNum(), "a second top-level element <%s>", e->Name());
        root = e;
    }
    if (!root) return fail(1, "no <oflow-tuning> element");
    if (std::strcmp(root->Name(), "oflow-tuning") != 0)
        return fail(root->GetLineNum(), "unknown element <%s> at the top level (expected <oflow-tuning>)", root->Name());
    of_status s = attributes_only(root, kRootAttrs);
    int schema = 0;
    if (s == OF_OK) s = whole_int(root, "schema", 0, 1000, &schema);
    if (s != OF_OK) return s;
    if (schema != kSchemaVersion)
        return fail(attr_line(root, "schema"), "<oflow-tuning> schema=\"%d\": this library reads schema %d", schema,
                    kSchemaVersion);
    // <board> first, then <algorithm>s.
    const XMLElement* first = root->FirstChildElement();
    if (!first || std::strcmp(first->Name(), "board") != 0)
        return fail(first ? first->GetLineNum() : root->GetLineNum(), "<oflow-tuning>: the first element must be <board>");
    s = board(first);
    if (s != OF_OK) return s;
    for (const XMLNode* c = root->FirstChild(); c; c = c->NextSibling()) {
        if (c->ToComment()) continue;
        if (c->ToText()) {
            s = blank(c, root);
            if (s != OF_OK) return s;
            continue;
        }
        const XMLElement* e = c->ToElement();
        if (!e) return fail(c->GetLineNum(), "unexpected node '%.30s' in <oflow-tuning>", c->Value());
        if (e == first) continue;
        if (std::strcmp(e->Name(), "board") == 0) return fail(e->GetLineNum(), "<board>: a second one");
        if (std::strcmp(e->Name(), "algorithm") != 0)
            return fail(e->GetLineNum(), "unknown element <%s> in <oflow-tuning>", e->Name());
        s = algorithm(e);
        if (s != OF_OK) return s;
    }
    if (out_->board.algorithm_count == 0) return fail(root->GetLineNum(), "<oflow-tuning>: no <algorithm>");
    out_->board.algorithms = out_->algorithms;
    out_->board.rows = out_->rows;
    return OF_OK;
}

void reset(LoadedTable* out) {
    out->board = BoardTable{};
    out->text_used = 0;
}

of_status finish(const XMLDocument& doc, const char* file, LoadedTable* out, const ErrorSink& err) {
    if (doc.Error()) {
        const int line = doc.ErrorLineNum();
        if (line > 0)
            return err.fail(OF_ERR_INVALID_ARGUMENT, "%s:%d: %s (%s)", file, line, xml_error_words(doc.ErrorID()),
                            doc.ErrorName());
        return err.fail(OF_ERR_INVALID_ARGUMENT, "%s: %s (%s)", file, xml_error_words(doc.ErrorID()), doc.ErrorName());
    }
    Parser p(file, out, err);
    const of_status s = p.document(doc);
    if (s != OF_OK) {
        reset(out);
        return s;
    }
    // The file name last, so a failure above never depends on its length.
    const std::size_t n = std::strlen(file) + 1;
    if (n > kMaxTableText - out->text_used) {
        reset(out);
        return err.fail(OF_ERR_INVALID_ARGUMENT, "%s: table too large: more than %zu bytes of text", file, kMaxTableText);
    }
    std::memcpy(out->text + out->text_used, file, n);
    out->board.file = out->text + out->text_used;
    out->text_used += n;
    return OF_OK;
}

} // namespace

of_status parse_table_text(const char* xml, std::size_t len, const char* file, LoadedTable* out,
                           const ErrorSink& err) {
    if (!xml || !file || !out) return err.fail(OF_ERR_NULL_POINTER, "tuning table: NULL argument");
    reset(out);
    XMLDocument doc;
    doc.Parse(xml, len);
    return finish(doc, file, out, err);
}

of_status load_table_file(const char* path, LoadedTable* out, const ErrorSink& err) {
    if (!path || !out) return err.fail(OF_ERR_NULL_POINTER, "tuning table: NULL argument");
    reset(out);
    XMLDocument doc;
    const tinyxml2::XMLError e = doc.LoadFile(path);
    if (e == tinyxml2::XML_ERROR_FILE_NOT_FOUND || e == tinyxml2::XML_ERROR_FILE_COULD_NOT_BE_OPENED ||
        e == tinyxml2::XML_ERROR_FILE_READ_ERROR)
        return err.fail(OF_ERR_INVALID_ARGUMENT, "%s: cannot open the tuning table (%s)", path, doc.ErrorName());
    return finish(doc, path, out, err);
}

} // namespace platform
} // namespace oflow
