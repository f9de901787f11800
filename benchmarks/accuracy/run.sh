#!/usr/bin/env bash
# Accuracy benchmark: builds the profiler and the ground-truth programs, then prints actual vs
# predicted effects for each case and speedup. Takes ~10 minutes; run it on an idle machine.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/../../scripts/deps.sh"
bash "$here/../../scripts/build.sh" >/dev/null
python3 "$here/run.py"
