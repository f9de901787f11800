#!/usr/bin/env bash
# Real-program benchmark: fetches SQLite, zstd and ripgrep from crates.io (through cargo), patches
# in a progress point and a line of known work, builds them, then prints attribution and accuracy
# (ours and Debian's Coz 0.2 when installed). RUNS=N (default 5). Work files: benchmarks/real/work/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ ! -x "$here/../../build/bin/coz" ] && [ -z "${COZ:-}" ]; then
  bash "$here/../../scripts/build.sh" >/dev/null
fi
python3 "$here/run.py"
