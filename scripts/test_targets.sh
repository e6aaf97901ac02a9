#!/usr/bin/env bash
# Prints the CMake targets whose programs a CTest test preset runs, one per line, so that a stage
# of scripts/test.sh builds those alone (the aarch64 and FP16 stages run 16 and 6 of the suite's
# tests under qemu; building the other test programs cost them a minute each). A program is any
# path under the preset's build folder in a test's command line (qemu's argument or the command
# itself) that is not a data file; its file name is its target's name (every add_executable of the
# project names its program so). The build folder must be configured (ctest reads its
# CTestTestfile.cmake). A test whose program was not built fails as "Could not find executable",
# so a list that falls behind the filter turns the stage red instead of running fewer tests.
#
# Usage: scripts/test_targets.sh TEST_PRESET BUILD_DIR
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: test_targets.sh TEST_PRESET BUILD_DIR" >&2; exit 2; }
preset=$1
dir=$(cd "$2" && pwd)
ctest --preset "$preset" -N -V 2>/dev/null |
  grep -E '^[0-9]+: Test command:' |
  grep -oE "$dir/[^ \"|;]+" |
  grep -vE '\.(json|xml|tsv|txt|png|flo)$' |
  sed 's|.*/||' | sort -u
