#!/usr/bin/env bash
# What the library chooses on each board, without a GPU and without processing: `oflow-cli
# --explain` for every built-in tuning table (nano, tx2, xavier, orin, generic) at 96x96,
# 320x240, 640x480 and 1920x1080, TV-L1, F32 and F16. A named platform's GPU is assumed
# present (of_explain), so a desktop shows what a Jetson would run; the CPU path shown is this
# build's (reference on x86, NEON on aarch64).
#
#   scripts/explain_boards.sh [OFLOW_CLI] [extra oflow-cli options...]
#
# OFLOW_CLI defaults to build/host/samples/oflow-cli (cmake --preset host && cmake --build
# --preset host). Extra options go to every run (e.g. --budget 10, --warps 1). Exit status: 0
# when every run succeeded, 1 otherwise (the failing runs' errors are printed in place).
set -uo pipefail
cd "$(dirname "$0")/.."
cli=${1:-build/host/samples/oflow-cli}
[ $# -gt 0 ] && shift
if [ ! -x "$cli" ]; then
  echo "explain_boards.sh: $cli not found or not executable (build it: cmake --preset host && cmake --build --preset host)" >&2
  exit 2
fi
status=0
for board in nano tx2 xavier orin generic; do
  for size in 96x96 320x240 640x480 1920x1080; do
    for precision in f32 f16; do
      echo "=== $board $size tvl1 $precision"
      if ! "$cli" --explain --algo tvl1 --platform "$board" --size "$size" --precision "$precision" "$@" 2>&1; then
        status=1
      fi
      echo
    done
  done
done
exit $status
