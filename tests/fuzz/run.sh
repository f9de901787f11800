#!/usr/bin/env bash
# Builds the fuzz targets with clang (COZ_FUZZ=ON) in BUILD_DIR and runs each for SECONDS on a
# seed corpus made from the golden profiles. Any crash, sanitizer report, leak, non-finite number
# in a report or input taking over 5 s fails it. Exits 77 (skipped) when clang is not installed.
# usage: tests/fuzz/run.sh BUILD_DIR [SECONDS]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: tests/fuzz/run.sh BUILD_DIR [SECONDS]}
seconds=${2:-25}
if ! command -v clang++ >/dev/null || ! command -v clang >/dev/null; then
  echo "fuzz: clang is not installed (scripts/deps.sh installs it); skipped"
  exit 77
fi
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DCOZ_FUZZ=ON -DBUILD_TESTING=OFF -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build "$build" --target profile_reader_fuzz page_builder_fuzz

# Seeds: every golden profile, and for the page builder each with a C source appended.
seeds="$build/fuzz-seeds"
rm -rf "$seeds"
mkdir -p "$seeds/profile_reader_fuzz" "$seeds/page_builder_fuzz"
for f in "$src"/tests/golden/*.coz; do
  cp "$f" "$seeds/profile_reader_fuzz/"
  cp "$f" "$seeds/page_builder_fuzz/"
  { cat "$f"; printf '\n@@source@@\n'; cat "$src/tests/programs/two_hot.c"; } \
    > "$seeds/page_builder_fuzz/$(basename "$f").with-source"
done

# libFuzzer exits 77 on a crash by default, which ctest would take for "skipped": 1 instead. The
# two targets fuzz side by side, each into its own log, shown once both have finished.
pids=()
for target in profile_reader_fuzz page_builder_fuzz; do
  corpus="$build/fuzz-corpus/$target"  # grows between runs; the seeds stay as they are
  mkdir -p "$corpus"
  "$build/bin/$target" -max_total_time="$seconds" -timeout=5 -error_exitcode=1 -timeout_exitcode=1 -rss_limit_mb=2048 -max_len=16384 \
    -dict="$src/tests/fuzz/profile.dict" -print_final_stats=1 -artifact_prefix="$build/fuzz-$target-" \
    "$corpus" "$seeds/$target" >"$build/fuzz-$target.log" 2>&1 &
  pids+=($!)
done
status=0
for i in 0 1; do
  wait "${pids[$i]}" || status=1
done
for target in profile_reader_fuzz page_builder_fuzz; do
  echo "fuzz: $target for ${seconds}s"
  cat "$build/fuzz-$target.log"
done
exit $status
