#!/usr/bin/env bash
# An A/B test of two training settings at equal compute: two runs of
# configs/default.yaml, one after the other on the same machine for the same
# wall time, each with its own --set overrides and no evaluation during the
# run; then their last nets meet at equal time per move until the SPRT
# decides or the games run out.
#
# usage: scripts/ab.sh NAME MINUTES "OVERRIDES_A" "OVERRIDES_B" [GAMES=400] [SECONDS_PER_MOVE=0.1]
#   e.g. scripts/ab.sh gumbel 30 "mcts.root=puct" "mcts.root=gumbel"
#
# The runs are runs/NAME-a and runs/NAME-b (an existing one resumes, so an
# interrupted test goes on); the match is written to runs/NAME-ab.json
# (the B net is player A: a positive Elo means B is better). SPRT: H0 Elo 0,
# H1 Elo 30, alpha = beta = 0.05.
set -euo pipefail
if [ $# -lt 4 ] || [ $# -gt 6 ]; then
  sed -n '8,9p' "$0" | sed 's/^# //' >&2
  exit 2
fi
name=$1 minutes=$2 a=$3 b=$4 games=${5:-400} seconds=${6:-0.1}
root=$(cd "$(dirname "$0")/.." && pwd)
loaz=${LOAZ:-$root/build/app/loaz}
hours=$(python3 -c "print($minutes / 60)")
for side in a b; do
  overrides=$([ $side = a ] && echo "$a" || echo "$b")
  sets=()
  for o in $overrides; do sets+=(--set "$o"); done
  run=runs/$name-$side
  if [ -d "$run" ]; then
    "$loaz" train --run "$run" --set run.max_hours="$hours"
  else
    "$loaz" train "$root/configs/default.yaml" --set run.name="$name-$side" --set run.max_hours="$hours" \
      --set eval.every_checkpoints=0 "${sets[@]}"
  fi
  "$loaz" export --run "$run" -o "$run/net.safetensors"
done
"$loaz" match "mcts:net=runs/$name-b/net.safetensors,time=$seconds" "mcts:net=runs/$name-a/net.safetensors,time=$seconds" \
  --games "$games" --openings random:plies=4 --threads 2 --sprt 0,30,0.05,0.05 --summary "runs/$name-ab.json"
