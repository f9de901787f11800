#!/usr/bin/env python3
"""Start-up benchmark: time from exec to main() of a program with tens of MB of DWARF, with no
profiler, under this project's `coz run`, and under Debian's coz-profiler 0.2 when installed.

Both profilers build their line map before main() runs, so exec -> main is exec -> profiler
ready, plus the program's own (tiny) start-up, which the no-profiler column shows. Runs of the
configurations are interleaved, and the medians of several runs are reported side by side.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = int(os.environ.get("RUNS", "7"))

def exec_to_main_ms(argv, cwd):
    """(exec -> main ms, whole run ms, peak resident MB of the program or the profiler's largest
    process)."""
    start = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    stdout = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    end = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    main_ns = None
    for line in stdout.splitlines():
        if line.startswith("main "):
            main_ns = int(line.split()[1])
    if main_ns is None:
        raise SystemExit(f"no 'main' line from {' '.join(argv)} (exit {os.waitstatus_to_exitcode(status)})")
    # ru_maxrss of a `coz run` is its largest process: the profiled program, whose line map is it.
    return (main_ns - start) / 1e6, (end - start) / 1e6, usage.ru_maxrss / 1024

def debug_megabytes(path):
    out = subprocess.run(["size", "-A", path], stdout=subprocess.PIPE, text=True).stdout
    return sum(int(f[1]) for f in (l.split() for l in out.splitlines())
               if len(f) >= 2 and f[0].startswith(".debug")) / 1e6

def main():
    work, our_coz = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    big, big3 = os.path.join(work, "big"), os.path.join(work, "big_dwarf3")
    scratch = tempfile.mkdtemp()
    profile = os.path.join(scratch, "bench.coz")
    configs = [
        ("no profiler (DWARF 5 binary)", [big]),
        ("this project, DWARF 5 binary", [our_coz, "run", "-o", profile, "---", big]),
        ("this project, DWARF 3 binary", [our_coz, "run", "-o", profile, "---", big3]),
    ]
    # BEFORE=other/build/bin/coz: another build's columns, interleaved with this one's.
    for i, before in enumerate(b for b in os.environ.get("BEFORE", "").split(",") if b):
        tag = f"before{i + 1 if i else ''}"
        configs.append((f"{tag}, DWARF 5 binary", [os.path.abspath(before), "run", "-o", profile, "---", big]))
        configs.append((f"{tag}, DWARF 3 binary", [os.path.abspath(before), "run", "-o", profile, "---", big3]))
    debian_coz = shutil.which("coz") if os.path.exists("/usr/lib/coz-profiler/libcoz.so") else None
    if debian_coz:
        configs.append(("Debian coz-profiler 0.2, DWARF 3 binary", [debian_coz, "run", "---", big3]))
    results = {name: ([], [], []) for name, _ in configs}
    for _ in range(RUNS):
        for name, argv in configs:
            to_main, total, peak = exec_to_main_ms(argv, scratch)
            results[name][0].append(to_main)
            results[name][1].append(total)
            results[name][2].append(peak)
    shutil.rmtree(scratch, ignore_errors=True)

    print(f"binary: {big} ({debug_megabytes(big):.0f} MB of DWARF), {RUNS} interleaved runs each")
    print(f"binary: {big3} ({debug_megabytes(big3):.0f} MB of DWARF 3)")
    print(f"{'configuration':44} {'exec->main median':>18} {'whole run median':>17} {'peak memory':>12}")
    medians = {}
    for name, _ in configs:
        to_main, total, peak = results[name]
        medians[name] = statistics.median(to_main)
        print(f"{name:44} {medians[name]:15.1f} ms {statistics.median(total):14.1f} ms "
              f"{max(peak):9.0f} MB")
    ours3 = medians["this project, DWARF 3 binary"]
    if debian_coz:
        theirs = medians["Debian coz-profiler 0.2, DWARF 3 binary"]
        print(f"ratio on the same DWARF 3 binary: Coz / this project = {theirs / ours3:.1f}x")
    else:
        print("Debian coz-profiler not installed (apt-get install coz-profiler): no comparison column")
    ours5 = medians["this project, DWARF 5 binary"]
    verdict = "under" if ours5 < 1000 else "OVER"
    print(f"this project on the DWARF 5 binary: {ours5:.0f} ms, {verdict} the 1 s target")

if __name__ == "__main__":
    main()
