# Cross build for 64-bit ARM Linux (aarch64) with the Debian/Ubuntu cross compiler; CTest runs
# every test under qemu-aarch64 through CMAKE_CROSSCOMPILING_EMULATOR.
#
#   cmake -S . -B build/aarch64 -DCMAKE_TOOLCHAIN_FILE=toolchains/aarch64-linux-gnu.cmake
#   cmake --build build/aarch64 -j && ctest --test-dir build/aarch64
#
# Packages: g++-aarch64-linux-gnu qemu-user (the samples also need libpng-dev:arm64, Debian
# multiarch). Settings, as -D cache variables or as environment variables of the same name:
#   OF_SYSROOT       the target's root file system (a board's rootfs or a copy of its /lib and
#                    /usr). Default: none; the cross compiler's own libraries in
#                    /usr/aarch64-linux-gnu plus Debian multiarch arm64 packages.
#   OF_CROSS_PREFIX  compiler prefix; default aarch64-linux-gnu- (on the PATH). A full path
#                    selects another toolchain, e.g. .../gcc-linaro-7.3.1/bin/aarch64-linux-gnu-
#   OF_CROSS_SUFFIX  compiler suffix; default none. -11 selects Debian's g++-11-aarch64-linux-gnu
#                    (aarch64-linux-gnu-g++-11), the newest g++ CUDA 11.8 accepts as host compiler.
#   OF_BOARD         nano|tx2|xavier|orin: that board's CPU (-mcpu, cmake/of_board.cmake).
#                    Default: none (generic ARMv8-A: no FP16 vector arithmetic).
#   OF_QEMU_CPU      qemu-aarch64 -cpu model for the tests; default qemu's own ("max", which has
#                    FP16 vector arithmetic); e.g. cortex-a57 runs them as on a Nano or TX2.
# CUDA is off with this file (OF_WITH_CUDA defaults to OFF); toolchains/jetson.cmake adds it.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu) # multiarch: <root>/usr/lib/aarch64-linux-gnu

# A setting comes from -D, else from the environment. The value is put back into the
# environment: check_language() configures a nested project that sees only this file and the
# environment, and try_compile() gets it through CMAKE_TRY_COMPILE_PLATFORM_VARIABLES.
macro(_of_toolchain_setting name default)
  if(NOT DEFINED ${name})
    if(DEFINED ENV{${name}})
      set(${name} "$ENV{${name}}")
    else()
      set(${name} "${default}")
    endif()
  endif()
  set(ENV{${name}} "${${name}}")
  list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ${name})
endmacro()
_of_toolchain_setting(OF_SYSROOT "")
_of_toolchain_setting(OF_CROSS_PREFIX "aarch64-linux-gnu-")
_of_toolchain_setting(OF_CROSS_SUFFIX "")
_of_toolchain_setting(OF_BOARD "")
_of_toolchain_setting(OF_QEMU_CPU "")

find_program(OF_CROSS_CXX NAMES ${OF_CROSS_PREFIX}g++${OF_CROSS_SUFFIX} NO_CMAKE_FIND_ROOT_PATH)
find_program(OF_CROSS_CC NAMES ${OF_CROSS_PREFIX}gcc${OF_CROSS_SUFFIX} NO_CMAKE_FIND_ROOT_PATH)
if(NOT OF_CROSS_CXX OR NOT OF_CROSS_CC)
  message(FATAL_ERROR "toolchain: ${OF_CROSS_PREFIX}g++${OF_CROSS_SUFFIX} / gcc not found. Debian/Ubuntu: "
                      "apt-get install g++-aarch64-linux-gnu (g++-11-aarch64-linux-gnu for -11), or set "
                      "OF_CROSS_PREFIX / OF_CROSS_SUFFIX")
endif()
set(CMAKE_C_COMPILER ${OF_CROSS_CC})
set(CMAKE_CXX_COMPILER ${OF_CROSS_CXX})

# Where target headers, libraries and packages are looked up (programs: on the host only).
if(OF_SYSROOT)
  if(NOT IS_DIRECTORY "${OF_SYSROOT}/usr/lib")
    message(FATAL_ERROR "toolchain: OF_SYSROOT=${OF_SYSROOT} has no usr/lib: not a root file system")
  endif()
  set(CMAKE_SYSROOT "${OF_SYSROOT}")
  set(_of_target_root "${OF_SYSROOT}")
  list(APPEND CMAKE_FIND_ROOT_PATH "${OF_SYSROOT}")
else()
  # The cross compiler's libc/libstdc++ live here; Debian multiarch arm64 packages
  # (libpng-dev:arm64) live in /usr/lib/aarch64-linux-gnu, which the root "/" reaches.
  set(_of_target_root /usr/aarch64-linux-gnu)
  list(APPEND CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# The board's CPU: -mcpu, or the core's ISA where the compiler lacks that -mcpu
# (of_board_cpu_flags: gcc has no carmel).
if(OF_BOARD)
  include(${CMAKE_CURRENT_LIST_DIR}/../cmake/of_board.cmake)
  of_board_settings("${OF_BOARD}" _of_mcpu _of_cuda_arch)
  of_board_cpu_flags("${OF_CROSS_CXX}" "${OF_BOARD}" "${_of_mcpu}" OF_BOARD_CPU_FLAGS)
  string(REPLACE ";" " " _of_cpu_flags "${OF_BOARD_CPU_FLAGS}")
  set(CMAKE_C_FLAGS_INIT "${_of_cpu_flags}")
  set(CMAKE_CXX_FLAGS_INIT "${_of_cpu_flags}")
  # OF_BOARD_CPU_FLAGS defined: the top-level CMakeLists.txt does not add them a second time.
endif()

# Tests run under qemu-aarch64 with the target's libraries (-L: its root for the loader).
# LD_LIBRARY_PATH makes libc come from the same root as the loader: where the root has no
# ld.so.cache of its own, the loader reads the host's, and once Debian's libc6:arm64 is
# installed (a dependency of libpng-dev:arm64) that names /lib/aarch64-linux-gnu/libc.so.6 of
# another glibc build; threaded programs hang in that mix. Other multiarch libraries (libpng)
# are still found after the root's.
set(_of_qemu_libs "${_of_target_root}/lib")
if(OF_SYSROOT)
  set(_of_qemu_libs "${OF_SYSROOT}/lib/aarch64-linux-gnu:${OF_SYSROOT}/usr/lib/aarch64-linux-gnu:${OF_SYSROOT}/lib:${OF_SYSROOT}/usr/lib")
endif()
find_program(OF_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(OF_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${OF_QEMU_AARCH64}" -L "${_of_target_root}"
      -E "LD_LIBRARY_PATH=${_of_qemu_libs}")
  if(OF_QEMU_CPU)
    list(APPEND CMAKE_CROSSCOMPILING_EMULATOR -cpu "${OF_QEMU_CPU}")
  endif()
elseif(NOT OF_TOOLCHAIN_JETSON)
  message(WARNING "toolchain: qemu-aarch64 not found (apt-get install qemu-user): "
                  "ctest cannot run the aarch64 tests on this machine")
endif()

if(NOT OF_TOOLCHAIN_JETSON)
  set(OF_WITH_CUDA OFF CACHE STRING "Build the CUDA backend: AUTO, ON, OFF (aarch64 cross: OFF; see toolchains/jetson.cmake)")
endif()
