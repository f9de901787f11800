#!/usr/bin/env bash
# Issue 51's samplers without perf_event, side by side (designs.c says what each is): the cost of
# sampling (% of a core beyond the busy thread's own time), samples per second of the busy
# thread's CPU time and the CPU time between them, with 1, 10, 100 and 1,000 idle threads, and
# with the idle threads alone. SECONDS (default 3) per case; run with nothing else on the CPU.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(mktemp -d)/designs
trap 'rm -rf "$(dirname "$bin")"' EXIT
gcc -O2 -Wall -o "$bin" "$here/designs.c" -lpthread
seconds=${SECONDS_EACH:-3}
for idle in 1 10 100 1000; do
  for mode in timer thread wake; do
    "$bin" "$mode" "$idle" "$seconds"
  done
done
echo "# the idle threads alone (no busy thread)"
for idle in 10 1000; do
  for mode in timer thread; do
    "$bin" "$mode" "$idle" "$seconds" 6 0
  done
done
echo "# wall-clock timers per thread (woken while blocked)"
"$bin" wall 10 "$seconds"
