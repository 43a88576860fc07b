#!/bin/bash
# Regenerate the recorded fixtures of tests/data/samples (perf-* and austin).
# Needs root (or kernel.perf_event_paranoid <= -1), Debian's linux-perf and
# austin, gcc, /usr/bin/python3 and, for perf-python-xperf and austin, the
# pyenv interpreters named below. Each run gives new numbers: after it, run
#   python3 tests/tools/samples_expected.py --all
# and update the numbers in each fixture's README.md.
# Usage: tests/data/samples/make.sh [WORKDIR]   (WORKDIR: /tmp/tracefold-samples)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-/tmp/tracefold-samples}
py312=${PY312:-/root/.pyenv/versions/3.12.1/bin/python3.12}
py38=${PY38:-/root/.pyenv/versions/3.8.18/bin/python3.8}
mkdir -p "$work"

# perf report outputs kept beside each perf.script
reports() { # DATA OUTDIR
    perf report -i "$1" --stdio -n --no-children --sort sym >"$2/perf-report-self.txt.tmp" 2>/dev/null
    perf report -i "$1" --stdio -n --no-children --sort sym -g none >"$2/perf-report-self-flat.txt.tmp" 2>/dev/null
    perf report -i "$1" --stdio -n --children --sort sym -g none >"$2/perf-report-children.txt.tmp" 2>/dev/null
    perf report -i "$1" --stdio -n --no-children --sort pid -g none >"$2/perf-report-threads.txt.tmp" 2>/dev/null
    for f in perf-report-self perf-report-self-flat perf-report-children perf-report-threads; do
        mv "$2/$f.txt.tmp" "$2/$f.txt"
    done
}
# for DWARF call graphs: the same without perf's inline expansion
noinline() { # DATA OUTDIR
    perf script -i "$1" --no-inline >"$2/perf-noinline.script.tmp" 2>/dev/null
    perf report -i "$1" --stdio -n --no-inline --no-children --sort sym -g none >"$2/perf-report-noinline-self-flat.txt.tmp" 2>/dev/null
    perf report -i "$1" --stdio -n --no-inline --children --sort sym -g none >"$2/perf-report-noinline-children.txt.tmp" 2>/dev/null
    for f in perf-noinline.script perf-report-noinline-self-flat.txt perf-report-noinline-children.txt; do
        mv "$2/$f.tmp" "$2/$f"
    done
}
scripts() { # DATA OUTDIR
    perf script -i "$1" >"$2/perf.script.tmp" 2>/dev/null
    perf script -i "$1" -F comm,pid,tid,time,period,event,ip,sym,dso >"$2/perf-fields.script.tmp" 2>/dev/null
    mv "$2/perf.script.tmp" "$2/perf.script"
    mv "$2/perf-fields.script.tmp" "$2/perf-fields.script"
}

# 1. perf-c-fp: frame-pointer call graphs of busy.c
d=$work/perf-c-fp; mkdir -p "$d"; cp "$here/perf-c-fp/busy.c" "$d/"
gcc -O1 -fno-omit-frame-pointer -g -pthread -o "$d/busy" "$d/busy.c"
(cd "$d" && perf record -e cpu-clock -F 999 -g -o perf.data -- ./busy 0.55 >/dev/null)
scripts "$d/perf.data" "$here/perf-c-fp"; reports "$d/perf.data" "$here/perf-c-fp"

# 2. perf-c-dwarf: the same program, DWARF call graphs, shorter
d=$work/perf-c-dwarf; mkdir -p "$d"; cp "$here/perf-c-fp/busy.c" "$d/"
gcc -O1 -fno-omit-frame-pointer -g -pthread -o "$d/busy" "$d/busy.c"
(cd "$d" && perf record -e cpu-clock -F 199 --call-graph dwarf -o perf.data -- ./busy 0.3 >/dev/null)
scripts "$d/perf.data" "$here/perf-c-dwarf"; reports "$d/perf.data" "$here/perf-c-dwarf"; noinline "$d/perf.data" "$here/perf-c-dwarf"

# 3. perf-python: Debian's Python 3.11 (no -X perf): interpreter frames only
d=$work/perf-python; mkdir -p "$d"; cp "$here/perf-python/work.py" "$d/"
(cd "$d" && perf record -e cpu-clock -F 999 -g -o perf.data -- /usr/bin/python3 work.py 6 >/dev/null)
scripts "$d/perf.data" "$here/perf-python"; reports "$d/perf.data" "$here/perf-python"

# 3b. perf-python-xperf: CPython 3.12 with -X perf (perf map trampolines), DWARF unwinding
d=$work/perf-python-xperf; mkdir -p "$d"; cp "$here/perf-python/work.py" "$d/"
(cd "$d" && perf record -e cpu-clock -F 199 --call-graph dwarf -o perf.data -- "$py312" -X perf work.py 3 >/dev/null)
scripts "$d/perf.data" "$here/perf-python-xperf"; reports "$d/perf.data" "$here/perf-python-xperf"; noinline "$d/perf.data" "$here/perf-python-xperf"

# 4. perf-multi-event: two events with fixed, different periods
d=$work/perf-multi-event; mkdir -p "$d"; cp "$here/perf-c-fp/busy.c" "$d/"
gcc -O1 -fno-omit-frame-pointer -g -pthread -o "$d/busy" "$d/busy.c"
(cd "$d" && perf record -e cpu-clock/period=1000000/,task-clock/period=4000000/ -g -o perf.data -- ./busy 0.3 >/dev/null)
scripts "$d/perf.data" "$here/perf-multi-event"; reports "$d/perf.data" "$here/perf-multi-event"
perf report -i "$d/perf.data" --stdio --no-children --sort sym -g none -n --group >"$here/perf-multi-event/perf-report-group.txt" 2>/dev/null || true
perf evlist -v -i "$d/perf.data" # shown in perf-multi-event/README.md

# 5. austin 1.0.1 (Debian) on CPython 3.8 (austin 1.0.1 cannot read 3.11's interpreter state)
d=$work/austin; mkdir -p "$d"; cp "$here/perf-python/work.py" "$d/"
austin_run() { # NAME SCALE [OPTION]
    (cd "$d" && austin -i 1000 -t 1000 ${3:+"$3"} -o "$d/$1.txt" "$py38" work.py "$2" >/dev/null 2>"$d/$1.stderr")
    mv "$d/$1.txt" "$here/austin/$1.txt"; mv "$d/$1.stderr" "$here/austin/$1.stderr"
}
austin_run austin 6
austin_run austin-sleepless 3 -s
austin_run austin-alt 3 -a
austin_run austin-full 3 -f
echo "done: $here"
