#!/usr/bin/env bash
# Installs every Debian package LOAZero needs, skipping what is installed,
# then the browser test's puppeteer-core from the npm registry
# (tests/serve/package-lock.json).
# Usage: scripts/setup.sh   (as root, or with sudo available)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libtorch-dev libopenblas0-openmp
  libeigen3-dev libdnnl-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-numpy python3-matplotlib
  libcpp-httplib-dev libjs-chart.js chromium
)
# Node.js for the browser test: Debian's, unless the machine has one.
command -v node >/dev/null || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages are installed"
else
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# puppeteer-core drives Debian's Chromium; it downloads no browser.
cd "$(dirname "$0")/../tests/serve"
if [ ! -d node_modules/puppeteer-core ]; then
  echo "setup: npm ci in tests/serve (puppeteer-core)"
  npm ci --no-audit --no-fund --loglevel=error
fi
