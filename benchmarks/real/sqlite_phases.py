#!/usr/bin/env python3
"""Issue 25's case: Coz's own SQLite benchmark repeated under `coz run --budget`, its profile read
by several builds' `coz report`, and how its throughput drifts within and between runs.

Builds the unpatched SQLite amalgamation (libsqlite3-sys's, fetched by prepare.py into
work/src-unpatched, apart from the copy prepare.py patches) with drivers/sqlite_phases_driver.c:
two threads, each inserting ROWS rows (default 350,000, about 1 s a run natively on the two-core
VM) into its own table in its own in-memory database, one transaction and one COZ_PROGRESS per
row; SQLITE_THREADSAFE=1 (serialized), -g -O2, this repository's include/coz.h. INDEX=1 adds an
index on scattered values, which makes inserts slow down through each run (see the driver).

Then, with the first reporter's coz, `coz run --budget BUDGETs -o PROFILE --- program` once, and
for each reporter `coz report PROFILE` followed by a check from `coz report --json`: the line
ranked first, and every line whose impact interval excludes zero with neither `significant` nor
`contention` set nor a `caveat` saying why (a build before the caveats had none). Last, the drift: the baseline (0%) experiments' ns per progress visit by their
`start` in the run, by their position in it (start over the run's length: late starts happen only
in long, slow runs) and by their length (`elapsed`), each also over its run's mean, and the spread
of the runs' means.

Environment: BUDGET (seconds, default 60); REPORTERS (name=path,..., default
new=build/bin/coz,old=/work/build-base/bin/coz); PROFILE=path reports on an existing profile
instead of making one (several, separated by ':', merged in one report); ROWS, INDEX (passed to
the driver). Profiles go to work/profiles/ (git-ignored), the program's output beside each as .log.
"""
import collections
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, HERE)
import prepare  # noqa: E402

BUDGET = int(os.environ.get("BUDGET", "60"))
REPORTERS = os.environ.get(
    "REPORTERS", f"new={os.path.join(prepare.ROOT, 'build', 'bin', 'coz')},old=/work/build-base/bin/coz")
PROFILES = os.path.join(prepare.WORK, "profiles")
FLAGS = ("significant", "contention", "caveat")  # a caveat (below floor, unconfirmed) explains too
START_BIN_NS = 250_000_000

def reporters():
    out = []
    for item in REPORTERS.split(","):
        name, _, path = item.rpartition("=")
        out.append((name or path, path))
    return out

def build():
    """The unpatched amalgamation and the driver, in work/bin/sqlite_phases."""
    src = prepare.fetch(names=("libsqlite3-sys",), into=os.path.join(prepare.WORK, "src-unpatched"))
    c = os.path.join(src["libsqlite3-sys"], "sqlite3", "sqlite3.c")
    os.makedirs(prepare.BIN, exist_ok=True)
    return prepare.compile_c([c], [os.path.dirname(c)], ["-DSQLITE_THREADSAFE=1", "-DSQLITE_OMIT_LOAD_EXTENSION"],
                             os.path.join(HERE, "drivers", "sqlite_phases_driver.c"),
                             os.path.join(prepare.BIN, "sqlite_phases"))

def profile(coz, program):
    os.makedirs(PROFILES, exist_ok=True)
    kind = "sqlite_phases-index" if int(os.environ.get("INDEX", "0") or 0) else "sqlite_phases"
    path = os.path.join(PROFILES, time.strftime(f"{kind}-%Y%m%d-%H%M%S.coz"))
    began = time.monotonic()
    visits = subprocess.run([program], check=True, capture_output=True, text=True).stdout.split()[1]
    print(f"native run: {time.monotonic() - began:.2f} s, {visits} visits")
    with open(path[:-len(".coz")] + ".log", "w") as log:
        prepare.run([coz, "run", "--budget", f"{BUDGET}s", "-o", path, "---", program], stdout=log, cwd=PROFILES)
    return path

def check(series):
    """Lines: the first-ranked line of each group, then unflagged lines whose impact excludes zero."""
    def show(s):
        i = s.get("impact") or {}
        interval = "no interval" if i.get("low") is None else f"[{100 * i['low']:+.1f}, {100 * i['high']:+.1f}]"
        flags = ",".join(str(s[f]) if f == "caveat" else f for f in FLAGS if s.get(f)) or "no flag"
        return f"{s['display']} impact {100 * i.get('value', 0):+.1f}% {interval}, {s['experiments']} experiments, {flags}"
    out = [f"  first ({s['point'].rsplit('/', 1)[-1]}, {s['load']}): {show(s)}" for s in series if s["rank"] == 1]
    loose = [s for s in series
             if not any(s.get(f) for f in FLAGS) and (s.get("impact") or {}).get("low") is not None
             and (s["impact"]["low"] > 0 or s["impact"]["high"] < 0)]
    out.append(f"  unflagged lines whose impact interval excludes zero: {len(loose)}")
    out += [f"    {show(s)}" for s in loose]
    return out

def report(name, coz, paths):
    env = dict(os.environ, COLUMNS="160")
    text = subprocess.run([coz, "report", *paths], capture_output=True, text=True, env=env)
    print(f"\n=== {name}: {coz} report {' '.join(paths)}")
    print(text.stdout + text.stderr, end="")
    doc = subprocess.run([coz, "report", "--json", *paths], capture_output=True, text=True, env=env)
    if doc.returncode != 0:
        print(f"  check: report --json exited {doc.returncode}")
        return
    print(f"--- {name}: check")
    print("\n".join(check(json.loads(doc.stdout)["series"])))

Baseline = collections.namedtuple("Baseline", "start elapsed per_visit vs_run position")

def baselines(path):
    """The 0% experiments: ns per visit (effective duration over the visits of the busiest
    progress point), that over its run's mean, and `start` over the run's length (its `runtime`
    record, else the end of its last experiment); and the runs' means, sorted."""
    found, current, run, length = [], None, 0, {}
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            kv = dict(x.split("=", 1) for x in fields[1:] if "=" in x)
            current = current if fields[0] == "throughput-point" else None
            if fields[0] == "startup":
                run += 1
            elif fields[0] == "runtime":
                length[run] = int(kv["time"])
            elif fields[0] == "experiment" and "start" in kv:
                end = int(kv["start"]) + int(kv["elapsed"])
                length[run] = max(length.get(run, 0), end)
                if float(kv["speedup"]) == 0:
                    current = [run, int(kv["start"]), int(kv["elapsed"]), int(kv["duration"]), 0]
                    found.append(current)
            elif current is not None:
                current[4] = max(current[4], int(kv.get("delta", "0")))
    found = [(r, s, e, d / v) for r, s, e, d, v in found if v]
    per_run = {}
    for r, _, _, p in found:
        per_run.setdefault(r, []).append(p)
    means = {r: statistics.mean(p) for r, p in per_run.items()}
    return [Baseline(s, e, p, p / means[r], s / length[r]) for r, s, e, p in found], sorted(means.values())

def drift_table(path):
    base, means = baselines(path)
    if not base:
        return ["no baseline experiment with a start and visits"]
    def row(label, group):
        per = [b.per_visit for b in group]
        return (f"{label:>16} {len(group):>5} {statistics.mean(b.elapsed for b in group) / 1e6:>11.0f} "
                f"{statistics.median(per):>9.0f} {min(per):>7.0f} {max(per):>7.0f} "
                f"{statistics.mean(b.vs_run for b in group):>7.3f}")
    def table(title, bins, key):
        out = [title, f"{'':>16} {'expts':>5} {'elapsed ms':>11} {'ns/visit':>9} {'min':>7} {'max':>7} {'vs run':>7}"]
        for lo, hi, label in bins:
            group = [b for b in base if lo <= key(b) < hi]
            if group:
                out.append(row(label, group))
        return out
    last = max(b.start for b in base)
    out = [f"baseline (0%) experiments of {path}:",
           "ns per visit (effective duration / visits: median, min, max) and its mean over its run's mean (vs run)"]
    out += table("by start (since the run began)",
                 [(lo, lo + START_BIN_NS, f"{lo / 1e9:.2f}-{(lo + START_BIN_NS) / 1e9:.2f} s")
                  for lo in range(0, last + 1, START_BIN_NS)], lambda b: b.start)
    out += table("by position in the run (start / the run's length)",
                 [(q / 4, (q + 1) / 4 if q < 3 else 2, f"{q * 25}-{q * 25 + 25}%") for q in range(4)],
                 lambda b: b.position)
    out += table("by length (elapsed)", [(0, 150e6, "< 150 ms"), (150e6, 300e6, "150-300 ms"),
                                         (300e6, float("inf"), ">= 300 ms")], lambda b: b.elapsed)
    if len(base) > 2:
        fit = statistics.linear_regression([b.position for b in base], [b.vs_run for b in base])
        out.append(f"least squares of vs run on position over {len(base)} baselines: {fit.intercept:.3f} at the "
                   f"start, {fit.intercept + fit.slope:.3f} at the end ({100 * fit.slope / fit.intercept:+.0f}%)")
    out.append(f"runs' mean ns/visit over {len(means)} runs: min {means[0]:.0f}, median {statistics.median(means):.0f}, "
               f"max {means[-1]:.0f}")
    return out

def main():
    paths = os.environ["PROFILE"].split(os.pathsep) if os.environ.get("PROFILE") else [profile(reporters()[0][1], build())]
    print(f"profile: {' '.join(paths)}")
    for name, coz in reporters():
        report(name, coz, paths)
    for path in paths:
        print()
        print("\n".join(drift_table(path)))

if __name__ == "__main__":
    main()
