#!/usr/bin/env bash
# The CUDA backend's check on a lent GPU machine (x86-64 + H100/H200, CUDA 13, cmake, no
# network). Run from anywhere inside the repository, with OUT naming an output directory
# (default ./gpu-check-out):
#   configure build/gpu (sm_90, warnings as errors) -> build -> nvidia-smi -> ctest -L gpu ->
#   the whole ctest -> oflow-bench (all tables, --sweep unless BENCH_ARGS says otherwise, JSON) ->
#   compute-sanitizer (every gpu-labelled test under memcheck with leak check, racecheck,
#   initcheck and synccheck, with OFLOW_GPU_SMALL=1; 0 reports wanted) -> a summary table,
#   printed last.
# SANITIZE=0 skips the compute-sanitizer step; SANITIZE=only runs configure, build and that step
# alone (it takes a few minutes: a call of its own on the device machine). FULL=0 skips the whole
# ctest and the benchmark (gpu tests and sanitizers only). SAN_TOOLS (default "memcheck racecheck
# initcheck synccheck") and SAN_TESTS (default every gpu test, e.g. "gpu_parity gpu_faults") narrow
# the sanitizer step, to split it over several device calls.
# CMAKE_ARGS adds configure options, e.g. -DOF_TINYXML2_INCLUDE_DIR=... -DOF_TINYXML2_LIBRARY=...
# where the machine has no libtinyxml2-dev (the table generator needs it).
# Every step's output goes to $OUT/<step>.log (and to the terminal); the whole run is bounded to
# about 9 minutes (BUDGET_S, default 540 s): each step gets what is left of that budget, capped
# per step.
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
B=build/gpu
JOBS=${JOBS:-16}
start=$(date +%s)
deadline=$((start + ${BUDGET_S:-540}))
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
SANITIZE=${SANITIZE:-1}
if [ "$built" -eq 0 ] && [ "$SANITIZE" != only ]; then
  # -j4: the 16 gpu_matrix_* tests (all 28 cells each, 36-45 s on an H200) share the GPU
  step ctest_gpu 300 bash -c "cd '$B' && ctest -L gpu -j4 --no-tests=error --output-on-failure --timeout 280"
  [ "${FULL:-1}" = 0 ] || step ctest_all 240 bash -c "cd '$B' && ctest --no-tests=error --output-on-failure -j8 --timeout 200"
  bench="$B/samples/bench/oflow-bench"
  if [ "${FULL:-1}" = 0 ]; then
    :
  elif [ -x "$bench" ]; then
    step bench 200 "$bench" ${BENCH_ARGS---sweep} --json "$OUT/bench.json"
  else
    summary+=("$(printf '%-14s %-8s %6s  %s' bench MISSING - "$bench not built")")
  fi
fi

# sanitize TOOL: every gpu test binary under compute-sanitizer --tool TOOL (each capped at
# SAN_TEST_S seconds, default 120; racecheck, the slowest tool, 300), with OFLOW_GPU_SMALL=1
# (smaller work where the full size would take minutes) and OFLOW_GPU_SANITIZER=1 (gpu_faults then leaves leak accounting to
# memcheck's leak check). A run fails on any report (--error-exitcode) or a non-zero exit of
# the test. gpu_faults and gpu_memory provoke CUDA API errors on purpose (injected faults, an
# arena too large for the device): memcheck does not report API errors for those two
# (--report-api-errors no); every other test keeps the default, so an API error there fails.
# One line per test in $OUT/sanitize.txt (the summary, the first failed check); the last 60
# lines of each run in $OUT/sanitize_all.log; whole logs in $B/sanitize/.
sanitize() {
  local tool=$1 t rc extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  [ "$tool" = racecheck ] && extra=(--racecheck-report hazard)
  rc=0
  mkdir -p "$B/sanitize"
  for t in "$B"/tests/gpu/gpu_*; do
    [ -x "$t" ] || continue
    local name log api=()
    name=$(basename "$t")
    case " ${SAN_TESTS:-$name} " in *" $name "*) ;; *) continue ;; esac
    log="$B/sanitize/${tool}_${name}.log"
    if [ "$tool" = memcheck ]; then
      case "$name" in gpu_faults | gpu_memory) api=(--report-api-errors no) ;; esac
    fi
    local cap=${SAN_TEST_S:-120}
    [ "$tool" = racecheck ] && cap=${SAN_TEST_S:-300}
    (cd "$(dirname "$t")" && OFLOW_GPU_SMALL=1 OFLOW_GPU_SANITIZER=1 timeout "$cap" \
      "$CS" --tool "$tool" "${extra[@]}" "${api[@]}" --error-exitcode 99 "./$name") >"$log" 2>&1
    local r=$?
    local verdict=ok
    [ "$r" -ne 0 ] && verdict="FAIL($r)" && rc=1
    [ "$r" -eq 124 ] && verdict="TIMEOUT"
    printf '%-10s %-14s %-8s %s %s\n' "$tool" "$name" "$verdict" \
      "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1 | sed 's/^=* *//')" \
      "$(grep -m1 'CHECK failed' "$log")" | tee -a "$OUT/sanitize.txt"
    { echo "---- $tool $name: $verdict"; tail -n 60 "$log"; } >>"$OUT/sanitize_all.log"
  done
  return $rc
}
CS=$(command -v compute-sanitizer || true)
[ -z "$CS" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] && CS=/usr/local/cuda/bin/compute-sanitizer
if [ "$built" -eq 0 ] && [ "$SANITIZE" != 0 ]; then
  if [ -n "$CS" ]; then
    : >"$OUT/sanitize.txt"
    : >"$OUT/sanitize_all.log"
    for tool in ${SAN_TOOLS:-memcheck racecheck initcheck synccheck}; do
      step "san_$tool" 600 bash -c "$(declare -f sanitize); B='$B' OUT='$OUT' CS='$CS' sanitize $tool"
    done
  else
    summary+=("$(printf '%-14s %-8s %6s  %s' sanitize MISSING - "compute-sanitizer not on PATH")")
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
[ -f "$OUT/sanitize.txt" ] && { echo "compute-sanitizer (OFLOW_GPU_SMALL=1):"; sed 's/^/  /' "$OUT/sanitize.txt"; }
echo "total $(($(date +%s) - start)) s; logs in $OUT"
