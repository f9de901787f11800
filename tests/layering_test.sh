#!/usr/bin/env bash
# The layering ARCHITECTURE.md describes, checked: folders include each other one way only (no
# cycle; libcoz/ names its includes from libcoz/, in quotes, without ..), the hooks see the
# runtime only through its API header, the runtime carries no
# profile reader, no source file under libcoz/ or coz-cli/ grows past 450 lines, and no script
# of the viewer's (its ES modules in viewer/src; node_modules aside) past 400.
# Usage: layering_test.sh path/to/source-root
set -euo pipefail
cd "$1"
status=0

# Every quoted include of a file, one a line: any spacing around `#` and `include` counts.
quoted_includes() {
  sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1/p' "$1"
}

# Folder -> folder edges from every quoted include: "line/scope.h" is libcoz/line, "platform.h"
# libcoz itself (includes name paths under libcoz/ or coz-cli/, whichever holds the file). Under
# libcoz/ an include names its file from libcoz/ itself: no `..`, and nothing unresolved, so no
# include escapes the edges (and the interpose/ rule below).
edges=""
for f in $(find libcoz coz-cli -name '*.cpp' -o -name '*.h'); do
  from="$(dirname "$f")"
  while read -r inc; do
    if [[ "$f" == libcoz/* ]]; then
      if [[ "/$inc/" == */../* ]]; then
        echo "$f: #include \"$inc\" climbs with ..; name it from libcoz/"
        status=1
        continue
      elif [ ! -e "libcoz/$inc" ]; then
        echo "$f: #include \"$inc\" is no file under libcoz/; name it from libcoz/"
        status=1
        continue
      fi
    fi
    if [ -e "libcoz/$inc" ]; then
      to="$(dirname "libcoz/$inc")"
    elif [ -e "coz-cli/$inc" ]; then
      to="$(dirname "coz-cli/$inc")"
    else
      continue  # a generated or test header (coz-cli/ only)
    fi
    [ "$to" != "$from" ] && edges+="$from $to"$'\n'
  done < <(quoted_includes "$f")
done
if ! tsort <<<"$edges" >/dev/null 2>/tmp/layering.$$; then
  echo "folders include each other in a cycle:"
  cat /tmp/layering.$$
  status=1
fi
rm -f /tmp/layering.$$

# Nor does one reach a libcoz/ header through <...> (libcoz/ is on the include path).
for f in $(find libcoz -name '*.cpp' -o -name '*.h'); do
  while read -r inc; do
    if [ -e "libcoz/$inc" ]; then
      echo "$f: #include <$inc> is libcoz/'s own header; quote it"
      status=1
    fi
  done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<([^>]*)>.*/\1/p' "$f")
done

# The hooks see the runtime through its API header, hooks_api.h, and nothing else of runtime/.
for f in libcoz/interpose/*; do
  while read -r inc; do
    inc="$(realpath -m --relative-to=libcoz "libcoz/$inc")"  # "./runtime/x.h" is runtime/x.h
    if [[ "$inc" == runtime/* && "$inc" != runtime/hooks_api.h ]]; then
      echo "interpose/ includes runtime internals: $f: $inc"
      status=1
    fi
  done < <(quoted_includes "$f")
done

# Only the CLI reads profiles: the runtime's sources never include the reader's headers.
if grep -l 'record/json_line.h\|record_parser' libcoz/runtime/* libcoz/interpose/* 2>/dev/null; then
  echo "the runtime includes the profile reader"
  status=1
fi

# At most $1 lines in each of the files named after it.
at_most() {
  local limit="$1"
  shift
  while read -r n f; do
    if [ "$f" != total ] && [ "$n" -gt "$limit" ]; then
      echo "$f has $n lines; split it by responsibility"
      status=1
    fi
  done < <(wc -l "$@")
}
at_most 450 $(find libcoz coz-cli -name '*.cpp' -o -name '*.h')
at_most 400 $(find viewer -path viewer/node_modules -prune -o -name '*.js' -print)
exit $status
