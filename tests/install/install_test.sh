#!/usr/bin/env bash
# Installs the build into a scratch prefix, then uses it as a user would: the layout, `coz run`,
# `coz report` and `coz plot` from the installed bin/ (which must find the installed runtime and
# viewer, not the build tree's), `man coz`, bash completion, and two sample projects built
# against the installed header (CMake's find_package, and a Makefile with pkg-config).
# usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$1"
source_dir="$2"
prefix="$build/install-test"
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$source_dir/tests/install/use_installed.sh"

# --- layout ------------------------------------------------------------------------------------
runtime=$(find "$prefix" -name libcoz.so)
[ "$(echo "$runtime" | wc -l)" = 1 ] && [ -n "$runtime" ] || fail "one libcoz.so expected, got: $runtime"
case "$runtime" in */coz-amp/libcoz.so) ;; *) fail "libcoz.so not in a private coz-amp directory: $runtime" ;; esac
for f in bin/coz include/coz.h share/coz-amp/viewer/index.html share/coz-amp/viewer/viewer.js \
         share/coz-amp/viewer/compare.html share/coz-amp/viewer/compare.js \
         share/coz-amp/viewer/vega.min.js share/coz-amp/viewer/coz-reader.wasm \
         share/coz-amp/viewer/THIRD-PARTY-LICENSES.txt \
         share/man/man1/coz.1 share/man/man1/coz-run.1 \
         share/man/man1/coz-report.1 share/man/man1/coz-plot.1 share/man/man1/coz-compare.1 \
         share/bash-completion/completions/coz \
         share/cmake/coz-amp/coz-amp-config.cmake share/pkgconfig/coz-amp.pc share/doc/coz-amp/LICENSE; do
  [ -e "$prefix/$f" ] || fail "$f was not installed"
done
grep -q "^vega-lite .* (BSD-3-Clause)" "$prefix/share/coz-amp/viewer/THIRD-PARTY-LICENSES.txt" ||
  fail "the viewer's licences do not name vega-lite"
grep -q "wasi-libc" "$prefix/share/coz-amp/viewer/THIRD-PARTY-LICENSES.txt" ||
  fail "the viewer's licences leave out the libraries linked into coz-reader.wasm"
grep -q "THIRD-PARTY-LICENSES.txt" "$prefix/share/doc/coz-amp/copyright" ||
  fail "the copyright file does not say where the bundled libraries' licences are"

# --- the version sorts after Coz 0.2 ----------------------------------------------------------
version=$("$prefix/bin/coz" --version)
[[ $version == "coz (coz-amp) "* ]] || fail "coz --version: $version"
dpkg --compare-versions "${version##* }" gt 0.2.2-2 || fail "version ${version##* } does not sort after 0.2.2"

# --- man pages: render without warnings, and `man coz` finds the installed one -----------------
if command -v man >/dev/null; then
  for page in coz coz-run coz-report coz-plot coz-compare; do
    warnings=$(MANWIDTH=80 man --warnings -l "$prefix/share/man/man1/$page.1" 2>&1 >/dev/null)
    [ -z "$warnings" ] || fail "$page.1: $warnings"
  done
  MANPATH="$prefix/share/man" MANWIDTH=100 man coz 2>/dev/null | grep -q "coz run" || fail "man coz"
  MANPATH="$prefix/share/man" MANWIDTH=100 man coz-run 2>/dev/null | grep -q -- "--speedup-step" ||
    fail "man coz-run does not list the options of coz run --help"
else
  echo "man is not installed (scripts/deps.sh installs man-db): man pages not rendered"
fi

# --- bash completion --------------------------------------------------------------------------
complete_words() {  # complete_words WORD... : what the completion offers for the last word
  PATH="$prefix/bin:$PATH" bash -c 'source "$0"; COMP_WORDS=("${@}"); COMP_CWORD=$(($# - 1));
    COMP_LINE="$*"; _coz; echo "${COMPREPLY[*]}"' "$prefix/share/bash-completion/completions/coz" "$@"
}
offered=" $(complete_words coz r) "
[[ $offered == *" run "* && $offered == *" report "* ]] || fail "completion of 'coz r': $(complete_words coz r)"
[[ " $(complete_words coz run --speed) " == *" --speedup-step "* ]] ||
  fail "completion of 'coz run --speed': $(complete_words coz run --speed)"

# --- the sample projects, built against the installed header, profiled by the installed coz --
build_samples "$prefix" "$prefix/work"
echo "installed coz ran with $runtime"
