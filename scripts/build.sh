#!/usr/bin/env bash
# Configures and builds into build/ (Release with debug info). Idempotent. With arguments, builds
# only those targets (scripts/demo.sh builds what the demo runs); without, everything.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
if [ $# -gt 0 ]; then
  cmake --build build -j "$(nproc)" --target "$@"
else
  cmake --build build -j "$(nproc)"
fi
