#!/usr/bin/env python3
"""Every pointer to a section of a doc, `docs/X.md, "Section"` or
`(docs/X.md, Section)`, anywhere in the repository's files, names a section
that is there: a heading of that doc, or a bold run-in heading (`**The
lever left: ...**`, a list item's too), that the pointer's text begins (case and marks aside).
A planted pointer to a missing section must be refused first (a test of
the test)."""
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')

# A pointer: the doc, then a quoted section anywhere, or an unquoted one
# that opens with a capital or a mark and closes the parentheses.
POINTER = re.compile(r'(docs/[A-Z][A-Za-z_]*\.md),\s*(?:"([^"]+)"|([A-Z`*][^;:()"\n]*(?:\n[ \t]*(?://|#)?[^;:()"\n]*)?)\))')
HEADING = re.compile(r'^(?:#+\s+(.*)|(?:[-*]\s+)?\*\*(.+?)\*\*)', re.M)


def norm(text):
    text = re.sub(r'\s*(//|#)\s+', ' ', text)  # a pointer wrapped over comment lines
    return re.sub(r'\s+', ' ', re.sub(r'[`"*_]', '', text)).strip().lower()


def headings(text):
    return [norm(a or b) for a, b in HEADING.findall(text)]


def missing(text, docs):
    """The pointers of `text` whose section is not among docs[doc]'s headings."""
    out = []
    for m in POINTER.finditer(text):
        doc, section = m.group(1), norm(m.group(2) or m.group(3))
        if doc in docs and not any(h.startswith(section) or section.startswith(h) for h in docs[doc] if h):
            out.append(f'{doc}, "{section}"')
    return out


def main():
    os.chdir(ROOT)
    listed = subprocess.run(['git', 'ls-files'], capture_output=True, text=True)
    files = listed.stdout.split() if listed.returncode == 0 else [
        os.path.relpath(os.path.join(d, f)) for d, _, names in os.walk('.') for f in names
        if not re.match(r'\./(build|\.git|runs)', d)]
    docs = {f: headings(open(f, encoding='utf-8').read()) for f in files if re.fullmatch(r'docs/[^/]+\.md', f)}
    planted = '// (docs/RULES.md, "No such section") and (docs/RULES.md, Board sizes)'
    if missing(planted, docs) != ['docs/RULES.md, "no such section"']:
        print('doc_pointers_test: the planted pointer to a missing section was not refused:', missing(planted, docs))
        return 1
    checked, bad = 0, []
    for f in files:
        if (not re.search(r'\.(cpp|h|inc|md|yaml|sh|py|js|html|txt)$', f) or f.startswith('tests/data/') or
                f == 'tests/app/doc_pointers_test.py'):  # its planted pointer
            continue
        text = open(f, encoding='utf-8', errors='replace').read()
        checked += len(POINTER.findall(text))
        bad += [f'{f}: {p}' for p in missing(text, docs)]
    for line in bad:
        print(f'doc_pointers_test: {line}: no such section there', file=sys.stderr)
    if not bad:
        print(f'doc_pointers_test: {checked} pointers to sections, all there')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
