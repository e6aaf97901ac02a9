// oflow-selftest's outputs: the human table, the JUnit XML report (tinyxml2) and the JSON
// report, from an of_selftest_report whose first `stored` cases are filled.
//
// JUnit layout: <testsuites> holds one <testsuite> per path ("reference/f32", "cuda" for the
// device cases), each case a <testcase classname="<path>.<group>" name="<check>"> with
// <failure> (failed), <skipped> (skipped) or nothing (passed); a warning passes with its
// message in <system-out> prefixed "WARN". Every case carries <properties> result, value and
// limit. Counts on the elements: tests, failures, skipped, time.
#ifndef OFLOW_SAMPLES_SELFTEST_REPORT_HPP
#define OFLOW_SAMPLES_SELFTEST_REPORT_HPP

#include "oflow.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>

void print_table(std::FILE* out, const of_selftest_report& rep, uint32_t stored);
/// false with why filled when the file cannot be written or the build has no tinyxml2.
bool write_junit(const char* path, const of_selftest_report& rep, uint32_t stored, char* why, std::size_t why_len);
bool write_json(const char* path, const of_selftest_report& rep, uint32_t stored, char* why, std::size_t why_len);

/// "PASS", "WARN", "FAIL", "SKIP".
const char* result_name(of_check_result r);

/// Splits "a/b/c/d" into suite "a/b", group "c", check "d" (three parts: "a", "b", "c").
void split_case_name(const char* name, char* suite, std::size_t suite_len, char* group, std::size_t group_len, char* check,
                     std::size_t check_len);

#endif
