#!/usr/bin/env bash
# Fetches Debian bookworm's CUDA 11.8 (package nvidia-cuda-toolkit, component non-free) into a
# cache folder and unpacks it there, for the Jetson architectures CUDA 13 cannot compile
# (sm_53 Nano, sm_62 TX2, sm_72 Xavier). The machine's apt sources are never touched: apt runs
# with a private configuration (its own sources.list, package lists and archive folder inside
# the cache), `apt-get download` fetches the .deb files, `dpkg-deb` unpacks only what a
# compile-and-resource check needs. Nothing is installed, nothing runs as a service.
#
# Usage: scripts/jetson_toolkit.sh [--arm64]
#   prints the toolkit root on stdout (the folder holding bin/nvcc); messages go to stderr.
#   --arm64 also fetches the aarch64 CUDA runtime (libcudart_static.a of nvidia-cuda-dev:arm64,
#           about 0.7 GB more) that the cross link of the jetson-* presets needs.
#
# Cache: $OF_JETSON_CACHE, default ${XDG_CACHE_HOME:-$HOME/.cache}/oflow/cuda-11.8. Kept between
# runs: a second run with a complete cache downloads nothing. Downloads once: about 0.87 GB of
# .deb files (nvidia-cuda-toolkit, nvidia-cuda-dev, libnvvm4, libcudart11.0, libcub-dev,
# libcu++-dev), deleted after unpacking; about 0.4 GB stays unpacked. With --arm64: 0.67 GB
# more download, 3 MB more kept.
#
# The unpacked tree, in NVIDIA's layout so CMake's CUDA support and toolchains/jetson.cmake
# take it as CUDAToolkit_ROOT:
#   bin/         nvcc, cicc, ptxas, fatbinary, nvlink, cuobjdump, ... and nvcc.profile (paths
#                relative to nvcc, so the folder can move)
#   nvvm/libdevice, include/, lib64/ (x86-64 static runtime, for CMake's compiler check), the
#   same as targets/x86_64-linux/{include,lib}
#   targets/aarch64-linux/{include,lib} (with --arm64)
# nvcc 11.8 takes g++ <= 11 as host compiler: g++-11 on bookworm (scripts/deps.sh installs it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

arm64=0
for a in "$@"; do
  case "$a" in
  --arm64) arm64=1 ;;
  *) echo "jetson_toolkit.sh: unknown argument '$a' (usage: jetson_toolkit.sh [--arm64])" >&2; exit 2 ;;
  esac
done

cache=${OF_JETSON_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/oflow/cuda-11.8}
root=$cache/toolkit
stamp=$root/.oflow-complete          # written last: a half-unpacked tree is never taken
stamp_arm=$root/.oflow-arm64-complete
if [ -f "$stamp" ] && { [ $arm64 -eq 0 ] || [ -f "$stamp_arm" ]; }; then
  echo "$root"
  exit 0
fi

# apt-get and dpkg-deb come with every Debian/Ubuntu; the Debian archive key is on every Debian
# and is a package on Ubuntu.
bash "$here/deps.sh" debian-archive-keyring xz-utils >&2

mkdir -p "$cache/apt/lists/partial" "$cache/apt/archives/partial" "$cache/debs"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main contrib non-free" \
  >"$cache/apt/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$cache/apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt"
  -o "Dir::State::status=/dev/null" -o "APT::Architecture=amd64"
  -o "APT::Architectures::=amd64" -o "APT::Architectures::=arm64"
  -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")

echo "jetson_toolkit: Debian bookworm package lists (private apt configuration in $cache/apt)" >&2
apt-get "${apt_opts[@]}" update -qq >&2

fetch() { # fetch PKG...: into $cache/debs unless there already
  local need=()
  for p in "$@"; do
    local name=${p%%:*} arch=amd64
    [[ "$p" == *:* ]] && arch=${p##*:}
    ls "$cache/debs/${name}_"*"_${arch}.deb" "$cache/debs/${name}_"*"_all.deb" >/dev/null 2>&1 || need+=("$p")
  done
  [ ${#need[@]} -eq 0 ] && return 0
  echo "jetson_toolkit: downloading ${need[*]}" >&2
  (cd "$cache/debs" && apt-get "${apt_opts[@]}" download "${need[@]}" >&2)
}

# unpack DEB DEST [MEMBER...]: the named members (tar wildcards) of DEB, or all of it.
unpack() {
  local deb=$1 dest=$2
  shift 2
  mkdir -p "$dest"
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dest" --wildcards "$@"
}

stage=$cache/unpack.tmp
if [ ! -f "$stamp" ]; then
  fetch nvidia-cuda-toolkit nvidia-cuda-dev libnvvm4 libcudart11.0 libcub-dev libcu++-dev
  rm -rf "$stage" "$root"
  echo "jetson_toolkit: unpacking into $root" >&2
  unpack "$cache/debs"/nvidia-cuda-toolkit_*_amd64.deb "$stage" ./usr/bin ./usr/lib/nvidia-cuda-toolkit
  unpack "$cache/debs"/libnvvm4_*_amd64.deb "$stage" ./usr/lib/x86_64-linux-gnu
  unpack "$cache/debs"/libcudart11.0_*_amd64.deb "$stage" ./usr/lib/x86_64-linux-gnu
  unpack "$cache/debs"/libcub-dev_*_all.deb "$stage" ./usr/include
  unpack "$cache/debs"/libcu++-dev_*_all.deb "$stage" ./usr/include
  # nvidia-cuda-dev is mostly the math libraries (3 GB unpacked): only the headers and the
  # runtime's static archives.
  unpack "$cache/debs"/nvidia-cuda-dev_*_amd64.deb "$stage" ./usr/include \
    './usr/lib/x86_64-linux-gnu/libcudart*' './usr/lib/x86_64-linux-gnu/libcudadevrt.a' \
    './usr/lib/x86_64-linux-gnu/libculibos.a'

  # NVIDIA's layout: bin/ holds links to every tool (nvcc finds cicc and the others through
  # nvcc.profile's PATH, which names bin/ itself), the rest are links too.
  mkdir -p "$root"
  mv "$stage/usr" "$root/usr"
  rmdir "$stage"
  mkdir -p "$root/bin" "$root/nvvm"
  for t in "$root"/usr/lib/nvidia-cuda-toolkit/bin/*; do
    case "${t##*/}" in nvcc.profile | g++ | gcc) continue ;; esac
    ln -s "../usr/lib/nvidia-cuda-toolkit/bin/${t##*/}" "$root/bin/${t##*/}"
  done
  for t in ptxas fatbinary nvlink cuobjdump nvdisasm cudafe++ bin2c nvprune cu++filt; do
    ln -s "../usr/bin/$t" "$root/bin/$t"
  done
  ln -s ../usr/lib/nvidia-cuda-toolkit/libdevice "$root/nvvm/libdevice"
  ln -s usr/include "$root/include"
  ln -s usr/lib/x86_64-linux-gnu "$root/lib64"
  mkdir -p "$root/targets/x86_64-linux"
  ln -s ../../usr/include "$root/targets/x86_64-linux/include"
  ln -s ../../usr/lib/x86_64-linux-gnu "$root/targets/x86_64-linux/lib"
  # Debian's nvcc.profile is a link to /etc/nvcc.profile, with absolute /usr paths. nvcc reads
  # the profile beside the path it was started by (bin/nvcc), so this one, relative to it,
  # makes the cache's headers and libraries the only ones used, and the folder movable.
  # --target-directory aarch64-linux (toolchains/jetson.cmake) selects targets/aarch64-linux.
  rm -f "$root/usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile"
  cat >"$root/bin/nvcc.profile" <<'EOF'
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
PATH            += $(_HERE_):
INCLUDES        += "-I$(TOP)/$(_TARGET_DIR_)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/$(_TARGET_DIR_)/lib$(_TARGET_SIZE_)"
EOF
  version=$("$root/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
  if [ "$version" != "11.8" ]; then
    echo "jetson_toolkit: expected CUDA 11.8 from bookworm, nvcc says '$version'" >&2
    exit 1
  fi
  rm -f "$cache/debs"/*.deb
  touch "$stamp"
fi

if [ $arm64 -eq 1 ] && [ ! -f "$stamp_arm" ]; then
  fetch nvidia-cuda-dev:arm64
  rm -rf "$stage" "$root/targets/aarch64-linux"
  unpack "$cache/debs"/nvidia-cuda-dev_*_arm64.deb "$stage" \
    './usr/lib/aarch64-linux-gnu/libcudart_static.a' './usr/lib/aarch64-linux-gnu/libcudadevrt.a' \
    './usr/lib/aarch64-linux-gnu/libculibos.a'
  mkdir -p "$root/targets/aarch64-linux"
  mv "$stage/usr/lib/aarch64-linux-gnu" "$root/targets/aarch64-linux/lib"
  rm -rf "$stage"
  ln -s ../../usr/include "$root/targets/aarch64-linux/include"
  ln -s lib "$root/targets/aarch64-linux/lib64"
  rm -f "$cache/debs"/*_arm64.deb
  touch "$stamp_arm"
fi
echo "$root"
