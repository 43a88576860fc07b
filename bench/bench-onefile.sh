#!/bin/sh
# bench-onefile.sh - issue 33's target 2 (docs/performance.md "One file on
# two threads"): one large Chrome JSON file, `tracefold -q profile -j 1`
# against `-j 2`, in turn, ROUNDS (5) rounds, medians of the wall time and of
# user+sys CPU, the load average beside them; the profiles compared.
#   leg183  the 187 MB legacy PyTorch shape (bench/gen-real.py legacy, 390
#           copies on 3 threads), shared with bench-real.sh
#   k40     40 copies of the real 9 MB Kineto trace with python_function
#           events (360 MB)
# J2ENV: the environment of the -j 2 runs (e.g. TRACEFOLD_TWO_STAGE=0 for
# the one-stage reader with the spare thread idle).
cd "$(dirname "$0")/.." || exit 2
ROUNDS=${ROUNDS:-5}
D=bench/out/real
mkdir -p "$D"
[ -x ./tracefold ] || { echo "bench-onefile: build ./tracefold first"; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "bench-onefile: needs /usr/bin/time"; exit 2; }
[ -s "$D/leg183.json" ] ||
	python3 bench/gen-real.py legacy tests/data/chrome/pytorch-legacy-small/trace.json "$D/leg183.json" 390 || exit 2
[ -s "$D/k40.json" ] ||
	python3 bench/gen-real.py kineto tests/data/chrome/pytorch211-h200-gpt/trace.json.gz "$D/k40.json" 40 || exit 2
cat "$D/leg183.json" "$D/k40.json" > /dev/null
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
run() { # J OUT -> "wall cpu" of one run
	e=; [ "$1" = 2 ] && e=${J2ENV:-}
	/usr/bin/time -f '%e %U %S' -o "$D/t.one" env $e ./tracefold -q profile -j "$1" "$in" -o "$2" ||
		{ echo "bench-onefile: failed: -j $1 $in" >&2; exit 1; }
	awk '{ print $1, $2 + $3 }' "$D/t.one"
}
echo "one file, -j 1 against -j 2, $ROUNDS rounds in turn, medians; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %10s %8s %8s %8s %8s %9s %9s\n' case bytes "j1 wall" "j2 wall" "j1 cpu" "j2 cpu" "speedup" "cpu ratio"
for c in leg183 k40; do
	in="$D/$c.json"
	: > "$D/j1.t"; : > "$D/j2.t"
	for r in $(seq "$ROUNDS"); do
		run 1 "$D/$c.j1.pb.gz" >> "$D/j1.t" || exit 1
		run 2 "$D/$c.j2.pb.gz" >> "$D/j2.t" || exit 1
	done
	w1=$(awk '{ print $1 }' "$D/j1.t" | med) w2=$(awk '{ print $1 }' "$D/j2.t" | med)
	c1=$(awk '{ print $2 }' "$D/j1.t" | med) c2=$(awk '{ print $2 }' "$D/j2.t" | med)
	printf '%-7s %10d %8.3f %8.3f %8.2f %8.2f %8.2fx %9.2f\n' $c "$(stat -c %s "$in")" "$w1" "$w2" "$c1" "$c2" \
		"$(echo "$w1 $w2" | awk '{ print $1 / $2 }')" "$(echo "$c2 $c1" | awk '{ print $1 / $2 }')"
	cmp -s "$D/$c.j1.pb.gz" "$D/$c.j2.pb.gz" || { echo "bench-onefile: $c: the -j 1 and -j 2 profiles DIFFER"; exit 1; }
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
