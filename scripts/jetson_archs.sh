#!/usr/bin/env bash
# Stage of the test suite (scripts/test.sh): the device code for the Jetson GPUs, compiled and
# checked, and the JetPack cross build linked.
#  1. The cross build of the JetPack preset (CMakePresets.json jetson-xavier): the library with
#     host code from aarch64-linux-gnu-g++-11 and device code from Debian bookworm's CUDA 11.8
#     (CUDA 13 has no sm_53/62/72), fetched into a cache folder by scripts/jetson_toolkit.sh
#     (about 0.87 GB downloaded once, and 0.67 GB of the aarch64 CUDA runtime,
#     nvidia-cuda-dev:arm64; the machine's apt sources are not touched), and the programs of the
#     tests that run here (scripts/test_targets.sh: the C firmware sample, the API and GPU test
#     programs) linked against the aarch64 CUDA runtime. Its device code is built for sm_53
#     (Nano), sm_62 (TX2) and sm_72 (Xavier) in one pass, with ptxas's report kept beside each
#     object (scripts/ptxas_log.sh): the board build and the three architectures' check are one
#     compile (they used to be two, the device code for sm_72 compiled twice).
#  2. sm_87 (Orin) with the main CUDA toolkit: the host preset's build already compiles it
#     (scripts/test.sh's first stage configures it with the same ptxas launcher and CUDA 13's
#     default architectures, 87-real and compute_87) and its reports are taken from there. Without
#     such a build (another toolkit, no CUDA in build/host, the stage run alone) it is compiled
#     in build/jetson-87; without a main toolkit that targets sm_87, by CUDA 11.8 in step 1.
#  3. Every object of (1) must carry sm_53, sm_62 and sm_72 code (cuobjdump --list-elf).
#  4. The resource check (tests/tools/jetson_resources.cpp) over what ptxas reported for every
#     kernel: each board's table selections (TV-L1, HS and CLG rows) must fit that board
#     (registers per block, shared memory, at most 128 bytes of stack per thread). It prints the
#     table. The tool comes from the host preset's build (build/host, brought up to date) when
#     that build has the CUDA path, which resolves the HS/CLG rows' shapes; else it is built in a
#     folder of its own, build/jetson-tool (the host preset's settings plus the CUDA path: the
#     main toolkit, else CUDA 11.8).
#  5. The preset's tests under qemu-aarch64 (firmware sample, API contract, force_backend; the
#     GPU tests skip at once: no device).
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

echo "== JetPack cross build (preset jetson-xavier): aarch64 g++-11 + CUDA 11.8, device code for $archs_118"
xdir=build/jetson-xavier
cmake --preset jetson-xavier -DCUDAToolkit_ROOT="$tk" -DCMAKE_CUDA_ARCHITECTURES="$archs_118" \
  -DCMAKE_CUDA_COMPILER_LAUNCHER="$launcher" >/dev/null
# shellcheck disable=SC2046 # one target per line
cmake --build --preset jetson-xavier -j"$jobs" --target oflow $(bash scripts/test_targets.sh jetson-xavier $xdir)
reports=($xdir/CMakeFiles/oflow.dir/cuda/*.cu.o.ptxas)

if [ -n "$main_nvcc" ]; then
  host_archs=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:STRING=//p' build/host/CMakeCache.txt 2>/dev/null || true)
  host_nvcc=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' build/host/CMakeCache.txt 2>/dev/null || true)
  host_launcher=$(sed -n 's/^CMAKE_CUDA_COMPILER_LAUNCHER:[A-Z]*=//p' build/host/CMakeCache.txt 2>/dev/null || true)
  d87=""
  if [[ ";$host_archs;" == *";87-real;"* ]] && [ "$host_launcher" = "$launcher" ] &&
     [ "$(readlink -f "$host_nvcc")" = "$(readlink -f "$main_nvcc")" ]; then
    cmake --build build/host --target oflow -j"$jobs" >/dev/null
    # objects compiled before the launcher was set have no report, or an older one (a change of
    # launcher rebuilds nothing): then the host build cannot stand in
    fresh=1
    for src in cuda/*.cu; do
      o=build/host/CMakeFiles/oflow.dir/$src.o
      { [ -f "$o.ptxas" ] && ! [ "$o.ptxas" -ot "$o" ]; } || fresh=0
    done
    if [ $fresh -eq 1 ]; then
      echo "== Jetson device code: sm_87 from the host build ($main_nvcc, architectures $host_archs)"
      d87=build/host
    fi
  fi
  if [ -z "$d87" ]; then
    echo "== Jetson device code: sm_87 with the main toolkit ($main_nvcc), build/jetson-87"
    cmake -S . -B build/jetson-87 -DCMAKE_BUILD_TYPE=Release -DOF_WERROR=ON -DOF_WITH_CUDA=ON \
      -DCMAKE_CUDA_COMPILER="$main_nvcc" -DCMAKE_CUDA_ARCHITECTURES=87-real \
      -DCMAKE_CUDA_COMPILER_LAUNCHER="$launcher" -DOF_BUILD_TESTS=OFF -DOF_BUILD_SAMPLES=OFF \
      -DOF_WITH_TINYXML2=OFF >/dev/null
    cmake --build build/jetson-87 --target oflow -j"$jobs"
    d87=build/jetson-87
  fi
  r87=($d87/CMakeFiles/oflow.dir/cuda/*.cu.o.ptxas)
  [ ${#r87[@]} -eq $(ls cuda/*.cu | wc -l) ] || { echo "FAIL: $d87 has ${#r87[@]} ptxas reports for $(ls cuda/*.cu | wc -l) sources"; exit 1; }
  reports+=("${r87[@]}")
else
  echo "== Jetson device code: no main CUDA toolkit for sm_87; compiled with CUDA 11.8 above"
fi

echo "== every object carries sm_53, sm_62 and sm_72 code"
n=0
for src in cuda/*.cu; do
  obj=$xdir/CMakeFiles/oflow.dir/$src.o
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
$tool/tests/oflow-jetson-resources --require-cuda "${doc[@]}" "${reports[@]}" >build/jetson-xavier/resources.md || {
  cat build/jetson-xavier/resources.md
  echo "FAIL: a kernel does not fit a Jetson board (table above)"
  exit 1
}
cat build/jetson-xavier/resources.md
if ! diff -q -I '^<!--' build/jetson-xavier/resources.md docs/jetson-resources.md >/dev/null 2>&1; then
  echo "note: docs/jetson-resources.md differs from this run (another toolkit version, or kernels changed):" \
       "scripts/jetson_archs.sh --write-doc regenerates it"
fi

echo "== JetPack cross build's tests under qemu-aarch64 (GPU tests skip)"
ctest --preset jetson-xavier -j"$jobs" --no-tests=error
