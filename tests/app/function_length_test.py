#!/usr/bin/env python3
"""No function in serve/ is longer than 60 lines: a handler that grows
past that is split, or its part moved beside its kind (docs/DESIGN.md,
"Where a change goes"). Counts from a definition's first line at namespace
level to its closing brace, strings and comments aside."""
import glob
import os
import re
import sys

LIMIT = 60
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
long_ones = []
for path in sorted(glob.glob(os.path.join(root, "serve", "*.cpp")) + glob.glob(os.path.join(root, "serve", "*.h"))):
    lines = open(path).read().split("\n")
    depth, namespaces, start = 0, 0, None
    for i, line in enumerate(lines):
        code = re.sub(r'R"(\w*)\(.*?\)\1"', '""', line.split("//")[0])
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', code)
        code = re.sub(r"'(?:[^'\\]|\\.)*'", "''", code)
        opens, closes = code.count("{"), code.count("}")
        is_namespace = re.match(r"^\s*namespace\b", line) is not None
        if (start is None and opens > closes and not is_namespace and line and not line[0].isspace()
                and not re.match(r"^(struct|class|enum|union)\b", line) and depth == namespaces):
            start = i
        if is_namespace and opens:
            namespaces += 1
        depth += opens - closes
        if re.match(r"^}\s*//\s*namespace", line):
            namespaces -= 1
        if start is not None and depth == namespaces:
            if i - start + 1 > LIMIT:
                long_ones.append(f"{os.path.relpath(path, root)}:{start + 1}: {i - start + 1} lines: {lines[start][:70]}")
            start = None
for line in long_ones:
    print(line, file=sys.stderr)
if long_ones:
    print(f"function_length_test: functions of serve/ over {LIMIT} lines (above)", file=sys.stderr)
    sys.exit(1)
print(f"function_length_test: no function in serve/ over {LIMIT} lines")
