// The compiled-in tables equal the XML, checked independently of the schema reader: this test
// walks platform/tables/*.xml with tinyxml2 itself and compares every attribute's text with
// the compiled field (numbers read back exactly, strings byte for byte, element lines), and
// every element count. Built where tinyxml2 exists for the target (host builds; cross builds
// with libtinyxml2-dev:arm64).
//   platform_xml_match REPOSITORY_ROOT
#include "check.hpp"
#include "platform/tuning.hpp"

#include <tinyxml2.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace oflow::platform;
using tinyxml2::XMLDocument;
using tinyxml2::XMLElement;

namespace {

std::string attr(const XMLElement* e, const char* name) {
    const char* v = e->Attribute(name);
    CHECK_MSG(v != nullptr, "line %d: <%s> has no %s", e->GetLineNum(), e->Name(), name);
    return v ? v : "";
}

bool same_int(const XMLElement* e, const char* name, long long value) {
    return attr(e, name) == std::to_string(value);
}

bool same_real(const XMLElement* e, const char* name, double value) {
    const std::string s = attr(e, name);
    return std::strtod(s.c_str(), nullptr) == value;
}

bool same_text(const XMLElement* e, const char* name, const char* value) { return value && attr(e, name) == value; }

// An optional number: absent means 0.
bool same_optional(const XMLElement* e, const char* name, double value) {
    const char* v = e->Attribute(name);
    return v ? std::strtod(v, nullptr) == value : value == 0.0;
}

int count(const XMLElement* parent, const char* child) {
    int n = 0;
    for (const XMLElement* c = parent->FirstChildElement(child); c; c = c->NextSiblingElement(child)) ++n;
    return n;
}

void compare(const BoardTable& t, const std::string& root) {
    const std::string path = root + "/" + t.file;
    XMLDocument doc;
    CHECK_MSG(doc.LoadFile(path.c_str()) == tinyxml2::XML_SUCCESS, "%s: %s", path.c_str(), doc.ErrorStr());
    const XMLElement* top = doc.RootElement();
    if (!top) return;
    const XMLElement* b = top->FirstChildElement("board");
    CHECK(b != nullptr && count(top, "board") == 1);
    if (!b) return;
    char cc[16];
    std::snprintf(cc, sizeof cc, "%d.%d", t.cc_major, t.cc_minor);
    CHECK_MSG(same_text(b, "name", t.name) && same_text(b, "title", t.title) && attr(b, "cc") == cc &&
                  same_int(b, "sms", t.sm_count) && same_int(b, "regs_per_block", t.regs_per_block) &&
                  same_int(b, "shared_per_block", t.shared_per_block) &&
                  attr(b, "cpu_fp16") == (t.cpu_fp16 ? "yes" : "no") && same_text(b, "source", t.source) &&
                  b->GetLineNum() == t.line,
              "%s: <board>", t.file);

    CHECK_MSG(count(top, "algorithm") == t.algorithm_count, "%s: algorithm count", t.file);
    int rows_seen = 0;
    for (const XMLElement* a = top->FirstChildElement("algorithm"); a; a = a->NextSiblingElement("algorithm")) {
        const std::string an = attr(a, "name");
        const AlgorithmDefaults* d = nullptr;
        for (int i = 0; i < t.algorithm_count; ++i)
            if (an == algorithm_name(t.algorithms[i].algorithm)) d = &t.algorithms[i];
        CHECK_MSG(d != nullptr, "%s:%d: algorithm %s not compiled in", t.file, a->GetLineNum(), an.c_str());
        if (!d) continue;
        CHECK_MSG(attr(a, "auto_precision") == precision_name(d->auto_precision) && same_text(a, "source", d->source) &&
                      a->GetLineNum() == d->line,
                  "%s:%d: <algorithm>", t.file, a->GetLineNum());
        for (const XMLElement* p = a->FirstChildElement("precision"); p; p = p->NextSiblingElement("precision")) {
            ++rows_seen;
            const std::string pn = attr(p, "name");
            const TuningRow* row = nullptr;
            for (int i = 0; i < t.row_count; ++i)
                if (an == algorithm_name(t.rows[i].algorithm) && pn == precision_name(t.rows[i].precision))
                    row = &t.rows[i];
            CHECK_MSG(row != nullptr && row->line == p->GetLineNum(), "%s:%d: <precision %s>", t.file, p->GetLineNum(),
                      pn.c_str());
            if (!row) continue;
            const XMLElement* x = p->FirstChildElement("crossover");
            CHECK(x != nullptr && count(p, "crossover") == 1);
            if (x)
                CHECK_MSG(attr(x, "area") == std::to_string(row->crossover_area) &&
                              attr(x, "per_level") == (row->crossover_per_level ? "yes" : "no") &&
                              same_text(x, "source", row->crossover_source) && x->GetLineNum() == row->crossover_line,
                          "%s:%d: <crossover>", t.file, x->GetLineNum());
            CHECK(count(p, "path") == kPathCount);
            for (const XMLElement* c = p->FirstChildElement("path"); c; c = c->NextSiblingElement("path")) {
                const std::string kind = attr(c, "kind");
                const PathCost& pc = row->path[kind == "gpu" ? kPathGpu : kPathCpu];
                CHECK_MSG(attr(c, "arith") == precision_name(pc.arith) && same_real(c, "ns_per_it_px", pc.ns_per_it_px) &&
                              same_real(c, "warn", pc.warn) && same_real(c, "fail", pc.fail) &&
                              same_optional(c, "frame_us", pc.frame_us) &&
                              same_optional(c, "frame_ns_per_px", pc.frame_ns_per_px) &&
                              same_optional(c, "launch_us", pc.launch_us) &&
                              same_optional(c, "level_us", pc.level_us) &&
                              same_optional(c, "ref_ns_per_it_px", pc.ref_ns_per_it_px) &&
                              same_optional(c, "ref_frame_ns_per_px", pc.ref_frame_ns_per_px) &&
                              same_text(c, "source", pc.source) && c->GetLineNum() == pc.line,
                          "%s:%d: <path>", t.file, c->GetLineNum());
            }
            CHECK_MSG(count(p, "launch") == row->launch_count, "%s:%d: launch count", t.file, p->GetLineNum());
            for (const XMLElement* l = p->FirstChildElement("launch"); l; l = l->NextSiblingElement("launch")) {
                const LaunchRow* lr = nullptr;
                for (int i = 0; i < row->launch_count; ++i)
                    if (attr(l, "variant") == variant_name(row->launches[i].variant) &&
                        attr(l, "bucket") == bucket_name(row->launches[i].bucket))
                        lr = &row->launches[i];
                CHECK_MSG(lr != nullptr, "%s:%d: <launch> not compiled in", t.file, l->GetLineNum());
                if (!lr) continue;
                CHECK_MSG(same_int(l, "rank", lr->rank) && same_int(l, "block_w", lr->block_w) &&
                              same_int(l, "block_h", lr->block_h) && same_int(l, "rows", lr->rows) &&
                              same_int(l, "grid", lr->grid) && same_int(l, "depth", lr->depth) &&
                              (l->Attribute("bound") ? same_int(l, "bound", lr->bound) : lr->bound == 0) &&
                              same_text(l, "source", lr->source) && l->GetLineNum() == lr->line,
                          "%s:%d: <launch>", t.file, l->GetLineNum());
            }
        }
    }
    CHECK_MSG(rows_seen == t.row_count, "%s: %d <precision> elements, %d rows compiled", t.file, rows_seen, t.row_count);
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: platform_xml_match REPOSITORY_ROOT\n");
        return 1;
    }
    const TableSet set = builtin_tables();
    CHECK(set.count == 5);
    for (int i = 0; i < set.count; ++i) compare(*set.boards[i], argv[1]);
    return oftest::finish("platform_xml_match");
}
