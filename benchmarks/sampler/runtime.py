#!/usr/bin/env python3
"""The sampling engines' cost inside the runtime (issue 51), beside the native run: one busy
thread and 1, 10, 100 or 1,000 threads blocked in read(), and 1,000 blocked threads alone, for
SECONDS_EACH (default 3) of wall time, under `coz run --sampler perf`, `timer` and `clock`
(the last two with perf_event_open refused, as where they run). Prints, as % of a core (medians of
REPS, default 3, runs interleaved):
  beyond busy  the process's CPU time beyond its busy thread's, over the wall time: all the
               profiler's work (sampling, its own thread, signals, experiments), the native
               column being the program's own (starting threads, the loop's clock reads)
  engine       the clock engine's sampling thread alone (the profile's runtime `sampler-cpu`)
and the sampler's measured resolution (runtime `sampler-resolution`: CPU time per sample).
Run with nothing else on the CPU; the build is this checkout's (scripts/build.sh)."""
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
COZ = os.path.join(ROOT, "build", "bin", "coz")
SECONDS = float(os.environ.get("SECONDS_EACH", "3"))
REPS = int(os.environ.get("REPS", "3"))
CASES = [(1, 1), (10, 1), (100, 1), (1000, 1), (1000, 0)]  # (idle threads, busy threads)
CONFIGS = ["native", "perf", "timer", "clock"]


def runtime_fields(profile):
    with open(profile) as f:
        for line in f:
            if line.startswith("runtime\t"):
                return dict(kv.split("=", 1) for kv in line.rstrip("\n").split("\t")[1:] if "=" in kv)
    return {}


def run(config, program, idle, busy, work):
    args = [program, str(idle), str(SECONDS), str(busy)]
    profile = os.path.join(work, "p.coz")
    if config != "native":
        if os.path.exists(profile):
            os.remove(profile)
        deny = [] if config == "perf" else [os.path.join(work, "deny_perf")]
        args = deny + [COZ, "run", "--sampler", config, "-o", profile, "---"] + args
    out = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         check=True, cwd=work).stdout
    fields = dict(zip(out.split()[0::2], out.split()[1::2]))
    beyond = (int(fields["process_cpu_ns"]) - int(fields["busy_cpu_ns"])) / (SECONDS * 1e9)
    extra = runtime_fields(profile) if config != "native" else {}
    engine = int(extra.get("sampler-cpu", 0)) / int(extra["time"]) if "time" in extra else None
    resolution = int(extra["sampler-resolution"]) / 1e6 if "sampler-resolution" in extra else None
    return 100 * beyond, None if engine is None else 100 * engine, resolution


def main():
    work = tempfile.mkdtemp()
    program = os.path.join(work, "idle_threads")
    subprocess.run(["gcc", "-O2", "-g", "-o", program, os.path.join(HERE, "idle_threads.c"), "-lpthread"],
                   check=True)
    subprocess.run(["gcc", "-O1", "-o", os.path.join(work, "deny_perf"),
                    os.path.join(ROOT, "tests", "programs", "deny_perf.c")], check=True)
    print(f"% of a core over {SECONDS:g} s, medians of {REPS}; resolution in ms of CPU per sample")
    print(f"{'idle':>5} {'busy':>4}  " + "  ".join(f"{c + ' beyond busy':>18}" for c in CONFIGS) +
          f"  {'clock engine':>12}  {'timer res':>9}  {'clock res':>9}")
    for idle, busy in CASES:
        results = {c: [] for c in CONFIGS}
        for _ in range(REPS):
            for config in CONFIGS:
                results[config].append(run(config, program, idle, busy, work))
        beyond = {c: statistics.median(r[0] for r in results[c]) for c in CONFIGS}
        engines = [r[1] for r in results["clock"] if r[1] is not None]
        engine = f"{statistics.median(engines):12.2f}" if engines else f"{'-':>12}"
        def res(c):
            values = [r[2] for r in results[c] if r[2] is not None]
            return f"{statistics.median(values):9.2f}" if values else f"{'-':>9}"
        print(f"{idle:>5} {busy:>4}  " + "  ".join(f"{beyond[c]:18.2f}" for c in CONFIGS) +
              f"  {engine}  {res('timer')}  {res('clock')}")
        sys.stdout.flush()
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
