#!/usr/bin/env bash
# Installs what is needed, builds, and runs the whole test suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
cd build
# Tests that time nothing run side by side, one per core; the end-to-end tests, which profile
# real programs and compare what the profile says, each run alone (RUN_SERIAL in
# tests/CMakeLists.txt).
ctest --output-on-failure --timeout 300 -j "$(nproc)"
