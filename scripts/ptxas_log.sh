#!/usr/bin/env bash
# CMAKE_CUDA_COMPILER_LAUNCHER of the Jetson stage (scripts/jetson_archs.sh): runs one nvcc
# compile command with --resource-usage added and keeps what ptxas reports (registers, stack
# frame, spill stores, shared memory, per kernel and architecture) in OBJECT.ptxas beside the
# object named by -o. Incremental builds keep each object's report with the object. Anything
# else the compiler says (warnings, errors) still goes to stderr; the exit status is nvcc's.
set -uo pipefail
out=""
prev=""
for a in "$@"; do
  [ "$prev" = "-o" ] && out=$a
  prev=$a
done
if [ -z "$out" ]; then # not a compile (CMake's own probes): run it unchanged
  exec "$@"
fi
"$@" --resource-usage 2>"$out.ptxas.tmp"
rc=$?
grep -v -e '^ptxas info' -e '^    [0-9]* bytes stack frame' "$out.ptxas.tmp" >&2
if [ $rc -eq 0 ]; then
  mv "$out.ptxas.tmp" "$out.ptxas"
  touch "$out.ptxas" # newer than its object (scripts/jetson_archs.sh tells a stale report so)
else
  rm -f "$out.ptxas.tmp"
fi
exit $rc
