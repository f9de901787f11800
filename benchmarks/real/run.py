#!/usr/bin/env python3
"""Real-program benchmark: attribution and accuracy on programs nobody here wrote.

prepare.py fetches SQLite (libsqlite3-sys's amalgamation), zstd (zstd-sys's lib) and ripgrep from
crates.io, patches a progress point and a line of known work (COZ_SPIN iterations of a spin loop,
the COZ_SPIN_LINE) into a hot path of each, and builds them. sqlite-sync is the same SQLite build
with a line of known waiting instead: the driver's SYNC_ROWS mode commits one row per transaction
(one sqlite3_step, one progress visit) in WAL mode with synchronous=FULL, from one thread, so each
commit syncs the WAL through unixSync, where the COZ_WAIT_LINE, after the real fsync, sleeps
COZ_WAIT_US microseconds (WAIT_US, default 1500: a slow disk's sync; most of the run waits there).

(a) attribution: `coz run` with default options on the workload with COZ_SPIN=0, then
    `coz report --json`: are the top-ranked lines, and the most-sampled lines (running and blocked
    samples), in the program's own source or the driver that calls it (the user's code), not
    /usr/include, /rustc, other crates or libc? sqlite-sync runs with the wait, and also needs the
    wait line among the top-ranked lines with the report's off_cpu flag.
(b) accuracy: the real effect of removing 50% and 100% of the line (COZ_SPIN or COZ_WAIT_US
    halved, zeroed: 1 - T(S')/T(S), T the process's wall time for a fixed number of progress
    visits) against `coz run --end-to-end --fixed-line L --fixed-speedup 50|100` predictions on
    the program at full COZ_SPIN or COZ_WAIT_US (1 - P(s)/P(0), P the time per visit in the
    experiment record), ours and Debian's Coz 0.2 (DWARF 3 builds) in the same interleaved
    repetitions; Coz 0.2 sees no waits, so it predicts about 0 for the wait line. Errors
    (predicted - real, in points) with approximate 95% bootstrap intervals from
    benchmarks/accuracy/run.py (RUNS>=5).
RUNS=N (default 5), PROGRAMS=sqlite,sqlite-sync,zstd,ripgrep, COZ=path/to/coz, WAIT_US=N,
SYNC_DIR=dir (sqlite-sync's database; default /dev/shm), SKIP_ATTR=1, SKIP_ACC=1;
BEFORE=path/to/another/build/bin/coz puts that build in the peer column instead of Debian's Coz
(for a change to the runtime: both measured in one run, interleaved).
"""
import atexit
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import importlib.util  # noqa: E402
import prepare  # noqa: E402

# benchmarks/accuracy/run.py, loaded by path (its module name is this file's too): Measure,
# effect, error_interval, profile_period, summaries.
_spec = importlib.util.spec_from_file_location("accuracy_run", os.path.join(ROOT, "benchmarks", "accuracy", "run.py"))
acc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(acc)

RUNS = int(os.environ.get("RUNS", "5"))
COZ = os.environ.get("COZ", os.path.join(ROOT, "build", "bin", "coz"))
DEBIAN = "/usr/bin/coz" if os.path.exists("/usr/bin/coz") and os.path.exists("/usr/lib/coz-profiler/libcoz.so") else None
BEFORE = os.environ.get("BEFORE")
PEER, PEER_NAME = (BEFORE, "before") if BEFORE else (DEBIAN, "coz 0.2")
LEVELS = [0.0, 0.5, 1.0]
RIPGREP_WORKSPACE = ("grep-", "ignore-", "globset-")  # ripgrep's own crates, published separately

def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()

def make_corpus(path, files=2400, size=24 << 10):
    """Text files for ripgrep, generated deterministically."""
    if os.path.isdir(path) and len(os.listdir(path)) >= 8:
        return path
    rng = random.Random(7)
    words = ("causal profile line thread speedup virtual delay sample progress point experiment "
             "throughput latency mutex condition queue worker search regex match literal").split()
    for d in range(8):
        os.makedirs(os.path.join(path, f"d{d}"), exist_ok=True)
    for i in range(files):
        out, n = [], 0
        while n < size:
            line = " ".join(rng.choice(words) for _ in range(rng.randint(4, 14)))
            if rng.random() < 0.05:
                line += f" id={rng.randint(0, 999999)}"
            out.append(line)
            n += len(line) + 1
        with open(os.path.join(path, f"d{i % 8}", f"f{i}.txt"), "w") as f:
            f.write("\n".join(out) + "\n")
    return path

WAIT_US = int(os.environ.get("WAIT_US", "1500"))  # sqlite-sync's injected wait per sync

def workloads(work):
    """program -> (argv after the binary, env, full length of the marked line, env for the longer
    attribution run, extra `coz run` options for it, the variable that sets the line's length:
    COZ_SPIN iterations of the spin, or COZ_WAIT_US microseconds of the wait)."""
    tmp = os.path.join(work, "tmp")
    os.makedirs(tmp, exist_ok=True)
    # sqlite-sync's database: on tmpfs by default, where fsync returns at once whatever other
    # sessions write (on this VM's ext4 an fsync takes 0.2 ms idle, several ms during a build)
    shm = os.environ.get("SYNC_DIR") or ("/dev/shm" if os.path.isdir("/dev/shm") else tmp)
    sync_dir = tempfile.mkdtemp(prefix="coz-real-sync-", dir=shm)
    atexit.register(shutil.rmtree, sync_dir, True)
    corpus = make_corpus(os.path.join(work, "corpus"))
    return {
        "sqlite": ([tmp], {"ROWS": "150000"}, 2500, {"ROWS": "400000"}, ["--runs", "3"], "COZ_SPIN"),
        # one commit (one fsync of the WAL, then the wait) per row: ~1.7 ms a row
        "sqlite-sync": ([sync_dir], {"SYNC_ROWS": "1500"}, WAIT_US, {"COZ_WAIT_US": str(WAIT_US)}, ["--runs", "3"],
                        "COZ_WAIT_US"),
        "zstd": ([], {"ROUNDS": "4"}, 700000, {"ROUNDS": "12"}, ["--runs", "3"], "COZ_SPIN"),
        # the corpus three times over: each file searched three times, a run of a few seconds
        "ripgrep": (["-j2", "-c", "--no-config", r"(?i)(point|queue)\s+\w+ing|id=\d{5}", corpus, corpus, corpus],
                    {}, int(os.environ.get("RG_SPIN", "300000")), {}, ["--runs", "6"], "COZ_SPIN"),
    }

def resolve_relative(path, src):
    """A Rust crate's DWARF may name its files relative to the crate (src/lib.rs): find which of the
    program's dependencies (its Cargo.lock) has that file."""
    lock = os.path.join(src, "Cargo.lock")
    if os.path.isabs(path) or not os.path.exists(lock):
        return path
    if os.path.exists(os.path.join(src, path)):
        return os.path.join(src, path)
    home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    with open(lock) as f:
        text = f.read()
    hits = []
    for block in text.split("[[package]]")[1:]:
        fields = dict(l.split(" = ", 1) for l in block.strip().splitlines() if " = " in l)
        name, version = fields.get("name", "").strip('"'), fields.get("version", "").strip('"')
        for reg in glob.glob(os.path.join(home, "registry", "src", "*", f"{name}-{version}")):
            if os.path.exists(os.path.join(reg, path)):
                hits.append(os.path.join(reg, path))
    return hits[0] if len(hits) == 1 else path

def classify(path, program, src):
    """Whose code a source file is: 'own' (the program's), or what else."""
    path = resolve_relative(path, src)
    if path.startswith(src + os.sep) or path.startswith(os.path.basename(src) + os.sep):
        return "own"
    if program == "ripgrep" and "/.cargo/registry/" in path:
        crate = path.split("/.cargo/registry/src/")[-1].split("/")[1] if "/.cargo/registry/src/" in path else ""
        if crate.startswith(RIPGREP_WORKSPACE):
            return "own"  # ripgrep's workspace crate
        return f"crate {crate}"
    if path.startswith("/rustc/") or "/.rustup/" in path:
        return "toolchain"
    if path.startswith(("/usr/include", "/usr/lib")):
        return "system"
    if path.startswith(os.path.join(HERE, "drivers")):
        return "driver"
    return "other"

def short(path, src):
    path = resolve_relative(path, src)
    if "/.cargo/registry/src/" in path:
        return "~/.cargo/registry/src/*/" + path.split("/.cargo/registry/src/")[1].split("/", 1)[1]
    return os.path.relpath(path, os.path.dirname(src)) if path.startswith(src) else path

def attribution(name, info, wl, scratch):
    args, env0, _, attr_env, attr_opts, knob = wl
    profile = os.path.join(scratch, f"attr_{name}.coz")
    if os.path.exists(profile):
        os.remove(profile)
    env = dict(os.environ, **{**env0, **attr_env}, COZ_SPIN="0")
    subprocess.run([COZ, "run", *attr_opts, "-o", profile, "---", info["ours"], *args], env=env, cwd=scratch,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    samples = {}
    with open(profile) as f:
        for line in f:
            if line.startswith("samples\t"):
                fields = dict(kv.split("=", 1) for kv in line.rstrip("\n").split("\t")[1:] if "=" in kv)
                loc = fields["location"]  # running and blocked (off-CPU) samples
                run_, blocked = samples.get(loc, (0, 0))
                samples[loc] = (run_ + int(fields["count"]), blocked + int(fields.get("blocked", 0)))
    total = sum(map(sum, samples.values())) or 1
    top_sampled = sorted(samples.items(), key=lambda kv: -sum(kv[1]))[:3]
    ranked = []
    for min_points in ("5", "3", "2"):  # fewer distinct speedups when a run gives few experiments
        out = subprocess.run([COZ, "report", "--json", "--min-points", min_points, "--bootstrap", "0", profile],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
        try:
            series = json.loads(out).get("series", [])
        except ValueError:
            series = []
        ranked = sorted(series, key=lambda s: s["rank"])[:3]
        if ranked:
            break
    rows = []
    for s in ranked:
        off = f", off-cpu ({100 * s['blocked_share']:.0f}% blocked)" if s.get("off_cpu") else ""
        rows.append(("ranked", s["line"], classify(s["line"].rsplit(":", 1)[0], name, info["src"]),
                     f"impact {s['impact']['value'] if isinstance(s['impact'], dict) else s['impact']:.3g}{off}"))
    for loc, (run_, blocked) in top_sampled:
        off = f" ({100 * blocked / (run_ + blocked):.0f}% blocked)" if blocked else ""
        rows.append(("sampled", loc, classify(loc.rsplit(":", 1)[0], name, info["src"]),
                     f"{100 * (run_ + blocked) / total:.1f}% of samples{off}"))
    ok = bool(rows) and all(kind in ("own", "driver") for _, _, kind, _ in rows)
    if knob == "COZ_WAIT_US":  # and the wait line is among the ranked, marked off-CPU
        ok = ok and any(s["line"].endswith(info["line"]) and s.get("off_cpu") for s in ranked)
    return ok, rows, (min_points if ranked else None)

def wall(binary, args, env, cwd):
    start = time.monotonic()
    subprocess.run([binary, *args], env=env, cwd=cwd, stdout=subprocess.DEVNULL, check=True)
    return time.monotonic() - start

def predicted_period(tool, binary, args, env, line, speedup, scratch):
    profile = os.path.join(scratch, "profile.coz")
    if os.path.exists(profile):
        os.remove(profile)
    cmd = [tool, "run", "--end-to-end", "--fixed-line", line, "--fixed-speedup", str(int(speedup * 100))]
    if tool in (COZ, BEFORE):
        cmd += ["-o", profile]
    subprocess.run(cmd + ["---", binary, *args], env=env, cwd=scratch,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not os.path.exists(profile):
        return None
    with open(profile) as f:  # the experiment must be on the line asked for
        selected = [l for l in f if l.startswith("experiment\t")]
    if not selected or not any(line.split(":")[-1] in l and os.path.basename(line.split(":")[0]) in l for l in selected):
        return None
    return acc.profile_period(profile)

def accuracy(name, info, wl, scratch):
    args, env0, spin, _, _, knob = wl
    real = {s: [] for s in LEVELS}
    ours = {s: [] for s in LEVELS}
    theirs = {s: [] for s in LEVELS}
    for r in range(RUNS):  # each configuration's levels back to back
        for s in LEVELS:
            env = dict(os.environ, **env0, **{knob: str(int(round(spin * (1 - s))))})
            real[s].append(wall(info["ours"], args, env, scratch))
        env = dict(os.environ, **env0, **{knob: str(spin)})
        for s in LEVELS:
            ours[s].append(predicted_period(COZ, info["ours"], args, env, info["line"], s, scratch))
        if PEER:
            binary = info["ours"] if BEFORE else info["dwarf3"]
            for s in LEVELS:
                theirs[s].append(predicted_period(PEER, binary, args, env, info["line"], s, scratch))
        log(f"{name}: repetition {r + 1}/{RUNS}: real {[round(real[s][-1], 2) for s in LEVELS]} s")
    share = acc.effect(real, 1.0).value()
    return {s: (acc.effect(real, s), acc.effect(ours, s), acc.effect(theirs, s)) for s in (0.5, 1.0)}, share

def err_cell(actual, predicted, summary):
    value = predicted.value()
    if value is None or actual.value() is None:
        return f"{'n/a':>6} {'':>15}"
    err = value - actual.value()
    summary["errors"].append(abs(err))
    interval = acc.error_interval(actual, predicted)
    text = "" if interval is None else f"[{interval[0]:+.1f}, {interval[1]:+.1f}]"
    if interval:
        summary["widths"].append(interval[1] - interval[0])
        summary["biased"] += interval[0] > 0 or interval[1] < 0
    return f"{err:+6.1f} {text:>15}"

def main():
    t0 = time.monotonic()
    if not os.path.exists(COZ):
        for _ in range(30):  # another session may be rebuilding it
            time.sleep(10)
            if os.path.exists(COZ):
                break
        else:
            raise SystemExit(f"no {COZ}: build the project first (bash scripts/build.sh)")
    programs = prepare.prepare()
    wls = workloads(prepare.WORK)
    scratch = tempfile.mkdtemp(prefix="coz-real-")
    attr, accs = {}, {}
    for name, info in programs.items():
        if not os.environ.get("SKIP_ATTR"):
            attr[name] = attribution(name, info, wls[name], scratch)
            log(f"{name}: attribution done")
        if not os.environ.get("SKIP_ACC"):
            accs[name] = accuracy(name, info, wls[name], scratch)
    shutil.rmtree(scratch, ignore_errors=True)

    print(f"\nAttribution: `coz run` with default options, COZ_SPIN=0 (sqlite-sync: COZ_WAIT_US={WAIT_US}, and the "
          f"wait line must rank, off-CPU); top 3 ranked lines and top 3 most-sampled lines (running and blocked)")
    for name, (ok, rows, mp) in attr.items():
        note = "" if mp in (None, "5") else f" (ranked with --min-points {mp}: few experiments)"
        if mp is None:
            note = " (no line ranked: too few experiments)"
        print(f"{name}: {'yes' if ok else 'NO'}{note}")
        for kind, loc, whose, what in rows:
            print(f"  {kind:8} {short(loc, programs[name]['src']):60} {whose:18} {what}")
    if accs:
        print(f"\nAccuracy: the COZ_SPIN_LINE (sqlite-sync: COZ_WAIT_LINE) really made 50%/100% faster against --end-to-end --fixed-line "
              f"--fixed-speedup predictions; medians over {RUNS} repetitions; error = predicted - real, points; "
              f"95% bootstrap interval with RUNS>={acc.MIN_INTERVAL_RUNS}")
    header = f"{'program':11} {'line':44} {'attr':>4} {'speedup':>7} {'real':>6} {'ours':>6} {'error':>6} {'95% interval':>15}"
    if PEER:
        header += f" {PEER_NAME:>7} {'error':>6} {'95% interval':>15}"
    print(header)
    ours_sum, coz_sum = acc.new_summary(), acc.new_summary()
    for name, info in programs.items():
        a = attr.get(name)
        attr_cell = "-" if a is None else ("yes" if a[0] else "no")
        if name not in accs:
            print(f"{name:11} {info['line']:44} {attr_cell:>4}")
            continue
        rows, share = accs[name]
        for s, (actual, ours, theirs) in rows.items():
            v = actual.value()
            line = (f"{name:11} {info['line']:44} {attr_cell:>4} {int(s * 100):6}% {'n/a' if v is None else f'{v:.1f}':>6} "
                    f"{acc.cell(ours.value()).strip():>6} {err_cell(actual, ours, ours_sum)}")
            if PEER:
                c = theirs.value()
                line += f" {'failed' if c is None else f'{c:.1f}':>7} {err_cell(actual, theirs, coz_sum)}"
            print(line)
    acc.print_summary("this project", ours_sum)
    if PEER:
        acc.print_summary(f"before ({BEFORE})" if BEFORE else "Debian coz 0.2", coz_sum)
    print(f"total time {time.monotonic() - t0:.0f} s")

if __name__ == "__main__":
    main()
