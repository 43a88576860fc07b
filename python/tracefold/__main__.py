"""python -m tracefold: a thin command-line wrapper around the tracefold
program (docs/python.md).

  python -m tracefold gate BASE NEW [diff options...]
      runs `tracefold diff --gate BASE NEW [diff options...]`; its output
      and exit status are tracefold's (0 pass, 1 a regression, 2 usage
      error, 3 an unreadable input, 4 unresolved with --fail-unresolved;
      docs/gate.md)
  python -m tracefold --help | -h
  python -m tracefold --version
"""
import subprocess
import sys

from . import TracefoldNotFound, __version__, find_binary

USAGE = """usage: python -m tracefold gate BASE NEW [diff options...]
       python -m tracefold --help | --version

gate BASE NEW   run 'tracefold diff --gate BASE NEW [diff options...]' (BASE
                and NEW: a profile or trace, or comma-separated runs of each;
                see 'tracefold diff --help' and docs/gate.md). The output and
                the exit status are tracefold's: 0 pass, 1 a regression, 2 a
                usage error, 3 an input that cannot be read, 4 unresolved
                changes with --fail-unresolved.

The tracefold program is $TRACEFOLD when set, else 'tracefold' on PATH; when
there is none this prints how to install it and exits 127.
"""


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        sys.stderr.write(USAGE)
        return 2
    if argv[0] in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return 0
    if argv[0] == "--version":
        print("tracefold (Python package) " + __version__)
        return 0
    if argv[0] != "gate":
        sys.stderr.write("python -m tracefold: unknown command '%s'\n%s" % (argv[0], USAGE))
        return 2
    if len(argv) < 3 and not any(a in ("-h", "--help") for a in argv[1:]):
        sys.stderr.write("python -m tracefold gate: needs BASE and NEW\n" + USAGE)
        return 2
    try:
        binary = find_binary()
    except TracefoldNotFound as e:
        sys.stderr.write("python -m tracefold: %s\n" % e)
        return 127
    sys.stdout.flush()
    # tracefold writes straight to our stdout and stderr
    rc = subprocess.call([binary, "diff", "--gate"] + argv[1:])
    return 128 - rc if rc < 0 else rc  # killed by signal N: 128 + N, as a shell says


if __name__ == "__main__":
    sys.exit(main())
