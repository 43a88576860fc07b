#!/bin/sh
# bench-flame.sh - flame graph pictures of a profile with a million call
# paths: time, peak memory and file size of `tracefold flame` (SVG, HTML,
# --min-width 0.1) beside `tracefold profile` of the same input (the cost of
# reading it) and `cat` (the cost of the bytes), one run after the other.
# The input (bench/out/, not committed) is a Chrome trace of NPATHS distinct
# call paths: main -> 1000 mid-level functions -> NPATHS/1000 leaves each,
# one X event per leaf, leaf durations 1..97 us.  Figures go to
# docs/performance.md ("## Flame graph pictures").
#   NPATHS=1000000 sh bench/bench-flame.sh
cd "$(dirname "$0")/.." || exit 2
NPATHS=${NPATHS:-1000000}
OUT=bench/out
mkdir -p "$OUT"
json=$OUT/flame-${NPATHS}.json
[ -s "$json" ] || python3 - "$NPATHS" "$json" <<'PY' || exit 2
import sys
n, path = int(sys.argv[1]), sys.argv[2]
mids = 1000
per = max(1, n // mids)
with open(path, "w") as f:
    f.write('{"traceEvents":[\n')
    t = 0
    lines = []
    for m in range(mids):
        start = t
        for k in range(per):
            d = (m * per + k) % 97 + 1
            lines.append('{"ph":"X","name":"leaf_%d_%d","pid":1,"tid":1,"ts":%d,"dur":%d},\n' % (m, k, t, d))
            t += d
        lines.append('{"ph":"X","name":"mid_%d","pid":1,"tid":1,"ts":%d,"dur":%d},\n' % (m, start, t - start))
        if len(lines) > 100000:
            f.write("".join(lines)); lines = []
    f.write("".join(lines))
    f.write('{"ph":"X","name":"main","pid":1,"tid":1,"ts":0,"dur":%d}\n]}\n' % t)
PY
bytes=$(wc -c < "$json")
measure() { # label cmd...
	label=$1; shift
	/usr/bin/time -v "$@" > "$OUT/bench.out" 2> "$OUT/bench.time" || { cat "$OUT/bench.time"; return 1; }
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$OUT/bench.time" |
		awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$OUT/bench.time")
	cpu=$(sed -n 's/.*\(User\|System\) time (seconds): //p' "$OUT/bench.time" | awk '{ s += $1 } END { print s }')
	awk -v w="$wall" -v c="$cpu" -v r="$rss" -v l="$label" \
		'BEGIN { printf "%-40s wall %6.2f s | cpu %6.2f s | peak RSS %7.1f MiB\n", l, w, c, r / 1024 }'
}
echo "input: $json ($bytes bytes, $NPATHS leaf call paths)"
measure "cat" sh -c "cat '$json' > /dev/null" || exit 1
measure "tracefold profile (-> pprof)" ./tracefold -q profile "$json" -o "$OUT/flame.pb.gz" || exit 1
measure "tracefold flame (-> SVG)" ./tracefold -q flame "$json" -o "$OUT/flame.svg" || exit 1
measure "tracefold flame --min-width 0.1" ./tracefold -q flame --min-width 0.1 "$json" -o "$OUT/flame01.svg" || exit 1
measure "tracefold flame (-> HTML)" ./tracefold -q flame "$json" -o "$OUT/flame.html" || exit 1
measure "tracefold flame (from the pprof profile)" ./tracefold -q flame "$OUT/flame.pb.gz" -o "$OUT/flame-p.svg" || exit 1
for f in flame.pb.gz flame.svg flame01.svg flame.html flame-p.svg; do
	printf '%-16s %10d bytes, %d frames\n' "$f" "$(wc -c < "$OUT/$f")" "$(zcat -f "$OUT/$f" | grep -c '<g class="f' || true)"
done
