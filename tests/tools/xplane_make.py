#!/usr/bin/env python3
"""xplane_make.py OUT [CASE]: writes a small XPlane (XSpace protobuf) made
by hand, encoded here from the protobuf wire format and the field numbers
of xplane.proto / hlo.proto (listed in tests/tools/xplane_check.py), for
tests and fuzz seeds (docs/format-xplane.md).

CASE "ops" (the default): a /host:metadata plane with the HloProto of a
module jit_f (entry computation: fusion instruction wrapped_subtract.1, op
jit(f)/sub; fusion.3, op jit(f)/mul; custom-call.0, a cuBLAS matmul, op
jit(f)/dot_general; another computation whose wrapped_subtract.1 says
jit(f)/WRONG, which the entry's shadows); a /host:CPU plane, line python3:
Execute around five cuLaunchKernel (correlation ids 1..5), a
MemoryAllocation of zero length; a /device:GPU:0 plane, line Stream
#7(Compute): a kernel with tf_op jit(f)/dot_general (id 1), a kernel
wrapped_subtract_1 with tf_op XlaModule: and hlo_op command_buffer_1 (its
op found by its name, id 2), k3 with hlo_op fusion.3 (id 3), a cuBLAS
kernel sm90_gemm with hlo_op custom-call.0 given as a ref_value (id 4),
Memset 0 (id 5, no op), a kernel with id 99 (no launch), times in
picoseconds that round half to even; an xprof derived line "XLA Ops" and an
event with num_occurrences (both no timeline); a plane Task Environment."""
import struct, sys


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def key(f, w):
    return varint(f << 3 | w)


def vi(f, v):
    return key(f, 0) + varint(v)


def ld(f, b):
    if isinstance(b, str):
        b = b.encode()
    return key(f, 2) + varint(len(b)) + b


def dbl(f, v):
    return key(f, 1) + struct.pack("<d", v)


def stat(mid, v, ref=False):
    if ref:
        return vi(1, mid) + vi(7, v)
    if isinstance(v, int):
        return vi(1, mid) + vi(3, v)
    if isinstance(v, float):
        return vi(1, mid) + dbl(2, v)
    return vi(1, mid) + ld(5, v)


def instr(name, opcode, op_name):
    return ld(2, ld(1, name) + ld(2, opcode) + ld(7, ld(1, opcode) + ld(2, op_name)))


def hlo():
    entry = ld(1, "main") + vi(5, 7) + instr("param.0", "parameter", "") + \
        instr("wrapped_subtract.1", "fusion", "jit(f)/sub") + instr("fusion.3", "fusion", "jit(f)/mul") + \
        instr("custom-call.0", "custom-call", "jit(f)/dot_general")
    other = ld(1, "fused_sub") + vi(5, 3) + instr("wrapped_subtract.1", "subtract", "jit(f)/WRONG")
    return ld(1, ld(1, "jit_f") + ld(3, other) + ld(3, entry) + vi(6, 7))


def plane(pid, name, lines=(), emeta=(), smeta=()):
    b = vi(1, pid) + ld(2, name)
    for ln in lines:
        b += ld(3, ln)
    for i, (n, stats, disp) in emeta:
        m = vi(1, i) + ld(2, n) + (ld(4, disp) if disp else b"") + b"".join(ld(5, s) for s in stats)
        b += ld(4, vi(1, i) + ld(2, m))
    for i, n in smeta:
        b += ld(5, vi(1, i) + ld(2, vi(1, i) + ld(2, n)))
    return ld(1, b)


def line(lid, name, ts_ns, events):
    return vi(1, lid) + ld(2, name) + vi(3, ts_ns) + b"".join(ld(4, e) for e in events)


def event(mid, off_ps, dur_ps, stats=(), occurrences=None):
    b = vi(1, mid) + (vi(5, occurrences) if occurrences is not None else vi(2, off_ps)) + \
        (vi(3, dur_ps) if dur_ps else b"")
    return b + b"".join(ld(4, s) for s in stats)


def ops_case():
    meta = plane(1, "/host:metadata", emeta=[(1, ("jit_f(12)", [vi(1, 1) + ld(6, hlo())], None))],
                 smeta=[(1, "Hlo Proto")])
    # host: stat 1 correlation_id
    H = 1000  # ps per ns
    host_events = [event(1, 0, 100000 * H)]
    for k in range(5):
        host_events.append(event(2, (10000 + k * 10000) * H, 2000 * H, [stat(1, k + 1)]))
    host_events.append(event(3, 60000 * H, 0, [stat(2, 4096)]))
    host = plane(2, "/host:CPU", [line(77, "python3", 1000, host_events)],
                 emeta=[(1, ("Execute", [], None)), (2, ("cuLaunchKernel", [], None)),
                        (3, ("MemoryAllocation", [], None))],
                 smeta=[(1, "correlation_id"), (2, "bytes_allocated")])
    # gpu: stats 1 correlation_id, 2 hlo_module, 3 hlo_op, 4 tf_op, 5 the string custom-call.0
    gpu_events = [
        event(1, 20000 * H + 1500, 5000 * H, [stat(1, 1), stat(2, "jit_f"), stat(4, "jit(f)/dot_general")]),
        event(2, 30000 * H + 2500, 7000 * H - 1000, [stat(1, 2), stat(2, "jit_f"), stat(3, "command_buffer_1"),
                                                    stat(4, "XlaModule:")]),
        event(3, 40000 * H, 3000 * H + 499, [stat(1, 3), stat(2, "jit_f"), stat(3, "fusion.3")]),
        event(4, 50000 * H, 11000 * H, [stat(1, 4), stat(2, "jit_f"), stat(3, 5, ref=True)]),
        event(5, 62000 * H, 700 * H, [stat(1, 5)]),
        event(6, 70000 * H, 900 * H, [stat(1, 99), stat(2, "jit_f")]),
    ]
    derived = line(0xDEADBEEF + 3, "XLA Ops", 21000, [event(3, 0, 5000 * H)])
    agg = line(8, "Stream #8(Compute)", 21000, [event(3, 0, 5000 * H, occurrences=4)])
    gpu = plane(3, "/device:GPU:0", [line(7, "Stream #7(Compute)", 1000, gpu_events), derived, agg],
                emeta=[(1, ("sm90_xmma_gemm_tn", [], None)), (2, ("wrapped_subtract_1", [], None)),
                       (3, ("k3", [], None)), (4, ("sm90_gemm", [], None)), (5, ("Memset 0", [], None)),
                       (6, ("lost_kernel", [], None))],
                smeta=[(1, "correlation_id"), (2, "hlo_module"), (3, "hlo_op"), (4, "tf_op"), (5, "custom-call.0")])
    task = plane(4, "Task Environment", smeta=[(1, "profile_start_time")])
    return meta + host + gpu + task


if __name__ == "__main__":
    data = {"ops": ops_case}[sys.argv[2] if len(sys.argv) > 2 else "ops"]()
    open(sys.argv[1], "wb").write(data)
