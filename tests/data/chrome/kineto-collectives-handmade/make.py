"""Hand-made Kineto traces of NCCL collectives, two ranks, with the args
that PyTorch 2.x writes on record_param_comms and on NCCL kernels (names
only: no such trace could be made here, docs/collectives.md).  Run:
/usr/bin/python3 make.py OUTDIR (writes rank0.json, rank1.json)."""
import json
import os
import sys

COLL = [
	# (collective, dtype, in nelems, out nelems, pg, ranks, kernel, cpu name, cpu us, gpu us)
	("allreduce", "Float", 1048576, 1048576, "0", "[0, 1]",
	 "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "nccl:all_reduce", 40, 300),
	("allreduce", "Float", 1048576, 1048576, "0", "[0, 1]",
	 "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "nccl:all_reduce", 30, 310),
	("_allgather_base", "BFloat16", 4096, 8192, "1", "[0, 1]",
	 "ncclDevKernel_AllGather_RING_LL", "nccl:_all_gather_base", 25, 120),
	("broadcast", "Long", 256, 256, "0", "[0, 1]",
	 "ncclDevKernel_Broadcast_RING_LL", "nccl:broadcast", 20, 50),
]


def make(rank):
	ev = []
	pid, tid, stream = 100 + rank, 100 + rank, 20
	corr = 1000
	t = 1000.0
	ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": pid, "tid": tid,
		   "ts": t, "dur": 5000.0, "args": {"External id": 1}})
	# a matmul: no collective, no labels
	ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": pid, "tid": tid,
		   "ts": t + 10, "dur": 50.0, "args": {"External id": 2}})
	ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": tid,
		   "ts": t + 20, "dur": 10.0, "args": {"External id": 2, "correlation": corr}})
	ev.append({"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm", "pid": 0, "tid": stream,
		   "ts": t + 40, "dur": 200.0, "args": {"External id": 2, "device": 0, "stream": stream,
						       "correlation": corr}})
	corr += 1
	t += 100
	for i, (name, dtype, nin, nout, pg, ranks, kern, cpu, cpu_us, gpu_us) in enumerate(COLL):
		args = {"External id": 10 + i, "Collective name": name, "dtype": dtype,
			"In msg nelems": nin, "Out msg nelems": nout, "Group size": 2,
			"In split size": "[]", "Out split size": "[]",
			"Process Group Name": pg, "Process Group Description": "default_pg" if pg == "0" else "pg1",
			"Process Group Ranks": ranks, "Rank": rank}
		ev.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": pid, "tid": tid,
			   "ts": t, "dur": float(cpu_us + 20), "args": args})
		ev.append({"ph": "X", "cat": "cpu_op", "name": cpu, "pid": pid, "tid": tid,
			   "ts": t + 5, "dur": float(cpu_us), "args": {"External id": 10 + i}})
		ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": tid,
			   "ts": t + 10, "dur": 5.0, "args": {"External id": 10 + i, "correlation": corr}})
		kargs = dict(args)
		kargs.update({"device": 0, "stream": stream, "correlation": corr})
		ev.append({"ph": "X", "cat": "kernel", "name": kern, "pid": 0, "tid": stream,
			   "ts": t + 300 + rank, "dur": float(gpu_us + rank), "args": kargs})
		corr += 1
		t += 1000
	# an older NCCL kernel name, no args and no launch: named from its name only
	ev.append({"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0,
		   "tid": stream + 1, "ts": t, "dur": 70.0, "args": {"device": 0, "stream": stream + 1}})
	ev.append({"name": "process_name", "ph": "M", "ts": 0, "pid": pid, "tid": 0, "args": {"name": "python3"}})
	return {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2},
		"traceEvents": ev}


if __name__ == "__main__":
	out = sys.argv[1]
	for r in range(2):
		with open(os.path.join(out, "rank%d.json" % r), "w") as f:
			json.dump(make(r), f, indent=0)
