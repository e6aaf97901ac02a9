// Names, size buckets and the canonical text of a table (tuning.hpp). Shared by the library and
// the host tool oflow-tablegen, so both spell and print a table the same way.
#include "platform/tuning.hpp"

#include <cstdarg>
#include <cstdio>

namespace oflow {
namespace platform {

const char* algorithm_name(of_algorithm a) {
    switch (a) {
    case OF_ALGO_TVL1: return "tvl1";
    case OF_ALGO_HS: return "hs";
    case OF_ALGO_CLG: return "clg";
    case OF_ALGO_LK: return "lk";
    case OF_ALGO_DIS: return "dis";
    default: return "?";
    }
}

const char* precision_name(of_precision p) {
    switch (p) {
    case OF_PRECISION_AUTO: return "auto";
    case OF_PRECISION_F32: return "f32";
    case OF_PRECISION_F16: return "f16";
    default: return "?";
    }
}

const char* path_name(Path p) { return p == kPathGpu ? "gpu" : p == kPathCpu ? "cpu" : "?"; }

const char* variant_name(Variant v) {
    switch (v) {
    case kVariantGlobal: return "global";
    case kVariantFused: return "fused";
    case kVariantMultiIter: return "multi_iter";
    case kVariantPipeline: return "pipeline";
    default: return "?";
    }
}

const char* bucket_name(Bucket b) {
    switch (b) {
    case kBucket256: return "256";
    case kBucket512: return "512";
    case kBucket1024: return "1024";
    case kBucket2048: return "2048";
    case kBucketLarger: return "larger";
    default: return "?";
    }
}

const char* match_name(Match m) {
    switch (m) {
    case kMatchOverride: return "override";
    case kMatchBoard: return "board";
    case kMatchComputeCapability: return "compute capability";
    case kMatchGeneric: return "generic";
    default: return "?";
    }
}

std::uint64_t bucket_max_area(Bucket b) {
    switch (b) {
    case kBucket256: return 2ull * 256 * 256;
    case kBucket512: return 2ull * 512 * 512;
    case kBucket1024: return 2ull * 1024 * 1024;
    case kBucket2048: return 2ull * 2048 * 2048;
    default: return UINT64_MAX;
    }
}

Bucket bucket_for_area(std::uint64_t area) {
    for (int b = kBucket256; b < kBucketLarger; ++b)
        if (area <= bucket_max_area(static_cast<Bucket>(b))) return static_cast<Bucket>(b);
    return kBucketLarger;
}

bool to_of_variant(Variant v, of_variant* out) {
    switch (v) {
    case kVariantGlobal: *out = OF_VARIANT_GLOBAL; return true;
    case kVariantFused: *out = OF_VARIANT_FUSED; return true;
    case kVariantMultiIter: *out = OF_VARIANT_MULTI_ITER; return true;
    default: return false;
    }
}

unsigned variant_mask_for(of_variant configured) {
    switch (configured) {
    case OF_VARIANT_GLOBAL: return variant_bit(kVariantGlobal);
    case OF_VARIANT_FUSED: return variant_bit(kVariantFused);
    case OF_VARIANT_MULTI_ITER: return variant_bit(kVariantMultiIter);
    default: return kVariantsCuda;
    }
}

namespace {

// Appends to a bounded buffer and counts what the whole text needs (snprintf semantics).
struct Text {
    char* buf;
    std::size_t cap;
    std::size_t len;

    void add(const char* fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
    {
        std::va_list ap;
        va_start(ap, fmt);
        char* at = buf && len < cap ? buf + len : nullptr;
        const std::size_t room = at ? cap - len : 0;
        const int n = std::vsnprintf(at, room, fmt, ap);
        va_end(ap);
        if (n > 0) len += static_cast<std::size_t>(n);
    }
    // A string field, quoted; '"' and '\' escaped, control bytes as \xHH.
    void quoted(const char* s) {
        add("\"");
        for (const char* c = s ? s : ""; *c; ++c) {
            const unsigned char u = static_cast<unsigned char>(*c);
            if (u == '"' || u == '\\')
                add("\\%c", *c);
            else if (u < 0x20 || u == 0x7f)
                add("\\x%02x", u);
            else
                add("%c", *c);
        }
        add("\"");
    }
};

} // namespace

std::size_t format_board(const BoardTable& t, char* buf, std::size_t cap) {
    Text o{buf, cap, 0};
    if (buf && cap) buf[0] = '\0';
    o.add("board %s line=%d title=", t.name, t.line);
    o.quoted(t.title);
    o.add(" file=");
    o.quoted(t.file);
    o.add(" cc=%d.%d sms=%d regs_per_block=%d shared_per_block=%d cpu_fp16=%s source=", t.cc_major,
          t.cc_minor, t.sm_count, t.regs_per_block, t.shared_per_block, t.cpu_fp16 ? "yes" : "no");
    o.quoted(t.source);
    o.add("\n");
    for (int i = 0; i < t.algorithm_count; ++i) {
        const AlgorithmDefaults& a = t.algorithms[i];
        o.add("algorithm %s line=%d auto_precision=%s source=", algorithm_name(a.algorithm), a.line,
              precision_name(a.auto_precision));
        o.quoted(a.source);
        o.add("\n");
    }
    for (int i = 0; i < t.row_count; ++i) {
        const TuningRow& r = t.rows[i];
        const char* an = algorithm_name(r.algorithm);
        const char* pn = precision_name(r.precision);
        o.add("precision %s %s line=%d\n", an, pn, r.line);
        o.add("crossover %s %s line=%d area=%llu per_level=%s source=", an, pn, r.crossover_line,
              static_cast<unsigned long long>(r.crossover_area), r.crossover_per_level ? "yes" : "no");
        o.quoted(r.crossover_source);
        o.add("\n");
        for (int k = 0; k < kPathCount; ++k) {
            const PathCost& c = r.path[k];
            o.add("path %s %s %s line=%d arith=%s ns_per_it_px=%.17g warn=%.17g fail=%.17g frame_us=%.17g "
                  "frame_ns_per_px=%.17g launch_us=%.17g level_us=%.17g ref_ns_per_it_px=%.17g "
                  "ref_frame_ns_per_px=%.17g source=",
                  an, pn, path_name(static_cast<Path>(k)), c.line, precision_name(c.arith), c.ns_per_it_px,
                  c.warn, c.fail, c.frame_us, c.frame_ns_per_px, c.launch_us, c.level_us, c.ref_ns_per_it_px,
                  c.ref_frame_ns_per_px);
            o.quoted(c.source);
            o.add("\n");
        }
        for (int k = 0; k < r.launch_count; ++k) {
            const LaunchRow& l = r.launches[k];
            o.add("launch %s %s %s %s line=%d rank=%d block=%dx%d rows=%d grid=%d depth=%d bound=%d source=", an,
                  pn, variant_name(l.variant), bucket_name(l.bucket), l.line, l.rank, l.block_w,
                  l.block_h, l.rows, l.grid, l.depth, l.bound);
            o.quoted(l.source);
            o.add("\n");
        }
    }
    return o.len;
}

} // namespace platform
} // namespace oflow
