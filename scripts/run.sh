#!/usr/bin/env bash
# The main job: set up, build, then a short demo run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
loaz=build/app/loaz
$loaz perft --depth 5 --threads "$(nproc)"
for game in ../shared/testdata/games/appendix_E_game1.txt; do
  [ -f "$game" ] && $loaz replay "$game"
done
