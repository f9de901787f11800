#!/usr/bin/env bash
# The tree follows its .clang-format: every C and C++ file under libcoz/, coz-cli/, include/ and
# tests/ (fixture programs, whose markers must stay on their lines, opt out in
# tests/programs/.clang-format). Fails without clang-format (scripts/deps.sh installs it: a
# style check skipped in silence is a check that never runs). To fix a failure:
# clang-format -i <file>.
set -euo pipefail
root="$1"
if ! command -v clang-format >/dev/null; then
  echo "clang-format is not installed: run bash scripts/deps.sh (it installs it)"
  exit 1
fi
cd "$root"
mapfile -t files < <(find libcoz coz-cli include tests -type f \( -name '*.c' -o -name '*.cpp' -o -name '*.h' \) \
  -not -path 'tests/programs/*' | sort)
if ! clang-format --dry-run --Werror "${files[@]}"; then
  echo "not formatted as .clang-format says: run clang-format -i on the files above"
  exit 1
fi
echo "${#files[@]} files follow .clang-format"
