#!/usr/bin/env bash
# Installs every Debian package LOAZero needs, skipping what is installed
# (patchelf and mmdebstrap make and test the bundle, scripts/bundle.sh;
# Charliecloud and Podman make and run the image, scripts/image.sh; clang and its runtimes build the fuzz targets, scripts/fuzz.sh;
# XBoard and Xvfb run the engine in XBoard, tests/app/xboard_gui_test.sh;
# Universal Ctags finds the functions for tests/app/function_length_test.py):
# nothing comes from another registry (the browser test drives Debian's
# Chromium through chromium-driver and python3-selenium).
# Usage: scripts/setup.sh   (as root, or with sudo available)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libtorch-dev libopenblas0-openmp
  libeigen3-dev libdnnl-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-numpy python3-matplotlib
  libcpp-httplib-dev libjs-chart.js chromium chromium-driver python3-selenium
  slurmctld slurmd slurm-client munge
  patchelf mmdebstrap charliecloud-runtime charliecloud-builders podman
  clang libclang-rt-14-dev libomp-dev
  xboard xvfb xauth
  universal-ctags
)

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
