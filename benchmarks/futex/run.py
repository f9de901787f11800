#!/usr/bin/env python3
"""Futex-parked waits: ground truth for threads that park themselves with syscall(SYS_futex).

Each case passes work between threads that wait and wake through a futex, never through a
pthread call, with a line that can really be made faster:
- C++20, programs/handoff.cpp (two threads hand one token back and forth; line a 60 units of a
  dependent multiply chain per round in one thread, line b 40 in the other; a unit is 10,000
  steps, so a round is about a millisecond and the wake-ups' tens of microseconds are a small
  share of it): std::binary_semaphore,
  std::atomic<int>::wait/notify_one, and pthread_mutex + pthread_cond as the control that was
  always followed;
- Rust, rust/src/main.rs (built here from crates.io: coz, parking_lot, crossbeam-channel): the
  same hand-off through std's Mutex + Condvar, an mpsc channel, parking_lot's Mutex + Condvar and
  a crossbeam channel; and "contended", two threads that each run line b outside a std Mutex and
  line a inside it (the lock is the bottleneck: line a is the whole story, line b counts for
  nothing until line a is faster than it).

The true effect of making a line S faster is 1 - T(S)/T(0), T being native time per round with
that share of the line's work removed (FX_A_SHARE, FX_B_SHARE); the prediction is
`coz run --end-to-end --fixed-line L --fixed-speedup S` on the unmodified program, as in
benchmarks/accuracy (whose Measure and error columns this uses: medians over RUNS repetitions of
ratios within one repetition, every configuration of a case run back to back in each).

Columns: this build (build/bin/coz, or COZ=...) with its perf sampler, and with perf_event_open
refused by a seccomp filter (tests/programs/deny_perf.c: the timer sampler, as in a default
container); BEFORE=path/to/bin/coz adds another build's two columns, interleaved. Debian's Coz
0.2.2, when installed (SKIP_DEBIAN=1 leaves it out), profiles the C++ cases from DWARF 3 builds
(it cannot read the Rust binary's DWARF 4).

Environment: RUNS (default 3), SPEEDUPS (default 0.25,0.5,0.75), FX_SECONDS (each run's length,
default 2), CASES (substrings of case names to run), SAMPLERS (default perf,timer).
Usage: python3 benchmarks/futex/run.py
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
from run import (deny_perf_wrapper, Measure, effect, error_cells, fixed_line_period,  # noqa: E402
                 line_marked, new_summary, print_summary)

RUNS = int(os.environ.get("RUNS", "3"))
SPEEDUPS = [float(s) for s in os.environ.get("SPEEDUPS", "0.25,0.5,0.75").split(",")]
SECONDS = os.environ.get("FX_SECONDS", "2")
WORK = os.path.join(HERE, "work")

CPP_WAYS = {"C++20 binary_semaphore": 1, "C++20 atomic wait/notify": 2,
            "pthread mutex + cond (control)": 3}
RUST_CASES = [  # name, argument, line speeded up
    ("Rust std Mutex + Condvar", "std-condvar", "a"),
    ("Rust std mpsc channel", "mpsc", "a"),
    ("Rust parking_lot Mutex + Condvar", "parking-lot", "a"),
    ("Rust crossbeam channel", "crossbeam", "a"),
    ("Rust contended Mutex, the section's line", "contended", "a"),
    ("Rust contended Mutex, the line outside (flat)", "contended", "b"),
]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def build_cpp(way, debug, suffix=""):
    out = os.path.join(WORK, f"handoff{way}{suffix}")
    run(["g++", "-std=c++20", "-O1", *debug, f"-DWAY={way}", "-I", os.path.join(ROOT, "include"),
         os.path.join(HERE, "programs", "handoff.cpp"), "-o", out, "-pthread"])
    return out


def build_rust():
    target = os.path.join(WORK, "rust-target")
    run(["cargo", "build", "--release", "--quiet", "--manifest-path",
         os.path.join(HERE, "rust", "Cargo.toml"), "--target-dir", target])
    return os.path.join(target, "release", "futex-cases")


def real_period(cmd, share_var, share):
    env = dict(os.environ, FX_SECONDS=SECONDS, **{share_var: str(share)})
    out = run(cmd, env=env, stdout=subprocess.PIPE, text=True).stdout.split()
    return int(out[out.index("elapsed_ns") + 1]) / int(out[out.index("visits") + 1])


def predicted_period(coz, cmd, spec, speedup, scratch):
    return fixed_line_period(coz, cmd, spec, speedup, scratch, dict(os.environ, FX_SECONDS=SECONDS))


def debian_period(cmd, spec, speedup, scratch):
    return fixed_line_period("coz", cmd, spec, speedup, scratch, dict(os.environ, FX_SECONDS=SECONDS),
                             profile=None)


def main():
    os.makedirs(WORK, exist_ok=True)
    only = os.environ.get("CASES")
    ours = os.environ.get("COZ", os.path.join(ROOT, "build", "bin", "coz"))
    builds = [("ours", ours)]
    if os.environ.get("BEFORE"):
        builds.insert(0, ("before", os.environ["BEFORE"]))
    columns = []  # (label, function(cmd, debian_cmd, spec, speedup, scratch) -> period)
    samplers = os.environ.get("SAMPLERS", "perf,timer").split(",")
    for name, coz in builds:
        timer = deny_perf_wrapper(WORK, coz, f"coz-timer-{name}")
        if "perf" in samplers:
            columns.append((f"{name} perf",
                            lambda c, d, s, x, t, coz=coz: predicted_period(coz, c, s, x, t)))
        if "timer" in samplers:
            columns.append((f"{name} timer",
                            lambda c, d, s, x, t, coz=timer: predicted_period(coz, c, s, x, t)))
    debian = shutil.which("coz") and os.environ.get("SKIP_DEBIAN") != "1"
    if debian:
        columns.append(("Coz 0.2.2", lambda c, d, s, x, t: debian_period(d, s, x, t) if d else None))

    cases = []  # name, command, Debian's command or None, line spec, share variable
    cpp_source = os.path.join(HERE, "programs", "handoff.cpp")
    for name, way in CPP_WAYS.items():
        if only and not any(o in name for o in only.split(",")):
            continue
        spec = f"handoff.cpp:{line_marked(cpp_source, '/* line a */')}"
        dwarf3 = [build_cpp(way, ["-gdwarf-3", "-gstrict-dwarf"], "-dwarf3")] if debian else None
        cases.append((name, [build_cpp(way, ["-g"])], dwarf3, spec, "FX_A_SHARE"))
    wanted_rust = [c for c in RUST_CASES if not only or any(o in c[0] for o in only.split(","))]
    if wanted_rust:
        binary = build_rust()
        rust_source = os.path.join(HERE, "rust", "src", "main.rs")
        for name, arg, line in wanted_rust:
            spec = f"main.rs:{line_marked(rust_source, f'// line {line}')}"
            cases.append((name, [binary, arg], None, spec, f"FX_{line.upper()}_SHARE"))

    levels = [0.0] + SPEEDUPS
    summaries = {label: new_summary() for label, _ in columns}
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for name, cmd, debian_cmd, spec, share_var in cases:
            real = {s: [] for s in levels}
            predicted = {label: {s: [] for s in levels} for label, _ in columns}
            for _ in range(RUNS):
                for s in levels:
                    real[s].append(real_period(cmd, share_var, 1 - s))
                    for label, period in columns:
                        predicted[label][s].append(period(cmd, debian_cmd, spec, s, scratch))
            for s in SPEEDUPS:
                actual = effect(real, s)
                cells = [error_cells(actual, effect(predicted[label], s), summaries[label])
                         for label, _ in columns]
                rows.append((f"{name} @{int(s * 100)}%", actual.value(), cells))
            sys.stderr.write(f"done: {name}\n")

    print(f"Futex-parked waits: {RUNS} repetitions, {SECONDS} s runs, end-to-end predictions "
          "(predicted, |error| and the error's 95% interval, in points)")
    header = f"{'case':<58} {'true':>6}  " + "  ".join(f"{label:^31}" for label, _ in columns)
    print(header)
    for name, actual, cells in rows:
        print(f"{name:<58} {'n/a' if actual is None else f'{actual:6.1f}':>6}  " + "  ".join(cells))
    for label, _ in columns:
        print_summary(label, summaries[label])
        errors = summaries[label]["errors"]
        if errors:
            print(f"{label}: median absolute error {statistics.median(errors):.2f} points")


if __name__ == "__main__":
    main()
