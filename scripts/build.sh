#!/usr/bin/env bash
# Configures and builds into build/ (Release with debug info). Idempotent. With arguments, builds
# only those targets (scripts/demo.sh builds what the demo runs), and the viewer's profile reader
# only if its WebAssembly toolchain is installed (COZ_PAGE_READER=AUTO: `scripts/deps.sh demo`
# leaves it out); without, everything, the reader included (COZ_PAGE_READER=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
reader=ON
if [ $# -gt 0 ]; then
  reader=AUTO
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOZ_PAGE_READER=$reader >/dev/null
if [ $# -gt 0 ]; then
  cmake --build build -j "$(nproc)" --target "$@"
else
  cmake --build build -j "$(nproc)"
fi
