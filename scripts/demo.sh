#!/usr/bin/env bash
# Builds liboflow (the NEON kernels through SIMDe on x86-64) and runs the main job on built-in
# frames: TV-L1 flow of a generated rotation + zoom pair, written as demo.flo and the colour
# image demo.png, EPE printed.
# Its own build folder (build/demo): the test command's presets keep theirs, in either order.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh build-essential cmake pkg-config libpng-dev libtinyxml2-dev
# x86-64: the NEON kernels through SIMDe (scripts/simde.sh fetches its headers once); without
# them the build still works, on the reference path.
simde=""
case "$(uname -m)" in
x86_64) simde=$(bash scripts/simde.sh) || simde="" ;;
esac
cmake -S . -B build/demo -DCMAKE_BUILD_TYPE=Release -DOF_BUILD_TESTS=OFF ${simde:+-DOF_SIMDE_INCLUDE="$simde"} >/dev/null
cmake --build build/demo -j"$(nproc)" --target oflow-cli
build/demo/samples/oflow-cli --synth rotation-zoom --size 640x480 --threads "$(nproc)" \
  -o demo.flo --color demo.png
echo "wrote demo.flo and demo.png (Middlebury colour wheel)"
