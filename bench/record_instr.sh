#!/bin/sh
# Instructions per begin/end pair in the recording thread, by valgrind's
# callgrind (counts, not seconds: the same on a loaded machine; docs/
# performance.md, "Recording overhead").  Each mode runs with 100000 and
# 200000 pairs on 1 thread (--separate-threads); the difference of the
# thread that ran the loop, / 100000, is the cost of one pair there, what
# the program's other threads did (tfr's writer, Perfetto's service) given
# beside it.  Under valgrind clock_gettime is a system call: the clock's
# instructions are not those of a real run.  PERFETTO_BENCH=path adds a
# record_bench_perfetto built by bench/perfetto_sdk.sh (with --shm-kb 32768).
# Usage: sh bench/record_instr.sh [MODES]
cd "$(dirname "$0")/.." || exit 2
command -v valgrind > /dev/null || { echo "needs valgrind" >&2; exit 2; }
B=build/rel/bench/record_bench
[ -x "$B" ] || make -s "$B" || exit 2
MODES=${1:-none clock tfr tfr-arg fprintf}
D=$(mktemp -d "${TMPDIR:-/tmp}/record_instr.XXXXXX") || exit 2
trap 'rm -rf "$D"' EXIT
for m in $MODES ${PERFETTO_BENCH:+perfetto}; do
	for n in 100000 200000; do
		if [ "$m" = perfetto ]; then set -- "$PERFETTO_BENCH" 1 "$n" --reps 1 --shm-kb 32768
		else set -- "$B" "$m" 1 "$n" --reps 1; fi
		valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$D/cg.$m.$n" "$@" > /dev/null 2>&1 ||
			{ echo "valgrind $*: failed" >&2; exit 1; }
	done
done
/usr/bin/python3 - "$D" $MODES ${PERFETTO_BENCH:+perfetto} <<'PY'
import glob, re, sys
d = sys.argv[1]
print("%-12s %12s %14s" % ("mode", "instr/pair", "other threads"))
for m in sys.argv[2:]:
    loop, other = {}, {}
    for n in (100000, 200000):
        for f in glob.glob("%s/cg.%s.%d-*" % (d, m, n)):
            t = open(f).read()
            tot = int(re.search(r"^(?:summary|totals): (\d+)", t, re.M).group(1))
            if re.search(r"^fn=\(\d+\) (?:\(anonymous namespace\)::)?work(?:\(void\*\))?$", t, re.M):
                loop[n] = tot
            else:
                other[n] = other.get(n, 0) + tot
    print("%-12s %12d %14d" % (m, round((loop[200000] - loop[100000]) / 1e5), round((other[200000] - other[100000]) / 1e5)))
PY
