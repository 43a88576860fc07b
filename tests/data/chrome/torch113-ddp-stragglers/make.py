"""Make real multi-rank DDP traces with known stragglers: four CPU
processes (gloo) train a small DistributedDataParallel MLP for 8 steps, each
rank profiled with torch.profiler under schedule(wait=1, warmup=1, active=6)
so that its trace has ProfilerStep#2..#7, and written with
export_chrome_trace.  Every step of every rank first "loads its batch"
(sleeps LOAD inside record_function "load_batch", as a data loader would):
the four processes share two cores here, so the CPU part of the step is
kept small, and the sleep makes the step long next to how unevenly the
ranks reach the all_reduce when nothing is injected.  Two runs:
  delayed/  rank 2 sleeps DELAY in every step, rank 1 in step 5 only (the
            4th active step), each sleep inside record_function
            "injected_delay" before the forward pass, so that the rank
            reaches DDP's gradient all_reduce late;
  nodelay/  the same without any sleep.
Run: /usr/bin/python3 make.py OUTDIR   (then gzip -9n OUTDIR/*/*.json)"""
import os
import sys
import time
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.profiler import profile, schedule, record_function, ProfilerActivity

WORLD = 4
DELAY = 0.080		# seconds
LOAD = 0.100		# seconds, every rank, every step
STEPS = 8		# wait 1 + warmup 1 + active 6
LATE_STEP = 5		# rank 1's one delayed step: the 4th active one (2..7)
WIDTH = 128		# about 4 ms of CPU per step (one thread)
BATCH = 32


def delayed(rank, step, config):
	if config != "delayed":
		return False
	return rank == 2 or (rank == 1 and step == LATE_STEP)


def run(rank, world, out, initfile, config):
	torch.manual_seed(0)
	torch.set_num_threads(1)
	dist.init_process_group("gloo", init_method="file://" + initfile, rank=rank, world_size=world)
	net = torch.nn.Sequential(
		torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU(),
		torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU(),
		torch.nn.Linear(WIDTH, 10))
	model = torch.nn.parallel.DistributedDataParallel(net)
	opt = torch.optim.SGD(model.parameters(), lr=0.01)
	x = torch.randn(BATCH, WIDTH)
	y = torch.randint(0, 10, (BATCH,))
	loss_fn = torch.nn.CrossEntropyLoss()

	def step():
		opt.zero_grad()
		loss_fn(model(x), y).backward()
		opt.step()

	# two steps before the profiler: DDP rebuilds its buckets (a broadcast
	# from rank 0) after the first, and none of that is in the trace
	for _ in range(2):
		step()
	dist.barrier()
	path = os.path.join(out, config, "rank%d.pt.trace.json" % rank)
	with profile(activities=[ProfilerActivity.CPU],
		     schedule=schedule(wait=1, warmup=1, active=6),
		     on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
		for i in range(STEPS):
			if delayed(rank, i, config):
				with record_function("injected_delay"):
					time.sleep(DELAY)
			with record_function("load_batch"):
				time.sleep(LOAD)
			step()
			prof.step()
	dist.barrier()
	dist.destroy_process_group()


if __name__ == "__main__":
	out = sys.argv[1]
	for config in ("delayed", "nodelay"):
		os.makedirs(os.path.join(out, config), exist_ok=True)
		initfile = os.path.join(os.path.abspath(out), "init")
		if os.path.exists(initfile):
			os.remove(initfile)
		mp.spawn(run, args=(WORLD, out, initfile, config), nprocs=WORLD)
		if os.path.exists(initfile):
			os.remove(initfile)
