// Parses oflow-selftest's JUnit report back (tinyxml2) and checks it against the JSON report
// of the same run: one <testcase> per case, the failure/skipped counts on <testsuites> and on
// each <testsuite> agree with its children, names are "<path>.<group>" + check.
// Usage: junit_check REPORT.xml REPORT.json
#include "check.hpp"

#include <tinyxml2.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: junit_check REPORT.xml REPORT.json\n");
        return 1;
    }
    tinyxml2::XMLDocument doc;
    CHECK_MSG(doc.LoadFile(argv[1]) == tinyxml2::XML_SUCCESS, "%s: %s", argv[1], doc.ErrorStr());
    const tinyxml2::XMLElement* root = doc.FirstChildElement("testsuites");
    CHECK(root != nullptr);
    if (!root) return oftest::finish("junit_check");
    unsigned cases = 0, failures = 0, skipped = 0, suites = 0;
    for (const tinyxml2::XMLElement* s = root->FirstChildElement("testsuite"); s; s = s->NextSiblingElement("testsuite")) {
        ++suites;
        unsigned n = 0, f = 0, k = 0;
        const char* sname = s->Attribute("name");
        CHECK(sname && *sname);
        for (const tinyxml2::XMLElement* c = s->FirstChildElement("testcase"); c; c = c->NextSiblingElement("testcase")) {
            ++n;
            const char* cls = c->Attribute("classname");
            CHECK(cls && sname && std::strncmp(cls, sname, std::strlen(sname)) == 0 && cls[std::strlen(sname)] == '.');
            CHECK(c->Attribute("name") && c->DoubleAttribute("time", -1.0) >= 0.0);
            const tinyxml2::XMLElement* props = c->FirstChildElement("properties");
            CHECK(props && props->FirstChildElement("property"));
            if (c->FirstChildElement("failure")) ++f;
            if (c->FirstChildElement("skipped")) ++k;
        }
        CHECK(s->UnsignedAttribute("tests") == n);
        CHECK(s->UnsignedAttribute("failures") == f);
        CHECK(s->UnsignedAttribute("skipped") == k);
        cases += n;
        failures += f;
        skipped += k;
    }
    CHECK(suites >= 1);
    CHECK(root->UnsignedAttribute("tests") == cases);
    CHECK(root->UnsignedAttribute("failures") == failures);
    CHECK(root->UnsignedAttribute("skipped") == skipped);

    // The JSON report of the same run: "cases_run" and "failed".
    std::FILE* f = std::fopen(argv[2], "r");
    CHECK_MSG(f != nullptr, "cannot read %s", argv[2]);
    if (f) {
        std::string js;
        char buf[4096];
        std::size_t got;
        while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) js.append(buf, got);
        std::fclose(f);
        const std::size_t a = js.find("\"cases_run\": "), b = js.find("\"failed\": ");
        CHECK(a != std::string::npos && b != std::string::npos);
        if (a != std::string::npos) CHECK(std::strtoul(js.c_str() + a + 13, nullptr, 10) == cases);
        if (b != std::string::npos) CHECK(std::strtoul(js.c_str() + b + 10, nullptr, 10) == failures);
    }
    std::printf("junit_check: %u suites, %u cases, %u failures, %u skipped\n", suites, cases, failures, skipped);
    return oftest::finish("junit_check");
}
