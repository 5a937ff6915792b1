#!/usr/bin/env bash
# End-to-end test of a run on a real Slurm cluster: the two-node cluster of
# scripts/slurm_local.sh on this machine, and `loaz launch slurm` (CTest
# runs it, label cluster). In a tiny run of a trainer and two workers:
#  (a) both nodes' games are trained on: selfplay events from n1 and n2,
#      and the trainer's games_by_process counts both workers;
#  (b) one worker's array task is killed (scancel --signal=KILL) and the
#      node without the trainer is set DOWN: the run goes on, the killed
#      task is requeued and plays again, and nothing is lost (shards equal
#      their events, records equal games, no temporary file);
#  (e) the trainer's process is killed with SIGKILL (as the OOM killer
#      does): `loaz status` shows its heartbeat stale, the trainer job
#      runs it again, and the run goes on;
#  (c) the run ends at its budget and every job has ended within 30 s,
#      nothing lost (after (b) and (e));
#  (d) in a second run, `loaz stop --run DIR` ends every job within 30 s,
#      and `loaz status` shows no live worker after.
# With LOAZ_CLUSTER_IMAGE=DIR (a Charliecloud image folder of
# scripts/image.sh; tests/app/image_test.sh), every job runs loaz inside
# that image (cluster.image) and the test is (a) and (c).
# Needs root and Debian's Slurm and munge: without them it is skipped (exit
# 77), unless LOAZ_REQUIRE_SLURM=1 (CI), where that is a failure.
# usage: cluster_test.sh LOAZ SOURCE_DIR RUN_COUNTS
set -euo pipefail
loaz=$(realpath "$1")
src=$(realpath "$2")
run_counts=$(realpath "$3")
if [ "$(id -u)" != 0 ] || ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  if [ "${LOAZ_REQUIRE_SLURM:-0}" = 1 ]; then
    echo "FAIL: the cluster test needs root, slurmctld, slurmd and munged (scripts/setup.sh)" >&2
    exit 1
  fi
  echo "skipped: needs root and Slurm (scripts/setup.sh installs it)"
  exit 77
fi
tmp=$(mktemp -d)
cleanup() {
  "$src/scripts/slurm_local.sh" stop "$tmp/cluster" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  for log in "$tmp"/runs/*/log.txt "$tmp"/runs/*/cluster/logs/*; do
    [ -e "$log" ] && { echo "--- $log" >&2; tail -n 15 "$log" >&2; }
  done
  squeue -t all -o "%i %T %N %r" >&2 || true
  exit 1
}
# Waits (up to $2 seconds) until the command in $1 succeeds.
wait_for() {
  local deadline=$((SECONDS + $2))
  until eval "$1"; do
    [ $SECONDS -lt $deadline ] || fail "timed out after $2 s waiting for: $1"
    sleep 1
  done
}
jobs_left() { squeue -h -o %i | wc -l; }
alive_workers() { "$loaz" status --run "$1" --json | python3 -c '
import json, sys
print(sum(w["liveness"] == "alive" for w in json.load(sys.stdin)["workers"]))'; }

eval "$("$src/scripts/slurm_local.sh" start "$tmp/cluster")"
[ "$(sinfo -h -N -o %N | sort -u | tr '\n' ' ')" = "n1 n2 " ] || fail "the cluster has not two nodes"

# A tiny run whose budget is time: about two and a half minutes of training.
settings=(--set "run.directory=$tmp/runs" --set train.max_steps=1000000 --set run.max_hours=0.04
  --set eval.every_checkpoints=0 --set selfplay.record_every=1 --set cluster.worker_cpus=1
  --set cluster.trainer_cpus=1 --set train.checkpoint_every=500)
image=${LOAZ_CLUSTER_IMAGE:-}
[ -z "$image" ] || settings+=(--set "cluster.image=$image" --set cluster.runtime=charliecloud)

echo "== the scripts of a dry run"
if "$loaz" launch pbs "$src/configs/tiny.yaml" 2>"$tmp/err"; then fail "an unknown scheduler was accepted"; fi
grep -q "pbs" "$tmp/err" || fail "the error does not name the scheduler: $(cat "$tmp/err")"
"$loaz" launch slurm "$src/configs/tiny.yaml" "${settings[@]}" --set run.name=dry --workers 3 --dry-run >"$tmp/dry"
grep -q -- "--array=0-2" "$tmp/dry" || fail "dry run: no array of 3: $(cat "$tmp/dry")"
grep -q -- "--requeue" "$tmp/dry" && grep -q -- "--signal=B:USR1@" "$tmp/dry" || fail "dry run: not requeueable"
[ ! -e "$tmp/runs/dry" ] || fail "a dry run wrote the run directory"
if [ -n "$image" ]; then
  grep -q "^loaz=(ch-run --bind=\"\$run:/mnt/run\" --cd=/mnt/run '$image' -- '/usr/local/bin/loaz')" "$tmp/dry" ||
    fail "dry run: the jobs do not run loaz in the image: $(grep '^loaz=' "$tmp/dry")"
fi

echo "== (a) a run launched on both nodes"
"$loaz" launch slurm "$src/configs/tiny.yaml" "${settings[@]}" --set run.name=c1 >"$tmp/launch" ||
  fail "launch: $(cat "$tmp/launch")"
cat "$tmp/launch"
run=$tmp/runs/c1
array=$(awk '$1 == "selfplay" {print $2}' "$run/cluster/jobs")
trainer=$(awk '$1 == "trainer" {print $2}' "$run/cluster/jobs")
[ -n "$array" ] && [ -n "$trainer" ] || fail "no job ids in cluster/jobs"
wait_for '[ "$(alive_workers "$run")" = 2 ]' 120
wait_for 'grep -q "\"host\":\"n1\"" "$run/metrics.jsonl" && grep -q "\"host\":\"n2\"" "$run/metrics.jsonl"' 150
"$loaz" status --run "$run"

if [ -n "$image" ]; then
  # Every loaz of the jobs is the image's, under ch-run.
  worker=$(pgrep -f -- "selfplay --run /mnt/run --name a0" | head -1)
  [ -n "$worker" ] || fail "no worker runs in the image"
  [ -e "/proc/$worker/root/usr/local/lib/loazero/bin/loaz" ] || fail "the worker runs outside the image"
fi
if [ -z "$image" ]; then
echo "== (b) a worker killed and a node down: the run goes on"
trainer_node=$(squeue -h -j "$trainer" -o %N)
other=n1
[ "$trainer_node" = n1 ] && other=n2
scancel --signal=KILL "${array}_0"
scontrol update nodename="$other" state=down reason=cluster_test
sleep 5
scontrol update nodename="$other" state=resume 2>/dev/null || true  # back by itself where slurmd answers
# The killed task is requeued by the trainer's keeper and plays again: its
# restart count grows and its heartbeat comes back to life.
wait_for 'scontrol show job "${array}_0" | grep -q "Restarts=[1-9]"' 90
wait_for '[ "$(squeue -h -j "${array}_0" -o %T)" = RUNNING ]' 90
wait_for '[ "$("$loaz" status --run "$run" --worker a0)" = alive ]' 120
"$loaz" status --run "$run"

echo "== (e) the trainer killed with SIGKILL: the job runs it again"
trainer_json() { "$loaz" status --run "$run" --json | python3 -c "
import json, sys
t = json.load(sys.stdin)['trainer']
print('none' if t is None else t['$1'])"; }
wait_for '[ "$(trainer_json liveness)" = alive ]' 60
killed_pid=$(trainer_json pid)
pkill -KILL -f -- "trainer --run $run --unless-ended" || fail "no trainer process to kill"
wait_for '[ "$(trainer_json liveness)" = stale ]' 90
"$loaz" status --run "$run" | tee "$tmp/status_stale"
grep -q "trainer: STALE" "$tmp/status_stale" || fail "loaz status does not show the trainer's death"
[ "$("$loaz" status --run "$run" --state)" = running ] || fail "the run ended when its trainer was killed"
wait_for '[ "$(trainer_json liveness)" = alive ] && [ "$(trainer_json pid)" != "$killed_pid" ]' 120
grep -q "the trainer ended with status 137" "$run"/cluster/logs/trainer-*.out || fail "the trainer job did not say it ran the trainer again"
"$loaz" status --run "$run"
fi

echo "== (c) the run ends at its budget, and every job with it"
wait_for '[ "$("$loaz" status --run "$run" --state)" = finished ]' 400
finished_at=$SECONDS
wait_for '[ "$(jobs_left)" = 0 ]' 60
[ $((SECONDS - finished_at)) -le 30 ] || fail "jobs ended $((SECONDS - finished_at)) s after the run (at most 30)"
[ "$(alive_workers "$run")" = 0 ] || fail "a worker is still alive after the run: $("$loaz" status --run "$run")"
"$loaz" status --run "$run"
[ -s "$run/net.safetensors" ] || fail "the finished run has no export"
"$run_counts" --check "$run" || fail "the run lost or doubled something"
# (a) Both workers' games were trained on.
python3 - "$run/metrics.jsonl" <<'EOF' || fail "the trainer did not take both workers' games"
import json, sys
events = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
train = [e for e in events if e.get("event") == "train"]
by = train[-1].get("games_by_process", {}) if train else {}
print("games trained on, by process:", by)
sys.exit(0 if by.get("a0", 0) > 0 and by.get("a1", 0) > 0 else 1)
EOF

if [ -n "$image" ]; then
  echo "PASS (the run's jobs in the image $image)"
  exit 0
fi

echo "== (d) loaz stop ends a second run's jobs"
"$loaz" launch slurm "$src/configs/tiny.yaml" "${settings[@]}" --set run.name=c2 --set run.max_hours=1 >/dev/null
run=$tmp/runs/c2
wait_for '[ "$(alive_workers "$run")" = 2 ]' 120
"$loaz" stop --run "$run"
stopped_at=$SECONDS
wait_for '[ "$(jobs_left)" = 0 ]' 60
[ $((SECONDS - stopped_at)) -le 30 ] || fail "jobs ended $((SECONDS - stopped_at)) s after loaz stop (at most 30)"
[ "$(alive_workers "$run")" = 0 ] || fail "a worker is alive after loaz stop"
[ "$("$loaz" status --run "$run" --state)" = stopped ] || fail "the run is not stopped"
grep -q "the run was stopped" "$run/log.txt" || fail "the trainer did not say why it ended"
echo "PASS"
