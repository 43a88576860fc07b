#!/bin/sh
# bench-otf2.sh - speed and memory of the OTF2 reader against the floor:
# libotf2 reading the same archive into callbacks that do nothing
# (bench/otf2-null.c).  Generates LOCS x EVENTS Enter/Leave records (plus a
# metric every 64) with the OTF2 writer (bench/gen-otf2.c) under bench/out/,
# then times, best of RUNS: the null loop (per-location readers, as tracefold;
# and libotf2's global reader for comparison), tracefold's reader alone into a
# counting sink (bench/otf2-read.c) and `tracefold profile`, each with the
# serial (TRACEFOLD_THREADS=1) and the pipelined (=2) event path.  Prints
# wall and CPU (user+sys) seconds, each with its ratio to the null loop's,
# and peak RSS.
# Figures go to docs/performance.md ("## OTF2 reader").
#   LOCS=4 EVENTS=5000000 RUNS=5 sh bench/bench-otf2.sh
cd "$(dirname "$0")/.." || exit 2
LOCS=${LOCS:-4}
EVENTS=${EVENTS:-5000000}
RUNS=${RUNS:-5}
OUT=bench/out
mkdir -p "$OUT" build
CC=${CC:-gcc}
PKGS="libprotobuf-c zlib otf2 libzstd"
make -s build/rel/libtracefold.a tracefold || exit 2
$CC -O2 -Wall -Wextra -Werror -Wno-unused-parameter $(pkg-config --cflags otf2) bench/gen-otf2.c \
	$(pkg-config --libs otf2) -o build/gen-otf2 || exit 2
$CC -O2 -Wall -Wextra -Werror -Wno-unused-parameter $(pkg-config --cflags otf2) bench/otf2-null.c \
	$(pkg-config --libs otf2) -o build/otf2-null || exit 2
$CC -O2 -g -pthread -Wall -Wextra -Werror -Iinclude -Isrc/base -Isrc/core bench/otf2-read.c build/rel/libtracefold.a \
	$(pkg-config --libs $PKGS) -lm -pthread -o build/otf2-read || exit 2
dir=$OUT/otf2-${LOCS}x${EVENTS}
[ -s "$dir/traces.otf2" ] || { rm -rf "$dir"; ./build/gen-otf2 "$dir" "$LOCS" "$EVENTS"; } || exit 2

# best: prints "wall cpu rss_kib": the least wall time and the least CPU
# time (user+sys) of RUNS runs (taken separately: with two threads they
# differ), and the largest peak RSS
best() {
	b=""
	for i in $(seq "$RUNS"); do
		/usr/bin/time -f "%e %U %S %M" "$@" > "$OUT/bench.out" 2> "$OUT/bench.time" || { cat "$OUT/bench.time"; return 1; }
		r=$(tail -1 "$OUT/bench.time" | awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }')
		if [ -z "$b" ]; then b=$r; else
			b=$(echo "$r $b" | awk '{ w = $1 < $4 ? $1 : $4; c = $2 < $5 ? $2 : $5; m = $3 > $6 ? $3 : $6;
				printf "%.2f %.2f %d\n", w, c, m }')
		fi
	done
	echo "$b"
}
report() { # label "wall cpu rss" "null_wall null_cpu"
	echo "$2 $3" | awk -v l="$1" '{ printf "%-40s wall %5.2f s x%4.2f  cpu %5.2f s x%4.2f  peak RSS %6.1f MiB\n",
		l, $1, $1 / $4, $2, $2 / $5, $3 / 1024 }'
}

echo "input: $dir ($(du -sk "$dir" | cut -f1) KiB, $LOCS locations x $EVENTS Enter/Leave + metrics), best of $RUNS"
null=$(best ./build/otf2-null "$dir/traces.otf2") || exit 1
cat "$OUT/bench.out"
floor=$(echo "$null" | cut -d' ' -f1,2)
echo "(x: ratio to the null loop's wall / CPU time)"
report "libotf2 null loop (local readers)" "$null" "$floor"
report "libotf2 null loop (global reader)" "$(best ./build/otf2-null "$dir/traces.otf2" -g)" "$floor"
report "tracefold reader only (serial)" "$(best env TRACEFOLD_THREADS=1 ./build/otf2-read "$dir")" "$floor"
report "tracefold reader only (pipelined)" "$(best env TRACEFOLD_THREADS=2 ./build/otf2-read "$dir")" "$floor"
grep -E '^(diag events_read|diag ev_)' "$OUT/bench.out" | tr '\n' ' '; echo
report "tracefold profile (serial)" \
	"$(best env TRACEFOLD_THREADS=1 ./tracefold profile "$dir" -o "$OUT/otf2.pb.gz")" "$floor"
report "tracefold profile (pipelined)" \
	"$(best env TRACEFOLD_THREADS=2 ./tracefold profile "$dir" -o "$OUT/otf2.pb.gz")" "$floor"
