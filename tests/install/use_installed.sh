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

# build_samples PREFIX WORK: builds the two sample projects (tests/install/sample) in WORK against
# the header installed in PREFIX, one with CMake's find_package(coz-amp) and one with a Makefile
# and pkg-config, then profiles, reports and plots each with PREFIX/bin/coz (use_installed).
# Needs source_dir (the caller's).
build_samples() {
  local prefix="$1" work="$2"
  mkdir -p "$work"
  cmake -S "$source_dir/tests/install/sample" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null ||
    fail "find_package(coz-amp) failed"
  cmake --build "$work/cmake" >/dev/null || fail "the CMake sample does not build"
  [ "$(cat "$work/cmake/coz-executable.txt")" -ef "$prefix/bin/coz" ] ||
    fail "COZ_AMP_EXECUTABLE is not the installed coz"
  cp "$source_dir/tests/install/sample/main.c" "$source_dir/tests/install/sample/Makefile" "$work/"
  PKG_CONFIG_PATH="$prefix/share/pkgconfig" make -s -C "$work" sample >/dev/null ||
    fail "the Makefile sample does not build"
  [[ $(PKG_CONFIG_PATH="$prefix/share/pkgconfig" pkg-config --cflags coz-amp) == *"$prefix"* ]] ||
    fail "pkg-config --cflags coz-amp does not point into the prefix"
  (cd "$work" && use_installed "$prefix/bin/coz" ./cmake/sample && use_installed "$prefix/bin/coz" ./sample)
}
