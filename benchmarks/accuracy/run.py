#!/usr/bin/env python3
"""Accuracy against ground truth.

Each program's marked line can really be made faster: ACC_SPEEDUP=S removes that fraction of its
work. The actual effect of S is 1 - T(S)/T(0), T being the program's time per progress visit.
The profiler's prediction comes from `coz run --end-to-end --fixed-line L --fixed-speedup S` on
the unmodified program: 1 - P(S)/P(0), P being effective time per visit in the experiment record.
Debian's coz-profiler (0.2), when installed, predicts the same cases from DWARF 3 builds.
All configurations are interleaved, RUNS times each, and medians are compared.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RUNS = int(os.environ.get("RUNS", "3"))
SPEEDUPS = [0.25, 0.50, 0.75]

CASES = [  # name, source, extra compile flags, marker of the line to speed up
    ("serial: one thread, two functions", "serial.c", [], "MARKED"),
    ("compute plus sleeping", "sleep.c", [], "MARKED"),
    ("fork-join, marked in longer thread", "fork_join.c", ["-DMARK_LONG"], "MARKED:long"),
    ("fork-join, marked in shorter thread", "fork_join.c", [], "MARKED:short"),
    ("pipeline over bounded queue", "pipeline.c", [], "MARKED"),
    ("mutex critical section dominates", "critical.c", [], "MARKED"),
    ("semaphore pool", "sem_pool.c", [], "MARKED"),
    ("hot line in one phase only", "phase.c", [], "MARKED"),
]

def build(work, source, flags, debug, suffix):
    src = os.path.join(HERE, "programs", source)
    out = os.path.join(work, os.path.splitext(source)[0] + "".join(flags).replace("-D", "_") + suffix)
    subprocess.run(["gcc", "-O1", *debug, "-I", os.path.join(ROOT, "include"), *flags, src, "-o", out,
                    "-lpthread"], check=True)
    return out

def marked_line(source, marker):
    with open(os.path.join(HERE, "programs", source)) as f:
        for number, line in enumerate(f, 1):
            if f"/* {marker} */" in line:
                return number
    raise SystemExit(f"no {marker} line in {source}")

def real_period(binary, speedup):
    env = dict(os.environ, ACC_SPEEDUP=str(speedup))
    out = subprocess.run([binary], env=env, stdout=subprocess.PIPE, text=True, check=True).stdout
    m = re.search(r"elapsed_ns (\d+) visits (\d+)", out)
    return int(m.group(1)) / int(m.group(2))

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

def ours_period(coz, binary, line_spec, speedup, scratch):
    profile = os.path.join(scratch, "ours.coz")
    if os.path.exists(profile):
        os.remove(profile)
    extra = os.environ.get("OUR_OPTIONS", "").split()
    subprocess.run([coz, "run", *extra, "--end-to-end", "--fixed-line", line_spec, "--fixed-speedup",
                    str(int(round(speedup * 100))), "-o", profile, "---", binary],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return profile_period(profile)

def debian_period(binary, line_spec, speedup, scratch):
    profile = os.path.join(scratch, "profile.coz")
    if os.path.exists(profile):
        os.remove(profile)
    subprocess.run(["coz", "run", "--end-to-end", "--fixed-line", line_spec, "--fixed-speedup",
                    str(int(round(speedup * 100))), "---", binary], cwd=scratch,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return profile_period(profile) if os.path.exists(profile) else None

def effect(periods, speedup):
    base = [p for p in periods[0.0] if p]
    at = [p for p in periods[speedup] if p]
    if not base or not at:
        return None
    return 1.0 - statistics.median(at) / statistics.median(base)

def main():
    coz = os.path.join(ROOT, "build", "bin", "coz")
    have_debian = shutil.which("coz") is not None and os.path.exists("/usr/lib/coz-profiler/libcoz.so")
    work = os.path.join(HERE, "work")
    os.makedirs(work, exist_ok=True)
    scratch = tempfile.mkdtemp()
    only = os.environ.get("CASES")
    rows = []
    for name, source, flags, marker in CASES:
        if only and not any(o in name for o in only.split(",")):
            continue
        ours_bin = build(work, source, flags, ["-g"], "")
        coz_bin = build(work, source, flags, ["-gdwarf-3", "-gstrict-dwarf"], "_dwarf3") if have_debian else None
        line_spec = f"{source}:{marked_line(source, marker)}"
        levels = [0.0] + SPEEDUPS
        real = {s: [] for s in levels}
        ours = {s: [] for s in levels}
        theirs = {s: [] for s in levels}
        for _ in range(RUNS):
            for s in levels:
                real[s].append(real_period(ours_bin, s))
                ours[s].append(ours_period(coz, ours_bin, line_spec, s, scratch))
                if have_debian:
                    theirs[s].append(debian_period(coz_bin, line_spec, s, scratch))
        for s in SPEEDUPS:
            rows.append((name, s, effect(real, s), effect(ours, s), effect(theirs, s) if have_debian else None))
        sys.stderr.write(f"done: {name}\n")
    shutil.rmtree(scratch, ignore_errors=True)

    print(f"Accuracy: medians of {RUNS} interleaved runs per configuration; effects in percent")
    header = f"{'case':40} {'line':>5} {'actual':>7} {'ours':>7} {'error':>6}"
    if have_debian:
        header += f" {'coz 0.2':>8} {'error':>6}"
    print(header)
    ours_errors, coz_errors = [], []
    for name, s, actual, ours_effect, coz_effect in rows:
        line = f"{name:40} {int(s * 100):4}% {actual * 100:7.1f} "
        if ours_effect is None:
            line += f"{'n/a':>7} {'n/a':>6}"
        else:
            err = abs(ours_effect - actual) * 100
            ours_errors.append(err)
            line += f"{ours_effect * 100:7.1f} {err:6.1f}"
        if have_debian:
            if coz_effect is None:
                line += f" {'failed':>8} {'':>6}"
            else:
                err = abs(coz_effect - actual) * 100
                coz_errors.append(err)
                line += f" {coz_effect * 100:8.1f} {err:6.1f}"
        print(line)
    if ours_errors:
        print(f"this project: mean absolute error {statistics.mean(ours_errors):.2f} points, "
              f"max {max(ours_errors):.1f}, over {len(ours_errors)} cases")
    if coz_errors:
        print(f"Debian coz 0.2: mean absolute error {statistics.mean(coz_errors):.2f} points, "
              f"max {max(coz_errors):.1f}, over {len(coz_errors)} cases")
    elif not have_debian:
        print("Debian coz-profiler not installed (apt-get install coz-profiler): no comparison column")

if __name__ == "__main__":
    main()
