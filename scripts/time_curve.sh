#!/usr/bin/env bash
# Strength against time a move: the same pair at a ladder of times, and each
# engine against itself at double time (its Elo per doubling), so that where
# the lines cross can be read off. One game at a time (each engine on one
# thread, the other core idle or for the opponent's thinking: fair at any time).
#
# usage: scripts/time_curve.sh OUT [A=mcts:threads=1] [B=ab] [LADDER="0.1:200 0.4:200 1.6:100 6.4:40"] [DOUBLINGS="0.1:100 0.4:100 1.6:60"]
#   LADDER: SECONDS:GAMES steps of A against B at SECONDS a move each.
#   DOUBLINGS: SECONDS:GAMES steps of each engine at 2 x SECONDS against
#   itself at SECONDS ("" for none).
# environment: LOAZ (build/app/loaz); THREADS (games at once, 1).
#
# Writes OUT/POINT.json (`loaz match --summary`) and OUT/POINT/ (its games'
# records) for each point; a point whose summary exists is not played again,
# and one cut short keeps its games (`loaz match --resume`), so the curve
# goes on where it stopped. Prints the two tables (Markdown) and writes them
# to OUT/table.md; OUT/curve.png plots score and Elo against time.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 5 ]; then
  sed -n '7p' "$0" | sed 's/^# //' >&2
  exit 2
fi
out=$1 a=${2:-mcts:threads=1} b=${3:-ab} ladder=${4:-0.1:200 0.4:200 1.6:100 6.4:40}
doublings=${5-0.1:100 0.4:100 1.6:60}
root=$(cd "$(dirname "$0")/.." && pwd)
loaz=${LOAZ:-$root/build/app/loaz}
threads=${THREADS:-1}
mkdir -p "$out"

# with_time SPEC SECONDS: the spec with time=SECONDS added.
with_time() { if [[ $1 == *:* ]]; then echo "$1,time=$2"; else echo "$1:time=$2"; fi; }

# play NAME SPEC_A SPEC_B GAMES: one point, skipped when its summary exists.
play() {
  local name=$1 summary=$out/$1.json
  [ -s "$summary" ] && return 0
  echo "time_curve: $name: $2 against $3, $4 games" >&2
  "$loaz" match "$2" "$3" --games "$4" --openings random:plies=4 --threads "$threads" \
    --out "$out/$name" --resume --summary "$summary" >/dev/null
}

for step in $ladder; do
  s=${step%%:*} n=${step##*:}
  play "ladder_$s" "$(with_time "$a" "$s")" "$(with_time "$b" "$s")" "$n"
done
for step in $doublings; do
  s=${step%%:*} n=${step##*:}
  d=$(python3 -c "print(f'{2 * float(\"$s\"):g}')")
  play "double_A_$s" "$(with_time "$a" "$d")" "$(with_time "$a" "$s")" "$n"
  play "double_B_$s" "$(with_time "$b" "$d")" "$(with_time "$b" "$s")" "$n"
done

python3 - "$out" "$a" "$b" <<'EOF' | tee "$out/table.md"
import glob, json, os, sys
out, a, b = sys.argv[1:4]
def load(name):
    path = os.path.join(out, name + ".json")
    return json.load(open(path)) if os.path.exists(path) else None
def row(label, s):
    return (f"| {label} | {s['games']} | +{s['wins']} ={s['draws']} -{s['losses']} "
            f"| {100 * s['score']:.1f}% | {s['elo']:+.0f} +- {s['elo_ci95']:.0f} |")
ladder = sorted((float(p[len(out) + 8:-5]), p) for p in glob.glob(os.path.join(out, "ladder_*.json")))
print(f"{a} against {b}, equal time a move")
print("| s a move | games | +W =D -L | score | Elo (95%) |")
print("| --- | --- | --- | --- | --- |")
points = []
for s, path in ladder:
    summary = json.load(open(path))
    points.append((s, summary))
    print(row(f"{s:g}", summary))
doubles = sorted({float(p.rsplit("_", 1)[1][:-5]) for p in glob.glob(os.path.join(out, "double_*.json"))})
if doubles:
    print()
    print("Elo per doubling: each engine at 2t against itself at t")
    print("| engine | t -> 2t | games | +W =D -L | score | Elo (95%) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for engine, spec in (("A", a), ("B", b)):
        for s in doubles:
            summary = load(f"double_{engine}_{s:g}")
            if summary:
                print(row(f"{spec} | {s:g} -> {2 * s:g}", summary))
if points:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit(0)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    xs = [s for s, _ in points]
    left.plot(xs, [100 * p["score"] for _, p in points], "o-")
    left.axhline(50, color="grey", lw=0.5)
    left.set(xscale="log", xlabel="seconds a move", ylabel=f"score of {a} (%)")
    right.errorbar(xs, [p["elo"] for _, p in points], yerr=[p["elo_ci95"] for _, p in points], fmt="o-")
    right.axhline(0, color="grey", lw=0.5)
    right.set(xscale="log", xlabel="seconds a move", ylabel="Elo (95%)")
    fig.suptitle(f"{a} against {b}")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "curve.png"), dpi=100)
EOF
