#!/usr/bin/env bash
# The whole test suite: host build (warnings are errors) + CTest, then the same suite built
# with AddressSanitizer + UndefinedBehaviorSanitizer, then the libFuzzer targets for 60 s each
# (scripts/fuzz.sh: clang, ASan + UBSan; skipped with a message where clang's libFuzzer cannot
# be installed), then the ThreadSanitizer stage (8 application threads with a context each for
# 20 s, bit-identical to single runs: threads_stress; and the contexts test), then an aarch64
# cross build whose suite runs under qemu-aarch64 twice: with OFLOW_FORCE_BACKEND=neon, every
# test, and with =reference, every test but the labels accuracy, memory, determinism and stream
# (the host stage runs those on the same reference source: emulated they took 15 of CI's
# minutes; the self-test's accuracy cases still run the emulated reference path); last, the
# NEON kernel checks of a build with FP16 vector arithmetic (Xavier/Orin flags; qemu's CPU has
# it), where the F16 kernels exist. Between the host and the
# sanitizer stages, the Jetson device-code stage (scripts/jetson_archs.sh): every cuda/*.cu
# compiled for sm_53/62/72 with Debian's CUDA 11.8 (fetched once into ~/.cache/oflow, about
# 1.5 GB downloaded; OF_SKIP_JETSON_ARCHS=1 skips it) and sm_87, the resource check of every
# kernel the Jetson tables select, and the JetPack cross build for Xavier. Installs missing
# packages first (the aarch64 libpng comes from Debian multiarch: scripts/deps.sh adds the
# arm64 architecture to dpkg).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh build-essential cmake pkg-config libpng-dev libtinyxml2-dev \
  g++-aarch64-linux-gnu qemu-user libpng-dev:arm64
jobs=$(nproc)

echo "== host build and tests"
cmake --preset host >/dev/null
cmake --build --preset host -j"$jobs"
ctest --preset host -j"$jobs" --no-tests=error

bash scripts/jetson_archs.sh

echo "== ASan + UBSan build and tests"
cmake --preset asan >/dev/null
cmake --build --preset asan -j"$jobs"
ctest --preset asan -j"$jobs" --no-tests=error

echo "== fuzz targets, 60 s each (scripts/fuzz.sh 1)"
bash scripts/fuzz.sh 1

echo "== ThreadSanitizer: threads_stress (8 threads, 20 s) and contexts"
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j"$jobs"
ctest --preset tsan --no-tests=error

echo "== aarch64 cross build (toolchains/aarch64-linux-gnu.cmake), tests under qemu-aarch64"
cmake --preset aarch64 >/dev/null
cmake --build --preset aarch64 -j"$jobs"
for path in reference neon; do
  echo "== aarch64 tests, OFLOW_FORCE_BACKEND=$path"
  ctest --preset "aarch64-$path" -j"$jobs" --no-tests=error
done

echo "== aarch64 + FP16 (OF_BOARD=xavier flags): NEON F16 kernels and selection, under qemu"
cmake --preset aarch64-fp16 >/dev/null
cmake --build --preset aarch64-fp16 -j"$jobs"
ctest --preset aarch64-fp16 -j"$jobs" --no-tests=error
