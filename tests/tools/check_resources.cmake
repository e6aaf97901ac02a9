# Runs oflow-jetson-resources on one fixture report and checks its verdict (tests/CMakeLists.txt):
#   cmake -DTOOL=oflow-jetson-resources -DREPORT=data/x.txt -DRC=N [-DEXPECT=TEXT] [-DEMULATOR=p|a]
#         -P check_resources.cmake
# The exit status must be RC, and stdout + stderr must contain EXPECT when given. EMULATOR:
# program|arg|... that runs the tool in cross builds (qemu-aarch64|-L|<root>).
cmake_minimum_required(VERSION 3.18)
string(REPLACE "|" ";" EMULATOR "${EMULATOR}")
execute_process(COMMAND ${EMULATOR} "${TOOL}" "${REPORT}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc STREQUAL "${RC}")
  message(FATAL_ERROR "oflow-jetson-resources ${REPORT}: exit status ${rc}, expected ${RC}:\n${out}")
endif()
if(DEFINED EXPECT)
  string(FIND "${out}" "${EXPECT}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "oflow-jetson-resources ${REPORT}: no '${EXPECT}' in:\n${out}")
  endif()
endif()
message(STATUS "oflow-jetson-resources ${REPORT}: exit ${rc} as expected")
