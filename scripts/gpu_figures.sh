#!/usr/bin/env bash
# The figures of docs/SCALING.md and docs/HARDWARE.md on a machine with many
# cores and a GPU, in one run of a few minutes (a borrowed machine's time is
# short): the scaling table at every core count up to all of them, the net's
# evaluations a second on the GPU by batch, precision and memory layout,
# GPU self-play by batches in flight and CUDA graphs with the GPU's busy
# share, and a short run of configs/gpu.yaml with the GPU's busy share sampled.
# usage: scripts/gpu_figures.sh LOAZ_TORCH OUT_DIR [RUN_SECONDS [gpu]]
#   LOAZ_TORCH: a CUDA build's binary (scripts/build.sh --cuda: build-cuda/app/loaz-torch)
#   OUT_DIR gets figures.txt (every table), train.txt, metrics.jsonl and gpu_busy.csv.
set -uo pipefail
loaz=$1
out=$(mkdir -p "$2" && cd "$2" && pwd)
seconds=${3:-150}
only=${4:-all}  # "gpu": the GPU self-play and the run alone
cd "$(dirname "$0")/.."
figures=$out/figures.txt
busy=$out/gpu_busy.csv
: >"$busy"

# Runs "$@" with the GPU's busy share sampled every 200 ms; prints its median
# and appends the samples to gpu_busy.csv under the label $1.
sampled() {
  local label=$1
  shift
  local samples
  samples=$(mktemp)
  nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 200 >"$samples" 2>/dev/null &
  local smi=$!
  "$@"
  kill "$smi" 2>/dev/null
  wait "$smi" 2>/dev/null
  sed "s/^/$label,/" "$samples" >>"$busy"
  sort -n "$samples" | awk -v l="$label" '{v[NR]=$1} END {if (NR) printf "GPU busy (%s): median %s%% of %d samples\n", l, v[int((NR+1)/2)], NR}'
  rm -f "$samples"
}

{
  echo "== machine"
  nproc
  lscpu | grep -E "Model name" | cut -c1-120
  nvidia-smi -L
  echo
  [ "$only" = gpu ] || {
  echo "== bench scaling: the cpu's cores (the engine's search against independent ones, multi-gather versus"
  echo "   a descent a leaf, int8 self-play workers)"
  "$loaz" bench scaling --net nets/default.safetensors --seconds 1.5 --rounds 1 --counts 1 2 4 8 16 --no-train \
    --versus multi_gather=true
  echo
  echo "== bench net --device cuda: the shipped net, then configs/gpu.yaml's 10x128"
  "$loaz" bench net --device cuda --net nets/default.safetensors --batches 1 16 64 256 1024 --seconds 0.5
  "$loaz" bench net --device cuda --blocks 10 --channels 128 --features connection \
    --batches 1 16 64 256 1024 --seconds 0.5
  }
  echo
  echo "== self-play on the cpu alone (int8), configs/gpu.yaml's net, 14 workers x 128 games: the base of the next"
  "$loaz" bench scaling --blocks 10 --channels 128 --features connection --games 128 --seconds 6 --counts 14 \
    --no-search --no-train
  echo
  echo "== self-play on cuda, configs/gpu.yaml's net, 14 workers: batches in flight, games, cuda graphs"
  for arm in "2 128 on" "2 128 off" "3 128 on" "2 256 on"; do
    set -- $arm
    sampled "inflight$1-games$2-graphs$3" "$loaz" bench scaling --blocks 10 --channels 128 --features connection \
      --selfplay-device cuda --in-flight "$1" --games "$2" --cuda-graphs "$3" --seconds 6 --counts 14 \
      --no-search --no-train
  done
} 2>&1 | tee "$figures"

echo "== configs/gpu.yaml for $seconds s" | tee -a "$figures"
run=$(mktemp -d)
train() {
  timeout --signal=INT "$seconds" "$loaz" train configs/gpu.yaml --set run.name=gpu-probe \
    --set run.directory="$run" --set replay.min_samples=10000 --set train.checkpoint_every=400 >"$out/train.txt" 2>&1
}
sampled train train | tee -a "$figures"
cp "$run/gpu-probe/metrics.jsonl" "$out/metrics.jsonl" 2>/dev/null
grep -h '"event":"selfplay"' "$out/metrics.jsonl" 2>/dev/null | tail -3 | tee -a "$figures"
echo "figures in $out"
