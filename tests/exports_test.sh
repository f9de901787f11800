#!/usr/bin/env bash
# libcoz.so exports exactly Coz's ABI (_coz_*) and the interposed functions: nothing of the C++
# inside (no _Z symbol), and every function the sources mark for export (COZ_EXPORT, or
# visibility("default") in runtime/ and interpose/) is exported, so libcoz.map lists every hook.
# Needs perl (Debian's base system has it).
# Usage: exports_test.sh path/to/libcoz.so path/to/libcoz-sources
set -euo pipefail
lib="$1" src="$2"
exported="$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)"
status=0
if grep -q '^_Z' <<<"$exported"; then
  echo "C++ symbols exported (libcoz.map's local: * should hide them):"
  grep '^_Z' <<<"$exported" | head -5
  status=1
fi
sources="$(cat "$src"/interpose/*.cpp "$src"/runtime/*.cpp)"
# A function declared under an assembler name (`long f(...) __asm__("syscall")`) is exported
# under that name.
renamed="$(perl -0777 -ne 'while (/\b(\w+)\([^()]*\)\s*__asm__\("(\w+)"\)/g) { print "$1 $2\n" }' \
  <<<"$sources")"
declared="$(grep -oP '(COZ_EXPORT|visibility\("default"\)\)\))[^(]*?\**\K\b\w+(?=\()' <<<"$sources" |
  awk -v renamed="$renamed" 'BEGIN { n = split(renamed, r, "\n"); for (i = 1; i <= n; i++) {
    split(r[i], f, " "); if (f[1] != "") to[f[1]] = f[2] } } { print ($1 in to) ? to[$1] : $1 }' |
  sort -u)"
if [ -z "$declared" ]; then
  echo "no exported functions found in $src (the pattern no longer matches the sources)"
  exit 1
fi
missing="$(comm -23 <(echo "$declared") <(echo "$exported"))"
if [ -n "$missing" ]; then
  echo "declared for export but not exported (add them to libcoz/libcoz.map):"
  echo "$missing"
  status=1
fi
echo "$(wc -l <<<"$declared") functions declared for export, $(wc -l <<<"$exported") exported"
exit $status
