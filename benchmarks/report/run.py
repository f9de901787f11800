#!/usr/bin/env python3
"""How far `coz report`'s numbers can be trusted, and how long it takes.

Generates profiles from known speedup curves plus noise, with speedups drawn as the profiler
draws them (0% half the time, else 5%..100% in 5% steps), runs `coz report --json` on each, and
prints: how often the 95% intervals hold the true value (per curve point, and the slope), the
false discovery proportion among lines flagged significant and the share of real effects found,
and the time to analyse a large profile. Usage: run.py [path/to/coz] (default build/bin/coz).
"""
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COZ = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build" / "bin" / "coz")
BASE_PERIOD = 1e6   # ns per visit at 0%
DURATION = 5e7      # ns per experiment
NOISE = 0.05        # relative noise of each experiment's period


def speedup_draw(rng):
    return 0.0 if rng.random() < 0.5 else rng.randint(1, 20) * 0.05


def profile_text(rng, lines, experiments_per_line):
    """lines: {name: true slope}; program speedup = slope * line speedup."""
    out = ["startup\ttime=1\tformat=1\tpid=1\tsampling-period=1000000"]
    for name, slope in lines.items():
        for _ in range(experiments_per_line):
            x = speedup_draw(rng)
            period = BASE_PERIOD * (1 - slope * x) * (1 + NOISE * rng.gauss(0, 1))
            out.append(f"experiment\tselected={name}\tspeedup={x:.2f}\tduration={int(DURATION)}\tselected-samples=50")
            out.append(f"throughput-point\tname=done\tdelta={round(DURATION / period)}")
    return "\n".join(out) + "\n"


def report(path, seed, extra=()):
    r = subprocess.run([COZ, "report", "--json", "--min-points", "3", "--seed", str(seed), *extra, path],
                       capture_output=True, text=True)
    return json.loads(r.stdout)


def calibration(tmp, profiles=40):
    rng = random.Random(1)
    truth = {f"/bench/l{i}.c:1": s for i, s in enumerate([0.0] * 24 + [0.3] * 4 + [0.6] * 2 + [-0.2] * 2)}
    points = covered = slopes = slopes_covered = impacts = impacts_covered = null_excluded = nulls = 0
    flagged = false_flags = real = found = contention_found = contention_real = 0
    widths = []
    for p in range(profiles):
        path = Path(tmp) / f"cal{p}.coz"
        path.write_text(profile_text(rng, truth, 60))
        doc = report(str(path), p + 1)
        for s in doc["series"]:
            slope = truth[s["line"]]
            for c in s["curve"][1:]:
                if c["low"] is None:
                    continue
                y = slope * c["line_speedup"]
                points += 1
                covered += c["low"] <= y <= c["high"]
                widths.append(c["high"] - c["low"])
            if s["impact"]["low"] is not None:
                true_impact = slope * s["curve"][-1]["line_speedup"] / 2  # mean of slope x over [0, x_max]
                impacts += 1
                impacts_covered += s["impact"]["low"] <= true_impact <= s["impact"]["high"]
                null_excluded += slope == 0 and not (s["impact"]["low"] <= 0 <= s["impact"]["high"])
                nulls += slope == 0
            if s["slope"]["low"] is not None:
                slopes += 1
                slopes_covered += s["slope"]["low"] <= slope <= s["slope"]["high"]
            flagged += s["significant"]
            false_flags += s["significant"] and slope <= 0
            real += slope > 0
            found += s["significant"] and slope > 0
            contention_real += slope < 0
            contention_found += s["contention"] and slope < 0
    print(f"calibration: {profiles} profiles x {len(truth)} lines x 60 experiments, noise {NOISE:.0%} per experiment")
    print(f"  curve points inside their 95% interval   {covered / points:6.1%}  ({covered}/{points}; median width "
          f"{statistics.median(widths) * 100:.1f} points)")
    print(f"  slopes inside their 95% interval         {slopes_covered / slopes:6.1%}  ({slopes_covered}/{slopes})")
    print(f"  impacts inside their 95% interval        {impacts_covered / impacts:6.1%}  ({impacts_covered}/{impacts}; "
          f"lines with no effect whose interval excludes 0: {null_excluded / nulls:.1%})")
    print(f"  false discoveries among 'significant'    {false_flags / max(flagged, 1):6.1%}  ({false_flags}/{flagged}; "
          f"target at most 5% on average)")
    print(f"  real effects flagged 'significant'       {found / real:6.1%}  ({found}/{real})")
    print(f"  slowing lines flagged 'contention'       {contention_found / contention_real:6.1%}  "
          f"({contention_found}/{contention_real})")


def speed(tmp, runs=5):
    rng = random.Random(2)
    lines = {f"/bench/big{i}.c:{i}": rng.choice([0.0, 0.0, 0.2, 0.5]) for i in range(300)}
    path = Path(tmp) / "big.coz"
    path.write_text(profile_text(rng, lines, 60))
    n = 300 * 60
    for label, extra in [("--bootstrap 1000 (default)", ()), ("--bootstrap 0", ("--bootstrap", "0"))]:
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([COZ, "report", "--min-points", "3", *extra, str(path)], capture_output=True, check=False)
            times.append(time.perf_counter() - start)
        print(f"  {label:28s} median {statistics.median(times) * 1000:7.0f} ms over {runs} runs")
    print(f"speed: 300 lines x 60 experiments ({n} experiments, {path.stat().st_size // 1024} KiB), text report")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        calibration(tmp)
        speed(tmp)


if __name__ == "__main__":
    main()
