#!/usr/bin/env python3
"""Hot-path budget: what the profiler adds per operation, and to programs that synchronise often.

(a) Per operation (programs/hotpath.c, each run for SECONDS of wall time): an uncontended
    pthread_mutex_lock/unlock pair, a contended hand-over between two threads (and how often the
    lock changes hands per 1,000 acquisitions), a condition-variable round trip, a futex round trip
    made through syscall() (as Rust's std parks), a barrier round, a system call through syscall()
    that is not a futex, an uncontended futex wake, a read() that never waits, and a sample (signal delivery to handler return: the time a reader of the clock loses to
    interruptions, per second, less the native figure, over the samples a second).
    Configurations: native; this project at 0% (`--fixed-speedup 0`); this project at 50% on a line
    the operation never runs (a speedup experiment's hooks, with no delays to pay); Debian's Coz
    0.2.2 at 0% (DWARF 3 builds; skipped when not installed); BEFORE=path/to/coz adds another
    build of this project at 0%.
(b) Whole programs, wall time of the program's own work (it prints elapsed_ns) over native:
    lock_loop (two threads, 40 million lock/unlock pairs), single (one thread, no synchronisation),
    barrier (benchmarks/accuracy's spin-then-block barrier, 40,000 rounds), sqlite (benchmarks/real's
    two threads inserting rows, when benchmarks/real/prepare.py has built it). Same configurations
    at 0% (no delays inserted: the profiler's cost alone).
(c) A sample by part (programs/sample_cost.c, with OPS including sample): the kernel's task-clock
    sample alone, with this project's callchain and stack copy, with a signal per sample, and this
    project's whole sample path.
(d) The short-critical-section case of benchmarks/accuracy: lock hand-overs in its 16,000 items,
    natively and under each profiler at 0% (SKIP_HANDOVERS=1 leaves it out).

Every repetition runs every configuration once, interleaved; the tables show medians over RUNS
and ratios (medians of per-repetition ratios to native). Environment: RUNS (default 5), SECONDS
(default 1), COZ (default build/bin/coz), BEFORE, SKIP_DEBIAN=1, OPS=lock,handover,...,
PROGRAMS=lock_loop,single,barrier,sqlite.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RUNS = int(os.environ.get("RUNS", "5"))
SECONDS = os.environ.get("SECONDS", "1")
COZ = os.environ.get("COZ", os.path.join(ROOT, "build", "bin", "coz"))
BEFORE = os.environ.get("BEFORE")
DEBIAN = "/usr/bin/coz" if (os.path.exists("/usr/lib/coz-profiler/libcoz.so") and
                            not os.environ.get("SKIP_DEBIAN")) else None
OPS = os.environ.get("OPS", "lock,handover,condvar,futex,barrier,syscall,wake,read,sample").split(",")
PROGRAMS = os.environ.get("PROGRAMS", "lock_loop,single,barrier,sqlite").split(",")
SQLITE_BIN = os.path.join(ROOT, "benchmarks", "real", "work", "bin")


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def build(work, source, suffix, debug, includes=()):
    out = os.path.join(work, os.path.basename(source)[:-2] + suffix)
    subprocess.run(["gcc", "-O2", *debug, "-I", os.path.join(ROOT, "include"),
                    *[f"-I{i}" for i in includes], source, "-o", out, "-lpthread"], check=True)
    return out


def cold_line(source):
    with open(source) as f:
        for n, line in enumerate(f, 1):
            if "/* COLD */" in line:
                return f"{os.path.basename(source)}:{n}"
    raise SystemExit("hotpath.c has no COLD line")


def configs():
    """name -> (profiler command prefix or None, which build, extra options)."""
    out = [("native", None, "ours", [])]
    out.append(("ours 0%", COZ, "ours", ["--fixed-speedup", "0"]))
    if BEFORE:
        out.append(("before 0%", BEFORE, "ours", ["--fixed-speedup", "0"]))
    if DEBIAN:
        out.append(("coz 0.2 0%", DEBIAN, "dwarf3", ["--fixed-speedup", "0"]))
    return out


def run(prefix, options, argv, cwd, env=None):
    quiet = [] if prefix == DEBIAN else ["--quiet"]  # Coz 0.2 has no --quiet
    full = argv if prefix is None else [prefix, "run", *quiet, *options, "-o",
                                        os.path.join(cwd, "profile.coz"), "---", *argv]
    p = subprocess.run(full, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env={**os.environ, **(env or {})}, timeout=600)
    if p.returncode != 0:
        log(f"  {' '.join(full)} exited {p.returncode}: {p.stderr.strip()[-300:]}")
        return None
    return p.stdout


def per_operation(work):
    source = os.path.join(HERE, "programs", "hotpath.c")
    builds = {"ours": build(work, source, "", ["-g"]),
              "dwarf3": build(work, source, "_dwarf3", ["-gdwarf-3", "-gstrict-dwarf"])}
    cases = configs()
    cases.insert(2, ("ours 50% cold", COZ, "ours",
                     ["--fixed-speedup", "50", "--fixed-line", cold_line(source)]))
    results = {}  # (op, config) -> list of dicts
    for rep in range(RUNS):
        log(f"per-operation repetition {rep + 1}/{RUNS}")
        for op in OPS:
            for name, prefix, which, options in cases:
                out = run(prefix, options, [builds[which], op, SECONDS], work)
                if out is None:
                    continue
                fields = dict(re.findall(r"(\w+)=([\d.]+)", out))
                results.setdefault((op, name), []).append({k: float(v) for k, v in fields.items()
                                                           if k != "op"})
    names = [c[0] for c in cases]
    print(f"\n(a) ns per operation, medians of {RUNS} (ratio to native)")
    print("operation".ljust(22) + "".join(n.rjust(20) for n in names))
    native_gap = None
    for op in OPS:
        row = op.ljust(22)
        base = [g["ns_per_op"] for g in results.get((op, "native"), [])]
        for name in names:
            got = results.get((op, name))
            if not got or op != "sample":
                row += with_ratio([g["ns_per_op"] for g in got or []], base, name,
                                  lambda ns: f"{ns:.1f}" if ns < 1000 else f"{ns / 1000:.1f}k")
                continue
            if op == "sample":
                # ns lost per second to interruptions, less native's, per sample (1 ms period)
                lost = statistics.median(g["gap_ns_per_s"] for g in got)
                if name == "native":
                    native_gap = lost
                    row += f"{lost / 1e6:.1f} ms/s".rjust(20)
                else:
                    per = (lost - native_gap) / 1000.0 if native_gap is not None else float("nan")
                    row += f"{per / 1000:.1f} us/sample".rjust(20)
                continue
        print(row)
        if op == "handover":
            row = "  hand-overs /1000".ljust(22)
            for name in names:
                got = results.get((op, name))
                row += (f"{statistics.median(g['handovers_per_1000'] for g in got):.0f}"
                        if got else "-").rjust(20)
            print(row)


def with_ratio(got, base, name, show):
    """A table cell: the median of `got`, and unless native, the median ratio to `base` (pairs
    from the same repetition)."""
    if not got:
        return "-".rjust(20)
    cell = show(statistics.median(got))
    if base and name != "native":
        cell += f" ({statistics.median(g / b for g, b in zip(got, base)):.2f}x)"
    return cell.rjust(20)


def sample_mechanisms(work):
    """What a sample costs by part (programs/sample_cost.c), beside this project's whole sample."""
    mech = build(work, os.path.join(HERE, "programs", "sample_cost.c"), "", [])
    hot = build(work, os.path.join(HERE, "programs", "hotpath.c"), "", ["-g"])
    modes = ["none", "ring", "chain", "signal"]
    lost = {}
    for rep in range(RUNS):
        log(f"sample-mechanism repetition {rep + 1}/{RUNS}")
        for mode in modes:
            out = run(None, [], [mech, mode, SECONDS], work)
            if out:
                lost.setdefault(mode, []).append(float(re.search(r"gap_ns_per_s=([\d.]+)", out).group(1)))
        out = run(COZ, ["--fixed-speedup", "0"], [hot, "sample", SECONDS], work)
        if out:
            lost.setdefault("ours", []).append(float(re.search(r"gap_ns_per_s=([\d.]+)", out).group(1)))
    if "none" not in lost:
        return
    base = statistics.median(lost["none"])
    print(f"\n(c) a sample by part: time lost per sample beyond the machine's own interruptions "
          f"({base / 1e6:.1f} ms/s), 1 ms period, medians of {RUNS}")
    titles = {"ring": "kernel sample, ip only, no signal", "chain": "+ callchain and 2 KiB stack",
              "signal": "+ a signal to an empty handler", "ours": "this project's sample (0%)"}
    for mode in modes[1:] + ["ours"]:
        if mode in lost:
            print(f"  {titles[mode]:<40} {(statistics.median(lost[mode]) - base) / 1000 / 1000:6.1f} us")


def handovers(work):
    """The short-critical-section case of benchmarks/accuracy (lock_pair.c, 16,000 items): how
    often the lock changes hands natively and under each profiler at 0%."""
    acc = os.path.join(ROOT, "benchmarks", "accuracy", "programs")
    src = os.path.join(acc, "lock_pair.c")
    ours = build(work, src, "", ["-g"], [acc])
    d3 = build(work, src, "_d3", ["-gdwarf-3", "-gstrict-dwarf"], [acc])
    cases = configs()
    counts = {}
    for rep in range(RUNS):
        log(f"hand-over repetition {rep + 1}/{RUNS}")
        for name, prefix, which, options in cases:
            out = run(prefix, options + ["--end-to-end"], [d3 if which == "dwarf3" else ours], work)
            m = re.search(r"handovers (\d+)", out or "")
            if m:
                counts.setdefault(name, []).append(int(m.group(1)))
    print(f"\n(d) short critical sections (accuracy's lock_pair.c): lock hand-overs in 16,000 items, "
          f"median [min-max] of {RUNS}")
    for name, *_ in cases:
        got = counts.get(name)
        if got:
            print(f"  {name:<14} {statistics.median(got):8.0f}  [{min(got)}-{max(got)}]")


def elapsed(out):
    m = re.search(r"elapsed_ns (\d+)", out or "")
    return int(m.group(1)) / 1e9 if m else None


def whole_programs(work):
    acc = os.path.join(ROOT, "benchmarks", "accuracy", "programs")
    programs = {}  # name -> (ours binary, dwarf3 binary, argv tail, env)
    for name in PROGRAMS:
        if name in ("lock_loop", "single"):
            src = os.path.join(HERE, "programs", name + ".c")
            programs[name] = (build(work, src, "", ["-g"]), build(work, src, "_d3", ["-gdwarf-3", "-gstrict-dwarf"]), [], {})
        elif name == "barrier":
            src = os.path.join(acc, "barrier.c")
            programs[name] = (build(work, src, "", ["-g"], [acc]),
                              build(work, src, "_d3", ["-gdwarf-3", "-gstrict-dwarf"], [acc]), [], {})
        elif name == "sqlite":
            ours, d3 = (os.path.join(SQLITE_BIN, n) for n in ("sqlite_ours", "sqlite_dwarf3"))
            if not os.path.exists(ours):
                log("sqlite: not built (python3 benchmarks/real/prepare.py builds it); skipped")
                continue
            programs[name] = (ours, d3, [work], {"ROWS": "150000", "COZ_SPIN": "0"})
    cases = configs()
    times = {}
    for rep in range(RUNS):
        log(f"whole-program repetition {rep + 1}/{RUNS}")
        for name, (ours, d3, tail, env) in programs.items():
            for cname, prefix, which, options in cases:
                binary = d3 if which == "dwarf3" else ours
                t = elapsed(run(prefix, options, [binary, *tail], work, env))
                if t is not None:
                    times.setdefault((name, cname), []).append(t)
    names = [c[0] for c in cases]
    print(f"\n(b) whole programs, seconds of the program's own work, medians of {RUNS} (ratio to native)")
    print("program".ljust(14) + "".join(n.rjust(20) for n in names))
    for name in programs:
        base = times.get((name, "native"), [])
        print(name.ljust(14) + "".join(with_ratio(times.get((name, c), []), base, c,
                                                  lambda t: f"{t:.3f}") for c in names))


def main():
    with tempfile.TemporaryDirectory(prefix="coz-hotpath-") as work:
        if os.environ.get("SKIP_OPS") != "1":
            per_operation(work)
        if "sample" in OPS:
            sample_mechanisms(work)
        if os.environ.get("SKIP_PROGRAMS") != "1":
            whole_programs(work)
        if os.environ.get("SKIP_HANDOVERS") != "1":
            handovers(work)


if __name__ == "__main__":
    main()
