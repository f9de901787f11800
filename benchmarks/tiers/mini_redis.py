#!/usr/bin/env python3
"""A real client/server pair nobody here wrote, profiled as one system: mini-redis 0.4.1 (Tokio's
Redis server and client library, from crates.io).

The server (`mini-redis-server`) and a client loop run as two programs, each under its own
`coz run --coordinator`, joined by `coz coordinate`. The client loop (`set_loop`, added to the
crate as a binary: it only calls mini-redis's public client API, `Client::set`) sends SET requests
one after another for a time budget and marks each reply with the `coz` crate's progress point.
The patch adds one line of known work to the server's SET handler (`Set::apply`, before the
database update): a multiply chain of COZ_SPIN iterations (read once from the environment),
marked COZ_SPIN_LINE, in a function of its own (`coz_spin_work`, never inlined).

True effect of speeding that line up by S: native runs with COZ_SPIN * (1 - S), paired with
COZ_SPIN in the same repetition (interleaved, medians over --runs). Prediction: one coordinated
profile per sampler (`--fixed-line` on the spin line, as the real-program benchmark fixes its line;
--samplers, default perf and timer, each given to both programs), its `predicted` at 25/50% and
the curve's measured point at 75%, each with its interval. Both samplers, because what a sample
costs outside the line differs between them and lowers the line's share of a request: on the VM
this was written on, a perf_event sample cost the sampled thread about 30 us (signal delivery in
the kernel, not the sample's contents) and added about 7% to the server's request time; the timer
sampler's samples come in fours at each 4 ms tick and cost almost nothing.

Usage: python3 benchmarks/tiers/mini_redis.py [--runs 5] [--seconds 60] [--spin N] [--coz PATH]
Builds under benchmarks/tiers/work/mini-redis (git-ignored); needs cargo and crates.io.
Coz 0.2.2 cannot profile across programs, so there is no peer column. The server runs with
Tokio's default worker count (one per core); --workers N sets TOKIO_WORKER_THREADS (Tokio's own
setting). Tokio's workers park on futexes through glibc's syscall(), which the runtime follows
(docs/experiments.md, "Futexes"); before it did, a second worker parked while the first ran the
line owed those delays when it next picked up a request, and the benchmark pinned one worker.
"""
import argparse
import glob
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
WORK = os.path.join(HERE, "work", "mini-redis")
VERSION = "0.4.1"
LEVELS = (0.25, 0.5, 0.75)

SET_LOOP = r'''// A client loop over mini-redis's public API: SET requests one after another for a time budget.
// Usage: set_loop PORT MS; prints "set_loop done N".
use std::time::{Duration, Instant};

#[tokio::main(flavor = "current_thread")]
async fn main() -> mini_redis::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let port: u16 = args[1].parse().expect("PORT");
    let budget = Duration::from_millis(args[2].parse().expect("MS"));
    let mut client = loop {
        match mini_redis::client::connect(("127.0.0.1", port)).await {
            Ok(c) => break c,
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    };
    let start = Instant::now();
    let mut n: u64 = 0;
    while start.elapsed() < budget {
        client.set("key", "value".into()).await?;
        coz::progress!("set");
        n += 1;
    }
    println!("set_loop done {}", n);
    Ok(())
}
'''

SPIN_FN = r'''
/// COZ_SPIN: iterations of the known work in the SET handler (benchmark patch).
pub fn coz_spin_iterations() -> u64 {
    static N: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *N.get_or_init(|| std::env::var("COZ_SPIN").ok().and_then(|v| v.parse().ok()).unwrap_or(0))
}

/// The known work: a dependent multiply chain, in a function of its own so that it keeps its
/// line (inlined into Set::apply, its samples are credited to the handler's call site).
#[inline(never)]
pub fn coz_spin_work(n: u64) -> u64 {
    let mut v: u64 = 1;
    for i in 0..n { v = std::hint::black_box(v.wrapping_mul(2654435761).wrapping_add(i)); } // COZ_SPIN_LINE
    v
}
'''

SPIN_LINE = "        std::hint::black_box(crate::coz_spin_work(crate::coz_spin_iterations()));\n"


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def run(cmd, **kw):
    log("+ " + " ".join(cmd))
    subprocess.run(cmd, check=True, **kw)


def prepare():
    """Fetches mini-redis and the coz crate, patches, builds; returns (server, client, spin line)."""
    fetch = os.path.join(WORK, "fetch")
    os.makedirs(os.path.join(fetch, "src"), exist_ok=True)
    with open(os.path.join(fetch, "Cargo.toml"), "w") as f:
        f.write('[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\n'
                f'mini-redis = "={VERSION}"\ncoz = "=0.1.3"\ntokio = {{ version = "1", features = ["full"] }}\n')
    open(os.path.join(fetch, "src", "lib.rs"), "w").close()
    run(["cargo", "fetch", "--quiet"], cwd=fetch)
    home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    crate = glob.glob(os.path.join(home, "registry", "cache", "*", f"mini-redis-{VERSION}.crate"))[0]
    src = os.path.join(WORK, f"mini-redis-{VERSION}")
    if not os.path.isdir(src):
        with tarfile.open(crate) as t:
            t.extractall(WORK)
        with open(os.path.join(src, "src", "lib.rs"), "a") as f:
            f.write(SPIN_FN)
        path = os.path.join(src, "src", "cmd", "set.rs")
        text = open(path).read()
        anchor = "        // Set the value in the shared database state.\n"
        assert anchor in text, "mini-redis's Set::apply changed"
        open(path, "w").write(text.replace(anchor, SPIN_LINE + anchor, 1))
        with open(os.path.join(src, "src", "bin", "set_loop.rs"), "w") as f:
            f.write(SET_LOOP)
        with open(os.path.join(src, "Cargo.toml"), "a") as f:
            f.write('\n[[bin]]\nname = "set_loop"\npath = "src/bin/set_loop.rs"\n\n'
                    '[dependencies.coz]\nversion = "=0.1.3"\n\n[profile.release]\ndebug = true\n')
    run(["cargo", "build", "--release", "--quiet", "--bin", "mini-redis-server", "--bin", "set_loop"], cwd=src)
    out = os.path.join(src, "target", "release")
    number = [i + 1 for i, l in enumerate(open(os.path.join(src, "src", "lib.rs"))) if "COZ_SPIN_LINE" in l][0]
    return os.path.join(out, "mini-redis-server"), os.path.join(out, "set_loop"), f"lib.rs:{number}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, proc, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.02)
    return False


WORKERS = None  # TOKIO_WORKER_THREADS for the server, or None for Tokio's default (--workers)


def one_run(server, client, spin, ms, wrap=lambda name: []):
    """Requests per second of one client run against a fresh server with COZ_SPIN=spin."""
    port = free_port()
    env = dict(os.environ, COZ_SPIN=str(spin))
    env.pop("TOKIO_WORKER_THREADS", None)
    if WORKERS:
        env["TOKIO_WORKER_THREADS"] = str(WORKERS)
    srv = subprocess.Popen(wrap("server") + [server, "--port", str(port)], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        if not wrap("server") and not wait_listening(port, srv):
            raise RuntimeError("mini-redis-server did not listen")
        p = subprocess.run(wrap("client") + [client, str(port), str(ms)], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=ms / 1000 + 120)
        m = re.search(r"set_loop done (\d+)", p.stdout)
        if p.returncode != 0 or not m:
            raise RuntimeError(f"set_loop failed ({p.returncode}): {p.stderr.strip()[-300:]}")
        return int(m.group(1)) / (ms / 1000)
    finally:
        srv.terminate()
        try:
            srv.wait(timeout=10)
        except subprocess.TimeoutExpired:
            srv.kill()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--coz", default=os.environ.get("COZ", os.path.join(ROOT, "build", "bin", "coz")))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--native-ms", type=int, default=4000)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--spin", type=int, default=300000, help="COZ_SPIN iterations per SET (default 300000)")
    ap.add_argument("--workers", type=int, default=None,
                    help="the server's Tokio workers (default: Tokio's, one per core)")
    ap.add_argument("--samplers", default="perf,timer",
                    help="one profile per coz run --sampler given to both programs (default perf,timer)")
    opts = ap.parse_args()
    opts.samplers = [x for x in opts.samplers.split(",") if x]
    if not opts.samplers or any(x not in ("auto", "perf", "timer") for x in opts.samplers):
        ap.error(f"bad --samplers {opts.samplers!r}: want auto, perf or timer, comma-separated")
    global WORKERS
    WORKERS = opts.workers
    server, client, line = prepare()

    # (a) True effects: COZ_SPIN really reduced, interleaved with the full spin, paired ratios.
    effects = {s: [] for s in LEVELS}
    base = []
    for rep in range(opts.runs):
        log(f"native repetition {rep + 1}/{opts.runs}")
        full = one_run(server, client, opts.spin, opts.native_ms)
        base.append(full)
        for s in LEVELS:
            faster = one_run(server, client, int(opts.spin * (1 - s)), opts.native_ms)
            effects[s].append(100 * (1 - full / faster))
    print(f"mini-redis {VERSION}: SET requests one after another, COZ_SPIN={opts.spin} in Set::apply "
          f"({line}); server workers: {WORKERS or 'Tokio default'}; "
          f"{statistics.median(base):.0f} requests/s natively")

    # (b) One coordinated profile per sampler: coordinator, server and client loop, each started on
    # its own.
    for sampler in opts.samplers:
        predict(opts, server, client, line, sampler, effects)


def predict(opts, server, client, line, sampler, effects):
    profile = os.path.join(WORK, f"p-{sampler}.coz")
    if os.path.exists(profile):
        os.remove(profile)
    port = free_port()
    address = f"127.0.0.1:{port}"
    coord = subprocess.Popen([opts.coz, "coordinate", "--listen", address, "-o", profile, "--fixed-line", line],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    wait_listening(port, coord)

    def wrap(name):
        return [opts.coz, "run", "--coordinator", address, "--sampler", sampler, "-o",
                os.path.join(WORK, f"{name}.coz"), "---"]

    try:
        rate = one_run(server, client, opts.spin, int(opts.seconds * 1000), wrap)
        log(f"profiled ({sampler} sampler): {rate:.0f} requests/s")
        coord.wait(timeout=60)
    finally:
        if coord.poll() is None:
            coord.terminate()
    doc = json.loads(subprocess.run([opts.coz, "report", "--json", profile], stdout=subprocess.PIPE,
                                    text=True).stdout or "{}")
    series = [s for s in doc.get("series", []) if s.get("line", "").endswith(line)]
    print(f"\nPredictions, sampler {sampler} ({opts.seconds:g} s profiled, {rate:.0f} requests/s):")
    print(f"{'S':>4} {'true %':>7} {'[min, max]':>15} {'predicted %':>11} {'[low, high]':>17} {'error':>6}")
    errors = []
    for s in LEVELS:
        true = statistics.median(effects[s])
        got = None
        if series:
            for p in series[0].get("predicted", []):
                if abs(p["line_speedup"] - s) < 1e-9:
                    e = p["program_speedup"]
                    got = (e["value"], e.get("low"), e.get("high"))
            for p in series[0].get("curve", []) if got is None else []:
                if abs(p["line_speedup"] - s) < 1e-9:
                    got = (p["program_speedup"], p.get("low"), p.get("high"))
        spread = f"[{min(effects[s]):.1f}, {max(effects[s]):.1f}]"
        if got is None:
            print(f"{int(s * 100):3}% {true:7.1f} {spread:>15} {'-':>11}")
            continue
        value = 100 * got[0]
        interval = (f"[{100 * got[1]:.1f}, {100 * got[2]:.1f}]" if got[1] is not None and got[2] is not None
                    else "[n/a]")
        errors.append(abs(value - true))
        print(f"{int(s * 100):3}% {true:7.1f} {spread:>15} {value:11.1f} {interval:>17} {value - true:+6.1f}")
    if errors:
        print(f"mean absolute error {statistics.mean(errors):.2f} points, max {max(errors):.1f}")
    else:
        print("no prediction: the profile has no series for " + line)


if __name__ == "__main__":
    main()
