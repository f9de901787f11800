#!/usr/bin/env bash
# Runs the whole test suite five times, to show it passes at any CPU speed (issue 24): three
# times in a row, once with the CPU slowed by a busy loop on every core (same priority), and once
# with the test programs doing a third of their work per unit (TEST_WORK_SCALE=0.33, as on a CPU
# three times faster). Prints a line per pass and exits non-zero if any failed. Not run by CI.
# usage: scripts/test_any_speed.sh [BUILD_DIR [CTEST_ARGS...]]
#   BUILD_DIR   configured and built first (default build/, by scripts/build.sh)
#   CTEST_ARGS  passed on to each ctest, e.g. -R CozRun or -E 'Fuzz|Debian'
set -uo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
shift $(($# > 0 ? 1 : 0))
if [ "$build" = build ]; then
  bash scripts/build.sh || exit 1
else
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
    cmake --build "$build" -j "$(nproc)" || exit 1
fi
logs="$(cd "$build" && pwd)/test-any-speed"
mkdir -p "$logs"

busy=()
stop_busy() {
  for pid in "${busy[@]}"; do
    kill "$pid" 2>/dev/null
  done
  for pid in "${busy[@]}"; do
    wait "$pid" 2>/dev/null
  done
  busy=()
}
trap stop_busy EXIT
trap 'exit 130' INT TERM

# pass NAME [VAR=VALUE...]: runs ctest with the variables set; one summary line.
failed=0
pass() {
  local name="$1" log="$logs/$1.log" start status summary
  shift
  start=$(date +%s)
  (cd "$build" && env "$@" ctest --output-on-failure --timeout 300 -j 1 "${ctest_args[@]}") \
    >"$log" 2>&1
  status=$?
  summary=$(grep -E '^[0-9]+% tests passed' "$log" | tail -1)
  printf '%-10s %s in %ds: %s\n' "$name" "$([ $status = 0 ] && echo passed || echo FAILED)" \
    "$(($(date +%s) - start))" "${summary:-ctest did not finish (exit $status)}"
  if [ $status != 0 ]; then
    failed=1
    sed -n '/The following tests FAILED:/,$p' "$log" | grep -E '^\s+[0-9]+ - ' |
      sed 's/^\s*/           /'
    echo "           log: $log"
  fi
}
ctest_args=("$@")

for i in 1 2 3; do
  pass "normal-$i"
done
for _ in $(seq "$(nproc)"); do
  (while :; do :; done) &
  busy+=($!)
done
pass loaded
stop_busy
pass scale-0.33 TEST_WORK_SCALE=0.33
exit $failed
