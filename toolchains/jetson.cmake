# Cross build for a Jetson board from an x86-64 PC: the board's JetPack root file system as the
# sysroot, a cross g++ for the CPU code (NEON included) and nvcc with -ccbin that g++ for the
# CUDA backend, using the toolkit's aarch64 target directory (<toolkit>/targets/aarch64-linux).
#
#   cmake -S . -B build/xavier -DCMAKE_TOOLCHAIN_FILE=toolchains/jetson.cmake -DOF_BOARD=xavier \
#         -DOF_SYSROOT=<Linux_for_Tegra>/rootfs -DCUDAToolkit_ROOT=/usr/local/cuda-10.2 \
#         -DOF_CROSS_PREFIX=<l4t-gcc-7>/bin/aarch64-linux-gnu-
#
# Settings, as -D cache variables or as environment variables of the same name:
#   OF_BOARD          required: nano|tx2|xavier|orin. Sets -mcpu (cortex-a57, cortex-a57,
#                     carmel, cortex-a78ae; cmake/of_board.cmake) and CMAKE_CUDA_ARCHITECTURES
#                     (53, 62, 72, 87) unless that is given.
#   OF_SYSROOT        the board's root file system: JetPack's Linux_for_Tegra/rootfs (SDK
#                     Manager), or a copy of a board's /lib, /usr/lib and /usr/include.
#                     Without it: the cross compiler's own libraries (/usr/aarch64-linux-gnu).
#   CUDAToolkit_ROOT  an x86-64 CUDA toolkit of the board's JetPack version with its aarch64
#                     cross target installed (cuda-cross-aarch64: targets/aarch64-linux).
#                     CUDA_TOOLKIT_ROOT is read too; default /usr/local/cuda.
#                     nano/tx2: JetPack 4.6, CUDA 10.2; xavier: CUDA 10.2 (JetPack 4.6) or 11.4
#                     (JetPack 5); orin: CUDA 11.4 (JetPack 5) or 12.x (JetPack 6). CUDA 13's
#                     nvcc has no sm_53/62/72 (configure stops). nvcc also bounds the host
#                     g++: CUDA 10.2 takes gcc <= 8, so use L4T's gcc 7 via OF_CROSS_PREFIX.
#   OF_CROSS_PREFIX, OF_QEMU_CPU: as in aarch64-linux-gnu.cmake (this file includes it).
# -DOF_WITH_CUDA=OFF builds the CPU part only (reference + NEON) for the board.

set(OF_TOOLCHAIN_JETSON ON)
include(${CMAKE_CURRENT_LIST_DIR}/aarch64-linux-gnu.cmake)

if(NOT OF_BOARD)
  message(FATAL_ERROR "toolchains/jetson.cmake needs -DOF_BOARD=nano|tx2|xavier|orin")
endif()
# of_board_settings (aarch64-linux-gnu.cmake included cmake/of_board.cmake) gave _of_cuda_arch.

if(NOT DEFINED CUDAToolkit_ROOT AND NOT DEFINED ENV{CUDAToolkit_ROOT})
  if(DEFINED CUDA_TOOLKIT_ROOT)
    set(CUDAToolkit_ROOT "${CUDA_TOOLKIT_ROOT}")
  elseif(DEFINED ENV{CUDA_TOOLKIT_ROOT})
    set(CUDAToolkit_ROOT "$ENV{CUDA_TOOLKIT_ROOT}")
  endif()
endif()
_of_toolchain_setting(CUDAToolkit_ROOT /usr/local/cuda)
_of_toolchain_setting(OF_WITH_CUDA "") # try_compile projects see OFF too, and skip CUDA

set(_of_nvcc "${CUDAToolkit_ROOT}/bin/nvcc")
if(OF_WITH_CUDA STREQUAL "OFF")
  # CPU only: nothing of CUDA is looked at.
elseif(NOT EXISTS "${_of_nvcc}")
  if(OF_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "toolchains/jetson.cmake: no nvcc at ${_of_nvcc}; set CUDAToolkit_ROOT")
  endif()
  message(STATUS "oflow: no nvcc at ${_of_nvcc}: ${OF_BOARD} build without CUDA")
  set(OF_WITH_CUDA OFF CACHE STRING "Build the CUDA backend: AUTO, ON, OFF")
else()
  # nvcc must be able to target the board: CUDA 13 dropped sm_53/62/72 (and CUDA 10.2 has no
  # --list-gpu-arch, hence the version test).
  execute_process(COMMAND "${_of_nvcc}" --version OUTPUT_VARIABLE _of_nvcc_out ERROR_QUIET)
  if(_of_nvcc_out MATCHES "release ([0-9]+)\\.([0-9]+)")
    set(_of_nvcc_version "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
    if(_of_nvcc_version VERSION_GREATER_EQUAL 13.0 AND _of_cuda_arch LESS 75)
      message(FATAL_ERROR "toolchains/jetson.cmake: CUDA ${_of_nvcc_version} cannot compile for "
                          "sm_${_of_cuda_arch} (${OF_BOARD}); use the board's JetPack CUDA "
                          "(10.2 for nano/tx2, 10.2 or 11.4 for xavier) or -DOF_WITH_CUDA=OFF")
    endif()
  endif()
  if(NOT IS_DIRECTORY "${CUDAToolkit_ROOT}/targets/aarch64-linux")
    message(FATAL_ERROR "toolchains/jetson.cmake: ${CUDAToolkit_ROOT} has no aarch64 cross "
                        "target (targets/aarch64-linux): install the toolkit's cross-aarch64 "
                        "packages (JetPack / SDK Manager), or configure with -DOF_WITH_CUDA=OFF")
  endif()
  set(CMAKE_CUDA_COMPILER "${_of_nvcc}")
  set(CMAKE_CUDA_HOST_COMPILER "${OF_CROSS_CXX}") # nvcc -ccbin <cross g++>
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES ${_of_cuda_arch} CACHE STRING "CUDA architectures (OF_BOARD=${OF_BOARD})")
  endif()
  # Host code inside .cu files: the board's CPU flags and the sysroot reach g++ through nvcc.
  set(_of_cuda_flags "")
  execute_process(COMMAND "${_of_nvcc}" --help OUTPUT_VARIABLE _of_nvcc_help ERROR_QUIET)
  if(_of_nvcc_help MATCHES "--target-directory")
    string(APPEND _of_cuda_flags " --target-directory aarch64-linux")
  endif()
  foreach(f ${OF_BOARD_CPU_FLAGS})
    string(APPEND _of_cuda_flags " -Xcompiler=${f}")
  endforeach()
  if(OF_SYSROOT)
    string(APPEND _of_cuda_flags " -Xcompiler=--sysroot=${OF_SYSROOT}")
  endif()
  set(CMAKE_CUDA_FLAGS_INIT "${_of_cuda_flags}")
endif()
