#!/usr/bin/env python3
"""The layers of docs/DESIGN.md, lowest first, and the files inside each:
a file of one folder includes headers of its own folder or of lower ones,
never of a higher one; and inside a folder the includes between its pieces
(a piece is a header and its source, net/export.h and net/export.cpp) run
one way: no piece reaches back, through any chain, to one that includes it.
A private header (alphabeta/search_worker.h) is a piece of its own, below
the files it serves."""
import glob
import os
import re
import sys

LAYERS = "core solve alphabeta mcts net play run train serve app".split()
root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
include = re.compile(r'^#include "([a-z_]+)/([a-z_0-9]+)\.h"')
rank = {folder: i for i, folder in enumerate(LAYERS)}
problems = []
for folder in LAYERS:
    arrows = {}  # piece -> {piece it includes: the line that does}
    for path in sorted(glob.glob(os.path.join(root, folder, "*.h")) + glob.glob(os.path.join(root, folder, "*.cpp"))):
        name = os.path.relpath(path, root)
        piece = os.path.splitext(os.path.basename(path))[0]
        for number, line in enumerate(open(path), 1):
            m = include.match(line)
            if not m:
                continue
            target, header = m.groups()
            if rank.get(target, -1) > rank[folder]:
                problems.append(f"{name}:{number} includes {target}/ (a higher layer): {line.strip()}")
            if target == folder and header != piece:
                arrows.setdefault(piece, {}).setdefault(header, f"{name}:{number}")

    # A chain of includes from a piece back to itself is a circle.
    state = {}

    def visit(piece, chain):
        state[piece] = "open"
        for other in sorted(arrows.get(piece, {})):
            if state.get(other) == "open":
                circle = chain[chain.index(other):] + [other]
                steps = ", ".join(arrows[a][b] for a, b in zip(circle, circle[1:]))
                problems.append(f"{folder}/: a circle of includes {' -> '.join(circle)} ({steps})")
            elif other not in state:
                visit(other, chain + [other])
        state[piece] = "done"

    for piece in sorted(arrows):
        if piece not in state:
            visit(piece, [piece])
for line in problems:
    print(line, file=sys.stderr)
if problems:
    print(f"layers_test: the includes above point up the layers ({' '.join(LAYERS)}) or round a folder",
          file=sys.stderr)
    sys.exit(1)
print(f"layers_test: every include of {' '.join(LAYERS)} points down or across, and none round a folder")
