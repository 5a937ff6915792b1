#!/usr/bin/env bash
# Golden transcripts (as KataGo's cpp/tests/results/): what `loaz config`, a
# short `loaz gtp` session and a seeded `loaz match` summary print, compared
# byte for byte with the files in tests/golden/, so that a change's effect on
# them shows in its diff. After a change that means to alter them:
#   tests/app/golden_test.sh build/app/loaz --refresh     # rewrites tests/golden/*.out
# usage: golden_test.sh LOAZ [--refresh]
set -euo pipefail
loaz=$(realpath "$1")
refresh=${2:-}
cd "$(dirname "$0")/../golden"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# (less the line on this machine's cpu kernels, which differs between machines)
"$loaz" config | grep -v '^  cpu here: ' >"$tmp/config.out"
# The engine on a depth-limited baseline: the same moves on every machine.
"$loaz" gtp --player "ab:depth=2" <gtp_session.txt >"$tmp/gtp.out" 2>/dev/null
"$loaz" match "ab:depth=2" "greedy:seed=3" --games 4 --seed 7 --openings random:plies=4 --threads 1 \
  --summary "$tmp/match.out" >/dev/null 2>&1

status=0
for name in config gtp match; do
  if [ "$refresh" = --refresh ]; then
    cp "$tmp/$name.out" "$name.out"
    echo "golden_test: wrote tests/golden/$name.out"
  elif ! diff -u "$name.out" "$tmp/$name.out"; then
    echo "golden_test: tests/golden/$name.out differs (above); if the change means it, refresh with" \
      "tests/app/golden_test.sh build/app/loaz --refresh" >&2
    status=1
  fi
done
[ $status -eq 0 ] && [ "$refresh" != --refresh ] && echo "golden_test: config, gtp and match as pinned"
exit $status
