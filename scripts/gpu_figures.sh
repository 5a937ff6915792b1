#!/usr/bin/env bash
# The figures of docs/SCALING.md and docs/HARDWARE.md on a machine with many
# cores and a GPU, in one run of a few minutes (a lent machine's time is
# short): the scaling table up to every core, the net's evaluations a second
# on the GPU by batch and precision, and a short run of configs/gpu.yaml with
# the GPU's busy share sampled every second.
# usage: scripts/gpu_figures.sh LOAZ_TORCH OUT_DIR [SELFPLAY_SECONDS]
#   LOAZ_TORCH: a CUDA build's binary (scripts/build.sh --cuda: build-cuda/app/loaz-torch)
set -uo pipefail
loaz=$1
out=$2
seconds=${3:-150}
mkdir -p "$out"
cd "$(dirname "$0")/.."
echo "== machine" | tee "$out/machine.txt"
{ nproc; lscpu | grep -E "Model name|Flags" | cut -c1-200; nvidia-smi -L; } >>"$out/machine.txt" 2>&1

echo "== bench scaling (every core)"
"$loaz" bench scaling --net nets/default.safetensors --seconds 2 --no-train >"$out/scaling.txt" 2>&1
tail -n +4 "$out/scaling.txt"

echo "== bench net --device cuda"
"$loaz" bench net --device cuda --batches 1 64 256 1024 4096 --seconds 1 >"$out/net_cuda.txt" 2>&1
tail -n +4 "$out/net_cuda.txt"

echo "== configs/gpu.yaml for $seconds s, the GPU sampled every second"
run=$out/gpu-probe
nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -l 1 >"$out/gpu_busy.txt" 2>/dev/null &
smi=$!
timeout --signal=INT "$seconds" "$loaz" train configs/gpu.yaml --set run.name=gpu-probe \
  --set run.directory="$out" --set replay.min_samples=10000 >"$out/train.txt" 2>&1
kill "$smi" 2>/dev/null
sort -n "$out/gpu_busy.txt" | awk '{v[NR]=$1} END {if (NR) printf "GPU busy: median %s%% of %d samples\n", v[int((NR+1)/2)], NR}'
grep -h '"event":"selfplay"' "$run/metrics.jsonl" 2>/dev/null | tail -3
echo "figures in $out"
