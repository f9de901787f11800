#!/usr/bin/env python3
"""A real pre-fork server (process trees, issue 28): uWSGI, its work in forked worker processes.

The program: uWSGI (PyPI sdist `uwsgi`, UWSGI_VERSION, default 2.0.31), a C application server
whose master process forks its workers; fetched with `pip download --no-binary :all: --no-deps`,
unpacked twice under $REAL_WORK/uwsgi (default benchmarks/real/work/uwsgi, git-ignored), patched
and built with its own build script (uwsgiconfig.py) from a build profile written here: no
language plugin (the `notfound` plugin as the request handler), no pcre/ssl/xml/yaml/json;
gcc -O2 -g (ours) and -O2 -gdwarf-3 -gstrict-dwarf (Debian's Coz 0.2.2, when installed).
Fetching, building and patching are skipped when already done.

The server: `uwsgi --http-socket 127.0.0.1:PORT --master --processes 2 --check-static DIR
--disable-logging --master-fifo FIFO`: the master forks 2 workers, each accepting HTTP connections
on the shared socket and serving a 5.4 KB file from DIR through uWSGI's static file server
(stat, headers, sendfile). The load: drivers/http_load.c, a separate process never profiled,
REQUESTS (default 16000) GETs from CONCURRENCY (default 4) threads, one connection per request;
then "Q" on the master FIFO (uWSGI's quick shutdown: SIGINT to the workers, which exit()), and
no-op bytes on it until the master has reaped them and exited (without them the master waits for
its next one-second tick by chance).

The patch (core/static.c, core/utils.c):
  - a line of known work, COZ_SPIN iterations of a register loop, in uwsgi_real_file_serve (the
    worker's per-request file serving), marked COZ_SPIN_LINE; COZ_SPIN is read from the
    environment once per process (the workers inherit it); SPIN (default 400000) is its length;
  - COZ_PROGRESS_NAMED("request") at the start of uwsgi_close_request: one visit per request
    completed, in the worker that served it (the master never visits it).

Measured: the real effect of removing 25/50/75% of the line (COZ_SPIN scaled by 1-S) on the
server's wall time (launch to exit, the REQUESTS fixed: 1 - T(S)/T(0)), against
`coz run --end-to-end --fixed-line core/static.c:LINE --fixed-speedup S` on the full COZ_SPIN
(1 - P(S)/P(0), P the time per progress visit in the experiment record), and Debian's Coz 0.2.2
the same way on the DWARF 3 build (SKIP_DEBIAN=1 leaves it out); every repetition runs every
configuration at every level, interleaved; medians of paired ratios with bootstrap intervals from
benchmarks/accuracy/run.py. The progress point and the line are both in the workers: a runtime that
does not follow forked children counts no visit and gives no experiment ("-").

Environment: RUNS (default 5), COZ (default build/bin/coz), SKIP_DEBIAN=1, REQUESTS, CONCURRENCY,
SPIN, WORKERS (default 2), REAL_WORK (work directory), UWSGI_VERSION.
"""
import importlib.util
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import prepare  # noqa: E402  (patch_text, marked_line, run, log, WORK)


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Measure, effect, cell, profile_period, summaries; procs: prediction_cells ("-" for no experiment)
acc = load("accuracy_run", "benchmarks/accuracy/run.py")
procs = load("procs_run", "benchmarks/procs/run.py")

RUNS = int(os.environ.get("RUNS", "5"))
COZ = os.environ.get("COZ", os.path.join(ROOT, "build", "bin", "coz"))
DEBIAN = "/usr/bin/coz" if (os.path.exists("/usr/bin/coz") and os.path.exists("/usr/lib/coz-profiler/libcoz.so")
                            and not os.environ.get("SKIP_DEBIAN")) else None
VERSION = os.environ.get("UWSGI_VERSION", "2.0.31")
REQUESTS = int(os.environ.get("REQUESTS", "16000"))
CONCURRENCY = int(os.environ.get("CONCURRENCY", "4"))
SPIN = int(os.environ.get("SPIN", "400000"))
WORKERS = int(os.environ.get("WORKERS", "2"))
LEVELS = [0.0] + acc.SPEEDUPS
UWSGI = os.path.join(prepare.WORK, "uwsgi")
log = prepare.log

SPIN_FUNC = """\
/* coz-amp benchmark patch: a line of known work (COZ_SPIN iterations) per file served. */
static unsigned long cozSpinCount(void) {
	static volatile long n = -1;
	if (n < 0) { const char *e = getenv("COZ_SPIN"); n = e ? strtol(e, 0, 10) : 0; }
	return (unsigned long) n;
}
"""

# uwsgiconfig.py build profile: the core, the notfound plugin as the request handler, no optional
# libraries (none of them is on the request path here)
PROFILE = """\
[uwsgi]
inherit = base
main_plugin = notfound
embedded_plugins = notfound
pcre = false
ssl = false
xml = false
yaml = false
json = false
routing = false
bin_name = {bin}
"""

DEBUG = {"ours": "-g", "dwarf3": "-gdwarf-3 -gstrict-dwarf"}


def fetch():
    """The sdist from PyPI (pip download), once."""
    dl = os.path.join(UWSGI, "dl")
    tarball = os.path.join(dl, f"uwsgi-{VERSION}.tar.gz")
    if not os.path.exists(tarball):
        if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0:
            # Debian 12's python3 has no pip of its own: install it (the benchmark's only extra).
            sudo = [] if os.geteuid() == 0 else ["sudo"]
            prepare.run(sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "python3-pip"])
        prepare.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", ":all:", "--no-deps",
                     "-d", dl, f"uwsgi=={VERSION}"])
    return tarball


def patch(src):
    static_c = os.path.join(src, "core", "static.c")
    prepare.patch_text(static_c, "extern struct uwsgi_server uwsgi;\n\nint uwsgi_static_want_gzip(",
                       "extern struct uwsgi_server uwsgi;\n\n" + SPIN_FUNC + "\nint uwsgi_static_want_gzip(")
    prepare.patch_text(static_c, "\tchar *mime_type = uwsgi_get_mime_type(real_filename, real_filename_len, &mime_type_size);\n",
                       "\t{ unsigned long n = cozSpinCount(), i; for (i = 0; i < n; i++) __asm__ volatile(\"\" : \"+r\"(i)); } /* COZ_SPIN_LINE */\n"
                       "\tchar *mime_type = uwsgi_get_mime_type(real_filename, real_filename_len, &mime_type_size);\n")
    utils_c = os.path.join(src, "core", "utils.c")
    prepare.patch_text(utils_c, '#include "uwsgi.h"\n', '#include "uwsgi.h"\n#include "coz.h" /* coz-amp benchmark patch */\n')
    prepare.patch_text(utils_c, "void uwsgi_close_request(struct wsgi_request *wsgi_req) {\n",
                       "void uwsgi_close_request(struct wsgi_request *wsgi_req) {\n"
                       "\tCOZ_PROGRESS_NAMED(\"request\"); /* coz-amp benchmark patch: one visit per request */\n")
    return static_c, [static_c, utils_c]


def build(tarball, kind):
    """A patched tree of its own per build (uwsgiconfig.py builds in place); the binary
    work/bin/uwsgi_KIND, rebuilt when older than a patched file."""
    tree = os.path.join(UWSGI, f"src-{kind}")
    src = os.path.join(tree, f"uwsgi-{VERSION}")
    if not os.path.isdir(src):
        with tarfile.open(tarball) as t:
            t.extractall(tree)
    static_c, patched = patch(src)
    dest = os.path.join(prepare.BIN, f"uwsgi_{kind}")
    if not os.path.exists(dest) or os.path.getmtime(dest) < max(map(os.path.getmtime, patched)):
        ini = os.path.join(tree, "coz-amp.ini")
        with open(ini, "w") as f:
            f.write(PROFILE.format(bin=dest))
        env = dict(os.environ, CPUCOUNT=str(os.cpu_count() or 2),
                   CFLAGS=f"{DEBUG[kind]} -fno-omit-frame-pointer -I{os.path.join(ROOT, 'include')}")
        with open(os.path.join(tree, "build.log"), "w") as out:
            log(f"+ python3 uwsgiconfig.py --build {ini}  (in {src}; log {tree}/build.log)")
            subprocess.run([sys.executable, "uwsgiconfig.py", "--build", ini], cwd=src, env=env, stdout=out,
                           stderr=subprocess.STDOUT, check=True)
    return dest, f"{os.path.relpath(static_c, src)}:{prepare.marked_line(static_c)}"


def build_client():
    source = os.path.join(HERE, "drivers", "http_load.c")
    dest = os.path.join(prepare.BIN, "http_load")
    if not os.path.exists(dest) or os.path.getmtime(dest) < os.path.getmtime(source):
        prepare.run(["gcc", "-O2", "-pthread", source, "-o", dest])
    return dest


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def quit_server(fifo, server, deadline):
    """"Q" on the master FIFO: uWSGI's quick shutdown (the master sends SIGINT to its workers, which
    exit()), then a byte that is no command every 5 ms until the server exits: the master reaps
    its workers only when its loop turns, once a second when nothing wakes it up (the graceful
    "q" has the same tick), which would add 0 or 1 s to a run by chance."""
    command = b"Q"
    while time.monotonic() < deadline and server.poll() is None:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # being recreated (the master does after each writer closes), or no reader
            time.sleep(0.001)
            continue
        try:
            os.write(fd, command)
            command = b"\n"  # no command: only wakes the master's loop
        except OSError:
            pass
        os.close(fd)
        time.sleep(0.005)


def serve(prefix, binary, spin, scratch, client, www):
    """One server run under `prefix` (empty: natively) with COZ_SPIN=spin, loaded by the client:
    the server's wall time, launch to exit, or None when a request failed or the server did not
    exit by itself."""
    fifo = os.path.join(scratch, "master.fifo")
    port = free_port()
    env = dict(os.environ, COZ_SPIN=str(spin))
    argv = prefix + [binary, "--http-socket", f"127.0.0.1:{port}", "--master", "--processes", str(WORKERS),
                     "--check-static", www, "--disable-logging", "--master-fifo", fifo]
    with open(os.path.join(scratch, "server.log"), "w") as out:
        for _ in range(60):
            start = time.monotonic()
            try:  # a session of its own: on a timeout the whole tree (profiler, master, workers) goes
                server = subprocess.Popen(argv, env=env, cwd=scratch, stdout=out, stderr=subprocess.STDOUT,
                                          start_new_session=True)
                break
            except OSError as e:  # another session may be relinking build/bin/coz
                log(f"  {argv[0]}: {e}; trying again in 5 s")
                time.sleep(5)
        else:
            return None
        try:
            load = subprocess.run([client, str(port), "/index.html", str(REQUESTS), str(CONCURRENCY)],
                                  stdout=subprocess.PIPE, text=True, timeout=300)
            quit_server(fifo, server, time.monotonic() + 30)
            server.wait(timeout=90)
            elapsed = time.monotonic() - start
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
            log(f"  {' '.join(argv[:3])}...: timed out")
            return None
    if load.returncode != 0 or server.returncode != 0:
        log(f"  {' '.join(argv[:2])} spin {spin}: client {load.stdout.strip()!r} (status {load.returncode}), "
            f"server status {server.returncode}")
        return None
    return elapsed


def predicted(tool, binary, line, speedup, spin, scratch, client, www):
    """Time per progress visit in the experiment of `tool run --end-to-end --fixed-line`, None when
    the run failed or the profile has no experiment with visits."""
    profile = os.path.join(scratch, "profile.coz")  # Coz 0.2 writes it there (its cwd); ours told so
    if os.path.exists(profile):
        os.remove(profile)
    prefix = [tool, "run", "--end-to-end", "--fixed-line", line, "--fixed-speedup", str(int(round(speedup * 100)))]
    if tool == COZ:
        prefix += ["-o", profile]
    if serve(prefix + ["---"], binary, spin, scratch, client, www) is None or not os.path.exists(profile):
        return None
    return acc.profile_period(profile)


def main():
    t0 = time.monotonic()
    if not os.access(COZ, os.X_OK):
        raise SystemExit(f"COZ: {COZ} is not executable")
    os.makedirs(prepare.BIN, exist_ok=True)
    tarball = fetch()
    kinds = ["ours"] + (["dwarf3"] if DEBIAN else [])
    bins = {}
    for kind in kinds:
        started = time.monotonic()
        bins[kind], line = build(tarball, kind)
        log(f"uwsgi {VERSION} ({kind}): {bins[kind]}, ready in {time.monotonic() - started:.0f} s")
    client = build_client()
    log(f"setup: {time.monotonic() - t0:.0f} s; line {line}")
    scratch = tempfile.mkdtemp(prefix="coz-uwsgi-")
    www = os.path.join(scratch, "www")
    os.makedirs(www)
    with open(os.path.join(www, "index.html"), "w") as f:  # 5.4 KB, deterministic
        f.write("".join(f"<p>line {i}: causal profiling of a pre-fork server</p>\n" for i in range(100)))

    real = {s: [] for s in LEVELS}
    ours = {s: [] for s in LEVELS}
    theirs = {s: [] for s in LEVELS}
    for r in range(RUNS):  # each configuration's levels back to back, so pairs are close in time
        for s in LEVELS:
            real[s].append(serve([], bins["ours"], int(round(SPIN * (1 - s))), scratch, client, www))
        for s in LEVELS:
            ours[s].append(predicted(COZ, bins["ours"], line, s, SPIN, scratch, client, www))
        if DEBIAN:
            for s in LEVELS:
                theirs[s].append(predicted(DEBIAN, bins["dwarf3"], line, s, SPIN, scratch, client, www))
        log(f"repetition {r + 1}/{RUNS}: real {[None if t is None else round(t, 2) for t in (real[s][-1] for s in LEVELS)]} s; "
            f"ours {[None if p is None else round(p * 1e-3, 1) for p in (ours[s][-1] for s in LEVELS)]} us/visit"
            + (f"; coz 0.2 {[None if p is None else round(p * 1e-3, 1) for p in (theirs[s][-1] for s in LEVELS)]}"
               if DEBIAN else "") + f" ({time.monotonic() - t0:.0f} s)")
    shutil.rmtree(scratch, ignore_errors=True)

    times = [t for t in real[0.0] if t]
    print(f"uWSGI {VERSION} (PyPI sdist), master + {WORKERS} workers, {REQUESTS} requests from {CONCURRENCY} "
          f"connections; COZ_SPIN={SPIN} per request in {line} (in the workers); progress point 'request' "
          f"(uwsgi_close_request, in the workers); native run {statistics.median(times) if times else float('nan'):.2f} s "
          f"(median at full spin)")
    print(f"Real effects against --end-to-end --fixed-line predictions: medians over {RUNS} repetitions of paired "
          f"ratios; percent; '-': no experiment in the profile")
    header = f"{'line':16} {'S':>4} {'actual':>7} {acc.ERROR_HEADER}"
    if DEBIAN:
        header += f" {'coz 0.2':>7} {'error':>6} {'95% interval':>15}"
    print(header)
    ours_summary, coz_summary = acc.new_summary(), acc.new_summary()
    for s in acc.SPEEDUPS:
        actual = acc.effect(real, s)
        row = f"{line:16} {int(s * 100):3}% {acc.cell(actual.value())} {procs.prediction_cells(actual, acc.effect(ours, s), ours_summary)}"
        if DEBIAN:
            row += " " + procs.prediction_cells(actual, acc.effect(theirs, s), coz_summary)
        print(row)
    acc.print_summary("this project", ours_summary)
    if DEBIAN:
        acc.print_summary("Debian coz 0.2", coz_summary)
    else:
        print("Debian coz-profiler not installed or SKIP_DEBIAN=1: no Coz 0.2.2 column")
    print(f"total time {time.monotonic() - t0:.0f} s")


if __name__ == "__main__":
    main()
