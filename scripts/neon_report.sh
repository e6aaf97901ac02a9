#!/usr/bin/env bash
# NEON figures for the issue report, each printed after the command that produced it:
#  1. NEON vector instructions in the aarch64 liboflow.a (objdump -d): arithmetic (FP and
#     integer data processing, compares, selects, permutes, conversions), moves (mov, dup,
#     ins, umov, fmov, movi) and loads/stores, per object file, and per function for neon/;
#  2. executed instructions per pixel per inner iteration (calc_u + calc_p) of the reference,
#     NEON F32 and NEON F16 kernels under qemu-aarch64: the instructions run with N1 and N2
#     iterations are counted (qemu -singlestep -d exec,nochain: one log line per instruction)
#     and the difference is divided by pixels x (N2 - N1), which cancels start-up and set-up.
#
# Usage: scripts/neon_report.sh [BUILD_DIR [BUILD_DIR_F16]]   (commands on stderr, figures on stdout)
#   defaults build/neon-report (generic ARMv8-A) and build/neon-report-f16 (OF_BOARD=xavier:
#   armv8.2-a+fp16); each is configured and built with toolchains/aarch64-linux-gnu.cmake
#   when its liboflow.a is missing.
# Needs: aarch64-linux-gnu-g++ / objdump, qemu-aarch64 (user mode), cmake.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
B32=${1:-$ROOT/build/neon-report}
B16=${2:-$ROOT/build/neon-report-f16}
SYSROOT=/usr/aarch64-linux-gnu
QEMU=(qemu-aarch64 -L "$SYSROOT" -E "LD_LIBRARY_PATH=$SYSROOT/lib")
W=${OF_REPORT_W:-640}
H=${OF_REPORT_H:-8}
N1=1
N2=3

run() { # prints a command, then runs it
    echo "\$ $*" >&2
    "$@"
}

build() { # build dir, extra cmake args...
    local dir=$1
    shift
    if [ ! -f "$dir/liboflow.a" ]; then
        run cmake -S "$ROOT" -B "$dir" -DCMAKE_TOOLCHAIN_FILE="$ROOT/toolchains/aarch64-linux-gnu.cmake" \
            -DOF_WITH_CUDA=OFF -DOF_BUILD_TESTS=OFF -DOF_BUILD_SAMPLES=OFF "$@" >/dev/null
        run cmake --build "$dir" -j2 --target oflow >/dev/null
    fi
}

# Vector instruction counts of an archive: "class object function count" lines.
vector_census() {
    aarch64-linux-gnu-objdump -d -C --no-show-raw-insn "$1" | awk -F'\t' '
        /file format/ { split($0, a, ":"); obj = a[1]; next }
        /^[0-9a-f]+ <.*>:$/ { fn = substr($0, index($0, "<") + 1); sub(/>:$/, "", fn); next }
        NF >= 3 && $1 ~ /^ *[0-9a-f]+:$/ {
            mn = $2; ops = $3
            if (ops !~ /(^|[ ,{])v[0-9]+\.([0-9]*[bhsd])/) next
            if (mn ~ /^(ld|st)/) cls = "mem"
            else if (mn ~ /^(mov|movi|mvni|dup|ins|umov|smov|fmov)$/) cls = "move"
            else cls = "arith"
            n[cls "\t" obj "\t" fn]++
        }
        END { for (k in n) print k "\t" n[k] }'
}

report_census() { # archive, label
    local lib=$1 label=$2 census
    echo
    echo "== $label: NEON vector instructions in $lib"
    echo "\$ aarch64-linux-gnu-objdump -d -C --no-show-raw-insn $lib | awk (classify lines with v<n>.<arrangement> operands)" >&2
    census=$(vector_census "$lib")
    echo "$census" | awk -F'\t' '{ t[$1] += $4 } END { printf "total: %d arithmetic, %d moves, %d loads/stores\n", t["arith"], t["move"], t["mem"] }'
    echo "per object file (arithmetic / moves / loads+stores):"
    echo "$census" | awk -F'\t' '{ k = $2; o[k] = 1; c[k, $1] += $4 } END {
        for (k in o) printf "  %-24s %6d %6d %6d\n", k, c[k, "arith"], c[k, "move"], c[k, "mem"] }' | sort -k2,2nr
    echo "per function of neon/ (arithmetic instructions; static functions inlined into their callers):"
    echo "$census" | awk -F'\t' '$1 == "arith" && $2 ~ /_neon\.cpp\.o$/ { printf "  %-22s %5d  %s\n", $2, $4, $3 }' | sort -k2,2nr
}

# ---- the iteration harness: N iterations of calc_u + calc_p over a W x H state ------------------
TMP_DIR=$(mktemp -d)
trap 'rm -rf "$TMP_DIR"' EXIT
HARNESS_SRC=$TMP_DIR/neon_iter_count.cpp
cat >"$HARNESS_SRC" <<'EOF'
// path: ref (tvl1_calc_u_ref + tvl1_calc_p_ref), neon (tvl1_iter_rows_neon), f16 (..._f16_neon).
#include "core/ref/kernels_ref.hpp"
#include "neon/neon_kernels.hpp"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
int main(int argc, char** argv) {
    if (argc < 5) return 2;
    const char* path = argv[1];
    const int n = std::atoi(argv[2]), w = std::atoi(argv[3]), h = std::atoi(argv[4]);
    const std::ptrdiff_t pitch = (w + 15) / 16 * 16;
    std::vector<float> buf(static_cast<std::size_t>(pitch) * h * 10, 0.0f);
    oflow::Plane pl[10];
    for (int i = 0; i < 10; ++i) pl[i] = oflow::Plane{buf.data() + static_cast<std::size_t>(pitch) * h * i, w, h, pitch};
    unsigned s = 12345u;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            auto r = [&s](float lo, float hi) { s = s * 1664525u + 1013904223u; return lo + (hi - lo) * static_cast<float>(s >> 8) / 16777216.0f; };
            pl[0].row(y)[x] = r(-3, 3); pl[1].row(y)[x] = r(-3, 3);          // u (p: 0, as at a level's start)
            const float ix = r(-40, 40), iy = r(-40, 40);
            pl[6].row(y)[x] = ix; pl[7].row(y)[x] = iy; pl[8].row(y)[x] = ix * ix + iy * iy;
            pl[9].row(y)[x] = r(-20, 20) - ix * pl[0].row(y)[x] - iy * pl[1].row(y)[x];
        }
    oflow::Tvl1IterArgs a{pl[0], pl[1], pl[2], pl[3], pl[4], pl[5], pl[6], pl[7], pl[8], pl[9], 0.045f, 0.3f, 0.25f / 0.3f};
    double e = 0.0;
    for (int i = 0; i < n; ++i) {
        if (!std::strcmp(path, "ref")) {
            e += oflow::tvl1_calc_u_ref(a, 0, h);
            oflow::tvl1_calc_p_ref(a, 0, h);
        } else if (!std::strcmp(path, "neon")) {
            e += oflow::tvl1_iter_rows_neon(a, 0, h);
#if defined(__ARM_FEATURE_FP16_VECTOR_ARITHMETIC)
        } else if (!std::strcmp(path, "f16")) {
            e += oflow::tvl1_iter_rows_f16_neon(a, 0, h);
#endif
        } else {
            return 2;
        }
    }
    std::printf("%g\n", e);
    return 0;
}
EOF

count_insns() { # binary path iterations -> executed instructions
    "${QEMU[@]}" -singlestep -d exec,nochain -D /dev/stdout "$1" "$2" "$3" "$W" "$H" | grep -c '^Trace'
}

report_per_pixel() { # build dir, label, compiler flags ("" for none), paths...
    local dir=$1 label=$2 flags=$3
    shift 3
    local bin=$dir/neon_iter_count
    # shellcheck disable=SC2086
    run aarch64-linux-gnu-g++ -O3 -std=c++17 $flags -I"$ROOT" -I"$ROOT/api" "$HARNESS_SRC" \
        "$dir/liboflow.a" -lpthread -o "$bin"
    echo
    echo "== $label: executed instructions per pixel per iteration (calc_u + calc_p), ${W}x${H}, qemu -singlestep"
    for p in "$@"; do
        echo "\$ ${QEMU[*]} -singlestep -d exec,nochain -D /dev/stdout $bin $p {$N1,$N2} $W $H | grep -c '^Trace'" >&2
        local c1 c2
        c1=$(count_insns "$bin" "$p" "$N1")
        c2=$(count_insns "$bin" "$p" "$N2")
        awk -v p="$p" -v a="$c1" -v b="$c2" -v px=$((W * H)) -v d=$((N2 - N1)) \
            'BEGIN { printf "  %-5s %7.2f instructions / pixel / iteration\n", p, (b - a) / (px * d) }'
    done
}

build "$B32"
build "$B16" -DOF_BOARD=xavier
report_census "$B32/liboflow.a" "generic ARMv8-A build"
report_census "$B16/liboflow.a" "ARMv8.2-A+FP16 build (OF_BOARD=xavier)"
report_per_pixel "$B32" "generic ARMv8-A build" "" ref neon
report_per_pixel "$B16" "ARMv8.2-A+FP16 build (OF_BOARD=xavier)" "-march=armv8.2-a+fp16" ref neon f16
