#!/usr/bin/env bash
# A match manager's test of `loaz uci`: `loaz match` drives two `loaz uci`
# engines over pipes as cutechess does (the uci: player: position fen|startpos
# ... moves, go wtime btime winc binc, bestmove) for 100 games on a 10+0.1
# clock. No illegal move (the match fails on one), no loss on time, and every
# record replayed by the rules core to the result it records.
# usage: uci_match_test.sh LOAZ [GAMES] [SPEC_A SPEC_B]
set -euo pipefail
loaz=$(realpath "$1")
games=${2:-100}
spec_a=${3:-ab:depth=2}
spec_b=${4:-ab:depth=1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$loaz" match "uci:cmd=$loaz uci --player $spec_a" "uci:cmd=$loaz uci --player $spec_b" --games "$games" \
  --clock 10+0.1 --threads 2 --out "$tmp/games" --summary "$tmp/summary.json" >"$tmp/match.out" 2>"$tmp/match.err" ||
  { cat "$tmp/match.err" >&2; echo "uci_match_test: the match failed" >&2; exit 1; }
played=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["games"])' "$tmp/summary.json")
[ "$played" = "$games" ] || { echo "uci_match_test: $played of $games games played" >&2; exit 1; }
count=0
for record in "$tmp"/games/game_*.txt; do
  result=$(sed -n 's/^\[Result "\(.*\)"\]$/\1/p' "$record")
  reason=$(sed -n 's/^\[Termination "\(.*\)"\]$/\1/p' "$record")
  if [ "$reason" = timeout ]; then
    echo "uci_match_test: $(basename "$record") was lost on time" >&2
    exit 1
  fi
  replayed=$("$loaz" replay "$record" | tail -n 1)
  if [ "$replayed" != "$result $reason" ]; then
    echo "uci_match_test: $(basename "$record") records '$result $reason', the rules give '$replayed'" >&2
    exit 1
  fi
  count=$((count + 1))
done
[ "$count" = "$games" ] || { echo "uci_match_test: $count records of $games games" >&2; exit 1; }
echo "uci_match_test: $games games over UCI on 10+0.1: $(tail -n 1 "$tmp/match.out" | sed 's/.*: games/games/')"
