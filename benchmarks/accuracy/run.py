#!/usr/bin/env python3
"""Accuracy against ground truth.

Each program's marked line can really be made faster: ACC_SPEEDUP=S removes that fraction of its
work. The actual effect of S is 1 - T(S)/T(0), T being the program's time per progress visit.
The profiler's prediction comes from `coz run --end-to-end --fixed-line L --fixed-speedup S` on
the unmodified program: 1 - P(S)/P(0), P being effective time per visit in the experiment record.
Debian's coz-profiler (0.2), when installed, predicts the same cases from DWARF 3 builds.
Each repetition runs every level of one configuration back to back; an effect is the median over
RUNS repetitions of the ratio within a repetition.
SKIP_DEBIAN=1 leaves Debian's coz out; SPEEDUPS=0.25,0.5,0.75,1 adds the 100% points (the line's
work removed entirely); COZ=path/to/bin/coz profiles "ours" with another build; BEFORE=path/to/another/build/bin/coz (several, comma-separated)
adds each build's predictions as a column, run interleaved with ours (for a change to the runtime:
both sides measured in one run). TIMER=1 adds a column of ours with perf_event_open refused by a
seccomp filter (tests/programs/deny_perf.c, built here), as in a default container or on a kernel
with perf_event_paranoid above 2: the engine chosen there (the timer sampler; the clock engine
through a wrapper script as BEFORE that adds `--sampler clock`), interleaved with the perf
sampler's column. FOLLOWED=1 lets coz follow the off-CPU cases' external child (see CASES).
"""
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RUNS = int(os.environ.get("RUNS", "3"))
SPEEDUPS = [float(s) for s in os.environ.get("SPEEDUPS", "0.25,0.5,0.75").split(",")]

# FOLLOWED=1 profiles the off-CPU cases' external child too (see CASES), to show what that costs.
EXTERNAL_CHILD = [] if os.environ.get("FOLLOWED") else ["--no-follow-children"]

CASES = [  # name, source, extra compile flags, marker of the line to speed up[, coz run options]
    ("serial: one thread, two functions", "serial.c", [], "MARKED"),
    ("compute plus sleeping", "sleep.c", [], "MARKED"),
    ("fork-join, marked in longer thread", "fork_join.c", ["-DMARK_LONG"], "MARKED:long"),
    ("fork-join, marked in shorter thread", "fork_join.c", [], "MARKED:short"),
    ("pipeline over bounded queue", "pipeline.c", [], "MARKED"),
    ("mutex critical section dominates", "lock_pair.c", ["-DMARK_SECTION"], "MARKED:section"),
    ("semaphore pool", "sem_pool.c", [], "MARKED"),
    ("hot line in one phase only", "phase.c", [], "MARKED"),
    # Real synchronisation: work beside a lock, spin-then-block barriers, contention.
    ("beside a lock, long sections", "lock_pair.c", ["-DLONG_SECTIONS"], "MARKED:private"),
    ("beside a lock, short sections", "lock_pair.c", [], "MARKED:private"),
    ("spin-then-block barrier, parallel loop", "barrier.c", [], "MARKED"),
    ("spin-then-block barrier, wait marked", "barrier.c", ["-DMARK_WAIT"], "MARKED"),
    ("contention: faster lookups collide more", "lock_pair.c", ["-DCONTENTION"], "MARKED:private"),
    # Off-CPU: waits that can really be shortened (issue 27). The marked line makes the blocking
    # call; ACC_SPEEDUP shortens the wait itself (an external process's delay, a sleep's length).
    # The external process is a forked child (programs/offcpu.h) that stands for another host, so
    # coz is told it is outside the run (EXTERNAL_CHILD): followed, its raw waits are invisible, it
    # is taken for running, and it pays the run's delays while the program waits for it.
    ("off-cpu: worker reads answers from a slower process", "offcpu_pipe.c", [], "MARKED", EXTERNAL_CHILD),
    ("off-cpu: fsync-like wait emulated by a sleep", "offcpu_sleep.c", [], "MARKED"),
    ("off-cpu: pipeline whose middle stage waits on a socket", "offcpu_socket.c", [], "MARKED", EXTERNAL_CHILD),
    ("off-cpu: a side thread's wait, off the critical path", "offcpu_side.c", [], "MARKED", EXTERNAL_CHILD),
]

def build(work, source, flags, debug, suffix):
    src = os.path.join(HERE, "programs", source)
    out = os.path.join(work, os.path.splitext(source)[0] + "".join(flags).replace("-D", "_") + suffix)
    subprocess.run(["gcc", "-O1", *debug, "-I", os.path.join(ROOT, "include"), *flags, src, "-o", out,
                    "-lpthread", "-lm"], check=True)
    return out

def line_marked(path, text):
    """The number of the first line of `path` that holds `text` (a marker comment)."""
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if text in line:
                return number
    raise SystemExit(f"no {text!r} in {path}")


def marked_line(source, marker):
    return line_marked(os.path.join(HERE, "programs", source), f"/* {marker} */")


def fixed_line_period(coz, cmd, spec, speedup, scratch, env, profile="p.coz"):
    """Time per visit that `coz run --end-to-end --fixed-line spec` predicts at `speedup` (0-1),
    from the profile it writes in `scratch` (`profile=None`: the profiler's own default name,
    profile.coz, for Debian's Coz, which takes no -o); None when it wrote none."""
    path = os.path.join(scratch, profile or "profile.coz")
    if os.path.exists(path):
        os.remove(path)
    args = [coz, "run", "--end-to-end", "--fixed-line", spec, "--fixed-speedup",
            str(int(round(speedup * 100)))] + (["-o", path] if profile else [])
    subprocess.run(args + ["---", *cmd], env=env, cwd=scratch, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return profile_period(path) if os.path.exists(path) else None

def real_run(binary, speedup, load=None):
    env = dict(os.environ, ACC_SPEEDUP=str(speedup))
    if load:
        env["ACC_LOAD"] = str(load)
    return subprocess.run([binary], env=env, stdout=subprocess.PIPE, text=True, check=True).stdout

def real_period(binary, speedup, load=None):
    m = re.search(r"elapsed_ns (\d+) visits (\d+)", real_run(binary, speedup, load))
    return int(m.group(1)) / int(m.group(2))

def real_latency(binary, speedup):
    return int(re.search(r"mean_latency_ns (\d+)", real_run(binary, speedup)).group(1))

def profile_latency(path):
    """Mean latency by Little's law over the experiment: in-flight integral / arrivals."""
    with open(path) as f:
        for line in f:
            if line.startswith("latency-point\t"):
                fields = dict(kv.split("=", 1) for kv in line.rstrip("\n").split("\t")[1:] if "=" in kv)
                if int(fields["arrivals"]):
                    return int(fields.get("in-flight-ns", 0)) / int(fields["arrivals"])
    return None

def profile_period(path):
    duration, visits = None, 0
    with open(path) as f:
        for line in f:
            fields = dict(kv.split("=", 1) for kv in line.rstrip("\n").split("\t")[1:] if "=" in kv)
            if line.startswith("experiment\t"):
                duration, visits = int(fields["duration"]), 0
            elif line.startswith("throughput-point\t") and duration is not None:
                visits += int(fields["delta"])
    if duration is None or visits == 0:
        return None
    return duration / visits

def deny_perf_wrapper(work, coz=None, name="coz-without-perf"):
    """A coz that runs with perf_event_open refused: deny_perf (built from tests/programs) in
    front of `coz` (default: this build's), as an executable script `name` in `work`, so it can
    stand wherever a coz path does."""
    deny = os.path.join(work, "deny_perf")
    subprocess.run(["gcc", "-O1", os.path.join(ROOT, "tests", "programs", "deny_perf.c"), "-o", deny],
                   check=True)
    wrapper = os.path.join(work, name)
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\nexec {deny} {coz or os.path.join(ROOT, "build", "bin", "coz")} "$@"\n')
    os.chmod(wrapper, 0o755)
    return wrapper

def ours_profile(coz, binary, line_spec, speedup, scratch, options=()):
    profile = os.path.join(scratch, "ours.coz")
    if os.path.exists(profile):
        os.remove(profile)
    extra = os.environ.get("OUR_OPTIONS", "").split()
    subprocess.run([coz, "run", *extra, *options, "--end-to-end", "--fixed-line", line_spec,
                    "--fixed-speedup", str(int(round(speedup * 100))), "-o", profile, "---", binary],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return profile

def ours_period(coz, binary, line_spec, speedup, scratch, options=()):
    return profile_period(ours_profile(coz, binary, line_spec, speedup, scratch, options))

def debian_period(binary, line_spec, speedup, scratch):
    profile = os.path.join(scratch, "profile.coz")
    if os.path.exists(profile):
        os.remove(profile)
    subprocess.run(["coz", "run", "--end-to-end", "--fixed-line", line_spec, "--fixed-speedup",
                    str(int(round(speedup * 100))), "---", binary], cwd=scratch,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return profile_period(profile) if os.path.exists(profile) else None

class Measure:
    """A percentage from the median over repetitions of a ratio measured within one repetition:
    sign * 100 * (median(num/den) - 1). This machine's speed drifts by several percent over
    minutes, so each ratio pairs two runs made side by side; a ratio of overall medians would
    carry that drift."""

    def __init__(self, num, den, sign):
        self.ratios = [a / b for a, b in zip(num, den) if a and b]
        self.sign = sign

    def value(self, ratios=None):
        ratios = self.ratios if ratios is None else ratios
        return None if not ratios else self.sign * 100 * (statistics.median(ratios) - 1)

def effect(periods, speedup):
    """Speedup effect: 1 - T(S)/T(0), in percent."""
    return Measure(periods[speedup], periods[0.0], -1)

MIN_INTERVAL_RUNS = 5

def error_interval(actual, predicted, replicates=2000):
    """Approximate 95% percentile-bootstrap interval of predicted - actual: how far the error could
    move by this machine's noise alone; one that excludes 0 suggests a bias. Each side's
    repetitions are resampled independently (the pairing of real and profiled runs within a
    repetition is ignored). A median of fewer than MIN_INTERVAL_RUNS values bootstraps to little
    more than their range, which covers the true median too rarely: no interval then."""
    if len(actual.ratios) < MIN_INTERVAL_RUNS or len(predicted.ratios) < MIN_INTERVAL_RUNS:
        return None
    rng = random.Random(1)
    diffs = sorted(predicted.value(rng.choices(predicted.ratios, k=len(predicted.ratios))) -
                   actual.value(rng.choices(actual.ratios, k=len(actual.ratios)))
                   for _ in range(replicates))
    return diffs[int(0.025 * replicates)], diffs[int(0.975 * replicates) - 1]

def error_cells(actual, predicted, summary):
    """The predicted value, its absolute error and the error's interval, as table cells; adds the
    error to `summary` (errors, intervals excluding 0, interval widths)."""
    value = predicted.value()
    if value is None or actual.value() is None:
        return f"{'n/a' if value is None else f'{value:.1f}':>7} {'n/a':>6} {'':>15}"
    err = value - actual.value()
    summary["errors"].append(abs(err))
    interval = error_interval(actual, predicted)
    if interval is None:
        return f"{value:7.1f} {abs(err):6.1f} {'':>15}"
    lo, hi = interval
    summary["widths"].append(hi - lo)
    if lo > 0 or hi < 0:
        summary["biased"] += 1
    return f"{value:7.1f} {abs(err):6.1f} {f'[{lo:+.1f}, {hi:+.1f}]':>15}"

def cell(value):
    return f"{'n/a' if value is None else f'{value:.1f}':>7}"

def new_summary():
    return {"errors": [], "widths": [], "biased": 0}

def print_summary(who, summary):
    errors = summary["errors"]
    if not errors:
        return
    print(f"{who}: mean absolute error {statistics.mean(errors):.2f} points, max {max(errors):.1f}, "
          f"over {len(errors)} cases")
    if summary["widths"]:
        print(f"{who}: {summary['biased']} of {len(summary['widths'])} errors beyond noise (95% interval "
              f"excludes 0); median interval width {statistics.median(summary['widths']):.1f} points")

def load_cases(coz, work, scratch):
    """Latency and load amplification (the arrival-point issue): rows of (case, actual, predicted)
    in percent."""
    rows = []
    only = os.environ.get("CASES")
    def wanted(name):
        return not only or any(o in name for o in only.split(","))

    if wanted("latency"):
        binary = build(work, "latency.c", [], ["-g"], "")
        spec = f"latency.c:{marked_line('latency.c', 'MARKED')}"
        levels = [0.0] + SPEEDUPS
        real = {s: [] for s in levels}
        ours = {s: [] for s in levels}
        for _ in range(RUNS):
            for s in levels:
                real[s].append(real_latency(binary, s))
                ours[s].append(profile_latency(ours_profile(coz, binary, spec, s, scratch)))
        for s in SPEEDUPS:
            rows.append((f"latency, service {int(s * 100)}% faster", effect(real, s), effect(ours, s)))
        sys.stderr.write("done: latency\n")

    binary = build(work, "load.c", [], ["-g"], "")
    spec = f"load.c:{marked_line('load.c', 'MARKED')}"
    if wanted("load alone"):
        # Throughput against load: real (shorter producer period) vs predicted (amplification).
        loads = [1.25, 2.0, 3.0]
        real = {f: [] for f in [1.0] + loads}
        by_speedup = {f: [] for f in loads}
        by_load = {f: [] for f in [1.0] + loads}
        for _ in range(RUNS):
            for f in [1.0] + loads:
                real[f].append(real_period(binary, 0.0, f))
                by_load[f].append(ours_period(coz, binary, spec, 0.0, scratch, ["--load", str(f)]))
                if f > 1:
                    d = int(1e6 * (1 - 1 / f))
                    by_speedup[f].append(ours_period(coz, binary, spec, 0.0, scratch,
                                                     ["--arrival-speedup", f"{d}ns"]))
        for f in loads:
            actual = Measure(real[1.0], real[f], 1)  # throughput gain: T(1)/T(F) - 1
            for how, periods in (("--arrival-speedup", by_speedup[f]), ("--load", by_load[f])):
                rows.append((f"load alone x{f:g}, throughput gain ({how})", actual,
                             Measure(by_load[1.0], periods, 1)))
        sys.stderr.write("done: load alone\n")

    if wanted("load-amplified"):
        # Speeding the consumers up by 50%: little effect at the original load, much at 3x.
        for f in (1.0, 3.0):
            real = {0.0: [], 0.5: []}
            ours = {0.0: [], 0.5: []}
            for _ in range(RUNS):
                for s in (0.0, 0.5):
                    real[s].append(real_period(binary, s, f))
                    ours[s].append(ours_period(coz, binary, spec, s, scratch, ["--load", str(f)]))
            rows.append((f"load-amplified x{f:g}, consumers 50% faster", effect(real, 0.5), effect(ours, 0.5)))
        sys.stderr.write("done: load-amplified profile\n")
    return rows

ERROR_HEADER = f"{'ours':>7} {'error':>6} {'95% interval':>15}"

def print_load_rows(rows):
    print()
    print(f"Latency and load amplification: medians over {RUNS} repetitions of paired ratios; percent")
    print(f"{'case':58} {'actual':>7} {ERROR_HEADER}")
    summary = new_summary()
    for name, actual, predicted in rows:
        print(f"{name:58} {cell(actual.value())} {error_cells(actual, predicted, summary)}")
    print_summary("latency and load", summary)

def column_labels(befores):
    """'timer' for the perf-refused column, 'before', 'before2', ... for other builds."""
    others = [p for p in befores if not p.endswith("coz-without-perf")]
    labels, n = [], 0
    for p in befores:
        if p.endswith("coz-without-perf"):
            labels.append("timer")
        else:
            n += 1
            labels.append("before" + (str(n) if len(others) > 1 else ""))
    return labels

def print_speedup_rows(rows, have_debian, befores):
    print(f"Accuracy: medians over {RUNS} repetitions of paired ratios; effects in percent; the "
          f"error's approximate 95% interval by bootstrap (RUNS>={MIN_INTERVAL_RUNS})")
    width = max([40] + [len(row[0]) for row in rows])
    header = f"{'case':{width}} {'line':>5} {'actual':>7} {ERROR_HEADER}"
    for label in column_labels(befores):
        header += f" {label:>7} {'error':>6} {'95% interval':>15}"
    if have_debian:
        header += f" {'coz 0.2':>8} {'error':>6} {'95% interval':>15}"
    print(header)
    ours_summary, coz_summary = new_summary(), new_summary()
    before_summaries = [new_summary() for _ in befores]
    for name, s, actual, ours_effect, before_effects, coz_effect in rows:
        line = f"{name:{width}} {int(s * 100):4}% {cell(actual.value())} {error_cells(actual, ours_effect, ours_summary)}"
        for before_effect, summary in zip(before_effects, before_summaries):
            line += " " + error_cells(actual, before_effect, summary)
        if have_debian:
            cells = error_cells(actual, coz_effect, coz_summary)
            line += " " + (cells.replace("    n/a", " failed", 1) if coz_effect.value() is None else cells)
        print(line)
    print_summary("this project", ours_summary)
    for label, path, summary in zip(column_labels(befores), befores, before_summaries):
        print_summary(f"{label} ({path})", summary)
    if have_debian:
        print_summary("Debian coz 0.2", coz_summary)
    else:
        print("Debian coz-profiler not installed (apt-get install coz-profiler): no comparison column")

def main():
    coz = os.environ.get("COZ", os.path.join(ROOT, "build", "bin", "coz"))
    befores = [p for p in os.environ.get("BEFORE", "").split(",") if p]
    for path in befores:
        if not os.access(path, os.X_OK):
            raise SystemExit(f"BEFORE: {path} is not an executable coz: give a build's bin/coz")
    have_debian = (shutil.which("coz") is not None and os.path.exists("/usr/lib/coz-profiler/libcoz.so")
                   and not os.environ.get("SKIP_DEBIAN"))
    work = os.path.join(HERE, "work")
    os.makedirs(work, exist_ok=True)
    if os.environ.get("TIMER"):
        befores.append(deny_perf_wrapper(work))
    scratch = tempfile.mkdtemp()
    only = os.environ.get("CASES")
    rows = []
    for name, source, flags, marker, *options in CASES:
        options = options[0] if options else []
        if only and not any(o in name for o in only.split(",")):
            continue
        if os.environ.get("ONLY_LOAD"):
            break
        ours_bin = build(work, source, flags, ["-g"], "")
        coz_bin = build(work, source, flags, ["-gdwarf-3", "-gstrict-dwarf"], "_dwarf3") if have_debian else None
        line_spec = f"{source}:{marked_line(source, marker)}"
        levels = [0.0] + SPEEDUPS
        real = {s: [] for s in levels}
        ours = {s: [] for s in levels}
        theirs = {s: [] for s in levels}
        before = [{s: [] for s in levels} for _ in befores]
        for _ in range(RUNS):  # each configuration's levels back to back, so pairs are close in time
            for s in levels:
                real[s].append(real_period(ours_bin, s))
            for s in levels:
                ours[s].append(ours_period(coz, ours_bin, line_spec, s, scratch, options))
            for path, periods in zip(befores, before):
                for s in levels:
                    periods[s].append(ours_period(path, ours_bin, line_spec, s, scratch, options))
            if have_debian:
                for s in levels:
                    theirs[s].append(debian_period(coz_bin, line_spec, s, scratch))
        for s in SPEEDUPS:
            rows.append((name, s, effect(real, s), effect(ours, s), [effect(b, s) for b in before],
                         effect(theirs, s) if have_debian else None))
        sys.stderr.write(f"done: {name}\n")
    amplification_rows = [] if os.environ.get("SKIP_LOAD") else load_cases(coz, work, scratch)
    shutil.rmtree(scratch, ignore_errors=True)

    if rows:
        print_speedup_rows(rows, have_debian, befores)
    if amplification_rows:
        print_load_rows(amplification_rows)

if __name__ == "__main__":
    main()
