#include "selftest_report.hpp"

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#if OF_SELFTEST_HAVE_TINYXML2
#include <tinyxml2.h>
#endif

const char* result_name(of_check_result r) {
    switch (r) {
    case OF_CHECK_PASS: return "PASS";
    case OF_CHECK_WARN: return "WARN";
    case OF_CHECK_FAIL: return "FAIL";
    default: return "SKIP";
    }
}

void split_case_name(const char* name, char* suite, std::size_t suite_len, char* group, std::size_t group_len, char* check,
                     std::size_t check_len) {
    const char* last = std::strrchr(name, '/');
    if (!last) {
        std::snprintf(suite, suite_len, "oflow");
        std::snprintf(group, group_len, "case");
        std::snprintf(check, check_len, "%s", name);
        return;
    }
    std::snprintf(check, check_len, "%s", last + 1);
    const std::string head(name, static_cast<std::size_t>(last - name));
    const std::size_t prev = head.rfind('/');
    if (prev == std::string::npos) {
        std::snprintf(suite, suite_len, "oflow");
        std::snprintf(group, group_len, "%s", head.c_str());
        return;
    }
    std::snprintf(suite, suite_len, "%s", head.substr(0, prev).c_str());
    std::snprintf(group, group_len, "%s", head.substr(prev + 1).c_str());
}

void print_table(std::FILE* out, const of_selftest_report& rep, uint32_t stored) {
    std::fprintf(out, "%-44s %-4s %11s %11s %8s  %s\n", "case", "res", "value", "limit", "time s", "message");
    for (uint32_t i = 0; i < stored; ++i) {
        const of_selftest_case& c = rep.cases[i];
        std::fprintf(out, "%-44s %-4s %11.4g %11.4g %8.3f  %s\n", c.name, result_name(c.result), c.value, c.limit, c.seconds,
                     c.message);
    }
    if (stored < rep.case_count) std::fprintf(out, "(%u more cases not stored)\n", rep.case_count - stored);
    if (rep.board[0]) std::fprintf(out, "board table: %s\n", rep.board);
}

#if OF_SELFTEST_HAVE_TINYXML2
bool write_junit(const char* path, const of_selftest_report& rep, uint32_t stored, char* why, std::size_t why_len) {
    using namespace tinyxml2;
    XMLDocument doc;
    doc.InsertEndChild(doc.NewDeclaration());
    XMLElement* root = doc.NewElement("testsuites");
    root->SetAttribute("name", "oflow-selftest");
    root->SetAttribute("tests", stored);
    root->SetAttribute("time", rep.seconds);
    doc.InsertEndChild(root);
    struct Suite {
        std::string name;
        XMLElement* el;
        unsigned tests, failures, skipped;
        double time;
    };
    std::vector<Suite> suites;
    unsigned failures = 0, skipped = 0;
    for (uint32_t i = 0; i < stored; ++i) {
        const of_selftest_case& c = rep.cases[i];
        char suite[64], group[32], check[64];
        split_case_name(c.name, suite, sizeof suite, group, sizeof group, check, sizeof check);
        Suite* s = nullptr;
        for (Suite& x : suites)
            if (x.name == suite) s = &x;
        if (!s) {
            XMLElement* e = doc.NewElement("testsuite");
            e->SetAttribute("name", suite);
            root->InsertEndChild(e);
            suites.push_back(Suite{suite, e, 0, 0, 0, 0.0});
            s = &suites.back();
        }
        XMLElement* tc = doc.NewElement("testcase");
        tc->SetAttribute("classname", (std::string(suite) + "." + group).c_str());
        tc->SetAttribute("name", check);
        tc->SetAttribute("time", c.seconds);
        XMLElement* props = doc.NewElement("properties");
        const auto prop = [&](const char* n, const char* v) {
            XMLElement* p = doc.NewElement("property");
            p->SetAttribute("name", n);
            p->SetAttribute("value", v);
            props->InsertEndChild(p);
        };
        char num[32];
        prop("result", result_name(c.result));
        std::snprintf(num, sizeof num, "%.6g", c.value);
        prop("value", num);
        std::snprintf(num, sizeof num, "%.6g", c.limit);
        prop("limit", num);
        tc->InsertEndChild(props);
        if (c.result == OF_CHECK_FAIL) {
            XMLElement* f = doc.NewElement("failure");
            f->SetAttribute("message", c.message);
            tc->InsertEndChild(f);
            ++s->failures;
            ++failures;
        } else if (c.result == OF_CHECK_SKIP) {
            XMLElement* k = doc.NewElement("skipped");
            k->SetAttribute("message", c.message);
            tc->InsertEndChild(k);
            ++s->skipped;
            ++skipped;
        } else {
            XMLElement* o = doc.NewElement("system-out");
            o->SetText((std::string(c.result == OF_CHECK_WARN ? "WARN: " : "") + c.message).c_str());
            tc->InsertEndChild(o);
        }
        ++s->tests;
        s->time += c.seconds;
        s->el->InsertEndChild(tc);
    }
    for (Suite& s : suites) {
        s.el->SetAttribute("tests", s.tests);
        s.el->SetAttribute("failures", s.failures);
        s.el->SetAttribute("skipped", s.skipped);
        s.el->SetAttribute("time", s.time);
    }
    root->SetAttribute("failures", failures);
    root->SetAttribute("skipped", skipped);
    if (doc.SaveFile(path) != XML_SUCCESS) {
        std::snprintf(why, why_len, "cannot write %s: %s", path, doc.ErrorStr());
        return false;
    }
    return true;
}
#else
bool write_junit(const char* path, const of_selftest_report&, uint32_t, char* why, std::size_t why_len) {
    std::snprintf(why, why_len, "cannot write %s: this oflow-selftest was built without tinyxml2 (--junit unavailable)", path);
    return false;
}
#endif

namespace {
std::string json_str(const char* s) {
    std::string o = "\"";
    for (const char* p = s; *p; ++p) {
        const unsigned char ch = static_cast<unsigned char>(*p);
        if (ch == '"' || ch == '\\') {
            o += '\\';
            o += static_cast<char>(ch);
        } else if (ch < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", ch);
            o += b;
        } else {
            o += static_cast<char>(ch);
        }
    }
    return o + "\"";
}
// A JSON number, or null for NaN and infinities (which JSON cannot hold).
std::string json_num(double v) {
    if (!(v == v) || v > 1.7e308 || v < -1.7e308) return "null";
    char b[32];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
}
} // namespace

bool write_json(const char* path, const of_selftest_report& rep, uint32_t stored, char* why, std::size_t why_len) {
    std::FILE* f = std::fopen(path, "w");
    if (!f) {
        std::snprintf(why, why_len, "cannot write %s: %s", path, std::strerror(errno));
        return false;
    }
    std::fprintf(f, "{\n  \"summary\": %s,\n  \"board\": %s,\n  \"cases_run\": %u, \"passed\": %u, \"warned\": %u, \"failed\": %u, "
                    "\"skipped\": %u, \"seconds\": %.4f,\n  \"cases\": [\n",
                 json_str(rep.summary).c_str(), json_str(rep.board).c_str(), rep.case_count, rep.passed, rep.warned, rep.failed,
                 rep.skipped, rep.seconds);
    for (uint32_t i = 0; i < stored; ++i) {
        const of_selftest_case& c = rep.cases[i];
        std::fprintf(f, "    {\"name\": %s, \"group\": %s, \"result\": \"%s\", \"value\": %s, \"limit\": %s, \"seconds\": %.4f, "
                        "\"message\": %s}%s\n",
                     json_str(c.name).c_str(), json_str(c.group).c_str(), result_name(c.result), json_num(c.value).c_str(),
                     json_num(c.limit).c_str(), c.seconds, json_str(c.message).c_str(), i + 1 < stored ? "," : "");
    }
    std::fprintf(f, "  ]\n}\n");
    const bool ok = std::fclose(f) == 0;
    if (!ok) std::snprintf(why, why_len, "cannot write %s: %s", path, std::strerror(errno));
    return ok;
}
