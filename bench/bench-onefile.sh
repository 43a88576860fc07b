#!/bin/sh
# bench-onefile.sh - issue 33's target 2 in make bench (docs/performance.md
# "One file on two threads"): one large Chrome JSON file, `tracefold -q
# profile` with -j 1, -j 2 with the one-stage reader and -j 2 with two
# stages (bench/two-stage.sh: in turn, ROUNDS (7) rounds, medians of wall
# and CPU time, the load average beside them), then the three profiles
# compared.  Inputs, generated once under bench/out/real:
#   leg183  the 187 MB legacy PyTorch shape (bench/gen-real.py legacy, 390
#           copies on 3 threads), shared with bench-real.sh
#   k40     40 copies of the real 9 MB Kineto trace with python_function
#           events (360 MB)
cd "$(dirname "$0")/.." || exit 2
ROUNDS=${ROUNDS:-7}
D=bench/out/real
mkdir -p "$D"
[ -x ./tracefold ] || { echo "bench-onefile: build ./tracefold first"; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "bench-onefile: needs /usr/bin/time"; exit 2; }
[ -s "$D/leg183.json" ] ||
	python3 bench/gen-real.py legacy tests/data/chrome/pytorch-legacy-small/trace.json "$D/leg183.json" 390 || exit 2
[ -s "$D/k40.json" ] ||
	python3 bench/gen-real.py kineto tests/data/chrome/pytorch211-h200-gpt/trace.json.gz "$D/k40.json" 40 || exit 2
cat "$D/leg183.json" "$D/k40.json" > /dev/null
echo "one file: -j 1, -j 2 one stage, -j 2 two stages; $(nproc) cores"
TF=./tracefold sh bench/two-stage.sh -n "$ROUNDS" "$D/leg183.json" "$D/k40.json" || exit 1
for c in leg183 k40; do
	for m in "1 0" "2 0" "2 1"; do
		set -- $m
		TRACEFOLD_TWO_STAGE=$2 ./tracefold -q profile -j "$1" "$D/$c.json" -o "$D/$c.$1$2.pb.gz" || exit 1
	done
	cmp -s "$D/$c.10.pb.gz" "$D/$c.20.pb.gz" && cmp -s "$D/$c.10.pb.gz" "$D/$c.21.pb.gz" &&
		echo "$c: the three profiles are identical" || { echo "bench-onefile: $c: the profiles DIFFER"; exit 1; }
done
