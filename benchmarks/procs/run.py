#!/usr/bin/env python3
"""Process trees (issue 28): ground truth for programs whose work runs in forked children, and the
overhead of a fork-heavy loop.

(a) true effects against predictions. Each program (programs/*.c) removes ACC_SPEEDUP=S of its
    marked line's work for real; the line may run in the parent or in a forked child:
      prefork  a master forks 3 workers that take jobs from one pipe (worker: the job handler, in
               the workers; master: per-job dispatch work, in the master);
      makej    a make -j2-like driver, each of 400 jobs a forked child (job: the child's work);
      pipe2    a producer (parent) and a consumer (forked child) connected by pipes (producer,
               consumer; with two free cores the consumer is the bottleneck and the producer's
               true effect small; on a busier machine both lines share one core's time);
      prefork behind sh: the pre-fork server started by a shell script, which stays the root.
    ACC_LINE=tag (set here per case) makes ACC_SPEEDUP apply to that marked line only, in whichever
    process runs it. The real effect is 1 - T(S)/T(0), T the time per progress visit of the parent's point; the
    prediction comes from `coz run --end-to-end --fixed-line FILE:LINE --fixed-speedup S` on the
    unmodified program, as in benchmarks/accuracy/run.py (whose helpers this loads by path). Until
    the runtime follows children a child's line is never sampled or slowed: such predictions are
    about 0, or "-" when the profile holds no experiment. BEFORE=path/to/coz (comma-separated for
    several) adds each build's predictions as a column, run interleaved with ours.
(b) overhead: forkloop (10,000 children, fork then _exit(0); FORKLOOP_MODES=fork,exec adds the
    exec-/bin/true variant) natively, under `coz run --quiet --fixed-speedup 0` (and each BEFORE
    build's), and under Debian's
    Coz 0.2.2 (`/usr/bin/coz run --fixed-speedup 0`, a -gdwarf-3 -gstrict-dwarf build; left out
    when not installed or SKIP_DEBIAN=1). Seconds of the loop's own work (it prints elapsed_ns),
    medians over RUNS, with the median per-repetition ratio to native; a run counts only if it
    exits 0 and prints what the native run printed (the elapsed time aside).
Every repetition runs every configuration once, interleaved. Environment: RUNS (default 5), COZ
(default build/bin/coz), BEFORE, SKIP_DEBIAN=1, SKIP_EFFECTS=1, SKIP_OVERHEAD=1,
CASES=prefork,makej,... (substrings of case names), FORKLOOP_MODES, CHILDREN (forkloop's count).
"""
import importlib.util
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PROGRAMS = os.path.join(HERE, "programs")

# benchmarks/accuracy/run.py, loaded by path: Measure, effect, error_cells, ours_profile,
# profile_period, summaries.
_spec = importlib.util.spec_from_file_location("accuracy_run", os.path.join(ROOT, "benchmarks", "accuracy", "run.py"))
acc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(acc)

RUNS = int(os.environ.get("RUNS", "5"))
acc.RUNS = RUNS
COZ = os.environ.get("COZ", os.path.join(ROOT, "build", "bin", "coz"))
BEFORES = [p for p in os.environ.get("BEFORE", "").split(",") if p]
DEBIAN = "/usr/bin/coz" if (os.path.exists("/usr/bin/coz") and os.path.exists("/usr/lib/coz-profiler/libcoz.so")
                            and not os.environ.get("SKIP_DEBIAN")) else None
LEVELS = [0.0] + acc.SPEEDUPS

CASES = [  # name, source, marker of the line to speed up
    ("prefork: worker's job handler (in 3 children)", "prefork.c", "MARKED:worker"),
    ("prefork: master's dispatch (in the parent)", "prefork.c", "MARKED:master"),
    ("makej: a job's work (each job a child)", "makej.c", "MARKED:job"),
    ("pipe2: consumer (child)", "pipe2.c", "MARKED:consumer"),
    ("pipe2: producer (parent)", "pipe2.c", "MARKED:producer"),
    # The same pre-fork server started by a shell script (the shell stays the root: it has no
    # lines, so it coordinates the run, and the line is resolved in the server's processes).
    ("prefork behind sh: worker's job handler", "prefork.c", "MARKED:worker", "sh"),
]


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def build(work, source, debug, suffix=""):
    out = os.path.join(work, os.path.splitext(source)[0] + suffix)
    subprocess.run(["gcc", "-O1", *debug, "-I", os.path.join(ROOT, "include"), "-I",
                    os.path.join(ROOT, "benchmarks", "accuracy", "programs"),
                    os.path.join(PROGRAMS, source), "-o", out], check=True)
    return out


def marked_line(source, marker):
    with open(os.path.join(PROGRAMS, source)) as f:
        for number, line in enumerate(f, 1):
            if f"/* {marker} */" in line:
                return number
    raise SystemExit(f"no {marker} line in {source}")


def predicted_period(coz, binary, line_spec, speedup, scratch):
    """Time per visit in the experiment, or None when `coz run` fails or records no experiment."""
    try:
        return acc.profile_period(acc.ours_profile(coz, binary, line_spec, speedup, scratch))
    except (subprocess.CalledProcessError, OSError) as e:
        log(f"  {coz} on {os.path.basename(binary)} {line_spec} at {speedup}: {e}")
        return None


def prediction_cells(actual, predicted, summary):
    """acc.error_cells, with "-" (and no error) when no run of the configuration had an experiment."""
    if predicted.value() is None:
        return f"{'-':>7} {'-':>6} {'':>15}"
    return acc.error_cells(actual, predicted, summary)


def effects(work, scratch):
    only = os.environ.get("CASES")
    rows = []
    for name, source, marker, *wrapper in CASES:
        if only and not any(o in name for o in only.split(",")):
            continue
        binary = build(work, source, ["-g"])
        if wrapper:  # a script that runs the program and waits for it (no exec: sh stays)
            script = binary + "_sh"
            with open(script, "w") as f:
                f.write(f'#!/bin/sh\n"{binary}" "$@"\nexit $?\n')
            os.chmod(script, 0o755)
            binary = script
        line_spec = f"{source}:{marked_line(source, marker)}"
        os.environ["ACC_LINE"] = marker.split(":")[1]  # which line ACC_SPEEDUP shortens
        real = {s: [] for s in LEVELS}
        ours = {s: [] for s in LEVELS}
        before = [{s: [] for s in LEVELS} for _ in BEFORES]
        for _ in range(RUNS):  # each configuration's levels back to back, so pairs are close in time
            for s in LEVELS:
                real[s].append(acc.real_period(binary, s))
            for coz, periods in [(COZ, ours)] + list(zip(BEFORES, before)):
                for s in LEVELS:
                    periods[s].append(predicted_period(coz, binary, line_spec, s, scratch))
        for s in acc.SPEEDUPS:
            rows.append((name, line_spec, s, acc.effect(real, s), acc.effect(ours, s),
                         [acc.effect(b, s) for b in before]))
        log(f"done: {name}")
    return rows


def print_effects(rows):
    print(f"(a) True effects against predictions: medians over {RUNS} repetitions of paired ratios; "
          f"percent; '-': no experiment in the profile")
    width = max(len(r[0]) for r in rows)
    header = f"{'case':{width}} {'line':13} {'S':>4} {'actual':>7} {acc.ERROR_HEADER}"
    for i in range(len(BEFORES)):
        header += f" {'before' + (str(i + 1) if len(BEFORES) > 1 else ''):>7} {'error':>6} {'95% interval':>15}"
    print(header)
    ours_summary = acc.new_summary()
    before_summaries = [acc.new_summary() for _ in BEFORES]
    for name, spec, s, actual, ours_effect, before_effects in rows:
        line = (f"{name:{width}} {spec:13} {int(s * 100):3}% {acc.cell(actual.value())} "
                f"{prediction_cells(actual, ours_effect, ours_summary)}")
        for before_effect, summary in zip(before_effects, before_summaries):
            line += " " + prediction_cells(actual, before_effect, summary)
        print(line)
    acc.print_summary("this project", ours_summary)
    for i, (path, summary) in enumerate(zip(BEFORES, before_summaries)):
        acc.print_summary(f"before{str(i + 1) if len(BEFORES) > 1 else ''} ({path})", summary)


def normalised(out):
    return re.sub(r"elapsed_ns \d+", "elapsed_ns N", out)


def overhead_run(config, binary, mode, cwd):
    """(seconds, stdout) of one forkloop run, or (None, reason)."""
    env = dict(os.environ, FORKLOOP_EXEC="1" if mode == "exec" else "0")
    profile = os.path.join(cwd, "profile.coz")
    if config == "native":
        argv = [binary]
    elif config == "ours 0%" or config.startswith("before"):
        coz = COZ if config == "ours 0%" else BEFORES[int(config.split()[0][6:] or 1) - 1]
        argv = [coz, "run", "--quiet", "--fixed-speedup", "0", "-o", profile, "---", binary]
    else:
        argv = [DEBIAN, "run", "--fixed-speedup", "0", "-o", profile, "---", binary]
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return None, "timed out"
    m = re.search(r"elapsed_ns (\d+)", p.stdout)
    if p.returncode != 0 or not m:
        return None, f"exit status {p.returncode}: {p.stderr.strip()[-200:]}"
    return int(m.group(1)) / 1e9, p.stdout


def overhead(work, scratch):
    binary = build(work, "forkloop.c", ["-g"])
    d3 = build(work, "forkloop.c", ["-gdwarf-3", "-gstrict-dwarf"], "_d3") if DEBIAN else None
    befores = [(f"before{i + 1 if len(BEFORES) > 1 else ''} 0%", binary) for i in range(len(BEFORES))]
    configs = ([("native", binary), ("ours 0%", binary)] + befores +
               ([("coz 0.2 0%", d3)] if DEBIAN else []))
    modes = os.environ.get("FORKLOOP_MODES", "fork").split(",")
    times = {}  # (mode, config) -> seconds per repetition, None for a failed run
    failures = {}
    for rep in range(RUNS):
        log(f"overhead: repetition {rep + 1}/{RUNS}")
        for mode in modes:
            native_out = None
            for config, path in configs:
                t, out = overhead_run(config, path, mode, scratch)
                if t is not None and config == "native":
                    native_out = out
                elif t is not None and native_out is not None and normalised(out) != normalised(native_out):
                    t, out = None, f"output differs from native: {out.strip()[-200:]!r}"
                if t is None:
                    failures.setdefault((mode, config), []).append(out)
                    log(f"  {config} {mode}: {out}")
                times.setdefault((mode, config), []).append(t)
    names = [c[0] for c in configs]
    children = int(os.environ.get("CHILDREN", "10000"))
    print(f"\n(b) Overhead of forkloop ({children} children, each waited for): seconds of the loop's "
          f"own work, medians of {RUNS} (median ratio to native); failed runs (bad exit status or output)")
    print("mode".ljust(28) + "".join(n.rjust(22) for n in names))
    for mode in modes:
        label = "fork, child _exit(0)" if mode == "fork" else "fork, child exec /bin/true"
        base = times.get((mode, "native"), [])
        row, per_child = label.ljust(28), "  per child, microseconds".ljust(28)
        for name in names:
            got = [t for t in times.get((mode, name), []) if t is not None]
            cell = "-" if not got else f"{statistics.median(got):.3f}"
            pairs = [g / b for g, b in zip(times.get((mode, name), []), base) if g and b]
            if pairs and name != "native":
                cell += f" ({statistics.median(pairs):.2f}x)"
            bad = len(failures.get((mode, name), []))
            row += (cell + (f" {bad} failed" if bad else "")).rjust(22)
            per_child += ("-" if not got else f"{statistics.median(got) / children * 1e6:.1f}").rjust(22)
        print(row)
        print(per_child)
    if not DEBIAN:
        print("Debian coz-profiler not installed or SKIP_DEBIAN=1: no Coz 0.2.2 column")


def main():
    if not os.access(COZ, os.X_OK):
        raise SystemExit(f"COZ: {COZ} is not executable")
    for path in BEFORES:
        if not os.access(path, os.X_OK):
            raise SystemExit(f"BEFORE: {path} is not an executable coz: give a build's bin/coz")
    with tempfile.TemporaryDirectory(prefix="coz-procs-") as work:
        rows = [] if os.environ.get("SKIP_EFFECTS") else effects(work, work)
        if rows:
            print_effects(rows)
        if not os.environ.get("SKIP_OVERHEAD"):
            overhead(work, work)


if __name__ == "__main__":
    main()
