#!/usr/bin/env bash
# The main job: set up, build, then ten minutes of training on
# configs/quick.yaml (self-play, training, evaluations against ab:depth=1 and
# ab:depth=2), the Elo table and plots, and one move by the engine with the
# run's export. Run again, it resumes (and stops at once,
# its ten minutes spent).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh --target loaz   # the programs only: the tests build with scripts/test.sh
loaz=build/app/loaz
run=runs/quick
$loaz train configs/quick.yaml
$loaz eval --run $run --table-only
python3 scripts/plot.py $run
echo "plots: $run/eval/losses.png $run/eval/elo.png $run/eval/selfplay.png"
# The run's export at its end: the mean of its last checkpoints (train.export_average).
printf 'showboard\ngenmove b\nquit\n' | $loaz gtp --player mcts:net=$run/net.safetensors,playouts=400
