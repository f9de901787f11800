#!/usr/bin/env python3
"""Time to confidence: how long a profile must run before the line worth optimising is told
apart from the rest, and whether the intervals on the way hold the truth.

Profiles programs with known causal profiles for fixed budgets: serial, fork_join and pipeline
(programs/shapes.c) run for the budget; drift (programs/drift.c, throughput that drifts through
each run) does a fixed amount of work and is profiled with `coz run --budget`. Markers in the
sources name the lines: BEST, KNOWN (helps less), NONE (changes nothing), and `k=` on those
whose true effect is known (k s for the line made s faster). Each profile is read by one or more
`coz report --json` (Debian Coz 0.2.2's profiles too: our reader reads its format, so every
profiler is judged by the same statistics). For each program, budget, profiler and reporter, over
REPS repetitions:
  first  share of repetitions in which the BEST line ranks first with an impact interval that
         excludes zero
  width  median width, in points, of the top-ranked line's impact interval (repetitions where it
         has none count as missing)
  false  share of the lines marked NONE, among those the report shows, flagged `significant` or
         `contention`
  cover  share of (repetition, line with k) pairs, among those with an impact interval, whose
         interval holds the true impact, k M / 2 (M: the line's largest speedup measured)
  of     pairs with an impact interval / all pairs
  c@50   the same for the @50% prediction, against k / 2
  lines  median number of lines the report shows
Environment: BUDGETS (seconds, default "15,30,60,120"), REPS (default 5), PROGRAMS (comma list of
serial, fork_join, pipeline, drift), COZ (the build that profiles as "ours", default
build/bin/coz), REPORTERS ("name=path/to/coz,...": the builds whose `coz report` judges every
profile, a set of columns each; default build/bin/coz), BEFORE (another build's bin/coz,
profiling as an extra column), VARIANTS ("name=options;name=options": ours with `coz run`
options, one column each), SKIP_DEBIAN=1.
Every profile is kept in work/profiles/ with manifest.json (what was run, and the markers as they
were); JUDGE_ONLY=1 judges those again with REPORTERS and runs nothing. Runs are interleaved
(each repetition runs every configuration once) and take REPS * sum(BUDGETS) * programs *
profilers seconds.
TRUTH=1 measures the true effects natively instead: each BEST or KNOWN line built to do 75% and
0% of its work (s = 0.25 and 1), each run of it (TRUTH_SECONDS, default 2) paired with one of the
program as it is, REPS pairs; it prints the median effect beside the marker's k s."""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROGRAMS = {  # name -> (source in programs/, the define that selects it)
    "serial": ("shapes.c", "-DSERIAL"),
    "fork_join": ("shapes.c", "-DFORK_JOIN"),
    "pipeline": ("shapes.c", "-DPIPELINE"),
    "drift": ("drift.c", None),
}
REPEATED = {"drift"}  # fixed work per run: profiled with --budget, not CONF_SECONDS
MARKER = re.compile(r"/\* (BEST|KNOWN|NONE)(?: k=([0-9.]+))? \*/")


def marks_of(name):
    """The program's marked lines: {"best": [lines], "known": [BEST and KNOWN lines],
    "none": [lines], "truth": {line: k}}, the true program speedup being k s for a line made s
    faster, where the marker says."""
    define = PROGRAMS[name][1]
    inside = define is None
    marks = {"best": [], "known": [], "none": [], "truth": {}}
    with open(os.path.join(HERE, "programs", PROGRAMS[name][0])) as f:
        for n, line in enumerate(f, 1):
            if define and (line.startswith("#if") or line.startswith("#elif")):
                inside = define[2:] in line
            elif define and (line.startswith("#else") or line.startswith("#endif")):
                inside = False
            elif inside and (m := MARKER.search(line)):
                kind, k = m.group(1), m.group(2)
                marks[kind.lower()].append(n)
                if kind == "BEST":
                    marks["known"].append(n)
                if k:
                    marks["truth"][n] = float(k)
    return marks


def build(work, name, debug, suffix, extra=()):
    source, define = PROGRAMS[name]
    out = os.path.join(work, name + suffix)
    subprocess.run(["gcc", "-O1", *debug, "-I", os.path.join(ROOT, "include"),
                    *([define] if define else []), *extra, os.path.join(HERE, "programs", source),
                    "-o", out, "-lpthread"], check=True)
    return out


def profile(profiler, binary, seconds, repeated, scratch, keep):
    """Profiles `binary` under `profiler` ("debian", or (path to a coz, options)) for `seconds`:
    one run that long, or (`repeated`) runs again and again until that much time has passed,
    and keeps the profile (if one was written) as `keep`."""
    path = os.path.join(scratch, "profile.coz")
    if os.path.exists(path):
        os.remove(path)
    env = dict(os.environ, CONF_SECONDS=str(seconds))
    quiet = {"cwd": scratch, "env": env, "stdout": subprocess.DEVNULL,
             "stderr": subprocess.DEVNULL}
    if profiler == "debian":  # Coz 0.2 has no --budget; each run appends to profile.coz
        end = time.monotonic() + seconds
        subprocess.run(["coz", "run", "---", binary], **quiet)
        while repeated and time.monotonic() < end:
            subprocess.run(["coz", "run", "---", binary], **quiet)
    else:
        budget = ["--budget", f"{seconds}s"] if repeated else []
        subprocess.run([profiler[0], "run", *profiler[1], *budget, "-o", path, "---", binary],
                       **quiet)
    if os.path.exists(path):
        shutil.copyfile(path, keep)


def judge(coz, path, name, marks):
    """What one profile, read by `coz report` at `coz`, says against the program's marks."""
    verdict = {"first": False, "width": None, "flagged": 0, "none_shown": 0, "lines": 0,
               "covered": 0, "with_interval": 0, "pairs": len(marks["truth"]),
               "covered50": 0, "with_interval50": 0}
    if not os.path.exists(path):
        return verdict
    out = subprocess.run([coz, "report", "--json", path], capture_output=True, text=True)
    if out.returncode != 0:
        return verdict
    source = PROGRAMS[name][0]
    series = [s for s in json.loads(out.stdout)["series"]
              if os.path.basename(s["file"]) == source]
    if not series:
        return verdict
    top = min(series, key=lambda s: s["rank"])
    low, high = top["impact"]["low"], top["impact"]["high"]
    verdict["width"] = None if low is None or high is None else 100 * (high - low)
    verdict["first"] = top["line_number"] in marks["best"] and low is not None and low > 0
    shown_none = [s for s in series if s["line_number"] in marks["none"]]
    verdict["flagged"] = sum(1 for s in shown_none if s.get("significant") or s.get("contention"))
    verdict["none_shown"] = len(shown_none)
    verdict["lines"] = len(series)
    for s in series:
        truth = marks["truth"].get(s["line_number"])
        if truth is None:
            continue
        # The impact is the curve's mean over the line speedups measured: k M / 2 for k s.
        true = truth * max(p["line_speedup"] for p in s["curve"]) / 2
        if s["impact"]["low"] is not None and s["impact"]["high"] is not None:
            verdict["with_interval"] += 1
            verdict["covered"] += s["impact"]["low"] <= true <= s["impact"]["high"]
        for p in s.get("predicted", []):
            y = p["program_speedup"]
            if abs(p["line_speedup"] - 0.5) < 1e-9 and y["low"] is not None and y["high"] is not None:
                verdict["with_interval50"] += 1
                verdict["covered50"] += y["low"] <= truth * 0.5 <= y["high"]
    return verdict


def columns(cell):
    """One (profiler, reporter) cell of the table: the repetitions' verdicts summed up."""
    first = sum(1 for v in cell if v["first"]) / len(cell)
    widths = [v["width"] for v in cell if v["width"] is not None]
    width = f"{statistics.median(widths):.1f}" if widths else "-"
    shown = sum(v["none_shown"] for v in cell)
    false = f"{sum(v['flagged'] for v in cell) / shown:.0%}" if shown else "-"

    def share(hit, total):
        return f"{hit / total:.0%}" if total else "-"

    with_interval = sum(v["with_interval"] for v in cell)
    cover = share(sum(v["covered"] for v in cell), with_interval)
    of = f"{with_interval}/{sum(v['pairs'] for v in cell)}"
    c50 = share(sum(v["covered50"] for v in cell), sum(v["with_interval50"] for v in cell))
    lines = statistics.median(v["lines"] for v in cell)
    return f"{first:>6.0%} {width:>6} {false:>6} {cover:>6} {of:>6} {c50:>5} {lines:>5.0f}"


def print_table(manifest, results, reporters):
    print(f"Time to confidence: {manifest['reps']} repetitions per cell. first: best line ranked "
          "first with an interval excluding 0;\nwidth: median width of the top line's impact "
          "interval (points); false: NONE lines flagged significant or contention;\ncover, c@50: "
          "impact and @50% intervals holding the true value (of: pairs with an impact interval); "
          "lines: median lines shown")
    pairs = [(label, reporter) for label, _ in manifest["profilers"] for reporter, _ in reporters]
    header = f"{'program':<10} {'budget':>6}"
    for label, reporter in pairs:
        name = label.split(" (")[0] + (f"/{reporter}" if len(reporters) > 1 else "")
        header += f" | {name:<46.46}"
    print(header)
    print(f"{'':<17}" + f" | {'first':>6} {'width':>6} {'false':>6} {'cover':>6} {'of':>6} "
          f"{'c@50':>5} {'lines':>5}" * len(pairs))
    for name in manifest["programs"]:
        for budget in manifest["budgets"]:
            row = f"{name:<10} {budget:>5}s"
            for label, reporter in pairs:
                row += " | " + columns(results[(name, budget, label, reporter)])
            print(row)


def profile_name(kept, name, budget, tag, rep):
    return os.path.join(kept, f"{name}_{budget}s_{tag}_{rep}.coz")


def run_items(binary, seconds):
    """Seconds per item of one native run."""
    out = subprocess.run([binary], env=dict(os.environ, CONF_SECONDS=str(seconds)),
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[3]) / int(out[1])


def measure_truth(work, wanted, reps):
    """Prints each BEST or KNOWN line's real effect at s = 0.25 and 1: the median over
    repetitions of 1 - period(s) / period(0), each variant's run paired with one of the
    unmodified program just before it."""
    seconds = float(os.environ.get("TRUTH_SECONDS", "2"))
    variants = []  # (program, line, s, unmodified binary, binary with the line cut)
    for name in wanted:
        base = build(work, name, [], "_native")
        for line in marks_of(name)["known"]:
            for s in (0.25, 1.0):
                keep = round(100 * (1 - s))
                variants.append((name, line, s, base, build(work, name, [], f"_cut{line}_{keep}", [
                    f"-DCUT_LINE={line}", f"-DCUT_KEEP={keep}"])))
    effects = {}
    for rep in range(reps):
        for name, line, s, base, cut in variants:
            before = run_items(base, seconds)
            effects.setdefault((name, line, s), []).append(1 - run_items(cut, seconds) / before)
        sys.stderr.write(f"repetition {rep + 1} of {reps} done\n")
    print(f"True effects, native: median of {reps} paired runs of 1 - period(s) / period(0)")
    print(f"{'program':<10} {'line':>5} {'s':>5} {'marked':>7} {'measured':>9}")
    for name, line, s, _, _ in variants:
        k = marks_of(name)["truth"].get(line)
        marked = f"{k * s:.3f}" if k is not None else "-"
        print(f"{name:<10} {line:>5} {s:>5.2f} {marked:>7} "
              f"{statistics.median(effects[(name, line, s)]):>9.3f}")


def main():
    coz = os.environ.get("COZ", os.path.join(ROOT, "build", "bin", "coz"))
    reporters = [tuple(r.split("=", 1)) for r in os.environ.get("REPORTERS", "").split(",") if r]
    reporters = reporters or [("ours", os.path.join(ROOT, "build", "bin", "coz"))]
    work = os.path.join(HERE, "work")
    kept = os.path.join(work, "profiles")  # every profile, for a closer look
    os.makedirs(work, exist_ok=True)
    reps = int(os.environ.get("REPS", "5"))
    if os.environ.get("TRUTH"):
        measure_truth(work, os.environ.get("PROGRAMS", ",".join(PROGRAMS)).split(","), reps)
        return
    if os.environ.get("JUDGE_ONLY"):
        with open(os.path.join(kept, "manifest.json")) as f:
            manifest = json.load(f)
    else:
        manifest = generate(coz, work, kept, reps)
    results = {}  # (program, budget, profiler label, reporter name) -> list of verdicts
    for name in manifest["programs"]:
        marks = manifest["marks"][name]
        marks["truth"] = {int(line): truth for line, truth in marks["truth"].items()}
        for budget in manifest["budgets"]:
            for label, tag in manifest["profilers"]:
                for rep in range(manifest["reps"]):
                    path = profile_name(kept, name, budget, tag, rep)
                    for reporter, path_to_coz in reporters:
                        results.setdefault((name, budget, label, reporter), []).append(
                            judge(path_to_coz, path, name, marks))
    print_table(manifest, results, reporters)


def generate(coz, work, kept, reps):
    """Profiles every configuration REPS times into `kept` and returns the manifest written
    beside the profiles: what was run, and the marks of the sources as they were."""
    budgets = [int(b) for b in os.environ.get("BUDGETS", "15,30,60,120").split(",")]
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
    shutil.rmtree(kept, ignore_errors=True)
    os.makedirs(kept)
    manifest = {"reps": reps, "budgets": budgets, "programs": wanted,
                "profilers": [[label, label.split(" ")[0]] for label, _ in profilers],
                "marks": {name: marks_of(name) for name in wanted}}
    with open(os.path.join(kept, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    binaries = {name: (build(work, name, ["-g"], ""),
                       build(work, name, ["-gdwarf-3", "-gstrict-dwarf"], "_dwarf3"))
                for name in wanted}
    scratch = tempfile.mkdtemp()
    for rep in range(reps):
        for name in wanted:
            for budget in budgets:
                for (label, profiler), (_, tag) in zip(profilers, manifest["profilers"]):
                    binary = binaries[name][1 if profiler == "debian" else 0]
                    profile(profiler, binary, budget, name in REPEATED, scratch,
                            profile_name(kept, name, budget, tag, rep))
        sys.stderr.write(f"repetition {rep + 1} of {reps} done\n")
    shutil.rmtree(scratch, ignore_errors=True)
    return manifest


if __name__ == "__main__":
    main()
