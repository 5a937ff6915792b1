#!/usr/bin/env bash
# The main job: set up, build, then a short training run on configs/tiny.yaml
# (self-play, training, an evaluation against the baseline), an export, and
# one move by the engine with the exported net. Run again, it resumes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
loaz=build/app/loaz
$loaz train configs/tiny.yaml
$loaz export --run runs/tiny -o runs/tiny/tiny.safetensors
printf 'showboard\ngenmove b\nquit\n' | $loaz gtp --player mcts:net=runs/tiny/tiny.safetensors,playouts=64
