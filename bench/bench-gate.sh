#!/bin/sh
# bench-gate.sh - the cost of diff --gate: `diff --gate --paths` beside
# `diff --paths` on the same two profiles of NPATHS call paths x NSTEPS steps
# a side (step labels, as tracefold profile --label-steps writes them), one
# run after the other, three times each.  Each input (bench/out/, not
# committed) is a Chrome trace: NSTEPS ProfilerStep#N regions, each calling
# 100 mid-level functions with NPATHS/100 leaves each (durations vary by
# step and side), turned into a profile once.  Figures go to
# docs/performance.md ("## diff --gate").
#   NPATHS=10000 NSTEPS=50 sh bench/bench-gate.sh
cd "$(dirname "$0")/.." || exit 2
NPATHS=${NPATHS:-10000}
NSTEPS=${NSTEPS:-50}
OUT=bench/out
mkdir -p "$OUT"
for side in base new; do
	json=$OUT/gate-$side-${NPATHS}x${NSTEPS}.json
	[ -s "$json" ] || python3 - "$NPATHS" "$NSTEPS" "$json" "$side" <<'PY' || exit 2
import random, sys
n, steps, path, side = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
rng = random.Random(1 if side == "base" else 2)
mids, per = 100, max(1, n // 100)
with open(path, "w") as f:
    f.write('{"traceEvents":[\n')
    t = 0
    for s in range(steps):
        s0 = t
        out = []
        for m in range(mids):
            m0 = t
            for k in range(per):
                d = 5 + (m * per + k) % 50 + rng.randrange(3)
                out.append('{"ph":"X","name":"leaf_%d_%d","pid":1,"tid":1,"ts":%d,"dur":%d},\n' % (m, k, t, d))
                t += d
            out.append('{"ph":"X","name":"mid_%d","pid":1,"tid":1,"ts":%d,"dur":%d},\n' % (m, m0, t - m0))
        out.append('{"ph":"X","name":"ProfilerStep#%d","pid":1,"tid":1,"ts":%d,"dur":%d},\n' % (s, s0, t - s0))
        f.write("".join(out))
    f.write('{"ph":"X","name":"end","pid":1,"tid":1,"ts":%d,"dur":1}\n]}\n' % t)
PY
	[ -s "$OUT/gate-$side.pb.gz" ] && [ "$OUT/gate-$side.pb.gz" -nt "$json" ] ||
		./tracefold -q profile --label-steps "$json" -o "$OUT/gate-$side.pb.gz" || exit 2
done
measure() { # label cmd...
	label=$1; shift
	/usr/bin/time -v "$@" > "$OUT/bench.out" 2> "$OUT/bench.time"
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$OUT/bench.time" |
		awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$OUT/bench.time")
	awk -v w="$wall" -v r="$rss" -v l="$label" 'BEGIN { printf "%-44s wall %6.2f s | peak RSS %7.1f MiB\n", l, w, r / 1024 }'
}
echo "inputs: $OUT/gate-base.pb.gz, $OUT/gate-new.pb.gz ($NPATHS call paths x $NSTEPS steps a side)"
for i in 1 2 3; do
	measure "diff --paths" ./tracefold -q diff --paths "$OUT/gate-base.pb.gz" "$OUT/gate-new.pb.gz"
	measure "diff --gate --paths" ./tracefold -q diff --gate --paths "$OUT/gate-base.pb.gz" "$OUT/gate-new.pb.gz"
done
