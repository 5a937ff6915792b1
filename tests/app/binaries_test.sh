#!/usr/bin/env bash
# The two binaries (docs/DESIGN.md, Build):
#  1. loaz maps no LibTorch library;
#  2. loaz runs its own commands (perft, config, launch) without loaz-torch;
#  3. loaz hands a LibTorch command to loaz-torch beside it (when built),
#     `bench train` among them, which prints a row for each precision, and
#     `bench net --device cuda`, its rows on a GPU or one error line without;
#  4. without loaz-torch beside it, a LibTorch command fails in one line
#     naming the command, exit code 1;
#  5. loaz refuses a checkpoint (.pt) net in one line that names loaz-torch;
#  6. errors are one line: exit 2 for a usage error, 1 for bad input;
#  7. Ctrl-C on a match kills its external engines with their children;
#  8. with no arguments, `loaz gtp` plays the shipped net (nets/), and a
#     missing default net is one error line naming it and LOAZ_NET;
#  9. SIGTERM ends a busy server, a client trickling its request too;
# 10. OpenMP's waiting threads sleep (OMP_WAIT_POLICY=PASSIVE) unless the
#     environment chose a policy.
# usage: binaries_test.sh LOAZ [LOAZ_TORCH]
set -euo pipefail
loaz=$1
loaz_torch=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Whole outputs into variables: under pipefail, `cmd | grep -q` fails at
# random when grep exits first and cmd dies of SIGPIPE.
libraries=$(ldd "$loaz")
if grep -qi torch <<<"$libraries"; then fail "loaz maps LibTorch: $(grep -i -m1 torch <<<"$libraries")"; fi

[ "$("$loaz" perft --depth 2 2>/dev/null | tail -1)" = "1244" ] || fail "loaz perft --depth 2 is not 1244"
listing=$("$loaz" config)
grep -q "^  net.channels .*\*$" <<<"$listing" || fail "loaz config does not mark net.channels as fixed"

if [ -n "$loaz_torch" ]; then
  help=$("$loaz" export --help)
  grep -q "safetensors" <<<"$help" || fail "loaz export --help did not reach loaz-torch"
  # The trainer's step in both precisions: a row each, a rate and a finite loss.
  bench=$("$loaz" bench train --blocks 1 --channels 8 --batch 16 --threads 1 --seconds 0.05)
  for precision in fp32 bf16; do
    grep -Eq "^$precision +[0-9]+ +[0-9.]+x +[0-9]+\.[0-9]+$" <<<"$bench" || fail "bench train has no $precision row: $bench"
  done
  # The engine search of two settings, turn about: each its rows, then the
  # second against the first.
  bench=$("$loaz" bench scaling --blocks 1 --channels 8 --counts 1 --seconds 0.1 --rounds 1 --no-train \
    --search multi_gather=false --versus multi_gather=true)
  grep -q "^versus: the same search with multi_gather=true" <<<"$bench" || fail "bench scaling --versus: no versus line: $bench"
  for figure in "search, uniform" "search, net"; do
    grep -Eq "^$figure, versus +1 +[0-9]+ playouts/s" <<<"$bench" || fail "bench scaling: no '$figure, versus' row: $bench"
    grep -Eq "^$figure, versus +1 +[0-9]+\.[0-9]+ x +\(versus / first" <<<"$bench" ||
      fail "bench scaling: no '$figure' ratio: $bench"
  done
  # On the GPU: its rows where LibTorch sees one, else one line naming it.
  code=0
  bench=$("$loaz" bench net --device cuda --blocks 1 --channels 8 --batches 2 --seconds 0.05 2>&1) || code=$?
  if [ $code -eq 0 ]; then
    for precision in bf16 fp16 fp32; do
      grep -Eq "^ +2  cuda $precision +[0-9]+ " <<<"$bench" || fail "bench net --device cuda has no $precision row: $bench"
    done
  else
    [ $code -eq 1 ] || fail "bench net --device cuda without a GPU exited $code, not 1"
    [ "$(printf '%s\n' "$bench" | wc -l)" -eq 1 ] || fail "bench net --device cuda: more than one line: $bench"
    case "$bench" in *"device cuda"*) ;; *) fail "bench net --device cuda: unclear message: $bench" ;; esac
  fi
fi

cp "$loaz" "$tmp/loaz"
# `loaz launch` needs no LibTorch: its scripts, alone in a folder.
scripts=$("$tmp/loaz" launch slurm configs/tiny.yaml --dry-run --set run.directory="$tmp/runs")
grep -q "selfplay --run" <<<"$scripts" || fail "loaz launch --dry-run without loaz-torch: $scripts"
# It reads the opponents' specs and builds none of them: a net that is not
# one is not loaded (the evaluation job would), a net that is no file fails.
printf 'not a net' >"$tmp/junk.safetensors"
"$tmp/loaz" launch slurm configs/tiny.yaml --dry-run --set run.directory="$tmp/runs" \
  --set "eval.opponents=[\"mcts:net=$tmp/junk.safetensors,playouts=2\"]" >/dev/null ||
  fail "loaz launch loaded an opponent's net"
set +e
message=$("$tmp/loaz" launch slurm configs/tiny.yaml --dry-run --set run.directory="$tmp/runs" \
  --set "eval.opponents=[\"mcts:net=$tmp/none.safetensors\"]" 2>&1 >/dev/null)
code=$?
set -e
[ $code -ne 0 ] || fail "loaz launch accepted an opponent's missing net"
case "$message" in *"eval.opponents"*"none.safetensors"*) ;; *) fail "unclear message: $message" ;; esac
set +e
message=$("$tmp/loaz" train configs/tiny.yaml 2>&1 >/dev/null)
code=$?
set -e
[ $code -eq 1 ] || fail "train without loaz-torch exited $code, not 1"
[ "$(printf '%s\n' "$message" | wc -l)" -eq 1 ] || fail "train without loaz-torch printed more than one line: $message"
case "$message" in *"loaz train"*"LibTorch"*) ;; *) fail "unclear message: $message" ;; esac

printf 'PK not a checkpoint' >"$tmp/net.pt"
set +e
message=$("$tmp/loaz" match "mcts:net=$tmp/net.pt,playouts=2" random --games 1 2>&1 >/dev/null)
code=$?
set -e
[ $code -eq 1 ] || fail "a checkpoint in loaz exited $code, not 1"
case "$message" in *"net.pt"*"loaz-torch"*) ;; *) fail "the checkpoint message does not name the file and loaz-torch: $message" ;; esac
# Runs "$@" and checks its exit code ($1) and that it printed one line on
# standard error holding $2.
one_line_error() {
  local expected_code=$1 expected=$2 code=0 message
  shift 2
  message=$("$@" 2>&1 >/dev/null) || code=$?
  [ "$code" -eq "$expected_code" ] || fail "$*: exit $code, not $expected_code ($message)"
  [ "$(printf '%s\n' "$message" | wc -l)" -eq 1 ] || fail "$*: more than one line: $message"
  case "$message" in *"$expected"*) ;; *) fail "$*: the message does not say '$expected': $message" ;; esac
}
one_line_error 2 "loaz perft: error:" "$loaz" perft --depth
one_line_error 2 "loaz perft: error:" "$loaz" perft --depth 2 --frobnicate
if [ -n "$loaz_torch" ]; then
  one_line_error 2 "give either CONFIG or --run" "$loaz" train
  one_line_error 2 "--device" "$loaz" bench train --device tpu
  one_line_error 2 "--versus: unknown key 'frobnicate'" "$loaz" bench scaling --versus frobnicate=1
fi
one_line_error 1 "position ''" "$loaz" perft --fen "" --depth 1
one_line_error 1 "is a folder, not a file" "$loaz" replay "$tmp"
one_line_error 1 "not a regular file" "$loaz" replay /dev/zero
printf '1. d1xb3\n' >"$tmp/bad_mark.txt"
one_line_error 1 "so it is written with '-'" "$loaz" replay "$tmp/bad_mark.txt"
one_line_error 1 "..." "$loaz" show "$(head -c 100000 /dev/zero | tr '\0' x)"
# Other programs' formats and rules through the commands (docs/FORMATS.md,
# docs/RULES.md): a game of four plies back to the start, ongoing under the
# Olympiad's rules, drawn at its last ply under OpenSpiel's; written as SGF
# and read back; a position in each format read back.
printf '1. b1-b3 h2-f2\n2. b3-b1 f2-h2\n' >"$tmp/shuffle.txt"
[ "$("$loaz" replay "$tmp/shuffle.txt" | tail -n 1)" = "ongoing -" ] || fail "the shuffle is not ongoing"
[ "$("$loaz" replay "$tmp/shuffle.txt" --rules openspiel | tail -n 1)" = "draw repetition" ] ||
  fail "OpenSpiel's rules do not draw the shuffle at its second start position"
"$loaz" replay "$tmp/shuffle.txt" --to sgf >"$tmp/shuffle.sgf"
[ "$("$loaz" replay "$tmp/shuffle.sgf")" = "$("$loaz" replay "$tmp/shuffle.txt")" ] || fail "the SGF does not replay as its source"
start='1bbbbbb1/w6w/w6w/w6w/w6w/w6w/w6w/1bbbbbb1 w'
for format in loaz cutechess playstrategy openspiel; do
  [ "$("$loaz" show --as loaz "$("$loaz" show --as "$format" "$start")")" = "$start" ] ||
    fail "a position written as $format does not read back"
done
one_line_error 1 "rule set 'lichess'" "$loaz" replay "$tmp/shuffle.txt" --rules lichess
# tune-eval plays the self-play with the --player it is given, writes a
# weights file that names it and that an ab player reads; a player of
# another kind is one error line.
"$loaz" tune-eval --player ab:version=3 --games 4 --nodes 50 --threads 1 --out "$tmp/w.json" >/dev/null 2>&1 ||
  fail "tune-eval --player ab:version=3 failed"
grep -q '"self_play_player": "ab:version=3,nodes=50"' "$tmp/w.json" || fail "tune-eval's weights do not name its player"
"$loaz" match "ab:weights=$tmp/w.json,depth=1" random --games 2 >/dev/null 2>&1 || fail "ab cannot play tune-eval's weights"
one_line_error 1 "not an alpha-beta player" "$loaz" tune-eval --player random --games 2 --out "$tmp/x.json"
# One key per meaning: the move cap of a match is --max-plies, not a rules option.
one_line_error 1 "the move cap is set with --max-plies" "$loaz" match random random --games 2 --rules max_plies=10

# Ctrl-C on a match whose engine hangs: the engine's whole group goes with it.
"$loaz" match "gtp:cmd=sleep 4321" random --games 2 >/dev/null 2>&1 &
match=$!
deadline=$((SECONDS + 20))
until grep -qsa "^sleep.4321" /proc/[0-9]*/cmdline; do
  [ $SECONDS -lt $deadline ] || fail "the engine never started"
  sleep 0.1
done
kill -INT "$match"
wait "$match" 2>/dev/null || true
# A bounded poll: the engine's group must be gone (or a zombie) soon after.
engine_alive() {
  local file state
  for file in $(grep -lsa "^sleep.4321" /proc/[0-9]*/cmdline || true); do
    state=$(sed -E 's/.*\) (.).*/\1/' "${file%cmdline}stat" 2>/dev/null || echo Z)
    [ "$state" = Z ] || return 0
  done
  return 1
}
deadline=$((SECONDS + 30))
while engine_alive; do
  [ $SECONDS -lt $deadline ] || fail "Ctrl-C left the engine running"
  sleep 0.1
done

# 8. The shipped net, out of the box.
reply=$(printf 'genmove b\nquit\n' | "$loaz" gtp)
grep -qE '^= [a-h][1-8][-x][a-h][1-8]' <<<"$reply" || fail "loaz gtp with no arguments did not play: $reply"
# loaz uci plays it too, as cutechess asks: a position by FEN, a clock, a move FROMTO.
reply=$( (printf 'uci\nisready\nposition fen 1pppppp1/P6P/P6P/P6P/P6P/P6P/P6P/1pppppp1 b - - 0 1\ngo movetime 300\n'
  sleep 2) | "$loaz" uci)
grep -qx 'uciok' <<<"$reply" && grep -qx 'readyok' <<<"$reply" || fail "loaz uci handshake: $reply"
grep -qE '^info depth [0-9]+ nodes [0-9]+ .* score cp -?[0-9]+ wdl ' <<<"$reply" || fail "loaz uci info: $reply"
grep -qE '^bestmove [a-h][1-8][a-h][1-8]$' <<<"$reply" || fail "loaz uci did not play: $reply"
set +e
message=$(printf 'genmove b\nquit\n' | LOAZ_NET="$tmp/none.safetensors" "$loaz" gtp 2>&1 >/dev/null)
code=$?
set -e
[ "$code" = 1 ] || fail "a missing default net: exit $code, not 1"
[ "$(wc -l <<<"$message")" = 1 ] || fail "a missing default net: more than one line: $message"
grep -q "none.safetensors.*LOAZ_NET" <<<"$message" || fail "a missing default net is not named: $message"

# 9. SIGTERM ends a busy server: a 20-second search that names no client
# is stopped, its request answered, and the process exits (it once closed
# its port and lived on until SIGKILL). Bounded polls, no timings.
"$loaz" serve --port 0 --player ab:time=1 >"$tmp/serve.out" 2>"$tmp/serve.err" &
server=$!
deadline=$((SECONDS + 30))
until grep -q "http://127.0.0.1:" "$tmp/serve.out"; do
  [ $SECONDS -lt $deadline ] || fail "loaz serve did not start: $(cat "$tmp/serve.err")"
  sleep 0.1
done
port=$(sed -nE 's/.*127\.0\.0\.1:([0-9]+).*/\1/p' "$tmp/serve.out" | head -1)
http() {  # http METHOD PATH [BODY] on fd 3, a fresh connection
  exec 3<>"/dev/tcp/127.0.0.1/$port"
  printf '%s %s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
    "$1" "$2" "$port" "${#3}" "$3" >&3
}
http POST /api/genmove '{"player": "ab:time=1", "seconds": 20}'
exec 4<&3  # the search's connection
deadline=$((SECONDS + 30))
until { http GET /api/info ''; cat <&3; } | grep -q '"running":1'; do
  [ $SECONDS -lt $deadline ] || fail "the search never ran"
  sleep 0.1
done
# A client that trickles header lines and never ends its request: the
# server does not wait for it past its shutdown's grace (2 s).
exec 6<>"/dev/tcp/127.0.0.1/$port"
printf 'GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n' "$port" >&6
(while printf 'X-Trickle: 1\r\n' >&6 2>/dev/null; do sleep 0.5; done) &
trickler=$!
kill -TERM "$server"
deadline=$((SECONDS + 30))
while kill -0 "$server" 2>/dev/null; do
  [ $SECONDS -lt $deadline ] || fail "SIGTERM left a busy server running (a client trickling headers)"
  sleep 0.1
done
wait "$server" 2>/dev/null || true
kill "$trickler" 2>/dev/null || true
exec 6>&-
reply=$(cat <&4 || true)
grep -q '"move"' <<<"$reply" || fail "the search stopped by SIGTERM got no move: $reply"

# 10. The wait policy a running `loaz gtp` has, started with `env ARGS`: read
# from its process once it has answered a command (so after any run of
# itself again), while it waits for the next.
wait_policy() {
  local fifo=$tmp/gtp.in out=$tmp/gtp.out pid value deadline
  rm -f "$fifo" "$out"
  mkfifo "$fifo"
  env "$@" "$loaz" gtp <"$fifo" >"$out" 2>/dev/null &
  pid=$!
  exec 5>"$fifo"
  echo name >&5
  deadline=$((SECONDS + 30))
  until grep -q "^= LOAZero" "$out" 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || break
    sleep 0.1
  done
  value=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | sed -n 's/^OMP_WAIT_POLICY=//p') || true
  exec 5>&-
  wait "$pid" 2>/dev/null || true
  echo "$value"
}
policy=$(wait_policy -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT)
[ "$policy" = PASSIVE ] || fail "loaz runs with OMP_WAIT_POLICY='$policy', not PASSIVE, when the environment sets none"
policy=$(wait_policy OMP_WAIT_POLICY=ACTIVE)
[ "$policy" = ACTIVE ] || fail "loaz changed the OMP_WAIT_POLICY the environment chose (ACTIVE) to '$policy'"

echo "binaries_test: all passed"

