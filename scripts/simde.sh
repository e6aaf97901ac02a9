#!/usr/bin/env bash
# Provides SIMDe ("SIMD Everywhere", header-only) for the x86-64 build of the NEON kernels
# (neon/neon_util.hpp: <simde/arm/neon.h> where the target is not AArch64). Prints the include
# root (the folder holding simde/) on stdout; messages go to stderr.
#
# The kernels need SIMDe 0.8 or later: Debian bookworm's libsimde-dev (0.7.4~rc2) lacks
# vdivq_f32, vsqrtq_f32, vfmsq_f32 and the f64 forms they use. Order of preference:
#   1. $OF_SIMDE_INCLUDE, when set (a folder holding simde/arm/neon.h);
#   2. the system's libsimde-dev (/usr/include/simde), when its version is 0.8 or later;
#   3. Debian trixie's libsimde-dev, fetched once into a cache folder with a private apt
#      configuration (its own sources.list, package lists and archive folder inside the cache):
#      the machine's apt sources are never touched, nothing is installed (dpkg-deb unpacks the
#      headers only). About 1 MB downloaded, 6 MB kept.
#
# Cache: ${XDG_CACHE_HOME:-$HOME/.cache}/oflow/simde (or $OF_SIMDE_CACHE). A second run with a
# complete cache downloads nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

# simde_version DIR: "MAJOR.MINOR.MICRO" of the SIMDe headers under DIR (simde/simde-common.h).
simde_version() {
  local h=$1/simde/simde-common.h
  [ -f "$h" ] || return 1
  local ma mi mc
  ma=$(sed -n 's/^#define SIMDE_VERSION_MAJOR \([0-9]*\).*/\1/p' "$h")
  mi=$(sed -n 's/^#define SIMDE_VERSION_MINOR \([0-9]*\).*/\1/p' "$h")
  mc=$(sed -n 's/^#define SIMDE_VERSION_MICRO \([0-9]*\).*/\1/p' "$h")
  [ -n "$ma" ] && [ -n "$mi" ] || return 1
  echo "$ma.$mi.${mc:-0}"
}
recent_enough() { # recent_enough DIR: SIMDe 0.8 or later there
  local v
  v=$(simde_version "$1") || return 1
  local ma=${v%%.*} rest=${v#*.}
  local mi=${rest%%.*}
  [ "$ma" -gt 0 ] || [ "$mi" -ge 8 ]
}

if [ -n "${OF_SIMDE_INCLUDE:-}" ]; then
  if ! recent_enough "$OF_SIMDE_INCLUDE"; then
    echo "simde: OF_SIMDE_INCLUDE=$OF_SIMDE_INCLUDE holds no SIMDe 0.8 or later (simde/simde-common.h)" >&2
    exit 1
  fi
  echo "$OF_SIMDE_INCLUDE"
  exit 0
fi
if recent_enough /usr/include; then
  echo /usr/include
  exit 0
fi

cache=${OF_SIMDE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/oflow/simde}
root=$cache/include
stamp=$cache/.oflow-complete # written last: a half-unpacked tree is never taken
if [ -f "$stamp" ] && recent_enough "$root"; then
  echo "$root"
  exit 0
fi

bash "$here/deps.sh" debian-archive-keyring >&2
mkdir -p "$cache/apt/lists/partial" "$cache/apt/archives/partial" "$cache/debs"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" \
  >"$cache/apt/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$cache/apt/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt"
  -o "Dir::State::status=/dev/null" -o "APT::Architecture=amd64"
  -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")
echo "simde: Debian trixie package lists (private apt configuration in $cache/apt)" >&2
apt-get "${apt_opts[@]}" update -qq >&2
rm -f "$cache/debs"/*.deb
echo "simde: downloading libsimde-dev (trixie)" >&2
(cd "$cache/debs" && apt-get "${apt_opts[@]}" download libsimde-dev >&2)
rm -rf "$cache/unpack.tmp" "$root"
mkdir -p "$cache/unpack.tmp"
dpkg-deb --fsys-tarfile "$cache/debs"/libsimde-dev_*_all.deb | tar -x -C "$cache/unpack.tmp" ./usr/include/simde
mv "$cache/unpack.tmp/usr/include" "$root"
rm -rf "$cache/unpack.tmp" "$cache/debs"/*.deb "$cache/apt/lists" "$cache/apt"/*.bin
if ! recent_enough "$root"; then
  echo "simde: the fetched headers are not SIMDe 0.8 or later ($(simde_version "$root" || echo unknown))" >&2
  exit 1
fi
touch "$stamp"
echo "$root"
