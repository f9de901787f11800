#!/usr/bin/env bash
# Configures and builds into build/ (Release with debug info). Idempotent. With arguments, builds
# only those targets (scripts/demo.sh builds what the demo runs), and the viewer's profile reader
# only if its WebAssembly toolchain is installed (COZ_PAGE_READER=AUTO: `scripts/deps.sh demo`
# leaves it out); without, everything, the reader included (COZ_PAGE_READER=ON).
# Each target compiles as unity files of up to 8 sources (CMAKE_UNITY_BUILD): the headers they
# share (CLI11, GoogleTest, the standard library) are parsed, and their inline code compiled, once
# per batch instead of once per file, which halves a fresh build (docs/testing.md). An editor's
# build that recompiles one file at a time: COZ_UNITY=OFF bash scripts/build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
reader=ON
if [ $# -gt 0 ]; then
  reader=AUTO
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOZ_PAGE_READER=$reader \
  -DCMAKE_UNITY_BUILD="${COZ_UNITY:-ON}" >/dev/null
if [ $# -gt 0 ]; then
  cmake --build build -j "$(nproc)" --target "$@"
else
  cmake --build build -j "$(nproc)"
fi
