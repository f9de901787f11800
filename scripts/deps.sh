#!/usr/bin/env bash
# Installs what is needed on Debian 12: the Debian packages, and the viewer's npm packages (pinned
# by viewer/package-lock.json; `npm ci`). Idempotent: does nothing (not even apt-get update) when
# everything is already there.
# usage: scripts/deps.sh [demo]
#   demo  only what scripts/demo.sh needs: the compilers, the libraries the build links, Node.js
#         and npm; no clang, wasm32 libraries or Chromium (on a fresh Debian 12, 425 packages and
#         116 MB to fetch instead of 597 and 349 MB; 335 of the 425 are Debian's npm)
#   (none) everything, to build and test the whole project (scripts/test.sh, scripts/package.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

# The demo's: the build (libcli11-dev: the CLI's option parsing; libgtest-dev: the tests'
# directory, where the example program is, configures with it) and the viewer's npm packages.
packages=(cmake ninja-build g++ gcc pkg-config libdw-dev libelf-dev libgtest-dev libcli11-dev)
if [ "${1:-}" != demo ]; then
  # clang: the fuzz targets (tests/fuzz, libFuzzer with ASan and UBSan) build with it, and
  # libclang-rt-14-dev holds the libFuzzer and sanitizer runtimes they link (a Recommends of
  # clang); clang-format: the style check (tests/format_test.sh); make: the install tests' sample
  # Makefile; man-db: the install test renders the man pages and runs `man coz`; wasi-libc, the
  # wasm32 libc++, libc++abi and compiler runtime, and lld-14: the viewer's profile reader, built
  # for WebAssembly (the demo's pages go without it: coz-cli/CMakeLists.txt, COZ_PAGE_READER).
  packages+=(make binutils libc6-dev clang man-db libclang-rt-14-dev clang-format wasi-libc
             libc++-14-dev-wasm32 libc++abi-14-dev-wasm32 libclang-rt-14-dev-wasm32 lld-14)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# Node.js may come from elsewhere (NodeSource bundles npm): only install Debian's when absent.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  missing+=(nodejs npm)
fi
# The browser the viewer's tests drive (Playwright never downloads one here).
if [ "${1:-}" != demo ] && [ ! -x /usr/bin/chromium ]; then
  missing+=(chromium)
fi

if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
      echo "deps.sh: need root to install: ${missing[*]} (run as root or install sudo)" >&2
      exit 1
    fi
    sudo="sudo"
  fi
  echo "deps.sh: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The viewer's libraries (bundled into every page `coz plot` writes), esbuild (which bundles its
# script) and Playwright for its tests, exactly as locked. Skipped when node_modules already
# matches the lock file.
if [ ! -f viewer/node_modules/.package-lock.json ] || [ viewer/package-lock.json -nt viewer/node_modules/.package-lock.json ]; then
  echo "deps.sh: npm ci in viewer/"
  (cd viewer && npm ci --no-audit --no-fund --loglevel=error)
fi
