#!/usr/bin/env bash
# Kernel work on a lent GPU: build (sm_90) oflow-bench and the gpu tests only, run the gpu
# tests, then oflow-bench --shapes N with the launch shapes given as arguments (each
# VARIANT,PREC,BH,DEPTH[,F16ROWS]), beside GLOBAL F32 in the same run. With NCU=1 it also
# profiles the default F16 MULTI_ITER kernel (scheduler and warp-state sections) and dumps the
# SASS instruction mix of the MULTI_ITER kernels. OUT names the output directory.
#   OUT=... SIZE=4096 bash scripts/gpu_shapes.sh multi,f16,8,4 multi,f16,16,4,4 ...
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-shapes-out}
SIZE=${SIZE:-4096}
B=build/gpu
mkdir -p "$OUT"
nvidia-smi -L
t0=$(date +%s)
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DOF_WERROR=ON >"$OUT/configure.log" 2>&1 ||
  { tail -20 "$OUT/configure.log"; exit 1; }
cmake --build "$B" -j16 --target oflow-bench gpu_parity gpu_stages gpu_memory >"$OUT/build.log" 2>&1 ||
  { grep -E "error|Error" "$OUT/build.log" | head -30; exit 1; }
echo "build $(($(date +%s) - t0)) s"
grep -B1 -E "spill stores" "$OUT/build.log" | grep -A1 multi_f16 | grep -E "spill" | head -6
(cd "$B" && timeout 200 ctest -L gpu --no-tests=error --output-on-failure --timeout 190) >"$OUT/ctest_gpu.log" 2>&1
echo "ctest -L gpu: $(grep -E 'tests passed|tests failed' "$OUT/ctest_gpu.log")"
grep -E "FAIL|fail" "$OUT/ctest_gpu.log" | head -20
"$B/tests/gpu/gpu_parity" >"$OUT/gpu_parity.txt" 2>&1 || echo "gpu_parity exit $?"
args=()
for s in "$@"; do args+=(--shape "$s"); done
timeout 240 "$B/samples/bench/oflow-bench" --shapes "$SIZE" "${args[@]}" 2>&1 | tee "$OUT/shapes.log"
if [ "${NCU:-0}" = 1 ]; then
  STALLS=""
  for r in barrier short_scoreboard long_scoreboard wait math_pipe_throttle mio_throttle not_selected selected \
           no_instruction dispatch_stall lg_throttle branch_resolving drain imc_miss tex_throttle; do
    STALLS="$STALLS${STALLS:+,}smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
  done
  obj=$(find "$B" -name 'tvl1_multi_f16x2_cuda.cu.o' | head -1)
  cuobjdump -sass "$obj" >"$OUT/f16.sass" 2>&1
  awk '/Function :/{f=$3} /^ +\/\*[0-9a-f]+\*\//{op=$2; sub(/\..*/,"",op); sub(/;/,"",op); c[f" "op]++} END{for(k in c) print c[k], k}' \
    "$OUT/f16.sass" | sort -k2,2 -k1,1nr >"$OUT/f16_mix.txt"
  timeout 120 ncu --clock-control none -k regex:k_multi_f16x2 -s 20 -c 1 --metrics "$STALLS" --section SchedulerStats --section WarpStateStats \
    --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis \
    "$B/samples/bench/oflow-bench" --shapes "$SIZE" --shape "${NCU_SHAPE:-multi,f16,8,4}" >"$OUT/ncu.txt" 2>&1
  grep -E "Issue Slots Busy|Issued Warp|No Eligible|Active Warps Per|Eligible Warps|Warp Cycles Per Issued|Achieved Occupancy|Registers Per|Theoretical Occ|Executed Ipc|stalled" "$OUT/ncu.txt" | head -50
fi
echo "total $(($(date +%s) - t0)) s"
