#!/usr/bin/python3
"""Plots of a training run from its metrics.jsonl (matplotlib, PNG files).

usage: scripts/plot.py RUN_DIR [--out DIR] [--table HOURS]

Writes into RUN_DIR/eval/ (or --out):
  losses.png     training and validation losses against steps and hours
  elo.png        Elo of the evaluated checkpoints against steps and hours
                 (eval/ratings.json: Bradley-Terry over every match, the first
                 ladder player fixed at 0; the ladder as dashed lines), and the
                 score against each opponent
  selfplay.png   self-play games and positions per hour, mean game length
With --table HOURS it prints instead, per period of HOURS of run time, what
self-play made (games, positions an hour, draws, games capped at
rules.max_plies, resignations, mean length), the training losses, the
learning rate at the period's end and the playouts of self-play's full
searches (two where selfplay.late_hours switched within the period): how a
run changed as it went on.
Lines that are not JSON (a write cut short by a crash) are skipped.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pymodules import require  # noqa: E402

require("numpy", "matplotlib")

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_events(path):
    """Returns the JSON objects of a JSON-lines file, skipping bad lines."""
    events = []
    with open(path) as f:
        for line in f:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(event, dict):
                events.append(event)
    return events


def series(events, kind, key, x="step"):
    """Returns (xs, ys) of the events of one kind that have both keys."""
    xs, ys = [], []
    for e in events:
        if e.get("event") == kind and e.get(key) is not None and e.get(x) is not None:
            xs.append(e[x])
            ys.append(e[key])
    return xs, ys


def plot_losses(events, out):
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    for col, x in enumerate(["step", "hours"]):
        for row, (key, title) in enumerate([("policy_loss", "policy cross-entropy"),
                                            ("value_loss", "value (WDL) cross-entropy")]):
            ax = axes[row][col]
            for kind, style in [("train", "-"), ("validation", "o--")]:
                xs, ys = series(events, kind, key, x)
                if xs:
                    ax.plot(xs, ys, style, label=kind, markersize=3)
            ax.set_title(title)
            ax.set_xlabel("training steps" if x == "step" else "hours")
            ax.grid(alpha=0.3)
            ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def checkpoint_ratings(run_dir, events):
    """Returns [(step, hours, elo, ci95)] of the checkpoints and {name: elo}
    of the other players, from eval/ratings.json (the table over every match)
    when it exists, else from the rating events as they were written."""
    hours = {e["step"]: e["hours"] for e in events if e.get("event") == "checkpoint" and "hours" in e}
    path = os.path.join(run_dir, "eval", "ratings.json")
    points, others = [], {}
    if os.path.exists(path):
        with open(path) as f:
            for r in json.load(f):
                if r["name"].startswith("step "):
                    step = int(r["name"][5:])
                    points.append((step, hours.get(step), r["elo"], r["ci95"]))
                else:
                    others[r["name"]] = r["elo"]
    else:
        for e in events:
            if e.get("event") == "rating" and e.get("elo") is not None:
                points.append((e["step"], e.get("hours"), e["elo"], e.get("elo_ci95", 0)))
    return sorted(points), others


def plot_elo(run_dir, events, out):
    points, others = checkpoint_ratings(run_dir, events)
    anchor = next((e.get("anchor") for e in events if e.get("event") == "rating"), "")
    fig, axes = plt.subplots(1, 3, figsize=(16, 5))
    for col, x in enumerate(["step", "hours"]):
        ax = axes[col]
        pts = [p for p in points if p[col] is not None]
        if pts:
            ax.errorbar([p[col] for p in pts], [p[2] for p in pts], yerr=[p[3] for p in pts],
                        fmt="o-", capsize=3, label="checkpoints")
        for name, elo in sorted(others.items(), key=lambda item: item[1]):
            ax.axhline(elo, ls="--", lw=0.8, color="gray")
            ax.annotate(name, (0, elo), xycoords=("axes fraction", "data"), fontsize=8, va="bottom")
        ax.set_title("Elo (Bradley-Terry, %s = 0)" % (anchor or "first player"))
        ax.set_xlabel("training steps" if x == "step" else "hours")
        ax.grid(alpha=0.3)
    ax = axes[2]
    opponents = sorted({e["opponent"] for e in events if e.get("event") == "eval" and "opponent" in e
                        and not str(e["opponent"]).startswith("step ")})
    for opponent in opponents:
        pts = sorted((e["step"], e["score"]) for e in events
                     if e.get("event") == "eval" and e.get("opponent") == opponent and "score" in e
                     and str(e.get("player", "")).startswith("step "))
        ax.plot([p[0] for p in pts], [100 * p[1] for p in pts], "o-", label=opponent)
    ax.axhline(50, color="gray", lw=0.8)
    ax.set_ylim(0, 100)
    ax.set_title("score against the ladder (%)")
    ax.set_xlabel("training steps")
    ax.grid(alpha=0.3)
    if opponents:
        ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def plot_selfplay(events, out):
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.5))
    for ax, (key, title) in zip(axes, [("games_per_hour", "self-play games per hour"),
                                       ("positions_per_hour", "self-play positions per hour"),
                                       ("mean_plies", "mean game length (plies)")]):
        writers = sorted({e.get("writer", "") for e in events if e.get("event") == "selfplay"})
        for writer in writers:
            pts = [(e["time"], e[key]) for e in events
                   if e.get("event") == "selfplay" and e.get("writer", "") == writer and key in e]
            if pts:
                t0 = pts[0][0]
                ax.plot([(p[0] - t0) / 3600 for p in pts], [p[1] for p in pts], label=writer)
        ax.set_title(title)
        ax.set_xlabel("hours since the writer started")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def period_table(events, hours):
    """Returns the lines of the table of --table: one per period of `hours`."""
    rows = {}
    now = 0.0  # run hours of the latest event that carries them (file order is write order)
    for e in events:
        if e.get("hours") is not None:
            now = e["hours"]
        row = rows.setdefault(int(now // hours), {"games": 0, "draws": 0, "capped": 0, "resigned": 0, "plies": 0.0,
                                                  "positions": [], "policy": [], "value": [], "lr": None,
                                                  "step": None, "playouts": set()})
        kind = e.get("event")
        if kind == "selfplay" and "shard_games" in e and not e.get("reconciled"):
            g = e["shard_games"]
            row["games"] += g
            for key in ("draws", "capped", "resigned"):
                row[key] += e.get(key, 0)
            row["plies"] += e.get("mean_plies", 0) * g
            if "positions_per_hour" in e:
                row["positions"].append(e["positions_per_hour"])
            if "playouts" in e:
                row["playouts"].add(e["playouts"])
        elif kind == "train":
            row["policy"].append(e.get("policy_loss", 0))
            row["value"].append(e.get("value_loss", 0))
            row["lr"], row["step"] = e.get("lr"), e.get("step")

    # The shards self-play writes as a run's budget runs out carry its last
    # hours (a hair past max_hours): a last period without a training step
    # is those, and they count in the period before it.
    keys = sorted(rows)
    if len(keys) > 1 and rows[keys[-1]]["step"] is None:
        last, into = rows.pop(keys[-1]), rows[keys[-2]]
        for key in ("games", "draws", "capped", "resigned", "plies"):
            into[key] += last[key]
        into["playouts"] |= last["playouts"]

    def mean(xs):
        return "%.3f" % (sum(xs) / len(xs)) if xs else "-"

    def share(n, d):
        return "%.1f%%" % (100.0 * n / d) if d else "-"

    lines = ["%-11s %7s %7s %10s %6s %6s %8s %6s %7s %7s %8s %9s" %
             ("run hours", "step", "games", "pos/hour", "draws", "capped", "resigned", "plies", "policy", "value",
              "lr", "playouts")]
    for k in sorted(rows):
        r = rows[k]
        if not r["games"] and r["step"] is None:
            continue
        lines.append("%-11s %7s %7d %10s %6s %6s %8s %6s %7s %7s %8s %9s" % (
            "%.2f-%.2f" % (k * hours, (k + 1) * hours), r["step"] if r["step"] is not None else "-", r["games"],
            "%.0f" % r["positions"][-1] if r["positions"] else "-", share(r["draws"], r["games"]),
            share(r["capped"], r["games"]), share(r["resigned"], r["games"]),
            "%.1f" % (r["plies"] / r["games"]) if r["games"] else "-", mean(r["policy"]), mean(r["value"]),
            "%.5f" % r["lr"] if r["lr"] is not None else "-",
            "/".join(str(n) for n in sorted(r["playouts"])) or "-"))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", help="the run directory (holds metrics.jsonl)")
    parser.add_argument("--out", help="folder for the PNG files (default RUN_DIR/eval)")
    parser.add_argument("--table", type=float, metavar="HOURS",
                        help="print a table per period of HOURS of run time instead of plotting")
    args = parser.parse_args()
    if args.table is not None and args.table <= 0:
        sys.exit("plot.py: --table %s: the period must be positive" % args.table)
    metrics = os.path.join(args.run_dir, "metrics.jsonl")
    if not os.path.exists(metrics):
        sys.exit("plot.py: %s: no such file" % metrics)
    events = read_events(metrics)
    if args.table is not None:
        print("\n".join(period_table(events, args.table)))
        return
    out = args.out or os.path.join(args.run_dir, "eval")
    os.makedirs(out, exist_ok=True)
    written = []
    for name, plot in [("losses.png", plot_losses), ("elo.png", lambda e, p: plot_elo(args.run_dir, e, p)),
                       ("selfplay.png", plot_selfplay)]:
        path = os.path.join(out, name)
        plot(events, path)
        written.append(path)
    print("wrote " + " ".join(written))


if __name__ == "__main__":
    main()
