#!/usr/bin/env bash
# The two binaries (docs/DESIGN.md, Build):
#  1. loaz maps no LibTorch library;
#  2. loaz runs its own commands (perft, config) without loaz-torch;
#  3. loaz hands a LibTorch command to loaz-torch beside it (when built);
#  4. without loaz-torch beside it, a LibTorch command fails in one line
#     naming the command, exit code 1;
#  5. loaz refuses a checkpoint (.pt) net in one line that names loaz-torch.
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
fi

cp "$loaz" "$tmp/loaz"
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
echo "binaries_test: all passed"
