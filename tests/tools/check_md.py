#!/usr/bin/env python3
"""check_md.py - checks that a file holds one well-formed GitHub Markdown table.

usage: check_md.py FILE NCOLS [MINROWS]
The table: a header row, a delimiter row (---, :---, ---:), then rows; every
row starts and ends with '|' and has NCOLS cells (pipes inside cells escaped
as \\|); the table is preceded by a blank line (or starts the file) and
nothing but table rows follows until a blank line."""
import re
import sys


def cells(line):
    if not (line.startswith("|") and line.endswith("|")):
        raise SystemExit("row does not start and end with '|': %r" % line)
    return re.split(r"(?<!\\)\|", line[1:-1])


def main():
    lines = open(sys.argv[1]).read().splitlines()
    ncols = int(sys.argv[2])
    minrows = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    starts = [i for i, l in enumerate(lines) if l.startswith("|")]
    if not starts:
        raise SystemExit("no table")
    i = starts[0]
    if i > 0 and lines[i - 1].strip():
        raise SystemExit("no blank line before the table")
    hdr = cells(lines[i])
    if len(hdr) != ncols:
        raise SystemExit("header has %d cells, want %d: %r" % (len(hdr), ncols, lines[i]))
    delim = cells(lines[i + 1])
    if len(delim) != ncols or not all(re.fullmatch(r"\s*:?-{3,}:?\s*", c) for c in delim):
        raise SystemExit("bad delimiter row %r" % lines[i + 1])
    n = 0
    for l in lines[i + 2:]:
        if not l.strip():
            break
        c = cells(l)
        if len(c) != ncols:
            raise SystemExit("row has %d cells, want %d: %r" % (len(c), ncols, l))
        if any(not x.strip() for x in c):
            raise SystemExit("empty cell in %r" % l)
        for x in c:
            if x.count("`") % 2:
                raise SystemExit("unbalanced code span in %r" % l)
        n += 1
    if n < minrows:
        raise SystemExit("%d rows, want at least %d" % (n, minrows))
    if any(l.startswith("|") for l in lines[i + 2 + n:]):
        raise SystemExit("more than one table")
    print("table: %d columns, %d rows" % (ncols, n))


if __name__ == "__main__":
    main()
