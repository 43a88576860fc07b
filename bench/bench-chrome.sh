#!/bin/sh
# bench-chrome.sh - throughput and peak memory of the Chrome JSON reader.
# Generates a ~200 MB Kineto-like trace (bench/gen-chrome.c) under bench/out/
# (and its gzip), then reads it with bench/chrome-read.c (the reader into a
# counting sink, no profile) and with the full pipeline (`tracefold profile`).
# Prints MB/s (decompressed JSON bytes per second) of wall-clock and of CPU
# (user + system) time -- the latter is steadier on a shared machine -- and
# peak RSS.  Figures go to docs/performance.md ("## Chrome JSON reader").
#   MB=200 sh bench/bench-chrome.sh
cd "$(dirname "$0")/.." || exit 2
MB=${MB:-200}
OUT=bench/out
mkdir -p "$OUT" build
CC=${CC:-gcc}
PKGS="libprotobuf-c zlib otf2 libzstd"
[ -f build/rel/libtracefold.a ] || make -s build/rel/libtracefold.a || exit 2
$CC -O2 -Wall -Wextra -Werror -o build/gen-chrome bench/gen-chrome.c || exit 2
$CC -O2 -g -Wall -Wextra -Werror -Iinclude -Isrc/base -Isrc/core bench/chrome-read.c build/rel/libtracefold.a \
	$(pkg-config --libs $PKGS) -lm -o build/chrome-read || exit 2
json=$OUT/chrome-${MB}m.json
[ -s "$json" ] || ./build/gen-chrome "$MB" "$json" || exit 2
[ -s "$json.gz" ] || gzip -1 -k -c "$json" > "$json.gz" || exit 2
bytes=$(wc -c < "$json")

measure() { # label cmd...
	label=$1; shift
	/usr/bin/time -v "$@" > "$OUT/bench.out" 2> "$OUT/bench.time" || { cat "$OUT/bench.time"; return 1; }
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$OUT/bench.time" |
		awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$OUT/bench.time")
	cpu=$(sed -n 's/.*\(User\|System\) time (seconds): //p' "$OUT/bench.time" | awk '{ s += $1 } END { print s }')
	awk -v b="$bytes" -v w="$wall" -v c="$cpu" -v r="$rss" -v l="$label" \
		'BEGIN { printf "%-34s wall %5.2f s %6.0f MB/s | cpu %5.2f s %6.0f MB/s | peak RSS %6.1f MiB\n",
			 l, w, b / 1e6 / w, c, b / 1e6 / c, r / 1024 }'
}

echo "input: $json ($bytes bytes, $(grep -c '"ph"' "$json") events)"
for i in 1 2 3; do measure "reader only, plain json (run $i)" ./build/chrome-read "$json" || exit 1; done
grep -E '^(events_read|ev_|tracks)' "$OUT/bench.out" | tr '\n' ' '; echo
measure "reader only, gzip -1 json" ./build/chrome-read "$json.gz" || exit 1
if ./tracefold profile --help > /dev/null 2>&1; then
	measure "tracefold profile, plain json" ./tracefold profile -o "$OUT/chrome.pb.gz" "$json" || exit 1
	measure "tracefold profile, gzip json" ./tracefold profile -o "$OUT/chrome.pb.gz" "$json.gz" || exit 1
fi
# timelines: the same trace as Chrome JSON and as a Perfetto trace, and
# their sizes raw and gzipped (docs/perfetto.md)
if ./tracefold perfetto --help > /dev/null 2>&1; then
	measure "tracefold chrome, plain json" ./tracefold chrome "$json" -o "$OUT/timeline.trace.json" || exit 1
	measure "tracefold perfetto, plain json" ./tracefold perfetto "$json" -o "$OUT/timeline.pftrace" || exit 1
	gzip -6 -kf "$OUT/timeline.trace.json" && gzip -6 -kf "$OUT/timeline.pftrace"
	for f in timeline.trace.json timeline.trace.json.gz timeline.pftrace timeline.pftrace.gz; do
		printf '%-34s %12d bytes\n' "$f" "$(wc -c < "$OUT/$f")"
	done
fi
# the same trace as an OTF2 archive (docs/otf2-out.md), and read back
if ./tracefold otf2 --help > /dev/null 2>&1; then
	rm -rf "$OUT/timeline-otf2"
	measure "tracefold otf2, plain json" ./tracefold otf2 "$json" -o "$OUT/timeline-otf2" || exit 1
	printf '%-34s %12d bytes\n' "timeline-otf2/ (du -b)" "$(du -sb "$OUT/timeline-otf2" | cut -f1)"
	measure "tracefold profile of the archive" ./tracefold -q profile "$OUT/timeline-otf2" -o "$OUT/otf2back.pb.gz" || exit 1
fi
