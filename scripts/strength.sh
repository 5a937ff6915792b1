#!/usr/bin/env bash
# The strength benchmark: a run's checkpoints at equal time per move against
# the alpha-beta baseline, one per period of the run, then the ratings
# table (with each checkpoint's run time) and the plots.
#
# usage: scripts/strength.sh RUN_DIR [SECONDS_PER_MOVE=0.1] [GAMES=100] [EVERY_HOURS=0.5] [AB_SECONDS=SECONDS_PER_MOVE]
#
# Each checkpoint plays ab:time=AB_SECONDS with time=SECONDS,threads=1 (the
# net's search on one thread; AB_SECONDS above SECONDS gives the baseline
# time odds, which keep a strong run's later hours apart: docs/TRAINING.md),
# GAMES games with colours alternating from random 4-ply openings, two
# games at a time; games the run already played
# against the same opponent count towards GAMES. Writes RUN_DIR/eval/
# ratings.txt, ratings.json and the plots of scripts/plot.py.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 5 ]; then
  sed -n '6p' "$0" | sed 's/^# //' >&2
  exit 2
fi
run=$1 seconds=${2:-0.1} games=${3:-100} every=${4:-0.5}
ab_seconds=${5:-$seconds}
root=$(cd "$(dirname "$0")/.." && pwd)
loaz=${LOAZ:-$root/build/app/loaz}
"$loaz" eval --run "$run" --every-hours "$every" --games "$games" \
  --set eval.time="$seconds" --set "eval.opponents=[\"ab:time=$ab_seconds\"]" \
  --set eval.previous_best=false --set eval.random_plies=4 --set eval.threads=2
python3 "$root/scripts/plot.py" "$run"
