#!/usr/bin/env python3
"""Tiers: ground truth for cross-program causal profiling.

tests/programs/tiers.c is one program in three roles that make a chain of services on 127.0.0.1,
one request at a time: a front that sends requests and counts them (COZ_PROGRESS), an optional
middle that forwards them, and a back that answers. Each role does WORK units of a dependent
multiply chain per request on a line of its own (`/* the front's line */`, `/* the middle's
line */`, `/* the back's line */`); only the front has a progress point. Two cases: "two-tier"
(front -> back) and "three-tier" (front -> middle -> back). Every tier's line is a noticeable
share of a request (defaults: front 300, middle 200, back 500 units; a unit is 1000 chain steps,
about 1.2 us on the 2-core machine this was written on, where a request took about 1 ms with two
tiers and 1.25 ms with three), so making any of them faster speeds the front up, by an amount that
only a profiler that sees all the programs at once can predict. Requests of about 1 ms keep the
cross-core wake-ups (tens of microseconds, varying by run) small against the work: with 80 units
(180 us a request) the true effects ranged over 30-60 points from run to run.

(a) True effects. Native runs (no profiler) with one tier's WORK really reduced by S = 25, 50,
    75% (the others unchanged); throughput is the front's "front done N" requests over its MS
    milliseconds. The true program speedup at S is 1 - period(S)/period(0): the median, over
    --native-runs repetitions, of the ratio of two runs in the same repetition (each repetition
    runs every configuration of a case once, interleaved, so the machine's drift over minutes
    cancels in the ratio). The table gives it with the range over repetitions.
(b) Predictions. The unmodified chain under the profiler, each program joining one coordinator,
    one profile per marked line (`--fixed-line` given to the coordinator, as the real-program
    benchmark fixes its line; --all-lines: one profile over whatever lines the run offers):
        coz coordinate --listen 127.0.0.1:PORT -o work/p-CASE[-rttR]-TIER.coz --fixed-line L
        coz run --coordinator 127.0.0.1:PORT -o work/TIER.coz --- work/tiers TIER ...
    (back first, then middle, then front; the front runs --seconds of wall-clock time), repeated
    --reps times into one profile (the coordinator's -o appends, as coz run's does). Then
    `coz report --json` on it; for each tier's line, `predicted` at line_speedup S
    (program_speedup value and its bootstrap interval) against the true effect. The report
    predicts at 0.1, 0.25, 0.5 and 1 only: the 75% value is the curve's point measured at 0.75
    with its interval (when 3 experiments or more ran there), else the report's fitted curve
    (y = a x + b x^2, recovered from two of its predictions) at 0.75, without an interval
    (marked "fit"). --credit on,off also profiles with COZ_MEMBER_CREDIT=0 (socket waits earn no
    credit from other members), to measure what the credit does. The table gives the error (predicted - true) in points, then the mean
    absolute error and the maximum per case. When this build has no `coz coordinate` or no
    `coz run --coordinator` (an unknown-command or unknown-option error), the script says so and
    prints the true effects alone.
Latency between programs: --rtt-ms 0,1,... runs every case once per value; a value above 0 puts a
delaying TCP proxy (delay_proxy.c, built beside tiers) between the front and the next tier, and
between the middle and the back in the three-tier case, holding each chunk rtt/2 in each direction,
in order. The proxies report how late their wake-ups were past the delay; the table prints the
median, so the latency really added is rtt plus twice that per round trip.
A proxy listens on its own ephemeral port and writes the port file the upstream tier reads, so the
tiers do not change. Native runs go through the same proxies as profiled ones (latency lowers every
line's share of a request, so it changes the true effects too).

Coz 0.2.2 is not compared: it profiles one process (tree) and has no way to run experiments across
programs that were started separately, so it has nothing to predict here.

Usage: python3 benchmarks/tiers/run.py [options] (--help lists them); a quick check of the native
part: --native-ms 1000 --native-runs 3 --skip-profiled. Builds tiers.c with gcc -O1 -g into
benchmarks/tiers/work/ and uses build/bin/coz (or --coz, or COZ in the environment).
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
WORK = os.path.join(HERE, "work")
SOURCE = os.path.join(ROOT, "tests", "programs", "tiers.c")
LEVELS = [0.25, 0.50, 0.75]
CASES = {"two": ("two-tier", ["front", "back"]), "three": ("three-tier", ["front", "middle", "back"])}
PORTFILE_WAIT_S = 60  # for a tier to publish its port (a profiled start can take a while)


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def build():
    """Builds tiers and, beside it, its delaying proxy (tiers-proxy, from delay_proxy.c)."""
    os.makedirs(WORK, exist_ok=True)
    out = os.path.join(WORK, "tiers")
    subprocess.run(["gcc", "-O1", "-g", "-I", os.path.join(ROOT, "include"), "-I",
                    os.path.join(ROOT, "tests", "programs"), SOURCE, "-o", out], check=True)
    subprocess.run(["gcc", "-O2", "-pthread", os.path.join(HERE, "delay_proxy.c"), "-o", out + "-proxy"],
                   check=True)
    return out


def marked_lines():
    """tier -> "tiers.c:N" of its marked line."""
    lines = {}
    with open(SOURCE) as f:
        for number, text in enumerate(f, 1):
            for tier in ("front", "middle", "back"):
                if f"/* the {tier}'s line */" in text:
                    lines[tier] = number
    missing = {"front", "middle", "back"} - set(lines)
    if missing:
        raise SystemExit(f"no marked line for {', '.join(sorted(missing))} in {SOURCE}")
    return lines


def write_portfile(path, port):
    with open(path + ".tmp", "w") as f:
        f.write(f"{port}\n")
    os.rename(path + ".tmp", path)


def read_port(path):
    try:
        with open(path) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


PROXY_LATE_US = {}  # one-way delay (us) -> the proxies' reports of how late they were past it


class DelayProxy:
    """delay_proxy (delay_proxy.c, built beside tiers) for one connection: holds each chunk
    `delay_s` in each direction, in order. It listens on an ephemeral port of 127.0.0.1 at once and
    publishes it in `portfile`; on the first connection it connects to the port in
    `target_portfile` (waiting for it as the tiers do). A C program, not threads of this script:
    Python's threads were late by hundreds of microseconds at random, more than a 0.1 ms round trip."""

    def __init__(self, binary, portfile, target_portfile, delay_s):
        self.error = None
        self.delay_us = delay_s * 1e6
        self.err = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([binary, portfile, target_portfile, f"{self.delay_us:g}"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.err,
                                     start_new_session=True)
        deadline = time.monotonic() + PORTFILE_WAIT_S
        while not os.path.exists(portfile) and self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)

    def close(self):
        try:
            self.proc.wait(timeout=2)  # it ends when both ends of its connection have
        except subprocess.TimeoutExpired:
            stop(self.proc)
        self.err.seek(0)
        text = self.err.read()
        self.err.close()
        m = re.search(r"late past the delay: median (\d+) us", text)
        if m:
            PROXY_LATE_US.setdefault(self.delay_us, []).append(int(m.group(1)))
        elif self.proc.returncode not in (0, -signal.SIGTERM, -signal.SIGKILL):
            self.error = text.strip().splitlines()[-1] if text.strip() else f"status {self.proc.returncode}"


def stop(proc, grace_s=5):
    """Ends a process this script started (and its group, which it leads), if it still runs."""
    if proc.poll() is not None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=grace_s)
            return
        except subprocess.TimeoutExpired:
            pass


class Chain:
    """One run of a case: the tiers started back first, with proxies when rtt_ms > 0. `prefix(tier)`
    is the command put before the program (empty natively, `coz run ... ---` profiled)."""

    def __init__(self, binary, tiers, works, rtt_ms, ms, prefix=lambda tier: []):
        self.dir = tempfile.mkdtemp(prefix="run-", dir=WORK)
        self.procs = {}
        self.proxies = []
        self.failure = None
        order = list(reversed(tiers))  # back, [middle,] front
        next_portfile = None
        try:
            for tier in order:
                portfile = os.path.join(self.dir, f"{tier}.port")
                if tier == "back":
                    args = ["back", portfile, works[tier]]
                elif tier == "middle":
                    args = ["middle", portfile, next_portfile, works[tier]]
                else:
                    args = ["front", next_portfile, works[tier], str(ms)]
                if not self._start(tier, prefix(tier) + [binary] + [str(a) for a in args]):
                    return
                if tier != "front":
                    if not self._wait_portfile(tier, portfile):
                        return
                    next_portfile = portfile
                    if rtt_ms > 0:
                        proxied = os.path.join(self.dir, f"{tier}-proxy.port")
                        self.proxies.append(DelayProxy(binary + "-proxy", proxied, portfile, rtt_ms / 2000.0))
                        next_portfile = proxied
        except BaseException:
            self.close()
            raise

    def _start(self, tier, argv):
        out = open(os.path.join(self.dir, f"{tier}.out"), "w")
        err = open(os.path.join(self.dir, f"{tier}.err"), "w")
        try:
            self.procs[tier] = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                                start_new_session=True)
        except OSError as e:
            self.failure = f"{tier}: cannot start {argv[0]}: {e}"
            return False
        finally:
            out.close()
            err.close()
        return True

    def _wait_portfile(self, tier, portfile):
        deadline = time.monotonic() + PORTFILE_WAIT_S
        while not os.path.exists(portfile):
            if self.procs[tier].poll() is not None:
                self.failure = f"{tier} exited with status {self.procs[tier].returncode} before publishing its port"
                return False
            if time.monotonic() > deadline:
                self.failure = f"{tier} did not publish its port within {PORTFILE_WAIT_S} s"
                return False
            time.sleep(0.005)
        return True

    def output(self, tier, stream="out"):
        try:
            with open(os.path.join(self.dir, f"{tier}.{stream}")) as f:
                return f.read()
        except OSError:
            return ""

    def finish(self, timeout_s):
        """Waits for every tier (the front first); returns the front's request count, or None
        with self.failure set."""
        if self.failure:
            self.close()
            return None
        deadline = time.monotonic() + timeout_s
        for tier in ("front", "middle", "back"):
            proc = self.procs.get(tier)
            if proc is None:
                continue
            try:
                proc.wait(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.failure = self.failure or f"{tier} still running after {timeout_s:.0f} s"
                stop(proc)
                continue
            if proc.returncode != 0 and not self.failure:
                last = self.output(tier, "err").strip().splitlines()
                self.failure = f"{tier} exited with status {proc.returncode}" + (f": {last[-1]}" if last else "")
        m = re.search(r"^front done (\d+)$", self.output("front"), re.M)
        if not self.failure and not m:
            self.failure = "the front printed no 'front done N'"
        self.close()
        return None if self.failure else int(m.group(1))

    def close(self):
        for proc in self.procs.values():
            stop(proc)
        for proxy in self.proxies:
            proxy.close()
        if self.failure is None:
            shutil.rmtree(self.dir, ignore_errors=True)
        else:
            for proxy in self.proxies:
                if proxy.error:
                    self.failure += f" ({proxy.error})"
            self.failure += f" (outputs kept in {self.dir})"


def reduced(works, tier, s):
    out = dict(works)
    if tier:
        out[tier] = f"{float(works[tier]) * (1 - s):g}"
    return out


def native_period(binary, tiers, works, rtt_ms, ms):
    chain = Chain(binary, tiers, works, rtt_ms, ms)
    n = chain.finish(ms / 1000 + 60)
    if n is None:
        log(f"  native run failed: {chain.failure}")
        return None
    if n == 0:
        return None
    return ms / 1000 / n


def native_effects(binary, case, rtt_ms, opts, works):
    """{(tier, s): [per-repetition effect in percent]} and the baseline periods."""
    tiers = CASES[case][1]
    configs = [(None, 0.0)] + [(tier, s) for tier in tiers for s in LEVELS]
    periods = {c: [] for c in configs}
    for rep in range(opts.native_runs):
        log(f"native {CASES[case][0]}, rtt {rtt_ms:g} ms: repetition {rep + 1}/{opts.native_runs}")
        for tier, s in configs:
            periods[(tier, s)].append(native_period(binary, tiers, reduced(works, tier, s), rtt_ms,
                                                    opts.native_ms))
    base = periods[(None, 0.0)]
    effects = {}
    for tier, s in configs[1:]:
        effects[(tier, s)] = [100 * (1 - p / b) for p, b in zip(periods[(tier, s)], base) if p and b]
    return effects, [b for b in base if b]


def case_label(case, rtt_ms, credit=True):
    return CASES[case][0] + (f", rtt {rtt_ms:g} ms" if rtt_ms else "") + ("" if credit else ", no credit")


def print_native(results, lines, opts):
    print(f"(a) True effects (native, one tier's work really reduced): median over {opts.native_runs} "
          f"repetitions of 1 - period(S)/period(0), paired within a repetition; "
          f"{opts.native_ms} ms runs; percent, [min, max] over repetitions")
    width = max(len(case_label(c, r)) for c, r in results)
    print(f"{'case':{width}} {'line':12} {'S':>4} {'true %':>7} {'range':>15} {'runs':>5}")
    for (case, rtt_ms), (effects, base) in results.items():
        label = case_label(case, rtt_ms)
        if base:
            per_s = 1 / statistics.median(base)
            print(f"{label:{width}} {'(baseline)':12} {'':>4} {'':>7} "
                  f"{f'{per_s:.0f} req/s, {1e6 / per_s:.0f} us':>21}")
        for tier in CASES[case][1]:
            for s in LEVELS:
                got = effects[(tier, s)]
                value = f"{statistics.median(got):7.1f}" if got else f"{'n/a':>7}"
                spread = f"[{min(got):.1f}, {max(got):.1f}]" if got else ""
                print(f"{label:{width}} {'tiers.c:' + str(lines[tier]):12} {int(s * 100):3}% {value} "
                      f"{spread:>15} {len(got):5}")
    for delay_us, late in sorted(PROXY_LATE_US.items()):
        print(f"proxies holding {delay_us:g} us each way: late past it by a median of "
              f"{statistics.median(late):g} us (over {len(late)} proxy runs)")


def unknown_option(text):
    return re.search(r"unknown (option|command|subcommand)|unrecognized option|invalid option", text, re.I)


def probe_profiler(coz):
    """None when `coz coordinate` and `coz run --coordinator` look available, else why not."""
    try:
        p = subprocess.run([coz, "coordinate", "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"`{coz} coordinate --help` failed: {e}"
    if p.returncode != 0 and unknown_option(p.stderr + p.stdout):
        return f"this build has no `coz coordinate` ({(p.stderr or p.stdout).strip().splitlines()[-1]})"
    # --help would not reveal an unknown option: run a program against a port nobody listens on.
    port = free_port()
    try:
        p = subprocess.Popen([coz, "run", "--coordinator", f"127.0.0.1:{port}", "-o", os.devnull, "---",
                              "/bin/true"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    except OSError as e:
        return f"cannot run {coz}: {e}"
    try:
        out, err = p.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        stop(p)
        return None
    if p.returncode != 0 and unknown_option(err + out):
        return f"this build's `coz run` has no --coordinator ({(err or out).strip().splitlines()[-1]})"
    return None


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def listening(port):
    """Whether some socket listens on 127.0.0.1:port (or any address), from /proc/net/tcp."""
    try:
        with open("/proc/net/tcp") as f:
            rows = f.read().splitlines()[1:]
    except OSError:
        return False
    for row in rows:
        fields = row.split()
        addr, hexport = fields[1].split(":")
        if int(hexport, 16) == port and fields[3] == "0A" and addr in ("0100007F", "00000000"):
            return True
    return False


class Unavailable(Exception):
    pass


def profiled_rep(coz, binary, case, rtt_ms, opts, works, profile, credit=True, fixed=None):
    """One repetition under the coordinator; raises Unavailable when the build lacks it."""
    port = free_port()
    address = f"127.0.0.1:{port}"
    coord_err = os.path.join(WORK, "coordinator.err")
    with open(os.path.join(WORK, "coordinator.out"), "w") as out, open(coord_err, "w") as err:
        coord = subprocess.Popen([coz, "coordinate", "--listen", address, "-o", profile] +
                                 (["--fixed-line", fixed] if fixed else []), stdout=out,
                                 stderr=err, stdin=subprocess.DEVNULL, start_new_session=True)

    def coord_stderr():
        with open(coord_err) as f:
            return f.read()

    try:
        deadline = time.monotonic() + 20
        while not listening(port):
            if coord.poll() is not None:
                text = coord_stderr()
                if unknown_option(text):
                    raise Unavailable(f"`coz coordinate` is not available: {text.strip()}")
                log(f"  coordinator exited with status {coord.returncode}: {text.strip()[-300:]}")
                return False
            if time.monotonic() > deadline:
                log(f"  coordinator not listening on {address} after 20 s; going on")
                break
            time.sleep(0.02)

        def prefix(tier):
            # COZ_MEMBER_CREDIT=0: socket waits earn no credit from other members (to measure it).
            env = [] if credit else ["env", "COZ_MEMBER_CREDIT=0"]
            return env + [coz, "run", "--coordinator", address, "-o", os.path.join(WORK, f"{tier}.coz"),
                          "---"]

        chain = Chain(binary, CASES[case][1], works, rtt_ms, int(opts.seconds * 1000), prefix)
        n = chain.finish(opts.seconds + 300)
        if n is None:
            text = "".join(chain.output(t, "err") for t in CASES[case][1])
            if unknown_option(text):
                raise Unavailable(f"`coz run --coordinator` is not available: {text.strip().splitlines()[0]}")
            log(f"  profiled run failed: {chain.failure}")
        else:
            log(f"  front: {n} requests in {opts.seconds:g} s under the profiler")
        # The members have left: the coordinator should write the profile and exit; if it waits
        # for more, ask it to stop (SIGINT, as a user would), then insist.
        for sig, wait_s in ((None, 15), (signal.SIGINT, 30), (signal.SIGTERM, 10)):
            if sig is not None:
                log(f"  coordinator still running; sending {signal.Signals(sig).name}")
                os.killpg(coord.pid, sig)
            try:
                coord.wait(timeout=wait_s)
                break
            except subprocess.TimeoutExpired:
                pass
        if coord.returncode not in (0, None, -signal.SIGINT, 130):
            log(f"  coordinator exited with status {coord.returncode}: {coord_stderr().strip()[-300:]}")
        return n is not None
    finally:
        stop(coord)


def report_series(coz, profile):
    p = subprocess.run([coz, "report", "--json", profile], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode != 0:
        log(f"  coz report --json {profile}: status {p.returncode}: {p.stderr.strip()[-300:]}")
        return None, []
    doc = json.loads(p.stdout)
    return doc, doc.get("series", [])


def find_series(series, line_number):
    got = [s for s in series
           if os.path.basename(str(s.get("file") or s.get("line", "").rsplit(":", 1)[0])) == "tiers.c"
           and int(s.get("line_number") or s.get("line", "0").rsplit(":", 1)[-1]) == line_number]
    # Only the front has a progress point; prefer tiers.c's own if there are others.
    got.sort(key=lambda s: "tiers.c" not in str(s.get("point", "")))
    return got[0] if got else None


def predicted_at(series, s):
    """(value, low, high, how) in percent at line speedup s, from `predicted`; when the report does
    not predict at s, the fitted curve y = a x + b x^2 recovered from two predictions, without an
    interval (how = "fit"). None when the series has no predictions."""
    preds = [(p["line_speedup"], p["program_speedup"]) for p in series.get("predicted", [])
             if p.get("program_speedup", {}).get("value") is not None]
    pct = lambda v: None if v is None else 100 * v  # noqa: E731
    for x, est in preds:
        if abs(x - s) < 1e-9:
            return pct(est["value"]), pct(est.get("low")), pct(est.get("high")), "predicted"
    # Not a predicted speedup (75%): the curve's point measured at S, with its interval.
    for p in series.get("curve", []):
        if (abs(p.get("line_speedup", -1) - s) < 1e-9 and p.get("program_speedup") is not None
                and p.get("experiments", 0) >= 3):
            return pct(p["program_speedup"]), pct(p.get("low")), pct(p.get("high")), "measured"
    usable = sorted({x: est["value"] for x, est in preds if x > 0}.items(), key=lambda xy: abs(xy[0] - s))
    if len(usable) < 2:
        return None
    (x1, y1), (x2, y2) = usable[:2]
    det = x1 * x2 * x2 - x2 * x1 * x1
    if abs(det) < 1e-12:
        return None
    a = (y1 * x2 * x2 - y2 * x1 * x1) / det
    b = (x1 * y2 - x2 * y1) / det
    return 100 * (a * s + b * s * s), None, None, "fit"


def print_comparison(results, predictions, lines, opts):
    print(f"\n(b) Predictions from one coordinated profile per case ({opts.reps} x {opts.seconds:g} s) "
          f"against the true effects of (a); percent; error = predicted - true, points")
    width = max(len(case_label(*key)) for key in predictions)
    print(f"{'case':{width}} {'line':12} {'S':>4} {'true %':>7} {'predicted %':>11} {'[low, high]':>17} "
          f"{'error':>6}")
    used_fit = False
    for key, preds in predictions.items():
        case, rtt_ms, credit = key
        label = case_label(case, rtt_ms, credit)
        effects = results.get((case, rtt_ms), ({}, []))[0]
        errors = []
        for tier in CASES[case][1]:
            for s in LEVELS:
                got = effects.get((tier, s), [])
                true = statistics.median(got) if got else None
                pred = preds.get((tier, s))
                true_cell = f"{true:7.1f}" if true is not None else f"{'n/a':>7}"
                if pred is None:
                    pred_cell, interval, err_cell = f"{'-':>11}", f"{'':>17}", f"{'':>6}"
                else:
                    value, low, high, how = pred
                    pred_cell = f"{value:11.1f}"
                    if how == "fit":
                        used_fit = True
                        interval = f"{'(fit)':>17}"
                    elif low is None or high is None:
                        interval = f"{'[n/a]':>17}"
                    else:
                        interval = f"{f'[{low:.1f}, {high:.1f}]':>17}"
                    if true is None:
                        err_cell = f"{'n/a':>6}"
                    else:
                        err = value - true
                        errors.append(abs(err))
                        err_cell = f"{err:+6.1f}"
                print(f"{label:{width}} {'tiers.c:' + str(lines[tier]):12} {int(s * 100):3}% {true_cell} "
                      f"{pred_cell} {interval} {err_cell}")
        if errors:
            print(f"{label}: mean absolute error {statistics.mean(errors):.2f} points, max {max(errors):.1f}, "
                  f"over {len(errors)} cases")
        else:
            print(f"{label}: no prediction to compare")
    print("'-': the report has no series (or no predictions) for the line at that point")
    print("a 75% row without (fit) is the curve's point measured at 75% (3 experiments or more), with its interval")
    if used_fit:
        print("(fit): the report predicts at 10/25/50/100% only; the value is its fitted curve "
              "y = a x + b x^2 (recovered from two of its predictions) at S, with no interval")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--coz", default=os.environ.get("COZ", os.path.join(ROOT, "build", "bin", "coz")),
                    help="the coz to run (default: $COZ or build/bin/coz)")
    ap.add_argument("--cases", default="two,three", help="two, three or both (default two,three)")
    ap.add_argument("--rtt-ms", default="0",
                    help="comma-separated round-trip times added by proxies between programs (default 0)")
    # About 1 ms a request: the wake-up of a process on the other core (tens of microseconds, and
    # varying by run) stays small against it, so the true effects are stable.
    ap.add_argument("--front-work", type=float, default=300, help="front's units per request (default 300)")
    ap.add_argument("--middle-work", type=float, default=200, help="middle's units per request (default 200)")
    ap.add_argument("--back-work", type=float, default=500, help="back's units per request (default 500)")
    ap.add_argument("--all-lines", action="store_true",
                    help="one profile per case over whatever lines the run offers (default: one per "
                         "marked line, with --fixed-line, as the real-program benchmark fixes its line)")
    ap.add_argument("--credit", default="on",
                    help="profile with socket-wait credit on, off, or on,off (default on)")
    ap.add_argument("--native-ms", type=int, default=4000, help="length of a native run, ms (default 4000)")
    ap.add_argument("--native-runs", type=int, default=5,
                    help="native repetitions of every configuration, interleaved (default 5)")
    ap.add_argument("--seconds", type=float, default=60,
                    help="the front's wall-clock time per profiled repetition (default 60)")
    ap.add_argument("--reps", type=int, default=1,
                    help="profiled repetitions, appended into one profile per case (default 1)")
    ap.add_argument("--skip-native", action="store_true", help="no native runs (no true effects)")
    ap.add_argument("--skip-profiled", action="store_true", help="no profiled runs")
    opts = ap.parse_args()
    opts.cases = [c.strip() for c in opts.cases.split(",") if c.strip()]
    opts.credits = [c.strip() == "on" for c in opts.credit.split(",") if c.strip() in ("on", "off")]
    if not opts.credits:
        ap.error("--credit: want on, off or on,off")
    for c in opts.cases:
        if c not in CASES:
            ap.error(f"unknown case {c!r}: want two or three")
    try:
        opts.rtts = [float(r) for r in opts.rtt_ms.split(",") if r.strip()]
    except ValueError:
        ap.error(f"bad --rtt-ms {opts.rtt_ms!r}: want milliseconds, comma-separated")
    if any(r < 0 for r in opts.rtts) or not opts.rtts:
        ap.error("--rtt-ms: want values of 0 or more")
    if opts.native_runs < 1 or opts.native_ms < 1 or opts.reps < 1 or opts.seconds <= 0:
        ap.error("--native-runs, --native-ms, --reps and --seconds must be positive")
    return opts


def main():
    opts = parse_args()
    binary = build()
    lines = marked_lines()
    works = {"front": f"{opts.front_work:g}", "middle": f"{opts.middle_work:g}", "back": f"{opts.back_work:g}"}
    keys = [(case, rtt) for case in opts.cases for rtt in opts.rtts]

    unavailable = None
    if not opts.skip_profiled:
        if not os.access(opts.coz, os.X_OK):
            unavailable = f"{opts.coz} is not an executable coz (build the tree, or give --coz)"
        else:
            unavailable = probe_profiler(opts.coz)
        if unavailable:
            log(f"profiled runs skipped: {unavailable}")

    results = {}
    if not opts.skip_native:
        for key in keys:
            results[key] = native_effects(binary, key[0], key[1], opts, works)
        print_native(results, lines, opts)
        sys.stdout.flush()

    predictions = {}
    if not opts.skip_profiled and not unavailable:
        try:
            for case, rtt_ms, credit in [k + (c,) for k in keys for c in opts.credits]:
                profile = os.path.join(WORK, f"p-{case}" + (f"-rtt{rtt_ms:g}" if rtt_ms else "") +
                                       ("" if credit else "-nocredit") + ".coz")
                for path in [profile] + [os.path.join(WORK, f"{t}.coz") for t in CASES[case][1]]:
                    if os.path.exists(path):
                        os.remove(path)
                preds = {}
                # One profile over every line, or one per marked line (--fixed-line).
                targets = [None] if opts.all_lines else CASES[case][1]
                for target in targets:
                    path = profile if target is None else profile[:-4] + f"-{target}.coz"
                    if os.path.exists(path):
                        os.remove(path)
                    fixed = None if target is None else f"tiers.c:{lines[target]}"
                    for rep in range(opts.reps):
                        log(f"profiled {case_label(case, rtt_ms, credit)}" + (f", {fixed}" if fixed else "") +
                            f": repetition {rep + 1}/{opts.reps} ({opts.seconds:g} s)")
                        profiled_rep(opts.coz, binary, case, rtt_ms, opts, works, path, credit, fixed)
                    if not os.path.exists(path):
                        log(f"  no profile written to {path}")
                        continue
                    doc, series = report_series(opts.coz, path)
                    if doc and doc.get("diagnosis"):
                        log(f"  report: {doc['diagnosis'].get('code')}: {doc['diagnosis'].get('message')}")
                    for tier in CASES[case][1] if target is None else [target]:
                        found = find_series(series, lines[tier])
                        for s in LEVELS:
                            preds[(tier, s)] = predicted_at(found, s) if found else None
                predictions[(case, rtt_ms, credit)] = preds
        except Unavailable as e:
            unavailable = str(e)
            predictions = {}

    if unavailable and not opts.skip_profiled:
        print(f"\nNo predictions: cross-program profiling is not available in {opts.coz}: {unavailable}. "
              f"The true effects above are the ground truth for when it is.")
    elif predictions:
        print_comparison(results, predictions, lines, opts)


if __name__ == "__main__":
    main()
