#!/usr/bin/env bash
# Installs what is needed, builds, and runs the whole test suite with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
cd build
# One test at a time: the end-to-end tests profile real programs and compare what the profile
# says about them, which needs the two cores to itself (under `ctest -j2` a Chromium or another
# profiled program shares them and the ranking tests can fail).
ctest --output-on-failure --timeout 300 -j 1
