#!/usr/bin/env python3
"""torch_hook_train.py - a tiny CPU training loop profiled with
tracefold.torch.trace_handler, for tests/e2e/torch_hook.sh.

usage: torch_hook_train.py DIR [--worker W] [--gzip] [--overview-format F]
                           [--strict] [--warnings-are-errors] [--steps N]

10 steps of a 2-layer MLP under torch.profiler.profile(CPU,
schedule(wait=1, warmup=1, active=3, repeat=2)).  Prints one JSON object:
pid, hostname, the profiler's step_num at each on_trace_ready call and the
handler's traces, profiles, overviews, merged and failures (as text)."""
import argparse, json, os, socket, sys, warnings

import torch
from torch.profiler import ProfilerActivity, profile, schedule

import tracefold.torch

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("--worker")
ap.add_argument("--gzip", action="store_true")
ap.add_argument("--overview-format", default="html")
ap.add_argument("--strict", action="store_true")
ap.add_argument("--warnings-are-errors", action="store_true")
ap.add_argument("--steps", type=int, default=10)
a = ap.parse_args()
if a.warnings_are_errors:
    warnings.simplefilter("error", tracefold.torch.TracefoldWarning)

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 8), torch.randn(32, 1)
h = tracefold.torch.trace_handler(a.dir, worker_name=a.worker, use_gzip=a.gzip,
                                  overview_format=a.overview_format, strict=a.strict)
step_nums = []


def on_trace_ready(prof):
    step_nums.append(prof.step_num)
    h(prof)


with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=3, repeat=2),
             on_trace_ready=on_trace_ready) as prof:
    for _ in range(a.steps):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        prof.step()
json.dump({"pid": os.getpid(), "hostname": socket.gethostname(), "step_nums": step_nums,
           "traces": h.traces, "profiles": h.profiles, "overviews": h.overviews, "merged": h.merged,
           "failures": [str(e) for e in h.failures], "worker": h.worker_name}, sys.stdout)
print()
