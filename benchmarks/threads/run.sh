#!/usr/bin/env bash
# Thread-scale benchmark: builds the profiler, then times programs with 1,000 and 10,000
# concurrent threads and 20,000 short-lived ones natively, under coz run, and under Debian's
# coz-profiler when installed. Takes ~10 minutes; run it on an idle machine.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/../../scripts/deps.sh"
bash "$here/../../scripts/build.sh" >/dev/null
python3 "$here/run.py"
