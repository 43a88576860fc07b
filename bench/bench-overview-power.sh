#!/bin/sh
# bench-overview-power.sh - how well `tracefold overview` finds stragglers
# (issue 28): DRAWS random draws of RANKS x STEPS synthetic Kineto-like ranks
# (tests/tools/overview_gen.py: a synchronizing all-reduce per step, 1%
# jitter) with DELAYS injected delays each, for each delay length of
# DELAYS_MS; the stragglers `overview` lists (default --late-min: 10% of the
# median step time, about 0.38 ms here) against the injected (rank, step)
# pairs: precision, recall, and the wall time of overview per draw.  The
# figures go to stdout and bench/out/overview-power.txt (not committed).
#   DRAWS=50 DELAYS_MS="0.3 0.35 0.4 0.45 0.5 1" sh bench/bench-overview-power.sh
# (TF=PATH: another tracefold binary than ./tracefold)
cd "$(dirname "$0")/.." || exit 2
DRAWS=${DRAWS:-50}
RANKS=${RANKS:-16}
STEPS=${STEPS:-20}
DELAYS=${DELAYS:-10}
DELAYS_MS=${DELAYS_MS:-"0.3 0.35 0.4 0.45 0.5 1"}
OUT=bench/out
mkdir -p "$OUT"
d=$OUT/overview-draw
res=$OUT/overview-power.txt
printf '%s\n' "overview stragglers: $DRAWS draws of $RANKS ranks x $STEPS steps, $DELAYS delays each (bench/bench-overview-power.sh)" \
	"delay_ms  injected  found  tp  fp  fn  precision  recall  overview_s/draw" | tee "$res"
for ms in $DELAYS_MS; do
	tp=0 fp=0 fn=0 i=0 secs=0
	while [ $i -lt "$DRAWS" ]; do
		rm -rf "$d"
		python3 tests/tools/overview_gen.py "$d" --ranks "$RANKS" --steps "$STEPS" --seed $((1000 + i)) \
			--delays "$DELAYS" --delay-ms "$ms" --level 1 || exit 2
		t0=$(date +%s.%N)
		${TF:-./tracefold} -q overview "$d"/rank*.json.gz -o "$d/o.json" || exit 2
		t1=$(date +%s.%N)
		r=$(python3 -c '
import json,sys
t={(p["rank"], p["step"]) for p in json.load(open(sys.argv[1]))["delayed"]}
f={(s["rank"], s["step"]) for s in json.load(open(sys.argv[2]))["stragglers"]}
print(len(t & f), len(f - t), len(t - f))' "$d/truth.json" "$d/o.json")
		set -- $r
		tp=$((tp + $1)) fp=$((fp + $2)) fn=$((fn + $3))
		secs=$(echo "$secs $t0 $t1" | awk '{ print $1 + $3 - $2 }')
		i=$((i + 1))
	done
	python3 -c '
import sys
ms, tp, fp, fn, draws, secs = sys.argv[1], *map(int, sys.argv[2:6]), float(sys.argv[6])
p = "%.1f%%" % (100.0 * tp / (tp + fp)) if tp + fp else "-"
r = "%.1f%%" % (100.0 * tp / (tp + fn)) if tp + fn else "-"
print("%-9s %-9d %-6d %-3d %-3d %-3d %-10s %-7s %.3f" % (ms, tp + fn, tp + fp, tp, fp, fn, p, r, secs / draws))' \
		"$ms" $tp $fp $fn "$DRAWS" "$secs" | tee -a "$res"
done
rm -rf "$d"
