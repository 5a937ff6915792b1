#!/usr/bin/env bash
# The 6x6 aim's first measurement for a machine with a GPU (docs/TRAINING.md,
# "The 6x6 aim: the best mark of every lever"): a run of configs/six.yaml with
# the 6x64 net that 2 cores cannot pay for inside the hour (its trainer and
# self-play's evaluations on the GPU, the searches on every core but two),
# then the exam on the common set of 1,209 proven positions
# (docs/six-exam/positions.txt): the value's sign of every 4th checkpoint,
# then the final checkpoint's moves and games from proven wins. In one call,
# so that a borrowed machine's few minutes hold it all.
#
# usage: scripts/six_gpu.sh LOAZ_TORCH OUT_DIR [MINUTES [DEVICE]]
#   LOAZ_TORCH: a build with LibTorch (scripts/build.sh --cuda:
#   build-cuda/app/loaz-torch); MINUTES of run time (8); DEVICE cuda (cpu
#   checks the script where there is no GPU)
#   OUT_DIR gets the run (OUT_DIR/six-gpu), train.txt (its log),
#   exam-value.txt (every 4th checkpoint's value mark) and exam.txt (the
#   final checkpoint's whole exam).
# environment: SIX_GPU_VALUE_ONLY=1 leaves out the moves and games (a
#   quick check), SIX_GPU_SETS="key=value ..." further overrides of the run.
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 4 ]; then
  sed -n '11,19p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
[ -x "$1" ] && [ -f "$1" ] || { echo "six_gpu.sh: LOAZ_TORCH $1 is not a binary" >&2; exit 2; }
[[ ${3:-8} =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "six_gpu.sh: MINUTES $3 is not a number" >&2; exit 2; }
loaz=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$(mkdir -p "$2" && cd "$2" && pwd)
minutes=${3:-8} device=${4:-cuda}
cd "$(dirname "$0")/.."
cores=$(nproc)
workers=$((cores > 3 ? cores - 2 : 1))
sets=(--set run.name=six-gpu --set run.directory="$out" --set run.device="$device"
      --set run.max_hours="$(python3 -c "print($minutes / 60)")"
      --set net.blocks=6 --set net.channels=64
      --set selfplay.workers="$workers" --set selfplay.max_batch=1024
      --set eval.every_checkpoints=0)
for o in ${SIX_GPU_SETS:-}; do sets+=(--set "$o"); done
run=$out/six-gpu

{
  echo "== machine"
  echo "$cores cores: $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
  if command -v nvidia-smi >/dev/null; then nvidia-smi -L; fi
} | tee "$out/machine.txt"

echo "== configs/six.yaml, 6x64, $minutes minutes on $device, $workers self-play workers"
if [ -d "$run" ]; then
  "$loaz" train --run "$run" --set run.max_hours="$(python3 -c "print($minutes / 60)")" >>"$out/train.txt" 2>&1
else
  "$loaz" train configs/six.yaml "${sets[@]}" >"$out/train.txt" 2>&1
fi || { echo "six_gpu.sh: the run failed ($out/train.txt):" >&2; tail -3 "$out/train.txt" >&2; exit 1; }
tail -2 "$out/train.txt"

mkdir -p "$run/exam"
cp docs/six-exam/positions.txt "$run/exam/positions.txt"
echo "== the value's sign, every 4th checkpoint and the last"
"$loaz" exam --run "$run" --value-only --every 4 | tee "$out/exam-value.txt"
if [ "${SIX_GPU_VALUE_ONLY:-0}" != 1 ]; then
  echo "== the final checkpoint: value, moves and games from proven wins"
  last=$(ls "$run"/checkpoints/ckpt_*.pt | tail -1)
  "$loaz" exam --run "$run" --net "$last" --solve-nodes 1000000 --playouts 200 --games 100 \
    --threads "$cores" | tee "$out/exam.txt"
fi
echo "figures in $out"
