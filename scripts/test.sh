#!/usr/bin/env bash
# The whole test suite, or its quick part for the edit-test loop. Installs missing packages first
# (the aarch64 libpng comes from Debian multiarch: scripts/deps.sh adds the arm64 architecture to
# dpkg) and SIMDe 0.8's headers (scripts/simde.sh: Debian trixie's libsimde-dev, fetched once
# into ~/.cache/oflow/simde with a private apt configuration; the machine's sources are not
# touched). Prints each stage's wall time at the end.
#
#   bash scripts/test.sh           every stage below (CI: .ci/run)
#   bash scripts/test.sh --quick   the host build and its fast labels (api, kernels, format, cli,
#                                  dis, suite, neon, platform, tools), without the accuracy grids,
#                                  the arena / no-allocation sweeps and the self-test: about four
#                                  minutes from a fresh clone, for the edit-test loop
#
# Stages:
#  host       host build (warnings are errors; CUDA for one architecture; the NEON kernels
#             native through SIMDe), then CTest: every test on the path AUTO picks (the NEON
#             kernels on x86-64 where the generic table says they are faster), the accuracy
#             grids on the reference path they are calibrated on, and the NEON kernels' own
#             accuracy runs (label neon_path: the matrix cell, exposure corners and confidence
#             cases the emulated suite used to run), and the photograph set (photo_set_*, label
#             photo: real photographs under exact camera motions, the reference and NEON paths);
#  host-ref   the path-dependent labels (accuracy, stream, memory, determinism) again with
#             OFLOW_FORCE_BACKEND=reference, the grids above excepted (they name their path);
#  jetson     the Jetson device code (scripts/jetson_archs.sh): the JetPack cross build for
#             Xavier with its device code for sm_53/62/72, Debian's CUDA 11.8 (fetched once into
#             ~/.cache/oflow, about 1.5 GB downloaded; OF_SKIP_JETSON_ARCHS=1 skips it), sm_87
#             from the host build above, the resource check, the cross build's tests under qemu;
#  asan       the suite built with ASan + UBSan (sanitizer-sized grids), on the AUTO path and
#             the path-dependent labels again on the reference path;
#  fuzz       the libFuzzer targets for 60 s each (scripts/fuzz.sh 1: clang, ASan + UBSan;
#             skipped with a message where clang's libFuzzer cannot be installed);
#  tsan       ThreadSanitizer: threads_stress (8 application threads, 20 s) and contexts;
#  aarch64    the cross build (programs linked -static: qemu-user 7.2 hangs dynamically linked
#             threaded programs), and under qemu-aarch64 what only AArch64 code generation can
#             show, on the NEON path: the NEON kernel checks, the self-test (oflow-selftest
#             --quick: selftest_cli; its API test selftest_api runs natively), the API contract,
#             force_backend, one matrix cell per algorithm, the worker threads (contexts:
#             threads 2-4 bit-identical to 1; threads_stress) and the firmware sample;
#  fp16       the NEON F16 kernel checks and force_backend of a build with FP16 vector
#             arithmetic (OF_BOARD=xavier flags; qemu's CPU has it), under qemu.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
for a in "$@"; do
  case "$a" in
  --quick) quick=1 ;;
  *) echo "test.sh: unknown argument '$a' (usage: test.sh [--quick])" >&2; exit 2 ;;
  esac
done

pkgs=(build-essential cmake pkg-config libpng-dev libtinyxml2-dev)
# The photograph set's photographs (tests/photo_cells.hpp): python3-skimage (scikit-image's sample
# data: the only package that ships its PNGs) and opencv-doc (OpenCV's sample data).
[ $quick -eq 0 ] && pkgs+=(g++-aarch64-linux-gnu qemu-user libpng-dev:arm64 python3-skimage opencv-doc)
bash scripts/deps.sh "${pkgs[@]}"
simde=$(bash scripts/simde.sh)
jobs=$(nproc)

# The Jetson stage's CUDA 11.8 (scripts/jetson_toolkit.sh): where the cache lacks it, fetched and
# unpacked in the background while the host stage builds and tests (the download waits on the
# network, not on the two cores); the Jetson stage waits for it. Its packages are installed first,
# here, so that no two apt runs overlap.
toolkit_pid=""
if [ $quick -eq 0 ] && [ "${OF_SKIP_JETSON_ARCHS:-0}" != 1 ]; then
  bash scripts/deps.sh g++-11 g++-11-aarch64-linux-gnu debian-archive-keyring xz-utils
  mkdir -p build
  bash scripts/jetson_toolkit.sh --arm64 >build/jetson-toolkit.log 2>&1 &
  toolkit_pid=$!
fi

stage_names=()
stage_secs=()
stage_t0=0
stage_begin() { # stage_begin NAME TITLE
  stage_names+=("$1")
  stage_t0=$SECONDS
  echo "== $2"
}
stage_end() { stage_secs+=($((SECONDS - stage_t0))); }
report() {
  local total=0 i
  echo "== stage times"
  for i in "${!stage_secs[@]}"; do
    printf '   %-10s %4d:%02d\n' "${stage_names[$i]}" $((stage_secs[i] / 60)) $((stage_secs[i] % 60))
    total=$((total + stage_secs[i]))
  done
  printf '   %-10s %4d:%02d\n' total $((total / 60)) $((total % 60))
}
on_exit() {
  report
  # a stage failed before the Jetson stage waited for the background fetch: stop it (its cache
  # takes no half-unpacked tree)
  if [ -n "${toolkit_pid:-}" ] && kill -0 "$toolkit_pid" 2>/dev/null; then kill "$toolkit_pid" 2>/dev/null || true; fi
}
trap on_exit EXIT

stage_begin host "host build and tests"
# The ptxas launcher keeps each CUDA object's resource report beside it: the sm_87 (Orin) half of
# the Jetson stage reads them instead of compiling the device code a second time.
cmake --preset host -DOF_SIMDE_INCLUDE="$simde" -DCMAKE_CUDA_COMPILER_LAUNCHER="bash;$PWD/scripts/ptxas_log.sh" >/dev/null
# The photo tests are registered only where CMake found the photographs; installed above, so a
# miss here is an error, not a smaller suite.
if [ $quick -eq 0 ] && ! grep -qx 'OF_HAVE_PHOTOS:INTERNAL=ON' build/host/CMakeCache.txt; then
  echo "test.sh: the photograph set was not found (see CMake's warning above; packages python3-skimage," \
       "opencv-doc): the photo_set tests would not run" >&2
  exit 1
fi
cmake --build --preset host -j"$jobs"
if [ $quick -eq 1 ]; then
  ctest --preset host -j"$jobs" --no-tests=error -L '^(api|kernels|format|cli|dis|suite|neon|platform|tools)$' \
    -E '^(robust_matrix|exposure|confidence$|arena$|no_alloc$|selftest_)'
  stage_end
  exit 0
fi
ctest --preset host -j"$jobs" --no-tests=error
stage_end

stage_begin host-ref "host tests, path-dependent labels on the reference path (OFLOW_FORCE_BACKEND=reference)"
ctest --preset host-reference -j"$jobs" --no-tests=error
stage_end

stage_begin jetson "Jetson device code"
if [ -n "$toolkit_pid" ] && ! wait "$toolkit_pid"; then
  cat build/jetson-toolkit.log
  echo "test.sh: fetching CUDA 11.8 failed (scripts/jetson_toolkit.sh, log above)" >&2
  exit 1
fi
bash scripts/jetson_archs.sh
stage_end

stage_begin asan "ASan + UBSan build and tests"
cmake --preset asan -DOF_SIMDE_INCLUDE="$simde" >/dev/null
cmake --build --preset asan -j"$jobs"
ctest --preset asan -j"$jobs" --no-tests=error
ctest --preset asan-reference -j"$jobs" --no-tests=error
stage_end

stage_begin fuzz "fuzz targets, 60 s each (scripts/fuzz.sh 1)"
bash scripts/fuzz.sh 1
stage_end

stage_begin tsan "ThreadSanitizer: threads_stress (8 threads, 20 s) and contexts"
cmake --preset tsan >/dev/null
# the programs of the tests it runs, not the whole suite (scripts/test_targets.sh)
# shellcheck disable=SC2046
cmake --build --preset tsan -j"$jobs" --target $(bash scripts/test_targets.sh tsan build/tsan)
ctest --preset tsan --no-tests=error
stage_end

stage_begin aarch64 "aarch64 cross build (toolchains/aarch64-linux-gnu.cmake, -static), NEON path under qemu-aarch64"
cmake --preset aarch64 >/dev/null
# the programs of the tests it runs, not the whole suite (scripts/test_targets.sh)
# shellcheck disable=SC2046
cmake --build --preset aarch64 -j"$jobs" --target $(bash scripts/test_targets.sh aarch64-neon build/aarch64)
ctest --preset aarch64-neon -j"$jobs" --no-tests=error
stage_end

stage_begin fp16 "aarch64 + FP16 (OF_BOARD=xavier flags): NEON F16 kernel checks and force_backend, under qemu"
cmake --preset aarch64-fp16 >/dev/null
# the programs of the tests it runs, not the whole suite (scripts/test_targets.sh)
# shellcheck disable=SC2046
cmake --build --preset aarch64-fp16 -j"$jobs" --target $(bash scripts/test_targets.sh aarch64-fp16 build/aarch64-fp16)
ctest --preset aarch64-fp16 -j"$jobs" --no-tests=error
stage_end
