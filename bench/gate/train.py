#!/usr/bin/python3
"""A small PyTorch training loop recorded with torch.profiler: the real runs
behind docs/gate.md and tests/data/gate/.

    /usr/bin/python3 bench/gate/train.py OUT.json [--steps N] [--slow-mm PCT]
                                         [--host-us US] [--memory]

Each run is a separate process.  Runs of identical code (no options) give
the A/A comparisons; --slow-mm PCT makes one op (`aten::bmm`, a projection
in `forward`, about a fifth of the step) do PCT% more work (its
left operand has PCT% more rows); --host-us US adds US microseconds of
Python work to the `data` region of every step.  The profiler schedule
skips one step, warms up one and records N (ProfilerStep#2..#N+1), with
Python stacks (with_stack: frames such as "<built-in method ... object at
0x...>" whose addresses differ in every process).
"""
import argparse
import time

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--steps", type=int, default=20)
ap.add_argument("--slow-mm", type=float, default=0.0)
ap.add_argument("--host-us", type=float, default=0.0)
ap.add_argument("--memory", action="store_true")
ap.add_argument("--seed", type=int, default=0)
a = ap.parse_args()

torch.set_num_threads(1)
torch.manual_seed(a.seed)
D, H, B = 256, 512, 32
model = torch.nn.Sequential(torch.nn.Linear(D, H), torch.nn.ReLU(), torch.nn.Linear(H, H), torch.nn.ReLU(),
                            torch.nn.Linear(H, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = torch.nn.CrossEntropyLoss()
rows = int(round(96 * (1 + a.slow_mm / 100.0)))
proj = torch.randn(1, H, H)


def host_work(us):
    end = time.perf_counter() + us / 1e6
    x = 0
    while time.perf_counter() < end:
        x += 1
    return x


def one_step():
    with record_function("data"):
        x = torch.randn(B, D)
        y = torch.randint(0, 10, (B,))
        if a.host_us:
            host_work(a.host_us)
    with record_function("forward"):
        out = model(x)
        loss = loss_fn(out, y)
        # the projection (aten::bmm): rows x H times H x H, its work grows with rows
        z = torch.bmm(torch.ones(1, rows, H), proj)
        loss = loss + z.sum() * 0.0
    with record_function("backward"):
        loss.backward()
    with record_function("optimizer"):
        opt.step()
        opt.zero_grad()
    return loss.item()


for _ in range(3):  # outside the profiler: first-call costs
    one_step()
with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=a.steps),
             with_stack=True, profile_memory=a.memory) as prof:
    for _ in range(a.steps + 2):
        one_step()
        prof.step()
prof.export_chrome_trace(a.out)
