#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages a script needs, only when some are missing.
# Usage: scripts/deps.sh PKG...   (root, or sudo without a password)
# PKG may name a foreign architecture (libpng-dev:arm64, Debian multiarch); that architecture
# is then added to dpkg first.
set -euo pipefail
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
native=$(dpkg --print-architecture)
for p in "${missing[@]}"; do
  case "$p" in
  *:*)
    arch=${p##*:}
    if [ "$arch" != "$native" ] && [ "$arch" != "all" ] &&
       ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
      echo "deps: adding the $arch architecture to dpkg (multiarch)"
      $SUDO dpkg --add-architecture "$arch"
    fi
    ;;
  esac
done
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
