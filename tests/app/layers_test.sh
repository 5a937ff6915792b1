#!/usr/bin/env bash
# The layers of docs/DESIGN.md, lowest first: a file of one folder includes
# headers of its own folder or of lower ones, never of a higher one.
set -euo pipefail
cd "$(dirname "$0")/../.."
layers=(core alphabeta mcts net play run train serve app)
# Each layer's rank, looked up without a process a line (a loaded machine
# runs this among the unit tests).
declare -A rank
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done
found=0
include='^#include "([a-z_]+)/'
for folder in "${layers[@]}"; do
  own=${rank[$folder]}
  while IFS= read -r line; do
    [[ ${line#*:} =~ $include ]] || continue
    target=${BASH_REMATCH[1]}
    if [ "${rank[$target]:--1}" -gt "$own" ]; then
      echo "${line%%:*} includes $target/ (a higher layer): ${line#*:}"
      found=1
    fi
  done < <(grep -HE '^#include "[a-z_]+/' "$folder"/*.h "$folder"/*.cpp 2>/dev/null || true)
done
if [ $found -ne 0 ]; then
  echo "layers_test: the includes above point up the layers (${layers[*]})" >&2
  exit 1
fi
echo "layers_test: every include of ${layers[*]} points down or across"
