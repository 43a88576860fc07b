"""tracefold.torch: a PyTorch profiler hook that turns every trace into
pprof profiles and overviews as it is written (docs/python.md).

    import torch, tracefold.torch
    with torch.profiler.profile(
            schedule=torch.profiler.schedule(wait=1, warmup=1, active=3, repeat=2),
            on_trace_ready=tracefold.torch.trace_handler("prof")) as prof:
        for batch in loader:
            train_step(batch)
            prof.step()

This module does not import torch (it only calls the profiler object's
export_chrome_trace), so it works with any torch that has
torch.profiler.profile, and importing it costs nothing.
"""
import logging
import os
import socket
import time
import warnings

from . import TracefoldError, run

__all__ = ["trace_handler", "TraceHandler", "TracefoldWarning"]

OUTPUTS = ("pprof", "overview")
OVERVIEW_FORMATS = ("html", "md", "json")
log = logging.getLogger("tracefold")


class TracefoldWarning(UserWarning):
    """A trace could not be converted (or the profiles merged); the trace
    file is kept and training goes on."""


class TraceHandler:
    """The callable that trace_handler returns (see there).  After a run:

    traces     the trace files written, in order (absolute paths)
    profiles   the per-trace pprof profiles made (<stem>.pb.gz)
    overviews  the per-trace overviews made (<stem>.overview.<format>)
    merged     the run's merged profile <worker>.pb.gz, or None before one
               was written
    failures   one TracefoldError per conversion or merge that failed
    """

    def __init__(self, dir_name, outputs=OUTPUTS, worker_name=None, use_gzip=False, merged=True,
                 overview_format="html", strict=False, profile_args=()):
        if isinstance(outputs, str):
            outputs = (outputs,)
        outputs = tuple(outputs)
        bad = [o for o in outputs if o not in OUTPUTS]
        if bad:
            raise ValueError("trace_handler: unknown output %r (known: %s)" % (bad[0], ", ".join(OUTPUTS)))
        if overview_format not in OVERVIEW_FORMATS:
            raise ValueError("trace_handler: overview_format must be one of %s, not %r"
                             % (", ".join(OVERVIEW_FORMATS), overview_format))
        if isinstance(profile_args, str):
            raise TypeError("trace_handler: profile_args is a sequence of arguments, not a string")
        self.dir_name = os.path.abspath(os.fspath(dir_name))
        self.outputs = outputs
        self.worker_name = worker_name
        self.use_gzip = use_gzip
        self.merge_profiles = merged and "pprof" in outputs
        self.overview_format = overview_format
        self.strict = strict
        self.profile_args = [os.fspath(a) for a in profile_args]
        self.traces = []
        self.profiles = []
        self.overviews = []
        self.merged = None
        self.failures = []
        self._pending = []  # profiles not yet in the merged profile

    # the file names, as torch.profiler.tensorboard_trace_handler makes them
    def _worker(self):
        if not self.worker_name:
            self.worker_name = "{}_{}".format(socket.gethostname(), os.getpid())
        return self.worker_name

    def _trace_name(self):
        ext = ".pt.trace.json.gz" if self.use_gzip else ".pt.trace.json"
        ms = int(time.time() * 1000)
        # two traces in one millisecond (or a file left there) get the next free one
        while os.path.exists(os.path.join(self.dir_name, "%s.%d%s" % (self._worker(), ms, ext))):
            ms += 1
        return "%s.%d" % (self._worker(), ms), ext

    def __call__(self, prof):
        try:
            os.makedirs(self.dir_name, exist_ok=True)
        except OSError as e:
            raise RuntimeError("Can't create directory: %s (%s)" % (self.dir_name, e)) from e
        stem, ext = self._trace_name()
        trace = os.path.join(self.dir_name, stem + ext)
        # torch decides gzip by the name's ending: the temporary name keeps it
        tmp = os.path.join(self.dir_name, ".%s.partial%s" % (stem, ".json.gz" if self.use_gzip else ".json"))
        try:
            prof.export_chrome_trace(tmp)
            os.replace(tmp, trace)
        except BaseException:
            _remove(tmp)
            raise
        self.traces.append(trace)
        base = os.path.join(self.dir_name, stem)
        if "pprof" in self.outputs:
            out = base + ".pb.gz"
            if self._run(["profile", trace, "--label-steps"] + self.profile_args + ["-o", out],
                         "convert %s to a profile" % trace):
                self.profiles.append(out)
                self._pending.append(out)
        if "overview" in self.outputs:
            out = "%s.overview.%s" % (base, self.overview_format)
            if self._run(["overview", trace, "-o", out], "write the overview of %s" % trace):
                self.overviews.append(out)
        if self.merge_profiles and self._pending:
            self._merge()

    def _merge(self):
        """<worker>.pb.gz := the merged profile so far + the new profiles,
        written aside and renamed."""
        target = os.path.join(self.dir_name, self._worker() + ".pb.gz")
        tmp = os.path.join(self.dir_name, ".%s.merging.pb.gz" % self._worker())
        inputs = ([self.merged] if self.merged else []) + self._pending
        if self._run(["merge"] + inputs + ["-o", tmp], "merge %s into %s" % (", ".join(self._pending), target)):
            try:
                os.replace(tmp, target)
            except OSError as e:
                _remove(tmp)
                self._fail(TracefoldError("cannot rename %s to %s: %s" % (tmp, target, e)),
                           "merge into %s" % target)
                return
            self.merged = target
            self._pending = []
        else:
            _remove(tmp)

    def _run(self, args, what):
        try:
            res = run(args)
        except TracefoldError as e:
            self._fail(e, what)
            return False
        if res.stderr.strip():
            log.info("tracefold %s: %s", args[0], res.stderr.strip())
        return True

    def _fail(self, err, what):
        self.failures.append(err)
        if self.strict:
            raise err
        warnings.warn(TracefoldWarning("tracefold could not %s (the trace is kept): %s" % (what, err)),
                      stacklevel=4)

    def close(self):
        """Merges the profiles whose merge failed before (if any) and returns
        the merged profile's path (None when there is none).  Not needed
        otherwise: the merged profile is brought up to date after each
        trace."""
        if self.merge_profiles and self._pending:
            self._merge()
        return self.merged

    def __repr__(self):
        return "TraceHandler(%r, outputs=%r, traces=%d, profiles=%d)" % (
            self.dir_name, self.outputs, len(self.traces), len(self.profiles))


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


def trace_handler(dir_name, outputs=OUTPUTS, worker_name=None, use_gzip=False, merged=True,
                  overview_format="html", strict=False, profile_args=()):
    """A callable for torch.profiler.profile(on_trace_ready=...).  Each time
    the profiler has a trace it is written into dir_name (made if missing)
    as torch.profiler.tensorboard_trace_handler names it,
    ``<worker>.<time in ms>.pt.trace.json`` (``.json.gz`` with use_gzip),
    then converted by the tracefold program (tracefold.find_binary):

    outputs         "pprof": ``<worker>.<ms>.pb.gz``, the trace's profile with
                    step labels (``tracefold profile --label-steps``; GPU time
                    is attributed when the trace has GPU events);
                    "overview": ``<worker>.<ms>.overview.html`` (tracefold
                    overview; overview_format "md" or "json" for the others)
    worker_name     default ``<hostname>_<pid>``; give each process of a
                    distributed run its own
    merged          keep ``<worker>.pb.gz``, the sum of the run's profiles,
                    up to date after each trace (tracefold merge; with "pprof")
    strict          False: a tracefold failure is a TracefoldWarning, the
                    trace is kept and training goes on; True: it raises
                    tracefold.TracefoldError out of prof.step()
    profile_args    more arguments for tracefold profile, e.g.
                    ["--backward-to-forward"]

    Returns a TraceHandler, whose lists traces, profiles, overviews and
    failures and attribute merged say what was written.
    """
    return TraceHandler(dir_name, outputs=outputs, worker_name=worker_name, use_gzip=use_gzip,
                        merged=merged, overview_format=overview_format, strict=strict,
                        profile_args=profile_args)
