#!/usr/bin/env bash
# oflow-tune on a lent GPU machine: build oflow-tune and oflow-tablegen only (Release,
# OF_WITH_TINYXML2, warnings as errors), run it, and check what it wrote the way the build does.
# Everything goes to $OUT (default ./gpu-tune-out): NAME.xml (the table), timings.csv, tune.log,
# and the generator's output for the table set platform/tables/*.xml + NAME.xml.
#   OUT=... NAME=h200 ARCH=90 bash samples/tune/gpu_tune.sh [oflow-tune options, e.g. --quick]
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/gpu-tune-out}
NAME=${NAME:-tuned}
ARCH=${ARCH:-90}
JOBS=${JOBS:-16}
B=build/gpu-tune
mkdir -p "$OUT"
nvidia-smi -L || true
t0=$(date +%s)
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DOF_WERROR=ON \
  -DOF_WITH_TINYXML2=ON >"$OUT/configure.log" 2>&1 || { tail -20 "$OUT/configure.log"; exit 1; }
cmake --build "$B" -j"$JOBS" --target oflow-tune oflow-tablegen >"$OUT/build.log" 2>&1 ||
  { grep -E "error|Error" "$OUT/build.log" | head -30; exit 1; }
echo "build $(($(date +%s) - t0)) s"
"$B/samples/tune/oflow-tune" --name "$NAME" --out "$OUT/$NAME.xml" --csv "$OUT/timings.csv" "$@" 2>&1 | tee "$OUT/tune.log"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || { echo "oflow-tune exit $rc"; exit "$rc"; }
"$B/platform/tablegen/oflow-tablegen" --check "$OUT/$NAME.xml" && echo "oflow-tablegen --check: accepted"
"$B/platform/tablegen/oflow-tablegen" --root "$PWD" --cpp "$OUT/tables.cpp" --dump "$OUT/tables.txt" \
  platform/tables/*.xml "$OUT/$NAME.xml" && echo "oflow-tablegen generation with platform/tables/*.xml: accepted"
echo "total $(($(date +%s) - t0)) s"
