"""tracefold from Python: find the installed tracefold binary and run it.

This package is pure Python (standard library only) and calls the tracefold
program; it does not contain it.  Importing it imports nothing else (no
torch).  The PyTorch profiler hook is tracefold.torch; the command-line
wrapper is ``python -m tracefold`` (see docs/python.md).
"""
import os
import shutil
import subprocess

__version__ = "0.1.0"
__all__ = ["TracefoldError", "TracefoldNotFound", "find_binary", "run", "__version__"]

INSTALL_HINT = ("install it from the tracefold source tree with 'make install' (PREFIX=/usr/local "
                "by default; docs/install.md), or set TRACEFOLD=/path/to/tracefold")


class TracefoldError(RuntimeError):
    """tracefold ran and failed.  ``cmd`` is the command line (a list),
    ``returncode`` its exit status (2 usage, 3 unreadable input or
    unwritable output: docs/cli.md) and ``stderr`` what it printed there."""

    def __init__(self, message, cmd=None, returncode=None, stderr=""):
        super().__init__(message)
        self.cmd = cmd
        self.returncode = returncode
        self.stderr = stderr


class TracefoldNotFound(TracefoldError):
    """The tracefold binary is not where TRACEFOLD says, or not on PATH."""


def find_binary():
    """The path of the tracefold program to run: the environment variable
    TRACEFOLD when it is set and not empty (a path, or a command name looked
    up on PATH), else ``tracefold`` on PATH.  Raises TracefoldNotFound,
    saying how to install it, when there is none."""
    env = os.environ.get("TRACEFOLD", "")
    if env:
        path = shutil.which(env)
        if path is None:
            if os.sep in env and os.path.exists(env):
                raise TracefoldNotFound("TRACEFOLD=%s is not an executable file; %s" % (env, INSTALL_HINT))
            raise TracefoldNotFound("TRACEFOLD=%s: no such program; %s" % (env, INSTALL_HINT))
        return os.path.abspath(path) if os.sep in path else path
    path = shutil.which("tracefold")
    if path is None:
        raise TracefoldNotFound("the tracefold program is not on PATH; " + INSTALL_HINT)
    return os.path.abspath(path)


def run(args, binary=None):
    """Runs ``tracefold ARGS...`` (args: a sequence of strings), waits for
    it and returns its subprocess.CompletedProcess (stdout and stderr as
    text).  Raises TracefoldNotFound when there is no binary and
    TracefoldError, with tracefold's exit status and stderr, when it exits
    with a status other than 0."""
    cmd = [binary or find_binary()] + [os.fspath(a) for a in args]
    try:
        res = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True, errors="replace")
    except OSError as e:
        raise TracefoldNotFound("cannot run %s: %s; %s" % (cmd[0], e, INSTALL_HINT), cmd=cmd) from e
    if res.returncode != 0:
        err = res.stderr.strip()
        if res.returncode < 0:
            status = "killed by signal %d" % -res.returncode
        else:
            status = "exit status %d" % res.returncode
        raise TracefoldError("%s failed (%s)%s" % (" ".join(["tracefold"] + cmd[1:]), status,
                                                    ": " + err if err else ""),
                             cmd=cmd, returncode=res.returncode, stderr=res.stderr)
    return res
