"""tracefold.record: record a Perfetto trace from Python (docs/record.md, "Python").

    import tracefold.record as tfr

    tfr.start("run.%p.pftrace")          # %p: the process id
    @tfr.trace
    def step(batch):
        with tfr.span("forward", batch=batch, shape={"n": 32, "dims": [8, 16]}):
            ...
        tfr.counter("loss", 0.25)
    ...
    tfr.stop()                          # or at exit: the file is renamed into place

then `tracefold profile run.*.pftrace`, `tracefold overview run.*.pftrace`, or
open a file in ui.perfetto.dev.

This is ctypes over the C library libtracefold-record (include/tracefold/
record.h; `make record`, `make install`), found as $TRACEFOLD_RECORD_LIB (a
path), else the installed libtracefold-record.so.1, else the library built
in the repository this file is in (build/rel/libtracefold-record.so, for
PYTHONPATH=python).  Importing this module raises ImportError, naming what
was tried, when there is none.

Every recording call is a no-op when no recording is open (before start(),
after stop()): decorated functions and spans can stay in the code.
Threads: every call may come from any thread; each thread records onto a
track of its own, named after its threading name.  Processes: a fork child
(multiprocessing's fork and forkserver) opens a recording of its own at its
first event, from the same path pattern (with ".%p" put before the
extension when the pattern had no %p); a spawned child finds the pattern in
the environment (TRACEFOLD_RECORD, set by start()) and does the same.  A
child's file is closed at its exit (multiprocessing's exit function), the
main process's at exit (atexit) or stop().
"""
import atexit
import ctypes
import ctypes.util
import functools
import os
import sys
import threading
import warnings

__all__ = ["Recorder", "Track", "start", "stop", "recorder", "span", "trace", "instant", "counter",
           "flow_begin", "flow_step", "flow_end", "track", "group", "counter_track", "thread_name",
           "process_name", "rank", "flush", "stats", "LIBRARY"]

ENV_PATH = "TRACEFOLD_RECORD"                    # the path pattern: recording starts at import
ENV_BUFFER = "TRACEFOLD_RECORD_BUFFER_BYTES"     # its buffer_bytes
ENV_DROP = "TRACEFOLD_RECORD_DROP"               # "1": drop_when_full


def _load():
    tried = []
    env = os.environ.get("TRACEFOLD_RECORD_LIB", "")
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.join(os.path.dirname(os.path.dirname(here)), "build", "rel", "libtracefold-record.so")
    if env:
        cands = [env]
    else:
        cands = ["libtracefold-record.so.1"]
        found = ctypes.util.find_library("tracefold-record")
        if found and found not in cands:
            cands.append(found)
        cands.append(repo)
    for c in cands:
        try:
            # PyDLL: the calls keep the GIL (they are short), so no Python
            # thread is inside the library while another one closes the
            # recording, nor when the process forks
            return ctypes.PyDLL(c, use_errno=True), c
        except OSError as e:
            tried.append("%s (%s)" % (c, e))
    raise ImportError("tracefold.record: cannot load libtracefold-record; tried %s. Build it with "
                      "'make record' in the tracefold repository and install it ('make install'), or set "
                      "TRACEFOLD_RECORD_LIB=/path/to/libtracefold-record.so" % "; ".join(tried))


_lib, LIBRARY = _load()


class _Opts(ctypes.Structure):
    _fields_ = [("buffer_bytes", ctypes.c_size_t), ("drop_when_full", ctypes.c_int)]


class _Stats(ctypes.Structure):
    _fields_ = [("events", ctypes.c_uint64), ("dropped", ctypes.c_uint64), ("bytes", ctypes.c_uint64),
                ("waits", ctypes.c_uint64), ("threads", ctypes.c_uint32)]


def _decl():
    P, T, S, U, D, I = (ctypes.c_void_p, ctypes.c_uint64, ctypes.c_char_p, ctypes.c_uint64,
                        ctypes.c_double, ctypes.c_int)
    sigs = {
        "tfr_open": (P, [S, ctypes.POINTER(_Opts)]),
        "tfr_open_ex": (P, [S, ctypes.POINTER(_Opts), ctypes.c_uint]),
        "tfr_close": (I, [P]),
        "tfr_flush": (I, [P]),
        "tfr_process_name": (None, [P, S]),
        "tfr_rank": (None, [P, I]),
        "tfr_thread_name": (None, [P, S]),
        "tfr_track_new": (T, [P, T, S]),
        "tfr_counter_track_new": (T, [P, T, S, S]),
        "tfr_begin": (None, [P, T, S]),
        "tfr_end": (None, [P, T]),
        "tfr_instant": (None, [P, T, S]),
        "tfr_counter": (None, [P, T, D]),
        "tfr_flow_begin": (U, [P, T, S]),
        "tfr_flow_step": (None, [P, T, U]),
        "tfr_flow_end": (None, [P, T, U]),
        "tfr_arg_int": (None, [P, S, ctypes.c_int64]),
        "tfr_arg_uint": (None, [P, S, U]),
        "tfr_arg_double": (None, [P, S, D]),
        "tfr_arg_bool": (None, [P, S, I]),
        "tfr_arg_string": (None, [P, S, S]),
        "tfr_arg_dict": (None, [P, S]),
        "tfr_arg_array": (None, [P, S]),
        "tfr_arg_close": (None, [P]),
        "tfr_get_stats": (None, [P, ctypes.POINTER(_Stats)]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(_lib, name)
        f.restype = res
        f.argtypes = args


_decl()
_begin, _end, _instant, _counter = _lib.tfr_begin, _lib.tfr_end, _lib.tfr_instant, _lib.tfr_counter
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1


def _b(s):
    """UTF-8 (Perfetto's strings are): bytes that are not are decoded with
    replacement characters, as are a str's lone surrogates."""
    if isinstance(s, bytes):
        try:
            s.decode("utf-8")
            return s
        except UnicodeDecodeError:
            return s.decode("utf-8", "replace").encode("utf-8")
    return str(s).encode("utf-8", "replace")


# Each call into the library reads the recording's handle (rec._r) as its
# first argument, with nothing but locals after it: no Python code runs
# between that read and the call (which keeps the GIL), so another thread's
# close() (rec._r = None, then tfr_close) cannot free the recording under
# it; a handle read before a Python call (_b, _track) could be closed by
# then (a use after free: stop() while other threads record).
def _arg(rec, key, v, depth):
    """One annotation (key None inside an array)."""
    if isinstance(v, bool):
        b = 1 if v else 0
        _lib.tfr_arg_bool(rec._r, key, b)
    elif isinstance(v, int):
        if _INT64_MIN <= v <= _INT64_MAX:
            _lib.tfr_arg_int(rec._r, key, v)
        elif 0 <= v <= _UINT64_MAX:
            _lib.tfr_arg_uint(rec._r, key, v)
        else:
            b = _b(v)
            _lib.tfr_arg_string(rec._r, key, b)
    elif isinstance(v, float):
        _lib.tfr_arg_double(rec._r, key, v)
    elif isinstance(v, (str, bytes)):
        b = _b(v)
        _lib.tfr_arg_string(rec._r, key, b)
    elif isinstance(v, dict) and depth < 8:
        _lib.tfr_arg_dict(rec._r, key)
        for k, x in v.items():
            _arg(rec, _b(k), x, depth + 1)
        _lib.tfr_arg_close(rec._r)
    elif isinstance(v, (list, tuple)) and depth < 8:
        _lib.tfr_arg_array(rec._r, key)
        for x in v:
            _arg(rec, None, x, depth + 1)
        _lib.tfr_arg_close(rec._r)
    else:
        b = _b(v)
        _lib.tfr_arg_string(rec._r, key, b)


def _args(rec, args):
    for k, v in args.items():
        _arg(rec, _b(k), v, 1)


def _child_pattern(path):
    """The pattern for other processes: path with ".%p" before its
    extension when it has no %p of its own."""
    if "%p" in path.replace("%%", ""):
        return path
    d, base = os.path.split(path)
    stem, ext = os.path.splitext(base)
    if not stem:
        stem, ext = ext, ""
    return os.path.join(d, stem + ".%p" + ext)


class Track:
    """A track (a row of slices in Perfetto) or, when tracks are made under
    it, a group; or a counter track.  A description, made into the
    recording's track at its first use there (in each process anew), so
    tracks can be made before start() and used by fork children."""

    __slots__ = ("name", "parent", "counter", "unit", "__weakref__")

    def __init__(self, name, parent=None, counter=False, unit=None):
        if parent is not None and not isinstance(parent, Track):
            raise TypeError("tracefold.record: a track's parent is a Track, not %r" % (parent,))
        if parent is not None and parent.counter:
            raise ValueError("tracefold.record: a counter track cannot hold tracks")
        self.name, self.parent, self.counter, self.unit = str(name), parent, bool(counter), unit

    def __repr__(self):
        return "Track(%r%s%s)" % (self.name, ", counter" if self.counter else "",
                                  ", parent=%r" % self.parent.name if self.parent else "")


_pid = os.getpid()          # this process (updated in fork children)
_default = None             # the recording of start()
_live = []                  # recordings open in this process
_finalize = [None]          # the pid whose multiprocessing exit closes them


_reopen = threading.Lock()  # a child's first events, from several threads at once


def _after_fork():
    global _pid, _reopen
    _pid = os.getpid()
    _reopen = threading.Lock()
    del _live[:]


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def _close_all():
    for rec in list(_live):
        try:
            rec.close()
        except OSError as e:  # at exit: nobody to raise to
            warnings.warn(str(e), RuntimeWarning)


atexit.register(_close_all)


def _at_mp_exit():
    """A multiprocessing child exits with os._exit after its finalizers:
    close this process's recordings then."""
    if _finalize[0] == _pid or "multiprocessing" not in sys.modules:
        return
    _finalize[0] = _pid
    import multiprocessing.util as mpu
    mpu.Finalize(None, _close_all, exitpriority=-100)


class Recorder:
    """One recording: a Perfetto trace file per process (path: "%p" is the
    process id).  start() makes the default one that the module functions
    use; a Recorder may also be used on its own (the same methods)."""

    def __init__(self, path="trace.%p.pftrace", buffer_bytes=0, drop_when_full=False):
        self.path = os.path.abspath(os.fspath(path))
        self.child_path = _child_pattern(self.path)
        self.buffer_bytes = int(buffer_bytes)
        self.drop_when_full = bool(drop_when_full)
        self._r = None          # the C recording, in process _rpid
        self._rpid = None
        self._gen = 0           # changes at each open and close
        self._stopped = False
        self._uuids = {}        # Track -> its uuid in this recording
        self._named = {}        # str -> Track (span(track="io"), counter("loss", v))
        self._tls = threading.local()
        self._env = False
        self._open(self.path)

    def _open(self, path):
        if self.buffer_bytes < 0:
            raise ValueError("tracefold.record: buffer_bytes must be >= 0")
        opts = _Opts(self.buffer_bytes, 1 if self.drop_when_full else 0)
        r = _lib.tfr_open(os.fsencode(path), ctypes.byref(opts))
        if not r:
            e = ctypes.get_errno()
            raise OSError(e, "tracefold.record: cannot record into %s: %s" % (path, os.strerror(e)))
        self._r, self._rpid, self._opened = r, _pid, path
        self._gen += 1
        self._uuids = {}
        self._tls = threading.local()
        _live.append(self)
        _at_mp_exit()

    def _h(self):
        """The C recording of this process (opened on the first use in a
        fork child), or None."""
        if self._rpid != _pid:
            with _reopen:
                if self._rpid != _pid:
                    if self._stopped:
                        return None
                    try:
                        self._open(self.child_path)
                    except OSError as e:
                        self._stopped = True
                        warnings.warn("%s (this process records nothing)" % e, RuntimeWarning)
                        return None
        r = self._r
        if r is not None and not getattr(self._tls, "named", False):
            self._tls.named = True
            n = _b(threading.current_thread().name)
            _lib.tfr_thread_name(self._r, n)
        return self._r

    def _track(self, r, t):
        """The uuid of track t (None: the thread's, 0; a str: the track of
        that name, made at first use)."""
        if t is None:
            return 0
        if not isinstance(t, Track):
            name = str(t)
            t = self._named.get(name)
            if t is None:
                t = self._named.setdefault(name, Track(name))
        u = self._uuids.get(t)
        if u is None:
            p = self._track(r, t.parent) if t.parent is not None else 0
            n, unit = _b(t.name), None if t.unit is None else _b(t.unit)
            if t.counter:
                u = _lib.tfr_counter_track_new(self._r, p, n, unit)
            else:
                u = _lib.tfr_track_new(self._r, p, n)
            if not u:
                return 0  # closed meanwhile (or out of memory): the thread's track
            u = self._uuids.setdefault(t, u)  # another thread's, if it made it first
        return u

    def _ctrack(self, r, t):
        if not isinstance(t, Track):
            name = str(t)
            t = self._named.get("\0c" + name)
            if t is None:
                t = self._named.setdefault("\0c" + name, Track(name, counter=True))
        elif not t.counter:
            raise ValueError("tracefold.record: counter() needs a counter track, not %r" % (t,))
        return self._track(r, t)

    # ---- life ----
    def close(self):
        """Writes everything, renames the file into place (this process's).
        Raises OSError when a write failed.  Later calls: no-ops."""
        self._stopped = True
        r, self._r = self._r, None
        if r is None or self._rpid != _pid:
            return
        self._gen += 1
        if self in _live:
            _live.remove(self)
        rc = _lib.tfr_close(r)
        if rc:
            raise OSError(-rc, "tracefold.record: writing %s failed: %s"
                          % (self._opened, os.strerror(-rc)))

    def flush(self):
        """Hands this thread's buffer to the writer and waits until all
        handed over is written; raises OSError when a write failed."""
        r = self._h()
        if r is not None:
            rc = _lib.tfr_flush(self._r)
            if rc:
                raise OSError(-rc, "tracefold.record: writing failed: %s" % os.strerror(-rc))

    def stats(self):
        """A dict: events, dropped, bytes (written), waits, threads (of this process)."""
        s = _Stats()
        r = self._r if self._rpid == _pid else None
        if r is not None:
            _lib.tfr_get_stats(r, ctypes.byref(s))
        return {f: getattr(s, f) for f, _ in _Stats._fields_}

    @property
    def closed(self):
        return self._stopped

    # ---- names ----
    def process_name(self, name):
        r = self._h()
        if r is not None:
            n = _b(name)
            _lib.tfr_process_name(self._r, n)

    def rank(self, n):
        """Names this process "rank N": tracefold takes it as rank N."""
        r = self._h()
        if r is not None:
            n = int(n)
            _lib.tfr_rank(self._r, n)

    def thread_name(self, name):
        self._tls.named = True
        r = self._h()
        if r is not None:
            n = _b(name)
            _lib.tfr_thread_name(self._r, n)

    # ---- events ----
    def begin(self, name, track=None, **args):
        r = self._h()
        if r is not None:
            if args:
                _args(self, args)
            t, n = self._track(r, track), _b(name)
            _begin(self._r, t, n)

    def end(self, track=None):
        r = self._h()
        if r is not None:
            t = self._track(r, track)
            _end(self._r, t)

    def span(self, name, track=None, **args):
        return _Span(self, name, track, args)

    def instant(self, name, track=None, **args):
        r = self._h()
        if r is not None:
            if args:
                _args(self, args)
            t, n = self._track(r, track), _b(name)
            _instant(self._r, t, n)

    def counter(self, track, value, **args):
        """A value of a counter track (a counter_track(), or a name: the
        counter track of that name, made at first use)."""
        r = self._h()
        if r is not None:
            if args:
                _args(self, args)
            t, v = self._ctrack(r, track), float(value)
            _counter(self._r, t, v)

    def flow_begin(self, name, track=None, **args):
        """An instant that starts a flow (an arrow to the flow's next
        events); returns the flow's id (0 when not recording)."""
        r = self._h()
        if r is None:
            return 0
        if args:
            _args(self, args)
        t, n = self._track(r, track), _b(name)
        return _lib.tfr_flow_begin(self._r, t, n)

    def flow_step(self, flow, track=None):
        r = self._h()
        if r is not None and flow:
            t = self._track(r, track)
            _lib.tfr_flow_step(self._r, t, flow)

    def flow_end(self, flow, track=None):
        r = self._h()
        if r is not None and flow:
            t = self._track(r, track)
            _lib.tfr_flow_end(self._r, t, flow)


class _Span:
    __slots__ = ("rec", "name", "track", "args", "gen", "r", "t")

    def __init__(self, rec, name, track, args):
        self.rec, self.name, self.track, self.args = rec, name, track, args

    def __enter__(self):
        rec = self.rec if self.rec is not None else _default
        r = rec._h() if rec is not None else None
        self.r = r
        if r is not None:
            if self.args:
                _args(rec, self.args)
            self.t = t = rec._track(r, self.track)
            self.gen = rec._gen
            self.rec = rec
            n = _b(self.name)
            _begin(rec._r, t, n)
        return self

    def __exit__(self, *exc):
        if self.r is not None and self.rec._gen == self.gen:
            t = self.t
            _end(self.rec._r, t)
        return False



def start(path="trace.%p.pftrace", buffer_bytes=0, drop_when_full=False):
    """Opens the default recording (raises RuntimeError when one is open,
    OSError when the file cannot be made) and returns it.  path: "%p" is the
    process id; other processes (multiprocessing workers) record into
    path with ".%p" before its extension when it has no %p.  buffer_bytes:
    buffers handed to the writer and not yet written, at most (0: 8 MiB);
    drop_when_full: drop (and count) events then instead of waiting.
    Sets TRACEFOLD_RECORD* in os.environ for spawned children."""
    global _default
    if _default is not None and _default._env and not _default._stopped:
        return _default  # the environment's (a child of a recording process) wins
    if _default is not None and not _default._stopped:
        raise RuntimeError("tracefold.record: a recording is open (into %s); stop() it first" % _default.path)
    _default = Recorder(path, buffer_bytes, drop_when_full)
    os.environ[ENV_PATH] = _default.child_path
    os.environ[ENV_BUFFER] = str(_default.buffer_bytes)
    os.environ[ENV_DROP] = "1" if _default.drop_when_full else "0"
    return _default


def stop():
    """Closes the default recording (its file renamed into place; OSError
    when a write failed) and unsets TRACEFOLD_RECORD*.  No-op when none."""
    global _default
    rec, _default = _default, None
    for k in (ENV_PATH, ENV_BUFFER, ENV_DROP):
        os.environ.pop(k, None)
    if rec is not None:
        rec.close()


def recorder():
    """The default recording (None before start(), after stop())."""
    return _default


def _rec():
    return _default


def span(name, track=None, **args):
    """A context manager: a slice named name on the calling thread's track
    (or track: a Track or a track's name) with args as its annotations (int,
    float, bool, str, nested dict and list)."""
    return _Span(None, name, track, args)


def trace(fn=None, name=None, track=None):
    """A decorator: each call of the function is a slice named after its
    qualified name (Class.method), or name: @trace, @trace("name"),
    @trace(name=..., track=...)."""
    if isinstance(fn, str):
        fn, name = None, fn
    if fn is None:
        return lambda f: trace(f, name=name, track=track)
    if isinstance(fn, (staticmethod, classmethod)):
        return type(fn)(trace(fn.__func__, name=name, track=track))
    bname = _b(name if name is not None else getattr(fn, "__qualname__", getattr(fn, "__name__", "?")))

    @functools.wraps(fn)
    def traced(*a, **k):
        rec = _default
        r = rec._h() if rec is not None else None
        if r is None:
            return fn(*a, **k)
        t = rec._track(r, track) if track is not None else 0
        gen = rec._gen
        _begin(rec._r, t, bname)
        try:
            return fn(*a, **k)
        finally:
            if rec._gen == gen:
                _end(rec._r, t)
    return traced


def instant(name, track=None, **args):
    rec = _default
    if rec is not None:
        rec.instant(name, track, **args)


def counter(track, value, **args):
    """A value on a counter track: a counter_track() or a name (the counter
    track of that name, made at first use)."""
    rec = _default
    if rec is not None:
        rec.counter(track, value, **args)


def flow_begin(name, track=None, **args):
    rec = _default
    return rec.flow_begin(name, track, **args) if rec is not None else 0


def flow_step(flow, track=None):
    rec = _default
    if rec is not None:
        rec.flow_step(flow, track)


def flow_end(flow, track=None):
    rec = _default
    if rec is not None:
        rec.flow_end(flow, track)


def track(name, parent=None):
    """A track of slices (span(..., track=t)) under parent (a group) or
    the process."""
    return Track(name, parent)


group = track  # a track that holds tracks: track(name, parent=group)


def counter_track(name, unit=None, parent=None):
    """A counter track; unit: "ns", "count", "bytes" or any name."""
    return Track(name, parent, counter=True, unit=unit)


def thread_name(name):
    rec = _default
    if rec is not None:
        rec.thread_name(name)


def process_name(name):
    rec = _default
    if rec is not None:
        rec.process_name(name)


def rank(n):
    """Names this process "rank N" (tracefold takes it as rank N)."""
    rec = _default
    if rec is not None:
        rec.rank(n)


def flush():
    rec = _default
    if rec is not None:
        rec.flush()


def stats():
    rec = _default
    return rec.stats() if rec is not None else None


def _from_env():
    """A spawned child (or a program run with TRACEFOLD_RECORD=pattern):
    the default recording, opened at its first event."""
    global _default
    path = os.environ.get(ENV_PATH, "")
    if not path:
        return
    try:
        buf = int(os.environ.get(ENV_BUFFER, "0") or 0)
    except ValueError:
        buf = 0
    rec = Recorder.__new__(Recorder)
    rec.path = rec.child_path = _child_pattern(os.path.abspath(path))
    rec.buffer_bytes, rec.drop_when_full = max(buf, 0), os.environ.get(ENV_DROP, "0") == "1"
    rec._r, rec._rpid, rec._gen, rec._stopped = None, -1, 0, False
    rec._uuids, rec._named, rec._tls, rec._env = {}, {}, threading.local(), True
    _default = rec


_from_env()
