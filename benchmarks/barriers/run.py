#!/usr/bin/env python3
"""Data-parallel loops that meet at barriers: ground truth for issue 47.

programs/loop.c runs rounds of a data-parallel loop: each thread processes its share of the
points, line a and line b per point (dependent multiply chains), and the threads meet before the
next round. The ways they meet (WAY): pthread_barrier_wait; a mutex + condition-variable barrier
(PARSEC's parsec_barrier); a barrier that spins for 0.1 ms and then blocks; a thread pool whose
main thread hands out each round and waits for it; an OpenMP `parallel for` (gcc's libgomp), as
it comes and with OMP_WAIT_POLICY=active. Each at 2 threads and at 4 threads on the machine's
cores (oversubscribed on 2 cores), with 256 points a round (rounds of about 60-90 us: many
meetings per sampling period) and, for the pthread barrier, 16,384 (rounds of a few ms).

The true effect of making line a S faster is 1 - T(S)/T(0), T being native time per round with
that share of line a's work removed (BR_A_SHARE); the prediction is `coz run --end-to-end
--fixed-line loop.c:A --fixed-speedup S` on the unmodified program, as in benchmarks/accuracy
(whose Measure and error columns this uses: medians over RUNS repetitions of ratios within one
repetition, every configuration of a case run back to back in each).

Columns: this build (build/bin/coz, or COZ=...) with its perf sampler, and with perf_event_open
refused by a seccomp filter (tests/programs/deny_perf.c: the timer sampler); BEFORE=path/to/bin/coz
adds another build's two columns, interleaved; Debian's Coz 0.2.2 when installed (SKIP_DEBIAN=1
leaves it out), from DWARF 3 builds.

Environment: RUNS (default 3), SPEEDUPS (default 0.25,0.5,0.75), BR_SECONDS (each run's length,
default 2), CASES (substrings of case names to run), SAMPLERS (default perf,timer).
Usage: python3 benchmarks/barriers/run.py
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "accuracy"))
from run import (deny_perf_wrapper, effect, error_cells, fixed_line_period, line_marked,  # noqa: E402
                 new_summary, print_summary)

RUNS = int(os.environ.get("RUNS", "3"))
SPEEDUPS = [float(s) for s in os.environ.get("SPEEDUPS", "0.25,0.5,0.75").split(",")]
SECONDS = os.environ.get("BR_SECONDS", "2")
WORK = os.path.join(HERE, "work")

WAYS = [  # name, WAY, extra environment
    ("pthread_barrier", 1, {}),
    ("mutex+cond barrier", 2, {}),
    ("spin-then-block barrier", 3, {}),
    ("thread-pool fork-join", 4, {}),
    ("OpenMP parallel for", 5, {}),
    ("OpenMP parallel for, OMP_WAIT_POLICY=active", 5, {"OMP_WAIT_POLICY": "active"}),
]
CASES = [(f"{name}, {threads} threads", way, dict(extra, BR_THREADS=str(threads)))
         for threads in (2, 4) for name, way, extra in WAYS]
CASES.append(("pthread_barrier, 2 threads, rounds of ms", 1, {"BR_THREADS": "2", "BR_POINTS": "16384"}))


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def line_a():
    return f"loop.c:{line_marked(os.path.join(HERE, 'programs', 'loop.c'), '/* line a */')}"


def build(way, debug, suffix=""):
    out = os.path.join(WORK, f"loop{way}{suffix}")
    run(["gcc", "-O1", *debug, f"-DWAY={way}", *(["-fopenmp"] if way == 5 else []), "-I",
         os.path.join(ROOT, "include"), os.path.join(HERE, "programs", "loop.c"), "-o", out,
         "-lpthread"])
    return out


def environment(extra, **more):
    return dict(os.environ, BR_SECONDS=SECONDS, **extra, **more)


def real_period(binary, extra, speedup):
    out = run([binary], env=environment(extra, BR_A_SHARE=str(1 - speedup)), stdout=subprocess.PIPE,
              text=True).stdout.split()
    return int(out[out.index("elapsed_ns") + 1]) / int(out[out.index("visits") + 1])


def predicted_period(coz, binary, extra, speedup, scratch, debian=False):
    return fixed_line_period(coz, [binary], line_a(), speedup, scratch, environment(extra),
                             profile=None if debian else "profile.coz")


def main():
    os.makedirs(WORK, exist_ok=True)
    only = os.environ.get("CASES")
    ours = os.environ.get("COZ", os.path.join(ROOT, "build", "bin", "coz"))
    builds = [("ours", ours)]
    if os.environ.get("BEFORE"):
        builds.insert(0, ("before", os.environ["BEFORE"]))
    columns = []  # (label, function(binary, dwarf3 binary, extra, speedup, scratch) -> period)
    samplers = os.environ.get("SAMPLERS", "perf,timer").split(",")
    for name, coz in builds:
        timer = deny_perf_wrapper(WORK, coz, f"coz-timer-{name}")
        if "perf" in samplers:
            columns.append((f"{name} perf",
                            lambda b, d, e, x, t, coz=coz: predicted_period(coz, b, e, x, t)))
        if "timer" in samplers:
            columns.append((f"{name} timer",
                            lambda b, d, e, x, t, coz=timer: predicted_period(coz, b, e, x, t)))
    if shutil.which("coz") and os.environ.get("SKIP_DEBIAN") != "1":
        columns.append(("Coz 0.2.2", lambda b, d, e, x, t: predicted_period("coz", d, e, x, t, True)))
    debian = any(label == "Coz 0.2.2" for label, _ in columns)

    cases = [c for c in CASES if not only or any(o in c[0] for o in only.split(","))]
    binaries = {}
    for _, way, _ in cases:
        if way not in binaries:
            binaries[way] = (build(way, ["-g"]),
                             build(way, ["-gdwarf-3", "-gstrict-dwarf"], "-dwarf3") if debian else None)
    levels = [0.0] + SPEEDUPS
    summaries = {label: new_summary() for label, _ in columns}
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for name, way, extra in cases:
            binary, dwarf3 = binaries[way]
            real = {s: [] for s in levels}
            predicted = {label: {s: [] for s in levels} for label, _ in columns}
            for _ in range(RUNS):
                for s in levels:
                    real[s].append(real_period(binary, extra, s))
                for label, period in columns:  # each configuration's levels back to back
                    for s in levels:
                        predicted[label][s].append(period(binary, dwarf3, extra, s, scratch))
            for s in SPEEDUPS:
                actual = effect(real, s)
                cells = [error_cells(actual, effect(predicted[label], s), summaries[label])
                         for label, _ in columns]
                rows.append((f"{name} @{int(s * 100)}%", actual.value(), cells))
            sys.stderr.write(f"done: {name}\n")

    print(f"Data-parallel loops at barriers: {RUNS} repetitions, {SECONDS} s runs, end-to-end "
          "predictions for line a (predicted, |error| and the error's 95% interval, in points)")
    print(f"{'case':<58} {'true':>6}  " + "  ".join(f"{label:^31}" for label, _ in columns))
    for name, actual, cells in rows:
        print(f"{name:<58} {'n/a' if actual is None else f'{actual:6.1f}':>6}  " + "  ".join(cells))
    for label, _ in columns:
        print_summary(label, summaries[label])
        errors = summaries[label]["errors"]
        if errors:
            print(f"{label}: median absolute error {statistics.median(errors):.2f} points")


if __name__ == "__main__":
    main()
