# oflow-tune --dry-run end to end (tests/tune/CMakeLists.txt):
#   cmake -DTUNE=oflow-tune -DGEN=oflow-tablegen -DROOT=REPO -DWORK=DIR [-DEMULATOR=a|b] -P check_dry_run.cmake
# 1. a full dry run writes a table; oflow-tablegen --check accepts it, and generates the C++
#    tables from it together with platform/tables/*.xml (the build's own step);
# 2. every element that carries numbers says where they came from (here: the model);
# 3. --quick without --base fills bucket "larger" from 2048 and says so; with --base generic
#    the rows it did not time are copied and say so; both pass the generator; a base algorithm
#    this board cannot hold is left out and named;
# 4. bad usage exits 2 and writes nothing.
cmake_minimum_required(VERSION 3.18)
string(REPLACE "|" ";" emulator "${EMULATOR}")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(tune expect_rc)
  execute_process(COMMAND ${emulator} "${TUNE}" ${ARGN} WORKING_DIRECTORY "${WORK}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "oflow-tune ${ARGN}: exit ${rc}, expected ${expect_rc}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  set(tune_out "${out}" PARENT_SCOPE)
  set(tune_err "${err}" PARENT_SCOPE)
endfunction()

function(tablegen_check file)
  execute_process(COMMAND "${GEN}" --check "${file}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL "")
    message(FATAL_ERROR "oflow-tablegen --check ${file}: exit ${rc}: ${out}")
  endif()
endfunction()

# The build's generation step (platform/CMakeLists.txt) with the written table added to the set.
function(tablegen_generate file name)
  file(GLOB tables "${ROOT}/platform/tables/*.xml")
  execute_process(COMMAND "${GEN}" --root "${ROOT}" --cpp "${WORK}/${name}.cpp" --dump "${WORK}/${name}.txt" ${tables} "${file}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "oflow-tablegen generation with ${file}: exit ${rc}: ${out}")
  endif()
  file(READ "${WORK}/${name}.cpp" cpp)
  string(FIND "${cpp}" "const BoardTable k_${name} = {" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the generated tables have no k_${name}")
  endif()
  file(READ "${WORK}/${name}.txt" dump)
  string(FIND "${dump}" "${name}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the canonical text has no board ${name}")
  endif()
endfunction()

function(expect_in text what where)
  string(FIND "${text}" "${what}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${where}: expected to contain '${what}'")
  endif()
endfunction()

# ---- 1. a full dry run ----------------------------------------------------------------------------
tune(0 --dry-run --name tuned_ci --out tuned_ci.xml --csv timings.csv)
expect_in("${tune_out}" "Wrote tuned_ci.xml" "stdout")
expect_in("${tune_out}" "Summary" "stdout")
tablegen_check("${WORK}/tuned_ci.xml")
tablegen_generate("${WORK}/tuned_ci.xml" tuned_ci)
file(STRINGS "${WORK}/timings.csv" csv)
list(LENGTH csv csv_lines)
# header + 5 buckets x (32 F32 + 86 F16 shapes)
if(NOT csv_lines EQUAL 591)
  message(FATAL_ERROR "timings.csv: ${csv_lines} lines, expected 591")
endif()

# ---- 2. provenance ------------------------------------------------------------------------------
file(READ "${WORK}/tuned_ci.xml" xml)
string(REPLACE ";" "," xml "${xml}") # no CMake list separators inside the matches
foreach(el board crossover path launch)
  string(REGEX MATCHALL "<${el} [^>]*>" all "${xml}")
  list(LENGTH all n)
  if(n EQUAL 0)
    message(FATAL_ERROR "tuned_ci.xml: no <${el}>")
  endif()
  foreach(e ${all})
    if(NOT e MATCHES "source=\"DRY RUN, modelled \\(not measured\\) for [^\"]*, oflow-tune --dry-run, [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]")
      message(FATAL_ERROR "tuned_ci.xml: an element without the model's provenance: ${e}")
    endif()
    if(NOT el STREQUAL "board" AND NOT e MATCHES "median of [0-9]+")
      message(FATAL_ERROR "tuned_ci.xml: no 'median of N' in: ${e}")
    endif()
  endforeach()
  set(count_${el} ${n})
endforeach()
# 2 precisions x 5 buckets x 3 variants; 2 paths and a crossover per precision.
if(NOT count_launch EQUAL 30 OR NOT count_path EQUAL 4 OR NOT count_crossover EQUAL 2 OR NOT count_board EQUAL 1)
  message(FATAL_ERROR "tuned_ci.xml: ${count_launch} launch, ${count_path} path, ${count_crossover} crossover rows")
endif()
expect_in("${xml}" "warn = max(1.5, 1.2 x p90/median" "tuned_ci.xml")
expect_in("${xml}" "multi_iter: 32x" "tuned_ci.xml (the top shapes per variant)")

# ---- 3. --quick, without and with --base ----------------------------------------------------------
tune(0 --dry-run --quick --name quick --out quick.xml)
file(READ "${WORK}/quick.xml" xml)
expect_in("${xml}" "written for bucket larger from the 2048x2048 timing" "quick.xml")
tablegen_check("${WORK}/quick.xml")
tablegen_generate("${WORK}/quick.xml" quick)

tune(0 --dry-run --quick --base generic --name based --out based.xml)
file(READ "${WORK}/based.xml" xml)
expect_in("${xml}" "copied from platform/tables/generic.xml: " "based.xml")
expect_in("${xml}" "rows copied from platform/tables/generic.xml" "based.xml")
tablegen_check("${WORK}/based.xml")
tablegen_generate("${WORK}/based.xml" based)

# A base with another algorithm whose CPU rows need FP16 (xavier's hs): the model CPU has none,
# so it stays out and the header says why.
tune(0 --dry-run --quick --base xavier --name from_xavier --out from_xavier.xml)
file(READ "${WORK}/from_xavier.xml" xml)
expect_in("${xml}" "hs: not copied from platform/tables/xavier.xml: its CPU rows compute in F16" "from_xavier.xml")
tablegen_check("${WORK}/from_xavier.xml")

# ---- 4. bad usage -----------------------------------------------------------------------------------
tune(2 --dry-run --name Bad --out bad.xml)
expect_in("${tune_err}" "--name Bad" "stderr")
tune(2 --dry-run --base no_such_board --out bad.xml)
expect_in("${tune_err}" "no built-in table of that name" "stderr")
tune(2 --dry-run --frobnicate)
tune(2 --dry-run --out)
if(EXISTS "${WORK}/bad.xml")
  message(FATAL_ERROR "oflow-tune wrote bad.xml despite bad usage")
endif()
message(STATUS "oflow-tune --dry-run: tables accepted by oflow-tablegen")
