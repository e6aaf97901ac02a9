# Every of_config field has an oflow-cli flag, and the flag reaches the config.
#   cmake -DCLI=oflow-cli -DHEADER=api/oflow.h [-DTUNING_FILE=table.xml] [-DEMULATOR=p|a]
#         -P config_coverage.cmake
# 1. Reads the fields of of_config from HEADER (nested parameter structs as tvl1.tau, ...) and
#    fails when one is neither in FLAGS nor in NOT_CLI below: a field added to the header needs
#    a flag in oflow-cli (samples/cli/args.cpp, runner.cpp make_config, main.cpp config_json)
#    and a line here. Entries for fields the header no longer has fail too.
# 2. Each flag must appear in --help.
# 3. Each flag with a test value is run as `oflow-cli --explain --json --size 72x40 FLAG VALUE`
#    (plus the entry's extra arguments) and the "config" object of the output must hold the
#    expected value at the field's path.
cmake_minimum_required(VERSION 3.19) # string(JSON)

# field | flag | test value ("-": --help only) | expected in "config" | extra arguments
set(FLAGS
  "algorithm|--algo|tvl1|tvl1|"
  "max_width|--size|72x40|72|"
  "max_height|--size|72x40|40|"
  "levels|--levels|3|3|"
  "scale_factor|--scale|0.6|0.6|"
  "warps|--warps|4|4|"
  "iterations|--iters|17|17|"
  "epsilon|--epsilon|0.02|0.02|"
  "presmooth_sigma|--presmooth|1.5|1.5|"
  "backend|--backend|reference|reference|"
  "precision|--precision|f32|f32|"
  "threads|--threads|2|2|"
  "time_budget_ms|--budget|50|50|--platform generic"
  "tvl1.tau|--tau|0.2|0.2|"
  "tvl1.lambda|--lambda|0.2|0.2|"
  "tvl1.theta|--theta|0.25|0.25|"
  "hs.alpha|--alpha|7|7|"
  "hs.rho|--rho|1.5|1.5|"
  "hs.solver|--solver|sor|sor|"
  "hs.omega|--omega|1.2|1.2|"
  "lk.window|--window|5|5|--algo lk"
  "lk.min_eigen|--min-eigen|0.01|0.01|--algo lk"
  "dis.patch_size|--patch|12|12|--algo dis"
  "dis.patch_stride|--stride|5|5|--algo dis"
  "dis.iterations|--dis-iters|9|9|--algo dis"
  "dis.finest_level|--finest|2|2|--algo dis"
  "dis.refine_iterations|--refine|3|3|--algo dis"
  "dis.refine_alpha|--refine-alpha|40|40|--algo dis"
  "dis.refine_delta|--refine-delta|2|2|--algo dis"
  "dis.refine_gamma|--refine-gamma|7|7|--algo dis"
  "platform|--platform|generic|generic|"
  "variant|--variant|fused|fused|"
  "block_width|--block|32x4|32|"
  "block_height|--block|32x4|4|"
  "fused_depth|--fused-depth|2|2|"
  "tuning_path|--tuning|@TUNING@|@TUNING@|--platform mini"
  "robust|--robust|none|none|"
  "robust_sigma|--robust-sigma|5|5|"
  "median_size|--median|3|3|"
  "min_texture|--min-texture|7|7|"
  "iteration_growth|--growth|1.5|1.5|"
  "warm_start|--warm-start|on|ON|"
  "min_confidence|--min-confidence|0.25|0.25|"
  "init|--init|dis|dis|")
# Fields without a flag, and why (samples/cli/args.hpp says the same).
set(NOT_CLI
  "struct_size: set by of_config_init"
  "format: follows the input (u8 for 8-bit PNG/PGM, u16 when a frame is 16-bit, f32 for --synth)"
  "host_arena: caller memory, not command-line material"
  "host_arena_size: caller memory, not command-line material"
  "device_arena: caller memory, not command-line material"
  "device_arena_size: caller memory, not command-line material"
  "cuda_stream: a caller's CUDA stream, not command-line material")

set(problems)

# ---- 1. the header's fields ---------------------------------------------------------------
file(READ "${HEADER}" text)
# Comments out (they hold ';' and words that look like declarations).
string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" " " text "${text}")
string(REGEX REPLACE "//[^\n]*" " " text "${text}")
string(REPLACE ";" "<semi>" text "${text}") # keep CMake from splitting lists on them

function(struct_fields type prefix out)
  string(REGEX MATCH "typedef struct ${type} {[^}]*}" body "${text}")
  if(NOT body)
    message(FATAL_ERROR "config_coverage: no 'typedef struct ${type} {' in ${HEADER}")
  endif()
  string(REGEX REPLACE "^typedef struct ${type} {" "" body "${body}")
  string(REPLACE "}" "" body "${body}")
  string(REPLACE "<semi>" ";" decls "${body}")
  set(fields)
  foreach(d IN LISTS decls)
    string(STRIP "${d}" d)
    if(d STREQUAL "")
      continue()
    endif()
    string(REGEX REPLACE "[ \t\r\n]+" " " d "${d}")
    if(NOT d MATCHES "^(const )?([A-Za-z_][A-Za-z0-9_]*)[ *]+([A-Za-z_][A-Za-z0-9_]*)$")
      message(FATAL_ERROR "config_coverage: cannot read the declaration '${d}' in ${type}")
    endif()
    set(ftype "${CMAKE_MATCH_2}")
    set(fname "${CMAKE_MATCH_3}")
    if(text MATCHES "typedef struct ${ftype} {")
      struct_fields(${ftype} "${prefix}${fname}." sub)
      list(APPEND fields ${sub})
    else()
      list(APPEND fields "${prefix}${fname}")
    endif()
  endforeach()
  set(${out} ${fields} PARENT_SCOPE)
endfunction()
struct_fields(of_config "" header_fields)
list(LENGTH header_fields n)
if(n LESS 30)
  list(APPEND problems "read only ${n} of_config fields from ${HEADER}: the parser is broken")
endif()

set(mapped)
foreach(e IN LISTS FLAGS)
  string(REPLACE "|" ";" e "${e}")
  list(GET e 0 f)
  list(APPEND mapped ${f})
endforeach()
foreach(e IN LISTS NOT_CLI)
  string(REGEX REPLACE ":.*" "" f "${e}")
  list(APPEND mapped ${f})
endforeach()
foreach(f IN LISTS header_fields)
  if(NOT f IN_LIST mapped)
    list(APPEND problems "of_config.${f} has no oflow-cli flag: add one (samples/cli) and map it in tests/cli/config_coverage.cmake")
  endif()
endforeach()
foreach(f IN LISTS mapped)
  if(NOT f IN_LIST header_fields)
    list(APPEND problems "config_coverage.cmake maps '${f}', which of_config no longer has")
  endif()
endforeach()

# ---- 2 and 3: --help, and each value reaching the config ----------------------------------
string(REPLACE "|" ";" EMULATOR "${EMULATOR}")
execute_process(COMMAND ${EMULATOR} ${CLI} --help RESULT_VARIABLE rc OUTPUT_VARIABLE help)
if(NOT rc EQUAL 0)
  list(APPEND problems "oflow-cli --help exited ${rc}")
endif()
set(num_re "^-?[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?$")
set(checked 0)
foreach(e IN LISTS FLAGS)
  string(REPLACE "|" ";" e "${e}")
  list(GET e 0 field)
  list(GET e 1 flag)
  list(GET e 2 value)
  list(GET e 3 want)
  list(GET e 4 extra)
  if(NOT help MATCHES "(^|[^-a-z])${flag}[^-a-z]")
    list(APPEND problems "${flag} (of_config.${field}) is not in --help")
  endif()
  if(value STREQUAL "-")
    continue()
  endif()
  if(value STREQUAL "@TUNING@")
    if(NOT TUNING_FILE)
      continue() # a build without OF_WITH_TINYXML2 refuses any table file
    endif()
    set(value "${TUNING_FILE}")
    set(want "${TUNING_FILE}")
  endif()
  separate_arguments(extra UNIX_COMMAND "${extra}")
  set(size --size 72x40)
  if(flag STREQUAL "--size")
    set(size)
  endif()
  set(cmd ${EMULATOR} ${CLI} --explain --json ${size} ${extra} ${flag} ${value})
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REPLACE ";" " " shown "${cmd}")
  if(NOT rc EQUAL 0)
    list(APPEND problems "${shown}: exit ${rc}: ${err}")
    continue()
  endif()
  string(REPLACE "." ";" members "config.${field}")
  string(JSON got ERROR_VARIABLE json_err GET "${out}" ${members})
  if(json_err)
    list(APPEND problems "${shown}: no config.${field} in the JSON (${json_err})")
  elseif(want MATCHES "${num_re}" AND got MATCHES "${num_re}")
    if(NOT got EQUAL want)
      list(APPEND problems "${shown}: config.${field} is ${got}, expected ${want}")
    endif()
  elseif(NOT got STREQUAL want)
    list(APPEND problems "${shown}: config.${field} is '${got}', expected '${want}'")
  endif()
  math(EXPR checked "${checked} + 1")
endforeach()

if(problems)
  string(REPLACE ";" "\n  " problems "${problems}")
  message(FATAL_ERROR "config_coverage FAILED:\n  ${problems}")
endif()
list(LENGTH FLAGS nflags)
message(STATUS "config_coverage: ${n} of_config fields, ${nflags} mapped to flags (${checked} values checked through --explain --json)")
