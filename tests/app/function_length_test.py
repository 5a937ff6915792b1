#!/usr/bin/env python3
"""The sizes docs/DESIGN.md ("Where a change goes") holds the sources to:
no source file over 600 lines, no function over 100 lines, and none in
serve/ over 60 (a handler that grows past that is split, or its part moved
beside its kind). A function is counted from the first line of its
definition at namespace level (its signature may run over several lines) to
its closing brace, strings and comments aside; tests are not held to it."""
import glob
import os
import re
import sys

FOLDERS = "core alphabeta mcts net play run train serve app solve".split()
FILE_LIMIT = 600
FUNCTION_LIMIT = 100
FUNCTION_LIMITS = {"serve": 60}
root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def code_of(line):
    """The line without comments, strings and characters."""
    code = re.sub(r'R"(\w*)\(.*?\)\1"', '""', line.split("//")[0])
    code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', code)
    return re.sub(r"'(?:[^'\\]|\\.)*'", "''", code)


def functions(lines):
    """Yields (first line, number of lines) of each function defined at namespace level."""
    depth, namespaces, candidate, start = 0, 0, None, None
    for i, line in enumerate(lines):
        code = code_of(line)
        at_namespace_level = depth == namespaces
        if at_namespace_level and start is None and line and not line[0].isspace() \
                and not line.startswith(("#", "//", "}")) and candidate is None:
            candidate = i
        opens, closes = code.count("{"), code.count("}")
        if re.match(r"^\s*namespace\b", line) and opens:
            namespaces += 1
            candidate = None
        elif at_namespace_level and start is None and opens > closes and candidate is not None:
            kind = lines[candidate]
            if not re.match(r"^(template\s*<.*>\s*)?(struct|class|enum|union|extern)\b", kind) \
                    and not re.search(r"=\s*\{?\s*$", code_of(kind)) and "=" not in code.split("{")[0]:
                start = candidate
        depth += opens - closes
        if re.match(r"^}\s*//\s*namespace", line):
            namespaces -= 1
        if depth == namespaces:
            if start is not None:
                yield start, i - start + 1
                start = None
            if code.rstrip().endswith((";", "}")) or not code.strip():
                candidate = None


problems = []
for folder in FOLDERS:
    limit = FUNCTION_LIMITS.get(folder, FUNCTION_LIMIT)
    for path in sorted(glob.glob(os.path.join(root, folder, "*.cpp")) + glob.glob(os.path.join(root, folder, "*.h"))):
        lines = open(path).read().split("\n")
        name = os.path.relpath(path, root)
        if len(lines) - 1 > FILE_LIMIT:
            problems.append(f"{name}: {len(lines) - 1} lines (the most a file has is {FILE_LIMIT})")
        for start, length in functions(lines):
            if length > limit:
                problems.append(f"{name}:{start + 1}: {length} lines (at most {limit}): {lines[start][:70]}")
for line in problems:
    print(line, file=sys.stderr)
if problems:
    print("function_length_test: the files and functions above are too long", file=sys.stderr)
    sys.exit(1)
print(f"function_length_test: no file over {FILE_LIMIT} lines, no function over {FUNCTION_LIMIT} "
      f"({', '.join(f'{k}/ {v}' for k, v in FUNCTION_LIMITS.items())})")
