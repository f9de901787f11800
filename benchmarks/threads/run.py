#!/usr/bin/env python3
"""Thread scale: programs with many threads, natively, under this project's `coz run` and under
Debian's coz-profiler 0.2 (when installed; it reads only DWARF 3, so it gets a DWARF 3 build).

Cases: 1,000 and 10,000 threads alive at once (128 KiB stacks), and 20,000 short-lived threads
created and joined 100 at a time; every thread does the same fixed work with a progress point.
Each repetition runs every configuration of every case once, interleaved, so load from the rest
of the machine falls on all of them alike; the table shows medians of wall-clock and CPU time
(user + system, the program and the profiler together) and their ratios to native. Each run is
checked: exit status and stdout as natively, and whether a profile with experiments was written.

Environment: RUNS (default 5), CASES=1000,10000,short (a subset), COZ (this project's coz,
default build/bin/coz), SPEEDUP=N (pass --fixed-speedup N to both profilers: without it each
run's slowdown depends on the random speedups its experiments drew), TIMEOUT (seconds per run).
"""
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RUNS = int(os.environ.get("RUNS", "5"))
TIMEOUT = float(os.environ.get("TIMEOUT", "300"))
DEBIAN_COZ = "/usr/bin/coz"
DEBIAN_LIB = "/usr/lib/coz-profiler/libcoz.so"

CASES = [  # key, title, program, arguments
    ("1000", "1,000 concurrent threads", "concurrent", ["1000", "40", "100000"]),
    ("10000", "10,000 concurrent threads", "concurrent", ["10000", "10", "40000"]),
    ("short", "20,000 short-lived threads, 100 at a time", "short_lived", ["20000", "100", "2", "50000"]),
]


def build(work, program, debug, suffix):
    out = os.path.join(work, program + suffix)
    subprocess.run(["gcc", "-O1", "-Wall", *debug, "-I", os.path.join(ROOT, "include"),
                    os.path.join(HERE, "programs", program + ".c"), "-o", out, "-lpthread"], check=True)
    return out


def experiments_in(path):
    if not os.path.exists(path):
        return 0
    with open(path, errors="replace") as f:
        return sum(1 for line in f if line.startswith("experiment\t"))


def timed(argv, cwd):
    """Runs argv; returns (wall s, cpu s, exit status or 'timeout', stdout, stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           errors="replace", timeout=TIMEOUT)
        status, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        status, out, err = "timeout", e.stdout or "", e.stderr or ""
        out = out if isinstance(out, str) else out.decode(errors="replace")
        err = err if isinstance(err, str) else err.decode(errors="replace")
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, status, out, err


class Config:
    def __init__(self, name, argv_for, profile):
        self.name, self.argv_for, self.profile = name, argv_for, profile


def main():
    load_before = os.getloadavg()[0]  # at the end it counts the benchmark's own threads
    work = tempfile.mkdtemp(prefix="coz-threads-")
    scratch = os.path.join(work, "run")
    os.makedirs(scratch)
    coz = os.path.abspath(os.environ.get("COZ", os.path.join(ROOT, "build", "bin", "coz")))
    if not os.access(coz, os.X_OK):
        raise SystemExit(f"{coz} not found: build first (bash scripts/build.sh)")
    have_debian = os.path.exists(DEBIAN_COZ) and os.path.exists(DEBIAN_LIB)
    fixed = ["--fixed-speedup", os.environ["SPEEDUP"]] if os.environ.get("SPEEDUP") else []
    ours_profile = os.path.join(scratch, "ours.coz")
    theirs_profile = os.path.join(scratch, "theirs.coz")

    configs = [Config("native", lambda b: [b[0]], None),
               Config("this project", lambda b: [coz, "run", *fixed, "-o", ours_profile, "---", b[0]],
                      ours_profile)]
    if have_debian:
        configs.append(Config("Debian coz 0.2",
                              lambda b: [DEBIAN_COZ, "run", *fixed, "-o", theirs_profile, "---", b[1]],
                              theirs_profile))

    only = os.environ.get("CASES")
    cases = [c for c in CASES if not only or c[0] in only.split(",")]
    binaries = {}
    for program in sorted({c[2] for c in cases}):
        binaries[program] = (build(work, program, ["-g"], ""),
                             build(work, program, ["-gdwarf-3", "-gstrict-dwarf"], "_dwarf3") if have_debian else None)

    # results[case][config] = list of (wall, cpu, status, same_output, experiments, phases, note)
    results = {c[0]: {cfg.name: [] for cfg in configs} for c in cases}
    native_out = {}
    for rep in range(RUNS):
        for key, title, program, args in cases:
            # Rotate the order each repetition so no configuration always runs after another.
            order = configs[rep % len(configs):] + configs[:rep % len(configs)]
            for cfg in order:
                if cfg.profile and os.path.exists(cfg.profile):
                    os.unlink(cfg.profile)
                argv = cfg.argv_for(binaries[program]) + args
                wall, cpu, status, out, err = timed(argv, scratch)
                if cfg.name == "native" and status == 0:
                    native_out.setdefault(key, out)
                m = re.search(r"phases create_ms ([\d.]+) work_ms ([\d.]+) exit_ms ([\d.]+)", err)
                phases = tuple(float(x) for x in m.groups()) if m else None
                note = ""
                for line in re.sub(r"\x1b\[[0-9;]*m", "", err).splitlines():
                    if re.search(r"cannot sample|could not|error|warning: .*thread|Too many|failed|"
                                 r"abort|Segmentation", line, re.I) and "no experiment finished" not in line:
                        note = line.strip()[:100]
                        break
                experiments = experiments_in(cfg.profile) if cfg.profile else None
                results[key][cfg.name].append([wall, cpu, status, out, experiments, phases, note])
            sys.stderr.write(f"repetition {rep + 1}/{RUNS}: {title} done\n")
    shutil.rmtree(work, ignore_errors=True)

    print(f"Thread scale: medians over {RUNS} interleaved runs; wall and CPU (user+system) seconds, "
          f"x = ratio to native; {os.cpu_count()} CPUs, load average {load_before:.1f} before starting"
          + (f"; --fixed-speedup {os.environ['SPEEDUP']}" if fixed else ""))
    if not have_debian:
        print("Debian coz-profiler not installed (apt-get install coz-profiler): no comparison column")
    header = f"{'case':44}"
    for cfg in configs:
        header += f" | {cfg.name:^27}"
    print(header)
    sub = f"{'':44}"
    for cfg in configs:
        sub += f" | {'wall':>6} {'x':>5} {'cpu':>6} {'x':>6}"
    print(sub)
    for key, title, _, _ in cases:
        native = results[key]["native"]
        native_wall = statistics.median(r[0] for r in native)
        native_cpu = statistics.median(r[1] for r in native)
        row = f"{title:44}"
        for cfg in configs:
            runs = results[key][cfg.name]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            row += f" | {wall:6.2f} {wall / native_wall:5.2f} {cpu:6.2f} {cpu / native_cpu:6.2f}"
        print(row)

    print()
    print("Checks per configuration: runs with native exit status and output / runs; runs that wrote "
          "a profile with experiments; median phases (ms) of the concurrent programs: creating the "
          "threads, their work, the exits after the last one finished")
    for key, title, _, _ in cases:
        for cfg in configs:
            runs = results[key][cfg.name]
            same = sum(1 for r in runs if r[2] == 0 and r[3] == native_out.get(key))
            line = f"{title:44} {cfg.name:15} same {same}/{len(runs)}"
            statuses = sorted({str(r[2]) for r in runs if r[2] != 0})
            if statuses:
                line += f" (exit {','.join(statuses)})"
            if cfg.profile:
                line += f"; profile {sum(1 for r in runs if r[4])}/{len(runs)}"
            phases = [r[5] for r in runs if r[5]]
            if phases:
                line += "; phases " + " / ".join(f"{statistics.median(p[i] for p in phases):.0f}"
                                                 for i in range(3))
            notes = [r[6] for r in runs if r[6]]
            if notes:
                line += f"; said: {notes[0]}"
            print(line)


if __name__ == "__main__":
    main()
