#!/usr/bin/env bash
# A run whose directory is on a full disk: a small tmpfs (mounted here, as
# root) holds a tiny run of one process, self-play and the trainer both
# writing, until it is full. The process must end with one clear error
# naming a path on that disk, leave no temporary file, and after the disk
# grows, `loaz train --run` goes on to the run's end with nothing lost:
# the games of the shards, of their events in metrics.jsonl and of the
# game records agree, and every shard reads.
# Skipped (77) without root, unless LOAZ_REQUIRE_ROOT=1 (CI).
# usage: full_disk_test.sh LOAZ SOURCE_DIR RUN_COUNTS
set -euo pipefail
loaz=$(realpath "$1")
src=$(realpath "$2")
run_counts=$(realpath "$3")
if [ "$(id -u)" != 0 ]; then
  [ "${LOAZ_REQUIRE_ROOT:-0}" = 1 ] && { echo "FAIL: the full-disk test needs root (a tmpfs)" >&2; exit 1; }
  echo "skipped: needs root to mount a tmpfs"
  exit 77
fi
tmp=$(mktemp -d)
disk=$tmp/disk
mkdir -p "$disk"
cleanup() {
  umount -l "$disk" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  tail -n 20 "$tmp"/*.log >&2 || true
  exit 1
}
mount -t tmpfs -o size=3m tmpfs "$disk"
run=$disk/runs/tiny
settings=(--set "run.directory=$disk/runs" --set train.max_steps=1000000 --set run.max_hours=1
  --set selfplay.record_every=1 --set eval.every_checkpoints=0 --set train.checkpoint_every=20)

echo "== a run fills its disk"
status=0
timeout 600 "$loaz" train "$src/configs/tiny.yaml" "${settings[@]}" >"$tmp/full.log" 2>&1 || status=$?
[ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "the run on a full disk ended with status $status"
df -h "$disk" | tail -1
grep -E "No space left on device|ENOSPC|disk full" "$tmp/full.log" | tail -3 >"$tmp/errors"
[ -s "$tmp/errors" ] || fail "no error says the disk is full"
grep -q "$disk/" "$tmp/errors" || fail "the error names no path on the disk: $(cat "$tmp/errors")"
echo "the error: $(tail -1 "$tmp/errors")"
leftovers=$(find "$disk" -name '*.tmp.*' | wc -l)
[ "$leftovers" = 0 ] || fail "$leftovers temporary files stayed: $(find "$disk" -name '*.tmp.*' | head -3)"
"$run_counts" "$run" >"$tmp/counts_full"
cat "$tmp/counts_full"
step=$(ls "$run/checkpoints" | sed -n 's/^ckpt_0*\([0-9][0-9]*\)\.pt$/\1/p' | sort -n | tail -1)
[ -n "$step" ] || fail "no checkpoint was written before the disk filled"

echo "== the disk grows: the run goes on to its end"
mount -o remount,size=64m "$disk"
"$loaz" train --run "$run" --set train.max_steps=$((step + 40)) >"$tmp/resume.log" 2>&1 || fail "the resumed run failed"
[ "$("$loaz" status --run "$run" --state)" = finished ] || fail "the resumed run did not finish"
"$run_counts" --check "$run" || fail "the run lost or doubled something"
echo "PASS"
