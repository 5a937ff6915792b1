#!/usr/bin/env bash
# The layers of docs/DESIGN.md, lowest first: a file of one folder includes
# headers of its own folder or of lower ones, never of a higher one.
set -euo pipefail
cd "$(dirname "$0")/../.."
layers=(core alphabeta mcts net play run train serve app)
rank_of() {
  local i
  for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && echo "$i" && return; done
  echo -1
}
found=0
for folder in "${layers[@]}"; do
  own=$(rank_of "$folder")
  while IFS= read -r line; do
    file=${line%%:*}
    target=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"${line#*:}")
    rank=$(rank_of "$target")
    if [ "$rank" -gt "$own" ]; then
      echo "$file includes $target/ (a higher layer): ${line#*:}"
      found=1
    fi
  done < <(grep -HE '^#include "[a-z_]+/' "$folder"/*.h "$folder"/*.cpp 2>/dev/null || true)
done
if [ $found -ne 0 ]; then
  echo "layers_test: the includes above point up the layers (${layers[*]})" >&2
  exit 1
fi
echo "layers_test: every include of ${layers[*]} points down or across"
