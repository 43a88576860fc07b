#!/bin/bash
# device-speed.sh - issue 33's speed figures on a quiet many-core machine
# (the project's lent GPU machine: docs/performance.md "Issue 33"), in one
# run, the reference and the new build side by side:
#
#   1. the machine (cores, threads per core)
#   2. a real 20-step Kineto trace recorded with Python stacks
#      (bench/record_gpt.py; needs PyTorch with CUDA), else one made from
#      the fixture by bench/gen-real.py
#   3. one core: `profile -j 1` of ten copies of it as ten inputs, of the
#      legacy shape (gen-real.py legacy), of the synthetic trace
#      (gen-chrome), of one TAU rank file; OTF2 against libotf2's null
#      loop; `gzip -dc` of each input in the same run (the normalization)
#   4. scaling: -j 1..16 over 64 TAU rank files and 16 Chrome files, the
#      machine's own ceiling beside it (N `gzip -dc` at once), and every
#      profile compared byte for byte with -j 1's
#
# Environment: NEW, REF (tracefold binaries), BIN (a folder with
# gen-chrome, gen-otf2, otf2-null, runstat built here), FIX (a folder with
# the fixtures pytorch211-trace.json.gz and legacy-trace.json), W (work
# folder, default /tmp/tfdev), SCALE (1: full sizes; 0.05 for a dry run),
# ROUNDS (5), OUT (where the report and the recorded trace go).
set -u
W=${W:-/tmp/tfdev}
SCALE=${SCALE:-1}
ROUNDS=${ROUNDS:-5}
OUT=${OUT:-$W/out}
NJ=${NJ:-"1 2 4 8 16"}
mkdir -p "$W" "$OUT"
R=$OUT/report.txt
: > "$R"
say() { echo "$*" | tee -a "$R"; }
sz() { python3 -c "print(max(1, int($1 * $SCALE)))"; }
run() { # LABEL CMD... -> "label wall user sys rss" line in the report
	label=$1; shift
	if ! "$BIN/runstat" "$@" 2> "$W/rs.txt"; then
		say "FAILED: $label: $*"; tail -5 "$W/rs.txt" | tee -a "$R"; return 1
	fi
	say "$label $(tail -1 "$W/rs.txt")"
}

say "== machine"
say "nproc $(nproc)"
lscpu | grep -E "^(Model name|Socket|Core|Thread|CPU\(s\)|NUMA node\(s\)|L3)" | tee -a "$R"
free -g | head -2 | tee -a "$R"

say "== inputs"
K=$W/k52.json
if [ "${RECORD:-1}" = 1 ] && timeout 240 python3 bench/record_gpt.py "$W/gpt.json" 20 > "$W/rec.log" 2>&1; then
	mv "$W/gpt.json" "$K"
	say "real trace: recorded by bench/record_gpt.py, 20 steps, $(stat -c %s "$K") bytes"
	gzip -1 -c "$K" > "$OUT/gpt20.json.gz"
else
	tail -3 "$W/rec.log" 2>/dev/null | tee -a "$R"
	python3 bench/gen-real.py kineto "$FIX/pytorch211-trace.json.gz" "$K" "$(sz 6)"
	say "real trace: made from the fixture by gen-real.py, $(stat -c %s "$K") bytes"
fi
for i in 0 1 2 3 4 5 6 7 8 9; do ln -sf "$K" "$W/k52-$i.json"; done
python3 bench/gen-real.py legacy "$FIX/legacy-trace.json" "$W/leg183.json" "$(sz 390)"
"$BIN/gen-chrome" "$(sz 200)" "$W/c200.json" > /dev/null
"$BIN/gen-chrome" "$(sz 100)" "$W/c100.json" > /dev/null
mkdir -p "$W/chrome16"
for i in $(seq 0 15); do cp "$W/c100.json" "$W/chrome16/r$i.json"; done
python3 bench/gen_tau.py tests/data/tau/tiny/tautrace.0.0.0.trc tests/data/tau/tiny/events.0.edf "$W/tau-one" \
	"$(sz 100000000)" > /dev/null
python3 bench/gen_tau_ranks.py "$W/tau-one" "$W/tau64" 64
mkdir -p "$W/tau1"
cp "$W/tau64/tautrace.0.0.0.trc" "$W/tau64/events.0.edf" "$W/tau1/"
"$BIN/gen-otf2" "$W/otf2" 4 "$(sz 5000000)" > /dev/null
for f in "$K" "$W/leg183.json" "$W/c200.json" "$W/tau1/tautrace.0.0.0.trc"; do gzip -1 -c "$f" > "$f.gz"; done
cat "$W"/*.json "$W"/chrome16/* "$W"/tau64/* "$W"/otf2/*/* > /dev/null 2>&1
du -sh "$W" | tee -a "$R"

say "== one core (label wall user sys maxrss_kib; $ROUNDS rounds, ref and new alternating)"
say "sizes: k52 $(stat -c %s "$K") x10, leg183 $(stat -c %s "$W/leg183.json"), c200 $(stat -c %s "$W/c200.json"), tau1 $(stat -c %s "$W/tau1/tautrace.0.0.0.trc")"
for r in $(seq "$ROUNDS"); do
	for b in ref new; do
		T=$REF; [ $b = new ] && T=$NEW
		run "$b k52x10" "$T" -q profile -j 1 "$W"/k52-?.json -o "$W/$b-k.pb.gz"
		run "$b leg183" "$T" -q profile -j 1 "$W/leg183.json" -o "$W/$b-l.pb.gz"
		run "$b c200" "$T" -q profile -j 1 "$W/c200.json" -o "$W/$b-c.pb.gz"
		run "$b tau1" "$T" -q profile -j 1 "$W/tau1" -o "$W/$b-t.pb.gz"
		run "$b otf2-j1" "$T" -q profile -j 1 "$W/otf2/traces.otf2" -o "$W/$b-o.pb.gz"
		run "$b otf2-j2" "$T" -q profile -j 2 "$W/otf2/traces.otf2" -o "$W/$b-o2.pb.gz"
	done
	run "otf2-null" "$BIN/otf2-null" "$W/otf2/traces.otf2"
	for f in "$K" "$W/leg183.json" "$W/c200.json" "$W/tau1/tautrace.0.0.0.trc"; do
		run "gzip-dc $(basename "$f")" gzip -dc "$f.gz"
	done
done
for x in k l c t o; do
	cmp -s <(gzip -dc "$W/ref-$x.pb.gz") <(gzip -dc "$W/new-$x.pb.gz") && say "profile $x: ref = new" ||
		say "profile $x: ref and new DIFFER"
done

say "== scaling (label wall user sys maxrss_kib)"
for r in 1 2; do
	for n in $NJ; do
		run "new tau64 -j $n" "$NEW" -q profile -j "$n" "$W/tau64" -o "$W/tau-j$n.pb.gz"
		run "new chrome16 -j $n" "$NEW" -q profile -j "$n" "$W"/chrome16/r*.json -o "$W/chr-j$n.pb.gz"
		# the machine's ceiling: n independent CPU-bound streams at once
		t0=$(date +%s%N)
		for i in $(seq 0 $((n - 1))); do gzip -dc "$W/c200.json.gz" > /dev/null & done
		wait
		say "ceiling gzip-dc x$n $(python3 -c "print('%.4f' % (($(date +%s%N) - $t0) / 1e9))")"
	done
	for n in 1 16; do
		run "ref tau64 -j $n" "$REF" -q profile -j "$n" "$W/tau64" -o "$W/rtau-j$n.pb.gz"
		run "ref chrome16 -j $n" "$REF" -q profile -j "$n" "$W"/chrome16/r*.json -o "$W/rchr-j$n.pb.gz"
	done
done
say "== -v -j 16: each thread's share"
"$NEW" -v -q profile -j 16 "$W/tau64" -o "$W/v.pb.gz" 2>&1 | grep thread | tee -a "$R"
"$NEW" -v -q profile -j 16 "$W"/chrome16/r*.json -o "$W/v.pb.gz" 2>&1 | grep thread | tee -a "$R"
for n in $NJ; do
	cmp -s <(gzip -dc "$W/tau-j1.pb.gz") <(gzip -dc "$W/tau-j$n.pb.gz") && say "tau64 -j $n = -j 1" || say "tau64 -j $n DIFFERS"
	cmp -s <(gzip -dc "$W/chr-j1.pb.gz") <(gzip -dc "$W/chr-j$n.pb.gz") && say "chrome16 -j $n = -j 1" ||
		say "chrome16 -j $n DIFFERS"
done
say "== done"
