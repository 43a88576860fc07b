"""Traces of a training loop while background Python threads only wait.

Run with python3-torch 1.13 (CPU) under /usr/bin/python3:
    /usr/bin/python3 make.py KINETO_SHAPED.json.gz LEGACY.json.gz
(from the repository's root: tests/data/chrome/torch113-waiting-threads/
kineto-shaped.json.gz and tests/data/chrome/torch113-legacy-threads/
legacy.json.gz).

Both come from one run: a small MLP trained for 4 steps on the main thread,
recorded, then 4 more steps profiled, while background threads block for
the whole profile, as torch.compile's
compile workers do (queue.get, a socket recv, a time.sleep loop,
threading.Event.wait), beside a busy pure-Python thread and a thread that
waits but runs one torch op.

LEGACY: torch.profiler.profile(with_stack=True)'s own Chrome trace.
Debian's torch 1.13 is built without Kineto (torch.autograd.kineto_available()
is False), so the profiler falls back to the legacy exporter: operators
only, no categories, no Python frames and no background thread at all.

KINETO_SHAPED: the same run recorded as Kineto writes it with
with_stack=True: each thread's Python frames as X events of category
python_function ("file.py(line): name", C calls as the repr of the
function), with "Python id" / "Python parent id", recorded with
threading.setprofile / sys.setprofile, the hook PyTorch's Python tracer
uses (frames still open at the end last until then, as Kineto writes
them); the main thread's torch calls as cpu_op events (the time of the
call, inside its C-call frame) and each step as a user_annotation
ProfilerStep#N."""
import gzip, json, os, queue, socket, sys, threading, time
import torch
from torch.profiler import profile, ProfilerActivity

kineto_out, legacy_out = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
torch.set_num_threads(1)
now = time.perf_counter_ns
rec = {}      # thread ident -> list of (kind, name, t)
names = {}    # thread ident -> (native id, name)

def hook(frame, event, arg):
	t = now()
	if event == "call":
		c = frame.f_code
		name = "%s(%d): %s" % (os.path.basename(c.co_filename), c.co_firstlineno, c.co_name)
	elif event == "c_call":
		name = repr(arg)
	elif event in ("return", "c_return", "c_exception"):
		name = None
	else:
		return
	rec.setdefault(threading.get_ident(), []).append((name, t))

q = queue.Queue()
a, b = socket.socketpair()
ev = threading.Event()
stop = threading.Event()

def q_worker():
	q.get()

def recv_worker():
	b.recv(1)

def sleep_worker():
	while not stop.is_set():
		time.sleep(0.02)

def event_worker():
	ev.wait()

def work(n):
	s = 0
	for i in range(n):
		s += i * i % 7
	return s

def busy_worker():
	while not stop.is_set():
		sorted(str(work(5000)))

def op_worker():
	ev.wait(0.1)
	op("aten::ones", torch.ones, 4)
	ev.wait()

ops = []      # (thread, name, start, end)
steps = []

def op(name, fn, *args):
	t0 = now()
	r = fn(*args)
	ops.append((threading.get_ident(), name, t0, now()))
	return r

model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 16)
y = torch.randn(8, 4)
threading.setprofile(hook)
ths = [threading.Thread(target=f, name=f.__name__, daemon=True)
       for f in (q_worker, recv_worker, sleep_worker, event_worker, busy_worker, op_worker)]
def train(step):
	s0 = now()
	op("Optimizer.zero_grad#SGD.zero_grad", opt.zero_grad)
	out = op("aten::linear", model, x)
	loss = op("aten::mse_loss", torch.nn.functional.mse_loss, out, y)
	op("autograd::engine::evaluate_function", loss.backward)
	op("Optimizer.step#SGD.step", opt.step)
	time.sleep(0.03)
	steps.append((step, s0, now()))

train(-1) # warm up, not recorded
ops.clear()
steps.clear()
# first the Kineto-shaped recording (PyTorch's own Python tracer and this
# hook cannot run at once: both are the interpreter's one profile function)
start = now()
sys.setprofile(hook)
for t in ths:
	t.start()
for step in range(4):
	train(step)
end = now()
sys.setprofile(None)
threading.setprofile(None)
# then torch.profiler, the background threads still blocked
with profile(activities=[ProfilerActivity.CPU], with_stack=True) as prof:
	for step in range(4):
		train(step)
for t in ths:
	names[t.ident] = (t.native_id, t.name)
names[threading.main_thread().ident] = (threading.get_native_id(), "MainThread")
q.put(1); a.send(b"x"); ev.set(); stop.set()
for t in ths:
	t.join()
ops = [o for o in ops if o[3] <= end]
steps = [s for s in steps if s[2] <= end]

tmp = legacy_out + ".tmp.json"
prof.export_chrome_trace(tmp)
with open(tmp, "rb") as f, gzip.GzipFile(legacy_out, "wb", mtime=0) as g:
	g.write(f.read())
os.remove(tmp)

pid = os.getpid()
us = lambda t: round((t - start) / 1000.0, 3)  # exact: ns as microseconds with 3 decimals
dur = lambda t0, t1: round((t1 - t0) / 1000.0, 3)
evs = []
pyid = [0]
for ident, seq in rec.items():
	if ident not in names:
		continue
	tid, tname = names[ident]
	stack = []
	frames = []
	for name, t in seq:
		if t > end:
			break
		if name is not None:
			pyid[0] += 1
			stack.append([name, t, pyid[0], stack[-1][2] if stack else None])
		elif stack:
			frames.append(stack.pop() + [t])
	while stack: # still open when the profile ended: until its end
		frames.append(stack.pop() + [end])
	for name, t0, i, parent, t1 in frames:
		if name.startswith(("<built-in method setprofile", "<built-in function setprofile",
				     "<built-in function perf_counter_ns")):
			continue  # this script's own instrumentation
		evs.append({"ph": "X", "cat": "python_function", "name": name, "pid": pid, "tid": tid,
			    "ts": us(t0), "dur": dur(t0, t1),
			    "args": {"Python parent id": parent, "Python id": i}})
	for th, name, t0, t1 in ops: # inside the C call that ran it, as Kineto nests them
		if th == ident:
			evs.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": pid, "tid": tid,
				    "ts": us(t0 + 1), "dur": dur(t0 + 1, t1 - 1), "args": {}})
	if tname == "MainThread":
		for n, t0, t1 in steps:
			evs.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % n, "pid": pid,
				    "tid": tid, "ts": us(t0), "dur": dur(t0, t1), "args": {}})
	evs.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": pid, "tid": tid,
		    "args": {"name": "thread %d (%s)" % (tid, tname)}})
evs.append({"name": "process_name", "ph": "M", "ts": 0, "pid": pid, "tid": 0, "args": {"name": "python3"}})
evs.sort(key=lambda e: (e["tid"], e["ts"]))
doc = {"schemaVersion": 1, "traceEvents": evs}
with gzip.GzipFile(kineto_out, "wb", mtime=0) as g:
	g.write(json.dumps(doc, separators=(",", ":")).encode())
