#!/usr/bin/env python3
"""A pre-fork event-loop server of nginx's shape under load (issue 35): what the profiler costs
per request, and how that cost bends its predictions.

The program: programs/epoll_server.c, a master that forks WORKERS (default 2) workers sharing one
listening socket on 127.0.0.1, each an epoll loop over its keep-alive connections, answering
64-byte requests after SERVER_WORK (default 12000, about 15 us) iterations of known work on the
handler line, with a progress point per answer; REQUESTS (default 40000) answers, then the
workers exit. The load: programs/keepalive_client.c, CONNECTIONS (default 4) keep-alive
connections sending request after request (each worker takes CONNECTIONS / WORKERS of them), a separate process never profiled (started before the
server, it retries its connects). Server, client and profiler share the machine's cores.

(a) True effects against predictions: the handler line really shortened by 50% and 100% (the
    real effect 1 - T(S)/T(0), T the time per answer from the first answer to the last), against
    `coz run --end-to-end --fixed-line epoll_server.c:LINE --fixed-speedup S` (1 - P(S)/P(0), P
    the time per progress visit in the experiment record), with the perf sampler (ours), with
    perf_event refused by a seccomp filter (timer: the timer sampler, as in a container) and each
    BEFORE build; medians of paired ratios with bootstrap intervals (benchmarks/accuracy/run.py).
(b) Cost per request: CPU time of the server (master and workers) and of the client per answer,
    natively and under `coz run --fixed-speedup 0` in each configuration, and wall time per
    answer; medians over RUNS.
Coz 0.2.2 has no column: it does not follow the forked workers (no visit reaches its profile).
Every repetition runs every configuration at every level, interleaved. Environment: RUNS (default
5), COZ (default build/bin/coz), BEFORE (comma-separated coz paths), REQUESTS, WORKERS,
CONNECTIONS, SERVER_WORK, SKIP_EFFECTS=1, SKIP_COST=1.
"""
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PROGRAMS = os.path.join(HERE, "programs")
sys.path.insert(0, HERE)
import run as procs  # noqa: E402  (benchmarks/procs/run.py, which loads benchmarks/accuracy/run.py)

acc = procs.acc  # Measure, effect, error_cells, profile_period, summaries, deny_perf_wrapper
RUNS = int(os.environ.get("RUNS", "5"))
acc.RUNS = RUNS
COZ = os.environ.get("COZ", os.path.join(ROOT, "build", "bin", "coz"))
BEFORES = [p for p in os.environ.get("BEFORE", "").split(",") if p]
REQUESTS = int(os.environ.get("REQUESTS", "40000"))
SPEEDUPS = [0.5, 1.0]
LEVELS = [0.0] + SPEEDUPS


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build(work):
    server = procs.build(work, "epoll_server.c", ["-g"])  # as the other process-tree programs
    client = os.path.join(work, "keepalive_client")
    subprocess.run(["gcc", "-O2", os.path.join(PROGRAMS, "keepalive_client.c"), "-o", client,
                    "-lpthread"], check=True)
    return server, client


def served(argv, client, speedup, cwd):
    """Runs `argv` (the server, natively or under a profiler) against a fresh client. Returns
    (stdout, server CPU seconds, client CPU seconds), or None when either fails."""
    workers, connections = int(os.environ.get("WORKERS", "2")), int(os.environ.get("CONNECTIONS", "4"))
    env = dict(os.environ, SERVER_PORT=str(free_port()), SERVER_REQUESTS=str(REQUESTS),
               SERVER_WORKERS=str(workers), SERVER_SHARE=str(max(1, connections // workers)),
               ACC_SPEEDUP=str(speedup), CLIENT_CONNECTIONS=str(connections))
    load_proc = subprocess.Popen([client], env=env, stdout=subprocess.DEVNULL, cwd=cwd)
    server = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, cwd=cwd)
    out = server.stdout.read()
    _, status, usage = os.wait4(server.pid, 0)
    _, client_status, client_usage = os.wait4(load_proc.pid, 0)
    if status != 0 or client_status != 0 or "elapsed_ns" not in out:
        procs.log(f"  {argv[0]} at {speedup}: server status {status:#x}, client {client_status:#x}")
        return None
    return (out, usage.ru_utime + usage.ru_stime, client_usage.ru_utime + client_usage.ru_stime)


def profiled_argv(coz, server, line_spec, speedup, profile):
    return [coz, "run", "--quiet", "--end-to-end", "--fixed-line", line_spec, "--fixed-speedup",
            str(int(round(speedup * 100))), "-o", profile, "---", server]


def configurations(work):
    timer = acc.deny_perf_wrapper(work)
    names = [("ours", COZ), ("timer", timer)]
    names += [(f"before{i + 1 if len(BEFORES) > 1 else ''}", path) for i, path in enumerate(BEFORES)]
    return names


def run_all(work, server, client, line_spec):
    """Every configuration at every level, RUNS times, interleaved: periods per level and
    per-answer costs per configuration (at 0%)."""
    configs = configurations(work)
    real = {s: [] for s in LEVELS}
    predicted = {name: {s: [] for s in LEVELS} for name, _ in configs}
    cost = {name: [] for name in ["native"] + [n for n, _ in configs]}
    profile = os.path.join(work, "server.coz")
    for rep in range(RUNS):
        procs.log(f"repetition {rep + 1}/{RUNS}")
        for s in LEVELS:
            got = served([server], client, s, work)
            m = got and re.search(r"elapsed_ns (\d+) visits (\d+)", got[0])
            real[s].append(int(m.group(1)) / int(m.group(2)) if m else None)
            if s == 0.0 and got:
                cost["native"].append((got[1], got[2], int(m.group(1))))
        for name, coz in configs:
            for s in LEVELS:
                if os.path.exists(profile):
                    os.remove(profile)
                got = served(profiled_argv(coz, server, line_spec, s, profile), client, s, work)
                period = acc.profile_period(profile) if got and os.path.exists(profile) else None
                predicted[name][s].append(period)
                m = got and re.search(r"elapsed_ns (\d+)", got[0])
                if s == 0.0 and got:
                    cost[name].append((got[1], got[2], int(m.group(1))))
    return configs, real, predicted, cost


def print_effects(configs, real, predicted, line_spec):
    print(f"(a) epoll server, {line_spec}: true effects against predictions; medians over {RUNS} "
          "repetitions of paired ratios; percent")
    header = f"{'S':>4} {'actual':>7}"
    for name, _ in configs:
        header += f" {name:>7} {'error':>6} {'95% interval':>15}"
    print(header)
    summaries = {name: acc.new_summary() for name, _ in configs}
    for s in SPEEDUPS:
        actual = acc.effect(real, s)
        row = f"{int(s * 100):3}% {acc.cell(actual.value())}"
        for name, _ in configs:
            row += " " + acc.error_cells(actual, acc.effect(predicted[name], s), summaries[name])
        print(row)
    for name, path in configs:
        acc.print_summary(f"{name} ({path})", summaries[name])


def print_cost(cost):
    print(f"\n(b) Cost per answer ({REQUESTS} answers, 0% experiments): microseconds, medians over "
          f"{RUNS} (ratio to native)")
    print(f"{'configuration':14} {'server CPU':>16} {'client CPU':>16} {'wall':>16}")
    base = cost["native"]
    for name, runs in cost.items():
        if not runs:
            print(f"{name:14} {'-':>16} {'-':>16} {'-':>16}")
            continue
        row = f"{name:14}"
        for i in range(3):
            per = statistics.median(r[i] for r in runs) / REQUESTS * (1e6 if i < 2 else 1e-3)
            cell = f"{per:.1f}"
            if name != "native" and base:
                ratios = [r[i] / b[i] for r, b in zip(runs, base) if b[i]]
                cell += f" ({statistics.median(ratios):.2f}x)"
            row += f" {cell:>16}"
        print(row)


def main():
    for path in [COZ] + BEFORES:
        if not os.access(path, os.X_OK):
            raise SystemExit(f"{path} is not an executable coz: give a build's bin/coz")
    with tempfile.TemporaryDirectory(prefix="coz-server-") as work:
        server, client = build(work)
        line_spec = f"epoll_server.c:{procs.marked_line('epoll_server.c', 'MARKED:handler')}"
        configs, real, predicted, cost = run_all(work, server, client, line_spec)
        if not os.environ.get("SKIP_EFFECTS"):
            print_effects(configs, real, predicted, line_spec)
        if not os.environ.get("SKIP_COST"):
            print_cost(cost)


if __name__ == "__main__":
    main()
