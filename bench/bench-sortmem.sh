#!/bin/sh
# Peak memory of tracefold profile on Chrome traces of growing length, with
# the default --sort-mem (4 MiB: sorted runs go to a temporary file) and with
# --sort-mem 0 (everything in memory, as before 2026-11-24), side by side;
# the profiles must be byte-identical.  docs/performance.md "Sorted tracks
# on disk".  Usage: SIZES="200 1000" sh bench/bench-sortmem.sh
OUT=bench/out
SIZES=${SIZES:-200 1000}
mkdir -p "$OUT"
${CC:-cc} -O2 -o build/gen-chrome bench/gen-chrome.c || exit 2
for mb in $SIZES; do
	# 8 step names: the call paths stop growing with the size, so what
	# still grows is what the run keeps per event
	json=$OUT/chrome-${mb}m-8steps.json
	[ -s "$json" ] || ./build/gen-chrome "$mb" "$json" 8 > /dev/null || exit 1
	for opt in "" "--sort-mem 0"; do
		# shellcheck disable=SC2086
		/usr/bin/time -f "%U %S %M" -o "$OUT/sortmem.time" ./tracefold -q profile $opt "$json" \
			-o "$OUT/sortmem$(echo "$opt" | tr -d ' -').pb.gz" || exit 1
		awk -v mb="$mb" -v o="${opt:-default}" '{ printf "%5s MB  %-14s cpu %5.2f s  peak RSS %6.1f MiB\n", mb, o, $1 + $2, $3 / 1024 }' \
			"$OUT/sortmem.time"
	done
	cmp -s "$OUT/sortmem.pb.gz" "$OUT/sortmemsortmem0.pb.gz" && echo "        profiles byte-identical" ||
		{ echo "        PROFILES DIFFER"; exit 1; }
done
