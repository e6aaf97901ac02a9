#!/usr/bin/env bash
# Stage of the test suite (scripts/test.sh): the device code for the Jetson GPUs, compiled and
# checked, nothing linked or run.
#  1. Every cuda/*.cu for sm_53 (Nano), sm_62 (TX2) and sm_72 (Xavier) as C++14, with Debian
#     bookworm's CUDA 11.8 (CUDA 13 has no sm_53/62/72), fetched into a cache folder by
#     scripts/jetson_toolkit.sh (about 0.87 GB downloaded once; the machine's apt sources are
#     not touched) and g++-11 as host compiler: build/jetson-archs.
#  2. The same for sm_87 (Orin) with the main CUDA toolkit (nvcc on the PATH or in
#     /usr/local/cuda; without one, with CUDA 11.8 too): build/jetson-87.
#  3. Every object of (1) must carry sm_53, sm_62 and sm_72 code (cuobjdump --list-elf).
#  4. The resource check (tests/tools/jetson_resources.cpp) over what ptxas reported for every
#     kernel: each board's table selections (TV-L1, HS and CLG rows) must fit that board
#     (registers per block, shared memory, at most 128 bytes of stack per thread). It prints the
#     table. The tool comes from the host preset's build (build/host, brought up to date) when
#     that build has the CUDA path, which resolves the HS/CLG rows' shapes; else it is built in a
#     folder of its own, build/jetson-tool (the host preset's settings plus the CUDA path: the
#     main toolkit, else CUDA 11.8).
#  5. The cross build of the JetPack preset (CMakePresets.json jetson-xavier): the library for
#     Xavier, host code with aarch64-linux-gnu-g++-11, device code with CUDA 11.8 for sm_72, and
#     the C firmware sample, API and GPU test programs linked against the aarch64 CUDA runtime
#     (nvidia-cuda-dev:arm64, 0.67 GB more once); they run under qemu-aarch64, where the GPU
#     tests skip (cmake --build --preset jetson-xavier builds everything).
#
# Usage: scripts/jetson_archs.sh [--write-doc]
#   --write-doc  also writes the table to docs/jetson-resources.md
# Environment: OF_SKIP_JETSON_ARCHS=1 skips the stage (no download); OF_JETSON_CACHE moves the
# toolkit cache (default ~/.cache/oflow/cuda-11.8).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${OF_SKIP_JETSON_ARCHS:-0}" = 1 ]; then
  echo "== Jetson device code: skipped (OF_SKIP_JETSON_ARCHS=1)"
  exit 0
fi
write_doc=0
for a in "$@"; do
  case "$a" in
  --write-doc) write_doc=1 ;;
  *) echo "jetson_archs.sh: unknown argument '$a' (usage: jetson_archs.sh [--write-doc])" >&2; exit 2 ;;
  esac
done

bash scripts/deps.sh build-essential cmake g++-11 g++-11-aarch64-linux-gnu qemu-user
jobs=$(nproc)
tk=$(bash scripts/jetson_toolkit.sh --arm64)
launcher="bash;$PWD/scripts/ptxas_log.sh"

# The main toolkit, when it can target sm_87 (CUDA 11.4 and later).
main_nvcc=""
for n in "$(command -v nvcc || true)" /usr/local/cuda/bin/nvcc; do
  if [ -n "$n" ] && [ -x "$n" ] && [ "$(readlink -f "$n")" != "$(readlink -f "$tk/bin/nvcc")" ] &&
     "$n" --list-gpu-arch 2>/dev/null | grep -qx compute_87; then
    main_nvcc=$n
    break
  fi
done
archs_118="53-real;62-real;72-real"
[ -z "$main_nvcc" ] && archs_118="$archs_118;87-real"

configure_device() { # configure_device DIR NVCC ARCHS [HOST_CXX]
  local dir=$1 nvcc=$2 archs=$3 host=${4:-}
  local extra=()
  [ -n "$host" ] && extra+=(-DCMAKE_CUDA_HOST_COMPILER="$host")
  [ "$nvcc" = "$tk/bin/nvcc" ] && extra+=(-DCUDAToolkit_ROOT="$tk")
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DOF_WERROR=ON -DOF_WITH_CUDA=ON \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="$archs" \
    -DCMAKE_CUDA_COMPILER_LAUNCHER="$launcher" -DOF_BUILD_TESTS=OFF -DOF_BUILD_SAMPLES=OFF \
    -DOF_WITH_TINYXML2=OFF "${extra[@]}" >/dev/null
}

echo "== Jetson device code: sm_53, sm_62, sm_72 with CUDA 11.8 ($tk)"
configure_device build/jetson-archs "$tk/bin/nvcc" "$archs_118" g++-11
cmake --build build/jetson-archs --target oflow -j"$jobs"
reports=(build/jetson-archs/CMakeFiles/oflow.dir/cuda/*.cu.o.ptxas)
if [ -n "$main_nvcc" ]; then
  echo "== Jetson device code: sm_87 with the main toolkit ($main_nvcc)"
  configure_device build/jetson-87 "$main_nvcc" "87-real"
  cmake --build build/jetson-87 --target oflow -j"$jobs"
  reports+=(build/jetson-87/CMakeFiles/oflow.dir/cuda/*.cu.o.ptxas)
else
  echo "== Jetson device code: no main CUDA toolkit for sm_87; compiled with CUDA 11.8 above"
fi

echo "== every object carries sm_53, sm_62 and sm_72 code"
n=0
for src in cuda/*.cu; do
  obj=build/jetson-archs/CMakeFiles/oflow.dir/$src.o
  have=$("$tk/bin/cuobjdump" --list-elf "$obj" | sed -n 's/.*\.\(sm_[0-9]*\)\.cubin$/\1/p' | sort -u | tr '\n' ' ')
  for a in sm_53 sm_62 sm_72; do
    case " $have" in *" $a "*) ;; *) echo "FAIL: $obj has no $a code (has: $have)"; exit 1 ;; esac
  done
  n=$((n + 1))
done
echo "$n objects: sm_53 sm_62 sm_72"

echo "== resource check (docs/jetson-resources.md)"
# The host preset's build (scripts/test.sh's first stage) has the same settings and the main
# CUDA path: its tool is taken, brought up to date, instead of a second library build.
tool=build/jetson-tool
if [ -f build/host/CMakeCache.txt ] && grep -q '^OF_HAVE_CUDA_BUILD:INTERNAL=ON' build/host/CMakeCache.txt; then
  tool=build/host
elif [ ! -f $tool/CMakeCache.txt ]; then
  tool_cuda=(-DCMAKE_CUDA_COMPILER="$tk/bin/nvcc" -DCMAKE_CUDA_ARCHITECTURES=72-real
             -DCMAKE_CUDA_HOST_COMPILER=g++-11 -DCUDAToolkit_ROOT="$tk")
  [ -n "$main_nvcc" ] && tool_cuda=(-DCMAKE_CUDA_COMPILER="$main_nvcc" -DCMAKE_CUDA_ARCHITECTURES=87-real)
  cmake -S . -B $tool -DCMAKE_BUILD_TYPE=Release -DOF_WERROR=ON -DOF_BUILD_TESTS=ON -DOF_WITH_CUDA=ON \
    "${tool_cuda[@]}" >/dev/null
fi
cmake --build $tool --target oflow-jetson-resources -j"$jobs" >/dev/null
doc=()
[ $write_doc -eq 1 ] && doc=(--markdown docs/jetson-resources.md)
$tool/tests/oflow-jetson-resources --require-cuda "${doc[@]}" "${reports[@]}" >build/jetson-archs/resources.md || {
  cat build/jetson-archs/resources.md
  echo "FAIL: a kernel does not fit a Jetson board (table above)"
  exit 1
}
cat build/jetson-archs/resources.md
if ! diff -q -I '^<!--' build/jetson-archs/resources.md docs/jetson-resources.md >/dev/null 2>&1; then
  echo "note: docs/jetson-resources.md differs from this run (another toolkit version, or kernels changed):" \
       "scripts/jetson_archs.sh --write-doc regenerates it"
fi

echo "== JetPack cross build (preset jetson-xavier): aarch64 g++-11 + CUDA 11.8 sm_72, linked"
cmake --preset jetson-xavier -DCUDAToolkit_ROOT="$tk" >/dev/null
# The library and the executables of the tests that run: each links against the aarch64 CUDA
# runtime (the rest of the suite runs in the aarch64 stages, without CUDA).
# Every tests/gpu/gpu_*.cpp is a gpu test target (the preset's test filter runs all of them);
# the gpu_matrix_* tests run robust_matrix.
gpu_targets=$(cd tests/gpu && ls gpu_*.cpp | sed 's/\.cpp$//')
# shellcheck disable=SC2086 # one target per word
cmake --build --preset jetson-xavier -j"$jobs" --target oflow oflow-firmware-sample api_contract force_backend \
  robust_matrix $gpu_targets
ctest --preset jetson-xavier -j"$jobs" --no-tests=error
