#!/usr/bin/env python3
"""pprof.py - an independent profile.proto encoder/decoder for tests (no packages).

  pprof.py make SPEC OUT.pb.gz   write a gzipped profile from a text spec
  pprof.py dump FILE             print a canonical, sorted view of a profile:
                                   types ...
                                   <labels>\t<root;..;leaf>\t<v1 v2 ...>
                                 (samples summed per (labels, path); all-zero dropped)
  pprof.py total FILE TYPE       print the sum of TYPE over all samples
  pprof.py mappings FILE         print each mapping as
                                   mapping ID FILE START LIMIT OFFSET FN FL LN IN
                                 then 'locations N mapping_ids I,J,..' (distinct
                                 mapping_id of the locations, sorted)

Spec lines (# comments):
  type NAME UNIT                 a sample type (in order)
  default NAME                   default_sample_type
  time START_NS DURATION_NS      time_nanos, duration_nanos
  sample PATH V1 [V2..] [k=v ..] PATH is root-first, frames separated by ';';
                                 a frame 'outer+inner' is one location with two
                                 lines (inner inlined into outer); labels k=v are
                                 string labels, #k=5 numeric ones
"""
import gzip
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pbwire  # noqa: E402  (the wire format, shared with record_check.py)


def varint(v):
    if v < 0:
        v += 1 << 64
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(f, v):
    return varint(f << 3) + varint(v)


def field_bytes(f, b):
    return varint(f << 3 | 2) + varint(len(b)) + b


def packed(f, vals):
    return field_bytes(f, b"".join(varint(v) for v in vals))


def make(spec, out):
    strings = [""]
    sidx = {"": 0}

    def s(x):
        if x not in sidx:
            sidx[x] = len(strings)
            strings.append(x)
        return sidx[x]

    types, samples, default, time = [], [], None, None
    funcs, locs = {}, {}
    for line in open(spec):
        line = line.split("#", 1)[0] if not line.lstrip().startswith("sample") else line
        w = line.split()
        if not w:
            continue
        if w[0] == "type":
            types.append((w[1], w[2]))
        elif w[0] == "default":
            default = w[1]
        elif w[0] == "time":
            time = (int(w[1]), int(w[2]))
        elif w[0] == "sample":
            path = w[1].split(";")
            vals, labels = [], []
            for x in w[2:]:
                if "=" in x:
                    k, v = x.split("=", 1)
                    labels.append((k, v))
                else:
                    vals.append(int(x))
            samples.append((path, vals, labels))
    body = b""
    for t, u in types:
        body += field_bytes(1, field_varint(1, s(t)) + field_varint(2, s(u)))
    for path, vals, labels in samples:
        ids = []
        for frame in reversed(path):  # leaf first
            if frame not in locs:
                lines = []
                for fn in reversed(frame.split("+")):  # innermost first
                    if fn not in funcs:
                        funcs[fn] = len(funcs) + 1
                    lines.append(funcs[fn])
                locs[frame] = (len(locs) + 1, lines)
            ids.append(locs[frame][0])
        m = packed(1, ids) + packed(2, vals)
        for k, v in labels:
            if k.startswith("#"):
                m += field_bytes(3, field_varint(1, s(k[1:])) + field_varint(3, int(v)))
            else:
                m += field_bytes(3, field_varint(1, s(k)) + field_varint(2, s(v)))
        body += field_bytes(2, m)
    for frame, (lid, lines) in locs.items():
        m = field_varint(1, lid)
        for fid in lines:
            m += field_bytes(4, field_varint(1, fid))
        body += field_bytes(4, m)
    for fn, fid in funcs.items():
        body += field_bytes(5, field_varint(1, fid) + field_varint(2, s(fn)) + field_varint(3, s(fn)))
    if time:
        body += field_varint(9, time[0]) + field_varint(10, time[1])
    if default:
        di = s(default)
    for x in strings:
        body += field_bytes(6, x.encode())
    if default:
        body += field_varint(14, di)
    with open(out, "wb") as f:
        f.write(gzip.compress(body, mtime=0))


def parse(buf):
    """Yields (field, wiretype, value) of one message: the wire format is
    pbwire.py's (shared with record_check.py and xplane_check.py), fixed64
    and fixed32 values as unsigned ints."""
    for f, wt, v in pbwire.fields(buf):
        yield f, wt, int.from_bytes(v, "little") if wt in (1, 5) else v


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def ints(wt, v):
    if wt == 2:
        out, i = [], 0
        while i < len(v):
            x, i = pbwire.varint(v, i)
            out.append(x)
        return out
    return [v]


def load(path):
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    strings, types, samples, locs, funcs = [], [], [], {}, {}
    default = 0
    for f, wt, v in parse(data):
        if f == 6:
            strings.append(v.decode())
        elif f == 1:
            d = {ff: vv for ff, _, vv in parse(v)}
            types.append((d.get(1, 0), d.get(2, 0)))
        elif f == 2:
            ids, vals, labels = [], [], []
            for ff, wt2, vv in parse(v):
                if ff == 1:
                    ids += ints(wt2, vv)
                elif ff == 2:
                    vals += [signed(x) for x in ints(wt2, vv)]
                elif ff == 3:
                    d = {f3: v3 for f3, _, v3 in parse(vv)}
                    labels.append(d)
            samples.append((ids, vals, labels))
        elif f == 4:
            lid, lines = 0, []
            for ff, _, vv in parse(v):
                if ff == 1:
                    lid = vv
                elif ff == 4:
                    lines.append({f3: v3 for f3, _, v3 in parse(vv)}.get(1, 0))
            locs[lid] = lines
        elif f == 5:
            d = {ff: vv for ff, _, vv in parse(v)}
            funcs[d[1]] = d
        elif f == 14:
            default = v
    return strings, types, samples, locs, funcs, default


def mappings(path):
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    strings, maps, locmaps = [], [], []
    for f, wt, v in parse(data):
        if f == 6:
            strings.append(v.decode())
        elif f == 3:
            maps.append({ff: vv for ff, _, vv in parse(v)})
        elif f == 4:
            locmaps.append({ff: vv for ff, _, vv in parse(v) if ff in (1, 2)}.get(2, 0))
    for m in maps:
        print("mapping %d %s %d %d %d %s" % (m.get(1, 0), strings[m.get(5, 0)] or '""', m.get(2, 0), m.get(3, 0),
                                            m.get(4, 0), " ".join(str(m.get(k, 0)) for k in (7, 8, 9, 10))))
    print("locations %d mapping_ids %s" % (len(locmaps), ",".join(str(x) for x in sorted(set(locmaps)))))


def canon(path):
    strings, types, samples, locs, funcs, default = load(path)

    def fname(fid):
        d = funcs[fid]
        sysn = strings[d.get(3, 0)]
        return sysn if sysn else strings[d.get(2, 0)]

    agg = {}
    for ids, vals, labels in samples:
        frames = []
        for lid in ids:
            frames += [fname(f) for f in locs[lid]]
        frames.reverse()
        lab = []
        for d in labels:
            k = strings[d.get(1, 0)]
            if d.get(2, 0):
                lab.append("%s=%s" % (k, strings[d[2]]))
            else:
                lab.append("#%s=%d" % (k, signed(d.get(3, 0))))
        key = (",".join(sorted(lab)), ";".join(frames))
        acc = agg.setdefault(key, [0] * len(vals))
        for i, x in enumerate(vals):
            acc[i] += x
    tnames = ["%s/%s" % (strings[t], strings[u]) for t, u in types]
    return tnames, strings[default], agg


def main():
    cmd = sys.argv[1]
    if cmd == "make":
        make(sys.argv[2], sys.argv[3])
    elif cmd == "dump":
        tnames, default, agg = canon(sys.argv[2])
        print("types", " ".join(tnames))
        for (lab, path), vals in sorted(agg.items()):
            if any(vals):
                print("%s\t%s\t%s" % (lab, path, " ".join(map(str, vals))))
    elif cmd == "mappings":
        mappings(sys.argv[2])
    elif cmd == "total":
        tnames, default, agg = canon(sys.argv[2])
        i = [t.split("/")[0] for t in tnames].index(sys.argv[3])
        print(sum(v[i] for v in agg.values()))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main()
