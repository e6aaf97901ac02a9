# Jetson boards: OF_BOARD -> the CPU (-mcpu) and the CUDA architecture of the board.
# Included by toolchains/jetson.cmake (cross builds) and by the top-level CMakeLists.txt
# (native builds on a board with -DOF_BOARD=...), so both read the same table.
#
#   board    CPU                              -mcpu         CUDA arch  JetPack / CUDA
#   nano     4x Cortex-A57                    cortex-a57    53         4.6 / 10.2
#   tx2      2x Denver2 + 4x Cortex-A57       cortex-a57    62         4.6 / 10.2
#   xavier   8x Carmel (ARMv8.2 + FP16)       carmel        72         4.6 / 10.2 (5.x / 11.4)
#   orin     Cortex-A78AE (ARMv8.2 + FP16)    cortex-a78ae  87         5.x / 11.4, 6.x / 12.x
#
# nano and tx2 have no FP16 vector arithmetic (ARMv8.0); xavier and orin have it, so the NEON
# F16 kernels are compiled in only for them (__ARM_FEATURE_FP16_VECTOR_ARITHMETIC).

set(OF_BOARDS nano tx2 xavier orin)

# of_board_settings(BOARD MCPU_VAR ARCH_VAR): sets MCPU_VAR and ARCH_VAR in the caller;
# an unknown BOARD is a configure error naming the valid ones.
function(of_board_settings board mcpu_var arch_var)
  if(board STREQUAL "nano")
    set(mcpu cortex-a57)
    set(arch 53)
  elseif(board STREQUAL "tx2")
    set(mcpu cortex-a57) # Denver2 has no -mcpu of its own; the A57 cores set the baseline
    set(arch 62)
  elseif(board STREQUAL "xavier")
    set(mcpu carmel)
    set(arch 72)
  elseif(board STREQUAL "orin")
    set(mcpu cortex-a78ae)
    set(arch 87)
  else()
    message(FATAL_ERROR "OF_BOARD='${board}' is not a board: use one of ${OF_BOARDS}")
  endif()
  set(${mcpu_var} ${mcpu} PARENT_SCOPE)
  set(${arch_var} ${arch} PARENT_SCOPE)
endfunction()

# of_board_cpu_flags(COMPILER BOARD MCPU OUT_VAR): the CPU flags for BOARD that COMPILER (a gcc or
# clang driver for aarch64) accepts: -mcpu=MCPU, else the core's ISA. gcc has no -mcpu=carmel
# (clang has), and gcc before 11 (JetPack 5 ships 9) has no cortex-a78ae; both cores are
# ARMv8.2-A with FP16 vector arithmetic, which is what the NEON F16 kernels need.
function(of_board_cpu_flags compiler board mcpu out_var)
  execute_process(COMMAND "${compiler}" -mcpu=${mcpu} -E -x c -
                  INPUT_FILE /dev/null RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(flags -mcpu=${mcpu})
  elseif(board STREQUAL "xavier")
    set(flags -march=armv8.2-a+fp16)
  elseif(board STREQUAL "orin")
    set(flags -march=armv8.2-a+fp16+dotprod)
  else()
    set(flags -march=armv8-a+crc)
  endif()
  get_property(told GLOBAL PROPERTY OF_BOARD_CPU_FLAGS_TOLD) # the toolchain file is read twice
  if(NOT rc EQUAL 0 AND NOT told)
    message(STATUS "oflow: ${compiler} does not know -mcpu=${mcpu}; ${board} gets ${flags}")
    set_property(GLOBAL PROPERTY OF_BOARD_CPU_FLAGS_TOLD ON)
  endif()
  set(${out_var} ${flags} PARENT_SCOPE)
endfunction()
