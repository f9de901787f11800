#!/usr/bin/env bash
# Start-up benchmark: builds the profiler and a generated program with tens of MB of DWARF (once;
# kept in benchmarks/startup/work), then prints exec->main medians with and without profilers.
# Nothing else should be running: timings on 2 cores swing with any other load.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
bash "$root/scripts/deps.sh"
command -v python3 >/dev/null || { echo "needs python3 (apt-get install python3)" >&2; exit 1; }
bash "$root/scripts/build.sh" >/dev/null
# WORK=dir keeps another size apart (BIG_UNITS=80 for about 220 MB of DWARF 3); BEFORE=path/to/coz
# adds another build's columns.
work="${WORK:-$here/work}"
mkdir -p "$work"
python3 "$here/gen_big.py" "$work/src"
cp "$here/Makefile" "$work/Makefile"
echo "building the big program (a few minutes the first time)..."
make -C "$work" -j "$(nproc)" -s
python3 "$here/measure.py" "$work" "$root/build/bin/coz"
