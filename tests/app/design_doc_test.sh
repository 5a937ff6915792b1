#!/usr/bin/env bash
# docs/DESIGN.md stays a newcomer's first hour: at most 450 lines, and every
# repository path it names (core/..., docs/X.md, a link) exists, so that the
# map never points at what has moved or gone.
set -euo pipefail
cd "$(dirname "$0")/../.."
doc=docs/DESIGN.md
lines=$(wc -l <"$doc")
status=0
if [ "$lines" -gt 450 ]; then
  echo "design_doc_test: $doc has $lines lines (at most 450: move detail to its topic file)" >&2
  status=1
fi
# Paths under the repository's folders; a placeholder (NAME, <name>, STEP,
# *) names a pattern, not a file.
folders='core|alphabeta|mcts|net|play|run|train|serve|web|app|configs|nets|tests|bench|scripts|docs|cmake|\.ci'
checked=0
while IFS= read -r path; do
  case $path in *NAME*|*'<'*|*STEP*|*'*'*|*WRITER*|*SEQ*|*PART*) continue ;; esac
  path=${path%.}
  path=${path%,}
  checked=$((checked + 1))
  if [ ! -e "$path" ]; then
    echo "design_doc_test: $doc names $path, which does not exist" >&2
    status=1
  fi
done < <(grep -oE "(^|[^A-Za-z0-9_./-])($folders)/[A-Za-z0-9_./<>*-]*[A-Za-z0-9_>*]" "$doc" |
  sed -E 's/^[^A-Za-z.]//' | sort -u)
# Links to the topic files, relative to docs/.
while IFS= read -r link; do
  checked=$((checked + 1))
  if [ ! -e "docs/$link" ]; then
    echo "design_doc_test: $doc links to $link, which does not exist" >&2
    status=1
  fi
done < <(grep -oE '\]\([A-Za-z0-9_./-]+\)' "$doc" | sed -E 's/^\]\(//; s/\)$//; s/#.*//' | sort -u)
[ $status -eq 0 ] && echo "design_doc_test: $lines lines, $checked paths and links, all there"
exit $status
