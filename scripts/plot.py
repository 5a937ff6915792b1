#!/usr/bin/python3
"""Plots of a training run from its metrics.jsonl (matplotlib, PNG files).

usage: scripts/plot.py RUN_DIR [--out DIR]

Writes into RUN_DIR/eval/ (or --out):
  losses.png     training and validation losses against steps and hours
  elo.png        Elo of the evaluated checkpoints against steps and hours
                 (Bradley-Terry, the first ladder player fixed at 0), and the
                 score against each opponent
  selfplay.png   self-play games and positions per hour, mean game length
Lines that are not JSON (a write cut short by a crash) are skipped.
"""

import argparse
import json
import os
import sys

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


def plot_elo(events, out):
    fig, axes = plt.subplots(1, 3, figsize=(16, 5))
    for col, x in enumerate(["step", "hours"]):
        ax = axes[col]
        points = [(e[x], e["elo"], e.get("elo_ci95", 0)) for e in events
                  if e.get("event") == "rating" and x in e and e.get("elo") is not None]
        if points:
            points.sort()
            ax.errorbar([p[0] for p in points], [p[1] for p in points], yerr=[p[2] for p in points],
                        fmt="o-", capsize=3, label="checkpoint")
        anchor = next((e.get("anchor") for e in events if e.get("event") == "rating"), "")
        ax.axhline(0, color="gray", lw=0.8)
        ax.set_title("Elo (%s = 0)" % (anchor or "first player"))
        ax.set_xlabel("training steps" if x == "step" else "hours")
        ax.grid(alpha=0.3)
    ax = axes[2]
    opponents = sorted({e["opponent"] for e in events if e.get("event") == "eval" and "opponent" in e
                        and not str(e["opponent"]).startswith("step ")})
    for opponent in opponents:
        pts = sorted((e["step"], e["score"]) for e in events
                     if e.get("event") == "eval" and e.get("opponent") == opponent and "score" in e)
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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", help="the run directory (holds metrics.jsonl)")
    parser.add_argument("--out", help="folder for the PNG files (default RUN_DIR/eval)")
    args = parser.parse_args()
    metrics = os.path.join(args.run_dir, "metrics.jsonl")
    if not os.path.exists(metrics):
        sys.exit("plot.py: %s: no such file" % metrics)
    events = read_events(metrics)
    out = args.out or os.path.join(args.run_dir, "eval")
    os.makedirs(out, exist_ok=True)
    written = []
    for name, plot in [("losses.png", plot_losses), ("elo.png", plot_elo), ("selfplay.png", plot_selfplay)]:
        path = os.path.join(out, name)
        plot(events, path)
        written.append(path)
    print("wrote " + " ".join(written))


if __name__ == "__main__":
    main()
