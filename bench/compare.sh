#!/bin/sh
# make bench-compare REF=<commit> (docs/performance.md, "Against a
# reference"): the reference commit's tracefold built in
# bench/out/ref-<sha>/ (git archive, its own make; kept for the next run),
# then each case run with both binaries, alternately (the order swapped
# every round, so that a machine getting busier or quieter weighs on both
# alike), ROUNDS times; the medians of wall time and peak RSS and the ratio
# ref/new (above 1: this tree is faster) printed as a Markdown table, also
# written to bench/out/compare.md.
#
# Cases: the bench's generated Kineto-like Chrome trace (bench/gen-chrome.c,
# MB megabytes; plain and gzipped) with `profile -j 1` and `perfetto`, and
# `profile -j 1` of every file or folder in TRACES (real traces, e.g. the
# fixtures; several inputs as one case: separate them with commas).
#   REF=HEAD~3 ROUNDS=5 MB=200 TRACES="a.json.gz,b.json.gz c.json" sh bench/compare.sh
cd "$(dirname "$0")/.." || exit 2
REF=${REF:-}
ROUNDS=${ROUNDS:-5}
MB=${MB:-200}
TRACES=${TRACES:-}
[ -n "$REF" ] || { echo "usage: make bench-compare REF=<commit> [ROUNDS=5] [MB=200] [TRACES=...]" >&2; exit 2; }
command -v /usr/bin/time > /dev/null || { echo "bench-compare: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
sha=$(git rev-parse --verify -q "$REF^{commit}") || { echo "bench-compare: no commit '$REF'" >&2; exit 2; }
out=bench/out
mkdir -p "$out" build
refdir=$out/ref-$(echo "$sha" | cut -c1-12)
if [ ! -x "$refdir/tracefold" ]; then
	rm -rf "$refdir" && mkdir -p "$refdir" && git archive "$sha" | tar -x -C "$refdir" || exit 2
	echo "bench-compare: building $REF ($sha) in $refdir" >&2
	(unset MAKEFLAGS MFLAGS MAKELEVEL; make -C "$refdir" -s -j2 tracefold) > "$refdir.build.log" 2>&1 ||
		{ echo "bench-compare: building $REF failed (see $refdir.build.log)" >&2; exit 2; }
fi
[ -x ./tracefold ] || { echo "bench-compare: ./tracefold is not built (make tracefold)" >&2; exit 2; }
${CC:-gcc} -O2 -Wall -Wextra -Werror -o build/gen-chrome bench/gen-chrome.c || exit 2
json=$out/chrome-${MB}m.json
[ -s "$json" ] || ./build/gen-chrome "$MB" "$json" || exit 2
[ -s "$json.gz" ] || gzip -1 -k -c "$json" > "$json.gz" || exit 2

# run BIN SIDE ARGS...: one run, "wall_s peak_kib" on stdout; the output
# file is the side's own ({OUT} in ARGS)
run() {
	bin=$1 side=$2
	shift 2
	args=$(printf '%s\n' "$*" | sed "s|{OUT}|$out/cmp-$side|g")
	t0=$(date +%s%N)
	# shellcheck disable=SC2086 # ARGS are words
	/usr/bin/time -f "%M" "$bin" -q $args > /dev/null 2> "$out/cmp.time" ||
		{ echo "bench-compare: $bin $args failed:" >&2; tail -3 "$out/cmp.time" >&2; return 1; }
	t1=$(date +%s%N)
	echo "$(((t1 - t0) / 1000)) $(tail -1 "$out/cmp.time")" | awk '{ printf "%.6f %s\n", $1 / 1e6, $2 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

report=$out/compare.md
{
	echo "tracefold vs $REF ($(echo "$sha" | cut -c1-12)): medians of $ROUNDS alternating rounds, $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
	echo "| case | ref s | new s | ref/new | ref MiB | new MiB |"
	echo "|---|---|---|---|---|---|"
} > "$report"
cases="profile -j 1 $json -o {OUT}.pb.gz
profile -j 1 $json.gz -o {OUT}.pb.gz
perfetto $json -o {OUT}.pftrace"
for t in $(printf '%s' "$TRACES" | tr ' ' '\n'); do
	cases="$cases
profile -j 1 $(printf '%s' "$t" | tr ',' ' ') -o {OUT}.pb.gz"
done
rc=0
printf '%s\n' "$cases" | while IFS= read -r c; do
	[ -n "$c" ] || continue
	: > "$out/cmp.old"
	: > "$out/cmp.new"
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		if [ $((r % 2)) = 1 ]; then order="old new"; else order="new old"; fi
		for side in $order; do
			if [ $side = old ]; then bin=$refdir/tracefold; else bin=./tracefold; fi
			# shellcheck disable=SC2086
			run "$bin" $side $c >> "$out/cmp.$side" || exit 1
		done
		r=$((r + 1))
	done
	ow=$(cut -d' ' -f1 "$out/cmp.old" | median) nw=$(cut -d' ' -f1 "$out/cmp.new" | median)
	om=$(cut -d' ' -f2 "$out/cmp.old" | median) nm=$(cut -d' ' -f2 "$out/cmp.new" | median)
	awk -v c="$c" -v ow="$ow" -v nw="$nw" -v om="$om" -v nm="$nm" 'BEGIN {
		gsub(/\{OUT\}[^ ]*/, "OUT", c)
		printf "| `%s` | %.3f | %.3f | **%.2f** | %.1f | %.1f |\n", c, ow, nw, (nw > 0 ? ow / nw : 0), om / 1024, nm / 1024 }' >> "$report"
done || rc=1
cat "$report"
exit $rc
