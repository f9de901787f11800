#!/usr/bin/env python3
"""Off-CPU overhead: what the blocking-call hooks add to calls that never block, and that a
lock-heavy program's cost is unchanged.

Programs, wall time of the program's own work (it prints elapsed_ns):
  io_loop    (io_loop.c) 1,000,000 rounds of a one-byte write() to a non-blocking pipe and its
             read() back: 2 million interposed calls that return at once, a progress point every
             1,000 rounds;
  lock_loop  (benchmarks/hotpath/programs/lock_loop.c) two threads, 40 million lock/unlock pairs.
Configurations: native; this project at 0% (`coz run --quiet --fixed-speedup 0`); the same with
off-CPU profiling turned off (OFF_OPTION, default --no-off-cpu; left out when `coz run --help`
does not mention it); BEFORE=path/to/coz, another build of this project at 0%; Debian's Coz 0.2.2
at 0% (DWARF 3 builds; left out when not installed or SKIP_DEBIAN=1).

Every repetition runs every configuration once, interleaved; the table shows medians over RUNS
(default 5) and ratios (medians of per-repetition ratios to native), and for io_loop the time
added per call over native. Environment: RUNS, COZ (default build/bin/coz), BEFORE, OFF_OPTION,
SKIP_DEBIAN=1, PROGRAMS=io_loop,lock_loop.
"""
import importlib.util
import os
import re
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

# benchmarks/hotpath/run.py, loaded by path: its build, run, elapsed, with_ratio, log and the
# configurations native / ours / BEFORE / Debian's Coz, from the same environment variables.
_spec = importlib.util.spec_from_file_location("hotpath_run", os.path.join(ROOT, "benchmarks", "hotpath", "run.py"))
hotpath = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hotpath)
log, build, run, elapsed = hotpath.log, hotpath.build, hotpath.run, hotpath.elapsed

RUNS = hotpath.RUNS
COZ = hotpath.COZ
OFF_OPTION = os.environ.get("OFF_OPTION", "--no-off-cpu")
PROGRAMS = os.environ.get("PROGRAMS", "io_loop,lock_loop").split(",")
SOURCES = {"io_loop": os.path.join(HERE, "io_loop.c"),
           "lock_loop": os.path.join(ROOT, "benchmarks", "hotpath", "programs", "lock_loop.c")}
IO_CALLS = 2_000_000  # io_loop's write() and read() calls


def has_option(coz, option):
    """Whether `coz run --help` mentions the option (its first word)."""
    p = subprocess.run([coz, "run", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return re.search(r"(^|[\s,])" + re.escape(option.split()[0]) + r"([\s,=]|$)", p.stdout, re.M) is not None


def configs():
    """hotpath's configurations, with ours with off-CPU profiling off after ours."""
    out = hotpath.configs()
    if OFF_OPTION and has_option(COZ, OFF_OPTION):
        out.insert(2, ("ours, off-CPU off", COZ, "ours", [*OFF_OPTION.split(), "--fixed-speedup", "0"]))
    else:
        log(f"{COZ} run --help has no {OFF_OPTION or '(OFF_OPTION empty)'}: no off-CPU-off column")
    return out


def with_ratio(got, base, name):
    return hotpath.with_ratio(got, base, name, lambda t: f"{t:.3f}")


def per_call(got, base, name):
    """io_loop: nanoseconds added per call over native, the median of per-repetition differences."""
    if not got or not base or name == "native":
        return "".rjust(20)
    return f"{statistics.median((g - b) * 1e9 / IO_CALLS for g, b in zip(got, base)):+.0f} ns".rjust(20)


def main():
    cases = configs()
    with tempfile.TemporaryDirectory(prefix="coz-offcpu-") as work:
        programs = {}  # name -> (ours binary, dwarf3 binary)
        for name in PROGRAMS:
            if name not in SOURCES:
                raise SystemExit(f"PROGRAMS: unknown program {name} (io_loop, lock_loop)")
            programs[name] = (build(work, SOURCES[name], "", ["-g"]),
                              build(work, SOURCES[name], "_d3", ["-gdwarf-3", "-gstrict-dwarf"]))
        times = {}
        for rep in range(RUNS):
            log(f"repetition {rep + 1}/{RUNS}")
            for name, (ours, d3) in programs.items():
                for cname, prefix, which, options in cases:
                    t = elapsed(run(prefix, options, [d3 if which == "dwarf3" else ours], work))
                    if t is not None:
                        times.setdefault((name, cname), []).append(t)
    names = [c[0] for c in cases]
    print(f"\nOff-CPU overhead: seconds of the program's own work, medians of {RUNS} (ratio to native)")
    print("program".ljust(20) + "".join(n.rjust(20) for n in names))
    for name in programs:
        base = times.get((name, "native"), [])
        print(name.ljust(20) + "".join(with_ratio(times.get((name, c), []), base, c) for c in names))
        if name == "io_loop":
            print("  added per call".ljust(20) +
                  "".join(per_call(times.get((name, c), []), base, c) for c in names))


if __name__ == "__main__":
    main()
