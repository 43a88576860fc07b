#!/bin/sh
# The recording overhead on a machine with many cores (docs/performance.md,
# "Recording overhead"): record_bench for 1, 2, 4, 8 and 16 threads (tfr,
# tfr-drop, fprintf, fprintf-own and the clock alone; 5 runs each), the
# table printed, its JSON written to $OUT (or /tmp).  Builds nothing but
# record_bench, with cc, from src/record/*.c and bench/record_bench.c (no
# make, no protoc); RECORD_BENCH=path runs a prebuilt one instead (make
# build/rel/bench/record_bench: libtracefold-record linked in statically,
# glibc and pthreads dynamically).  PAIRS per thread (100000) keeps the
# whole run under 90 s on 16 cores (30 s for all five counts on 2 cores
# here; past 85 s the rest is cut short); files go to $TMPDIR or /tmp.
# Usage (from the repository's root): sh bench/record_device.sh [PAIRS [THREADS]]
cd "$(dirname "$0")/.." || exit 2
PAIRS=${1:-100000}
THREADS=${2:-1 2 4 8 16}
OUTDIR=${OUT:-/tmp}
B=${RECORD_BENCH:-}
if [ -z "$B" ]; then
	B=$OUTDIR/record_bench
	${CC:-cc} -std=gnu11 -O2 -pthread -Iinclude src/record/*.c bench/record_bench.c -o "$B" || exit 2
fi
echo "# $(uname -m), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "# cc: $(${CC:-cc} --version 2>/dev/null | head -1)"
start=$(date +%s)
rc=0
# each thread count gets what is left of 85 s (a row is printed as soon as
# it is measured: a count cut short still shows its first modes)
for t in $THREADS; do
	left=$((85 - ($(date +%s) - start)))
	[ "$left" -gt 5 ] || { echo "# $t threads: skipped, 85 s spent"; rc=1; continue; }
	timeout "$left" "$B" clock,tfr,tfr-drop,fprintf,fprintf-own "$t" "$PAIRS" --json "$OUTDIR/record-device-$t.json" || { echo "# $t threads: exit $? (124: out of time)"; rc=1; }
done
echo "# total $(($(date +%s) - start)) s; JSON in $OUTDIR/record-device-*.json"
exit $rc
