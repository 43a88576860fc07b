"""A training-loop-like toy recorded with tracefold.record (docs/record.md, "Python").

A loader thread produces batches into a queue (each one a flow from the
loader's "load" to the step that takes it); the main thread trains for
STEPS steps: forward, backward and an optimizer step (decorated functions
and a method), a loss and the queue's depth as counters, a checkpoint on a
track of an "io" group every 4 steps.

    PYTHONPATH=python python3 tests/data/record/example.py tests/data/record/example-py.pftrace
    ./tracefold top tests/data/record/example-py.pftrace
    ./tracefold overview tests/data/record/example-py.pftrace

Standard library only; the work is small arithmetic, so the file stays
small and the run takes well under a second.
"""
import math
import queue
import sys
import threading

import tracefold.record as tfr

STEPS = 12
BATCH = 64

IO = tfr.group("io")
CKPT = tfr.track("checkpoint", parent=IO)
QDEPTH = tfr.counter_track("queue depth", unit="count")
LOSS = tfr.counter_track("loss")


@tfr.trace
def load_batch(i):
    """A batch: BATCH pairs (x, 3x + 1 + noise)."""
    xs = [((i * BATCH + k) % 97) / 97.0 for k in range(BATCH)]
    return [(x, 3.0 * x + 1.0 + 0.01 * math.sin(7 * x + i)) for x in xs]


def loader(q, steps):
    tfr.thread_name("loader")
    for i in range(steps):
        with tfr.span("load", batch=i):
            b = load_batch(i)
            flow = tfr.flow_begin("batch ready", batch=i)
        q.put((i, b, flow))
        tfr.counter(QDEPTH, q.qsize())
    q.put(None)


class Linear:
    def __init__(self):
        self.w, self.b = 0.0, 0.0
        self.gw = self.gb = 0.0

    @tfr.trace
    def forward(self, batch):
        return [(self.w * x + self.b, y, x) for x, y in batch]

    @tfr.trace
    def backward(self, out):
        n = len(out)
        self.gw = sum(2 * (p - y) * x for p, y, x in out) / n
        self.gb = sum(2 * (p - y) for p, y, _ in out) / n
        return sum((p - y) ** 2 for p, y, _ in out) / n


@tfr.trace("optimizer.step")
def sgd(model, lr):
    model.w -= lr * model.gw
    model.b -= lr * model.gb


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "example.%p.pftrace"
    tfr.start(path)
    tfr.rank(0)
    model, q = Linear(), queue.Queue(maxsize=4)
    t = threading.Thread(target=loader, args=(q, STEPS))
    t.start()
    step = 0
    while True:
        with tfr.span("wait for batch"):
            item = q.get()
        if item is None:
            break
        i, batch, flow = item
        with tfr.span("train_step", step=step, cfg={"lr": 0.5, "batch": BATCH, "model": "linear"}):
            tfr.flow_end(flow)
            tfr.counter(QDEPTH, q.qsize())
            out = model.forward(batch)
            loss = model.backward(out)
            sgd(model, 0.5)
            tfr.counter(LOSS, loss)
        if step % 4 == 3:
            with tfr.span("save", track=CKPT, step=step, w=model.w, b=model.b):
                _ = repr((model.w, model.b))
        step += 1
    t.join()
    tfr.stop()
    print("%d steps, w=%.3f b=%.3f" % (step, model.w, model.b))


if __name__ == "__main__":
    main()
