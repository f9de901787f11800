#!/usr/bin/env python3
"""Time and peak memory of `coz report` and `coz plot` on profiles of many lines.

Generates synthetic profiles (profiles.py: every line tried 10 times at the profiler's speedups,
half of them baselines) of 2,000, 10,000 and 100,000 lines, and runs each command on each with
this build and, beside it, a build before (--before PATH/TO/bin/coz), interleaved, printing the
median wall time and the peak resident memory. Debian's Coz 0.2.2 has no command-line analysis
(its viewer reads a profile in the browser), so it has no column here; benchmarks/startup compares
the line map's start-up with it.

usage: run.py [--before COZ] [--lines 2000,10000,100000] [--runs N]   (default runs: 3)
Nothing else should be running: the analysis uses every core.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from profiles import write_profile  # noqa: E402

ROOT = HERE.parents[1]


def measure(argv):
    """(wall seconds, peak RSS in MB, exit status) of one command."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return time.monotonic() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coz", default=str(ROOT / "build" / "bin" / "coz"))
    ap.add_argument("--before", help="a build before, to run beside this one")
    ap.add_argument("--lines", default="2000,10000,100000")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    work = HERE / "work"
    work.mkdir(exist_ok=True)
    builds = [("this build", args.coz)] + ([("before", args.before)] if args.before else [])
    scratch = tempfile.mkdtemp()
    print(f"{'profile':<26} {'command':<7} " + "  ".join(f"{n:>22}" for n, _ in builds))
    for lines in (int(n) for n in args.lines.split(",")):
        path = work / f"lines{lines}.coz"
        if not path.exists():
            write_profile(path, lines)
        label = f"{lines} lines ({path.stat().st_size // 2**20} MB)"
        for command in ("report", "plot"):
            results = {name: [] for name, _ in builds}
            for _ in range(args.runs):
                for name, coz in builds:
                    argv = [coz, "report", str(path)] if command == "report" else \
                        [coz, "plot", "-o", os.path.join(scratch, "p.html"), str(path)]
                    results[name].append(measure(argv))
            cells = []
            for name, _ in builds:
                r = results[name]
                ok = all(status == 0 for _, _, status in r)
                cells.append(f"{statistics.median(t for t, _, _ in r):7.2f} s {max(m for _, m, _ in r):6.0f} MB"
                             + ("" if ok else " (FAILED)"))
            print(f"{label:<26} {command:<7} " + "  ".join(f"{c:>22}" for c in cells), flush=True)


if __name__ == "__main__":
    main()
