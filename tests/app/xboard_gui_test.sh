#!/usr/bin/env bash
# XBoard (Debian's xboard) under Xvfb relays a game between two
# `loaz xboard --white-first` engines of the engine-defined variant
# linesofaction: the engines' setup, moves and claimed result, the PGN it
# saves. Skipped (77) where xboard or xvfb-run is not installed.
# usage: xboard_gui_test.sh LOAZ
set -euo pipefail
loaz=$(realpath "$1")
xboard=$(command -v xboard || echo /usr/games/xboard)
if [ ! -x "$xboard" ] || ! command -v xvfb-run >/dev/null; then
  echo "xboard_gui_test: xboard or xvfb-run not installed (scripts/setup.sh installs them): skipped"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
timeout 300 xvfb-run -a "$xboard" -fcp "$loaz xboard --white-first --player ab:depth=2" \
  -scp "$loaz xboard --white-first --player ab:depth=1" -variant linesofaction -testLegality false \
  -matchMode true -mg 1 -tc 0:10 -inc 0.1 -popupExitMessage false -saveGameFile game.pgn -debug \
  -nameOfDebugFile xboard.debug >xboard.out 2>&1 || { tail -20 xboard.out >&2; exit 1; }
fail() {
  echo "xboard_gui_test: $1" >&2
  tail -30 xboard.debug >&2 || true
  exit 1
}
[ -s game.pgn ] || fail "XBoard saved no game"
grep -q '^\[Variant "linesofaction"\]' game.pgn || fail "the game is not linesofaction"
# The game of the golden transcripts: 29 plies, the first mover (XBoard's White) wins by uniting.
grep -q '^\[Result "1-0"\]' game.pgn || fail "not the result 1-0: $(grep Result game.pgn)"
grep -q '{White wins by united} 1-0' game.pgn || fail "the result is not the engine's claim"
if grep -q 'Illegal\|Forfeit' xboard.debug; then fail "XBoard saw an illegal move"; fi
plies=$(grep -c '^[0-9]* <\(first \|second\): move ' xboard.debug)
[ "$plies" = 29 ] || fail "$plies moves relayed, not 29"
echo "xboard_gui_test: XBoard relayed the 29-ply game between two loaz xboard engines, 1-0 claimed"
