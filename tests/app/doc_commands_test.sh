#!/usr/bin/env bash
# Every command that README.md and docs/ show in a code block is one that
# loaz takes as written: each `loaz ...` line (also `$loaz`, `build/app/loaz`,
# `loaz-torch`; continuation lines joined, comments dropped) is parsed by
# the binary with LOAZ_PARSE_ONLY=1 (app/cli.h: it exits 0 once the command
# line parses, doing nothing), and each `scripts/...` it names exists.
# Usage synopses ([--option N]) and diagrams are skipped, and so is
# docs/EXPERIMENTS.md, the log of past experiments as they were run.
#
# usage: tests/app/doc_commands_test.sh LOAZ [LOAZ_TORCH]
#   LOAZ_TORCH: the binary with LibTorch; without it, the commands that
#   need LibTorch (those loaz answers "this build has none") are skipped.
set -euo pipefail
loaz=$1 loaz_torch=${2:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
python3 - "$loaz" "$loaz_torch" <<'EOF'
import glob, os, re, shlex, subprocess, sys

loaz, loaz_torch = sys.argv[1], sys.argv[2]
files = ["README.md"] + sorted(f for f in glob.glob("docs/*.md") if not f.endswith("EXPERIMENTS.md"))
program = re.compile(r"^\s*(\$loaz|build/app/loaz-torch|build/app/loaz|loaz-torch|loaz)\s")
checked = skipped = 0
failures = []

def commands(path):
    """Yields (line number, text) of each command line in a code block."""
    block, pending, first = False, "", 0
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.startswith("```"):
            block, pending = not block, ""
            continue
        if not block:
            continue
        text = line.rstrip("\n")
        if pending:
            pending += " " + text.strip()
        elif program.match(text) or re.match(r"^\s*(python3 )?scripts/", text):
            pending, first = text.strip(), number
        else:
            continue
        if pending.endswith("\\"):
            pending = pending[:-1]
            continue
        yield first, pending
        pending = ""

for path in files:
    for number, text in commands(path):
        where = f"{path}:{number}"
        try:
            words = shlex.split(text, comments=True)
        except ValueError as e:
            failures.append(f"{where}: cannot split: {e}: {text}")
            continue
        if any(w.startswith(("[", "(")) or "..." in w for w in words):
            skipped += 1  # a usage synopsis or a diagram
            continue
        if words[0] == "python3":
            words = words[1:]
        if words[0].startswith("scripts/"):
            checked += 1
            if not os.access(words[0], os.X_OK if words[0].endswith(".sh") else os.R_OK):
                failures.append(f"{where}: {words[0]} is not there (or not executable)")
            continue
        if "torch" in words[0] and not loaz_torch:
            skipped += 1
            continue
        binary = loaz_torch if "torch" in words[0] else loaz
        done = subprocess.run([binary] + words[1:], env=dict(os.environ, LOAZ_PARSE_ONLY="1"),
                              capture_output=True, text=True, timeout=60)
        # loaz hands a command that needs LibTorch to loaz-torch beside it
        # (app/main.cpp's table says which); a build without one says so.
        if not loaz_torch and done.returncode != 0 and "this build has none" in done.stderr:
            skipped += 1
            continue
        checked += 1
        if done.returncode != 0:
            failures.append(f"{where}: exit {done.returncode}: {text}\n    {done.stderr.strip()}")

for failure in failures:
    print("doc_commands_test: " + failure, file=sys.stderr)
print(f"doc_commands_test: {checked} commands checked, {skipped} skipped, {len(failures)} failed")
sys.exit(1 if failures or checked == 0 else 0)
EOF
