# oflow-tune --dry-run end to end (tests/tune/CMakeLists.txt):
#   cmake -DTUNE=oflow-tune -DGEN=oflow-tablegen -DROOT=REPO -DWORK=DIR [-DEMULATOR=a|b] [-DTINYXML2=ON]
#         -P check_dry_run.cmake
# 1. a full dry run writes a table with tvl1, hs and clg; oflow-tablegen --check accepts it, and
#    generates the C++ tables from it together with platform/tables/*.xml (the build's own step);
# 2. every element that carries numbers says where they came from (here: the model); each
#    algorithm has its rows (HS / CLG: the Jacobi kernels' shapes; CLG's say they are HS's below
#    the largest bucket and were checked on CLG at it);
# 3. --quick without --base fills bucket "larger" from 2048 and says so; with --base generic
#    the rows it did not time are copied and say so; both pass the generator; with --base
#    xavier the HS / CLG rows are timed, xavier's auto_precision kept and its larger rows copied
#    (CLG F16, which xavier lacks, from 2048); a base algorithm the run does not learn and this
#    board cannot hold is left out and named (builds that read table files: TINYXML2);
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
# header + 5 buckets x (tvl1: 32 F32 + 86 F16 shapes; hs: 37 + 37) + clg at 4096^2 only: hs's 3
# best shapes of each of 3 variants per precision (9 + 9); clg's other buckets are hs's lines
if(NOT csv_lines EQUAL 979)
  message(FATAL_ERROR "timings.csv: ${csv_lines} lines, expected 979")
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
# 3 algorithms x 2 precisions x 5 buckets x 3 variants; 2 paths and a crossover per precision.
if(NOT count_launch EQUAL 90 OR NOT count_path EQUAL 12 OR NOT count_crossover EQUAL 6 OR NOT count_board EQUAL 1)
  message(FATAL_ERROR "tuned_ci.xml: ${count_launch} launch, ${count_path} path, ${count_crossover} crossover rows")
endif()
expect_in("${xml}" "warn = max(1.5, 1.2 x p90/median" "tuned_ci.xml")
expect_in("${xml}" "multi_iter: 32x" "tuned_ci.xml (the top shapes per variant)")

# The text of <algorithm name="NAME"> up to the next algorithm (or the end) into OUT.
function(algorithm_text xml name out)
  string(FIND "${xml}" "<algorithm name=\"${name}\"" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "no <algorithm name=\"${name}\">")
  endif()
  string(SUBSTRING "${xml}" ${at} -1 rest)
  string(FIND "${rest}" "</algorithm>" end)
  string(SUBSTRING "${rest}" 0 ${end} text)
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Each algorithm: 2 precisions x 5 buckets x 3 variants, 2 paths and a crossover per precision,
# every number the model's; HS / CLG rows within the Jacobi kernels' limits (1..8 warps, the
# built-in 8 rows, depth <= 12).
foreach(algo tvl1 hs clg)
  algorithm_text("${xml}" ${algo} text)
  foreach(el crossover path launch)
    string(REGEX MATCHALL "<${el} [^>]*>" all "${text}")
    list(LENGTH all n_${el})
    foreach(e ${all})
      if(NOT e MATCHES "source=\"DRY RUN, modelled \\(not measured\\) for ")
        message(FATAL_ERROR "tuned_ci.xml ${algo}: an element without the model's provenance: ${e}")
      endif()
    endforeach()
  endforeach()
  if(NOT n_launch EQUAL 30 OR NOT n_path EQUAL 4 OR NOT n_crossover EQUAL 2)
    message(FATAL_ERROR "tuned_ci.xml ${algo}: ${n_launch} launch, ${n_path} path, ${n_crossover} crossover rows")
  endif()
  if(NOT algo STREQUAL "tvl1")
    string(REGEX MATCHALL "<launch variant=\"(fused|multi_iter)\"[^>]*>" tiled "${text}")
    foreach(e ${tiled})
      if(NOT e MATCHES "block_w=\"32\" block_h=\"[1-8]\"")
        message(FATAL_ERROR "tuned_ci.xml ${algo}: a row the HS Jacobi kernels cannot take: ${e}")
      endif()
      if(e MATCHES "variant=\"multi_iter\"" AND NOT e MATCHES "rows=\"8\" grid=\"0\" depth=\"([2-9]|1[0-2])\"")
        message(FATAL_ERROR "tuned_ci.xml ${algo}: a MULTI_ITER row off the shapes tried: ${e}")
      endif()
    endforeach()
  endif()
endforeach()
# (";" reads "," here: the list separators were replaced above.)
algorithm_text("${xml}" clg clg)
expect_in("${clg}" "hs&apos,s timing: CLG iterates the same kernels" "tuned_ci.xml clg (rows below the largest bucket)")
expect_in("${clg}" "the shapes tried: hs&apos,s 3 best of the variant here" "tuned_ci.xml clg (bucket larger)")

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

# A base with hs and clg (xavier: its hs CPU rows compute in F16, its clg has no F16): both are
# learned here (the model CPU runs F32), xavier's auto_precision kept, its larger rows copied,
# and clg f16's larger bucket repeats 2048's timing.
tune(0 --dry-run --quick --base xavier --name from_xavier --out from_xavier.xml)
file(READ "${WORK}/from_xavier.xml" xml)
algorithm_text("${xml}" hs hs)
expect_in("${hs}" "<algorithm name=\"hs\" auto_precision=\"f16\"" "from_xavier.xml hs")
expect_in("${hs}" "auto_precision copied from platform/tables/xavier.xml" "from_xavier.xml hs")
expect_in("${hs}" "rows copied from platform/tables/xavier.xml" "from_xavier.xml hs")
expect_in("${hs}" "<path kind=\"cpu\" arith=\"f32\"" "from_xavier.xml hs (the CPU path measured)")
algorithm_text("${xml}" clg clg)
expect_in("${clg}" "written for bucket larger from the 2048x2048 timing" "from_xavier.xml clg")
tablegen_check("${WORK}/from_xavier.xml")
tablegen_generate("${WORK}/from_xavier.xml" from_xavier)

# A base algorithm the run does not learn, whose CPU rows need FP16 (xavier's hs renamed lk, its
# own lk entry, F32 only, taken out first): the model CPU has none, so it stays out and the header
# says why. Table files need TINYXML2.
if(TINYXML2)
  file(READ "${ROOT}/platform/tables/xavier.xml" base)
  string(FIND "${base}" "  <algorithm name=\"lk\"" _lk)
  if(NOT _lk EQUAL -1) # xavier's own lk entry is its last: cut it
    string(SUBSTRING "${base}" 0 ${_lk} base)
    string(APPEND base "</oflow-tuning>\n")
  endif()
  string(REPLACE "<algorithm name=\"hs\"" "<algorithm name=\"lk\"" base "${base}")
  file(WRITE "${WORK}/xavier_lk.xml" "${base}")
  tune(0 --dry-run --quick --base xavier_lk.xml --name from_lk --out from_lk.xml)
  file(READ "${WORK}/from_lk.xml" xml)
  expect_in("${xml}" "lk: not copied from xavier_lk.xml: its CPU rows compute in F16" "from_lk.xml")
  tablegen_check("${WORK}/from_lk.xml")
endif()

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
