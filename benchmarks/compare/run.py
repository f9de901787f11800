#!/usr/bin/env python3
"""coz compare (issue 50): does it say what changed, and only that?

(a) A pair whose difference is zero and only the layout moves: programs/split_field.c built with
    RECORD_AT 0 and 16 (where the record lies in its heap block: 16 bytes apart). Both do the
    same loads; at any one layout of the heap exactly one of them loads a field that crosses a
    cache line (about 8% slower here). `coz compare` (10 layouts, 2 runs of each at
    each, 99% intervals) ZERO times: how often it says "no difference" (the issue asks 19 of 20).
    Beside it, the before-and-after timing users do: `coz compare --fixed-layout` (every run at one
    layout) FIXED times, and plain interleaved runs without coz (PLAIN runs of each, Welch's t at
    99%): how often they report a difference that is the layout's alone.
(b) Pairs with a known difference: programs/two_parts.c, PART_A 100000 against 80000 and 60000
    steps of a multiply chain, PART_B 100000: the new build's speedup is 10% and 20% (1 - new
    work / old work). KNOWN comparisons each: the median estimate, how often the 99% interval
    covers the truth, and its median width.
(c) A profile's prediction against the achievement: `coz run --fixed-line` on the old build of the
    20% pair (its line part_a made 40% faster), then `coz compare --profile --line`: the line's own
    speedup from its samples, the prediction read there, the achieved speedup, consistent or not;
    PREDICT times.
(d) What a count-only run costs: two_parts natively against the same with the runtime preloaded
    to count (what every run of coz compare is), COST interleaved runs of each, medians.
(e) A real program (SKIP_REAL=1 leaves it out): zstd 1.5.7's lib from crates.io's zstd-sys,
    fetched, patched and built by benchmarks/real/prepare.py (a line of known work per block,
    COZ_SPIN iterations, and a progress point per block). The old build runs COZ_SPIN=700000,
    the new one 350000 (the line made 50% faster); the prediction comes from a profile of the old
    one (`coz run --fixed-line` on the line), the achievement from `coz compare`.
Debian's Coz 0.2.2 has no such command: there is no peer column.
Environment: COZ (default build/bin/coz), ZERO (20), FIXED (5), PLAIN (10), KNOWN (10),
PREDICT (3), COST (10), SKIP_REAL=1.
"""
import importlib.util
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
COZ = os.environ.get("COZ", os.path.join(ROOT, "build", "bin", "coz"))
RUNTIME = os.path.join(os.path.dirname(os.path.dirname(COZ)), "lib", "libcoz.so")
N = {k: int(os.environ.get(k, d)) for k, d in
     (("ZERO", 20), ("FIXED", 5), ("PLAIN", 10), ("KNOWN", 10), ("PREDICT", 3), ("COST", 10))}
WORK = tempfile.mkdtemp(prefix="coz-compare-bench-")


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def build(name, source, *defines):
    out = os.path.join(WORK, name)
    subprocess.run(["gcc", "-O2", "-g", "-I", os.path.join(ROOT, "include"),
                    "-I", os.path.join(ROOT, "benchmarks", "accuracy", "programs"), *defines,
                    os.path.join(HERE, "programs", source), "-o", out], check=True)
    return out


def marked_line(source, marker):
    with open(os.path.join(HERE, "programs", source)) as f:
        for n, line in enumerate(f, 1):
            if "/* LINE:" + marker + " */" in line:
                return f"{source}:{n}"
    raise SystemExit(f"no LINE:{marker} in {source}")


def compare(old, new, *options):
    r = subprocess.run([COZ, "compare", "-q", "--json", *options, "---", *old, "---", *new],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"coz compare failed: {r.stderr.strip()}")
    return json.loads(r.stdout)


def measure(result, name):
    for m in result["measures"]:
        if m["name"] == name:
            return m
    raise SystemExit(f"no measure {name} in {result}")


def pct(x):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x * 100:+.1f}%"


def welch_differs(a, b, confidence=0.99):
    """Plain timing's test: Welch's t on log times, two-sided, at `confidence` (normal quantile
    with the t correction of a few runs approximated by Welch-Satterthwaite and a table)."""
    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    va, vb = statistics.variance(la) / len(la), statistics.variance(lb) / len(lb)
    t = (statistics.mean(la) - statistics.mean(lb)) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(la) - 1) + vb ** 2 / (len(lb) - 1))
    # two-sided 99% quantiles of Student's t
    table = [(1, 63.66), (2, 9.92), (3, 5.84), (4, 4.60), (5, 4.03), (6, 3.71), (8, 3.36),
             (10, 3.17), (15, 2.95), (20, 2.85), (30, 2.75), (1e9, 2.58)]
    crit = next(c for d, c in table if df <= d)
    return abs(t) > crit, 1 - math.exp(statistics.mean(la) - statistics.mean(lb))


def plain_runs(old, new, runs):
    times = {0: [], 1: []}
    for _ in range(runs):
        for p, cmd in ((0, old), (1, new)):
            began = time.monotonic()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
            times[p].append(time.monotonic() - began)
    return times


def section_zero():
    old = [build("field0", "split_field.c", "-DRECORD_AT=0"), "300"]
    new = [build("field16", "split_field.c", "-DRECORD_AT=16"), "300"]
    verdicts, spreads = [], []
    for i in range(N["ZERO"]):
        m = measure(compare(old, new), "wall time")
        verdicts.append(m["verdict"])
        spreads.append(m["layout_spread"])
        log(f"zero pair {i + 1}: {pct(m['speedup'])} [{pct(m['low'])}, {pct(m['high'])}] {m['verdict']}")
    fixed = []
    for i in range(N["FIXED"]):
        m = measure(compare(old, new, "--fixed-layout"), "wall time")
        fixed.append(m)
        log(f"fixed layout {i + 1}: {pct(m['speedup'])} [{pct(m['low'])}, {pct(m['high'])}] {m['verdict']}")
    times = plain_runs(old, new, N["PLAIN"])
    differs, plain_speedup = welch_differs(times[0], times[1])
    print("(a) zero difference, only the layout moving (split_field, RECORD_AT 0 against 16)")
    print(f"    coz compare, layouts drawn afresh: 'no difference' in {verdicts.count('no difference')} of {len(verdicts)}"
          f" comparisons; between layouts, median spread ±{statistics.median(spreads) * 100:.1f}%")
    print(f"    coz compare --fixed-layout (one layout, as a before-and-after timing): a difference in "
          f"{sum(m['verdict'] != 'no difference' for m in fixed)} of {len(fixed)}, median "
          f"{pct(statistics.median(m['speedup'] for m in fixed))}")
    print(f"    plain interleaved runs without coz ({N['PLAIN']} of each, Welch's t at 99%): "
          f"{pct(plain_speedup)}, {'a difference' if differs else 'no difference'}")


def section_known():
    old = [build("parts100", "two_parts.c", "-DPART_A=100000"), "600"]
    print("(b) known differences (two_parts: PART_A 100000 against less, PART_B 100000)")
    print(f"    {'truth':>6} {'median estimate':>16} {'99% interval covers':>20} {'median width':>13}")
    for part_a, truth in ((80000, 0.10), (60000, 0.20)):
        new = [build(f"parts{part_a // 1000}", "two_parts.c", f"-DPART_A={part_a}"), "600"]
        results = []
        for i in range(N["KNOWN"]):
            m = measure(compare(old, new), "item")
            results.append(m)
            log(f"known {truth:.0%} {i + 1}: {pct(m['speedup'])} [{pct(m['low'])}, {pct(m['high'])}]")
        covers = sum(m["low"] <= truth <= m["high"] for m in results)
        print(f"    {truth * 100:5.0f}% {pct(statistics.median(m['speedup'] for m in results)):>16} "
              f"{covers:>14} of {len(results)} {statistics.median((m['high'] - m['low']) * 100 for m in results):>11.1f} pts")


def print_predictions(rows):
    print(f"    {'line sped up':>13} {'predicted':>24} {'achieved':>24}  agree")
    for p in rows:
        print(f"    {pct(p['line_speedup']):>13} {pct(p['predicted']):>7} [{pct(p['predicted_low'])}, "
              f"{pct(p['predicted_high'])}] {pct(p['achieved']):>7} [{pct(p['achieved_low'])}, "
              f"{pct(p['achieved_high'])}]  {'yes' if p['consistent'] else 'no'}")


def check_prediction_pair(old, new, line, i):
    profile = os.path.join(WORK, "profile.coz")
    if os.path.exists(profile):
        os.unlink(profile)
    subprocess.run([COZ, "run", "--quiet", "--fixed-line", line, "--budget", "15s", "-o", profile, "---",
                    old[0], "6000"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    result = compare(old, new, "--profile", profile, "--line", line)
    p = result["prediction"]
    if "problem" in p:
        log(f"prediction {i + 1}: {p['problem']}")
        return None
    log(f"prediction {i + 1}: line {pct(p['line_speedup'])}, predicted {pct(p['predicted'])}, achieved {pct(p['achieved'])}")
    return p


def section_cost():
    binary = os.path.join(WORK, "parts100")
    counts = os.path.join(WORK, "counts")
    env = dict(os.environ, LD_PRELOAD=RUNTIME, COZ_COUNT_ONLY=counts, COZ_LAYOUT="0")
    native, counted = [], []
    for _ in range(N["COST"]):
        for target, env_ in ((native, None), (counted, env)):
            began = time.monotonic()
            subprocess.run([binary, "600"], stdout=subprocess.DEVNULL, check=True, env=env_)
            target.append(time.monotonic() - began)
            if os.path.exists(counts):
                os.unlink(counts)
    ratios = [c / n for n, c in zip(native, counted)]
    print("(d) a count-only run's cost (two_parts, 600 items with a progress point each)")
    print(f"    native {statistics.median(native) * 1000:.1f} ms, counting {statistics.median(counted) * 1000:.1f} ms:"
          f" {statistics.median(ratios):.3f}x (median of {len(ratios)} interleaved pairs)")


def section_real():
    spec = importlib.util.spec_from_file_location("real_prepare", os.path.join(ROOT, "benchmarks", "real", "prepare.py"))
    prep = importlib.util.module_from_spec(spec)
    os.environ["PROGRAMS"] = "zstd"
    spec.loader.exec_module(prep)
    built = prep.prepare().get("zstd")
    if not built:
        print("(e) zstd could not be built here: skipped")
        return
    binary, line = built["ours"], built["line"]
    old = ["/usr/bin/env", "COZ_SPIN=700000", "ROUNDS=4", binary]
    new = ["/usr/bin/env", "COZ_SPIN=350000", "ROUNDS=4", binary]
    rows = []
    for i in range(N["PREDICT"]):
        profile = os.path.join(WORK, "zstd.coz")
        if os.path.exists(profile):
            os.unlink(profile)
        subprocess.run([COZ, "run", "--quiet", "--fixed-line", line, "--budget", "30s", "-o", profile, "---",
                        "/usr/bin/env", "COZ_SPIN=700000", "ROUNDS=12", binary],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        p = compare(old, new, "--profile", profile, "--line", line)["prediction"]
        if "problem" in p:
            log(f"zstd {i + 1}: {p['problem']}")
            continue
        log(f"zstd {i + 1}: line {pct(p['line_speedup'])}, predicted {pct(p['predicted'])}, achieved {pct(p['achieved'])}")
        rows.append(p)
    print(f"(e) a real program: zstd 1.5.7 (zstd-sys), its line {line} (COZ_SPIN 700000 to 350000)")
    print_predictions(rows)


def main():
    if not os.path.exists(COZ):
        raise SystemExit(f"no coz at {COZ}: build first (bash scripts/build.sh)")
    started = time.monotonic()
    section_zero()
    section_known()
    print("(c) the profile's prediction against the achievement (two_parts, part_a 40% faster)")
    line = marked_line("two_parts.c", "part_a")
    print_predictions([p for p in (check_prediction_pair([os.path.join(WORK, "parts100"), "600"],
                                                         [os.path.join(WORK, "parts60"), "600"], line, i)
                                   for i in range(N["PREDICT"])) if p])
    section_cost()
    if not os.environ.get("SKIP_REAL"):
        section_real()
    log(f"{time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
