#!/usr/bin/env bash
# Packages the tests' own build tree as a packager's would be (scripts/package.sh --built: cpack,
# for /usr, from the objects already built, so nothing is compiled twice), then checks the .deb's
# control fields and contents and uses the extracted tree: `coz run`, `coz report` and
# `coz plot` from it, and the sample projects built against its header with find_package and
# pkg-config. Installing it for real (`apt-get install ./coz-amp_*.deb`) would replace the
# machine's coz-profiler, so the test stops at extraction. Exit 77 (skipped) without dpkg-deb or
# with COZ_SKIP_DEB=1.
# usage: deb_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$1"
source_dir="$2"
if ! command -v dpkg-deb >/dev/null || [ "${COZ_SKIP_DEB:-}" = 1 ]; then
  echo "skipped: no dpkg-deb, or COZ_SKIP_DEB=1"
  exit 77
fi
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$source_dir/tests/install/use_installed.sh"
dir="$build/deb-test"
rm -rf "$dir"
deb=$(bash "$source_dir/scripts/package.sh" --built "$build" "$dir" | tail -1)
[ -f "$deb" ] || fail "scripts/package.sh made no .deb (said: $deb)"

field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = coz-amp ] || fail "Package: $(field Package)"
dpkg --compare-versions "$(field Version)" gt 0.2.2-2 || fail "Version $(field Version) does not sort after coz-profiler's"
for dep in libdw1 libelf1; do
  [[ ", $(field Depends)," == *", $dep "* ]] || fail "Depends lacks $dep: $(field Depends)"
done
for relation in Conflicts Replaces Provides; do
  [ "$(field $relation)" = coz-profiler ] || fail "$relation: $(field $relation)"
done
contents=$(dpkg-deb -c "$deb" | awk '{print $NF}')
for f in ./usr/bin/coz ./usr/include/coz.h ./usr/share/man/man1/coz.1 ./usr/share/man/man1/coz-run.1 \
         ./usr/share/coz-amp/viewer/vega-lite.min.js ./usr/share/coz-amp/viewer/THIRD-PARTY-LICENSES.txt \
         ./usr/share/coz-amp/viewer/coz-reader.wasm \
         ./usr/share/bash-completion/completions/coz ./usr/share/pkgconfig/coz-amp.pc \
         ./usr/share/cmake/coz-amp/coz-amp-config.cmake ./usr/share/doc/coz-amp/copyright; do
  grep -qxF "$f" <<<"$contents" || fail "$f is not in the package"
done
grep -qE '^\./usr/lib/[^/]+/coz-amp/libcoz\.so$' <<<"$contents" ||
  fail "the runtime is not in /usr/lib/<multiarch>/coz-amp: $(grep libcoz <<<"$contents")"
if grep -E '^\./usr/lib/([^/]+/)?libcoz' <<<"$contents"; then
  fail "a libcoz on the linker's path would clash with coz-profiler's"
fi

root="$dir/root"
rm -rf "$root"
dpkg-deb -x "$deb" "$root"
grep -q "/usr/share/coz-amp/viewer/THIRD-PARTY-LICENSES.txt" "$root/usr/share/doc/coz-amp/copyright" ||
  fail "the copyright file does not say where the bundled libraries' licences are"
build_samples "$root/usr" "$dir/work"
echo "$deb: $(field Version), $(dpkg-deb -f "$deb" Installed-Size) KiB installed"
