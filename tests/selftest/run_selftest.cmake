# Runs oflow-selftest for a CTest test (tests/selftest/CMakeLists.txt):
#   cmake -DTOOL=oflow-selftest [-DEMULATOR=program|arg|...] -DARGS=a|b|... -P run_selftest.cmake
# When the suite forces a CPU path (OFLOW_FORCE_BACKEND=reference or neon: the emulated aarch64
# suites run once per path), the self-test runs that path alone (--backend): the other path has
# its own suite run. Otherwise every path (--backend auto). Fails unless the tool exits 0; its
# exit status 77 prints "oflow-selftest: skipped (77)", which the test's SKIP_REGULAR_EXPRESSION
# reports as a skip (cmake -P cannot exit 77 itself).
cmake_minimum_required(VERSION 3.18)
string(REPLACE "|" ";" EMULATOR "${EMULATOR}")
string(REPLACE "|" ";" ARGS "${ARGS}")
set(backend auto)
if("$ENV{OFLOW_FORCE_BACKEND}" STREQUAL "reference" OR "$ENV{OFLOW_FORCE_BACKEND}" STREQUAL "neon")
  set(backend "$ENV{OFLOW_FORCE_BACKEND}")
endif()
execute_process(COMMAND ${EMULATOR} "${TOOL}" --backend ${backend} ${ARGS} RESULT_VARIABLE rc)
if(rc EQUAL 77)
  message(STATUS "oflow-selftest: skipped (77)")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "oflow-selftest --backend ${backend}: exit status ${rc}")
else()
  message(STATUS "oflow-selftest --backend ${backend}: exit status 0")
endif()
