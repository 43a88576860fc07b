"""pbwire.py - the protobuf wire format decoded by hand, for the checkers
that read protobuf files without a protobuf runtime or tracefold's code
(record_check.py: Perfetto traces; xplane_check.py: XPlane).

A message is a run of (tag varint = field << 3 | wire type, value): wire 0
a varint (7 bits a byte, low first, the high bit set on all but the last;
at most 10 bytes), 1 eight bytes little-endian (fixed64, double), 2 a
varint length then that many bytes (strings, nested messages, packed
fields), 5 four bytes.  A length may be written with redundant bytes
(0x85 0x80 0x80 0x00 is 5): every parser takes it, and so does this one.
Damage (a value running past the end, a varint over 10 bytes, wire types 3
and 4) raises ValueError."""


def varint(b, i):
    """(value, next index) of the varint at b[i]."""
    v = s = 0
    while True:
        if i >= len(b):
            raise ValueError("varint runs past the end")
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, i
        if s > 63:
            raise ValueError("varint over 10 bytes")


def fields(b):
    """[(field, wire type, value)] of message b (value: an int, or bytes)."""
    out, i = [], 0
    while i < len(b):
        tag, i = varint(b, i)
        f, w = tag >> 3, tag & 7
        if w == 0:
            v, i = varint(b, i)
        elif w in (1, 5):
            n = 8 if w == 1 else 4
            v = b[i:i + n]
            if len(v) < n:
                raise ValueError("fixed%d past the end" % (8 * n))
            i += n
        elif w == 2:
            n, i = varint(b, i)
            v = b[i:i + n]
            if len(v) < n:
                raise ValueError("length past the end")
            i += n
        else:
            raise ValueError("wire type %d" % w)
        out.append((f, w, v))
    return out
