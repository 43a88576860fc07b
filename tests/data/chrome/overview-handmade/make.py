#!/usr/bin/env python3
"""The two-rank trace of docs/overview.md's worked example: every number of
`tracefold overview` on it is computed by hand there (and checked by
tests/e2e/overview.sh).  Times in microseconds; Kineto's form (X events,
args.correlation on the launch and the kernel, GPU streams as pid 0 tids
"stream N", distributedInfo.rank)."""
import json, sys, os

def rank(r, delay):
    ev = []
    def x(name, ts, dur, cat="cpu_op", pid=100, tid=100, corr=None):
        e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": {}}
        if corr is not None:
            e["args"]["correlation"] = corr
        ev.append(e)
    ev.append({"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "python"}})
    # step 1: forward, (rank 1) an injected delay, the all-reduce
    x("ProfilerStep#1", 0, 100, "user_annotation")
    x("aten::mm", 10, 20)
    x("cudaLaunchKernel", 12, 5, "cuda_runtime", corr=1)
    ar = 40
    if delay:
        x("injected_delay", 30, 35, "user_annotation")
        ar = 70
    x("c10d::allreduce_", ar, 30 if not delay else 10)
    x("cudaLaunchKernel", ar + 2, 3, "cuda_runtime", corr=2)
    x("gemm_kernel", 20, 40, "kernel", 0, "stream 7", 1)
    if delay:
        x("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 72, 18, "kernel", 0, "stream 20", 2)
    else:
        x("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 50, 30, "kernel", 0, "stream 20", 2)
    # step 2: the same on both ranks; the NCCL kernel runs past the step's CPU window
    x("ProfilerStep#2", 100, 100, "user_annotation")
    x("aten::mm", 110, 20)
    x("cudaLaunchKernel", 112, 5, "cuda_runtime", corr=3)
    x("c10d::allreduce_", 150, 30)
    x("cudaLaunchKernel", 152, 3, "cuda_runtime", corr=4)
    x("gemm_kernel", 120, 40, "kernel", 0, "stream 7", 3)
    x("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 170, 50, "kernel", 0, "stream 20", 4)
    return {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": r, "world_size": 2},
            "traceEvents": ev}

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
for r in (0, 1):
    with open(os.path.join(out, "rank%d.json" % r), "w") as f:
        json.dump(rank(r, r == 1), f, indent=0)
        f.write("\n")
