"""A small training-like loop that traces its own regions as Chrome
trace-event JSON (X events; pid and tid the OS ids; ts in microseconds of
CLOCK_MONOTONIC), recorded under `perf record -k CLOCK_MONOTONIC -g`, so
that perf's samples and the regions share threads and clock."""
import json, os, sys, threading, time
import torch

torch.set_num_threads(1)
events = []
lock = threading.Lock()


class region:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.t0 = time.monotonic_ns()

    def __exit__(self, *a):
        t1 = time.monotonic_ns()
        with lock:
            events.append({"name": self.name, "ph": "X", "pid": os.getpid(), "tid": threading.get_native_id(),
                           "ts": self.t0 / 1000, "dur": (t1 - self.t0) / 1000, "cat": "region"})


x = torch.randn(32, 3, 64, 64)
w = torch.randn(16, 3, 3, 3)
a = torch.randn(384, 384)


def worker():
    with region("worker_loop"):
        for _ in range(40):
            with region("worker_matmul"):
                (a @ a).sum()


def spin_python(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


t = threading.Thread(target=worker, name="worker")
t.start()
for i in range(12):
    with region("step"):
        with region("conv"):
            torch.nn.functional.conv2d(x, w).relu()
        with region("matmul"):
            for _ in range(6):
                a @ a
        with region("python_loop"):
            spin_python(60000)
    time.sleep(0.01)  # between steps: no region open
t.join()
meta = [{"name": "thread_name", "ph": "M", "pid": os.getpid(), "tid": tid, "args": {"name": n}}
        for tid, n in {threading.get_native_id(): "main"}.items()]
with open(sys.argv[1], "w") as f:
    json.dump({"traceEvents": events + meta, "displayTimeUnit": "ms"}, f)
