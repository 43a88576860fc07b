#!/bin/sh
# two-stage.sh [-n ROUNDS] IN...: one Chrome JSON file read by `profile`
# with -j 1, -j 2 in one stage and -j 2 in two stages (TRACEFOLD_TWO_STAGE,
# src/read/chrome_pipe.c), in turn, ROUNDS times (default 7); the medians
# of the wall time (date +%s%N around each run) and of the CPU time
# (/usr/bin/time %U + %S), the load average before and after.  For the
# decision on the two-stage reader's default (docs/performance.md "One
# file on two threads: lean and balanced"): run it on a quiet machine.
# TF: the binary (default ./tracefold).  make bench runs it through
# bench/bench-onefile.sh.
set -e
TF=${TF:-./tracefold}
N=7
[ "$1" = -n ] && { N=$2; shift 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for f in "$@"; do
	echo "== $f; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
	: > "$T/runs"
	for i in $(seq "$N"); do
		for c in "j1 0 1" "j2one 0 2" "j2two 1 2"; do
			set -- $c
			t0=$(date +%s%N)
			/usr/bin/time -f "%U %S" -o "$T/t" env TRACEFOLD_TWO_STAGE=$2 nice "$TF" -q profile -j $3 "$f" -o "$T/o.pb.gz"
			t1=$(date +%s%N)
			echo "$1 $(((t1 - t0) / 1000000)) $(cat "$T/t")" >> "$T/runs"
		done
	done
	python3 - "$T/runs" <<'PY'
import sys, statistics as st
rows = {}
for l in open(sys.argv[1]):
    k, ms, u, s = l.split()
    rows.setdefault(k, []).append((int(ms) / 1000, float(u) + float(s)))
for k, what in (('j1', '-j 1'), ('j2one', '-j 2, one stage'), ('j2two', '-j 2, two stages')):
    w = [x[0] for x in rows[k]]; c = [x[1] for x in rows[k]]
    print("%-17s wall median %.3f s (%.3f-%.3f)  CPU median %.2f s  n=%d" % (what, st.median(w), min(w), max(w), st.median(c), len(w)))
PY
	echo "   load after: $(cut -d' ' -f1-3 /proc/loadavg)"
done
