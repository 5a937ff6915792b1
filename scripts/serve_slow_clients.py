#!/usr/bin/env python3
"""The slow-client figures of `loaz serve` (docs/SERVE.md): how long
/api/info takes with 70 connections trickling POST bodies a byte at a time,
how long SIGTERM takes to end the process while a client trickles its
headers or its body, and what a move with `seconds: 1` after an analysis of
the same tab reuses.

usage: scripts/serve_slow_clients.py [--loaz build/app/loaz]

Standard library only.
"""

import argparse
import json
import signal
import socket
import subprocess
import threading
import time
import urllib.request


def start(loaz, *options):
    server = subprocess.Popen([loaz, "serve", "--port", "0", *options], stdout=subprocess.PIPE, text=True)
    port = int(server.stdout.readline().split("http://127.0.0.1:")[1].split("/")[0])
    return server, port


def post(port, path, body):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as reply:
        return json.loads(reply.read())


def trickle_body(port):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(f"POST /api/position HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
              "Content-Length: 1000\r\n\r\n{".encode())
    return s


def keep_trickling(sockets, data, stop):
    while not stop.is_set():
        for s in sockets:
            try:
                s.sendall(data)
            except OSError:
                pass
        time.sleep(1)


def sigterm_seconds(loaz, trickler):
    """Seconds from SIGTERM to the process's end, with one trickling client."""
    server, port = start(loaz, "--player", "random")
    if trickler == "headers":
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(f"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
        data = b"X-Trickle: 1\r\n"
    else:
        s = trickle_body(port)
        data = b" "
    stop = threading.Event()
    feeder = threading.Thread(target=keep_trickling, args=([s], data, stop))
    feeder.start()
    time.sleep(0.5)
    begin = time.perf_counter()
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=60)
        seconds = time.perf_counter() - begin
    except subprocess.TimeoutExpired:
        server.kill()
        seconds = float("inf")
    stop.set()
    feeder.join()
    s.close()
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loaz", default="build/app/loaz")
    args = parser.parse_args()

    server, port = start(args.loaz, "--player", "random", "--player", "mcts:threads=1")
    try:
        sockets = [trickle_body(port) for _ in range(70)]
        stop = threading.Event()
        feeder = threading.Thread(target=keep_trickling, args=(sockets, b" ", stop))
        feeder.start()
        time.sleep(0.5)
        begin = time.perf_counter()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/info", timeout=60) as reply:
            reply.read()
        print(f"/api/info with 70 bodies trickling a byte a second: {1000 * (time.perf_counter() - begin):.0f} ms")
        stop.set()
        feeder.join()
        for s in sockets:
            s.close()
        analysis = post(port, "/api/analyse", {"player": "mcts:threads=1", "playouts": 2000, "client": "probe"})
        move = post(port, "/api/genmove", {"player": "mcts:threads=1", "seconds": 1, "client": "probe"})
        print(f"a move with seconds 1 after an analysis of {analysis['analysis']['nodes']} playouts: "
              f"reused {move['analysis']['reused']}")
    finally:
        server.terminate()
        server.wait(timeout=10)
    for trickler in ("headers", "body"):
        print(f"SIGTERM with a client trickling its {trickler}: the process ended after "
              f"{sigterm_seconds(args.loaz, trickler):.2f} s")


if __name__ == "__main__":
    main()
