#!/usr/bin/env bash
# The repository stands on its own: no tracked text file names a directory of
# one machine (a home, /root, /opt, a work folder). Write runs/NAME instead.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -d .git ] || git rev-parse --git-dir >/dev/null 2>&1; then
  files=$(git ls-files)
else
  files=$(find . -type f -not -path './build*' | sed 's#^\./##')
fi
pattern='(^|[^A-Za-z0-9_.])/(root|home|opt|work|Users)/'
found=0
while IFS= read -r f; do
  [ "$f" = tests/app/no_machine_paths_test.sh ] && continue
  [ -f "$f" ] || continue
  grep -Iq . "$f" 2>/dev/null || continue  # binary or empty
  if grep -nE "$pattern" "$f" >/tmp/no_machine_paths.$$ 2>/dev/null; then
    sed "s#^#$f:#" /tmp/no_machine_paths.$$
    found=1
  fi
done <<< "$files"
rm -f /tmp/no_machine_paths.$$
if [ $found -ne 0 ]; then
  echo "no_machine_paths_test: the lines above name a directory of one machine (write runs/NAME)" >&2
  exit 1
fi
echo "no_machine_paths_test: no machine paths in $(echo "$files" | wc -l) files"
