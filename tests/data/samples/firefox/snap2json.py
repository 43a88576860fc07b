#!/usr/bin/env python3
"""Turn one entry of a Jest snapshot file (.snap) into JSON.

Firefox Profiler's test src/test/unit/profile-upgrading.test.ts snapshots
JSON.parse(serializeProfileToJsonString(upgradedProfile)), printed by Jest's
pretty-format: `Object {`, `Array [`, keys sorted, a comma after every item.
This undoes that printing; it is used to keep the profiler's own upgrade of
processed-N.json to the current processed version as a plain JSON file.
Usage: snap2json.py SNAPFILE 'EXPORT NAME' OUT.json[.gz]
"""
import gzip
import json
import os
import re
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    snap, name, out = sys.argv[1:]
    text = open(snap, encoding="utf-8").read()
    head = "exports[`" + name + "`] = `\n"
    i = text.find(head)
    if i < 0:
        sys.exit(f"{snap}: no snapshot named {name!r}")
    body = text[i + len(head):text.index("\n`;", i)]
    body = body.replace("\\`", "`").replace("\\${", "${")
    body = re.sub(r"\b(Object|[A-Z][A-Za-z0-9]*Array|Array) ([\[{])", r"\2", body)
    body = re.sub(r"\bundefined\b", "null", body)
    body = re.sub(r",(\s*[\]}])", r"\1", body)
    data = json.loads(body)
    tmp = out + ".tmp"
    opener = gzip.open if out.endswith(".gz") else open
    with opener(tmp, "wt", encoding="utf-8") as f:
        json.dump(data, f, separators=(",", ":"), ensure_ascii=False)
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
