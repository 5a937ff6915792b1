#!/usr/bin/env bash
# The main job: set up, build, then ten minutes of training on
# configs/quick.yaml (self-play, training, evaluations against ab:depth=1 and
# ab:depth=2), the Elo table and plots, an export, and one move by the
# engine with the exported net. Run again, it resumes (and stops at once,
# its ten minutes spent).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
loaz=build/app/loaz
run=runs/quick
$loaz train configs/quick.yaml
$loaz eval --run $run --table-only
python3 scripts/plot.py $run
echo "plots: $run/eval/losses.png $run/eval/elo.png $run/eval/selfplay.png"
$loaz export --run $run -o $run/quick.safetensors
printf 'showboard\ngenmove b\nquit\n' | $loaz gtp --player mcts:net=$run/quick.safetensors,playouts=400
