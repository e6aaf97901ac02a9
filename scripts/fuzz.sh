#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz (fuzz_api, fuzz_table, fuzz_files), built with clang,
# ASan and UBSan (preset fuzz, build/fuzz), for MINUTES minutes each (default 1; a fraction such
# as 0.5 works) of CPU each. The targets run side by side, all at once (more targets than cores: for
# their share of the cores, longer). Each starts
# from its seed corpus (tests/fuzz/corpus/<name>, <name> = <target> without fuzz_, copied to
# build/fuzz/corpus/<target>, where
# what it learns accumulates from run to run) and writes a crashing input to
# build/fuzz/artifacts/<target>/. A summary prints executions, coverage, corpus size and crashes
# per target; the exit status is 1 when any target crashed.
#
#   bash scripts/fuzz.sh [MINUTES]
#
# Needs clang with libFuzzer (Debian: clang, and libclang-rt-dev where the runtime is packaged
# apart); installs them when missing. Where they cannot be had, it says so and exits 0 (skipped):
# the seed corpora and regression inputs still run in every ordinary build (<target>_replay).
# A reproducer: build/fuzz/tests/fuzz/<target> FILE; once fixed, add FILE to
# tests/fuzz/regressions/<name>/ (tests/fuzz/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-1}
seconds=$(awk -v m="$minutes" 'BEGIN { s = int(m * 60 + 0.5); if (s < 1) s = 1; print s }')
targets=(fuzz_api fuzz_table fuzz_files)

# clang + libFuzzer: installed when missing; skipped (exit 0) when they cannot be had.
libfuzzer_links() {
  local d
  d=$(mktemp -d)
  printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' >"$d/t.cpp"
  clang++ -fsanitize=fuzzer,address,undefined "$d/t.cpp" -o "$d/t" >/dev/null 2>&1
  local rc=$?
  rm -rf "$d"
  return $rc
}
if ! command -v clang++ >/dev/null 2>&1; then
  bash scripts/deps.sh clang || true
fi
if command -v clang++ >/dev/null 2>&1 && ! libfuzzer_links; then
  # Debian bookworm / Ubuntu 24.04 package the sanitizer and fuzzer runtimes apart.
  if apt-cache show libclang-rt-dev >/dev/null 2>&1; then bash scripts/deps.sh libclang-rt-dev || true; fi
fi
if ! command -v clang++ >/dev/null 2>&1 || ! libfuzzer_links; then
  echo "fuzz: SKIPPED: clang with libFuzzer (-fsanitize=fuzzer) is not available on this machine"
  exit 0
fi
bash scripts/deps.sh libpng-dev libtinyxml2-dev

echo "== fuzz build (preset fuzz: clang, libFuzzer, ASan + UBSan)"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$(nproc)"

B=build/fuzz
mkdir -p "$B/logs"
echo "== fuzzing: ${#targets[@]} targets at once, about ${seconds} s of CPU each"
run_one() { # run_one TARGET WALL_SECONDS
  local t=$1 wall=$2 corpus=$B/corpus/$1 art=$B/artifacts/$1
  mkdir -p "$corpus" "$art"
  cp -n tests/fuzz/corpus/"${t#fuzz_}"/* "$corpus"/
  # -timeout: an input slower than 30 s is a hang; -rss_limit_mb: a plan the harness lets
  # through stays far below it; -max_len 4096 covers the seeds (tables up to 20 KB are truncated
  # there, which is itself a test of the loader).
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$B/tests/fuzz/$t" -max_total_time="$wall" -timeout=30 -rss_limit_mb=2048 -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="$art/" "$corpus" >"$B/logs/$t.log" 2>&1
}
# All targets at once; status[i] is target i's exit status. With more targets than cores each runs
# for its share of the cores: seconds x targets / cores of wall time (rounded up), about `seconds`
# of CPU each, as in batches of nproc targets, without a last batch that leaves cores idle
# (CI: three targets on two cores, 90 s instead of 120).
status=()
n=${#targets[@]}
cores=$(nproc)
wall=$seconds
[ "$n" -gt "$cores" ] && wall=$(((seconds * n + cores - 1) / cores))
pids=()
for ((i = 0; i < n; ++i)); do
  run_one "${targets[$i]}" "$wall" &
  pids[$i]=$!
done
for ((i = 0; i < n; ++i)); do
  if wait "${pids[$i]}"; then status[$i]=0; else status[$i]=$?; fi
done

echo "== fuzz summary (about ${seconds} s of CPU per target, ${wall} s of wall time; logs in $B/logs)"
printf '%-11s %10s %8s %8s %8s  %s\n' target executions exec/s coverage corpus result
failed=0
for i in "${!targets[@]}"; do
  t=${targets[$i]}
  log=$B/logs/$t.log
  execs=$(awk '/^stat::number_of_executed_units:/ { v = $2 } END { print v }' "$log")
  rate=$(awk '/^stat::average_exec_per_sec:/ { v = $2 } END { print v }' "$log")
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}')
  corp=$(find "$B/corpus/$t" -type f | wc -l)
  result=ok
  if [ "${status[$i]}" -ne 0 ]; then
    result="CRASH (exit ${status[$i]}): $(find "$B/artifacts/$t" -type f | tail -1)"
    failed=1
    grep -m3 -E 'ERROR|contract broken|runtime error' "$log" | sed 's/^/    /' || true
  fi
  printf '%-11s %10s %8s %8s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$corp" "$result"
done
exit $failed
