#!/usr/bin/env python3
"""The engine of the page against `loaz gtp`: playouts a second of the same
player at the same setting, measured side by side (docs/SERVE.md).

usage: scripts/serve_speed.py [--loaz build/app/loaz] [--spec mcts:time=1,threads=2] [--moves 8]

Plays the same game prefix with both, alternating: a move of one tab of
`loaz serve` (its player persists, so from the second move on its tree and
its net's cache are warm, as in `loaz gtp`), then the same `genmove` of
`loaz gtp --verbose` (one engine for all moves, its tree kept). The line is
the engine's own moves for both sides, so each search may reuse the last.
Prints each side's playouts and seconds per move, and over all moves the
playouts a second of each (total playouts / total seconds: a search that a
kept tree settles early spends little time and few playouts, which would
make a per-move rate noisy). Standard library only.
"""

import argparse
import json
import re
import subprocess
import urllib.request


def post(port, path, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as reply:
        return json.loads(reply.read())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loaz", default="build/app/loaz")
    parser.add_argument("--spec", default="mcts:time=1,threads=2")
    parser.add_argument("--moves", type=int, default=8)
    args = parser.parse_args()

    server = subprocess.Popen([args.loaz, "serve", "--port", "0", "--player", args.spec],
                              stdout=subprocess.PIPE, text=True)
    gtp = subprocess.Popen([args.loaz, "gtp", "--player", args.spec, "--verbose"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
    try:
        line = server.stdout.readline()  # "loaz serve: http://127.0.0.1:PORT/ ..."
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        moves, page, engine = [], [], []  # (playouts, seconds) per move
        colours = "bw"
        for ply in range(args.moves):
            reply = post(port, "/api/genmove", {"moves": moves, "player": args.spec, "client": "speed"})
            page.append((reply["analysis"]["nodes"], reply["analysis"]["seconds"]))
            gtp.stdin.write(f"genmove {colours[ply % 2]}\n")
            answer = gtp.stdout.readline().strip()
            gtp.stdout.readline()  # the empty line that ends a reply
            info = gtp.stderr.readline()
            engine.append((int(re.search(r"playouts (\d+)", info).group(1)),
                           float(re.search(r"time ([0-9.]+) s", info).group(1))))
            # Both continue from the page's move: gtp plays it as the other's.
            gtp.stdin.write(f"undo\nplay {colours[ply % 2]} {reply['move']}\n")
            for _ in range(2):
                gtp.stdout.readline(), gtp.stdout.readline()
            moves.append(reply["move"])
            print(f"ply {ply + 1}: page {page[-1][0]} playouts in {page[-1][1]:.2f} s ({reply['move']}), "
                  f"gtp {engine[-1][0]} in {engine[-1][1]:.2f} s ({answer[2:]})")

        def rate(searches):
            return sum(p for p, _ in searches) / sum(t for _, t in searches)

        print(f"over {args.moves} moves: page {rate(page):.0f}, gtp {rate(engine):.0f} playouts/s "
              f"(page/gtp {rate(page) / rate(engine):.2f})")
    finally:
        gtp.stdin.close()
        gtp.wait(timeout=30)
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
