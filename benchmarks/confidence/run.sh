#!/usr/bin/env bash
# Time-to-confidence benchmark: builds the profiler, then profiles programs with known causal
# profiles for fixed budgets (one whose throughput drifts through each run, under --budget) and
# prints how often the best line is found, with how wide an interval, how often lines that change
# nothing are flagged and intervals hold the known effects, ours and Debian Coz 0.2.2's side by
# side. REPORTERS=new=a/coz,old=b/coz judges the same profiles with two builds' `coz report`;
# JUDGE_ONLY=1 judges the kept profiles again without running anything. The full run
# (15/30/60/120 s, 5 repetitions) takes about four hours; BUDGETS=60 REPS=3 about 40 minutes.
# Run it on an idle machine: with more threads than CPUs the profiler's delays, counted in CPU
# time, shrink known effects and give a busy thread's lines that change nothing an effect.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/../../scripts/deps.sh"
bash "$here/../../scripts/build.sh" >/dev/null
python3 "$here/run.py"
