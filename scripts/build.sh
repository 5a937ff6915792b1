#!/usr/bin/env bash
# Configures and builds LOAZero (Release). Extra arguments go to cmake.
#   scripts/build.sh            into build/, against Debian's LibTorch (CPU):
#                               everything, the tests and benchmarks too
#   scripts/build.sh --target loaz    only the programs (loaz, loaz-torch:
#                               what the main job runs); --target repeats
#   scripts/build.sh --cuda     into build-cuda/, against the LibTorch of the
#                               installed PyTorch (CUDA) with the system's g++
#                               (docs/HARDWARE.md: one C++ runtime)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build
extra=()
targets=()
cuda=0
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cuda) cuda=1 ;;
    --target) targets+=(--target "$2"); shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
set -- "${args[@]+"${args[@]}"}"
if [ $cuda = 1 ]; then
  dir=build-cuda
  python=${PYTHON:-python3}
  prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null) || {
    echo "build.sh --cuda: no PyTorch for $python (pip install torch, or PYTHON=...)" >&2
    exit 1
  }
  "$python" -c 'import torch, sys; sys.exit(0 if torch.version.cuda else 1)' ||
    echo "build.sh --cuda: this PyTorch has no CUDA; the build will run on the CPU" >&2
  export CXX=${CXX:-/usr/bin/g++}
  extra=(-DCMAKE_PREFIX_PATH="$prefix")
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
[ -f "$dir/CMakeCache.txt" ] && generator=()
cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${extra[@]}" "$@"
cmake --build "$dir" -j "$(nproc)" "${targets[@]+"${targets[@]}"}"
