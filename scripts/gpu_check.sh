#!/usr/bin/env bash
# The CUDA backend's check on a lent GPU machine (x86-64 + H100/H200, CUDA 13, cmake, no
# network). Run from anywhere inside the repository, with OUT naming an output directory
# (default ./gpu-check-out):
#   configure build/gpu (sm_90, warnings as errors) -> build -> nvidia-smi -> ctest -L gpu ->
#   the whole ctest -> oflow-bench (all tables, --sweep unless BENCH_ARGS says otherwise, JSON) ->
#   a summary table, printed last.
# CMAKE_ARGS adds configure options, e.g. -DOF_TINYXML2_INCLUDE_DIR=... -DOF_TINYXML2_LIBRARY=...
# where the machine has no libtinyxml2-dev (the table generator needs it).
# Every step's output goes to $OUT/<step>.log (and to the terminal); the whole run is bounded to
# about 9 minutes: each step gets what is left of that budget, capped per step.
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
B=build/gpu
JOBS=${JOBS:-16}
start=$(date +%s)
deadline=$((start + 540))
summary=()

# step NAME CAP_SECONDS COMMAND...: runs with a timeout of min(CAP, time left), tees the log.
step() {
  local name=$1 cap=$2
  shift 2
  local now left t0 rc
  now=$(date +%s)
  left=$((deadline - now))
  if [ "$left" -lt 15 ]; then
    summary+=("$(printf '%-14s %-8s %6s  %s' "$name" "SKIPPED" "-" "out of time budget")")
    return 99
  fi
  [ "$cap" -lt "$left" ] && left=$cap
  echo "==== $name (timeout ${left}s): $*" | tee "$OUT/$name.log"
  t0=$(date +%s)
  timeout --kill-after=10 "$left" "$@" 2>&1 | tee -a "$OUT/$name.log"
  rc=${PIPESTATUS[0]}
  local dt=$(($(date +%s) - t0)) verdict=ok
  [ "$rc" -ne 0 ] && verdict="FAIL($rc)"
  [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && verdict="TIMEOUT"
  summary+=("$(printf '%-14s %-8s %5ss  %s' "$name" "$verdict" "$dt" "$OUT/$name.log")")
  return "$rc"
}

step gpus 30 nvidia-smi -L
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.memory,driver_version --format=csv \
  >"$OUT/gpu_info.csv" 2>&1 || true
step configure 90 cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DOF_WERROR=ON ${CMAKE_ARGS:-}
cfg=$?
built=1
if [ "$cfg" -eq 0 ]; then
  step build 240 cmake --build "$B" -j"$JOBS" && built=0
fi
if [ "$built" -eq 0 ]; then
  step ctest_gpu 150 bash -c "cd '$B' && ctest -L gpu --no-tests=error --output-on-failure --timeout 140"
  step ctest_all 240 bash -c "cd '$B' && ctest --no-tests=error --output-on-failure -j8 --timeout 200"
  bench="$B/samples/bench/oflow-bench"
  if [ -x "$bench" ]; then
    step bench 200 "$bench" ${BENCH_ARGS---sweep} --json "$OUT/bench.json"
  else
    summary+=("$(printf '%-14s %-8s %6s  %s' bench MISSING - "$bench not built")")
  fi
fi

echo
echo "================================ gpu_check summary ================================"
head -3 "$OUT/gpus.log" 2>/dev/null | grep -v '^====' || true
printf '%-14s %-8s %6s  %s\n' step result time log
for line in "${summary[@]}"; do echo "$line"; done
for f in ctest_gpu ctest_all; do
  [ -f "$OUT/$f.log" ] || continue
  res=$(grep -E 'tests passed|tests failed' "$OUT/$f.log" | tail -1)
  echo "$f: ${res:-no result line}"
  grep -E '^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess|Child|Exception|Not Run)' "$OUT/$f.log" | sed 's/^/    /' || true
done
[ -f "$OUT/bench.log" ] && grep '^SUMMARY' "$OUT/bench.log" | sed 's/^SUMMARY /  /'
echo "total $(($(date +%s) - start)) s; logs in $OUT"
