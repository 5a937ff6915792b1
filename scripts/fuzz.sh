#!/usr/bin/env bash
# Fuzzes every reader of outside input (tests/fuzz/: nets, shards, records,
# configs and --set, positions and moves, player specs, protocol lines,
# HTTP bodies) with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer, SECONDS each (default 20), one after another,
# from the seeds of tests/fuzz/corpus/TARGET/ and the regressions of
# tests/fuzz/regressions/TARGET/ (each past finding, run first). Prints a
# table of executions and findings; a finding is written to
# build-fuzz/findings/TARGET-crash-..., and the script exits 1.
# With FUZZ_RUNS=N a target also stops after N executions (whichever comes
# first): FUZZ_RUNS=10000000 scripts/fuzz.sh 3600 is the long sitting.
# usage: scripts/fuzz.sh [SECONDS] [TARGET ...]   (clang: scripts/setup.sh installs it)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
shift || true
build=build-fuzz
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(safetensors checkpoint_header shard record config position player_spec gtp http_body)
command -v clang++ >/dev/null || { echo "fuzz.sh: needs clang (scripts/setup.sh)" >&2; exit 1; }
generator=()
command -v ninja >/dev/null && [ ! -f $build/CMakeCache.txt ] && generator=(-G Ninja)
CC=clang CXX=clang++ cmake -S . -B $build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DLOAZ_FUZZ=ON \
  -DLOAZ_TORCH=OFF -DLOAZ_TESTS=OFF -DLOAZ_BENCH=OFF -DLOAZ_NATIVE=OFF >/dev/null
cmake --build $build -j "$(nproc)" --target "${targets[@]/#/fuzz_}"
mkdir -p $build/findings
printf '\n| target | executions | seconds | findings |\n| --- | --- | --- | --- |\n' >$build/fuzz_table.md
status=0
for t in "${targets[@]}"; do
  work=$build/corpus/$t
  mkdir -p "$work"
  for seeds in tests/fuzz/corpus/$t tests/fuzz/regressions/$t; do
    [ -d "$seeds" ] && cp "$seeds"/* "$work"/ 2>/dev/null || true
  done
  log=$build/fuzz_$t.log
  result=0
  started=$(date +%s)
  # The sanitizers halt at the first error; leaks too (a reader must free what it took).
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -runs="${FUZZ_RUNS:--1}" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$build/findings/$t-" "$work" >"$log" 2>&1 || result=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  took=$(( $(date +%s) - started ))
  findings=0
  if [ "$result" -ne 0 ]; then
    findings=1
    status=1
    echo "fuzz.sh: $t found something (exit $result):" >&2
    grep -E "ERROR|runtime error|SUMMARY|Test unit written" "$log" | head -5 >&2
  fi
  printf '| %s | %s | %s | %s |\n' "$t" "${runs:-?}" "$took" "$findings" | tee -a $build/fuzz_table.md
done
cat $build/fuzz_table.md
exit $status
