#!/usr/bin/env python3
"""The memory figure of `loaz serve` loading net after net (docs/SERVE.md):
its resident size as requests name one checkpoint of a run after another,
as the page's "play this one" does, each a net the server has not kept.

usage: scripts/serve_checkpoints.py RUN [--loaz build/app/loaz-torch] [--requests 300] [--playouts 16] [--size 8]

Starts `loaz serve --run RUN` on a free loopback port, then asks one move
of each checkpoint in turn (`POST /api/genmove {"player": "NAME step N"}`,
the run's checkpoints cycled, so that with more than the server's four kept
nets every request loads one), and prints the server's resident size (its
/api/info) after the 1st, the 10th and every 50th request, and the growth
from the 10th to the last. Standard library only.
"""

import argparse
import json
import os
import re
import threading
import urllib.error
import urllib.request

from serve_common import running_server


def call(port, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as reply:
        return json.loads(reply.read())


def concurrent(args, name, steps):
    statuses = []
    with running_server(args.loaz, "--run", args.run, "--searches", "1") as port:
        def ask(step):
            body = {"player": f"{name} step {step}", "moves": [], "playouts": args.playouts,
                    "rules": {"size": args.size}}
            try:
                call(port, "/api/genmove", body)
                statuses.append(200)
            except urllib.error.HTTPError as e:
                statuses.append(e.code)
            except OSError:  # beyond the server's 128 HTTP workers a connection may be reset
                statuses.append("reset")
        threads = [threading.Thread(target=ask, args=(steps[i % len(steps)],)) for i in range(args.concurrent)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        resident = call(port, "/api/info")["resident_bytes"]
    counts = {code: statuses.count(code) for code in sorted(set(statuses), key=str)}
    print(f"{args.concurrent} requests at once against --searches 1: {counts}; {resident / 2**20:.1f} MB resident after")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("run")
    parser.add_argument("--loaz", default="build/app/loaz-torch")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--playouts", type=int, default=16)
    parser.add_argument("--size", type=int, default=8, help="the run's board size")
    parser.add_argument("--concurrent", type=int, default=0, help="requests at once against --searches 1")
    args = parser.parse_args()
    name = os.path.basename(os.path.normpath(args.run))
    steps = sorted(int(m.group(1)) for f in os.listdir(os.path.join(args.run, "checkpoints"))
                   if (m := re.fullmatch(r"ckpt_(\d+)\.pt", f)))
    if len(steps) < 5:
        raise SystemExit(f"serve_checkpoints: {args.run} has {len(steps)} checkpoints; more than 4 are needed")
    if args.concurrent:
        return concurrent(args, name, steps)
    with running_server(args.loaz, "--run", args.run, "--searches", "1") as port:
        base = call(port, "/api/info")["resident_bytes"]
        print(f"before: {base / 2**20:.1f} MB resident; {len(steps)} checkpoints of {name}, {args.requests} requests")
        tenth = None
        for i in range(1, args.requests + 1):
            step = steps[(i - 1) % len(steps)]
            call(port, "/api/genmove", {"player": f"{name} step {step}", "moves": [], "playouts": args.playouts,
                                     "rules": {"size": args.size}})
            resident = call(port, "/api/info")["resident_bytes"]
            if i == 10:
                tenth = resident
            if i in (1, 10) or i % 50 == 0 or i == args.requests:
                print(f"after {i:4d}: {resident / 2**20:.1f} MB resident")
        print(f"growth from the 10th to the {args.requests}th: {(resident - tenth) / 2**20:+.1f} MB "
              f"({(resident - tenth) / 2**20 / max(1, args.requests - 10):+.2f} MB a load)")


if __name__ == "__main__":
    main()
