#!/usr/bin/env python3
"""False lines: lines that cannot matter, profiled again and again, must stay unflagged and flat.

Each case is a multi-threaded shape whose line marked NONE has no effect on the program's speed
(programs/*.c say why; TRUTH=1 measures it natively). Each profile runs `coz run --fixed-line`
on that line with the usual random speedups, for SECONDS of real time (drift, a fixed amount of
work, runs again and again under `--budget`), and is read by `coz report --json`. For each case
and profiler, over PROFILES profiles:
  flagged  profiles in which the line is `significant` or `contention`
  @25 @50 @100  median predicted program speedup at those line speedups (the report's fit)
  worst    the largest |prediction| at any of those speedups, over all profiles
  within5  profiles whose every prediction is within 5 points of 0
  sat      median share of experiments the report calls saturated (ours only)
Profilers: ours (COZ, default build/bin/coz), each build in BEFORE (comma-separated paths to
another build's bin/coz), and Debian's Coz 0.2.2 when installed (SKIP_DEBIAN=1 leaves it out;
it reads DWARF 3 only, so its binaries are built with -gdwarf-3 -gstrict-dwarf). Every profile
is read by ours, so every profiler is judged by the same statistics. Runs are interleaved: each
repetition profiles every case under every profiler once, in a shuffled order.
Environment: PROFILES (default 10), SECONDS (default 10), CASES (comma list of background, pool,
producer, timer, drift).
TRUTH=1: each case run natively with FL_NONE_SHARE 1 and 0.5 (its NONE line doing all or half
of its work), TRUTH_PAIRS pairs (default 5) of SECONDS each; prints the median effect of halving
the line (it should be 0 within noise). Drift's is zero by construction (its main thread never
waits for the second one)."""
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CASES = {  # name -> (source, directory, runs again and again under --budget)
    "background": ("background.c", os.path.join(HERE, "programs"), False),
    "pool": ("pool.c", os.path.join(HERE, "programs"), False),
    "producer": ("producer.c", os.path.join(HERE, "programs"), False),
    "timer": ("timer.c", os.path.join(HERE, "programs"), False),
    "drift": ("drift.c", os.path.join(ROOT, "benchmarks", "confidence", "programs"), True),
}
SPEEDUPS = [0.25, 0.5, 1.0]


def none_lines(path):
    with open(path) as f:
        return [n for n, line in enumerate(f, 1) if "/* NONE */" in line]


def build(name, scratch, debian):
    source, directory, _ = CASES[name]
    out = os.path.join(scratch, name + ("-dwarf3" if debian else ""))
    debug = ["-gdwarf-3", "-gstrict-dwarf"] if debian else ["-g"]
    subprocess.run(["gcc", "-O1", *debug, "-I", os.path.join(ROOT, "include"), "-I", directory,
                    os.path.join(directory, source), "-o", out, "-lpthread"], check=True)
    return out


def profile(profiler, binary, line, repeated, seconds, scratch, keep):
    """One profile of `binary` with --fixed-line `line`, kept as `keep` (if one was written)."""
    path = os.path.join(scratch, "profile.coz")
    if os.path.exists(path):
        os.remove(path)
    env = dict(os.environ, FL_SECONDS=str(seconds), CONF_SECONDS=str(seconds))
    quiet = {"cwd": scratch, "env": env, "stdout": subprocess.DEVNULL,
             "stderr": subprocess.DEVNULL}
    if profiler == "debian":  # Coz 0.2 has no --budget; each run appends to profile.coz
        end = time.monotonic() + seconds
        while True:
            subprocess.run(["coz", "run", "--fixed-line", line, "---", binary], **quiet)
            if not repeated or time.monotonic() >= end:
                break
    else:
        budget = ["--budget", f"{seconds}s"] if repeated else []
        subprocess.run([profiler, "run", *budget, "--fixed-line", line, "-o", path, "---",
                        binary], **quiet)
    if os.path.exists(path):
        shutil.copyfile(path, keep)


def judge(reporter, path, lines):
    """What the report says of the NONE lines: flagged, predictions, share saturated."""
    verdict = {"flagged": False, "predicted": {}, "saturated": None}
    if not os.path.exists(path):
        return None
    out = subprocess.run([reporter, "report", "--json", path], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    report = json.loads(out.stdout)
    series = [s for s in report["series"] if s["line_number"] in lines]
    if not series:
        return None
    for s in series:
        verdict["flagged"] |= bool(s.get("significant") or s.get("contention"))
        for p in s.get("predicted") or []:
            if p["line_speedup"] in SPEEDUPS and p["program_speedup"]["value"] is not None:
                verdict["predicted"].setdefault(p["line_speedup"], []).append(
                    p["program_speedup"]["value"])
    saturated = report["summary"].get("saturated")
    experiments = report["summary"].get("experiments") or 0
    if saturated is not None and experiments:
        verdict["saturated"] = saturated / experiments
    return verdict


def truth(names, seconds):
    pairs = int(os.environ.get("TRUTH_PAIRS", "5"))
    scratch = tempfile.mkdtemp(prefix="falselines-truth-")
    print(f"{'case':<12} {'effect of halving the NONE line (median of ' + str(pairs) + ')':>48}")
    for name in names:
        if CASES[name][2]:  # drift: its NONE lines take no share knob; its main thread never waits
            print(f"{name:<12} {'(none by construction: see benchmarks/confidence)':>48}")
            continue
        binary = build(name, scratch, False)
        effects = []
        for _ in range(pairs):
            rate = {}
            for share in random.sample(["1", "0.5"], 2):
                env = dict(os.environ, FL_SECONDS=str(seconds), CONF_SECONDS=str(seconds),
                           FL_NONE_SHARE=share)
                out = subprocess.run([binary], env=env, capture_output=True, text=True).stdout
                m = re.search(r"elapsed_ns (\d+) visits (\d+)", out)
                rate[share] = int(m.group(1)) / int(m.group(2)) if m else None
            if rate.get("1") and rate.get("0.5"):
                effects.append(1 - rate["0.5"] / rate["1"])
        print(f"{name:<12} {100 * statistics.median(effects):>+47.1f}%")
    shutil.rmtree(scratch)


def main():
    names = [n for n in os.environ.get("CASES", ",".join(CASES)).split(",") if n]
    for n in names:
        if n not in CASES:
            sys.exit(f"run.py: unknown case {n}; the cases are {', '.join(CASES)}")
    seconds = float(os.environ.get("SECONDS", "10"))
    if os.environ.get("TRUTH"):
        truth(names, seconds)
        return
    reps = int(os.environ.get("PROFILES", "10"))
    ours = os.environ.get("COZ", os.path.join(ROOT, "build", "bin", "coz"))
    profilers = [("ours", ours)]
    for i, before in enumerate(b for b in os.environ.get("BEFORE", "").split(",") if b):
        profilers.append((f"before{i + 1 if i else ''}", before))
    if shutil.which("coz") and not os.environ.get("SKIP_DEBIAN"):
        profilers.append(("coz 0.2", "debian"))
    else:
        sys.stderr.write("Debian's coz-profiler is not installed (or SKIP_DEBIAN): no peer column\n")
    scratch = tempfile.mkdtemp(prefix="falselines-")
    keep = os.path.join(HERE, "work", "profiles")
    os.makedirs(keep, exist_ok=True)
    binaries = {n: (build(n, scratch, False), build(n, scratch, True)) for n in names}
    verdicts = {(n, p): [] for n in names for p, _ in profilers}
    for rep in range(reps):
        order = [(n, p) for n in names for p in profilers]
        random.shuffle(order)
        for name, (label, profiler) in order:
            source, directory, repeated = CASES[name]
            lines = none_lines(os.path.join(directory, source))
            binary = binaries[name][1 if profiler == "debian" else 0]
            kept = os.path.join(keep, f"{name}-{label.replace(' ', '_')}-{rep}.coz")
            for line in lines[:1]:
                profile(profiler, binary, f"{source}:{line}", repeated, seconds, scratch, kept)
            verdict = judge(ours, kept, lines)
            if verdict:
                verdicts[(name, label)].append(verdict)
        sys.stderr.write(f"repetition {rep + 1} of {reps} done\n")

    print(f"{'case':<11} {'profiler':<9} {'flagged':>8} {'@25':>7} {'@50':>7} {'@100':>7} "
          f"{'worst':>7} {'within5':>8} {'sat':>5}")
    for name in names:
        for label, _ in profilers:
            vs = verdicts[(name, label)]
            if not vs:
                print(f"{name:<11} {label:<9} {'no profile':>8}")
                continue
            flagged = sum(v["flagged"] for v in vs)
            cells = []
            for s in SPEEDUPS:
                values = [x for v in vs for x in v["predicted"].get(s, [])]
                cells.append(f"{100 * statistics.median(values):+6.1f}%" if values else "      -")
            every = [abs(x) for v in vs for xs in v["predicted"].values() for x in xs]
            worst = f"{100 * max(every):6.1f}%" if every else "      -"
            within = sum(all(abs(x) <= 0.05 for xs in v["predicted"].values() for x in xs)
                         for v in vs)
            sat = [v["saturated"] for v in vs if v["saturated"] is not None]
            sat_cell = f"{100 * statistics.median(sat):4.0f}%" if sat else "    -"
            print(f"{name:<11} {label:<9} {flagged:>3} of {len(vs):<2} {' '.join(cells)} {worst} "
                  f"{within:>3} of {len(vs):<2} {sat_cell}")
    shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
