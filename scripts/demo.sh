#!/usr/bin/env bash
# Installs what is needed, builds, and profiles the bundled example program.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
rm -f build/example.coz
./build/bin/coz run -o build/example.coz --- ./build/bin/coz-example
echo
echo "Profile: $(pwd)/build/example.coz"
