#!/usr/bin/env python3
"""The memory figure of `loaz serve` in long use (docs/SERVE.md): its
resident size before and after rounds of concurrent full reads of a large
metrics file, as a page opened on a long run makes them.

usage: scripts/serve_memory.py [--loaz build/app/loaz] [--megabytes 10] [--readers 8] [--rounds 2]

Writes a run folder with a metrics.jsonl of about `megabytes` MB in a
temporary folder, starts `loaz serve --run` on it on a free loopback port,
then `rounds` times has `readers` threads each read the whole file the
page's way (`since`/`file` until `more` is false), and prints the server's
resident size (its /api/info) before, after each round, and after a second
of rest. Standard library only.
"""

import argparse
import json
import os
import tempfile
import threading
import time
import urllib.request

from serve_common import running_server


def get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=120) as reply:
        return json.loads(reply.read())


def read_all(port, seconds):
    """Reads run 0's metrics to the end; returns the events read."""
    begin = time.perf_counter()
    since, file, events = 0, "", 0
    while True:
        piece = get(port, f"/api/runs/0/metrics?since={since}&file={file}")
        events += len(piece["events"])
        since, file = piece["next"], piece["file"]
        if not piece["more"]:
            seconds.append(time.perf_counter() - begin)
            return events


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loaz", default="build/app/loaz")
    parser.add_argument("--megabytes", type=float, default=10)
    parser.add_argument("--readers", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as run:
        with open(os.path.join(run, "config.yaml"), "w") as f:
            f.write("run: {name: memory}\n")
        os.makedirs(os.path.join(run, "checkpoints"))
        line = ('{"event":"train","step":%d,"policy_loss":1.2345,"value_loss":0.5432,'
                '"lr":0.02,"samples_per_second":1234.5,"time":1764000000.5}\n')
        lines = 0
        with open(os.path.join(run, "metrics.jsonl"), "w") as f:
            written = 0
            while written < args.megabytes * 1e6:
                text = line % lines
                f.write(text)
                written += len(text)
                lines += 1
        with running_server(args.loaz, "--player", "random", "--run", run) as port:
            mb = lambda: get(port, "/api/info")["resident_bytes"] / 1e6
            start = mb()
            print(f"metrics.jsonl: {written / 1e6:.1f} MB, {lines} lines; resident at the start {start:.1f} MB")
            for r in range(args.rounds):
                seconds, counts = [], []
                threads = [threading.Thread(target=lambda: counts.append(read_all(port, seconds)))
                           for _ in range(args.readers)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                assert counts == [lines] * args.readers, counts
                print(f"round {r + 1}: {args.readers} full reads at once, each {min(seconds):.2f}-"
                      f"{max(seconds):.2f} s; resident {mb():.1f} MB")
            time.sleep(1)
            end = mb()
            print(f"after a second of rest: {end:.1f} MB ({end - start:+.1f} MB from the start)")


if __name__ == "__main__":
    main()
