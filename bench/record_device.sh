#!/bin/sh
# The recording overhead on a machine with many cores (docs/performance.md,
# "Recording overhead"): record_bench for 1, 2, 4, 8 and 16 threads (tfr,
# tfr-drop, fprintf, fprintf-own and the clock alone; 5 runs each), the
# table printed, its JSON written to $OUT (or /tmp).  Builds nothing but
# record_bench, with cc, from src/record/*.c and bench/record_bench.c (no
# make, no protoc); RECORD_BENCH=path runs a prebuilt one instead (make
# build/rel/bench/record_bench: libtracefold-record linked in statically,
# glibc and pthreads dynamically).  PAIRS per thread (100000) keeps the
# whole run under 90 s on 16 cores; files go to $TMPDIR or /tmp.
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
for t in $THREADS; do
	timeout 60 "$B" clock,tfr,tfr-drop,fprintf,fprintf-own "$t" "$PAIRS" --json "$OUTDIR/record-device-$t.json" || rc=1
done
echo "# total $(($(date +%s) - start)) s; JSON in $OUTDIR/record-device-*.json"
exit $rc
