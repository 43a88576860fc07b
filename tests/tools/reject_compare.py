#!/usr/bin/env python3
"""reject_compare.py - does a build reject (and accept) the same inputs as a
reference build, with the same message and byte offset?

Usage: tests/tools/reject_compare.py REF_TF NEW_TF [N] [SEED]

Takes the first 200 KB of the legacy PyTorch fixture and the first 300 KB
of the real Kineto fixture (/work/shared/fixtures/chrome, or $FIXTURES),
and makes N copies of each (default 500) with one or two bytes replaced,
deleted or inserted (quotes, brackets, commas, colons, digits, '.', '-',
'e', escapes, NUL, 0xFF, spaces), half of them at random places and half
near an event's "ts", "dur" or "args" (the reader's fast paths: numbers
converted as scanned, args' members picked as args is checked).  Each copy
is run through `TF -q top FILE` with both builds; stdout, stderr and the
exit status must be the same.  Prints the count of copies rejected and the
first differences; exits 1 on any.  JOBS=N runs the new build with `-j N`
and the reference with `-j 1`: with TRACEFOLD_TWO_STAGE=1 or 2 in the
environment and JOBS=2 the new build reads each copy in two stages
(src/read/chrome_pipe.c; 2: every event tokenized by the second stage)
against the reference's one.  The copies live in a temporary
directory, deleted at the end.  docs/performance.md ("the reader, second
round") has the run of this round.
"""
import gzip
import os
import random
import subprocess
import sys
import tempfile

FIX = os.environ.get("FIXTURES", "/work/shared/fixtures/chrome")
SOURCES = [
    ("legacy", os.path.join(FIX, "pytorch-legacy-small/trace.json"), 200_000),
    ("kineto", os.path.join(FIX, "pytorch211-h200-gpt/trace.json.gz"), 300_000),
]
BYTES = b'"{}[],:0123456789.-eE\\u \x00\xff\nx'


def head(path, n):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as f:
        return f.read(n)


def mutate(data, rng, hot):
    b = bytearray(data)
    for _ in range(rng.choice((1, 1, 2))):
        if hot and rng.random() < 0.5:
            at = rng.choice(hot) + rng.randrange(0, 120)
        else:
            at = rng.randrange(1, len(b))
        at = min(max(at, 1), len(b) - 1)
        op = rng.randrange(3)
        c = BYTES[rng.randrange(len(BYTES))]
        if op == 0:
            b[at] = c
        elif op == 1:
            del b[at]
        else:
            b.insert(at, c)
    return bytes(b)


def run(tf, path, jobs):
    j = ["-j", jobs] if os.environ.get("JOBS") else []
    p = subprocess.run([tf, "-q", "top"] + j + [path], capture_output=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    ref, new = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 500
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 33)
    bad = rejected = total = 0
    with tempfile.TemporaryDirectory(prefix="tf-reject-") as tmp:
        path = os.path.join(tmp, "trace.json")
        for name, src, size in SOURCES:
            data = head(src, size)
            hot = [i for k in (b'"ts"', b'"dur"', b'"args"')
                   for i in range(len(data)) if data.startswith(k, i)]
            for i in range(n):
                m = mutate(data, rng, hot if i % 2 else [])
                with open(path, "wb") as f:
                    f.write(m)
                a, b = run(ref, path, "1"), run(new, path, os.environ.get("JOBS", ""))
                total += 1
                rejected += a[0] != 0
                if a != b:
                    bad += 1
                    if bad <= 5:
                        print(f"{name} copy {i}: differ\n  ref rc={a[0]} {a[2][:300]!r}\n"
                              f"  new rc={b[0]} {b[2][:300]!r}")
                        with open(os.path.join("/tmp", f"reject-diff-{name}-{i}.json"), "wb") as f:
                            f.write(m)
    print(f"{total} copies, {rejected} rejected by the reference, {bad} different")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
