# Sourced by install_test.sh and deb_test.sh: uses an installed coz as a user would.
# use_installed COZ PROGRAM: in the current directory, profiles PROGRAM (a sample of
# tests/install/sample, 2000 units: half a second of CPU time) with COZ, then reports and plots
# the profile.
# Calls fail (the caller's) with one line saying what went wrong.
use_installed() {
  local coz="$1" program="$2" status
  rm -f p.coz p.html
  "$coz" run --experiment-length 50ms -o p.coz --- "$program" 2000 >out.txt 2>err.txt ||
    fail "$coz run --- $program: $(cat err.txt)"
  [ "$(cat out.txt)" = "2000 units" ] || fail "the output of $program changed: $(cat out.txt)"
  grep -q "throughput-point.*name=unit" p.coz ||
    fail "the progress point of $program is not in the profile: $(cat err.txt)"
  status=0
  "$coz" report p.coz >/dev/null 2>&1 || status=$?
  [ "$status" -le 1 ] || fail "$coz report exited $status"
  status=0
  "$coz" plot -o p.html p.coz >/dev/null 2>&1 || status=$?
  [ "$status" -le 1 ] && [ -s p.html ] || fail "$coz plot exited $status"
}
