#!/bin/sh
# The recording API's overhead (docs/performance.md, "Recording overhead"):
# bench/record_bench.c for 1 and 2 threads (every mode, PAIRS per thread,
# 5 runs each; JSON beside in bench/out/), then the peak RSS of one thread
# recording 1M and 10M pairs (the buffers are bounded: it must not grow
# with the pairs).  Files go to $TMPDIR or /tmp (the table's first line
# names the folder and its file system), removed after each run.
# Usage: PAIRS=1000000 THREADS="1 2" [PERFETTO_SDK_DIR=dir] sh bench/bench-record.sh
OUT=bench/out
PAIRS=${PAIRS:-1000000}
THREADS=${THREADS:-1 2}
B=build/rel/bench/record_bench
mkdir -p "$OUT"
[ -x "$B" ] || make -s "$B" || exit 2
for t in $THREADS; do
	"$B" all "$t" "$PAIRS" --json "$OUT/record-$t.json" || exit 1
done
for n in 1000000 10000000; do
	/usr/bin/time -f "%M" -o "$OUT/record.rss" "$B" tfr 1 "$n" --reps 1 > /dev/null || exit 1
	printf 'tfr, 1 thread x %8d pairs: peak RSS %6d KiB\n' "$n" "$(cat "$OUT/record.rss")"
done
# the bound itself: a writer slowed to 64 KiB a ms keeps the handed-over
# buffers full (8 MiB, tfr_opts.buffer_bytes' default) the whole run
for n in 1000000 3000000; do
	TRACEFOLD_RECORD_TEST_DELAY_US=1000 /usr/bin/time -f "%M" -o "$OUT/record.rss" "$B" tfr 1 "$n" --reps 1 > /dev/null || exit 1
	printf 'tfr, 1 thread x %8d pairs, writer slowed: peak RSS %6d KiB\n' "$n" "$(cat "$OUT/record.rss")"
done
# Perfetto's SDK beside it, only where its amalgamated source is given
# (docs/performance.md says which snapshot): PERFETTO_SDK_DIR=dir make bench
if [ -n "$PERFETTO_SDK_DIR" ]; then
	PAIRS=$PAIRS sh bench/perfetto_sdk.sh "$PERFETTO_SDK_DIR" 2>&1 | grep -v '^\[' || exit 1
fi
