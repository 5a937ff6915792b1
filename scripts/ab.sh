#!/usr/bin/env bash
# A/B tests of training settings at equal compute: one run of
# configs/default.yaml (AB_CONFIG) per arm, all at the same time on the same machine for
# the same wall time (so each arm gets the same share of the cores and the
# same background noise), each with its own --set overrides and no
# evaluation during the run; then the export of every other arm (what the
# run writes at its end: the mean of its last train.export_average
# checkpoints) meets the first arm's at equal time per move until the SPRT
# decides or the games run out. Before the matches it prints what each arm
# made: games, positions (and an hour), samples, steps, and the CPU time it
# took (this sitting's: a setting that trains more takes more of the cores
# from the arms beside it; AB_PIN=1 gives each arm a core of its own).
#
# usage: scripts/ab.sh NAME MINUTES "OVERRIDES_A" "OVERRIDES_B" ["OVERRIDES_C" ...]
#   e.g. scripts/ab.sh gumbel 30 "" "mcts.root=gumbel"
# environment: AB_GAMES (400), AB_SECONDS (0.1 per move), LOAZ (build/app/loaz),
#   AB_FROM=RUN[:STEP]: the arms are forks of RUN at checkpoint STEP (default
#   the newest; `loaz fork`) that run MINUTES more, to test a run's later hours;
#   AB_RUNS: the folder of the arms (runs; one outside the checkout survives a
#   new work tree), AB_CONFIG: the arms' config (configs/default.yaml),
#   AB_PIN=1: arm j runs on core j alone (taskset), a core per arm,
#   AB_OFFLINE=RUN[,RUN...]: the arms are trainers alone (`loaz trainer`), each
#   a fresh net trained for MINUTES on the pooled replay shards of those runs
#   (docs/TRAINING.md, "D3 at 40 minutes' data"): every sample in the window,
#   the rate run down over the budget's second half, no self-play (not with AB_FROM),
#   AB_PLAYOUTS=N: the match at N playouts a move each instead of AB_SECONDS,
#   AB_THREADS=N: games at a time in each match (2; 1 leaves a core to
#   another match beside it)
#
# With AB_FROM, every arm (the first too) is `loaz fork --run RUN --step STEP
# --to AB_RUNS/NAME-x` with its overrides, so the arms share RUN's hours up to
# STEP and differ in their tails only; an override of net.blocks grows the net.
# The runs are AB_RUNS/NAME-a, AB_RUNS/NAME-b, ... (an existing one resumes, so
# an interrupted test goes on); the match of arm X against arm A is written to
# AB_RUNS/NAME-xa.json (X is player A: a positive Elo means X is better), its
# games to AB_RUNS/NAME-xa.games/ (a match cut short keeps them: `loaz match
# --resume`). SPRT: H0 Elo 0, H1 Elo 30, alpha = beta = 0.05.
set -euo pipefail
if [ $# -lt 4 ] || [ $# -gt 8 ]; then
  sed -n '14,28p' "$0" | sed 's/^# //' >&2
  exit 2
fi
name=$1 minutes=$2
shift 2
games=${AB_GAMES:-400} seconds=${AB_SECONDS:-0.1} match_threads=${AB_THREADS:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
loaz=${LOAZ:-$root/build/app/loaz}
dir=${AB_RUNS:-runs} config=${AB_CONFIG:-$root/configs/default.yaml}
mkdir -p "$dir"
hours=$(python3 -c "print($minutes / 60)")
# Idle OpenMP threads sleep instead of spinning, so that no arm burns the
# cores the others need.
export OMP_WAIT_POLICY=PASSIVE
# The offline arms' recipe: the whole pooled replay as the window, trained
# without a ratio to new samples, the rate annealed to the budget.
offline=(--set replay.window=1000000000 --set replay.window_start=0 --set replay.min_samples=1000
         --set replay.max_train_ratio=1000000 --set replay.max_train_credit=0 --set train.lr_to_budget=true
         --set train.lr_budget_tail=0.5 --set train.checkpoint_every=500)
limit="time=$seconds"
[ -n "${AB_PLAYOUTS:-}" ] && limit="playouts=$AB_PLAYOUTS"
if [ -n "${AB_FROM:-}" ] && [ -n "${AB_OFFLINE:-}" ]; then
  echo "ab.sh: AB_FROM and AB_OFFLINE exclude each other (forks of one run, or trainers on pooled shards)" >&2
  exit 2
fi
if [ "${AB_PIN:-0}" = 1 ] && [ $# -gt "$(nproc)" ]; then
  echo "ab.sh: AB_PIN=1 needs a core per arm ($# arms, $(nproc) cores)" >&2
  exit 2
fi

arms=(a b c d e f)
pids=()
i=0
for overrides in "$@"; do
  side=${arms[$i]}
  sets=()
  for o in $overrides; do sets+=(--set "$o"); done
  run=$dir/$name-$side
  if [ -n "${AB_FROM:-}" ]; then
    source_run=${AB_FROM%%:*} step=
    [ "$source_run" != "$AB_FROM" ] && step=${AB_FROM#*:}
    if [ ! -d "$run" ]; then
      "$loaz" fork --run "$source_run" ${step:+--step "$step"} --to "$run" --set eval.every_checkpoints=0 "${sets[@]}"
    fi
    # The tail ends MINUTES of run time after the fork's checkpoint.
    start=$(sed -n 's/.*, \([0-9.]*\) h of run time$/\1/p' "$run/FORK.txt")
    cmd=("$loaz" train --run "$run" --set run.max_hours="$(python3 -c "print($start + $minutes / 60)")")
  elif [ -n "${AB_OFFLINE:-}" ]; then
    if [ ! -f "$run/config.yaml" ]; then
      # Each source run's shards, linked under a name of their own,
      # KSOURCE_WRITER_SEQ.shard (K: the source's place in the list, so that
      # two runs of one name never share a file name).
      mkdir -p "$run/selfplay"
      IFS=, read -ra sources <<<"$AB_OFFLINE"
      k=0
      for source in "${sources[@]}"; do
        tag=$k$(basename "$source" | tr -c 'A-Za-z0-9\n' 'x')
        k=$((k + 1))
        found=0
        for shard in "$source"/selfplay/*.shard; do
          [ -e "$shard" ] || continue
          ln -f "$shard" "$run/selfplay/${tag}_$(basename "$shard")" 2>/dev/null ||
            cp -p "$shard" "$run/selfplay/${tag}_$(basename "$shard")"
          found=1
        done
        [ $found = 1 ] || { echo "ab.sh: AB_OFFLINE: $source/selfplay has no shards" >&2; exit 2; }
      done
      cmd=("$loaz" trainer "$config" --set run.name="$name-$side" --set run.directory="$dir"
           --set run.max_hours="$hours" --set eval.every_checkpoints=0 "${offline[@]}" "${sets[@]}")
    else
      cmd=("$loaz" trainer --run "$run" --set run.max_hours="$hours")
    fi
  elif [ -d "$run" ]; then
    cmd=("$loaz" train --run "$run" --set run.max_hours="$hours")
  else
    cmd=("$loaz" train "$config" --set run.name="$name-$side" --set run.directory="$dir"
         --set run.max_hours="$hours" --set eval.every_checkpoints=0 "${sets[@]}")
  fi
  [ "${AB_PIN:-0}" = 1 ] && cmd=(taskset -c "$i" "${cmd[@]}")
  # The arm in a subshell whose `times` is the arm's CPU time.
  (
    rc=0
    "${cmd[@]}" >"$run.log" 2>&1 || rc=$?
    times >"$run.cpu"
    exit $rc
  ) &
  pids+=($!)
  i=$((i + 1))
done
for pid in "${pids[@]}"; do wait "$pid"; done

for ((j = 0; j < i; j++)); do
  run=$dir/$name-${arms[$j]}
  [ -s "$run/net.safetensors" ] || { echo "ab.sh: $run has no export (see $run.log)" >&2; exit 1; }
done
# What each arm made of its share: self-play games, positions (a game's
# plies) and samples, the trainer's steps, and positions per hour of run time.
for ((j = 0; j < i; j++)); do
  python3 - "$dir/$name-${arms[$j]}" "${arms[$j]}" <<'EOF'
import json, sys
games = positions = samples = step = 0
hours = 0.0
for line in open(sys.argv[1] + "/metrics.jsonl"):
    try:
        e = json.loads(line)
    except ValueError:
        continue  # a line cut short by a kill
    hours = max(hours, e.get("hours") or 0.0)
    if e.get("event") == "selfplay" and "shard_games" in e and not e.get("reconciled"):
        games += e["shard_games"]
        positions += e["shard_games"] * e.get("mean_plies", 0)
        samples += e.get("shard_samples", 0)
    elif e.get("event") == "train":
        step = e.get("step", step)
rate = positions / hours if hours > 0 else 0
# The subshell's `times`: its own user and system time, then its children's.
cpu = ""
try:
    with open(sys.argv[1] + ".cpu") as f:
        seconds = 0.0
        for field in f.read().split("\n")[1].split():
            m, s = field.rstrip("s").split("m")
            seconds += 60 * float(m) + float(s)
    cpu = f", {seconds:,.0f} s of CPU this sitting"
except (OSError, IndexError, ValueError):
    pass
if games == 0:  # an offline arm: a trainer alone
    print(f"arm {sys.argv[2]}: a trainer alone, {step} steps, {hours:.2f} h{cpu}")
else:
    print(f"arm {sys.argv[2]}: {games} games, {positions:.0f} positions ({rate:,.0f} an hour of run time), "
          f"{samples} samples, {step} steps, {hours:.2f} h{cpu}")
EOF
done
for ((j = 1; j < i; j++)); do
  x=${arms[$j]}
  "$loaz" match "mcts:net=$dir/$name-$x/net.safetensors,$limit" \
    "mcts:net=$dir/$name-a/net.safetensors,$limit" \
    --games "$games" --openings random:plies=4 --threads "$match_threads" --sprt 0,30,0.05,0.05 \
    --out "$dir/$name-${x}a.games" --resume --summary "$dir/$name-${x}a.json"
done
