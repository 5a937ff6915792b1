#!/usr/bin/env bash
# The int8 evaluator on every instruction set oneDNN may pick on this
# machine: for each cap of ONEDNN_MAX_CPU_ISA that the processor allows,
# int8 and fp32 evaluations a second of the shipped net at batches 1 and 64
# (`loaz bench net`, process CPU time) and the int8 accuracy tests' figures
# (net_tests); a markdown table, the table of docs/INFERENCE.md.
# usage: scripts/isa_table.sh [SECONDS] [ROUNDS]   (after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-2}
rounds=${2:-3}
loaz=build/app/loaz
tests=build/tests/net/net_tests
caps=(SSE41 AVX2 AVX2_VNNI AVX512_CORE AVX512_CORE_VNNI AVX512_CORE_BF16 AVX512_CORE_AMX)
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $rounds rounds of ${seconds} s, median"
echo
echo "| cap | oneDNN runs | int8 scheme | int8 b1 | fp32 b1 | int8 b64 | fp32 b64 | int8/fp32 b64 | ref. mean/max value err | ref. max prior err | ref. same top | ref. searches | shipped value err / prior dist | shipped searches |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for cap in "${caps[@]}"; do
  export ONEDNN_MAX_CPU_ISA=$cap
  summary=$("$loaz" config | sed -n 's/^  cpu here: //p')
  isa=$(sed -n 's/^oneDNN [0-9.]* (\([^)]*\)).*/\1/p' <<<"$summary")
  if ! "$tests" --gtest_filter='OneDnnTrunkTest.NamesItsVersionAndKernels' 2>&1 | grep -q '1 test.*PASSED\|PASSED.*1 test'; then
    echo "| $cap | (skipped: this processor lacks it) | | | | | | | | | | | | |"
    continue
  fi
  scheme=$(sed -n 's/.*int8, \(.*\)$/\1/p' <<<"$summary")
  declare -A rate=()
  for key in "int8 1" "fp32 1" "int8 64" "fp32 64"; do rate[$key]=""; done
  for ((r = 0; r < rounds; ++r)); do
    out=$("$loaz" bench net --net nets/default.safetensors --batches 1 64 --seconds "$seconds" --cpu-time 2>/dev/null)
    for key in "int8 1" "fp32 1" "int8 64" "fp32 64"; do
      set -- $key
      rate[$key]+=" $(awk -v p="$1" -v b="$2" '$1 == b && $2 == "cpu" && $3 == p {print $4}' <<<"$out")"
    done
  done
  for key in "int8 1" "fp32 1" "int8 64" "fp32 64"; do rate[$key]=$(tr ' ' '\n' <<<"${rate[$key]}" | grep . | median); done
  acc=$("$tests" --gtest_filter='Int8Test.*:Int8ShippedNetTest.*' 2>&1)
  ref=$(grep 'int8 vs fp32 over' <<<"$acc")
  mean=$(sed -n 's/.*mean |value error| \([0-9.]*\), max \([0-9.]*\);.*/\1 \/ \2/p' <<<"$ref")
  prior=$(sed -n 's/.*max |prior error| \([0-9.]*\);.*/\1/p' <<<"$ref")
  top=$(sed -n 's/.*the same top move in \([0-9.]*%\).*/\1/p' <<<"$ref")
  searches=$(grep -m1 '100-playout' <<<"$acc" | sed -n 's/.*same move in \([0-9]* of [0-9]*\).*/\1/p')
  shipped=$(grep 'the shipped net' <<<"$acc" | sed -n 's/.*value error| \([0-9.]*\), mean prior distance \([0-9.]*\).*/\1 \/ \2/p')
  shipped_searches=$(grep '100-playout' <<<"$acc" | tail -1 | sed -n 's/.*same move in \([0-9]* of [0-9]*\).*/\1/p')
  failed=$(grep -c '^\[  FAILED  \] [A-Z]' <<<"$acc" || true)
  ratio=$(awk -v a="${rate[int8 64]}" -v b="${rate[fp32 64]}" 'BEGIN {printf "%.2fx", a / b}')
  echo "| $cap | $isa | $scheme | ${rate[int8 1]} | ${rate[fp32 1]} | ${rate[int8 64]} | ${rate[fp32 64]} | $ratio | $mean | $prior | $top | $searches | $shipped | $shipped_searches$([ "$failed" -gt 0 ] && echo " ($failed FAILED)") |"
done
