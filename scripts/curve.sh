#!/usr/bin/env bash
# A run's strength curve on an idle machine: the checkpoint nearest to each
# given hour of run time (the table says its own) is exported and plays a
# fresh match against OPPONENT at SECONDS a move (the net's search on one
# thread), two games at a time from random 4-ply openings; then the table.
# Unlike scripts/strength.sh, no game the run played during training counts.
#
# usage: scripts/curve.sh RUN_DIR [OPPONENT=ab:time=0.1] [GAMES=200] [HOURS="1 2 3 4"] [SECONDS=0.1]
#   e.g. scripts/curve.sh runs/h4 "ab:time=0.1" 200 "1 2 3 4"
# environment: LOAZ (build/app/loaz); AVERAGE=N plays at each hour the mean
#   of the N newest checkpoints up to it (`loaz export --average N`, as a
#   run's own export at its end; fewer where the run has fewer) instead of
#   the checkpoint alone.
#
# Writes RUN_DIR/eval/curve/hH[_avgN].safetensors, hH[_avgN]_vs_OPPONENT.json
# (the match summary, `loaz match --summary`) and its games' records in
# hH[_avgN]_vs_OPPONENT/; a point whose summary exists is not played again,
# and one cut short keeps the games it recorded (`loaz match --resume`), so
# an interrupted curve goes on where it stopped.
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
average=${AVERAGE:-1}
[[ $average =~ ^[1-9][0-9]*$ ]] || { echo "curve.sh: AVERAGE=$average is not a positive count" >&2; exit 2; }

# The step and run time of the checkpoint nearest to run time H (so that
# the last hour's is the one the run wrote when its budget ran out), and how
# many checkpoints up to it an average of AVERAGE takes.
checkpoint_at() {
  python3 - "$run/metrics.jsonl" "$1" "$average" <<'EOF'
import json, os, re, sys
points = [e for e in map(json.loads, open(sys.argv[1])) if e.get("event") == "checkpoint"]
if not points:
    sys.exit(f"{sys.argv[1]}: no checkpoint")
best = min(points, key=lambda e: (abs(e["hours"] - float(sys.argv[2])), -e["step"]))
# Counted on disk: a run with train.keep_checkpoints keeps only its newest.
run_dir = os.path.dirname(sys.argv[1]) or "."
older = [f for f in os.listdir(f"{run_dir}/checkpoints")
         if re.fullmatch(r"ckpt_(\d+)\.pt", f) and int(f[5:-3]) <= best["step"]]
print(best["step"], f"{best['hours']:.2f}", min(int(sys.argv[3]), len(older)))
EOF
}

rows=()
for h in $hours; do
  read -r step at count <<<"$(checkpoint_at "$h")"
  name=h$h
  [ "$average" = 1 ] || name=${name}_avg$average
  net=$out/$name.safetensors summary=$out/${name}_vs_$tag.json
  if [ ! -s "$summary" ]; then
    "$loaz" export --run "$run" --step "$step" --average "$count" -o "$net" >/dev/null
    "$loaz" match "mcts:net=$net,time=$seconds,threads=1" "$opponent" --games "$games" \
      --openings random:plies=4 --threads 2 --out "${summary%.json}" --resume --summary "$summary" >/dev/null
  fi
  rows+=("$(python3 - "$summary" "$h" "$at" "$step" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"| {sys.argv[2]} h ({sys.argv[3]}) | {sys.argv[4]} | {s['games']} | +{s['wins']} ={s['draws']} -{s['losses']} "
      f"| {100 * s['score']:.1f}% | {s['elo']:+.0f} +- {s['elo_ci95']:.0f} |")
EOF
)")
done
what=checkpoints
[ "$average" = 1 ] || what="means of the $average newest checkpoints up to each"
echo "$run ($what) against $opponent, $seconds s a move"
echo "| run time (checkpoint's) | step | games | +W =D -L | score | Elo (95%) |"
echo "| --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
