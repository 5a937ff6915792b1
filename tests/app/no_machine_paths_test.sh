#!/usr/bin/env bash
# The repository stands on its own: no tracked text file names a directory of
# one machine (a home, /root, /opt, a work folder). Write runs/NAME instead.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -d .git ] || git rev-parse --git-dir >/dev/null 2>&1; then
  list_files() { git ls-files -z; }
else
  list_files() { find . -type f -not -path './build*' -print0 | sed -z 's#^\./##'; }
fi
pattern='(^|[^A-Za-z0-9_.])/(root|home|opt|work|Users)/'
# One grep over every text file (-I skips binaries): one process, not two a
# file, so that the test stays well inside its time on a loaded machine.
found=$(list_files | grep -zv '^tests/app/no_machine_paths_test.sh$' | xargs -0 -r grep -InE "$pattern" -- 2>/dev/null || true)
if [ -n "$found" ]; then
  echo "$found"
  echo "no_machine_paths_test: the lines above name a directory of one machine (write runs/NAME)" >&2
  exit 1
fi
echo "no_machine_paths_test: no machine paths in $(list_files | tr -cd '\0' | wc -c) files"
