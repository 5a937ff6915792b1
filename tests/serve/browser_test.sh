#!/usr/bin/env bash
# The browser test of `loaz serve` (CTest runs it): a server over a small
# run directory, then browser_test.py in headless Chromium over WebDriver
# (Debian's chromium, chromium-driver and python3-selenium: no package from
# another registry). Exit 77 (a skip) when one is missing, unless
# LOAZ_REQUIRE_BROWSER=1 (CI sets it: scripts/setup.sh installs them).
# usage: browser_test.sh LOAZ SCREENSHOT_DIR
set -euo pipefail
loaz=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
missing=""
python=${LOAZ_BROWSER_PYTHON:-/usr/bin/python3}  # Debian's, where python3-selenium is
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || missing="chromium"
[ -x "${CHROMEDRIVER:-/usr/bin/chromedriver}" ] || missing="$missing chromium-driver"
"$python" -c "import selenium" 2>/dev/null || missing="$missing python3-selenium"
if [ -n "$missing" ]; then
  echo "browser test: missing $missing"
  [ "${LOAZ_REQUIRE_BROWSER:-0}" = 1 ] && exit 1
  exit 77
fi
tmp=$(mktemp -d)
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# A run directory with a little of everything the Runs view shows.
run=$tmp/demo
mkdir -p "$run/checkpoints" "$run/games" "$run/eval" "$run/selfplay" "$run/workers"
echo "run: {name: demo}" >"$run/config.yaml"
for i in 1 2 3 4 5 6; do
  echo "{\"event\":\"train\",\"step\":$((i * 100)),\"policy_loss\":$((40 - i)).0e-1,\"value_loss\":$((12 - i)).0e-1,\"time\":$((1000 + i * 60))}"
  echo "{\"event\":\"validation\",\"step\":$((i * 100)),\"policy_loss\":$((41 - i)).0e-1,\"value_loss\":$((13 - i)).0e-1,\"time\":$((1000 + i * 60))}"
  echo "{\"event\":\"rating\",\"step\":$((i * 100)),\"hours\":0.$i,\"elo\":$((i * 60 - 200)),\"elo_ci95\":90,\"time\":$((1000 + i * 60))}"
  echo "{\"event\":\"selfplay\",\"games_per_hour\":$((30000 + i * 100)),\"positions_per_hour\":$((1260000 - i * i * 4000)),\"time\":$((1000 + i * 60))}"
done >"$run/metrics.jsonl"
echo '[{"name":"step 600","elo":160,"ci95":90,"games":40,"score":0.7},{"name":"ab:depth=2","elo":0,"ci95":0,"games":80,"score":0.5}]' \
  >"$run/eval/ratings.json"
touch "$run/checkpoints/ckpt_00000600.pt"  # listed, never read: only LibTorch plays it
# A self-play process that played long ago: listed as stale.
echo '{"name":"a0","host":"n1","job":"7_0","time":1,"games":12,"positions_per_hour":900,"net_step":600}' \
  >"$run/workers/a0.json"
# The trainer's heartbeat, also long ago, and a heartbeat damaged (cut short).
echo '{"name":"trainer","host":"n2","job":"8","time":1,"net_step":600}' >"$run/trainer.json"
echo '{"name":"a1","ho' >"$run/workers/a1.json"
printf '[Black "net step 600"]\n[White "net step 600"]\n\n1. d1-b3 h5-g4\n2. b1-b4 g4xg1\n*\n' >"$run/games/main-w0_000000_g0.txt"

# The shipped net analyses (mcts with no net= plays nets/default.safetensors).
"$loaz" serve --port 0 --run "$run" --player "ab:depth=3" --player random --player "mcts:threads=1" \
  >"$tmp/serve.log" 2>&1 &
server=$!
for _ in $(seq 100); do
  grep -q "http://" "$tmp/serve.log" && break
  sleep 0.1
done
url=$(grep -o 'http://[0-9.:]*/' "$tmp/serve.log") || { cat "$tmp/serve.log"; exit 1; }
"$python" "$here/browser_test.py" "$url" "$out" "$run/metrics.jsonl"
