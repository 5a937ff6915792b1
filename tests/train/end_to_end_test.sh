#!/usr/bin/env bash
# End-to-end tests of a training run with the built binary (CTest runs it):
#  1. a config error names the key and the file (a first net that cannot
#     start the run, too);
#  2. a whole run of configs/tiny.yaml leaves checkpoints, shards, metrics,
#     game records, an evaluation and an export that `loaz gtp` plays, and
#     a fork of it with a deeper net trains on from its checkpoint;
#  3. a run killed with SIGKILL mid-run resumes (past a corrupt checkpoint,
#     saying so) with its counters continuing and no shard lost or doubled;
#  4. SIGINT stops a run cleanly;
#  5. separate self-play and trainer processes share one run directory,
#     the workers end by themselves at the run's end, and `loaz stop` and
#     `loaz status` do what they say; a worker whose trainer is gone stops
#     the run, and a damaged state is named and read as running;
#  6. a resume refuses what would destroy the run (another architecture or
#     rules, an empty or missing config.yaml, a folder for a file, a run name
#     out of the run directory, a bad evaluation opponent), writing nothing;
#  7. a run killed with SIGKILL at several moments, then run to its end, has
#     equal game counts in shards, records and metrics, and no temporary files.
# usage: end_to_end_test.sh LOAZ SOURCE_DIR RUN_COUNTS
set -euo pipefail
loaz=$1
src=$2
run_counts=$3
tmp=$(mktemp -d)
pid=""
cleanup() {
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# Waits (up to $2 seconds) until the command in $1 succeeds.
wait_for() {
  local deadline=$((SECONDS + $2))
  until eval "$1"; do
    [ $SECONDS -lt $deadline ] || fail "timed out waiting for: $1"
    kill -0 "$pid" 2>/dev/null || fail "the run ended before: $1"
    sleep 0.2
  done
}
# Prints the step of the newest checkpoint of run $1.
newest_step() {
  local newest=-1 file step
  for file in "$1"/checkpoints/ckpt_*.pt; do
    [ -e "$file" ] || continue
    step=${file##*/ckpt_}
    step=$((10#${step%.pt}))
    if [ "$step" -gt "$newest" ]; then newest=$step; fi
  done
  echo "$newest"
}

echo "== 1. config errors"
printf 'train:\n  bach_size: 3\n' >"$tmp/bad.yaml"
if "$loaz" train "$tmp/bad.yaml" 2>"$tmp/err"; then fail "a bad config was accepted"; fi
grep -q "bad.yaml" "$tmp/err" && grep -q "train.bach_size" "$tmp/err" || fail "message: $(cat "$tmp/err")"
if "$loaz" train "$src/configs/tiny.yaml" --set train.batch_size=0 2>"$tmp/err"; then fail "batch_size 0 accepted"; fi
grep -q "train.batch_size" "$tmp/err" || fail "message: $(cat "$tmp/err")"
# A first net of another shape stops the run before its folder exists.
if "$loaz" train "$src/configs/tiny.yaml" --set run.directory="$tmp/init" --set rules.max_plies=300 \
  --set train.initial_net="$src/nets/default.safetensors" 2>"$tmp/err"; then fail "a 4x32 net started a tiny run"; fi
grep -q "train.initial_net: $src/nets/default.safetensors: a 4x32 net cannot start a run of" "$tmp/err" ||
  fail "message: $(cat "$tmp/err")"
[ ! -e "$tmp/init" ] || fail "a refused initial net left a run folder"

echo "== 2. a whole tiny run"
"$loaz" train "$src/configs/tiny.yaml" --set run.directory="$tmp/runs" >"$tmp/tiny.log" 2>&1 || {
  cat "$tmp/tiny.log"
  fail "loaz train configs/tiny.yaml failed"
}
run=$tmp/runs/tiny
[ -f "$run/config.yaml" ] || fail "no resolved config"
[ "$(ls "$run/checkpoints" | grep -c '\.pt$')" -ge 2 ] || fail "fewer than 2 checkpoints"
ls "$run/selfplay/"*.shard >/dev/null || fail "no shards"
for event in train validation checkpoint selfplay eval rating; do
  grep -q "\"event\":\"$event\"" "$run/metrics.jsonl" || fail "no $event event in metrics.jsonl"
done
records=("$run"/games/*.txt)
record=${records[0]}
"$loaz" replay "$record" >/dev/null || fail "loaz replay cannot read $record"
[ -s "$run/eval/ratings.txt" ] || fail "no ratings table"
[ -s "$run/net.safetensors" ] || fail "no export"
# The run's export is the mean of its second half's checkpoints (steps 40 and 60 of 60).
grep -q "exported the mean of its checkpoints 40 to 60 (2)" "$tmp/tiny.log" || fail "final export: $(tail -3 "$tmp/tiny.log")"
"$loaz" export --run "$run" --average 2 -o "$tmp/last2.safetensors" >/dev/null || fail "export --average 2"
cmp -s "$run/net.safetensors" "$tmp/last2.safetensors" || fail "the run's export is not the mean of its last 2 checkpoints"
reply=$(printf 'genmove b\nquit\n' | "$loaz" gtp --player "mcts:net=$run/net.safetensors,playouts=8")
echo "$reply" | grep -qE '^= [a-h][1-8][-x][a-h][1-8]' || fail "gtp did not play the export: $reply"
"$loaz" export --run "$run" -o "$tmp/exported.safetensors" >/dev/null || fail "loaz export --run"
"$loaz" export --run "$run" --step 20 -o "$tmp/step20.safetensors" >/dev/null || fail "loaz export --step"
# --average: the mean of the newest checkpoints up to --step, which the engine plays.
summary=$("$loaz" export --run "$run" --step 20 --average 2 -o "$tmp/average.safetensors") ||
  fail "loaz export --average"
grep -q "the mean of 2 checkpoints, steps 0 to 20" <<<"$summary" || fail "export --average summary: $summary"
reply=$(printf 'genmove b\nquit\n' | "$loaz" gtp --player "mcts:net=$tmp/average.safetensors,playouts=8")
echo "$reply" | grep -qE '^= [a-h][1-8][-x][a-h][1-8]' || fail "gtp did not play the averaged export: $reply"
if "$loaz" export --run "$run" --step 20 --average 1000 -o "$tmp/none.safetensors" 2>"$tmp/avg.err"; then
  fail "an average of more checkpoints than the run has was written"
fi
grep -q "needs 1000 checkpoints" "$tmp/avg.err" || fail "export --average error: $(cat "$tmp/avg.err")"
[ ! -e "$tmp/none.safetensors" ] || fail "a refused average left a file"
# loaz exam: the set drawn and kept, the first and last checkpoints marked, then a net file alone.
exam=$("$loaz" exam --run "$run" --positions 6 --solve-seconds 0.02 --playouts 2 --games 1 --every 1000 2>&1) ||
  fail "loaz exam: $exam"
[ "$(wc -l <"$run/exam/positions.txt")" -eq 6 ] || fail "exam set: $(cat "$run/exam/positions.txt")"
grep -qE '^\| 0 \| 0\.00 \|' <<<"$exam" && grep -qE '^\| 60 \|' <<<"$exam" || fail "exam rows: $exam"
exam=$("$loaz" exam --run "$run" --net "$run/net.safetensors" --playouts 2 --games 0 --misjudged "$tmp/mis.txt" 2>&1) ||
  fail "loaz exam --net: $exam"
grep -qF "| $run/net.safetensors | - |" <<<"$exam" && [ -f "$tmp/mis.txt" ] || fail "exam --net: $exam"
# A node bound for each proof: marks that the load does not move, the same twice.
one=$("$loaz" exam --run "$run" --net "$run/net.safetensors" --solve-nodes 3000 --playouts 2 --games 2 2>&1) ||
  fail "loaz exam --solve-nodes: $one"
two=$("$loaz" exam --run "$run" --net "$run/net.safetensors" --solve-nodes 3000 --playouts 2 --games 2 2>&1)
[ "$one" = "$two" ] && grep -qF "| $run/net.safetensors | - |" <<<"$one" || fail "exam --solve-nodes, twice: $one // $two"
if "$loaz" exam --run "$run" --net "$tmp/no.safetensors" 2>"$tmp/exam.err"; then fail "exam of a missing net"; fi
grep -q "no.safetensors" "$tmp/exam.err" && [ "$(wc -l <"$tmp/exam.err")" -eq 1 ] || fail "exam error: $(cat "$tmp/exam.err")"
# loaz label: the run's samples proven, the exam's games held out, written as the shards of a new run and of its control.
label=$("$loaz" label --run "$run" --out "$tmp/true" --control "$tmp/ctl" --positions 60 --nodes 20000 --threads 2 2>&1) ||
  fail "loaz label: $label"
grep -qE '^held out: 6 exam positions' <<<"$label" && grep -qE '^\| all \| [0-9]+ \|' <<<"$label" || fail "label: $label"
[ "$(ls "$tmp/true/selfplay" | wc -l)" -eq "$(ls "$tmp/ctl/selfplay" | wc -l)" ] || fail "label: the control differs"
if "$loaz" label --run "$run" --out "$tmp/true" 2>"$tmp/label.err"; then fail "label over shards it wrote"; fi
grep -q "already holds" "$tmp/label.err" && [ "$(wc -l <"$tmp/label.err")" -eq 1 ] || fail "label error: $(cat "$tmp/label.err")"
# scripts/curve.sh: the checkpoint at each hour (here the first and, nearest to 9 hours, the last) in a fresh match.
curve=$(LOAZ="$loaz" "$src/scripts/curve.sh" "$run" "ab:depth=1" 2 "0 9" 0.01 2>/dev/null) || fail "curve.sh"
grep -qE '^\| 0 h \(0\.00\) \| 0 \| 2 \| \+[0-2] =[0-2] -[0-2] \|' <<<"$curve" || fail "curve.sh, step 0: $curve"
grep -qE "^\| 9 h \([0-9.]+\) \| $(newest_step "$run") \| 2 \|" <<<"$curve" || fail "curve.sh, the last: $curve"
[ -s "$run/eval/curve/h9_vs_ab_depth=1.json" ] || fail "curve.sh wrote no summary"
# A point cut short goes on: with its summary and one game's record gone, the other game is read back.
rm "$run/eval/curve/h9_vs_ab_depth=1.json" "$run/eval/curve/h9_vs_ab_depth=1/game_000001.txt"
LOAZ="$loaz" "$src/scripts/curve.sh" "$run" "ab:depth=1" 2 "9" 0.01 >/dev/null 2>"$tmp/curve_resume.err" ||
  fail "curve.sh, resumed: $(tail -3 "$tmp/curve_resume.err")"
grep -q "^1 of the games were read back from $run/eval/curve/h9_vs_ab_depth=1\$" "$tmp/curve_resume.err" &&
  [ -s "$run/eval/curve/h9_vs_ab_depth=1/game_000001.txt" ] && [ -s "$run/eval/curve/h9_vs_ab_depth=1.json" ] ||
  fail "curve.sh did not resume its point: $(cat "$tmp/curve_resume.err")"
# AVERAGE=2: the mean of the last two checkpoints at 9 hours, the first alone at 0 (it has no older one).
curve=$(AVERAGE=2 LOAZ="$loaz" "$src/scripts/curve.sh" "$run" "ab:depth=1" 2 "0 9" 0.01 2>/dev/null) ||
  fail "curve.sh with AVERAGE=2"
grep -q "means of the 2 newest checkpoints" <<<"$curve" || fail "curve.sh AVERAGE=2 title: $curve"
[ -s "$run/eval/curve/h9_avg2_vs_ab_depth=1.json" ] && [ -s "$run/eval/curve/h0_avg2.safetensors" ] ||
  fail "curve.sh AVERAGE=2 wrote no summary or net"
cmp -s "$run/eval/curve/h9_avg2.safetensors" "$tmp/last2.safetensors" ||
  fail "curve.sh AVERAGE=2 did not play the mean of the last 2 checkpoints"
if AVERAGE=two LOAZ="$loaz" "$src/scripts/curve.sh" "$run" "ab:depth=1" 2 "9" 0.01 2>"$tmp/curve.err"; then
  fail "curve.sh took AVERAGE=two"
fi
grep -q "AVERAGE=two is not a positive count" "$tmp/curve.err" || fail "curve.sh AVERAGE error: $(cat "$tmp/curve.err")"
# scripts/six_gpu.sh where there is no GPU (DEVICE cpu, a tiny net, the
# value's exam alone): a run of configs/six.yaml, then the exam of its
# checkpoints on the common set of docs/six-exam.
SIX_GPU_VALUE_ONLY=1 SIX_GPU_SETS="net.blocks=1 net.channels=8 replay.min_samples=200 train.checkpoint_every=10 selfplay.workers=1" \
  "$src/scripts/six_gpu.sh" "$loaz" "$tmp/six" 0.4 cpu >"$tmp/six.log" 2>&1 || fail "six_gpu.sh: $(tail -3 "$tmp/six.log")"
grep -Eq '^\| [1-9][0-9]* \| [0-9.]+ \| [0-9.]+% of 1209 \|$' "$tmp/six/exam-value.txt" ||
  fail "six_gpu.sh: no exam of a trained checkpoint: $(cat "$tmp/six.log")"
[ -s "$tmp/six/six-gpu/net.safetensors" ] || fail "six_gpu.sh: the run has no export"
if "$src/scripts/six_gpu.sh" "$tmp/no-loaz" "$tmp/six-bad" 2>"$tmp/six-bad.err"; then
  fail "six_gpu.sh took a binary that is not there"
fi
grep -q "is not a binary" "$tmp/six-bad.err" || fail "six_gpu.sh error: $(cat "$tmp/six-bad.err")"
# scripts/ab.sh: two arms side by side in a folder of their own (a core
# each where there are two), then their exports' match.
pin=0
[ "$(nproc)" -ge 2 ] && pin=1
AB_CONFIG="$src/configs/tiny.yaml" AB_RUNS="$tmp/ab" AB_GAMES=2 AB_SECONDS=0.01 LOAZ="$loaz" AB_PIN=$pin \
  "$src/scripts/ab.sh" t 5 "" "mcts.playouts=16" >"$tmp/ab.log" 2>&1 || fail "ab.sh: $(tail -3 "$tmp/ab.log")"
[ -s "$tmp/ab/t-a/net.safetensors" ] && [ -s "$tmp/ab/t-b/net.safetensors" ] || fail "ab.sh: an arm has no export"
sed -n '/^mcts:/,/^[a-z]/p' "$tmp/ab/t-b/config.yaml" | grep -q '^  playouts: 16$' || fail "ab.sh: arm b's override"
for arm in a b; do
  grep -Eq "^arm $arm: [1-9][0-9]* games, [0-9]+ positions \([0-9,]+ an hour of run time\), [0-9]+ samples.*, [1-9][0-9,]* s of CPU this sitting$" "$tmp/ab.log" ||
    fail "ab.sh: no summary of arm $arm: $(cat "$tmp/ab.log")"
done
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["games"] >= 2' "$tmp/ab/t-ba.json" ||
  fail "ab.sh: no match summary"
[ -s "$tmp/ab/t-ba.games/game_000001.txt" ] || fail "ab.sh kept no records of its match"
# AB_OFFLINE: trainers alone on the pooled shards of both arms (each
# source's shards linked under a name of their own), their match at
# AB_PLAYOUTS playouts a move, one game at a time (AB_THREADS); a source
# without shards is refused.
AB_OFFLINE="$tmp/ab/t-a,$tmp/ab/t-b" AB_CONFIG="$src/configs/tiny.yaml" AB_RUNS="$tmp/abo" AB_GAMES=2 \
  AB_PLAYOUTS=8 AB_THREADS=1 LOAZ="$loaz" AB_PIN=$pin "$src/scripts/ab.sh" o 0.25 "replay.min_samples=50" \
  "replay.min_samples=50 net.channels=8" >"$tmp/abo.log" 2>&1 || fail "ab.sh AB_OFFLINE: $(tail -3 "$tmp/abo.log")"
pooled=$(($(ls "$tmp/ab/t-a/selfplay" | grep -c '\.shard$') + $(ls "$tmp/ab/t-b/selfplay" | grep -c '\.shard$')))
for arm in a b; do
  [ "$(ls "$tmp/abo/o-$arm/selfplay" | grep -c '^0txa_.*\.shard$')" -gt 0 ] &&
    [ "$(ls "$tmp/abo/o-$arm/selfplay" | grep -c '\.shard$')" = "$pooled" ] ||
    fail "ab.sh AB_OFFLINE: arm $arm does not hold the $pooled shards of both sources"
  grep -Eq "^arm $arm: a trainer alone, [1-9][0-9]* steps" "$tmp/abo.log" || fail "ab.sh AB_OFFLINE: arm $arm: $(cat "$tmp/abo.log")"
  [ -s "$tmp/abo/o-$arm/net.safetensors" ] || fail "ab.sh AB_OFFLINE: arm $arm has no export"
done
grep -q '^\[Black "mcts:net=.*,playouts=8"\]$' "$tmp/abo/o-ba.games/game_000001.txt" ||
  fail "ab.sh AB_PLAYOUTS: the match's players: $(head -4 "$tmp/abo/o-ba.games/game_000001.txt")"
mkdir -p "$tmp/empty/selfplay"
if AB_OFFLINE="$tmp/empty" AB_RUNS="$tmp/abe" LOAZ="$loaz" "$src/scripts/ab.sh" e 0.25 "" "" 2>"$tmp/abe.err"; then
  fail "ab.sh AB_OFFLINE took a run without shards"
fi
grep -q "has no shards" "$tmp/abe.err" || fail "ab.sh AB_OFFLINE error: $(cat "$tmp/abe.err")"
# Two sources of one name keep every shard of both (the same run twice here).
AB_OFFLINE="$tmp/ab/t-a,$tmp/ab/t-a" AB_CONFIG="$src/configs/tiny.yaml" AB_RUNS="$tmp/abt" AB_GAMES=2 \
  AB_PLAYOUTS=8 LOAZ="$loaz" "$src/scripts/ab.sh" t 0.1 "replay.min_samples=50" "replay.min_samples=50" \
  >"$tmp/abt.log" 2>&1 || fail "ab.sh AB_OFFLINE twice one run: $(tail -3 "$tmp/abt.log")"
[ "$(ls "$tmp/abt/t-a/selfplay" | grep -c '\.shard$')" = $((2 * $(ls "$tmp/ab/t-a/selfplay" | grep -c '\.shard$'))) ] ||
  fail "ab.sh AB_OFFLINE: two sources of one name lost shards"
if AB_FROM="$tmp/ab/t-a" AB_OFFLINE="$tmp/ab/t-a" AB_RUNS="$tmp/abx" LOAZ="$loaz" "$src/scripts/ab.sh" x 1 "" "" \
  2>"$tmp/abx.err"; then
  fail "ab.sh took AB_FROM with AB_OFFLINE"
fi
grep -q "exclude each other" "$tmp/abx.err" || fail "ab.sh AB_FROM with AB_OFFLINE: $(cat "$tmp/abx.err")"
# AB_PIN=1 with more arms than cores refuses before any arm starts.
if [ "$(nproc)" -lt 6 ]; then
  many=()
  for ((k = 0; k <= $(nproc); k++)); do many+=(""); done
  if AB_RUNS="$tmp/abpin" AB_PIN=1 LOAZ="$loaz" "$src/scripts/ab.sh" p 1 "${many[@]}" 2>"$tmp/abpin.err"; then
    fail "ab.sh AB_PIN=1 ran more arms than cores"
  fi
  grep -q "AB_PIN=1 needs a core per arm" "$tmp/abpin.err" || fail "ab.sh AB_PIN error: $(cat "$tmp/abpin.err")"
  [ -z "$(ls -A "$tmp/abpin" 2>/dev/null)" ] || fail "ab.sh AB_PIN=1 started an arm before refusing"
fi
# scripts/plot.py --table: one period row that counts every self-play game
# and says the playouts of its full searches (tiny.yaml's 24).
stats=$(python3 "$src/scripts/plot.py" "$run" --table 1)
games=$(python3 -c 'import json, sys
print(sum(e.get("shard_games", 0) for e in map(json.loads, open(sys.argv[1])) if e.get("event") == "selfplay"))' \
  "$run/metrics.jsonl")
[ "$(awk 'NR == 2 {print $1, $3, $NF}' <<<"$stats")" = "0.00-1.00 $games 24" ] ||
  fail "plot.py --table ($games games, 24 playouts): $stats"
# A fork of the run at step 20 with a deeper net goes on from there.
fork=$tmp/runs/tiny-deep
"$loaz" fork --run "$run" --step 20 --to "$fork" --set net.blocks=2 >"$tmp/fork.log" 2>&1 || {
  cat "$tmp/fork.log"
  fail "loaz fork failed"
}
grep -q "grew from 1x16 to 2x16: the same function" "$tmp/fork.log" || fail "fork: $(cat "$tmp/fork.log")"
"$loaz" train --run "$fork" --set train.max_steps=40 --set eval.every_checkpoints=0 >"$tmp/fork_train.log" 2>&1 || {
  cat "$tmp/fork_train.log"
  fail "the fork did not train"
}
grep -q "2x16 net on cpu.*from step 20" "$tmp/fork_train.log" || fail "fork resume: $(cat "$tmp/fork_train.log")"
[ "$(newest_step "$fork")" -eq 40 ] || fail "the fork did not reach step 40"
if "$loaz" fork --run "$run" --to "$fork" 2>"$tmp/err"; then fail "a fork went into an existing folder"; fi
grep -q "exists already" "$tmp/err" || fail "message: $(cat "$tmp/err")"
# Whole outputs into variables: under pipefail, `cmd | grep -q` fails at
# random when grep exits first and cmd dies of SIGPIPE.
table=$("$loaz" eval --run "$run" --table-only)
grep -q "step" <<<"$table" || fail "loaz eval --table-only: $table"
# Each checkpoint meets each opponent once: the evaluation queue never doubles a match.
pairs=$(sed -E 's/.*"a":"([^"]*)","b":"([^"]*)".*/\1 vs \2/' "$run/eval/matches.jsonl" | sort)
[ -z "$(uniq -d <<<"$pairs")" ] || fail "a match was played twice: $(uniq -d <<<"$pairs")"

echo "== 3. kill -9 and resume"
"$loaz" train "$src/configs/tiny.yaml" --set run.directory="$tmp/runs" --set run.name=killed \
  --set train.max_steps=160 --set eval.every_checkpoints=0 >"$tmp/killed.log" 2>&1 &
pid=$!
run=$tmp/runs/killed
wait_for '[ "$(newest_step "$run")" -ge 60 ]' 300
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
pid=""
killed_at=$(newest_step "$run")
[ "$killed_at" -lt 160 ] || fail "the run finished before the kill"
(cd "$run/selfplay" && md5sum *.shard) | sort >"$tmp/shards_before"
last_games=$(grep '"event":"train"' "$run/metrics.jsonl" | tail -1 | sed -E 's/.*"games":([0-9]+).*/\1/')
# The newest checkpoint turns out corrupt: the resume falls back to the one before.
newest=$run/checkpoints/$(printf 'ckpt_%08d.pt' "$killed_at")
head -c 1000 "$newest" >"$tmp/cut" && mv "$tmp/cut" "$newest"
lines_before=$(wc -l <"$run/metrics.jsonl")
"$loaz" train --run "$run" >"$tmp/resume.log" 2>&1 || {
  cat "$tmp/resume.log"
  fail "resume failed"
}
grep -q "$(basename "$newest").*falling back" "$tmp/resume.log" || fail "no fallback warning: $(cat "$tmp/resume.log")"
[ "$(newest_step "$run")" -eq 160 ] || fail "the resumed run did not reach step 160"
# The resumed run's first train event. Every reader in the pipe reads to the
# end: under pipefail, one that stops early (grep -m1, head) can leave tail
# killed by SIGPIPE once the run has written more than a pipe holds, and
# set -e would end the test without a word.
first_train=$(tail -n +"$((lines_before + 1))" "$run/metrics.jsonl" | grep '"event":"train"' | sed -n 1p)
first_step=$(sed -E 's/.*"step":([0-9]+).*/\1/' <<<"$first_train")
[ "$first_step" -gt 0 ] && [ "$first_step" -le "$killed_at" ] || fail "steps restart at $first_step"
[ "$first_step" -gt $((killed_at - 40)) ] || fail "resumed from step $first_step, not near $killed_at"
first_games=$(sed -E 's/.*"games":([0-9]+).*/\1/' <<<"$first_train")
[ "$first_games" -ge "$last_games" ] || fail "the game count went back from $last_games to $first_games"
(cd "$run/selfplay" && md5sum *.shard) | sort >"$tmp/shards_after"
missing=$(comm -23 "$tmp/shards_before" "$tmp/shards_after")
[ -z "$missing" ] || fail "shards lost or changed by the resume: $missing"
[ -z "$(cut -d' ' -f1 "$tmp/shards_after" | sort | uniq -d)" ] || fail "a shard was written twice"
[ "$(wc -l <"$tmp/shards_after")" -gt "$(wc -l <"$tmp/shards_before")" ] || fail "no new shards after the resume"

echo "== 4. SIGINT stops cleanly"
"$loaz" train "$src/configs/tiny.yaml" --set run.directory="$tmp/runs" --set run.name=interrupted \
  --set train.max_steps=100000 >"$tmp/interrupted.log" 2>&1 &
pid=$!
run=$tmp/runs/interrupted
wait_for '[ "$(newest_step "$run")" -ge 20 ]' 300
kill -INT "$pid"
status=0
wait "$pid" || status=$?
pid=""
[ "$status" -eq 0 ] || fail "SIGINT: exit status $status: $(tail -5 "$tmp/interrupted.log")"
grep -q "stopped cleanly" "$tmp/interrupted.log" || fail "no clean stop: $(tail -5 "$tmp/interrupted.log")"

echo "== 5. separate self-play and trainer processes over one run directory"
# The trainer waits for 1,500 samples (some 60 games): time for both writers to finish games.
"$loaz" trainer "$src/configs/tiny.yaml" --set run.directory="$tmp/runs" --set run.name=split \
  --set eval.every_checkpoints=0 --set replay.min_samples=1500 >"$tmp/trainer.log" 2>&1 &
trainer=$!
run=$tmp/runs/split
pid=$trainer
wait_for '[ -f "$run/checkpoints/ckpt_00000000.pt" ]' 300
"$loaz" selfplay --run "$run" --name one >"$tmp/selfplay1.log" 2>&1 &
one=$!
"$loaz" selfplay --run "$run" --name two --set selfplay.games_per_worker=8 >"$tmp/selfplay2.log" 2>&1 &
two=$!
status=0
wait "$trainer" || status=$?
pid=""
[ "$("$loaz" status --run "$run" --state)" = finished ] || fail "the finished run's state: $("$loaz" status --run "$run")"
# The run's end ends the self-play processes by themselves, cleanly.
for _ in $(seq 60); do
  kill -0 "$one" 2>/dev/null || kill -0 "$two" 2>/dev/null || break
  sleep 1
done
kill -0 "$one" 2>/dev/null && fail "self-play process one plays on after the run's end"
kill -0 "$two" 2>/dev/null && fail "self-play process two plays on after the run's end"
wait "$one" || status=$?
wait "$two" || status=$?
[ "$status" -eq 0 ] || fail "split run: exit status $status: $(tail -3 "$tmp"/trainer.log "$tmp"/selfplay*.log)"
grep -q "self-play ended with the run" "$tmp/selfplay1.log" || fail "self-play did not say why it ended"
[ "$(newest_step "$run")" -eq 60 ] || fail "the trainer did not reach step 60"
ls "$run"/selfplay/one-w0_*.shard "$run"/selfplay/two-w0_*.shard >/dev/null || fail "a self-play process wrote no shard"
grep -q "games_per_worker: 16" "$run/config.yaml" || fail "a self-play --set leaked into the run's config"
"$loaz" status --run "$run" >"$tmp/status"
grep -q "0 alive, 0 stale, 2 ended" "$tmp/status" || fail "status after the run: $(cat "$tmp/status")"
grep -q "one .*ended" "$tmp/status" || fail "status does not list process one: $(cat "$tmp/status")"
# A worker that starts after the end has nothing to do.
"$loaz" selfplay --run "$run" --name late >"$tmp/late.log" 2>&1 || fail "a late worker failed: $(cat "$tmp/late.log")"
grep -q "self-play has nothing to do" "$tmp/late.log" || fail "late worker: $(cat "$tmp/late.log")"
# loaz stop ends a resumed trainer cleanly.
"$loaz" trainer --run "$run" --set train.max_steps=1000000 >"$tmp/trainer2.log" 2>&1 &
pid=$!
wait_for '[ "$("$loaz" status --run "$run" --state)" = running ]' 60
"$loaz" stop --run "$run" >/dev/null
status=0
wait "$pid" || status=$?
pid=""
[ "$status" -eq 0 ] || fail "a stopped trainer exited $status: $(tail -3 "$tmp/trainer2.log")"
grep -q "the run was stopped (loaz stop" "$tmp/trainer2.log" || fail "trainer: $(tail -3 "$tmp/trainer2.log")"
[ "$("$loaz" status --run "$run" --state)" = stopped ] || fail "the run is not stopped"
# A cluster job's trainer (--unless-ended) does not set a stopped run going.
"$loaz" trainer --run "$run" --unless-ended >"$tmp/trainer3.log" 2>&1 || fail "trainer --unless-ended failed"
grep -q "the trainer has nothing to do" "$tmp/trainer3.log" || fail "trainer --unless-ended: $(cat "$tmp/trainer3.log")"
# A worker whose trainer is gone (its heartbeat an hour old, the run still
# running) stops the run rather than play for nothing, saying why; status
# shows the trainer stale.
python3 - "$run" <<'PY'
import json, sys, time
run = sys.argv[1]
json.dump({"state": "running", "reason": "test", "time": time.time()}, open(run + "/state.json", "w"))
json.dump({"name": "trainer", "host": "gone", "pid": 1, "time": time.time() - 3600}, open(run + "/trainer.json", "w"))
PY
"$loaz" status --run "$run" >"$tmp/status"
grep -q "trainer: STALE: its last beat 60 min ago, on gone pid 1" "$tmp/status" || fail "status: $(cat "$tmp/status")"
timeout 60 "$loaz" selfplay --run "$run" --name watch --set cluster.trainer_gone_minutes=0.01 >"$tmp/watch.log" 2>&1 ||
  fail "a worker without its trainer: $(tail -3 "$tmp/watch.log")"
grep -q "the trainer's heartbeat is 60 min old" "$tmp/watch.log" || fail "the worker did not say why: $(cat "$tmp/watch.log")"
[ "$("$loaz" status --run "$run" --state)" = stopped ] || fail "the worker did not stop the run"
"$loaz" status --run "$run" | grep -q "rather than play for nothing" || fail "the state does not say why"
# A damaged state.json is named, read as running, and never ends a run.
echo '{"state": "fini' >"$run/state.json"
[ "$("$loaz" status --run "$run" --state 2>"$tmp/err")" = running ] || fail "a damaged state was not read as running"
grep -q "$run/state.json: not a run state" "$tmp/err" || fail "the damage was not named: $(cat "$tmp/err")"
"$loaz" status --run "$run" | grep -q "^damaged: $run/state.json" || fail "status does not name the damage"
echo "== 6. a resume refuses what would destroy the run"
run=$tmp/runs/tiny
(cd "$run/checkpoints" && md5sum *.pt) >"$tmp/checkpoints_before"
# Runs a command that must fail in one line naming $2, writing no checkpoint.
refuses() {
  local what=$1 expected=$2 status=0
  shift 2
  "$@" >"$tmp/refused.out" 2>"$tmp/refused.err" || status=$?
  [ "$status" -ne 0 ] || fail "$what: accepted (exit 0)"
  grep -q -- "$expected" "$tmp/refused.err" || fail "$what: message does not say '$expected': $(cat "$tmp/refused.err")"
  (cd "$run/checkpoints" && md5sum *.pt) >"$tmp/checkpoints_after"
  cmp -s "$tmp/checkpoints_before" "$tmp/checkpoints_after" || fail "$what: the checkpoints changed"
}
refuses "another width" "net.channels: 16 in the run, 32 asked" "$loaz" train --run "$run" --set net.channels=32
refuses "other rules" "rules.simultaneous" "$loaz" train --run "$run" --set rules.simultaneous=mover
refuses "a self-play process with another net" "net.blocks" "$loaz" selfplay --run "$run" --set net.blocks=2
# A damaged or lost config.yaml: set aside, and the copy in the newest
# checkpoint's header takes its place, with a warning naming both.
cp "$run/config.yaml" "$tmp/config.saved"
restores() {
  local what=$1 expected=$2
  "$loaz" eval --run "$run" --table-only >/dev/null 2>"$tmp/restored.err" || fail "$what: $(cat "$tmp/restored.err")"
  grep -q -- "$expected.*restored from the copy in $run/checkpoints/ckpt_" "$tmp/restored.err" ||
    fail "$what: no warning naming the file and the copy: $(cat "$tmp/restored.err")"
  cmp -s "$run/config.yaml" "$tmp/config.saved" || fail "$what: the config was not restored"
  rm -rf "$run"/config.yaml.damaged*
}
: >"$run/config.yaml"
restores "an empty config.yaml" "empty config"
rm "$run/config.yaml" && mkdir "$run/config.yaml"
restores "a folder as config.yaml" "is a folder, not a file"
head -c 200 "$tmp/config.saved" >"$run/config.yaml"
restores "a config.yaml cut short" "$run/config.yaml"
rm "$run/config.yaml"
restores "no config.yaml" "$run/config.yaml"
(cd "$run/checkpoints" && md5sum *.pt) >"$tmp/checkpoints_after"
cmp -s "$tmp/checkpoints_before" "$tmp/checkpoints_after" || fail "restoring the config changed the checkpoints"
mkdir -p "$tmp/not_a_run"
refuses "a folder that is no run" "not a run directory" "$loaz" train --run "$tmp/not_a_run"
refuses "a folder as the config" "is a folder, not a file" "$loaz" train "$tmp/runs"
refuses "a run name out of the folder" "is not a plain name" \
  "$loaz" train "$src/configs/tiny.yaml" --set run.directory="$tmp/runs" --set run.name=../escape
[ ! -e "$tmp/escape" ] || fail "a run escaped its directory"
refuses "a bad opponent" "eval.opponents: player 'ab:depth=0'" \
  "$loaz" train "$src/configs/tiny.yaml" --set run.directory="$tmp/runs" --set run.name=badspec \
  --set 'eval.opponents=["ab:depth=0"]'
[ ! -e "$tmp/runs/badspec" ] || fail "a run with a bad opponent was created"
# A checkpoint with a NaN is never played: the export refuses it (a damaged file).
damaged=$run/checkpoints/$(printf 'ckpt_%08d.pt' 20)
cp "$damaged" "$tmp/ckpt20.pt"
printf '\xff\xff\xff\x7f' | dd of="$damaged" bs=1 seek=$(($(stat -c %s "$damaged") / 2)) conv=notrunc 2>/dev/null
if "$loaz" export "$damaged" -o "$tmp/nan.safetensors" 2>"$tmp/nan.err"; then fail "a damaged checkpoint was exported"; fi
grep -q "ckpt_00000020.pt" "$tmp/nan.err" || fail "the export error does not name the checkpoint: $(cat "$tmp/nan.err")"
# `loaz eval --run` skips it as `train` does, and rates the others.
"$loaz" eval --run "$run" --steps 20 --games 2 >"$tmp/eval_damaged.out" 2>&1 || fail "eval stopped at a damaged checkpoint"
grep -q "skipping step 20" "$tmp/eval_damaged.out" || fail "eval did not say it skipped step 20: $(cat "$tmp/eval_damaged.out")"
cp "$tmp/ckpt20.pt" "$damaged"
# A finished run resumed exports again; a damaged checkpoint among those it
# averages costs the average (a warning), never the export.
older=$(ls "$run/checkpoints" | grep '\.pt$' | tail -2 | sed -n 1p)
cp "$run/checkpoints/$older" "$tmp/older.pt"
printf 'junk' >"$run/checkpoints/$older"
"$loaz" train --run "$run" >"$tmp/reexport.log" 2>&1 || fail "re-export: $(tail -3 "$tmp/reexport.log")"
grep -q "the export is the last checkpoint alone" "$tmp/reexport.log" || fail "no warning: $(tail -3 "$tmp/reexport.log")"
"$loaz" export --run "$run" -o "$tmp/last_alone.safetensors" >/dev/null
cmp -s "$run/net.safetensors" "$tmp/last_alone.safetensors" || fail "the fallback export is not the last checkpoint"
cp "$tmp/older.pt" "$run/checkpoints/$older"

echo "== 7. kill -9 at several moments, then run to the end: shards, records and metrics agree"
run=$tmp/runs/killed_often
"$loaz" train "$src/configs/tiny.yaml" --set run.directory="$tmp/runs" --set run.name=killed_often \
  --set train.max_steps=80 --set eval.every_checkpoints=0 --set selfplay.games_per_shard=1 >"$tmp/often.log" 2>&1 &
pid=$!
wait_for '[ -f "$run/checkpoints/ckpt_00000000.pt" ]' 300
for delay in 3 1.3 2.1 0.7; do
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  "$loaz" train --run "$run" >>"$tmp/often.log" 2>&1 &
  pid=$!
done
status=0
wait "$pid" || status=$?
pid=""
[ "$status" -eq 0 ] || fail "the last resume failed: $(tail -5 "$tmp/often.log")"
counts=$("$run_counts" "$run")
value() { sed -n "s/^$1 //p" <<<"$counts"; }
[ "$(value shard_games)" -gt 0 ] || fail "no games: $counts"
[ "$(value shard_games)" -eq "$(value record_games)" ] || fail "shards and records disagree: $counts"
[ "$(value shard_games)" -eq "$(value metrics_games)" ] || fail "shards and metrics disagree: $counts"
[ "$(value bad_shards)" -eq 0 ] || fail "a shard does not read: $counts"
[ "$(value temp_files)" -eq 0 ] || fail "temporary files were left: $counts"
echo "PASS"
