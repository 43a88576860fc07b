#!/usr/bin/env python3
"""overview_gen.py: synthetic multi-rank Kineto-like traces with known
stragglers, for `tracefold overview` (tests/e2e/overview_synth.sh,
bench/bench-overview-power.sh).

Writes OUT/rankK.json.gz (one Kineto-shaped trace per rank, with
"distributedInfo": {"rank": K, "world_size": R}) and OUT/truth.json (the
(rank, step) pairs given an injected delay).

Per rank and step, on the main thread (pid = tid = 1000 + K), inside a
Python frame that spans the run:
  ProfilerStep#N
    injected_delay               (only in the chosen (rank, step) pairs)
    aten::copy_ > cudaMemcpyAsync       -> "Memcpy HtoD" (gpu_memcpy), stream 7
    aten::linear x4 > cudaLaunchKernel  -> compute kernels, stream 7
    aten::linear_backward x4 > cudaLaunchKernel -> compute kernels, stream 7
    c10d::allreduce_ > cudaLaunchKernel -> ncclDevKernel_AllReduce_..., stream 20
    Optimizer.step#SGD.step > cudaLaunchKernel -> a compute kernel, stream 7
The all-reduce synchronizes: every rank's NCCL kernel ends at the same time
(the latest NCCL start + the transfer time) and the CPU call returns just
after, so an early rank waits and every rank starts its next step together.
Before step 0, an aten::zeros op launches a kernel that runs into step 0
(an activity of no step).  Each rank-step's CPU op durations get a random jitter of up to --jitter
(default 1%).  GPU on pid 0, streams 7 and 20; launches and activities
share args.correlation.  --no-gpu: no launches and kernels, the
c10d::allreduce_ call returns at the last arrival + the transfer time
(gloo-like).  --size-mb pads each forward op with tiny aten::empty children
until a rank's JSON (before gzip) is about that size; padding changes no
number of the overview (they nest inside ops already counted).

Usage: overview_gen.py OUT --ranks R --steps S [--seed N] [--delays K |
       --delay r:s,...] [--delay-ms F] [--size-mb F] [--no-gpu]
"""
import argparse
import gzip
import json
import os
import random

US = 1000  # ns


def ts(t):
	"""ns -> the µs text Kineto writes (3 decimals: exact to the ns)"""
	return "%d.%03d" % (t // 1000, t % 1000)


class Rank:
	def __init__(self, k, world):
		self.k, self.world, self.pid = k, world, 1000 + k
		self.ev = []
		self.s7 = 0  # stream 7 free from
		self.corr = k * 10_000_000 + 1

	def x(self, name, cat, t0, dur, pid=None, tid=None, args=None):
		pid = self.pid if pid is None else pid
		tid = self.pid if tid is None else tid
		a = "" if args is None else ', "args": ' + json.dumps(args, separators=(",", ":"))
		self.ev.append('{"ph": "X", "cat": "%s", "name": %s, "pid": %d, "tid": %d, "ts": %s, "dur": %s%s}'
			       % (cat, json.dumps(name), pid, tid, ts(t0), ts(dur), a))

	def launch(self, t0, api, kname, kcat, kdur, stream, start_at=None):
		"""A runtime call at t0 (10 µs) launching one GPU activity; -> its [start, end)"""
		c = self.corr
		self.corr += 1
		self.x(api, "cuda_runtime", t0, 10 * US, args={"correlation": c, "cbid": 211})
		g0 = t0 + 15 * US
		if stream == 7:
			g0 = max(g0, self.s7)
		if start_at is not None:
			g0 = max(g0, start_at)
		self.x(kname, kcat, g0, kdur, pid=0, tid=stream,
		       args={"correlation": c, "device": 0, "stream": stream, "External id": c})
		if stream == 7:
			self.s7 = g0 + kdur
		return g0, g0 + kdur

	def op(self, name, t0, dur, pad, cat="cpu_op"):
		self.x(name, cat, t0, dur)
		if pad:
			step = max(1, (dur - 40 * US) // (pad + 1))
			for i in range(pad):
				self.x("aten::empty", "cpu_op", t0 + 30 * US + i * step, max(1, step // 2))


def head(rank, world):
	return ('{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d},\n'
		' "deviceProperties": [{"id": 0, "name": "Synthetic GPU"}],\n "traceEvents": [\n' % (rank, world))


def meta(r, gpu):
	m = [('{"ph": "M", "name": "process_name", "pid": %d, "tid": 0, "args": {"name": "python3"}}' % r.pid),
	     ('{"ph": "M", "name": "thread_name", "pid": %d, "tid": %d, "args": {"name": "thread %d (python3)"}}'
	      % (r.pid, r.pid, r.pid))]
	if gpu:
		m.append('{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "python3"}}')
		m.append('{"ph": "M", "name": "process_labels", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}}')
		for s in (7, 20):
			m.append('{"ph": "M", "name": "thread_name", "pid": 0, "tid": %d, "args": {"name": "stream %d "}}'
				 % (s, s))
	return m


def generate(o):
	rng = random.Random(o.seed)
	R, S = o.ranks, o.steps
	pairs = [(r, s) for r in range(R) for s in range(S)]
	if o.delay:
		truth = sorted({tuple(int(x) for x in p.split(":")) for p in o.delay.split(",")})
	else:
		truth = sorted(rng.sample(pairs, min(o.delays, len(pairs))))
	delayed = set(truth)
	D = int(o.delay_ms * 1e6)
	ranks = [Rank(k, R) for k in range(R)]
	op_dur, n_fwd = 400 * US, 4
	pad = 0
	if o.size_mb:
		# about 125 bytes a padding event: fill what the per-step events leave
		per_step = (22 if o.gpu else 12) * 170
		pad = max(0, int((o.size_mb * 1e6 / S - per_step) / 125 / n_fwd))
	start = 1_700_000_000_000_000_000  # ns: an epoch time, as Kineto writes
	t_begin = [start] * R
	first = start - 200 * US
	if o.gpu:
		# a warm-up kernel launched before step 0, still running in it: an
		# activity of no step that keeps step 0's device busy
		for rk in ranks:
			rk.op("aten::zeros", start - 100 * US, 40 * US, 0)
			rk.launch(start - 90 * US, "cudaLaunchKernel", "void at::native::fill_kernel<float>(...)", "kernel",
				  400 * US, 7)
	for s in range(S):
		arrive, nccl_start = [], []
		for r, rk in enumerate(ranks):
			j = 1 + rng.random() * o.jitter
			t = t_begin[r]
			rk.step_t0 = t
			t += 5 * US
			if (r, s) in delayed:
				rk.op("injected_delay", t, D, 0, cat="user_annotation")
				t += D + 5 * US
			d = int(100 * US * j)
			rk.op("aten::copy_", t, d, 0)
			if o.gpu:
				rk.launch(t + 20 * US, "cudaMemcpyAsync", "Memcpy HtoD (Pageable -> Device)", "gpu_memcpy",
					  60 * US, 7)
			t += d + 5 * US
			for name in ["aten::linear"] * n_fwd + ["aten::linear_backward"] * n_fwd:
				d = int(op_dur * j)
				rk.op(name, t, d, pad if name == "aten::linear" else 0)
				if o.gpu:
					rk.launch(t + 20 * US, "cudaLaunchKernel",
						  "void at::native::vectorized_elementwise_kernel<4>(...)" if "back" in name
						  else "ampere_sgemm_128x64_tn", "kernel", 300 * US, 7)
				t += d + 5 * US
			arrive.append(t)
			if o.gpu:
				# the NCCL kernel starts once launched and once the compute before it is done
				nccl_start.append(max(t + 35 * US, rk.s7))
		last = max(arrive)
		C = (max(nccl_start) if o.gpu else last) + o.transfer_us * US
		for r, rk in enumerate(ranks):
			t = arrive[r]
			call_end = C + 10 * US
			rk.x("c10d::allreduce_", "cpu_op", t, call_end - t)
			if o.gpu:
				c = rk.corr
				rk.corr += 1
				rk.x("cudaLaunchKernel", "cuda_runtime", t + 20 * US, 10 * US, args={"correlation": c})
				rk.x("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "kernel",
				     nccl_start[r], C - nccl_start[r], pid=0, tid=20,
				     args={"correlation": c, "device": 0, "stream": 20, "External id": c})
			t = call_end + 5 * US
			d = int(150 * US * (1 + rng.random() * o.jitter))
			rk.op("Optimizer.step#SGD.step", t, d, 0, cat="user_annotation")
			if o.gpu:
				rk.launch(t + 20 * US, "cudaLaunchKernel", "multi_tensor_apply_kernel", "kernel", 80 * US, 7)
			t += d + 10 * US
			rk.x("ProfilerStep#%d" % s, "user_annotation", rk.step_t0, t - rk.step_t0)
			t_begin[r] = t + 50 * US
	end = max(t_begin)
	os.makedirs(o.out, exist_ok=True)
	for rk in ranks:
		rk.x("train.py(40): <module>", "python_function", first, end - first)
		rk.ev.append('{"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", '
			     '"tid": "PyTorch Profiler", "ts": %s, "dur": %s}' % (ts(first - 20 * US), ts(end - first + 40 * US)))
		body = head(rk.k, R) + ",\n".join(meta(rk, o.gpu) + rk.ev) + "\n]}\n"
		with gzip.open(os.path.join(o.out, "rank%d.json.gz" % rk.k), "wb", compresslevel=o.level) as f:
			f.write(body.encode())
	with open(os.path.join(o.out, "truth.json"), "w") as f:
		json.dump({"ranks": R, "steps": S, "seed": o.seed, "delay_ns": D,
			   "delayed": [{"rank": r, "step": s} for r, s in truth]}, f)
		f.write("\n")


def main():
	ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
	ap.add_argument("out")
	ap.add_argument("--ranks", type=int, default=4)
	ap.add_argument("--steps", type=int, default=5)
	ap.add_argument("--seed", type=int, default=1)
	ap.add_argument("--delays", type=int, default=0, help="random (rank, step) pairs to delay")
	ap.add_argument("--delay", help="r:s,... the pairs to delay")
	ap.add_argument("--delay-ms", type=float, default=1.0)
	ap.add_argument("--jitter", type=float, default=0.01, help="of each CPU op, at most (0.01 = 1%%)")
	ap.add_argument("--transfer-us", type=int, default=200)
	ap.add_argument("--size-mb", type=float, default=0, help="JSON size per rank before gzip")
	ap.add_argument("--no-gpu", dest="gpu", action="store_false")
	ap.add_argument("--level", type=int, default=6, help="gzip level")
	generate(ap.parse_args())


if __name__ == "__main__":
	main()
