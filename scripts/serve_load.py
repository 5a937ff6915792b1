#!/usr/bin/env python3
"""The load figures of `loaz serve` (docs/SERVE.md): with N searches running,
how long the page (GET /), /api/info and /api/stop take to answer.

usage: scripts/serve_load.py [--loaz build/app/loaz] [--searches 8] [--rounds 20]

Starts `loaz serve` on a free loopback port with the baseline player, asks
for N moves of 20 s each from N tabs, waits until all N run, then times
GET / and /api/info `rounds` times each and one /api/stop per tab, and
prints the median and the worst of each. Standard library only.
"""

import argparse
import json
import statistics
import sys
import threading
import time
import urllib.request

from serve_common import running_server


def request(port, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data,
                                 headers={"Content-Type": "application/json"})
    begin = time.perf_counter()
    with urllib.request.urlopen(req, timeout=120) as reply:
        payload = reply.read()
    return time.perf_counter() - begin, payload


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loaz", default="build/app/loaz")
    parser.add_argument("--searches", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()

    with running_server(args.loaz, "--player", "ab:time=1", "--searches", str(args.searches)) as port:
        moves = {}

        def ask(i):
            moves[i] = request(port, "/api/genmove",
                               {"player": "ab:time=1", "seconds": 20, "client": f"load-{i}"})

        threads = [threading.Thread(target=ask, args=(i,)) for i in range(args.searches)]
        for t in threads:
            t.start()
        deadline = time.time() + 30
        while json.loads(request(port, "/api/info")[1])["searches"]["running"] < args.searches:
            if time.time() > deadline:
                sys.exit("the searches never all ran")
            time.sleep(0.05)
        page = [request(port, "/")[0] for _ in range(args.rounds)]
        info = [request(port, "/api/info")[0] for _ in range(args.rounds)]
        running = json.loads(request(port, "/api/info")[1])["searches"]["running"]
        stops = [request(port, "/api/stop", {"client": f"load-{i}"})[0] for i in range(args.searches)]
        for t in threads:
            t.join()
        searched = [json.loads(moves[i][1])["analysis"]["seconds"] for i in range(args.searches)]

        def ms(values):
            return f"median {1000 * statistics.median(values):.1f} ms, worst {1000 * max(values):.1f} ms"

        print(f"{args.searches} searches of 20 s running ({running} still running after the timings)")
        print(f"  GET /        {ms(page)} ({args.rounds} requests)")
        print(f"  /api/info    {ms(info)} ({args.rounds} requests)")
        print(f"  /api/stop    {ms(stops)} (one per tab)")
        print(f"  searches ended after their stop: {min(searched):.2f}-{max(searched):.2f} s of search")


if __name__ == "__main__":
    main()
