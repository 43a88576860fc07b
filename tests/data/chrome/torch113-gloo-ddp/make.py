"""Make a small real trace of gloo collectives: two CPU processes, a tiny
DistributedDataParallel model plus explicit all_reduce / all_gather /
broadcast, each rank profiled with torch.profiler and exported with
export_chrome_trace.  Run: /usr/bin/python3 make.py OUTDIR"""
import os
import sys
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.profiler import profile, ProfilerActivity


def run(rank, world, out, initfile):
	torch.manual_seed(0)
	dist.init_process_group("gloo", init_method="file://" + initfile, rank=rank, world_size=world)
	model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 32))
	opt = torch.optim.SGD(model.parameters(), lr=0.01)
	x = torch.randn(16, 64)
	with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
		for _ in range(3):
			opt.zero_grad()
			model(x).sum().backward()
			opt.step()
		t = torch.ones(1024)
		dist.all_reduce(t)
		dist.broadcast(torch.ones(256, dtype=torch.int64), src=0)
		outs = [torch.zeros(128) for _ in range(world)]
		dist.all_gather(outs, torch.ones(128))
		dist.barrier()
	prof.export_chrome_trace(os.path.join(out, "rank%d.pt.trace.json" % rank))
	dist.destroy_process_group()


if __name__ == "__main__":
	out = sys.argv[1]
	initfile = os.path.join(os.path.abspath(out), "init")
	if os.path.exists(initfile):
		os.remove(initfile)
	mp.spawn(run, args=(2, out, initfile), nprocs=2)
	os.remove(initfile) if os.path.exists(initfile) else None
