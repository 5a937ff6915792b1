#!/usr/bin/env python3
"""Writes tests/golden/cutechess_uci.txt and cutechess_xboard.txt: the
sessions of one `loaz uci` / `loaz xboard` engine (ab:depth=2, Black) in a
game against another (ab:depth=1) as cutechess-cli drives them on a 10+0.1
clock: the commands of its UciEngine and XboardEngine in their order (the
feature replies, the ping before each move of an engine that was observing,
the position after every move, the dummy move before `setboard`), each
move costing a pinned 37 ms. After a change that means to alter them:
  tests/golden/cutechess_transcripts.py build/app/loaz
"""
import os
import re
import select
import subprocess
import sys

HEADER = "# {} as cutechess-cli drives it: '> ' is sent, '< ' answered (tests/golden/cutechess_transcripts.py)\n"
KNOWN_FEATURES = {"ping", "setboard", "san", "usermove", "nps", "time", "reuse", "myname", "variants", "name",
                  "memory", "smp", "egt", "option", "done"}  # those cutechess accepts
START_FEN = "1pppppp1/P6P/P6P/P6P/P6P/P6P/P6P/1pppppp1 b - - 0 1"
COST_MS = 37


class Engine:
    def __init__(self, loaz, protocol, spec, log):
        self.p = subprocess.Popen([loaz, protocol, "--player", spec], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.log, self.buf = log, b""

    def send(self, line):
        if self.log is not None:
            self.log.append("> " + line)
        self.p.stdin.write((line + "\n").encode())
        self.p.stdin.flush()

    def line(self, timeout=None):
        while b"\n" not in self.buf:
            if not select.select([self.p.stdout.fileno()], [], [], timeout)[0]:
                return None
            self.buf += os.read(self.p.stdout.fileno(), 65536)
        text, self.buf = self.buf.split(b"\n", 1)
        if self.log is not None:
            self.log.append("< " + text.decode())
        return text.decode()

    def until(self, done):
        lines = [self.line()]
        while not done(lines[-1]):
            lines.append(self.line())
        return lines


def xboard(loaz):
    log = []
    a, b = Engine(loaz, "xboard", "ab:depth=2", log), Engine(loaz, "xboard", "ab:depth=1", None)
    for e in (a, b):
        e.send("xboard")
        e.send("protover 2")
        features = e.until(lambda l: l.startswith("feature"))[-1]
        for name, _ in re.findall(r'(\w+)\s*=\s*("[^"]+"|\w+)', features[len("feature "):]):
            e.send(("accepted " if name in KNOWN_FEATURES else "rejected ") + name)
    for e in (a, b):
        for line in ("new", "variant linesofaction", "force", "level 0 0:10 0.1", "post", "easy"):
            e.send(line)
    clock, pending, forced, side, pings, result = [10000, 10000], [None, None], [True, True], 0, 1, None
    while result is None:
        e, other = (a, b)[side], (b, a)[side]
        pings = pings % 31 + 7
        e.send("ping %d" % pings)
        e.until(lambda l: l.startswith("pong"))
        e.send("time %d" % (clock[side] // 10))
        e.send("otim %d" % (clock[1 - side] // 10))
        e.send("usermove " + pending[side] if pending[side] else "go")
        pending[side] = None
        lines = e.until(lambda l: l.startswith(("move", "1-0", "0-1", "1/2")))
        if not lines[-1].startswith("move"):
            result = lines[-1]
            break
        move = lines[-1].split()[1]
        clock[side] += 100 - COST_MS
        if forced[1 - side]:
            other.send("usermove " + move)
        else:
            pending[1 - side] = move
        forced[side] = False
        result = e.line(0.5)  # the mover's claim of a game its move ended
        side = 1 - side
    for e in (a, b):
        e.send("force")
        e.send("result %s {%s wins}" % (result.split()[0], "Black" if result.startswith("0-1") else "White"))
        e.send("ping 3")
        e.until(lambda l: l.startswith("pong"))
    # A second game from a FEN with Black to move: the dummy move first, then a Black move, then the engine as White.
    for line in ("new", "variant linesofaction", "force", "b2b3", "setboard " + START_FEN, "level 0 0:10 0.1",
                 "post", "easy", "ping 12"):
        a.send(line)
    a.until(lambda l: l.startswith("pong"))
    a.send("usermove b1d3")
    a.send("ping 4")
    a.until(lambda l: l.startswith("pong"))
    for line in ("time 1000", "otim 996", "go"):
        a.send(line)
    a.until(lambda l: l.startswith("move"))
    for line in ("force", "result * {aborted}", "ping 6"):
        a.send(line)
    a.until(lambda l: l.startswith("pong"))
    for e in (a, b):
        e.send("quit")
    return log, sum(1 for l in log if l.startswith(("< move", "> usermove"))) - 2


def uci(loaz, plies):
    log = []
    a, b = Engine(loaz, "uci", "ab:depth=2", log), Engine(loaz, "uci", "ab:depth=1", None)
    for e in (a, b):
        e.send("uci")
        e.until(lambda l: l == "uciok")
    for e in (a, b):
        for line in ("setoption name UCI_Variant value linesofaction", "ucinewgame", "position startpos"):
            e.send(line)
    clock, moves, side = [10000, 10000], [], 0
    while len(moves) < plies:
        e = (a, b)[side]
        e.send("isready")
        e.until(lambda l: l == "readyok")
        e.send("go wtime %d btime %d winc 100 binc 100" % (clock[1], clock[0]))
        moves.append(e.until(lambda l: l.startswith("bestmove"))[-1].split()[1])
        clock[side] += 100 - COST_MS
        for x in (a, b):
            x.send("position startpos moves " + " ".join(moves))
        side = 1 - side
    for e in (a, b):
        e.send("isready")
        e.until(lambda l: l == "readyok")
        e.send("quit")
    return log


def main():
    loaz = os.path.realpath(sys.argv[1])
    here = os.path.dirname(os.path.abspath(__file__))
    xboard_log, plies = xboard(loaz)
    for name, log in (("xboard", xboard_log), ("uci", uci(loaz, plies))):
        with open(os.path.join(here, "cutechess_%s.txt" % name), "w") as f:
            f.write(HEADER.format("loaz " + name + " --player ab:depth=2") + "\n".join(log) + "\n")
        print("wrote tests/golden/cutechess_%s.txt" % name)


if __name__ == "__main__":
    main()
