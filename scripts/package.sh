#!/usr/bin/env bash
# Builds the Debian package (for /usr) and prints the .deb's path on the last line.
# Install it with: sudo apt-get install ./build-deb/coz-amp_<version>_<arch>.deb
# (it replaces Debian's coz-profiler, which installs the same `coz` and coz.h).
# usage: scripts/package.sh
#          installs what is needed (scripts/deps.sh), configures build-deb/ with no tests (or
#          BUILD_DIR=<dir>), builds it and packages it there
#        scripts/package.sh --built BUILD_DIR [OUT_DIR]
#          packages a build tree as it is, built already (the tests package theirs:
#          tests/install/deb_test.sh), into OUT_DIR (default BUILD_DIR); builds nothing
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --built ]; then
  dir="${2:?usage: scripts/package.sh --built BUILD_DIR [OUT_DIR]}"
  out="${3:-$dir}"
else
  bash scripts/deps.sh
  dir="${BUILD_DIR:-build-deb}"
  out="$dir"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
    -DBUILD_TESTING=OFF -DCOZ_PAGE_READER=ON >/dev/null
  cmake --build "$dir" -j "$(nproc)"
fi
if [ ! -f "$dir/share/coz-amp/viewer/coz-reader.wasm" ]; then
  echo "package.sh: $dir has no profile reader (configure it with -DCOZ_PAGE_READER=ON)" >&2
  exit 1
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
(cd "$dir" && cpack -G DEB -B "$out" >/dev/null)
ls -1t "$out"/coz-amp_*.deb | head -1
