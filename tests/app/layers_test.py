#!/usr/bin/env python3
"""The design's graph of folders (docs/DESIGN.md, the map's "Depends on"):
every include of one folder's header from another is an arrow of ALLOWED,
never one of NEVER (each with the reason it is barred); a module's testing
header (FOLDER/testing.h) is included by tests/ and bench/ alone; and
inside a folder the includes between its pieces (a piece is a header and
its source, net/export.h and net/export.cpp) run one way: no piece reaches
back, through any chain, to one that includes it. A private header
(alphabeta/search_worker.h) is a piece of its own, below the files it
serves.

Usage: layers_test.py [--root DIR] | --self-test"""
import os
import re
import sys

import house_check

# folder -> the folders its files may include (its own aside).
ALLOWED = {
    "core": set(),
    "solve": {"core"},
    "alphabeta": {"core"},
    "mcts": {"core"},
    "net": {"core", "mcts"},
    "play": {"core", "solve", "alphabeta", "mcts", "net"},
    "run": {"core", "mcts", "net"},
    "train": {"core", "solve", "mcts", "net", "play", "run"},
    "serve": {"core", "solve", "mcts", "net", "play", "run"},
    "app": {"core", "solve", "alphabeta", "mcts", "net", "play", "run", "train", "serve"},
    "bench": {"core", "solve", "alphabeta", "mcts", "net"},
}
# Arrows that must never be drawn, and why (a test of ALLOWED's intent: a
# change that adds one to ALLOWED fails here).
NEVER = {
    ("run", "play"): "run/ is what every process reads, the login node's `loaz launch` too: "
                     "it builds no player (a command checks its specs: ConfigCheck)",
    ("run", "train"): "run/ holds no LibTorch",
    ("serve", "train"): "the server runs without LibTorch",
    ("play", "run"): "a player knows nothing of training runs",
    ("net", "play"): "the evaluators sit below the players",
    ("mcts", "net"): "the search sees an abstract Evaluator",
}
TESTING_HEADER = "testing"
TESTING_USERS = {"tests", "bench"}
include = re.compile(r'^#include "([a-z_]+)/([a-z_0-9]+)\.h"')


def sources(root, folder):
    path = os.path.join(root, folder)
    if not os.path.isdir(path):
        return []
    return [os.path.join(folder, f) for f in sorted(os.listdir(path)) if f.endswith((".h", ".cpp", ".inc"))]


def problems_in(root):
    problems = []
    for (a, b), why in NEVER.items():
        if b in ALLOWED.get(a, set()):
            problems.append(f"the graph allows {a}/ -> {b}/, which is never drawn: {why}")
    for folder in ALLOWED:
        arrows = {}  # piece -> {piece it includes: the line that does}
        for name in sources(root, folder):
            piece = os.path.splitext(os.path.basename(name))[0]
            for number, line in enumerate(open(os.path.join(root, name)), 1):
                m = include.match(line)
                if not m:
                    continue
                target, header = m.groups()
                where = f"{name}:{number}"
                if header == TESTING_HEADER and folder not in TESTING_USERS and target in ALLOWED:
                    problems.append(f"{where} includes {target}/testing.h, which only tests/ and bench/ may")
                if target == folder:
                    if header != piece:
                        arrows.setdefault(piece, {}).setdefault(header, where)
                elif (folder, target) in NEVER:
                    problems.append(f"{where}: {folder}/ -> {target}/ is never drawn ({NEVER[folder, target]}): "
                                    f"{line.strip()}")
                elif target not in ALLOWED[folder]:
                    problems.append(f"{where}: {folder}/ -> {target}/ is not an arrow of the design's graph: "
                                    f"{line.strip()}")
        problems += circles(folder, arrows)
    return problems


def circles(folder, arrows):
    """The circles of includes among one folder's pieces."""
    found, state = [], {}

    def visit(piece, chain):
        state[piece] = "open"
        for other in sorted(arrows.get(piece, {})):
            if state.get(other) == "open":
                circle = chain[chain.index(other):] + [other]
                steps = ", ".join(arrows[a][b] for a, b in zip(circle, circle[1:]))
                found.append(f"{folder}/: a circle of includes {' -> '.join(circle)} ({steps})")
            elif other not in state:
                visit(other, chain + [other])
        state[piece] = "done"

    for piece in sorted(arrows):
        if piece not in state:
            visit(piece, [piece])
    return found


# Each plant: (name, {path: text}, what a failure must name, or None for a pass).
PLANTS = [
    ("arrows of the graph", {"net/a.cpp": '#include "mcts/b.h"\n#include "core/c.h"\n'}, None),
    ("an arrow outside the graph", {"alphabeta/a.cpp": '#include "mcts/b.h"\n'},
     "alphabeta/a.cpp:1: alphabeta/ -> mcts/ is not an arrow"),
    ("an arrow that is never drawn", {"run/open_run.cpp": '\n#include "play/player.h"\n'},
     "run/open_run.cpp:2: run/ -> play/ is never drawn"),
    ("an arrow up from bench/", {"bench/b.cpp": '#include "train/trainer.h"\n'}, "bench/ -> train/"),
    ("a testing header in the program", {"play/p.cpp": '#include "solve/testing.h"\n'},
     "play/p.cpp:1 includes solve/testing.h"),
    ("a testing header in bench/", {"bench/b.cpp": '#include "solve/testing.h"\n'}, None),
    ("a circle inside a folder", {"core/a.h": '#include "core/b.h"\n', "core/b.cpp": '#include "core/a.h"\n'},
     "core/: a circle of includes"),
]


def check(root):
    problems = problems_in(root)
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print("layers_test: the includes above are not the design's graph (docs/DESIGN.md)", file=sys.stderr)
        return 1
    print(f"layers_test: every include of {', '.join(ALLOWED)} is an arrow of the design's graph, "
          f"none of the {len(NEVER)} never drawn, none round a folder")
    return 0


if __name__ == "__main__":
    house_check.main("layers_test", __doc__, PLANTS, problems_in, check)
