#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_xla-memory (tests/fuzz/corpus/xla-memory/):
small XLA memory profiles (memory_profile.proto in proto3 JSON, as
docs/format-xla-memory.md describes), valid and damaged, each under 8 KiB.
Run from the repository root: python3 tests/fuzz/xla_memory_seeds.py"""
import gzip, hashlib, io, json, os

OUT = "tests/fuzz/corpus/xla-memory"


def snap(t, act, b, op=None, heap=0, stack=0, peak=0):
    m = {"memoryActivity": act, "allocationBytes": str(b), "requestedBytes": str(b)}
    if op is not None:
        m["tfOpName"] = op
    return {"timeOffsetPs": str(t), "aggregationStats": {"heapAllocatedBytes": str(heap),
            "stackReservedBytes": str(stack), "peakBytesInUse": str(peak)}, "activityMetadata": m}


def profile(snaps, name="GPU_0_bfc"):
    return {"memoryProfilePerAllocator": {name: {"memoryProfileSnapshots": snaps,
            "profileSummary": {"peakBytesUsageLifetime": "4096"}}}, "numHosts": 1, "memoryIds": [name]}


base = [snap(1000, "ALLOCATION", 4096, "jit(f)/jit(main)/dot_general", 4096, 0, 4096),
        snap(2500, "RESERVATION", 1024, None, 4096, 1024, 5120),
        snap(3000, "ALLOCATION", 256, "jit(f)/reduce_sum[axes=(0,)]", 4352, 1024, 5376),
        snap(9000, "DEALLOCATION", 4096, "jit(f)/jit(main)/dot_general", 256, 1024, 5376),
        snap(9999, "EXPANSION", 1 << 20, "", 256, 1024, 5376)]
seeds = {
    "valid": json.dumps(profile(base)).encode(),
    "two-allocators": json.dumps({"memoryProfilePerAllocator": {"a": {"memoryProfileSnapshots": base[:2]},
                                  "b\\u00e9": {"memoryProfileSnapshots": base[2:]}}}).encode(),
    "unsorted": json.dumps(profile(list(reversed(base)))).encode(),
    "numbers-not-strings": json.dumps(profile(base)).replace('"4096"', "4096").encode(),
    "escapes": json.dumps(profile([snap(5, "ALLOCATION", 8, "a\"b/\\u002fc//(d/e)/")], "x\"y")).encode(),
    "wrong-types": json.dumps({"memoryProfilePerAllocator": {"a": {"memoryProfileSnapshots": [1, [], {"timeOffsetPs": "-5"},
                               {"timeOffsetPs": "x"}, {"activityMetadata": 3}]}, "b": [], "c": {"memoryProfileSnapshots": {}}}}).encode(),
    "empty": b'{"memoryProfilePerAllocator": {}}',
    "empty-file": b"",  # found by make fuzz: a NULL buffer
    "no-map": b'{"numHosts": 1, "memoryProfileSnapshots": []}',
    "trailing": json.dumps(profile(base[:1])).encode() + b" x",
}
seeds["cut"] = seeds["valid"][: len(seeds["valid"]) // 2]
seeds["gzip"] = gzip.compress(seeds["valid"], mtime=0)
seeds["gzip-cut"] = seeds["gzip"][:-20]
os.makedirs(OUT, exist_ok=True)
for name, data in seeds.items():
    assert len(data) <= 8192, name
    with open(os.path.join(OUT, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)
