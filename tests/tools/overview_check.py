#!/usr/bin/env python3
"""overview_check.py: an independent oracle for `tracefold overview` on
Chrome trace JSON (plain or gzipped; Kineto with GPU streams, legacy
PyTorch).  It follows the definitions of issue 28's spec (steps, GPU
breakdown, collectives, late_ns, waits, stragglers) from the trace format's
own facts, not from tracefold's code:

- X events are [ts, ts+dur); B/E pairs per (pid, tid) in file order; ts and
  dur are microseconds, converted to ns exactly (decimal text, half to even,
  docs/format-chrome.md "Numbers and times"); Kineto's whole-trace span
  (cat "Trace") is left out, as tracefold does by default;
- a GPU stream is a (pid, tid) with a kernel/memcpy/memset (Kineto's
  categories of 2022 and 2021), a tid "stream N", or a pid labelled GPU;
  an activity's device is its pid; its launch is the CPU region of the same
  input with the same args.correlation; the other regions of a GPU stream
  (cat cuda_sync: Stream Sync, Context Sync; gpu_user_annotation) are not
  activities: the spec names kernels, memcpys and memsets only;
- nesting per CPU thread is rebuilt here: regions sorted by start, longer
  first; a region is inside the last open one that ends after its start;
  cpu_ns counts the step's children that end in it (PyTorch 2.11's
  profiler.py step() frame starts in ProfilerStep#N and ends after it).

The definitions are those of docs/overview.md (issue 28's spec, with the
gloo rule added there: a c10d call ends no sooner than its gloo:* worker
region).

Usage: overview_check.py [--step-region NAME] [--late-min NS] INPUT...
Prints {"ranks":[{"rank":R,"steps":[...]}],"stragglers":[...]} ("where" is
null: the call path of a straggler is not checked here).
"""
import argparse
import decimal
import gzip
import json
import os
import re
import sys

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"}
COMM_WORDS = ("nccl", "rccl", "msccl", "gloo", "all_reduce", "allreduce", "all-reduce", "all_gather",
	      "allgather", "all-gather", "reduce_scatter", "reducescatter", "reduce-scatter", "all_to_all",
	      "alltoall", "all-to-all", "collective-permute", "sendrecv")
MPI_COLL = {"MPI_" + n for n in ("Allreduce", "Reduce", "Bcast", "Barrier", "Allgather", "Allgatherv", "Alltoall",
				 "Alltoallv", "Alltoallw", "Gather", "Gatherv", "Scatter", "Scatterv",
				 "Reduce_scatter", "Reduce_scatter_block", "Scan", "Exscan")}
STEP_RE = re.compile(r"^ProfilerStep#(\d+)$")


def to_ns(v):
	"""µs (number or numeric string) -> int ns, exactly, half to even."""
	d = v if isinstance(v, decimal.Decimal) else decimal.Decimal(str(v).strip())
	return int((d * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_EVEN))


def load(path):
	op = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
	with op(path, "rb") as f:
		doc = json.loads(f.read(), parse_float=decimal.Decimal)
	return doc


class Region:
	__slots__ = ("name", "cat", "start", "end", "args", "parent", "depth", "track")

	def __init__(self, name, cat, start, end, args, track):
		self.name, self.cat, self.start, self.end, self.args = name, cat, start, end, args
		self.track, self.parent, self.depth = track, None, 0


def read_input(path, index):
	"""-> (trace rank or None, {track: [Region]} in first-met order, gpu track set)"""
	doc = load(path)
	events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
	rank = None
	if isinstance(doc, dict) and isinstance(doc.get("distributedInfo"), dict):
		r = doc["distributedInfo"].get("rank")
		if r is not None:
			rank = int(r)
	gpu_pids = set()
	for e in events:
		if e.get("ph") == "M" and e.get("name") in ("process_name", "process_labels"):
			a = e.get("args") or {}
			t = str(a.get("name", a.get("labels", "")))
			if re.match(r"^(GPU ?\d|/device:GPU:\d)", t):
				gpu_pids.add(str(e.get("pid")))
	tracks, gpu, open_b = {}, set(), {}
	for e in events:
		ph = e.get("ph")
		if ph not in ("X", "B", "E"):
			continue
		key = (index, "" if e.get("pid") is None else str(e.get("pid")),
		       "" if e.get("tid") is None else str(e.get("tid")))
		cat = str(e.get("cat") or "")
		if ph == "X" and cat == "Trace":
			continue  # Kineto's whole-trace span, not work
		if "ts" not in e:
			continue
		ts = to_ns(e["ts"])
		if ph == "B":
			open_b.setdefault(key, []).append(e)
			continue
		if ph == "E":
			stack = open_b.get(key)
			if not stack:
				continue
			b = stack.pop()
			reg = Region(str(b.get("name") or ""), str(b.get("cat") or ""), to_ns(b["ts"]), ts,
				     b.get("args") or {}, key)
		else:
			reg = Region(str(e.get("name") or ""), cat, ts, ts + to_ns(e.get("dur", 0)),
				     e.get("args") or {}, key)
		tracks.setdefault(key, []).append(reg)
		if reg.cat.lower() in GPU_CATS or reg.cat == "cuda_sync" or key[2].startswith("stream ") \
				or key[1] in gpu_pids:
			gpu.add(key)
	return rank, tracks, gpu


def nest(regs):
	"""Parent and depth (1 = outermost) of each region of one thread."""
	regs = sorted(regs, key=lambda r: (r.start, -(r.end - r.start)))
	stack = []
	for r in regs:
		while stack and stack[-1].end <= r.start and stack[-1].start < r.start:
			stack.pop()
		r.parent = stack[-1] if stack else None
		r.depth = len(stack) + 1
		stack.append(r)
	return regs


def union(iv):
	"""Sorted, merged list of [a, b) intervals."""
	out = []
	for a, b in sorted(x for x in iv if x[1] > x[0]):
		if out and a <= out[-1][1]:
			out[-1][1] = max(out[-1][1], b)
		else:
			out.append([a, b])
	return out


def length(u):
	return sum(b - a for a, b in u)


def intersect(u, a, b):
	return sum(max(0, min(y, b) - max(x, a)) for x, y in u)


def minus(u, v):
	"""|u \\ v| for merged interval lists."""
	return length(u) - sum(intersect(v, a, b) for a, b in u)


def category(act):
	n, c = act.name.lower(), act.cat.lower()
	if c in ("gpu_memcpy", "memcpy") or "memcpy" in n:
		return "memcpy"
	if c in ("gpu_memset", "memset") or "memset" in n:
		return "memset"
	if any(w in n for w in COMM_WORDS):
		return "comm"
	return "compute"


def coll_name(reg, gloo=False):
	"""The normalized collective of a collective call (gloo: of a gloo:*
	worker region instead), or None."""
	n = reg.name
	if gloo:
		if not n.startswith("gloo:"):
			return None
		n = n[5:]
	elif reg.name in MPI_COLL:
		n = n[4:]
	elif n == "record_param_comms":
		n = str(reg.args.get("Collective name", "record_param_comms"))
	elif n.startswith("c10d::"):
		n = n[6:]
	elif n.startswith("nccl:"):
		n = n[5:]
	else:
		return None
	c = n.lower().strip("_").replace("_", "").replace("-", "")
	for pre, norm in (("allreduce", "all_reduce"), ("allgather", "all_gather"),
			  ("reducescatter", "reduce_scatter"), ("alltoall", "all_to_all"),
			  ("broadcast", "broadcast"), ("bcast", "broadcast"), ("barrier", "barrier"),
			  ("sendrecv", "send_recv"), ("reduce", "reduce"), ("gather", "gather"),
			  ("scatter", "scatter"), ("send", "send"), ("recv", "recv")):
		if c.startswith(pre):
			return norm
	return c


def above(x, pred):
	"""Is some region around x (on its thread) one that pred accepts?"""
	p = x.parent
	while p is not None and not pred(p):
		p = p.parent
	return p is not None


def median_floor(xs):
	xs = sorted(xs)
	k = len(xs)
	return xs[k // 2] if k % 2 else (xs[k // 2 - 1] + xs[k // 2]) // 2


def file_rank(path):
	m = re.findall(r"rank[-_]?([0-9]+)", os.path.basename(path).lower())
	return int(m[-1]) if m else None


def analyse(paths, step_region=None, late_min=None):
	inputs = [read_input(p, i) for i, p in enumerate(paths)]
	# inputs without a rank of their own: from their file names when every
	# one of them has one and they all differ, else their index
	fr = [file_rank(p) for p, inp in zip(paths, inputs) if inp[0] is None]
	by_file = all(r is not None for r in fr) and len(set(fr)) == len(fr)
	fr = [file_rank(p) for p in paths]
	ranks_from = ("trace" if all(inp[0] is not None for inp in inputs) else
		      "file names" if by_file else "inputs")
	ranks = {}  # rank -> {"cpu": {track: [Region]}, "gpu": {track: [Region]}, "corr": {input: {id: start}}}
	for i, (trank, tracks, gpu) in enumerate(inputs):
		r = trank if trank is not None else (fr[i] if by_file else i)
		rk = ranks.setdefault(r, {"cpu": {}, "gpu": {}, "corr": {}})
		corr = rk["corr"].setdefault(i, {})
		for key, regs in tracks.items():
			if key in gpu:
				rk["gpu"][key] = [a for a in regs if a.cat.lower() in GPU_CATS]
			else:
				rk["cpu"][key] = nest(regs)
				for reg in regs:
					c = reg.args.get("correlation")
					if c is not None and str(c) not in corr:
						corr[str(c)] = reg.start
	rows, step_of = {}, {}
	for r, rk in ranks.items():
		rows[r], step_of[r] = rank_steps(r, rk, step_region)
	# collectives: the n-th call of a key on every rank
	calls, end = {}, {}
	for r, rk in ranks.items():
		per_key, gloo = {}, {}
		for regs in rk["cpu"].values():
			for reg in regs:
				if coll_name(reg, gloo=True):
					gloo.setdefault(coll_name(reg, gloo=True), []).append(reg)
				if coll_name(reg) is None or above(reg, lambda p: coll_name(p) is not None):
					continue
				key = (coll_name(reg), str(reg.args.get("Process Group Name", "")))
				per_key.setdefault(key, []).append(reg)
		for key, regs in per_key.items():
			for n, reg in enumerate(sorted(regs, key=lambda x: (x.start, x.end))):
				calls.setdefault((key, n), {})[r] = reg
				end[id(reg)] = reg.end
		# docs/overview.md "gloo": the n-th call of a collective on a rank ends
		# no sooner than the n-th gloo:* worker region of that collective
		by_name = {}
		for key, regs in per_key.items():
			by_name.setdefault(key[0], []).extend(regs)
		for name, regs in by_name.items():
			work = sorted(gloo.get(name, []), key=lambda x: (x.start, x.end))
			for reg, w in zip(sorted(regs, key=lambda x: (x.start, x.end)), work):
				end[id(reg)] = max(reg.end, w.end)
	for (key, n), by_rank in calls.items():
		if len(by_rank) < 2:
			continue
		arr = sorted((reg.start, r) for r, reg in by_rank.items())
		m = median_floor([a for a, _ in arr])
		a_med, r_med = arr[(len(arr) - 1) // 2]
		step = step_of[r_med](a_med)
		if step is None:
			continue
		last = arr[-1][0]
		for r, reg in by_rank.items():
			row = rows[r].get(step)
			if row is None:
				continue
			late = reg.start - m
			row["_lates"].append(late)
			row["comm_wait_ns"] += max(0, min(last, end[id(reg)]) - reg.start)
	times = []
	for r in rows:
		for row in rows[r].values():
			lates = row.pop("_lates")
			row["late_ns"] = max(lates) if lates else 0
			times.append(row["time_ns"])
	if late_min is None:
		late_min = max(1000, median_floor(times) // 10) if times else 1000
	strag = [{"rank": r, "step": s, "late_ns": row["late_ns"], "where": None}
		 for r in rows for s, row in rows[r].items() if row["late_ns"] >= late_min]
	strag.sort(key=lambda x: (-x["late_ns"], x["rank"], x["step"]))
	return {"late_min_ns": late_min, "ranks_from": ranks_from, "nranks": len(rows),
		"ranks": [{"rank": r, "steps": [rows[r][s] for s in sorted(rows[r])]} for r in sorted(rows)],
		"stragglers": strag}


def rank_steps(r, rk, step_region):
	"""-> ({step: row}, function arrival -> step number or None)"""
	cpu = rk["cpu"]
	steps, main = [], None  # steps: [(N, region)]
	for key, regs in cpu.items():  # tracks in first-met order
		if step_region is None:
			found = [(int(STEP_RE.match(x.name).group(1)), x) for x in regs if STEP_RE.match(x.name)]
		else:
			outer = [x for x in regs
				 if x.name == step_region and not above(x, lambda p: p.name == step_region)]
			found = [(i, x) for i, x in enumerate(sorted(outer, key=lambda x: x.start))]
		if found:
			steps, main = found, key
			break
	acts = [(key[:2], a) for key, regs in rk["gpu"].items() for a in regs]
	whole = not steps
	if whole:
		best = -1
		for key, regs in cpu.items():
			cov = length(union([x.start, x.end] for x in regs if x.depth == 1))
			if cov > best:
				best, main = cov, key
		allr = [x for regs in cpu.values() for x in regs] + [a for _, a in acts]
		if not allr:
			return {}, lambda t: None
		s0, e0 = min(x.start for x in allr), max(x.end for x in allr)
		steps = [(0, Region("[whole run]", "", s0, e0, {}, main))]
	steps.sort(key=lambda x: x[1].start)

	def step_at(t):
		for n, reg in steps:
			if reg.start <= t < reg.end:
				return n
		return None
	own = {n: [] for n, _ in steps}
	for dev, a in acts:
		c = a.args.get("correlation")
		launch = rk["corr"].get(dev[0], {}).get(str(c)) if c is not None else None
		n = step_at(a.start if launch is None else launch)
		if whole:
			n = 0
		if n is not None:
			own[n].append((dev, a))
	devices = sorted({dev for dev, _ in acts})
	all_on = {d: union([a.start, a.end] for dd, a in acts if dd == d) for d in devices}
	comp_on = {d: union([a.start, a.end] for dd, a in acts if dd == d and category(a) == "compute")
		   for d in devices}
	rows = {}
	for n, reg in steps:
		s, e = reg.start, reg.end
		t = max([e] + [a.end for _, a in own[n]]) - s
		if whole:
			kids = [x for x in cpu.get(main, []) if x.depth == 1]
		else:
			# inside = contained: a frame that starts in the step and ends
			# after it (PyTorch 2.11's profiler.py step() frame) is not
			kids = [x for x in cpu[main] if x.parent is reg and x.end <= e]
		row = {"step": n, "time_ns": t,
		       "cpu_ns": length(union([x.start, x.end] for x in kids)),
		       "gpu_compute_ns": 0, "gpu_comm_ns": 0, "gpu_memcpy_ns": 0, "gpu_memset_ns": 0,
		       "gpu_idle_ns": 0, "comm_exposed_ns": 0, "comm_wait_ns": 0, "late_ns": 0,
		       "mpi_ns": mpi_ns(cpu, s, s + t), "bound": "cpu", "_lates": []}
		for d in devices:
			mine = {k: union([a.start, a.end] for dd, a in own[n] if dd == d and category(a) == k)
				for k in ("compute", "comm", "memcpy", "memset")}
			for k in mine:
				row["gpu_%s_ns" % k] += length(mine[k])
			row["gpu_idle_ns"] += t - intersect(all_on[d], s, s + t)
			row["comm_exposed_ns"] += minus(mine["comm"], comp_on[d])
		if devices:
			row["bound"] = ("gpu" if 2 * row["gpu_idle_ns"] < t else
					"launch" if 2 * row["cpu_ns"] >= t else "other")
		rows[n] = row
	return rows, step_at


def mpi_ns(cpu, a, b):
	"""Time of the outermost MPI_* regions of the rank's threads inside [a, b)."""
	tot = 0
	for regs in cpu.values():
		outer = [x for x in regs
			 if x.name.startswith("MPI_") and not above(x, lambda p: p.name.startswith("MPI_"))]
		tot += intersect(union([x.start, x.end] for x in outer), a, b)
	return tot


FIELDS = ("step", "time_ns", "cpu_ns", "gpu_compute_ns", "gpu_comm_ns", "gpu_memcpy_ns", "gpu_memset_ns",
	  "gpu_idle_ns", "comm_exposed_ns", "comm_wait_ns", "late_ns", "mpi_ns", "bound")


def compare(tool, want):
	"""Mismatches (text lines) between the tool's JSON and ours."""
	bad = []
	tr = {r["rank"]: r for r in tool.get("ranks", [])}
	wr = {r["rank"]: r for r in want["ranks"]}
	if sorted(tr) != sorted(wr):
		bad.append("ranks: tool %s, oracle %s" % (sorted(tr), sorted(wr)))
	for r in sorted(set(tr) & set(wr)):
		ts_ = {s.get("step"): s for s in tr[r]["steps"]}
		ws = {s["step"]: s for s in wr[r]["steps"]}
		if [s.get("step") for s in tr[r]["steps"]] != sorted(ws):
			bad.append("rank %s: steps: tool %s, oracle %s" % (r, [s.get("step") for s in tr[r]["steps"]], sorted(ws)))
		for n in sorted(set(ts_) & set(ws), key=str):
			for f in FIELDS:
				if ts_[n].get(f) != ws[n][f]:
					bad.append("rank %s step %s %s: tool %s, oracle %s" % (r, n, f, ts_[n].get(f), ws[n][f]))
	lm = tool.get("run", {}).get("late_min_ns")
	if lm != want["late_min_ns"]:
		bad.append("late_min_ns: tool %s, oracle %s" % (lm, want["late_min_ns"]))
	for f in ("ranks_from", "nranks"):  # "run." lines: what the run says of its inputs
		if tool.get("run", {}).get(f) != want[f]:
			bad.append("run.%s: tool %s, oracle %s" % (f, tool.get("run", {}).get(f), want[f]))
	got = [(s.get("rank"), s.get("step"), s.get("late_ns")) for s in tool.get("stragglers", [])]
	exp = [(s["rank"], s["step"], s["late_ns"]) for s in want["stragglers"]]
	if got != exp:
		bad.append("stragglers (rank, step, late_ns): tool %s, oracle %s" % (got[:10], exp[:10]))
	return bad


def main():
	ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
	ap.add_argument("--step-region")
	ap.add_argument("--late-min", type=int, help="ns")
	ap.add_argument("--compare", metavar="TOOL.json", help="compare with tracefold overview's JSON; exit 1 on a mismatch")
	ap.add_argument("--perturb", metavar="FIELD", help="(self-test) add 1 to FIELD of the first step before --compare")
	ap.add_argument("inputs", nargs="+")
	o = ap.parse_args()
	res = analyse(o.inputs, o.step_region, o.late_min)
	if o.compare is None:
		json.dump(res, sys.stdout, indent=1)
		sys.stdout.write("\n")
		return 0
	if o.perturb:
		row = res["ranks"][0]["steps"][0]
		row[o.perturb] = row[o.perturb] + 1
	with open(o.compare) as f:
		bad = compare(json.load(f), res)
	for line in bad[:20]:
		print(line)
	if len(bad) > 20:
		print("... %d mismatches in all" % len(bad))
	return 1 if bad else 0


if __name__ == "__main__":
	sys.exit(main())
