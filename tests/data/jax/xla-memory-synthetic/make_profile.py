#!/usr/bin/env python3
"""Writes tpu-host-0.memory_profile.json.gz: a synthetic XLA memory profile
(MemoryProfile of tensorflow/core/profiler/protobuf/memory_profile.proto in
proto3 JSON, as the JAX profiler writes <host>.memory_profile.json.gz).

No real file was at hand: this follows the schema's documented facts (field
names in lowerCamelCase, int64 values as JSON strings, fields at their
default value left out, the MemoryActivity enum by name).  The allocators
are simulated: heapAllocatedBytes is the bytes live after the activity,
stackReservedBytes the reservations, peakBytesInUse the most of heap +
stack so far.  Deterministic (fixed seed, gzip mtime 0).
Run: python3 make_profile.py  (in this folder)"""
import gzip, json, random

rng = random.Random(27)
OPS = [
    "jit(train_step)/jit(main)/dot_general",
    "jit(train_step)/jit(main)/transpose(jvp(MLP))/dot_general",
    "jit(train_step)/jit(main)/add",
    "jit(train_step)/jit(main)/reduce_sum[axes=(0,)]",
    "jit(init)/broadcast_in_dim",
    "op with \"quotes\"",
]
TYPES = ["float", "bfloat16", "int32"]


def i64(v):
    return str(v)


def allocator(name, n, t0_ps, cap):
    snaps, live, heap, stack, peak, t = [], {}, 0, 0, 0, t0_ps
    addr = 0x7f0000000000
    for i in range(n):
        t += rng.randrange(500, 5_000_000)  # picoseconds; some below a ns
        r = rng.random()
        if i == 3:
            act, b, op = "RESERVATION", 1 << 20, ""
            stack += b
        elif i == 7:
            act, b, op = "EXPANSION", 1 << 22, ""
        elif live and r < 0.4:
            a = rng.choice(sorted(live))
            b, op = live.pop(a)
            heap -= b
            act = "DEALLOCATION"
            addr_used = a
        else:
            b = rng.choice([256, 1024, 4096, 65536, 1 << 20]) * rng.randrange(1, 5)
            op = rng.choice(OPS)
            addr += b
            live[addr] = (b, op)
            heap += b
            act = "ALLOCATION"
            addr_used = addr
        peak = max(peak, heap + stack)
        stats = {"stackReservedBytes": i64(stack), "heapAllocatedBytes": i64(heap),
                 "freeMemoryBytes": i64(cap - heap - stack), "fragmentation": round(rng.random() * 0.1, 4),
                 "peakBytesInUse": i64(peak)}
        meta = {"memoryActivity": act, "requestedBytes": i64(b - (b % 7 if act == "ALLOCATION" else 0)),
                "allocationBytes": i64(b)}
        if act in ("ALLOCATION", "DEALLOCATION"):
            meta["address"] = i64(addr_used)
        if op:
            meta["tfOpName"] = op
        meta["stepId"] = i64(i // 8)
        meta["regionType"] = "output" if act == "ALLOCATION" else ""
        meta["dataType"] = rng.choice(TYPES)
        meta["tensorShape"] = "[%d,%d]" % (rng.randrange(1, 64), rng.randrange(1, 64))
        meta = {k: v for k, v in meta.items() if v not in ("", "0")}  # proto3: defaults left out
        stats = {k: v for k, v in stats.items() if v not in ("0", 0)}
        s = {"timeOffsetPs": i64(t), "aggregationStats": stats, "activityMetadata": meta}
        if t == 0:
            del s["timeOffsetPs"]
        snaps.append(s)
    peak_i = max(range(n), key=lambda k: int(snaps[k]["aggregationStats"].get("peakBytesInUse", "0")))
    return {
        "memoryProfileSnapshots": snaps,
        "profileSummary": {"peakBytesUsageLifetime": i64(peak),
                           "peakStats": snaps[peak_i]["aggregationStats"],
                           "peakStatsTimePs": snaps[peak_i].get("timeOffsetPs", "0"),
                           "memoryCapacity": i64(cap)},
        "activeAllocations": [{"snapshotIndex": i64(peak_i), "numOccurrences": "1"}],
        "specialAllocations": [],
        # a downsampled copy of the snapshots for the viewer's timeline: not read
        "sampledTimelineSnapshots": snaps[::3],
    }


profile = {
    "memoryProfilePerAllocator": {
        "GPU_0_bfc": allocator("GPU_0_bfc", 60, 0, 80 << 30),
        "cuda_host_bfc": allocator("cuda_host_bfc", 25, 1_000_000, 64 << 30),
    },
    "numHosts": 1,
    "memoryIds": ["GPU_0_bfc", "cuda_host_bfc"],
    "version": 1,
}
with open("tpu-host-0.memory_profile.json.gz", "wb") as f:
    with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as g:
        g.write(json.dumps(profile, indent=1).encode())
