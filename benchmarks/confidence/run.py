#!/usr/bin/env python3
"""Time to confidence: how long a profile must run before the line worth optimising is told
apart from the rest.

Profiles programs with known causal profiles (programs/shapes.c) for fixed budgets and reads each
profile with our `coz report --json` (Debian Coz 0.2.2's profiles too: our reader reads its
format, so both columns are judged by the same statistics). For each program, budget and
profiler, over REPS repetitions:
  first  share of repetitions in which the BEST line ranks first with an impact interval that
         excludes zero
  width  median width, in points, of the top-ranked line's impact interval (repetitions where it
         has none count as missing)
  false  share of the lines marked NONE, among those the report shows, flagged `significant`
  lines  median number of lines the report shows
Environment: BUDGETS (seconds, default "15,30,60,120"), REPS (default 5), PROGRAMS (comma list of
serial, fork_join, pipeline), BEFORE (another build's bin/coz, an extra column), VARIANTS
("name=options;name=options": our build with `coz run` options, one column each),
SKIP_DEBIAN=1.
Every profile is kept in work/profiles/. Runs are interleaved (each repetition runs every configuration once) and take
REPS * sum(BUDGETS) * programs * profilers seconds."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SOURCE = os.path.join(HERE, "programs", "shapes.c")
PROGRAMS = {"serial": "-DSERIAL", "fork_join": "-DFORK_JOIN", "pipeline": "-DPIPELINE"}


def marked_in(define, marker):
    """Line numbers carrying `marker` inside the #if block of `define`."""
    name = define[2:]
    inside, lines = False, set()
    with open(SOURCE) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#if") or line.startswith("#elif"):
                inside = name in line
            elif line.startswith("#else") or line.startswith("#endif"):
                inside = False
            elif inside and f"/* {marker} */" in line:
                lines.add(n)
    return lines


def build(work, define, debug, suffix):
    out = os.path.join(work, define[2:].lower() + suffix)
    subprocess.run(["gcc", "-O1", *debug, "-I", os.path.join(ROOT, "include"), define, SOURCE,
                    "-o", out, "-lpthread"], check=True)
    return out


def profile(profiler, binary, seconds, scratch, keep):
    """Runs `binary` for `seconds` under `profiler` ("debian", or (path to a coz, options)) and
    returns the profile's path, or None."""
    path = os.path.join(scratch, "profile.coz")
    if os.path.exists(path):
        os.remove(path)
    env = dict(os.environ, CONF_SECONDS=str(seconds))
    if profiler == "debian":
        command = ["coz", "run", "---", binary]
    else:
        command = [profiler[0], "run", *profiler[1], "-o", path, "---", binary]
    subprocess.run(command, cwd=scratch, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    if not os.path.exists(path):
        return None
    shutil.copyfile(path, keep)
    return keep


def judge(coz, path, best, none):
    """(first, width, false flags, NONE lines shown, lines shown) from one profile."""
    if path is None:
        return (False, None, 0, 0, 0)
    out = subprocess.run([coz, "report", "--json", path], capture_output=True, text=True)
    if out.returncode != 0:
        return (False, None, 0, 0, 0)
    series = [s for s in json.loads(out.stdout)["series"]
              if os.path.basename(s["file"]) == "shapes.c"]
    if not series:
        return (False, None, 0, 0, 0)
    top = min(series, key=lambda s: s["rank"])
    low, high = top["impact"]["low"], top["impact"]["high"]
    width = None if low is None or high is None else 100 * (high - low)
    first = top["line_number"] in best and low is not None and low > 0
    shown_none = [s for s in series if s["line_number"] in none]
    false = sum(1 for s in shown_none if s["significant"])
    return (first, width, false, len(shown_none), len(series))


def main():
    coz = os.path.join(ROOT, "build", "bin", "coz")
    budgets = [int(b) for b in os.environ.get("BUDGETS", "15,30,60,120").split(",")]
    reps = int(os.environ.get("REPS", "5"))
    wanted = os.environ.get("PROGRAMS", ",".join(PROGRAMS)).split(",")
    profilers = [("ours", (coz, []))]
    for variant in [v for v in os.environ.get("VARIANTS", "").split(";") if v]:
        name, _, options = variant.partition("=")
        profilers.append((name, (coz, options.split())))
    for path in [p for p in os.environ.get("BEFORE", "").split(",") if p]:
        profilers.append((f"before ({path})", (path, [])))
    if (shutil.which("coz") and os.path.exists("/usr/lib/coz-profiler/libcoz.so")
            and not os.environ.get("SKIP_DEBIAN")):
        profilers.append(("coz 0.2", "debian"))
    else:
        sys.stderr.write("Debian coz-profiler not installed (apt-get install coz-profiler) or "
                         "SKIP_DEBIAN: no peer column\n")
    work = os.path.join(HERE, "work")
    os.makedirs(work, exist_ok=True)
    scratch = tempfile.mkdtemp()
    kept = os.path.join(work, "profiles")  # every profile, for a closer look
    shutil.rmtree(kept, ignore_errors=True)
    os.makedirs(kept)
    binaries = {}
    for name in wanted:
        binaries[name] = (build(work, PROGRAMS[name], ["-g"], ""),
                          build(work, PROGRAMS[name], ["-gdwarf-3", "-gstrict-dwarf"], "_dwarf3"))
    results = {}  # (program, budget, profiler) -> list of judge() tuples
    for rep in range(reps):
        for name in wanted:
            best, none = marked_in(PROGRAMS[name], "BEST"), marked_in(PROGRAMS[name], "NONE")
            for budget in budgets:
                for label, profiler in profilers:
                    binary = binaries[name][1 if profiler == "debian" else 0]
                    keep = os.path.join(kept, f"{name}_{budget}s_{label.split(' ')[0]}_{rep}.coz")
                    path = profile(profiler, binary, budget, scratch, keep)
                    results.setdefault((name, budget, label), []).append(
                        judge(coz, path, best, none))
        sys.stderr.write(f"repetition {rep + 1} of {reps} done\n")
    shutil.rmtree(scratch, ignore_errors=True)

    print(f"Time to confidence: {reps} repetitions per cell. first: best line ranked first with an "
          "interval excluding 0;\nwidth: median width of the top line's impact interval (points); "
          "false: NONE lines flagged significant; lines: median lines shown")
    header = f"{'program':<10} {'budget':>6}"
    for label, _ in profilers:
        short = label.split(" (")[0]
        header += f" | {short + ' first':>12} {'width':>6} {'false':>6} {'lines':>5}"
    print(header)
    for name in wanted:
        for budget in budgets:
            row = f"{name:<10} {budget:>5}s"
            for label, _ in profilers:
                cell = results[(name, budget, label)]
                first = sum(1 for c in cell if c[0]) / len(cell)
                widths = [c[1] for c in cell if c[1] is not None]
                width = f"{statistics.median(widths):.1f}" if widths else "-"
                shown = sum(c[3] for c in cell)
                false = f"{sum(c[2] for c in cell) / shown:.0%}" if shown else "-"
                lines = statistics.median(c[4] for c in cell)
                row += f" | {first:>12.0%} {width:>6} {false:>6} {lines:>5.0f}"
            print(row)


if __name__ == "__main__":
    main()
