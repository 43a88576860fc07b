"""The Python recording binding's test program (tests/e2e/record_py.sh):
records into DIR/run.%p.pftrace with tracefold.record (decorator, spans
with nested annotations, counters, a flow between threads, tracks and
groups, 4 threads, multiprocessing workers started by fork, spawn and
forkserver) and prints what it did as JSON: the calls of each function
(all processes together), the processes, their ranks, the annotations.

usage: record_py_prog.py DIR
"""
import json
import multiprocessing as mp
import os
import queue
import sys
import threading

import tracefold.record as tfr

IO = tfr.group("io")
READ = tfr.track("read", parent=IO)
WRITE = tfr.track("write", parent=IO)
QDEPTH = tfr.counter_track("queue depth", unit="count")


@tfr.trace
def leaf(i):
    return i * 3


@tfr.trace("compute")
def compute(n):
    return sum(leaf(i) for i in range(n))


class Model:
    @tfr.trace
    def forward(self, x):
        return compute(x)

    @tfr.trace
    @staticmethod
    def loss(v):
        return v / 7.0


def worker(rank, n, method):
    """A multiprocessing worker (module level: spawn imports it)."""
    tfr.rank(rank)
    for i in range(n):
        with tfr.span("worker_step", step=i, method=method):
            Model().forward(2)
    tfr.counter("worker_loss", 0.5 * rank)


def thread_main(k, reps):
    for i in range(reps):
        with tfr.span("thread_step", thread=k, i=i):
            compute(1)


def main():
    out = sys.argv[1]
    tfr.start(os.path.join(out, "run.%p.pftrace"))
    tfr.rank(0)
    calls = {}

    def add(name, n=1):
        calls[name] = calls.get(name, 0) + n

    m = Model()
    for step in range(5):
        with tfr.span("train_step", step=step, ok=step % 2 == 0,
                      cfg={"lr": 0.125, "layers": [8, 16, step], "name": "mlp", "big": 2 ** 64 - 1}):
            m.forward(3)
            add("train_step"), add("Model.forward"), add("compute"), add("leaf", 3)
            v = Model.loss(float(step))
            add("Model.loss")
            tfr.counter("loss", v, step=step)
            tfr.counter(QDEPTH, step)
        with tfr.span("read_batch", track=READ, bytes=4096):
            add("read_batch")
        with tfr.span("write_ckpt", track=WRITE):
            add("write_ckpt")
    tfr.instant("checkpoint", path="/tmp/x")

    # a flow from a producer thread to a consumer
    q = queue.Queue()

    def producer():
        tfr.thread_name("producer")
        for i in range(3):
            with tfr.span("produce", item=i):
                q.put((i, tfr.flow_begin("enqueue", item=i)))
        q.put(None)

    def consumer():
        tfr.thread_name("consumer")
        while True:
            it = q.get()
            if it is None:
                break
            with tfr.span("consume", item=it[0]):
                tfr.flow_end(it[1])

    ts = [threading.Thread(target=producer), threading.Thread(target=consumer)]
    ts += [threading.Thread(target=thread_main, args=(k, 4 + k), name="worker-%d" % k) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    add("produce", 3), add("consume", 3)
    for k in range(4):
        add("thread_step", 4 + k), add("compute", 4 + k), add("leaf", 4 + k)

    # workers: ranks 1..5
    procs, rank = [], 1
    for method, nw in (("fork", 2), ("spawn", 2), ("forkserver", 1)):
        ctx = mp.get_context(method)
        for _ in range(nw):
            n = rank + 1
            p = ctx.Process(target=worker, args=(rank, n, method))
            procs.append(p)
            add("worker_step", n), add("Model.forward", n), add("compute", n), add("leaf", 2 * n)
            p.start()
            rank += 1
    for p in procs:
        p.join()
        if p.exitcode != 0:
            sys.exit("worker exited with %s" % p.exitcode)
    st = tfr.stats()
    tfr.stop()
    json.dump({"calls": calls, "processes": 1 + len(procs), "ranks": list(range(rank)),
               "threads": st["threads"], "dropped": st["dropped"]}, sys.stdout, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
