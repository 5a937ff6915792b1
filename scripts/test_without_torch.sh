#!/usr/bin/env bash
# Builds LOAZero without LibTorch (-DLOAZ_TORCH=OFF) into build-notorch/, with
# link-time optimisation and -Werror=odr (one definition of every name across
# the modules), and runs the tests of that build: the rules, the baseline,
# MCTS, the cpu evaluator, matches, the engine, the config.
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
[ -f build-notorch/CMakeCache.txt ] && generator=()
cmake -S . -B build-notorch "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DLOAZ_TORCH=OFF -DLOAZ_BENCH=OFF \
  -DCMAKE_CXX_FLAGS="-flto=auto -Werror=odr" -DCMAKE_EXE_LINKER_FLAGS="-flto=auto -Werror=odr"
cmake --build build-notorch -j "$(nproc)"
cd build-notorch
ctest --output-on-failure -j "$(nproc)" --timeout 1200
