#!/bin/sh
# bench-real.sh - issue 33's one-core figures on real traces
# (docs/performance.md "Issue 33"): `tracefold -q profile -j 1`, end to end,
# writing the gzipped profile, of
#   k52x10  ten copies of a 54 MB real Kineto trace with python_function
#           events (bench/gen-real.py kineto of tests/data/chrome/
#           pytorch211-h200-gpt, 6 copies = 18 steps) given as ten inputs
#   leg183  the 187 MB legacy PyTorch shape (gen-real.py legacy of
#           tests/data/chrome/pytorch-legacy-small, 390 copies on 3 threads:
#           1.64 M X events)
# each ROUNDS times (5), with `gzip -dc` of the same bytes (gzip -1) in the
# same round: MB/s = JSON bytes / the median wall time, and the median of
# the per-round ratio tracefold / gzip -dc, which a busy machine changes
# less than either (the issue's normalization: multiply a quiet machine's
# gzip -dc time by it).  REF=path/to/another/tracefold runs it too, in
# turn, for a side-by-side ratio.
cd "$(dirname "$0")/.." || exit 2
ROUNDS=${ROUNDS:-5}
D=bench/out/real
mkdir -p "$D"
[ -x ./tracefold ] || { echo "bench-real: build ./tracefold first"; exit 2; }
if [ ! -s "$D/k52.json" ]; then
	python3 bench/gen-real.py kineto tests/data/chrome/pytorch211-h200-gpt/trace.json.gz "$D/k52.json" 6 || exit 2
	gzip -1 -c "$D/k52.json" > "$D/k52.json.gz"
fi
if [ ! -s "$D/leg183.json" ]; then
	python3 bench/gen-real.py legacy tests/data/chrome/pytorch-legacy-small/trace.json "$D/leg183.json" 390 || exit 2
	gzip -1 -c "$D/leg183.json" > "$D/leg183.json.gz"
fi
for i in 0 1 2 3 4 5 6 7 8 9; do ln -sf k52.json "$D/k52-$i.json"; done
cat "$D"/*.json "$D"/*.gz > /dev/null
t() { # CMD... -> seconds of wall time on stdout
	s=$(date +%s%N)
	"$@" > /dev/null || { echo "bench-real: failed: $*" >&2; exit 1; }
	echo "$(( $(date +%s%N) - s ))" | awk '{ printf "%.4f\n", $1 / 1e9 }'
}
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
bin="new:./tracefold"
[ -n "${REF:-}" ] && bin="$bin ref:$REF"
echo "one core, $ROUNDS rounds, medians; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-4s %10s %9s %9s %12s\n' case bin bytes "wall s" "MB/s" "/ gzip -dc"
for c in k52x10 leg183; do
	if [ $c = k52x10 ]; then
		set -- "$D"/k52-?.json; bytes=$(( $(stat -c %s "$D/k52.json") * 10 )); gz="$D/k52.json.gz"; reps=10
	else
		set -- "$D/leg183.json"; bytes=$(stat -c %s "$D/leg183.json"); gz="$D/leg183.json.gz"; reps=1
	fi
	for b in $bin; do
		name=${b%%:*} tf=${b#*:}
		: > "$D/w.$name" ; : > "$D/r.$name"
		for r in $(seq "$ROUNDS"); do
			w=$(t "$tf" -q profile -j 1 "$@" -o "$D/$c.$name.pb.gz")
			g=$(t sh -c "for i in \$(seq $reps); do gzip -dc '$gz'; done")
			echo "$w" >> "$D/w.$name"
			echo "$w $g" | awk '{ print $1 / $2 }' >> "$D/r.$name"
		done
		w=$(med < "$D/w.$name")
		printf '%-8s %-4s %10d %9.3f %9.0f %12.2f\n' $c "$name" "$bytes" "$w" \
			"$(echo "$bytes $w" | awk '{ print $1 / $2 / 1e6 }')" "$(med < "$D/r.$name")"
	done
	if [ -n "${REF:-}" ]; then
		[ "$(gzip -dc "$D/$c.new.pb.gz" | md5sum)" = "$(gzip -dc "$D/$c.ref.pb.gz" | md5sum)" ] &&
			echo "$c: the profiles are identical (after gzip -dc)" || echo "$c: the profiles DIFFER"
	fi
done
