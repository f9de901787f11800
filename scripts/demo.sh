#!/usr/bin/env bash
# Installs what the demo needs (not the tests' tools: scripts/deps.sh demo), builds, and profiles
# the bundled example program.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh demo
# Only what the demo runs: the runtime, the CLI, the example, and the viewer `coz plot` bundles
# (52 of the 194 unity build steps the test command has: no tests, and no profile reader
# unless its toolchain is installed; docs/testing.md has the times).
bash scripts/build.sh coz coz_cli coz-example coz_viewer
rm -f build/example.coz
# Four short runs with 20 ms experiments give every hot line a few speedups to compare.
./build/bin/coz run -o build/example.coz --experiment-length 20ms --runs 4 --- ./build/bin/coz-example
echo
./build/bin/coz report build/example.coz
echo
echo "Profile: $(pwd)/build/example.coz"
# The same profile as a page that opens from disk, with no server and no network.
echo "Report:  $(./build/bin/coz plot -o "$(pwd)/build/example.html" build/example.coz)"
if [ ! -f build/share/coz-amp/viewer/coz-reader.wasm ]; then
  # Built without the WebAssembly toolchain (scripts/deps.sh installs it; the test command does).
  echo "         (its \"open profile\" takes JSON reports, coz report --json; .coz profiles need the"
  echo "         profile reader, built once \`bash scripts/deps.sh\` has installed its toolchain)"
fi
