#!/usr/bin/env bash
# Time-to-confidence benchmark: builds the profiler, then profiles programs with known causal
# profiles for fixed budgets and prints how often the best line is found, with how wide an
# interval, ours and Debian Coz 0.2.2's side by side. The full run (15/30/60/120 s, 5 repetitions)
# takes about three hours; BUDGETS=60 REPS=3 about half an hour. Run it on an idle machine.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/../../scripts/deps.sh"
bash "$here/../../scripts/build.sh" >/dev/null
python3 "$here/run.py"
