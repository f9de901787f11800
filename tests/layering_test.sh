#!/usr/bin/env bash
# The layering ARCHITECTURE.md describes, checked: folders include each other one way only (no
# cycle; libcoz/ names its includes from libcoz/, in quotes, without ..), and so do the files of
# libcoz/ (a header and its .cpp one node: no file's .cpp includes a header whose .cpp includes
# its own back), the hooks see the runtime only through its API header, the runtime carries no
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

# Says `what` and the loop when the edges ("from to" lines) hold a cycle.
acyclic() {
  local loop
  if ! loop="$(tsort <<<"$1" 2>&1 >/dev/null)"; then
    echo "$2"
    echo "$loop"
    status=1
  fi
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
acyclic "$edges" "folders include each other in a cycle:"

# File -> file edges inside libcoz/, a header and its .cpp one node ("runtime/runtime").
file_edges=""
for f in $(find libcoz -name '*.cpp' -o -name '*.h'); do
  from="${f#libcoz/}"
  from="${from%.*}"
  while read -r inc; do
    to="${inc%.*}"
    [ -e "libcoz/$inc" ] && [ "$to" != "$from" ] && file_edges+="$from $to"$'\n'
  done < <(quoted_includes "$f")
done
acyclic "$file_edges" "files of libcoz/ include each other in a cycle (a lower one includes a higher one back):"

# Nor does one reach a libcoz/ header through <...> (libcoz/ is on the include path).
for f in $(find libcoz -name '*.cpp' -o -name '*.h'); do
  while read -r inc; do
    if [ -e "libcoz/$inc" ]; then
      echo "$f: #include <$inc> is libcoz/'s own header; quote it"
      status=1
    fi
  done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<([^>]*)>.*/\1/p' "$f")
done

# The hooks see the runtime through its API header, hooks/hooks_api.h, and below it only the
# lowest layer (base/) and the sampling signal's bookkeeping (signals/sample_signal.h).
for f in libcoz/interpose/*; do
  while read -r inc; do
    inc="$(realpath -m --relative-to=libcoz "libcoz/$inc")"  # "./runtime/x.h" is runtime/x.h
    case "$inc" in
      interpose/* | base/* | signals/sample_signal.h | hooks/hooks_api.h) ;;
      *)
        echo "interpose/ reaches past hooks/hooks_api.h: $f: $inc"
        status=1
        ;;
    esac
  done < <(quoted_includes "$f")
done

# Only the CLI reads profiles: the runtime's sources never include the reader's headers.
if grep -rl 'record/json_line.h\|record_parser' libcoz --include='*.cpp' --include='*.h' |
  grep -v '^libcoz/record/'; then
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
