#!/usr/bin/env bash
# Installs the Debian 12 packages needed to build and test the profiler. Idempotent: does nothing
# (not even apt-get update) when everything is already installed.
set -euo pipefail

packages=(cmake ninja-build g++ gcc make pkg-config binutils libc6-dev libdw-dev libelf-dev libgtest-dev)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

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
