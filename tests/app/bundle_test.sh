#!/usr/bin/env bash
# The bundle of scripts/bundle.sh where none of the project's packages is:
# a minimal Debian 12 root (mmdebstrap --variant=minbase), the bundle
# unpacked in it, and in a chroot (as root): every library the programs
# load is the bundle's or glibc's, `bin/loaz gtp` answers genmove with the
# shipped nets (8x8 and 6x6), `bin/loaz serve` answers / with the page, and `bin/loaz
# train configs/tiny.yaml` makes a checkpoint. .ci/run runs it; it needs
# root, mmdebstrap and Debian's mirror.
# usage: bundle_test.sh dist/loazero-VERSION-linux-x86_64.tar.gz
set -euo pipefail
tarball=$(realpath "$1")
name=$(basename "$tarball" .tar.gz)
tmp=$(mktemp -d)
root=$tmp/root
cleanup() {
  [ -n "${server:-}" ] && kill "$server" 2>/dev/null
  for m in proc dev; do mountpoint -q "$root/$m" 2>/dev/null && umount -l "$root/$m"; done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
[ "$(id -u)" = 0 ] || fail "needs root (a chroot)"
echo "== a minimal Debian 12 root"
mmdebstrap --variant=minbase --quiet bookworm "$root" >/dev/null
mkdir -p "$root/bundle"
tar -C "$root/bundle" -xzf "$tarball"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
# Runs $1 in the bundle's folder inside the root, with a bare environment.
# (exec: so that a process started in the background is the program itself.)
inside() { exec chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp LANG=C.UTF-8 bash -c "cd /bundle/$name && exec $1"; }
if (inside 'ls /usr/lib/x86_64-linux-gnu') | grep -qE 'libtorch|libdnnl|libyaml-cpp|libopenblas'; then
  fail "the root holds the project's libraries"
fi
echo "== the libraries: the bundle's, or glibc's"
(inside 'ldd bin/loaz bin/loaz-torch') >"$tmp/ldd"
grep -q "not found" "$tmp/ldd" && fail "a library is missing: $(grep 'not found' "$tmp/ldd")"
outside=$(awk '$2 == "=>" && $3 ~ /^\// {print $3}' "$tmp/ldd" | grep -vE "^/bundle/$name/(bin/\.\./)?lib/" |
  grep -vE '/(libc|libm|libpthread|libdl|librt|libresolv|ld-linux[^/]*)\.so' || true)
[ -z "$outside" ] || fail "libraries from outside the bundle: $outside"
echo "== loaz gtp plays the shipped net"
reply=$(printf 'genmove b\nquit\n' | (inside 'bin/loaz gtp --player mcts:playouts=100') 2>"$tmp/gtp.err")
echo "$reply" | grep -qE '^= [a-h][1-8][-x][a-h][1-8]' || fail "gtp: $reply $(cat "$tmp/gtp.err")"
echo "$reply" | head -1
echo "== and the shipped 6x6 net on the 6x6 board"
reply=$(printf 'boardsize 6\ngenmove b\nquit\n' | (inside 'bin/loaz gtp --player mcts:playouts=100') 2>"$tmp/gtp.err")
echo "$reply" | grep -qE '^= [a-f][1-6][-x][a-f][1-6]$' || fail "gtp on 6x6: $reply $(cat "$tmp/gtp.err")"
echo "== loaz serve answers /"
port=$((20000 + RANDOM % 20000))
(inside "bin/loaz serve --port $port") >"$tmp/serve.log" 2>&1 &
server=$!
for _ in $(seq 100); do
  python3 - "$port" >"$tmp/page" 2>/dev/null <<'PY' && break
import sys, urllib.request
print(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/", timeout=2).read().decode())
PY
  sleep 0.2
done
grep -qi "<html" "$tmp/page" || fail "serve: no page: $(cat "$tmp/serve.log")"
python3 - "$port" <<'PY' || fail "serve: Chart.js is not served"
import sys, urllib.request
body = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/vendor/chart.js", timeout=2).read()
sys.exit(0 if len(body) > 10000 else 1)
PY
kill "$server"
server=
echo "== loaz train makes a checkpoint"
(inside 'bin/loaz train configs/tiny.yaml --set run.directory=/tmp/runs --set train.max_steps=20') >"$tmp/train.log" 2>&1 ||
  fail "train: $(tail -5 "$tmp/train.log")"
ls "$root"/tmp/runs/tiny/checkpoints/ckpt_*.pt >/dev/null 2>&1 || fail "no checkpoint: $(tail -5 "$tmp/train.log")"
echo "PASS: the bundle runs in a minimal Debian 12 root ($(du -m "$tarball" | cut -f1) MB, glibc $(cat "$root/bundle/$name/GLIBC") or newer)"
