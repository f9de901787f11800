"""Synthetic profiles of many lines, drawn as the profiler draws speedups (0% half the time, else
5%..100% in 5% steps), each line tried `per_line` times with a known linear effect plus 5% noise
per experiment. Deterministic for a seed."""
import random

BASE_PERIOD = 1e6   # ns per visit at 0%
DURATION = 5e7      # ns per experiment
NOISE = 0.05


def write_profile(path, lines, per_line=10, seed=1):
    rng = random.Random(seed)
    with open(path, "w") as out:
        out.write("startup\ttime=1\tformat=1\tpid=1\tsampling-period=1000000\n")
        for n in range(lines):
            slope = rng.choice([0.0, 0.0, 0.0, 0.2, 0.5])
            name = f"/bench/f{n % 500}.c:{n}"
            for _ in range(per_line):
                x = 0.0 if rng.random() < 0.5 else rng.randint(1, 20) * 0.05
                period = BASE_PERIOD * (1 - slope * x) * (1 + NOISE * rng.gauss(0, 1))
                out.write(f"experiment\tselected={name}\tspeedup={x:.2f}\tduration={int(DURATION)}"
                          f"\tselected-samples=50\nthroughput-point\tname=done"
                          f"\tdelta={round(DURATION / period)}\n")


if __name__ == "__main__":
    import sys
    write_profile(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 10)
