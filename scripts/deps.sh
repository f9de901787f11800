#!/usr/bin/env bash
# Installs what is needed on Debian 12: the Debian packages, and the viewer's npm packages (pinned
# by viewer/package-lock.json; `npm ci`). Idempotent: does nothing (not even apt-get update) when
# everything is already there.
# usage: scripts/deps.sh [demo]
#   demo  only what scripts/demo.sh needs: the compilers, the libraries the build links and
#         Node.js; no clang, wasm32 libraries or Chromium (docs/testing.md has the counts)
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
if ! command -v node >/dev/null; then
  missing+=(nodejs)
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

# npm itself: the one on the PATH, else npm's own release from the registry, pinned and checked
# against its published sha512, in viewer/.npm/ (Debian's npm package is 335 packages of
# node-* modules, which took two thirds of the demo's apt time).
npm_version=10.8.2
npm_sha512="x/AIjFIKRllrhcb48dqUNAAZl0ig9+qMuN91RpZo3Cb2+zuibfh+KISl6+kVVyktDz230JKc208UkQwwMqyB+w=="
npm=(npm)
if ! command -v npm >/dev/null; then
  npm=(node "$PWD/viewer/.npm/$npm_version/bin/npm-cli.js")
  if [ ! -f "${npm[1]}" ]; then
    if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 18 || (a == 18 && b >= 17) ? 0 : 1)'; then
      echo "deps.sh: node $(node --version) is older than npm $npm_version needs (18.17); install npm, or a newer Node.js" >&2
      exit 1
    fi
    echo "deps.sh: fetching npm $npm_version from registry.npmjs.org"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    url="https://registry.npmjs.org/npm/-/npm-$npm_version.tgz"
    if command -v curl >/dev/null; then  # honours https_proxy and the system's certificates
      curl -fsSL --retry 3 --max-time 300 -o "$tmp/npm.tgz" "$url"
      url="file://$tmp/npm.tgz"
    fi
    node - "$url" "$npm_sha512" "$tmp/npm.tgz" <<'JS'
const [url, sha512, out] = process.argv.slice(2);
const check = (body) => {
  if (require("crypto").createHash("sha512").update(body).digest("base64") !== sha512) {
    console.error(`deps.sh: ${url} does not match its published sha512`);
    process.exit(1);
  }
  require("fs").writeFileSync(out, body);
};
if (url.startsWith("file://")) {
  check(require("fs").readFileSync(url.slice(7)));
  process.exit(0);
}
const request = require("https").get(url, { timeout: 120000 }, (res) => {
  if (res.statusCode !== 200) {
    console.error(`deps.sh: ${url}: HTTP ${res.statusCode}`);
    process.exit(1);
  }
  const parts = [];
  res.on("data", (d) => parts.push(d));
  res.on("end", () => check(Buffer.concat(parts)));
});
request.on("timeout", () => request.destroy(new Error("no answer in 120 s")));
request.on("error", (e) => {
  console.error(`deps.sh: ${url}: ${e.message}`);
  process.exit(1);
});
JS
    mkdir -p "$tmp/npm"
    tar -xzf "$tmp/npm.tgz" -C "$tmp/npm" --strip-components=1
    mkdir -p viewer/.npm
    rm -rf "viewer/.npm/$npm_version"
    mv "$tmp/npm" "viewer/.npm/$npm_version"
    rm -rf "$tmp"
    trap - EXIT
  fi
fi

# The viewer's libraries (bundled into every page `coz plot` writes), esbuild (which bundles its
# script) and Playwright for its tests, exactly as locked. Skipped when node_modules already
# matches the lock file.
if [ ! -f viewer/node_modules/.package-lock.json ] || [ viewer/package-lock.json -nt viewer/node_modules/.package-lock.json ]; then
  echo "deps.sh: npm ci in viewer/"
  (cd viewer && "${npm[@]}" ci --no-audit --no-fund --loglevel=error)
fi
