#!/usr/bin/env python3
"""pprof_text.py - a complete text form of a pprof profile, for golden files.

  pprof_text.py FILE                 FILE: a profile, gzipped or not ('-': stdin)
  pprof_text.py --into DIR FILE...   each FILE's text into DIR/NAME.txt, NAME
                                     its name less .pb.gz/.pb (one Python
                                     start for tests/golden/run.sh's cases)

Written from proto/profile.proto alone (no protobuf package, none of
tracefold's code), so that the golden test does not trust the encoder it
checks.  Unlike `go tool pprof -raw` or tests/tools/pprof.py dump, nothing is
summed, sorted or dropped: every field of every message is printed in the
order it is on the wire, so that the text changes whenever a byte of the
decompressed profile does:

  sha256 HEX BYTES             of the decompressed profile (a second check)
  sample_type {type=1 "wall" unit=2 "nanoseconds"}
  sample {location_id=[3 2 1] value=[10 1] label {key=4 "k" str=5 "v"}}
  location {id=1 line {function_id=1}}
  function {id=1 name=6 "main" system_name=6 "main"}
  string_table[6] "main"
  time_nanos=1700000000

- one top-level field a line; a message in braces, its fields in wire order;
- a packed repeated field as [a b c]; unpacked, the field once per value;
- a string-table index is followed by its string (or <none> when out of
  range); strings are quoted, with \\ \" \\n \\t \\r and \\xNN for control
  characters and bytes that are not UTF-8, so that the form is unambiguous;
- a field that profile.proto does not have, or has with another wire type:
  #NUMBER:varint=V, #NUMBER:i64=0xHEX, #NUMBER:i32=0xHEX, #NUMBER:len=0xHEX;
- a varint, tag or length written in more bytes than it needs: ~0xHEX of its
  bytes instead of its value; bad input: "!error at byte N: WHY" (or
  "!error gunzip: WHY") as the last line, and exit 1.
"""
import gzip
import hashlib
import os
import sys
import zlib

VARINT, I64, LEN, I32 = 0, 1, 2, 5

# profile.proto: field number -> (name, kind) per message; kinds are int
# (int64), uint (uint64), bool, str (string), strref (int64 string-table
# index), msg:NAME, and rep- for repeated scalars (packed or not)
SCHEMA = {
    "Profile": {
        1: ("sample_type", "msg:ValueType"), 2: ("sample", "msg:Sample"),
        3: ("mapping", "msg:Mapping"), 4: ("location", "msg:Location"),
        5: ("function", "msg:Function"), 6: ("string_table", "str"),
        7: ("drop_frames", "strref"), 8: ("keep_frames", "strref"),
        9: ("time_nanos", "int"), 10: ("duration_nanos", "int"),
        11: ("period_type", "msg:ValueType"), 12: ("period", "int"),
        13: ("comment", "rep-strref"),
        14: ("default_sample_type", "strref"), 15: ("doc_url", "strref"),
    },
    "ValueType": {1: ("type", "strref"), 2: ("unit", "strref")},
    "Sample": {
        1: ("location_id", "rep-uint"), 2: ("value", "rep-int"),
        3: ("label", "msg:Label"),
    },
    "Label": {
        1: ("key", "strref"), 2: ("str", "strref"), 3: ("num", "int"),
        4: ("num_unit", "strref"),
    },
    "Mapping": {
        1: ("id", "uint"), 2: ("memory_start", "uint"),
        3: ("memory_limit", "uint"), 4: ("file_offset", "uint"),
        5: ("filename", "strref"), 6: ("build_id", "strref"),
        7: ("has_functions", "bool"), 8: ("has_filenames", "bool"),
        9: ("has_line_numbers", "bool"), 10: ("has_inline_frames", "bool"),
    },
    "Location": {
        1: ("id", "uint"), 2: ("mapping_id", "uint"), 3: ("address", "uint"),
        4: ("line", "msg:Line"), 5: ("is_folded", "bool"),
    },
    "Line": {1: ("function_id", "uint"), 2: ("line", "int"), 3: ("column", "int")},
    "Function": {
        1: ("id", "uint"), 2: ("name", "strref"), 3: ("system_name", "strref"),
        4: ("filename", "strref"), 5: ("start_line", "int"),
    },
}


class Bad(Exception):
    def __init__(self, at, why):
        super().__init__(why)
        self.at = at


def minimal_varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def read_varint(buf, i, end):
    """(value, next index, canonical?) of the varint at buf[i]."""
    v = 0
    shift = 0
    start = i
    while True:
        if i >= end:
            raise Bad(start, "truncated varint")
        if i - start >= 10:
            raise Bad(start, "varint longer than 10 bytes")
        b = buf[i]
        v |= (b & 0x7F) << shift
        shift += 7
        i += 1
        if not b & 0x80:
            break
    ok = v < (1 << 64) and minimal_varint(v) == bytes(buf[start:i])
    return v, i, ok


def quote(b):
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError:
        s = None
    out = []
    if s is None:
        for c in b:
            if c in (0x22, 0x5C):
                out.append("\\" + chr(c))
            elif 0x20 <= c < 0x7F:
                out.append(chr(c))
            else:
                out.append("\\x%02x" % c)
        return '"' + "".join(out) + '"'
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif o < 0x20 or o == 0x7F or 0x80 <= o < 0xA0:
            out.append("".join("\\x%02x" % c for c in ch.encode("utf-8")))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


class Dumper:
    def __init__(self, buf, out):
        self.buf = buf
        self.out = out
        self.strings = []

    def scalar(self, kind, v, canonical, raw):
        if not canonical:
            return "~0x" + raw.hex()
        if kind in ("int", "strref") and v >= 1 << 63:
            v -= 1 << 64
        text = str(v)
        if kind == "strref":
            s = self.strings[v] if 0 <= v < len(self.strings) else None
            text += " " + ("<none>" if s is None else quote(s))
        return text

    def fields(self, msg, i, end):
        """The fields of a message MSG at buf[i:end], as text, in wire order."""
        buf = self.buf
        schema = SCHEMA[msg]
        parts = []
        while i < end:
            at = i
            key, i, kok = read_varint(buf, i, end)
            num, wt = key >> 3, key & 7
            if not kok:
                parts.append("~tag=0x" + bytes(buf[at:i]).hex())
            if num == 0 or wt not in (VARINT, I64, LEN, I32):
                raise Bad(at, "field %d with wire type %d" % (num, wt))
            name, kind = schema.get(num, (None, None))
            rep = kind is not None and kind.startswith("rep-")
            base = kind[4:] if rep else kind
            if wt == VARINT:
                vat = i
                v, i, ok = read_varint(buf, i, end)
                if kind is not None and not kind.startswith("msg:") and base != "str":
                    parts.append("%s=%s" % (name, self.scalar(base, v, ok, bytes(buf[vat:i]))))
                else:
                    parts.append("#%d:varint=%s" % (num, v if ok else "~0x" + bytes(buf[vat:i]).hex()))
                continue
            if wt in (I64, I32):
                n = 8 if wt == I64 else 4
                if i + n > end:
                    raise Bad(i, "truncated fixed%d" % (n * 8))
                parts.append("#%d:i%d=0x%s" % (num, n * 8, bytes(buf[i:i + n]).hex()))
                i += n
                continue
            lat = i
            n, i, lok = read_varint(buf, i, end)
            if i + n > end:
                raise Bad(lat, "length %d past the end of its message" % n)
            sub_end = i + n
            lpre = "" if lok else "~len=0x%s " % bytes(buf[lat:i]).hex()
            if kind is None or kind in ("int", "uint", "bool", "strref"):
                parts.append("#%d:len=%s0x%s" % (num, lpre, bytes(buf[i:sub_end]).hex()))
            elif kind.startswith("msg:"):
                inner = self.fields(kind[4:], i, sub_end)
                parts.append("%s {%s%s}" % (name, lpre, " ".join(inner)))
            elif kind == "str":
                parts.append("%s %s%s" % (name, lpre, quote(bytes(buf[i:sub_end]))))
            else:
                vals = []
                j = i
                while j < sub_end:
                    vat = j
                    v, j, ok = read_varint(buf, j, sub_end)
                    vals.append(self.scalar(base, v, ok, bytes(buf[vat:j])))
                parts.append("%s=%s[%s]" % (name, lpre, " ".join(vals)))
            i = sub_end
        return parts

    def collect_strings(self):
        """string_table first, so that indices before it can be resolved."""
        buf = self.buf
        i, end = 0, len(buf)
        while i < end:
            key, i, _ = read_varint(buf, i, end)
            wt = key & 7
            if wt == VARINT:
                _, i, _ = read_varint(buf, i, end)
            elif wt in (I64, I32):
                i += 8 if wt == I64 else 4
            elif wt == LEN:
                n, i, _ = read_varint(buf, i, end)
                if key >> 3 == 6:
                    self.strings.append(bytes(buf[i:i + n]))
                i += n
            else:
                return

    def top(self):
        """Profile's fields, a line each (string_table with its index)."""
        buf = self.buf
        i, end = 0, len(buf)
        nstr = 0
        while i < end:
            at = i
            key, j, _ = read_varint(buf, i, end)
            wt = key & 7
            if wt == VARINT:
                _, j, _ = read_varint(buf, j, end)
            elif wt in (I64, I32):
                j += 8 if wt == I64 else 4
            elif wt == LEN:
                n, j, _ = read_varint(buf, j, end)
                j += n
            if j > end:
                raise Bad(at, "field past the end of the profile")
            line = " ".join(self.fields("Profile", at, j))
            if line.startswith("string_table "):
                line = "string_table[%d]%s" % (nstr, line[len("string_table"):])
                nstr += 1
            print(line, file=self.out)
            i = j


def dump(data, out):
    """Print DATA's text to OUT; False after an !error line."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            print("!error gunzip: %s" % e, file=out)
            return False
    print("sha256 %s %d" % (hashlib.sha256(data).hexdigest(), len(data)), file=out)
    d = Dumper(data, out)
    try:
        d.collect_strings()
        d.top()
    except Bad as e:
        print("!error at byte %d: %s" % (e.at, e), file=out)
        return False
    return True


def main():
    args = sys.argv[1:]
    if len(args) >= 3 and args[0] == "--into":
        ok = True
        for path in args[2:]:
            name = os.path.basename(path)
            for ext in (".pb.gz", ".pb"):
                if name.endswith(ext):
                    name = name[:-len(ext)]
                    break
            with open(path, "rb") as f:
                data = f.read()
            with open(os.path.join(args[1], name + ".txt"), "w", encoding="utf-8") as out:
                ok = dump(data, out) and ok
        sys.exit(0 if ok else 1)
    if len(args) != 1:
        sys.exit("usage: pprof_text.py FILE | --into DIR FILE...")
    if args[0] == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(args[0], "rb") as f:
            data = f.read()
    sys.stdout.reconfigure(encoding="utf-8")
    sys.exit(0 if dump(data, sys.stdout) else 1)


if __name__ == "__main__":
    main()
