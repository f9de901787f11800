#!/usr/bin/env python3
"""Fetches the real programs from crates.io (through cargo), applies the scripted patches and
builds them. Everything goes under benchmarks/real/work/ (git-ignored). Each program is built
twice: with the compiler's default DWARF for this profiler and with DWARF 3 for Debian's Coz 0.2,
whose reader knows no later version.

Programs (none written here; the C drivers only call the libraries' public APIs):
  sqlite   SQLite 3 amalgamation from libsqlite3-sys (bundled), SQLITE_THREADSAFE=1; driver: 2
           threads, each inserting rows into its own table in its own database file.
  sqlite-sync  the same binaries, the driver's SYNC_ROWS mode: one thread, one commit (and sync)
           per row; its marked line is the COZ_WAIT_LINE below.
  zstd     zstd 1.5.7's lib from zstd-sys, built with ZSTD_MULTITHREAD; driver: compresses a
           generated buffer with ZSTD_c_nbWorkers=2 (zstd's own worker pool), level 3.
  ripgrep  ripgrep 14.1.1 from crates.io, searching a generated corpus with -j2; the `coz` crate
           for its progress point.
Each patch adds a progress point and a line of known work (a spin loop whose count comes from an
environment variable, read once) in a hot path; the line is marked with the comment COZ_SPIN_LINE.
SQLite's also adds a line of known waiting, marked COZ_WAIT_LINE: in unixSync, after the file's
fsync, a nanosleep of COZ_WAIT_US microseconds (read once; unset or 0: no call), a slow disk's sync.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
WORK = os.environ.get("REAL_WORK", os.path.join(HERE, "work"))
SRC = os.path.join(WORK, "src")
BIN = os.path.join(WORK, "bin")

CRATES = {  # crate -> version requirement; sources are taken from cargo's download cache
    "libsqlite3-sys": '{ version = "=0.30.1", features = ["bundled"] }',
    "zstd-sys": '"=2.1.3"',
    "ripgrep": '"=14.1.1"',
    "coz": '"=0.1.3"',
}

def log(msg):
    sys.stderr.write(msg + "\n")

def run(cmd, **kw):
    log("+ " + " ".join(cmd))
    subprocess.run(cmd, check=True, **kw)

def fetch(names=("libsqlite3-sys", "zstd-sys", "ripgrep"), into=SRC):
    """`cargo fetch` in a scratch project, then unpack the .crate files of `names` from cargo's
    cache into `into` (a directory of its own keeps a copy that no patch has touched)."""
    scratch = os.path.join(WORK, "fetch")
    os.makedirs(os.path.join(scratch, "src"), exist_ok=True)
    with open(os.path.join(scratch, "Cargo.toml"), "w") as f:
        f.write('[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\n')
        for name, req in CRATES.items():
            if name in names or (name == "coz" and "ripgrep" in names):  # coz: ripgrep's patch
                f.write(f"{name} = {req}\n")
    with open(os.path.join(scratch, "src", "lib.rs"), "w") as f:
        f.write("")
    run(["cargo", "fetch", "--quiet"], cwd=scratch)
    home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    os.makedirs(into, exist_ok=True)
    out = {}
    for name in names:
        crates = sorted(glob.glob(os.path.join(home, "registry", "cache", "*", f"{name}-[0-9]*.crate")))
        want = CRATES[name].split('"=')[1].split('"')[0]
        crate = [c for c in crates if os.path.basename(c).startswith(f"{name}-{want}")][0]
        dest = os.path.join(into, os.path.basename(crate)[:-len(".crate")])
        if not os.path.isdir(dest):
            with tarfile.open(crate) as t:
                t.extractall(into)
        out[name] = dest
    return out

def patch_text(path, old, new, count=1):
    with open(path) as f:
        text = f.read()
    if new in text:
        return
    if text.count(old) != count:
        raise SystemExit(f"patch: {old!r} found {text.count(old)} times in {path}, expected {count}")
    with open(path, "w") as f:
        f.write(text.replace(old, new))

def marked_line(path, marker="COZ_SPIN_LINE"):
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if marker in line:
                return number
    raise SystemExit(f"no {marker} in {path}")

# ---------------------------------------------------------------------------------------- SQLite
SQLITE_SPIN = """\
/* coz-amp benchmark patch: a line of known work (COZ_SPIN iterations) per row stepped. */
#include "coz.h"
static unsigned long cozSpinCount(void){
  static volatile long n = -1;
  if( n<0 ){ const char *e = getenv("COZ_SPIN"); n = e ? strtol(e, 0, 10) : 0; }
  return (unsigned long)n;
}
"""

SQLITE_WAIT = """\
/* coz-amp benchmark patch: a line of known waiting (COZ_WAIT_US microseconds) per sync, as of a
** slow disk's fsync: the real fsync still happens, then the wait. */
static long cozWaitUs(void){
  static volatile long n = -1;
  if( n<0 ){ const char *e = getenv("COZ_WAIT_US"); n = e ? strtol(e, 0, 10) : 0; }
  return n;
}
"""

def patch_sqlite(src):
    c = os.path.join(src, "sqlite3", "sqlite3.c")
    # The spin and the progress point go into sqlite3_step, SQLite's per-row entry point.
    patch_text(c, "SQLITE_API int sqlite3_step(sqlite3_stmt *pStmt){\n",
               SQLITE_SPIN + "SQLITE_API int sqlite3_step(sqlite3_stmt *pStmt){\n"
               "  { unsigned long n = cozSpinCount(), i; for(i=0; i<n; i++) __asm__ volatile(\"\" : \"+r\"(i)); } /* COZ_SPIN_LINE */\n"
               "  COZ_PROGRESS_NAMED(\"sqlite3_step\");\n")
    # The wait goes into the unix VFS's xSync, after the file's fsync (full_fsync), once per sync.
    patch_text(c, "static int unixSync(sqlite3_file *id, int flags){\n",
               SQLITE_WAIT + "static int unixSync(sqlite3_file *id, int flags){\n")
    patch_text(c, "  rc = full_fsync(pFile->h, isFullsync, isDataOnly);\n",
               "  rc = full_fsync(pFile->h, isFullsync, isDataOnly);\n"
               "  if( cozWaitUs()>0 ){ struct timespec w = { cozWaitUs()/1000000, cozWaitUs()%1000000*1000 }; nanosleep(&w, 0); } /* COZ_WAIT_LINE */\n")
    return c

# --------------------------------------------------------------------------------------- ripgrep
RG_SPIN = """\
// coz-amp benchmark patch: a line of known work (COZ_SPIN iterations) per file searched.
fn coz_spin_count() -> u64 {
    static N: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *N.get_or_init(|| std::env::var("COZ_SPIN").ok().and_then(|s| s.parse().ok()).unwrap_or(0))
}

"""

def patch_ripgrep(src):
    rs = os.path.join(src, "crates", "core", "search.rs")
    patch_text(rs, "use std::{io, path::Path};\n", "use std::{io, path::Path};\n\n" + RG_SPIN)
    patch_text(rs, "        let path = haystack.path();\n        log::trace!(\"{}: binary detection: {:?}\", path.display(), bin);\n",
               "        let path = haystack.path();\n"
               "        { let n = coz_spin_count(); let mut i = 0u64; while i < n { i += 1; unsafe { std::arch::asm!(\"/* {0} */\", inout(reg) i) } } } // COZ_SPIN_LINE\n"
               "        coz::progress!(\"search\");\n"
               "        log::trace!(\"{}: binary detection: {:?}\", path.display(), bin);\n")
    toml = os.path.join(src, "Cargo.toml")
    patch_text(toml, "[dependencies.anyhow]\n", "[dependencies.coz]\nversion = \"=0.1.3\"\n\n[dependencies.anyhow]\n")
    return rs

def build_ripgrep(src):
    out = {}
    for kind, flags in (("ours", ""), ("dwarf3", "-C dwarf-version=3")):
        target = os.path.join(WORK, "rg-target-" + kind)
        dest = os.path.join(BIN, f"rg_{kind}")
        if not os.path.exists(dest):
            env = dict(os.environ, CARGO_TARGET_DIR=target, CARGO_PROFILE_RELEASE_DEBUG="2",
                       RUSTFLAGS=(flags + " -C force-frame-pointers=yes").strip())
            run(["cargo", "build", "--release", "--quiet"], cwd=src, env=env)
            shutil.copy(os.path.join(target, "release", "rg"), dest)
        out[kind] = dest
    return out

# ------------------------------------------------------------------------------------------ zstd
ZSTD_SPIN = """\
/* coz-amp benchmark patch: a line of known work (COZ_SPIN iterations) per block compressed. */
#include <stdlib.h>
#include "coz.h"
static unsigned long cozSpinCount(void) {
    static volatile long n = -1;
    if (n < 0) { const char* e = getenv("COZ_SPIN"); n = e ? strtol(e, 0, 10) : 0; }
    return (unsigned long)n;
}
"""

def patch_zstd(src):
    c = os.path.join(src, "zstd", "lib", "compress", "zstd_compress.c")
    patch_text(c, "static size_t ZSTD_compress_frameChunk(ZSTD_CCtx* cctx,\n",
               ZSTD_SPIN + "static size_t ZSTD_compress_frameChunk(ZSTD_CCtx* cctx,\n")
    patch_text(c, "        U32 const lastBlock = lastFrameChunk & (blockSize == remaining);\n        assert(blockSize <= remaining);\n",
               "        U32 const lastBlock = lastFrameChunk & (blockSize == remaining);\n        assert(blockSize <= remaining);\n"
               "        { unsigned long n = cozSpinCount(), i; for (i = 0; i < n; i++) __asm__ volatile(\"\" : \"+r\"(i)); } /* COZ_SPIN_LINE */\n"
               "        COZ_PROGRESS_NAMED(\"zstd block\");\n")
    return c

DEBUG = {"ours": ["-g"], "dwarf3": ["-gdwarf-3", "-gstrict-dwarf"]}

def compile_c(sources, includes, defines, driver, dest, debug=("-g",)):
    """gcc -O2 with this repository's include/ (coz.h); skipped when `dest` is newer than its sources."""
    newest = max(os.path.getmtime(s) for s in list(sources) + [driver])
    if not os.path.exists(dest) or os.path.getmtime(dest) < newest:
        run(["gcc", "-O2", *debug, "-fno-omit-frame-pointer", "-pthread",
             "-I", os.path.join(ROOT, "include"), *[f"-I{i}" for i in includes], *defines,
             *sources, driver, "-o", dest, "-ldl", "-lm"])
    return dest

def build_c(name, sources, includes, defines, driver):
    return {kind: compile_c(sources, includes, defines, driver, os.path.join(BIN, f"{name}_{kind}"), debug)
            for kind, debug in DEBUG.items()}

def build_sqlite(src):
    c = os.path.join(src, "sqlite3", "sqlite3.c")
    return build_c("sqlite", [c], [os.path.dirname(c)],
                   ["-DSQLITE_THREADSAFE=1", "-DSQLITE_OMIT_LOAD_EXTENSION"],
                   os.path.join(HERE, "drivers", "sqlite_driver.c"))

def build_zstd(src):
    lib = os.path.join(src, "zstd", "lib")
    sources = sorted(glob.glob(os.path.join(lib, "common", "*.c")) + glob.glob(os.path.join(lib, "compress", "*.c")))
    return build_c("zstd", sources, [lib, os.path.join(lib, "common")], ["-DZSTD_MULTITHREAD"],
                   os.path.join(HERE, "drivers", "zstd_driver.c"))

PROGRAMS = ("sqlite", "sqlite-sync", "zstd", "ripgrep")

def prepare():
    """Returns {program: {"ours": binary, "dwarf3": binary, "line": "file:line", "src": dir}}."""
    os.makedirs(BIN, exist_ok=True)
    srcs = fetch()
    out = {}
    # sqlite-sync: the same binaries, another driver mode (SYNC_ROWS) and the wait line
    for name, crate, patch, build, marker in (
            ("sqlite", "libsqlite3-sys", patch_sqlite, build_sqlite, "COZ_SPIN_LINE"),
            ("sqlite-sync", "libsqlite3-sys", patch_sqlite, build_sqlite, "COZ_WAIT_LINE"),
            ("zstd", "zstd-sys", patch_zstd, build_zstd, "COZ_SPIN_LINE"),
            ("ripgrep", "ripgrep", patch_ripgrep, build_ripgrep, "COZ_SPIN_LINE")):
        only = os.environ.get("PROGRAMS")
        if only and name not in only.split(","):
            continue
        path = patch(srcs[crate])
        try:
            bins = build(srcs[crate])
        except subprocess.CalledProcessError as e:
            log(f"{name}: build failed ({e}); skipped")
            continue
        rel = os.path.relpath(path, srcs[crate])
        out[name] = dict(bins, line=f"{rel}:{marked_line(path, marker)}", src=srcs[crate])
    return out

if __name__ == "__main__":
    for k, v in prepare().items():
        print(k, v)
