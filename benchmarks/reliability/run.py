#!/usr/bin/env python3
"""Reliability: a catalogue of bad inputs and faults, tried as hostile or unlucky users would.

    python3 benchmarks/reliability/run.py [path/to/coz]      # or COZ=path/to/coz
    CASES=close,plot python3 benchmarks/reliability/run.py   # only cases whose name holds a word
    LIST=1 python3 benchmarks/reliability/run.py             # list the cases and stop

The coz binary defaults to build/bin/coz (its runtime is found next to it, as usual). The script
needs python3 (standard library only) and gcc; it builds its fixture program
(programs/prog.c, one program with many behaviours, all deterministic) into a temporary
directory, with and without debug information and statically. Some cases need root (a setuid
copy owned by nobody, a small tmpfs in a private mount namespace, read-only bind mounts); without
it they are skipped. TIMEOUT (default 30 s) is the per-case limit; KEEP=1 keeps the temporary
directory. It takes a few minutes on two cores.

Each case prints `name: verdict (detail)`, then a summary; the exit status is 1 when any case is
crash, hang, lost or changed. Verdicts:
  ok           worked as it should
  clear error  refused (or reported a failure it could not avoid) with a clear message on
               stderr and no abort, traceback or sanitizer output
  crash        coz or the profiled program died of a signal it would not have died of natively,
               printed abort/sanitizer/terminate output, or failed without saying why
  hang         exceeded the per-case timeout (the process group is killed)
  lost         a profile lost experiments: a record cut or mangled, experiments missing that
               coz reported or that ran, earlier content overwritten, no profile and no reason
  changed      the profiled program's own stdout, stderr (minus coz's `coz:` lines), exit status,
               signals or files differ from a native run; for report/plot: the page or the
               server gives away what it must not (markup or secrets from the profile, a page
               for a foreign Host)
"""
import errno
import os
import random
import re
import resource
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
COZ = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.environ.get("COZ", os.path.join(ROOT, "build", "bin", "coz")))
TIMEOUT = float(os.environ.get("TIMEOUT", "30"))
WORK = 24          # REL_WORK units for the program modes (~30 ms each): ~4 experiments of 50 ms+
EXP = "50ms"       # --experiment-length for the run cases

OK, CLEAR, CRASH, HANG, LOST, CHANGED, SKIP = "ok", "clear error", "crash", "hang", "lost", "changed", "skipped"
COLUMNS = [OK, CLEAR, CRASH, HANG, LOST, CHANGED]

CRASH_RE = re.compile(rb"(Segmentation fault|Aborted|core dumped|terminate called|runtime error:|"
                      rb"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|ThreadSanitizer|"
                      rb"Traceback \(most recent|stack smashing|double free|free\(\): |malloc\(\): |"
                      rb"corrupted |Assertion .* failed|std::bad_alloc|std::length_error|"
                      rb"std::out_of_range|Floating point exception|Bus error|Illegal instruction)")
FAILURE_RE = re.compile(r"(could not|cannot|can't|failed|not written|no space|too large|error)", re.I)
RECORD_TYPES = {"process", "startup", "experiment", "throughput-point", "latency-point", "arrival-point",
                "runtime", "samples", "warning"}
IS_ROOT = os.geteuid() == 0

WORKDIR = None     # temporary directory of the whole run
PROG = None        # the fixture, -g
BINS = {}          # other builds of the fixture


# ---------------------------------------------------------------- processes

class Result:
    def __init__(self, status, out, err, timed_out, seconds):
        self.status, self.out, self.err, self.timed_out, self.seconds = status, out, err, timed_out, seconds

    def text(self):
        return self.err.decode("utf-8", "replace")


def base_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("COZ_") and k not in ("LD_PRELOAD", "REL_WORK")}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def limits_preexec(limits):
    def pre():
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
            signal.signal(s, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        for which, value in limits or ():
            soft, hard = resource.getrlimit(which)
            resource.setrlimit(which, (value, hard if hard == resource.RLIM_INFINITY or hard >= value else value))
    return pre


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run(argv, cwd, env=None, stdin=b"", timeout=None, limits=None, after_start=None):
    """Runs argv in its own process group; kills the group on timeout. after_start(popen) may
    act on the running process (send it a signal)."""
    start = time.monotonic()
    p = subprocess.Popen(argv, cwd=cwd, env=env or base_env(), stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                         preexec_fn=limits_preexec(limits))
    timed_out = False
    if after_start:
        threading.Thread(target=after_start, args=(p,), daemon=True).start()
    try:
        out, err = p.communicate(stdin, timeout=timeout or TIMEOUT)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(p.pid)
        try:
            out, err = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:  # a grandchild in another session holds the pipes
            out, err = b"", b""
    kill_group(p.pid)  # strays: children the program left behind in its group
    return Result(p.returncode, out, err, timed_out, time.monotonic() - start)


def fresh(name):
    d = tempfile.mkdtemp(prefix=re.sub(r"[^A-Za-z0-9]+", "_", name)[:40] + ".", dir=WORKDIR)
    os.chmod(d, 0o755)
    return d


def signame(n):
    try:
        return signal.Signals(n).name
    except ValueError:
        return f"signal {n}"


def describe_status(status):
    if status is None:
        return "no status"
    if status < 0:
        return f"killed by {signame(-status)}"
    if status > 128 and status - 128 < 65:
        return f"exit {status} ({signame(status - 128)})"
    return f"exit {status}"


def norm(status):
    """An exit status as a shell shows it: 128+N for death by signal N."""
    return 128 - status if status is not None and status < 0 else status


def strip_coz(err):
    return b"".join(l for l in err.splitlines(keepends=True) if not l.startswith(b"coz:"))


def coz_lines(r):
    return [l for l in r.text().splitlines() if l.startswith("coz")]


def short(b, n=90):
    s = b.decode("utf-8", "replace") if isinstance(b, bytes) else str(b)
    s = s.strip().replace("\n", "\\n")
    return s if len(s) <= n else s[:n] + "..."


def first_diff(a, b):
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return f"at byte {i}: native {short(a[i:i + 40], 40)!r}, profiled {short(b[i:i + 40], 40)!r}"


def crash_line(err):
    for line in err.splitlines():
        if CRASH_RE.search(line):
            return short(line)
    return None


def cli_verdict(r, ok_check=None, what="coz"):
    """The verdict for a coz command that runs no program (report, plot, a refused run)."""
    if r.timed_out:
        return HANG, f"no answer in {TIMEOUT:.0f} s"
    if r.status < 0:
        return CRASH, f"{what} {describe_status(r.status)}"
    c = crash_line(r.err)
    if c:
        return CRASH, c
    if r.status == 0:
        if ok_check:
            problem = ok_check()
            if problem:
                return problem
        return OK, short(r.out.splitlines()[0] if r.out.strip() else (coz_lines(r) or ["exit 0"])[0])
    return refused(r)


def refused(r):
    lines = [l for l in r.text().splitlines() if l.strip()]
    mine = [l for l in lines if l.startswith("coz")]
    if not mine:
        return CRASH, f"{describe_status(r.status)} without a message" + (f": {short(lines[0])}" if lines else "")
    if len(lines) > 40:
        return CRASH, f"{describe_status(r.status)} with {len(lines)} lines of messages"
    errors = [l for l in mine if "error" in l or "nothing to show" in l] or mine
    return CLEAR, f"{describe_status(r.status)}: {short(errors[0], 110)}"


# ---------------------------------------------------------------- profiles

def read_profile(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def profile_problems(data, prefix=b"", min_experiments=0, reported=None, final=True):
    """What was lost in a profile written by coz run (empty list: nothing)."""
    if data is None:
        return ["no profile"]
    problems = []
    if not data.startswith(prefix):
        return [f"the {len(prefix)} bytes it held before were changed (now {len(data)} bytes)"]
    body = data[len(prefix):]
    if body and not body.endswith(b"\n"):
        tail = body.rsplit(b"\n", 1)[-1]
        problems.append(f"last record cut: {short(tail, 60)!r}")
    experiments = finals = 0
    for number, line in enumerate(body.split(b"\n")[:-1], 1):
        fields = line.split(b"\t")
        kind = fields[0].decode("utf-8", "replace")
        if kind.startswith("{"):
            continue
        if kind not in RECORD_TYPES or any(b"=" not in f for f in fields[1:]):
            problems.append(f"record {number} mangled: {short(line, 60)!r}")
            break
        keys = {f.split(b"=", 1)[0] for f in fields[1:]}
        if kind == "experiment":
            if not {b"selected", b"speedup", b"duration", b"selected-samples"} <= keys:
                problems.append(f"experiment record {number} lacks fields: {short(line, 60)!r}")
            experiments += 1
        finals += kind == "runtime"
    if experiments < min_experiments:
        problems.append(f"{experiments} experiments in the profile, at least {min_experiments} expected")
    if reported is not None and experiments < reported:
        problems.append(f"coz reported {reported} experiments this run, the profile holds {experiments}")
    if final and finals == 0 and body:
        problems.append("no final records (runtime, samples)")
    return problems


def reported_count(r):
    m = re.findall(r"(\d+) experiments? this run", r.text())
    return int(m[-1]) if m else None


def count_experiments(data):
    return sum(1 for l in (data or b"").split(b"\n") if l.startswith(b"experiment\t"))


def files_of(d, skip):
    found = {}
    for base, dirs, names in os.walk(d):
        for n in names:
            path = os.path.join(base, n)
            rel = os.path.relpath(path, d)
            if rel in skip or not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                found[rel] = f.read()
    return found


# ---------------------------------------------------------------- run cases

NATIVE_CACHE = {}


def native(args, work=WORK, stdin=b"", limits=None, after_start=None, cache=True):
    key = (tuple(args), work, stdin, repr(limits))
    if cache and not after_start and key in NATIVE_CACHE:
        return NATIVE_CACHE[key]
    d = fresh("native_" + args[0])
    r = run([PROG, *args], d, env=base_env(REL_WORK=work), stdin=stdin, limits=limits, after_start=after_start)
    value = (r, files_of(d, set()))
    if cache and not after_start:
        NATIVE_CACHE[key] = value
    return value


def coz_run(args, cwd, opts=(), work=WORK, stdin=b"", limits=None, after_start=None, prog=None,
            profile="p.coz", wrapper=(), exp=EXP):
    argv = [*wrapper, COZ, "run", *(["--experiment-length", exp] if exp else []), *opts,
            "-o", profile, "---", prog or PROG, *args]
    return run(argv, cwd, env=base_env(REL_WORK=work), stdin=stdin, limits=limits, after_start=after_start)


def program_diffs(nat, nat_files, prof, prof_files):
    diffs = []
    if nat.out != prof.out:
        diffs.append("stdout " + first_diff(nat.out, prof.out))
    ne, pe = strip_coz(nat.err), strip_coz(prof.err)
    if ne != pe:
        diffs.append("stderr " + first_diff(ne, pe))
    if norm(nat.status) != norm(prof.status):
        diffs.append(f"{describe_status(nat.status)} natively, {describe_status(prof.status)} profiled")
    for name in sorted(set(nat_files) | set(prof_files)):
        a, b = nat_files.get(name), prof_files.get(name)
        if a is None:
            diffs.append(f"file {name} only when profiled ({len(b)} bytes: {short(b, 50)!r})")
        elif b is None:
            diffs.append(f"file {name} missing when profiled")
        elif a != b:
            diffs.append(f"file {name} " + first_diff(a, b))
    return diffs


def judge_run(nat, nat_files, prof, prof_files, profile_data, min_experiments=2, final=True,
              prefix=b"", extra_lost=(), extra_changed=()):
    if prof.timed_out:
        return HANG, f"coz run took over {TIMEOUT:.0f} s (native {nat.seconds:.1f} s)"
    if norm(prof.status) != norm(nat.status) and norm(prof.status) > 128:
        return CRASH, f"{describe_status(prof.status)} profiled, {describe_status(nat.status)} natively"
    c = crash_line(prof.err)
    if c and not crash_line(nat.err):
        return CRASH, c
    lost = profile_problems(profile_data, prefix, min_experiments, reported_count(prof), final) + list(extra_lost)
    diffs = program_diffs(nat, nat_files, prof, prof_files) + list(extra_changed)
    if lost:
        return LOST, "; ".join(lost + (["and changed: " + "; ".join(diffs[:2])] if diffs else []))
    if diffs:
        return CHANGED, "; ".join(diffs[:3])
    return OK, f"same output, files and status; {count_experiments(profile_data) - count_experiments(prefix)} experiments kept"


def same_as_native(args, opts=(), work=WORK, stdin=b"", min_experiments=2, final=True, limits=None,
                   prefix=None, prog=None, check=None):
    def f():
        nat, nat_files = native(args, work, stdin, limits)
        d = fresh("coz_" + args[0])
        profile = os.path.join(d, "p.coz")
        if prefix is not None:
            with open(profile, "wb") as out:
                out.write(prefix)
        prof = coz_run(args, d, opts, work, stdin, limits, prog=prog)
        extra = check(d, prof) if check else ()
        return judge_run(nat, nat_files, prof, files_of(d, {"p.coz"}), read_profile(profile), min_experiments,
                         final, prefix or b"", extra_changed=extra)
    return f


# ---------------------------------------------------------------- the catalogue

CASES = []


def case(name, category, fn):
    CASES.append((name, category, fn))


def add_program_cases():
    cat = "run: program"
    case("run: normal program", cat, same_as_native(["ok"]))
    case("run: arguments that look like options", cat,
         same_as_native(["args", "---", "--", "-o", "x.coz", "--help", "", "spaces in arg", "--runs=9"],
                        min_experiments=0))
    data = random.Random(7).randbytes(1 << 20)
    case("run: 1 MB of binary stdin", cat, same_as_native(["cat"], stdin=data, min_experiments=0))
    case("run: 4 MB of stdout and stderr", cat, same_as_native(["bigout"], min_experiments=0))
    case("run: program returns 7", cat, same_as_native(["return7"]))
    case("run: program calls exit(3)", cat, same_as_native(["exit"]))
    case("run: program calls _exit(4)", cat, same_as_native(["_exit"]))
    case("run: a thread calls exit(5)", cat, same_as_native(["thread-exit"]))
    case("run: program aborts", cat, same_as_native(["abort"], final=False))
    case("run: program raises SIGKILL", cat, same_as_native(["sigkill"], final=False))
    case("run: program segfaults", cat, same_as_native(["segv"], final=False))
    case("run: program raises SIGTERM", cat, same_as_native(["raise"]))
    case("run: program execs itself", cat, same_as_native(["exec"]))
    case("run: program execs sh", cat, same_as_native(["exec-sh"], min_experiments=1, final=False))
    case("run: fork without exec", cat, same_as_native(["fork"]))
    case("run: vfork and exec", cat, same_as_native(["vfork"]))
    case("run: 1000 short-lived children", cat, same_as_native(["children"], min_experiments=1))
    case("run: daemonises", cat, run_daemon)
    case("run: close_range(3, ~0U, 0) then own files", cat, same_as_native(["close_range"]))
    case("run: closefrom(3) then own files", cat, same_as_native(["closefrom"]))
    case("run: close loop to _SC_OPEN_MAX then own files", cat, same_as_native(["close_loop"]))
    case("run: dup2 onto every descriptor up to 4096", cat, same_as_native(["dup2_high"]))
    case("run: handlers for every signal, SIGRTMAX-2 included", cat, same_as_native(["handlers"]))
    case("run: block all signals and read the mask back", cat, same_as_native(["mask"]))
    case("run: sigwaitinfo on every signal", cat, same_as_native(["sigwait"]))
    case("run: RLIMIT_NOFILE 32 set by the program", cat, same_as_native(["nofile"]))
    case("run: RLIMIT_NOFILE 24 inherited", cat,
         same_as_native(["ok"], limits=[(resource.RLIMIT_NOFILE, 24)]))
    case("run: changes cwd before writing, relative -o", cat, same_as_native(["chdir"], check=profile_in_start_dir))
    case("run: 1000 concurrent + 1000 short-lived threads", cat, same_as_native(["threads"], min_experiments=0))
    case("run: thread cancellation in blocking calls", cat, same_as_native(["cancel"], min_experiments=1))
    case("run: RLIMIT_FSIZE 2000 bytes", cat, fsize_case)
    case("run: setuid program owned by nobody", cat, setuid_case)
    for sig in ("SIGINT", "SIGTERM"):
        case(f"run: {sig} to coz alone, program handles it", cat, signal_case(sig, "wait_signal"))
        case(f"run: {sig} to coz alone, program has no handler", cat, signal_case(sig, "wait_default"))
    case("run: --runs 3 with a failing program", cat, runs_failing)
    case("run: 3 coz runs in parallel, one profile", cat, parallel_case)


def profile_in_start_dir(d, prof):
    return [] if os.path.exists(os.path.join(d, "p.coz")) else ["relative -o not resolved in the starting directory"]


def run_daemon():
    def wait_file(d):
        path = os.path.join(d, "daemon.txt")
        for _ in range(int(TIMEOUT * 10)):
            if os.path.exists(path):
                time.sleep(0.5)
                return True
            time.sleep(0.1)
        return False
    nd = fresh("native_daemon")
    nat = run([PROG, "daemon"], nd, env=base_env(REL_WORK=WORK))
    wait_file(nd)
    d = fresh("coz_daemon")
    prof = coz_run(["daemon"], d)
    if not wait_file(d):
        return HANG, "the daemon's file never appeared"
    data = read_profile(os.path.join(d, "p.coz"))
    v = judge_run(nat, files_of(nd, set()), prof, files_of(d, {"p.coz"}), data, min_experiments=0, final=False)
    if v[0] == OK:
        processes = data.count(b"\nprocess\t")
        return OK, f"same output and files; {processes} followed processes (the daemon among them), the profile is intact"
    return v


def fsize_case():
    limits = [(resource.RLIMIT_FSIZE, 2000)]
    nat, nat_files = native(["myfile"], 60, limits=limits)
    d = fresh("coz_fsize")
    prof = coz_run(["myfile"], d, work=60, limits=limits, exp="5ms")
    data = read_profile(os.path.join(d, "p.coz"))
    v = judge_run(nat, nat_files, prof, files_of(d, {"p.coz"}), data, min_experiments=1, final=False)
    if v[0] == LOST and "reported" in v[1] and any(FAILURE_RE.search(l) for l in coz_lines(prof)):
        told = [l for l in coz_lines(prof) if FAILURE_RE.search(l)][0]
        cut = profile_problems(data, final=False)
        return (LOST, "; ".join(cut)) if cut else (CLEAR, f"profile limit reported: {short(told, 100)}")
    return v


def setuid_case():
    if not IS_ROOT:
        return SKIP, "needs root to chown a copy to nobody"
    d = fresh("s_u_i_d")
    os.chmod(d, 0o777)
    prog = os.path.join(d, "suid_prog")
    shutil.copy(PROG, prog)
    os.chown(prog, 65534, 65534)
    os.chmod(prog, 0o4755)
    r = coz_run(["ok"], d, prog=prog, work=4)
    if r.timed_out or (r.status or 0) < 0 or crash_line(r.err):
        return cli_verdict(r)
    mine = coz_lines(r)
    said = [l for l in mine if re.search(r"set-?u(ser-)?id|setuid|privileg|secure", l, re.I)]
    data = read_profile(os.path.join(d, "p.coz"))
    if said:
        return CLEAR, f"{describe_status(r.status)}: {short(said[0], 110)}"
    if count_experiments(data) > 0:
        return OK, "profiled"
    return LOST, "no profile and no reason given: " + short(" | ".join(mine), 120)


def signal_case(sig, mode):
    signum = getattr(signal, sig)

    def send(delay, target):
        def go(p):
            time.sleep(delay)
            try:
                os.kill(target(p), signum)
            except ProcessLookupError:
                pass
        return go

    def f():
        nat, nat_files = native([mode], after_start=send(1.5, lambda p: p.pid), cache=False)
        d = fresh("coz_" + sig)
        prof = coz_run([mode], d, after_start=send(1.5, lambda p: p.pid))  # p is coz itself
        return judge_run(nat, nat_files, prof, files_of(d, {"p.coz"}), read_profile(os.path.join(d, "p.coz")),
                         min_experiments=1)
    return f


def runs_failing():
    d = fresh("runs_fail")
    r = coz_run(["fail"], d, opts=["--runs", "3"], work=8)
    if r.timed_out or r.status < 0 or crash_line(r.err):
        return cli_verdict(r)
    runs = r.out.count(b"failing run")
    data = read_profile(os.path.join(d, "p.coz"))
    starts = (data or b"").count(b"startup\t")
    lost = profile_problems(data, final=True)
    if lost:
        return LOST, "; ".join(lost)
    if starts != runs:
        return LOST, f"{runs} runs, {starts} in the profile"
    if runs == 3:
        return OK, f"ran all 3 runs, {describe_status(r.status)}"
    said = [l for l in coz_lines(r) if re.search(r"keep-going|stop|run \d|runs?\b.*(exit|fail)", l, re.I)]
    if runs < 3 and said and r.status != 0:
        return CLEAR, f"stopped after {runs} run(s): {short(said[0], 100)}"
    return LOST, f"--runs 3 ran {runs} run(s) and said nothing of the rest ({describe_status(r.status)})"


def parallel_case():
    d = fresh("parallel")
    results = [None] * 3

    def one(i):
        results[i] = coz_run(["ok"], d, work=WORK, profile="shared.coz")
    threads = [threading.Thread(target=one, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        if r.timed_out or r.status != 0 or crash_line(r.err):
            return cli_verdict(r) if r.status != 0 else (HANG, "timed out")
    nat, _ = native(["ok"])
    for r in results:
        if r.out != nat.out or strip_coz(r.err) != strip_coz(nat.err):
            return CHANGED, "a run's output differs from native"
    data = read_profile(os.path.join(d, "shared.coz"))
    problems = profile_problems(data, final=True)
    counts = [reported_count(r) for r in results]
    total = count_experiments(data)
    if data is not None and data.count(b"startup\t") != 3:
        problems.append(f"{data.count(b'startup' + bytes([9]))} startup records for 3 runs")
    if None in counts or sum(counts) != total:
        problems.append(f"runs reported {counts} experiments 'this run', the file holds {total}")
    if problems:
        return LOST, "; ".join(problems)
    return OK, f"runs reported {counts}, file holds {total}"


def add_launch_cases():
    cat = "run: what is run"

    def refused_case(argv_fn, expect_ok=None):
        def f():
            d = fresh("launch")
            argv = argv_fn(d)
            r = run([COZ, "run", "-o", "p.coz", *argv], d, env=base_env(REL_WORK=4))
            return cli_verdict(r, expect_ok(d, r) if expect_ok else None)
        return f

    def write(d, name, data, mode=0o755):
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, mode)
        return path

    case("run: program missing", cat, refused_case(lambda d: ["---", "./no-such-program"]))
    case("run: program not executable", cat,
         refused_case(lambda d: ["---", write(d, "noexec", open(PROG, "rb").read(), 0o644), "ok"]))
    case("run: program is a directory", cat, refused_case(lambda d: ["---", d]))
    case("run: program is an empty file", cat, refused_case(lambda d: ["---", write(d, "empty", b"")]))
    case("run: program is a truncated ELF", cat,
         refused_case(lambda d: ["---", write(d, "cut", open(PROG, "rb").read()[:200])]))
    case("run: program is a shell script", cat,
         refused_case(lambda d: ["---", write(d, "script.sh", b"#!/bin/sh\necho from script\n")],
                      lambda d, r: lambda: None if r.out == b"from script\n" else (CHANGED, f"stdout {short(r.out)!r}")))
    case("run: program without debug information", cat, refused_case(lambda d: ["---", BINS["nodebug"], "ok"]))
    case("run: statically linked program", cat,
         lambda: refused_case(lambda d: ["---", BINS["static"], "ok"])() if "static" in BINS else (SKIP, "no static libc"))
    case("run: program name with newline and unicode", cat,
         refused_case(lambda d: ["---", write(d, "pr\nög ☃", open(PROG, "rb").read()), "ok"]))


def add_output_cases():
    cat = "run: output"

    def output_case(setup, expect="clear", prefix_of=None, wrapper=None, after=None):
        """setup(d) -> the -o argument. The program must behave as natively; the profile must be
        written or the failure said clearly."""
        def f():
            d = fresh("output")
            target = setup(d)
            before = read_profile(os.path.join(d, prefix_of)) if prefix_of else None
            nat, nat_files = native(["ok"], work=WORK)
            prof = coz_run(["ok"], d, profile=target, wrapper=wrapper(d) if wrapper else ())
            if after:
                after(d)
            if prof.timed_out:
                return HANG, f"coz run -o {short(target, 40)} took over {TIMEOUT:.0f} s"
            if prof.status < 0 or crash_line(prof.err):
                return cli_verdict(prof)
            if prof.status == 2 or (prof.status != 0 and b"done" not in prof.out):
                if prefix_of and read_profile(os.path.join(d, prefix_of)) != before:
                    return LOST, "refused, but the file it held was changed"
                return refused(prof)
            files = files_of(d, {os.path.relpath(os.path.join(d, target), d), prefix_of or "", "saved.coz"})
            diffs = program_diffs(nat, nat_files, prof, files)
            if diffs:
                return CHANGED, "; ".join(diffs[:3])
            if prefix_of:
                data = read_profile(os.path.join(d, prefix_of))
                problems = profile_problems(data, before, 2, reported_count(prof))
                return (LOST, "; ".join(problems)) if problems else (OK, "appended after the old content")
            told = [l for l in coz_lines(prof) if FAILURE_RE.search(l) and "warning: no line" not in l]
            if told:
                return CLEAR, f"program ran as natively; {short(told[0], 100)}"
            return expect_ok(d, target, prof)
        return f

    def expect_ok(d, target, prof):
        path = os.path.join(d, target)
        if os.path.exists(os.path.join(d, "saved.coz")):
            path = os.path.join(d, "saved.coz")
        data = read_profile(path) if os.path.isfile(path) else None
        if data is None:
            return LOST, "no profile written and nothing said: " + short(" | ".join(coz_lines(prof)), 100)
        problems = profile_problems(data, b"", 2, reported_count(prof))
        return (LOST, "; ".join(problems)) if problems else (OK, f"{count_experiments(data)} experiments written")

    def mk(d, name, data=None, mode=None):
        path = os.path.join(d, name)
        if data is not None:
            with open(path, "wb") as f:
                f.write(data)
        if mode is not None:
            os.chmod(path, mode)
        return name

    def fifo(d):
        os.mkfifo(os.path.join(d, "fifo.coz"))
        return "fifo.coz"

    case("run: -o in a missing directory", cat, output_case(lambda d: "no/such/dir/p.coz"))
    case("run: -o is a directory", cat, output_case(lambda d: "."))
    case("run: -o empty", cat, output_case(lambda d: ""))
    case("run: -o /dev/full", cat, output_case(lambda d: "/dev/full"))
    case("run: -o a FIFO nobody reads", cat, output_case(fifo))
    case("run: -o a 300-character name", cat, output_case(lambda d: "x" * 300 + ".coz"))
    case("run: -o in a read-only directory (bind mount)", cat,
         output_case(lambda d: mk(d, "ro/p.coz") if os.mkdir(os.path.join(d, "ro")) is None else "",
                     wrapper=readonly_wrapper) if IS_ROOT else lambda: (SKIP, "needs root"))
    case("run: -o a file holding binary garbage", cat,
         output_case(lambda d: mk(d, "g.coz", random.Random(3).randbytes(10000)),
                     prefix_of="g.coz"))
    case("run: -o another tool's CSV", cat,
         output_case(lambda d: mk(d, "data.csv", b"id,name,value\n1,alpha,3.5\n2,beta,4\n"), prefix_of="data.csv"))
    case("run: -o a profile without a final newline", cat,
         output_case(lambda d: mk(d, "old.coz", b"startup\ttime=1\nexperiment\tselected=a.c:1\tspeedup=0.00"
                                  b"\tduration=5\tselected-samples=1\nthroughput-point\tname=x\tdelta=1"),
                     prefix_of="old.coz"))
    case("run: -o an earlier profile (append)", cat, output_case(earlier_profile, prefix_of="earlier.coz"))
    case("run: disk fills (4 KB tmpfs)", cat, disk_full_case)


def readonly_wrapper(d):
    ro = os.path.join(d, "ro")
    return ["unshare", "--mount", "sh", "-c",
            f"mount --bind '{ro}' '{ro}' && mount -o remount,ro,bind '{ro}' && exec \"$@\"", "sh"]


def earlier_profile(d):
    r = coz_run(["ok"], d, profile="earlier.coz")
    if r.status != 0:
        raise RuntimeError("the first run failed: " + r.text())
    return "earlier.coz"


def disk_full_case():
    if not IS_ROOT or not shutil.which("unshare"):
        return SKIP, "needs root and unshare"
    d = fresh("diskfull")
    mnt = os.path.join(d, "small")
    os.mkdir(mnt)
    wrapper = ["unshare", "--mount", "sh", "-c",
               f"mount -t tmpfs -o size=4k tmpfs '{mnt}' || exit 99; \"$@\"; rc=$?; cp '{mnt}/p.coz' '{d}/saved.coz'; exit $rc",
               "sh"]
    nat, nat_files = native(["manyexp"], work=60)
    prof = coz_run(["manyexp"], d, work=60, profile=os.path.join(mnt, "p.coz"), wrapper=wrapper, exp="5ms")
    if prof.status == 99:
        return SKIP, "cannot mount a tmpfs"
    if prof.timed_out or prof.status < 0 or crash_line(prof.err):
        return cli_verdict(prof)
    diffs = program_diffs(nat, nat_files, prof, files_of(d, {"saved.coz"}))
    if diffs:
        return CHANGED, "; ".join(diffs[:3])
    data = read_profile(os.path.join(d, "saved.coz"))
    cut = profile_problems(data, final=False)
    if cut:
        return LOST, f"{len(data or b'')} bytes: " + "; ".join(cut)
    reported = reported_count(prof)
    told = [l for l in coz_lines(prof) if FAILURE_RE.search(l) and "warning: no line" not in l]
    have = count_experiments(data)
    if reported is not None and have >= reported and not told:
        return OK, f"all {have} experiments fit ({len(data)} bytes: too few to fill the disk)"
    if told:
        return CLEAR, f"{have} experiments kept whole; said: {short(told[0], 100)}"
    return LOST, f"{have} experiments in the profile, coz said nothing (reported {reported})"


def add_option_cases():
    cat = "run: options"
    durations = ["", "-1ms", "0", "abc", "nan", "1e400ms", "99999999999999999999ms", "5", "1.5parsecs"]
    for opt in ("--sampling-period", "--experiment-length", "--arrival-speedup"):
        for v in durations:
            case(f"run: {opt} {v!r}", cat, option_case([opt, v]))
    for v in ["", "-1", "nan", "abc", "1e999", "99999999999999999999", "50.5"]:
        case(f"run: --fixed-speedup {v!r}", cat, option_case(["--fixed-speedup", v]))
    for v in ["", "-0.1", "1.5", "nan", "inf"]:
        case(f"run: --zero-speedup-share {v!r}", cat, option_case(["--zero-speedup-share", v]))
    for v in ["", "0", "-1", "abc", "99999999999999999999", "1e3"]:
        case(f"run: --runs {v!r}", cat, option_case(["--runs", v]))
    for v in ["", "0", "-1", "nan", "inf", "1,,2", "1e308", ",".join(["2"] * 20)]:
        case(f"run: --load {short(v, 20)!r}", cat, option_case(["--load", v]))
    for v in ["", "prog.c", "prog.c:", "prog.c:-1", "prog.c:99999999999999999999", ":5", "nofile.c:3"]:
        case(f"run: --fixed-line {v!r}", cat, option_case(["--fixed-line", v]))
    for v in ["", "prog.c:0", "prog.c:9223372036854775807"]:
        case(f"run: --progress {v!r}", cat, option_case(["--progress", v]))
    case("run: --sampled-progress ''", cat, option_case(["--sampled-progress", ""]))
    case("run: five --progress points", cat, five_progress)
    case("run: -b ''", cat, option_case(["-b", ""]))
    case("run: -s ''", cat, option_case(["-s", ""]))
    case("run: -b matching nothing", cat, option_case(["-b", "/nowhere/%"]))
    case("run: unknown option", cat, option_case(["--frobnicate"]))
    case("run: option without its value", cat, option_case(["--fixed-speedup"], dashes=False))
    case("run: no --- before the program", cat, option_case([], dashes=False))
    case("run: --- and no program", cat, lambda: cli_verdict(run([COZ, "run", "---"], fresh("nop"))))
    case("run: -o given twice", cat, option_case(["-o", "first.coz"]))


def option_case(opts, dashes=True):
    def f():
        d = fresh("opt")
        argv = [COZ, "run", *opts, "-o", "p.coz"] + (["---"] if dashes else []) + [PROG, "ok"]
        r = run(argv, d, env=base_env(REL_WORK=4))
        ran = b"done" in r.out
        if r.timed_out or r.status < 0 or crash_line(r.err) or not ran:
            return cli_verdict(r)
        nat, nat_files = native(["ok"], work=4)
        times = r.out.count(nat.out) if nat.out else 1
        if times > 1 and r.out == nat.out * times and strip_coz(r.err) == strip_coz(nat.err) * times:
            nat = Result(nat.status, r.out, r.err, False, 0)  # a sweep: one run per level
        diffs = program_diffs(nat, nat_files, r, files_of(d, {"p.coz", "first.coz"}))
        if diffs:
            return CHANGED, "; ".join(diffs[:3])
        data = read_profile(os.path.join(d, "p.coz")) or read_profile(os.path.join(d, "first.coz"))
        problems = profile_problems(data, reported=reported_count(r)) if data is not None else []
        if problems:
            return LOST, "; ".join(problems)
        warn = [l for l in coz_lines(r) if "warning" in l or "error" in l]
        return OK, "accepted; program ran as natively" + (f" ({times} runs)" if times > 1 else "") + (f"; {short(warn[0], 80)}" if warn else "")
    return f


def five_progress():
    lines = [n for n, l in enumerate(open(os.path.join(HERE, "programs", "prog.c")), 1)
             if "spin(work()" in l][:5]
    opts = sum((["--progress", f"prog.c:{n}"] for n in lines), [])
    d = fresh("five")
    r = run([COZ, "run", *opts, "-o", "p.coz", "---", PROG, "ok"], d, env=base_env(REL_WORK=4))
    ran = b"done" in r.out or os.path.exists(os.path.join(d, "out.txt"))
    v = cli_verdict(r)
    said = [l for l in coz_lines(r) if "error" in l and "progress" in l]
    if ran and said:
        return CLEAR, "the program ran unprofiled: " + short(said[0], 100)
    return v


# ---------------------------------------------------------------- report / plot inputs

SRC = "".join(f"int line_{i} = {i}; /* source line {i} */\n" for i in range(1, 41))


def synth(sel="a.c:10", point="done", extra=(), speedups=(0, 0.1, 0.2, 0.5, 1.0), bad=None):
    """A small valid profile; bad=(field, values) adds one experiment per bad value."""
    out = ["startup\ttime=1\tformat=1\tpid=1\tsampling-period=1000000\tprogram=x"]

    def exp(s, fields=None):
        f = {"selected": sel, "speedup": f"{s:.2f}", "duration": str(int(1e9 * (1 - s / 2))),
             "selected-samples": "100"}
        p = {"name": point, "delta": "1000"}
        lat = {"name": "req", "arrivals": "500", "departures": "500", "difference": "2", "in-flight-ns": "1000"}
        for k, v in (fields or {}).items():
            for d in (f, p, lat):
                if k in d:
                    d[k] = v
        out.append("experiment\t" + "\t".join(f"{k}={v}" for k, v in f.items()))
        out.append("throughput-point\t" + "\t".join(f"{k}={v}" for k, v in p.items()))
        out.append("latency-point\t" + "\t".join(f"{k}={v}" for k, v in lat.items()))
    for s in speedups:
        exp(s)
    if bad:
        field, values = bad
        for i, v in enumerate(values):
            exp(speedups[i % len(speedups)], {field: v})
    out += list(extra) or ["runtime\ttime=5000000000", f"samples\tlocation={sel}\tcount=5000"]
    return ("\n".join(out) + "\n").encode()


BAD_NUMBERS = ["nan", "NaN", "inf", "-inf", "1e308", "1e400", "-1", "-1e308", "18446744073709551616",
               "99999999999999999999999999", "0x10", "", "1e-400", "4.9e-324", " 5", "5abc"]


def report_plot_inputs():
    """name -> setup(d) returning (path argument, options, checks for plot)."""
    inputs = []

    def add(name, setup, **kw):
        inputs.append((name, setup, kw))

    def file(name, data):
        def setup(d):
            with open(os.path.join(d, "a.c"), "w") as f:
                f.write(SRC)
            path = os.path.join(d, name)
            with open(path, "wb") as f:
                f.write(data() if callable(data) else data)
            return name
        return setup

    add("empty file", file("e.coz", b""))
    add("/dev/null", lambda d: "/dev/null")
    add("/dev/zero (1 GB memory limit)", lambda d: "/dev/zero", limits=[(resource.RLIMIT_AS, 1 << 30)])
    add("a directory", lambda d: ".")
    add("a FIFO fed a profile", fifo_input)
    add("1 MB binary garbage", file("g.coz", lambda: random.Random(5).randbytes(1 << 20)))
    add("one 64 MB line (1 GB memory limit)", file("l.coz", lambda: b"experiment\tselected=" + b"a" * (64 << 20)),
        limits=[(resource.RLIMIT_AS, 1 << 30)])
    add("NUL bytes in records", file("n.coz", synth(sel="a.c:10\0evil", point="do\0ne")))
    for n in ["9223372036854775803", "9223372036854775807", "99999999999999999999", "-5", "0", "2147483647",
              "4294967295",
              "18446744073709551615", "-9223372036854775808"]:
        add(f"line number {n}", file("ln.coz", synth(sel=f"a.c:{n}")))
    for field in ["speedup", "duration", "selected-samples", "delta", "arrivals", "difference", "in-flight-ns"]:
        add(f"bad numbers in {field}", file("bad.coz", synth(bad=(field, BAD_NUMBERS))))
    add("bad numbers in runtime/samples/startup", file("bad.coz", synth(extra=[
        "runtime\ttime=nan", "runtime\ttime=-1", "runtime\ttime=1e400",
        "samples\tlocation=a.c:10\tcount=nan", "samples\tlocation=a.c:10\tcount=-99999999999999999999",
        "startup\ttime=inf\tsampling-period=0", "startup\tsampling-period=-1"])))
    add("bad numbers in load fields", file("bad.coz", synth(bad=("speedup", ["0.00\tload=nan\tload-target=inf"
                                                                            "\tarrival-speedup=-1"] * 3))))
    add("duplicated keys", file("dup.coz", synth().replace(b"speedup=0.10", b"speedup=0.10\tspeedup=0.90\tspeedup=nan")))
    add("missing keys", file("miss.coz", b"startup\n" + b"experiment\tselected=a.c:10\n" * 3 +
                             b"experiment\tspeedup=0.5\tduration=1\nthroughput-point\tdelta=5\nthroughput-point\tname=x\n"
                             b"latency-point\tname=r\nsamples\tcount=3\nsamples\tlocation=a.c:1\n"))
    add("truncated last line", file("t.coz", synth()[:-25]))
    add("CRLF lines", file("crlf.coz", synth().replace(b"\n", b"\r\n")))
    add("Coz JSON-lines with wrong types", file("j.coz", b"\n".join([
        b'{"type":"startup","time":"soon"}',
        b'{"type":"experiment","selected":123,"speedup":"abc","duration":[1],"selected-samples":null}',
        b'{"type":"experiment","selected":{"a":1},"speedup":0.5,"duration":{"x":[]},"selected-samples":true}',
        b'{"type":5}', b'{"type":null}', b'[]', b'"str"', b'{"type":"throughput-point","name":["x"],"delta":1e999}',
        b'{"type":"experiment","selected":"a.c:10","speedup":1e999,"duration":-1,"selected-samples":-5}',
        b'{"type":"throughput-point","name":"done","delta":"\\ud800"}', b'{"type":"samples","location":"a.c:\\u0000","count":1}',
        b'{"type":"experiment"', b'{"a":'])))
    add("JSON nested 100000 deep", file("deep.coz", b'{"type":"experiment","selected":' + b"[" * 100000 +
                                        b"]" * 100000 + b"}\n" + b'{"x":' * 100000 + b"1" + b"}" * 100000 + b"\n"))
    add("unicode names and invalid UTF-8", file("u.coz", synth(sel="ünïcødé_文件\u2028\u2029.c:10", point="点\u202e")
                                                 + synth(sel="badXX.c:3").replace(b"badXX", b"bad\xff\xfe")))
    xss = [b"<script>alert(1)</script>", b"</script><script>alert(2)</script>", b"<img src=x onerror=alert(3)>",
           b"\"><svg onload=alert(4)>", b"<!--<script>alert(5)//", b"</SCRIPT ><script>alert(6)</script>",
           b"{{constructor.constructor('alert(7)')()}}", b"javascript:alert(8)"]
    html_profile = b"".join(synth(sel=x.decode() + ".c:3", point=x.decode()) for x in xss).replace(
        b"program=x", b"program=<script>alert(9)</script>")
    html_profile += b"warning\tmessage=<script>alert(10)</script>\n"
    add("HTML and script injection in names", file("x.coz", html_profile),
        forbid=[b"<script>alert", b"<img src=x", b"<svg onload", b"<!--<script", b"alert(6)</script>"])
    add("2,000 lines x 10 experiments", file("big.coz", lambda: b"".join(
        synth(sel=f"f{i % 50}.c:{i}", point="done") for i in range(2000))))
    return inputs


def fifo_input(d):
    path = os.path.join(d, "p.fifo")
    os.mkfifo(path)

    stop = FIFO_STOP.setdefault(path, threading.Event())

    def feed():  # a writer for each reader (report reads it as text, then as --json), until released
        while not stop.is_set():
            try:
                with open(path, "wb") as f:
                    if not stop.is_set():
                        f.write(synth())
            except OSError:
                pass
            time.sleep(0.2)
    threading.Thread(target=feed, daemon=True).start()
    return "p.fifo"


FIFO_STOP = {}


def release_fifos(d):
    for name in os.listdir(d):
        path = os.path.join(d, name)
        if stat.S_ISFIFO(os.lstat(path).st_mode):
            if path in FIFO_STOP:
                FIFO_STOP[path].set()
            try:
                os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
            except OSError:
                pass


def add_report_plot_cases():
    for name, setup, kw in report_plot_inputs():
        case(f"report: {name}", "report: input", report_case(setup, **kw))
        case(f"plot: {name}", "plot: input", plot_case(setup, **kw))


def report_case(setup, limits=None, forbid=()):
    def f():
        d = fresh("report")
        arg = setup(d)
        try:
            v = cli_verdict(run([COZ, "report", arg], d, limits=limits))
            if v[0] in (CRASH, HANG):
                return v
            j = cli_verdict(run([COZ, "report", "--json", arg], d, limits=limits))
            return (j[0], "--json: " + j[1]) if j[0] in (CRASH, HANG) else v
        finally:
            release_fifos(d)
    return f


def plot_case(setup, limits=None, forbid=(), options=(), secret=None, inputs_unchanged=True, env=None):
    def f():
        d = fresh("plot")
        arg = setup(d)
        before = {n: read_profile(os.path.join(d, n)) for n in os.listdir(d)
                  if os.path.isfile(os.path.join(d, n)) and not os.path.islink(os.path.join(d, n))}
        try:
            r = run([COZ, "plot", "-o", "page.html", *options, arg], d, limits=limits, env=env)
        finally:
            release_fifos(d)

        def check():
            for n, data in before.items():
                if read_profile(os.path.join(d, n)) != data:
                    return LOST, f"{n} was overwritten"
            page = read_profile(os.path.join(d, "page.html"))
            if page is None:
                return LOST, "exit 0 but no page"
            for bad in forbid:
                if bad.lower() in page.lower():
                    i = page.lower().find(bad.lower())
                    return CHANGED, f"the page holds {short(page[i:i + 50], 50)!r}"
            for s in secret or ():
                if s in page:
                    return CHANGED, f"the page embeds the secret {short(s, 40)!r}"
            return None
        return cli_verdict(r, check)
    return f


def add_source_cases():
    """Hostile profiles naming files the page must not embed."""
    cat = "plot: sources"
    marker = b"SECRET-KEY-LINE-do-not-leak"

    def named(sel, prep=None, options=(), secret=(marker,), env=None):
        def setup(d):
            if prep:
                prep(d)
            with open(os.path.join(d, "s.coz"), "wb") as f:
                f.write(synth(sel=sel))
            return "s.coz"
        return plot_case(setup, options=options, secret=secret, env=env)

    def ssh(d):
        os.makedirs(os.path.join(d, ".ssh"))
        with open(os.path.join(d, ".ssh", "id_rsa"), "wb") as f:
            f.write(b"-----BEGIN OPENSSH PRIVATE KEY-----\n" + marker + b"\n" + marker + b"2\n")

    def outside(d):
        with open(os.path.join(os.path.dirname(d), "secret.c"), "wb") as f:
            f.write(marker + b"\n" + marker + b"\n" + marker + b"\n")
        os.symlink(os.path.join(os.path.dirname(d), "secret.c"), os.path.join(d, "inside.c"))

    def envfile(d):
        with open(os.path.join(d, ".env"), "wb") as f:
            f.write(b"API_KEY=" + marker + b"\n" * 3)

    def fifo_source(d):
        os.mkfifo(os.path.join(d, "blocked.c"))

    def big_source(d):
        with open(os.path.join(d, "huge.c"), "wb") as f:
            f.write((b"x" * 200 + b"\n") * 10 + b"y" * (64 << 20) + b"\n")

    shadow = []
    try:
        with open("/etc/shadow", "rb") as f:
            shadow = [l for l in f.read().split(b"\n") if l.count(b":") > 3][:1]
    except OSError:
        pass
    up = "../" * 30
    case("plot: profile names .ssh/id_rsa:2 (cwd as $HOME)", cat, named(".ssh/id_rsa:2", ssh))
    case("plot: profile names .env:1", cat, named(".env:1", envfile))
    case("plot: profile names ../secret.c:2", cat, named("../secret.c:2", outside))
    case("plot: profile names a symlink out of the root", cat, named("inside.c:2", outside))
    case("plot: profile names ../../etc/passwd:1", cat, named(up + "etc/passwd:1", secret=[b"root:x:0:0"]))
    case("plot: profile names /etc/passwd:1, --source-root /", cat,
         named("/etc/passwd:1", options=["--source-root", "/"], secret=[b"root:x:0:0"]))
    case("plot: profile names /etc/shadow:1, --source-root /", cat,
         named("/etc/shadow:1", options=["--source-root", "/"], secret=shadow) if shadow
         else lambda: (SKIP, "/etc/shadow unreadable"))
    case("plot: profile names /proc/self/environ:1, --source-root /", cat,
         named("/proc/self/environ:1", options=["--source-root", "/"], secret=[b"do-not-leak-environ"],
               env=base_env(REL_SECRET="do-not-leak-environ")))
    case("plot: profile names /dev/zero:1, --source-root /", cat,
         named("/dev/zero:1", options=["--source-root", "/"], secret=()))
    case("plot: profile names a FIFO as source", cat, named("blocked.c:3", fifo_source, secret=()))
    case("plot: profile names a 64 MB one-line source", cat, named("huge.c:11", big_source, secret=()))


def add_overwrite_cases():
    cat = "plot: output"

    def own_input(name, options):
        def setup(d):
            with open(os.path.join(d, name), "wb") as f:
                f.write(synth())
            return name

        def f():
            d = fresh("own")
            arg = setup(d)
            before = read_profile(os.path.join(d, name))
            r = run([COZ, "plot", *options(d), arg], d)
            after = read_profile(os.path.join(d, name))
            if after != before and not (r.timed_out or r.status < 0):
                return LOST, f"the input {name} was overwritten by the page ({len(after or b'')} bytes)"
            return cli_verdict(r)
        return f

    case("plot: default output is its own input (same.html)", cat, own_input("same.html", lambda d: []))
    case("plot: -o its own input", cat, own_input("p.coz", lambda d: ["-o", "p.coz"]))
    case("plot: -o a symlink to its input", cat,
         own_input("p.coz", lambda d: (os.symlink("p.coz", os.path.join(d, "l.html")), ["-o", "l.html"])[1]))
    case("plot: -o /dev/full", cat, own_input("p.coz", lambda d: ["-o", "/dev/full"]))
    case("plot: -o a directory", cat, own_input("p.coz", lambda d: ["-o", d]))
    case("plot: -o ''", cat, own_input("p.coz", lambda d: ["-o", ""]))


def add_cli_option_cases():
    def opt(cmd, *args):
        def f():
            d = fresh("opts")
            with open(os.path.join(d, "p.coz"), "wb") as out:
                out.write(synth())
            argv = [COZ, cmd, *args, "p.coz"] if cmd == "report" else [COZ, cmd, "-o", "x.html", *args, "p.coz"]
            return cli_verdict(run(argv, d))
        return f
    for args in [("--min-points", "-1"), ("--min-points", "abc"), ("--min-points", "99999999999999999999"),
                 ("--bootstrap", "-1"), ("--bootstrap", "99999999999"), ("--bootstrap", "1e3"),
                 ("--confidence", "0"), ("--confidence", "1"), ("--confidence", "nan"), ("--confidence", "1.5"),
                 ("--fdr", "nan"), ("--fdr", "2"), ("--seed", "-1"), ("--seed", "99999999999999999999999"),
                 ("--sort", ""), ("--point", ""), ("--load", "abc"), ("--load", "nan"), ("--json", "--csv"),
                 ("--frobnicate",), ("--min-points",)]:
        case(f"report: option {' '.join(repr(a) if a == '' else a for a in args)}", "report: options", opt("report", *args))
    for args in [("--min-points", "-1"), ("--bootstrap", "99999999999"), ("--confidence", "nan"),
                 ("--source-root", "/nonexistent"), ("--source-root", "/etc/passwd"), ("--source-root", ""),
                 ("--frobnicate",), ("--seed",)]:
        case(f"plot: option {' '.join(repr(a) if a == '' else a for a in args)}", "plot: options", opt("plot", *args))


# ---------------------------------------------------------------- plot --serve

def start_server(d, limits=None):
    with open(os.path.join(d, "p.coz"), "wb") as f:
        f.write(synth())
    p = subprocess.Popen([COZ, "plot", "--serve", "p.coz"], cwd=d, env=base_env(), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True,
                         preexec_fn=limits_preexec(limits))
    ready, _, _ = select.select([p.stdout], [], [], 15)
    line = p.stdout.readline() if ready else b""
    m = re.search(rb"http://127\.0\.0\.1:(\d+)/", line)
    if not m:
        kill_group(p.pid)
        p.wait()
        raise RuntimeError(f"no URL from coz plot --serve: {line!r} {p.stderr.read()!r}")
    return p, int(m.group(1))


def stop_server(p):
    kill_group(p.pid)
    p.wait()
    return p.stderr.read()


def http(port, raw, timeout=5.0):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    except OSError as e:
        return None, str(e).encode()
    data = b""
    try:
        s.sendall(raw)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            c = s.recv(65536)
            if not c:
                break
            data += c
    except OSError:
        pass
    finally:
        s.close()
    m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    return (int(m.group(1)) if m else None), data


def get(port, path="/", host=None, header="Host"):
    host = host or f"127.0.0.1:{port}"
    return http(port, f"GET {path} HTTP/1.1\r\n{header}: {host}\r\nConnection: close\r\n\r\n".encode())


def serve_case(fn, limits=None):
    def f():
        d = fresh("serve")
        p, port = start_server(d, limits)
        try:
            status, _ = get(port)
            if status != 200:
                return CRASH, f"the page itself was not served ({status})"
            verdict = fn(p, port)
            if verdict[0] == OK and p.poll() is not None:
                return CRASH, f"the server exited ({describe_status(p.returncode)})"
            return verdict
        finally:
            err = stop_server(p)
            c = crash_line(err)
            if c:
                return CRASH, c
    return f


def host_check(host, header="Host"):
    def fn(p, port):
        status, body = get(port, host=host, header=header)
        if status == 200:
            return CHANGED, f"served the page to {header}: {host}"
        if status is None:
            return CRASH, f"no HTTP answer to {header}: {host}" if p.poll() is None else "server exited"
        return OK, f"{header}: {host} answered {status}"
    return fn


def path_check(path):
    def fn(p, port):
        status, body = get(port, path)
        if b"root:x:0:0" in body or b"startup\ttime=" in body:
            return CHANGED, f"GET {path} served a file: {status}"
        return OK, f"GET {path} answered {status}"
    return fn


def slowloris(p, port):
    socks = []
    for _ in range(30):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        socks.append(s)
    try:
        start = time.monotonic()
        status, _ = http(port, f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode(), 8)
        took = time.monotonic() - start
        for s in socks:
            try:
                s.sendall(b"a")
            except OSError:
                pass
        if status != 200:
            return (HANG, f"no page while 30 connections trickle headers ({status})") if p.poll() is None \
                else (CRASH, f"server exited ({describe_status(p.returncode)})")
        return OK, f"page served in {took:.2f} s beside 30 slow connections"
    finally:
        for s in socks:
            s.close()


def many_connections(p, port):
    socks = []
    for _ in range(300):
        try:
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=2))
        except OSError:
            break
    time.sleep(1)
    for s in socks:
        s.close()
    time.sleep(0.5)
    if p.poll() is not None:
        return CRASH, f"the server exited after {len(socks)} connections ({describe_status(p.returncode)}): " \
                      f"{short(p.stderr.read(), 80)}"
    status, _ = get(port)
    if status != 200:
        return HANG, f"no page after {len(socks)} connections under RLIMIT_NOFILE 64 ({status})"
    return OK, f"{len(socks)} connections under RLIMIT_NOFILE 64, page still served"


def huge_request(p, port):
    http(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Big: " + b"a" * (8 << 20) + b"\r\n\r\n", 5)
    http(port, random.Random(1).randbytes(100000), 3)
    http(port, b"GET /" + b"%" * 100000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 3)
    status, _ = get(port)
    if p.poll() is not None:
        return CRASH, f"server exited ({describe_status(p.returncode)})"
    return (OK, "survived an 8 MB header, binary garbage and a 100 KB path") if status == 200 else \
        (HANG, f"no page afterwards ({status})")


def add_serve_cases():
    cat = "plot: serve"
    case("serve: Host: evil.com", cat, serve_case(host_check("evil.com")))
    case("serve: HOST: evil.com (upper case header)", cat, serve_case(host_check("evil.com", "HOST")))
    case("serve: host: EVIL.COM:80", cat, serve_case(host_check("EVIL.COM:80", "host")))
    case("serve: Host: 127.0.0.1.evil.com", cat, serve_case(host_check("127.0.0.1.evil.com")))
    case("serve: GET /../../../../etc/passwd and the profile", cat,
         serve_case(lambda p, port: [v for v in (path_check("/../../../../etc/passwd")(p, port),
                                                 path_check("/%2e%2e/%2e%2e/%2e%2e/etc/passwd")(p, port),
                                                 path_check("/p.coz")(p, port)) if v[0] != OK][:1] or
                    (OK, "no file served but the page")))
    case("serve: slowloris", cat, serve_case(slowloris))
    case("serve: 300 connections under RLIMIT_NOFILE 64 (EMFILE)", cat,
         serve_case(many_connections, limits=[(resource.RLIMIT_NOFILE, 64)]))
    case("serve: 8 MB header, garbage, long path", cat, serve_case(huge_request))


# ---------------------------------------------------------------- runtime (issue 24)
# The runtime's own cases: the program under a user's preload library, masks across exec and
# posix_spawn, descriptor and address-space limits, quick_exit.

def add_runtime_cases():
    cat = "run: runtime"
    case("run: a user's LD_PRELOAD wraps pthread_create", cat, user_preload_case)
    case("run: block every signal, exec (a failing one first)", cat, same_as_native(["rt-mask-exec"]))
    case("run: block every signal, posix_spawn", cat, same_as_native(["rt-mask-spawn"]))
    case("run: RLIMIT_NOFILE 16 inherited, 12 files", cat,
         same_as_native(["rt-nofile"], limits=[(resource.RLIMIT_NOFILE, 16)]))
    case("run: RLIMIT_NOFILE 16 hard and soft, 12 files", cat,
         told_or_same(["rt-nofile"], [(resource.RLIMIT_NOFILE, 16, 16)], r"descriptor"))
    case("run: RLIMIT_AS 256 MB, a 200 MB allocation", cat,
         told_or_same(["rt-alloc", "200"], [(resource.RLIMIT_AS, 256 << 20, None)], r"address.space"))
    case("run: quick_exit with an at_quick_exit handler", cat, same_as_native(["rt-quick-exit"]))


def exact_limits(limits):
    """(resource, soft, hard or None to keep) for each limit; coz itself runs under them too."""
    def pre():
        limits_preexec(())()
        for which, soft, hard in limits:
            resource.setrlimit(which, (soft, resource.getrlimit(which)[1] if hard is None else hard))
    return pre


def run_under(argv, cwd, env, preexec):
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True, preexec_fn=preexec)
    start = time.monotonic()
    try:
        out, err = p.communicate(timeout=TIMEOUT)
        timed_out = False
    except subprocess.TimeoutExpired:
        kill_group(p.pid)
        out, err = p.communicate()
        timed_out = True
    kill_group(p.pid)
    return Result(p.returncode, out, err, timed_out, time.monotonic() - start)


def told_or_same(args, limits, told_re):
    """As same_as_native, under exact limits; a program changed by a limit the profiler cannot
    avoid is a clear error when coz said so before running it (a `coz:` line matching told_re)."""
    def f():
        nd, d = fresh("native_" + args[0]), fresh("coz_" + args[0])
        nat = run_under([PROG, *args], nd, base_env(REL_WORK=WORK), exact_limits(limits))
        prof = run_under([COZ, "run", "--experiment-length", EXP, "-o", "p.coz", "---", PROG, *args], d,
                         base_env(REL_WORK=WORK), exact_limits(limits))
        v = judge_run(nat, files_of(nd, set()), prof, files_of(d, {"p.coz"}), read_profile(os.path.join(d, "p.coz")))
        said = [l for l in coz_lines(prof) if re.search(told_re, l, re.I)]
        if v[0] == CHANGED and said:
            return CLEAR, f"{v[1]}; said: {short(said[0], 110)}"
        return v
    return f


def user_preload_case():
    lib = os.path.join(WORKDIR, "libcount_create.so")
    if not os.path.exists(lib):
        subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-o", lib,
                        os.path.join(ROOT, "tests", "programs", "preload_counter.c"), "-ldl"], check=True)
    env = base_env(REL_WORK=WORK, LD_PRELOAD=lib)
    nd, d = fresh("native_preload"), fresh("coz_preload")
    nat = run_under([PROG, "rt-threads"], nd, env, limits_preexec(()))
    prof = run_under([COZ, "run", "--experiment-length", EXP, "-o", "p.coz", "---", PROG, "rt-threads"], d, env,
                     limits_preexec(()))
    return judge_run(nat, files_of(nd, set()), prof, files_of(d, {"p.coz"}), read_profile(os.path.join(d, "p.coz")))


# ---------------------------------------------------------------- coz run's CLI (issue 24)
# The CLI's own cases: signals the program sends to its own process group, --until-confident
# that can never finish, a background job on a `stty tostop` terminal, the runtime installed
# under a path the loader splits, the output directory removed mid-run, a hostile profile's
# names on the terminal.

def add_cli_cases():
    cat = "run: cli"
    case("run: program sends SIGUSR1 to its own group", cat, same_as_native(["cli-group-usr1"]))
    case("run: program sends 16 survivable signals to its group (USR1..RTMAX, TSTP, TTIN, TTOU)", cat,
         same_as_native(["cli-group-signals"]))
    case("run: program sends SIGTERM to its own group, handles it", cat, same_as_native(["cli-group-term"]))
    case("run: --until-confident, no progress point", cat, until_confident_no_progress)
    case("run: background job on a stty tostop terminal", cat, background_tostop_case)
    for name in ("with space", "with:colon", "with$LIB"):
        case(f"run: runtime installed under a prefix {name}", cat, odd_prefix_case(name))
    case("run: the output directory removed mid-run", cat, output_dir_removed)
    case("report: names with terminal escape sequences (text, CSV, warnings; plot's stderr)", "report: cli",
         hostile_names_case)


def until_confident_no_progress():
    d = fresh("confident")
    r = coz_run(["cli-no-progress"], d, opts=["--until-confident"], work=4)
    runs = r.out.count(b"done without progress")
    if r.timed_out:
        return HANG, f"still rerunning after {TIMEOUT:.0f} s ({runs} runs)"
    if r.status < 0 or crash_line(r.err):
        return cli_verdict(r)
    said = [l for l in coz_lines(r) if "progress point" in l and "until-confident" in l]
    if runs == 1 and said:
        return CLEAR, f"stopped after one run: {short(said[0], 110)}"
    return HANG, f"{runs} runs, {len(coz_lines(r))} coz lines; nothing said of --until-confident"


# Runs argv[2:] as a background job (its own process group, not the terminal's foreground one)
# of a session whose terminal is argv[1], with `stty tostop`; exits 99 if the job is stopped.
BACKGROUND_JOB = r"""
import fcntl, os, signal, sys, termios
if os.getsid(0) != os.getpid():
    os.setsid()
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.ioctl(fd, termios.TIOCSCTTY, 0)
attrs = termios.tcgetattr(fd)
attrs[3] |= termios.TOSTOP
termios.tcsetattr(fd, termios.TCSANOW, attrs)
pid = os.fork()
if pid == 0:
    os.setpgid(0, 0)
    for i in (0, 1, 2):
        os.dup2(fd, i)
    os.execv(sys.argv[2], sys.argv[2:])
_, status = os.waitpid(pid, os.WUNTRACED)
if os.WIFSTOPPED(status):
    print("stopped by", signal.Signals(os.WSTOPSIG(status)).name, flush=True)
    os.killpg(pid, signal.SIGKILL)
    sys.exit(99)
sys.exit(os.waitstatus_to_exitcode(status) & 255)
"""


def in_background(argv, d):
    import fcntl, pty, struct, termios
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    name = os.ttyname(slave)
    seen = []

    def drain():
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            seen.append(chunk)
    threading.Thread(target=drain, daemon=True).start()
    r = run([sys.executable, "-c", BACKGROUND_JOB, name, *argv], d, env=base_env(REL_WORK=WORK, TERM="xterm"))
    os.close(slave)
    time.sleep(0.2)
    os.close(master)
    return r, b"".join(seen)


def background_tostop_case():
    nd, d = fresh("native_tostop"), fresh("coz_tostop")
    nat, _ = in_background([PROG, "cli-silent"], nd)
    if nat.status != 0:
        return SKIP, f"the program itself does not finish as a background job: {short(nat.out)}"
    prof, terminal = in_background([COZ, "run", "--experiment-length", EXP, "-o", "p.coz", "---", PROG,
                                    "cli-silent"], d)
    if prof.timed_out:
        return HANG, f"coz run took over {TIMEOUT:.0f} s"
    if prof.status == 99:
        return HANG, f"the job was {short(prof.out)} (natively it finishes)"
    if b"\x1b[1;23r" in terminal:
        return CHANGED, "drew the status line from the background"
    data = read_profile(os.path.join(d, "p.coz"))
    problems = profile_problems(data, min_experiments=2)
    if problems:
        return LOST, "; ".join(problems)
    diffs = [f for f in ("out.txt",) if files_of(d, {"p.coz"}).get(f) != files_of(nd, set()).get(f)]
    if prof.status != 0 or diffs:
        return CHANGED, f"{describe_status(prof.status)}; files differ: {diffs}"
    return OK, f"finished in the background; {count_experiments(data)} experiments"


def odd_prefix_case(name):
    def f():
        d = fresh("prefix")
        prefix = os.path.join(d, name)
        os.makedirs(os.path.join(prefix, "bin"))
        os.makedirs(os.path.join(prefix, "lib"))
        shutil.copy(COZ, os.path.join(prefix, "bin", "coz"))
        runtime = os.path.join(os.path.dirname(os.path.realpath(COZ)), "..", "lib", "libcoz.so")
        if not os.path.exists(runtime):
            return SKIP, f"no runtime at {runtime}"
        shutil.copy(runtime, os.path.join(prefix, "lib", "libcoz.so"))
        nat, nat_files = native(["ok"])
        work = fresh("prefix_run")
        argv = [os.path.join(prefix, "bin", "coz"), "run", "--experiment-length", EXP, "-o", "p.coz", "---",
                PROG, "ok"]
        prof = run(argv, work, env=base_env(REL_WORK=WORK))
        data = read_profile(os.path.join(work, "p.coz"))
        if prof.status == 1 and b"done" not in prof.out and not crash_line(prof.err):
            return refused(prof)  # refused before running, with a message
        return judge_run(nat, nat_files, prof, files_of(work, {"p.coz"}), data)
    return f
def output_dir_removed():
    # The program removes the directory itself, halfway through its work: mid-run on a CPU of
    # any speed. Natively it removes a directory of the same name, empty.
    nd, d = fresh("removed_native"), fresh("removed")
    os.mkdir(os.path.join(nd, "out"))
    os.mkdir(os.path.join(d, "out"))
    nat = run([PROG, "cli-rm-out=out"], nd, env=base_env(REL_WORK=48))
    nat_files = files_of(nd, set())
    prof = coz_run(["cli-rm-out=out"], d, work=48, profile="out/p.coz")
    if prof.timed_out or prof.status < 0 or crash_line(prof.err):
        return cli_verdict(prof)
    files = {k: v for k, v in files_of(d, set()).items() if ".recovered" not in k}
    diffs = program_diffs(nat, nat_files, prof, files)
    named = [w.strip(";,()") for l in coz_lines(prof) for w in l.split()]
    saved = [w for w in named if w.startswith("/") and os.path.isfile(w)]
    if not saved:
        return LOST, "no copy named: " + short(" | ".join(coz_lines(prof)), 150)
    data = read_profile(saved[0])
    problems = profile_problems(data, min_experiments=2, reported=reported_count(prof))
    for w in saved:
        if w.startswith(tempfile.gettempdir()) and not w.startswith(WORKDIR):
            os.unlink(w)
    if problems:
        return LOST, f"{saved[0]}: " + "; ".join(problems)
    if diffs:
        return CHANGED, "; ".join(diffs[:3])
    return OK, f"said so and saved {count_experiments(data)} experiments as {os.path.basename(saved[0])}"
def terminal_control(text):
    """The first control character (C0 but line feed, DEL, C1) or invalid UTF-8 byte in text, with
    its offset in characters, or None."""
    chars = text.decode("utf-8", "surrogateescape")
    for i, c in enumerate(chars):
        o = ord(c)
        if (o < 0x20 and c != "\n") or 0x7f <= o < 0xa0 or 0xdc80 <= o <= 0xdcff:
            return i, chars
    return None


def hostile_names_case():
    d = fresh("hostile")
    title = b"\x1b]0;pwned\x07"
    sel = (title + b"\x1b[2J\x9b31m\xc2\x9b1mevil.c:12").decode("latin-1")
    data = synth(sel=sel, point="\x1b[31mred\x1b[0m").decode("latin-1").encode("latin-1")
    data += b"bogus\x1b]0;title\x07record\n"
    with open(os.path.join(d, "h.coz"), "wb") as f:
        f.write(data)
    leaks = []
    for argv in (["report", "h.coz"], ["report", "--csv", "h.coz"], ["plot", "-o", "h.html", "--no-source", "h.coz"]):
        r = run([COZ, *argv], d)
        if r.timed_out or r.status < 0 or crash_line(r.err):
            return cli_verdict(r)
        for where, text in (("stdout", r.out), ("stderr", r.err)):
            found = terminal_control(text)
            if found:
                at, chars = found
                leaks.append(f"coz {' '.join(argv[:-1])} {where}: {chars[max(0, at - 20):at + 20]!r}")
    if leaks:
        return CHANGED, "control characters from the profile reach the terminal: " + "; ".join(leaks[:3])
    return OK, "every name and message escaped (text, CSV, stderr)"
# ---------------------------------------------------------------- end of the CLI cases (issue 24)


# ---------------------------------------------------------------- main

def build_fixtures():
    global PROG
    src = os.path.join(HERE, "programs", "prog.c")
    common = ["-O1", "-I", os.path.join(ROOT, "include"), src, "-lpthread"]
    PROG = os.path.join(WORKDIR, "prog")
    subprocess.run(["gcc", "-g", *common, "-o", PROG], check=True)
    BINS["nodebug"] = os.path.join(WORKDIR, "prog-nodebug")
    subprocess.run(["gcc", *common, "-o", BINS["nodebug"]], check=True)
    static = os.path.join(WORKDIR, "prog-static")
    if subprocess.run(["gcc", "-g", "-static", *common, "-o", static], stderr=subprocess.DEVNULL).returncode == 0:
        BINS["static"] = static
    os.chmod(WORKDIR, 0o755)


def main():
    global WORKDIR
    if not os.access(COZ, os.X_OK):
        sys.exit(f"no coz at {COZ}: build it (cmake --build build) or pass its path")
    add_program_cases()
    add_launch_cases()
    add_output_cases()
    add_option_cases()
    add_report_plot_cases()
    add_source_cases()
    add_overwrite_cases()
    add_cli_option_cases()
    add_serve_cases()
    add_runtime_cases()
    add_cli_cases()
    words = [w.strip().lower() for w in os.environ.get("CASES", "").split(",") if w.strip()]
    chosen = [c for c in CASES if not words or any(w in c[0].lower() for w in words)]
    if os.environ.get("LIST"):
        for name, category, _ in chosen:
            print(f"{category:20} {name}")
        print(f"{len(chosen)} cases")
        return 0
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    WORKDIR = tempfile.mkdtemp(prefix="coz-reliability.")
    counts = {k: 0 for k in COLUMNS + [SKIP]}
    bad = []
    start = time.monotonic()
    try:
        build_fixtures()
        print(f"coz: {COZ}\n{len(chosen)} cases, timeout {TIMEOUT:.0f} s each\n", flush=True)
        for name, category, fn in chosen:
            t0 = time.monotonic()
            try:
                verdict, detail = fn()
            except Exception as e:  # a fault of this script, shown as such
                verdict, detail = CRASH, f"the check itself failed: {type(e).__name__}: {e}"
            counts[verdict] += 1
            if verdict not in (OK, CLEAR, SKIP):
                bad.append((name, verdict, detail))
            print(f"{name}: {verdict} ({detail}) [{time.monotonic() - t0:.1f} s]", flush=True)
    finally:
        if os.environ.get("KEEP"):
            print(f"kept {WORKDIR}")
        else:
            shutil.rmtree(WORKDIR, ignore_errors=True)
    tried = sum(counts[k] for k in COLUMNS)
    print(f"\n{'tried':>6} {'ok':>6} {'clear error':>12} {'crash':>6} {'hang':>6} {'lost':>6} {'changed':>8}")
    print(f"{tried:>6} {counts[OK]:>6} {counts[CLEAR]:>12} {counts[CRASH]:>6} {counts[HANG]:>6} "
          f"{counts[LOST]:>6} {counts[CHANGED]:>8}")
    if counts[SKIP]:
        print(f"({counts[SKIP]} skipped)")
    print(f"{time.monotonic() - start:.0f} s")
    if bad:
        print("\nnot ok:")
        for name, verdict, detail in bad:
            print(f"  {verdict:8} {name}: {detail}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
