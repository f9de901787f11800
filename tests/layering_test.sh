#!/usr/bin/env bash
# The layering ARCHITECTURE.md describes, checked: folders include each other one way only (no
# cycle), the hooks see the runtime only through its API header, the runtime carries no
# profile reader, and no source file under libcoz/ or coz-cli/ grows past about 400 lines.
# Usage: layering_test.sh path/to/source-root
set -euo pipefail
cd "$1"
status=0

# Folder -> folder edges from every quoted include: "line/scope.h" is libcoz/line, "platform.h"
# libcoz itself (includes name paths under libcoz/ or coz-cli/, whichever holds the file).
edges=""
for f in $(find libcoz coz-cli -name '*.cpp' -o -name '*.h'); do
  from="$(dirname "$f")"
  while read -r inc; do
    if [ -e "libcoz/$inc" ]; then
      to="$(dirname "libcoz/$inc")"
    elif [ -e "coz-cli/$inc" ]; then
      to="$(dirname "coz-cli/$inc")"
    else
      continue  # a generated or test header
    fi
    [ "$to" != "$from" ] && edges+="$from $to"$'\n'
  done < <(grep -ho '^#include "[^"]*"' "$f" | sed 's/#include "//; s/"$//')
done
if ! tsort <<<"$edges" >/dev/null 2>/tmp/layering.$$; then
  echo "folders include each other in a cycle:"
  cat /tmp/layering.$$
  status=1
fi
rm -f /tmp/layering.$$

# The hooks see the runtime through its API header, hooks_api.h, and nothing else of runtime/.
bad="$(grep -h '#include "runtime/' libcoz/interpose/* | grep -v '"runtime/hooks_api.h"' || true)"
if [ -n "$bad" ]; then
  echo "interpose/ includes runtime internals: $bad"
  status=1
fi

# Only the CLI reads profiles: the runtime's sources never include the reader's headers.
if grep -l 'record/json_line.h\|record_parser' libcoz/runtime/* libcoz/interpose/* 2>/dev/null; then
  echo "the runtime includes the profile reader"
  status=1
fi

# About 400 lines at most per source file.
while read -r n f; do
  if [ "$f" != total ] && [ "$n" -gt 450 ]; then
    echo "$f has $n lines; split it by responsibility"
    status=1
  fi
done < <(find libcoz coz-cli -name '*.cpp' -o -name '*.h' | xargs wc -l)
exit $status
