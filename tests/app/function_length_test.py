#!/usr/bin/env python3
"""The sizes docs/DESIGN.md ("Where a change goes") holds the sources to: no
room over 600 lines, no function over 100 lines, and none in serve/ over 60
(a handler that grows past that is split, or its part moved beside its kind).

A room is a source and its header together (run/config.cpp and run/config.h
are one room; .inc files join the room of their name), in every folder with
code: the C++ folders, bench/ and web/. A function is every function that
Universal Ctags finds, counted from its first line to its closing brace:
free functions, members defined in their class, operators, lambdas
(anywhere) and JavaScript functions; a lambda's lines count in the function
around it too. Tests are not held to it.

Usage: function_length_test.py [--root DIR] | --self-test
(--self-test plants rooms and functions one line over each limit in a
scratch tree and checks that each fails, and that ones at the limit pass.)"""
import collections
import json
import os
import re
import subprocess
import sys

import house_check

ROOM_LIMIT = 600
FUNCTION_LIMIT = 100
FUNCTION_LIMITS = {"serve": 60}
SOURCE_ENDINGS = (".cpp", ".h", ".inc", ".js")
NOT_CODE = {"tests", "scripts", "docs", "configs", "nets", "runs", "cmake"}
FUNCTION_KINDS = {"function", "method"}


def code_folders(root):
    """The top-level folders that hold sources, tests and build trees aside."""
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if not os.path.isdir(path) or name in NOT_CODE or name.startswith(("build", ".")):
            continue
        if any(f.endswith(SOURCE_ENDINGS) for f in os.listdir(path)):
            yield name


def rooms(root, folder):
    """{room name: [paths]}: the folder's sources grouped by name before the first dot."""
    grouped = collections.defaultdict(list)
    for f in sorted(os.listdir(os.path.join(root, folder))):
        if f.endswith(SOURCE_ENDINGS):
            grouped[os.path.join(folder, f.split(".")[0])].append(os.path.join(folder, f))
    return grouped


def line_count(path):
    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in f)


def functions(root, paths):
    """Yields (path, first line, lines, name) of every function ctags finds in paths."""
    if not paths:
        return
    out = subprocess.run(["ctags", "--output-format=json", "--fields=+neK", "--kinds-c++=+f",
                          "--langmap=c++:+.inc", "-o", "-"] + paths,
                         cwd=root, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        tag = json.loads(line)
        if tag.get("_type") != "tag":
            continue
        end = tag.get("end")
        if end is None and tag["path"].endswith(".js") and (
                tag.get("kind") in FUNCTION_KINDS or "=>" in tag.get("pattern", "")):
            end = closing_line(os.path.join(root, tag["path"]), tag["line"])
        if end is not None and (tag.get("kind") in FUNCTION_KINDS or tag["path"].endswith(".js")):
            name = tag["name"] if not tag["name"].startswith("__anon") else "a lambda"
            yield tag["path"], tag["line"], end - tag["line"] + 1, name


def closing_line(path, start):
    """The line of the brace that closes the first one opened on or after line
    start (1-based), strings and comments aside: ctags gives no end for
    JavaScript."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    depth = 0
    for number in range(start, len(lines) + 1):
        code = re.sub(r"""("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)""", "''",
                      lines[number - 1].split("//")[0])
        for c in code:
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    return number
    return None


def problems_in(root):
    problems = []
    for folder in code_folders(root):
        limit = FUNCTION_LIMITS.get(folder, FUNCTION_LIMIT)
        paths = []
        for room, files in rooms(root, folder).items():
            lines = sum(line_count(os.path.join(root, f)) for f in files)
            if lines > ROOM_LIMIT:
                problems.append(f"{room}: {lines} lines in {' + '.join(files)} "
                                f"(the most a room has is {ROOM_LIMIT})")
            paths += files
        for path, start, length, name in functions(root, paths):
            if length > limit:
                problems.append(f"{path}:{start}: {name}, {length} lines (at most {limit})")
    return problems


def check(root):
    problems = problems_in(root)
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print("function_length_test: the rooms and functions above are too long", file=sys.stderr)
        return 1
    print(f"function_length_test: no room over {ROOM_LIMIT} lines, no function over {FUNCTION_LIMIT} "
          f"({', '.join(f'{k}/ {v}' for k, v in FUNCTION_LIMITS.items())}), "
          f"in {', '.join(code_folders(root))}")
    return 0


def body(lines, indent):
    return "".join(f"{indent}x += {i};\n" for i in range(lines))


# Each plant: (name, {path: text}, what the failure must name or None for a pass).
# A function of N lines is its first line, N - 2 lines of body and its brace.
PLANTS = [
    ("a room at the limit", {"core/a.cpp": "\n" * 300, "core/a.h": "\n" * 300}, None),
    ("a 601-line room (source and header)", {"core/a.cpp": "\n" * 300, "core/a.h": "\n" * 301},
     "core/a: 601 lines"),
    ("a 100-line function", {"core/f.cpp": "int F(int x) {\n" + body(98, "  ") + "}\n"}, None),
    ("a 101-line free function", {"core/f.cpp": "int F(int x) {\n" + body(99, "  ") + "}\n"},
     "core/f.cpp:1: F, 101 lines"),
    ("a 101-line member defined in its class",
     {"play/m.h": "struct S {\n  int M(int x) {\n" + body(99, "    ") + "  }\n};\n"},
     "play/m.h:2: M, 101 lines"),
    ("a 101-line operator",
     {"run/o.h": "struct S {\n  bool operator==(const S&) const {\n  int x = 0;\n" + body(98, "    ")
      + "  }\n};\n"}, "run/o.h:2: operator ==, 101 lines"),
    ("a 101-line lambda at namespace scope",
     {"train/l.cpp": "namespace n {\n}\nconst auto kF = [](int x) {\n" + body(99, "  ") + "};\n"},
     "train/l.cpp:3: a lambda, 101 lines"),
    ("a 61-line function in serve/", {"serve/s.cpp": "int S(int x) {\n" + body(59, "  ") + "}\n"},
     "serve/s.cpp:1: S, 61 lines (at most 60)"),
    ("a 101-line function in bench/",
     {"bench/b.cpp": "void B(int x) {\n" + body(99, "  ") + "}\n"}, "bench/b.cpp:1: B, 101 lines"),
    ("a 101-line JavaScript function in web/",
     {"web/w.js": "function w(x) {\n" + body(99, "  ") + "}\n"}, "web/w.js:1: w, 101 lines"),
    ("a 101-line arrow function in web/",
     {"web/a.js": "const a = (x) => {\n  const s = '}';\n" + body(98, "  ") + "};\n"},
     "web/a.js:1: a, 101 lines"),
    ("a 601-line .inc room", {"net/k.inc": "\n" * 601}, "net/k: 601 lines"),
    ("sources in tests/ are not held", {"tests/t.cpp": "\n" * 700}, None),
]


if __name__ == "__main__":
    house_check.main("function_length_test", __doc__, PLANTS, problems_in, check)
