#!/usr/bin/env bash
# Builds the Debian package: installs what is needed (scripts/deps.sh), configures build-deb/
# with prefix /usr and no tests, builds, and runs cpack. Prints the .deb's path on the last line.
# Install it with: sudo apt-get install ./build-deb/coz-amp_<version>_<arch>.deb
# (it replaces Debian's coz-profiler, which installs the same `coz` and coz.h).
# BUILD_DIR=<dir> builds elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
dir="${BUILD_DIR:-build-deb}"
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
  -DBUILD_TESTING=OFF >/dev/null
cmake --build "$dir" -j "$(nproc)"
(cd "$dir" && cpack -G DEB >/dev/null)
ls -1t "$dir"/coz-amp_*.deb | head -1
