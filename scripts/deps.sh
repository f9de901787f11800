#!/usr/bin/env bash
# Installs what is needed to build and test the profiler on Debian 12: the Debian packages, and
# the viewer's npm packages (pinned by viewer/package-lock.json; `npm ci`). Idempotent: does
# nothing (not even apt-get update) when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

# clang: the fuzz targets (tests/fuzz, libFuzzer with ASan and UBSan) build with it, and
# libclang-rt-14-dev holds the libFuzzer and sanitizer runtimes they link (a Recommends of clang);
# clang-format: the style check (tests/format_test.sh); libcli11-dev: the CLI's option parsing;
# man-db: the install test renders the man pages and runs `man coz`; wasi-libc, the wasm32 libc++,
# libc++abi and compiler runtime, and lld-14: the viewer's profile reader, built for WebAssembly.
packages=(cmake ninja-build g++ gcc make pkg-config binutils libc6-dev libdw-dev libelf-dev libgtest-dev clang man-db
          libclang-rt-14-dev clang-format libcli11-dev wasi-libc libc++-14-dev-wasm32
          libc++abi-14-dev-wasm32 libclang-rt-14-dev-wasm32 lld-14)

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
if [ ! -x /usr/bin/chromium ]; then
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
