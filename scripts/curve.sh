#!/usr/bin/env bash
# A run's strength curve on an idle machine: the checkpoint nearest to each
# given hour of run time (the table says its own) is exported and plays a
# fresh match against OPPONENT at SECONDS a move (the net's search on one
# thread), two games at a time from random 4-ply openings; then the table.
# Unlike scripts/strength.sh, no game the run played during training counts.
#
# usage: scripts/curve.sh RUN_DIR [OPPONENT=ab:time=0.1] [GAMES=200] [HOURS="1 2 3 4"] [SECONDS=0.1]
#   e.g. scripts/curve.sh runs/h4 "ab:time=0.1" 200 "1 2 3 4"
# environment: LOAZ (build/app/loaz)
#
# Writes RUN_DIR/eval/curve/hH.safetensors and hH_vs_OPPONENT.json (the
# match summary, `loaz match --summary`); a point whose summary exists is
# not played again, so an interrupted curve goes on where it stopped.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 5 ]; then
  sed -n '8p' "$0" | sed 's/^# //' >&2
  exit 2
fi
run=$1 opponent=${2:-ab:time=0.1} games=${3:-200} hours=${4:-1 2 3 4} seconds=${5:-0.1}
root=$(cd "$(dirname "$0")/.." && pwd)
loaz=${LOAZ:-$root/build/app/loaz}
out=$run/eval/curve
mkdir -p "$out"
tag=$(tr -c 'A-Za-z0-9.=\n' '_' <<<"$opponent")

# The step and run time of the checkpoint nearest to run time H (so that
# the last hour's is the one the run wrote when its budget ran out).
checkpoint_at() {
  python3 - "$run/metrics.jsonl" "$1" <<'EOF'
import json, sys
points = [e for e in map(json.loads, open(sys.argv[1])) if e.get("event") == "checkpoint"]
if not points:
    sys.exit(f"{sys.argv[1]}: no checkpoint")
best = min(points, key=lambda e: (abs(e["hours"] - float(sys.argv[2])), -e["step"]))
print(best["step"], f"{best['hours']:.2f}")
EOF
}

rows=()
for h in $hours; do
  read -r step at <<<"$(checkpoint_at "$h")"
  net=$out/h$h.safetensors summary=$out/h${h}_vs_$tag.json
  if [ ! -s "$summary" ]; then
    "$loaz" export --run "$run" --step "$step" -o "$net" >/dev/null
    "$loaz" match "mcts:net=$net,time=$seconds,threads=1" "$opponent" --games "$games" \
      --openings random:plies=4 --threads 2 --summary "$summary" >/dev/null
  fi
  rows+=("$(python3 - "$summary" "$h" "$at" "$step" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"| {sys.argv[2]} h ({sys.argv[3]}) | {sys.argv[4]} | {s['games']} | +{s['wins']} ={s['draws']} -{s['losses']} "
      f"| {100 * s['score']:.1f}% | {s['elo']:+.0f} +- {s['elo_ci95']:.0f} |")
EOF
)")
done
echo "$run against $opponent, $seconds s a move"
echo "| run time (checkpoint's) | step | games | +W =D -L | score | Elo (95%) |"
echo "| --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
