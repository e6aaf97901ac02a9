# Installs the build tree into a scratch prefix, then builds and runs (1) a CMake consumer
# through find_package(oflow) and (2) a C program through pkg-config.
# -D BUILD_DIR=... SOURCE_DIR=... WORK_DIR=... CXX=... CC=... GENERATOR=...
# Cross builds add -D TOOLCHAIN=<toolchain file> EMULATOR=<program|arg|...> and the toolchain's
# settings (OF_SYSROOT, OF_CROSS_PREFIX, OF_BOARD, OF_WITH_CUDA, CUDAToolkit_ROOT): the consumer is configured with the same
# toolchain and both programs run under the emulator.
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
string(REPLACE "|" ";" emulator "${EMULATOR}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
if(TOOLCHAIN)
  # The toolchain re-roots searches into the target's root: name the package directly.
  file(GLOB cfgdir "${prefix}/lib*/cmake/oflow" "${prefix}/lib/*/cmake/oflow")
  set(consumer_args "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN}" "-Doflow_DIR=${cfgdir}")
  foreach(v OF_SYSROOT OF_CROSS_PREFIX OF_BOARD OF_WITH_CUDA CUDAToolkit_ROOT)
    if(${v})
      list(APPEND consumer_args "-D${v}=${${v}}")
    endif()
  endforeach()
else()
  set(consumer_args "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_CXX_COMPILER=${CXX}")
endif()
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/consumer" -B "${WORK_DIR}/consumer" -G "${GENERATOR}"
    ${consumer_args})
run(${CMAKE_COMMAND} --build "${WORK_DIR}/consumer")
run(${emulator} "${WORK_DIR}/consumer/consumer")
find_program(PKG_CONFIG pkg-config)
if(NOT PKG_CONFIG)
  message(FATAL_ERROR "pkg-config not found")
endif()
file(GLOB pcdir "${prefix}/lib*/pkgconfig" "${prefix}/lib/*/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "${pcdir}")
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs --static oflow OUTPUT_VARIABLE flags
                RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config oflow failed")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
if(OF_SYSROOT)
  list(APPEND flags "--sysroot=${OF_SYSROOT}")
endif()
# The library is C++ inside: link with the C++ driver, compile the source as C.
run(${CXX} -x c "${SOURCE_DIR}/consumer_c.c" -x none ${flags} -o "${WORK_DIR}/consumer_c")
run(${emulator} "${WORK_DIR}/consumer_c")
