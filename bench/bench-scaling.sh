#!/bin/sh
# bench-scaling.sh - issue 33's many-cores figures (docs/performance.md
# "Scaling with -j"): `tracefold -q profile -j N` of 64 TAU rank files of
# TAU_BYTES (100 MB) each and of 16 Chrome files of CHROME_MB (100) each,
# for N in NJ (default: 1, 2, 4, ... up to the cores), beside the
# machine's own ceiling: N independent `gzip -dc` of one file at once (what
# N cores give a CPU-bound stream that shares nothing; a machine whose
# cores share a frequency budget, hyperthreads or a memory bus gives less
# than N), ROUNDS (3) rounds, medians; every profile compared with -j 1's.
# `-v` of the widest run prints each thread's share (docs/distributed.md).
cd "$(dirname "$0")/.." || exit 2
ROUNDS=${ROUNDS:-3}
TAU_BYTES=${TAU_BYTES:-100000000}
CHROME_MB=${CHROME_MB:-100}
D=bench/out/scaling
mkdir -p "$D" build
[ -x ./tracefold ] || { echo "bench-scaling: build ./tracefold first"; exit 2; }
nc=$(nproc)
if [ -z "${NJ:-}" ]; then
	NJ=1; n=2
	while [ $n -le "$nc" ]; do NJ="$NJ $n"; n=$((n * 2)); done
	[ "${NJ##* }" = "$nc" ] || NJ="$NJ $nc"
fi
stamp="$D/.made-$TAU_BYTES-$CHROME_MB"
if [ ! -f "$stamp" ]; then
	rm -rf "$D/tau64" "$D/tau-one" "$D/chrome16" "$D"/.made-*
	python3 bench/gen_tau.py tests/data/tau/tiny/tautrace.0.0.0.trc tests/data/tau/tiny/events.0.edf "$D/tau-one" \
		"$TAU_BYTES" > /dev/null &&
	python3 bench/gen_tau_ranks.py "$D/tau-one" "$D/tau64" 64 || exit 2
	rm -rf "$D/tau-one"
	cc -O2 bench/gen-chrome.c -o build/gen-chrome || exit 2
	mkdir -p "$D/chrome16"
	./build/gen-chrome "$CHROME_MB" "$D/chrome16/r0.json" > /dev/null || exit 2
	for i in $(seq 1 15); do cp "$D/chrome16/r0.json" "$D/chrome16/r$i.json"; done
	gzip -1 -c "$D/chrome16/r0.json" > "$D/c.json.gz"
	touch "$stamp"
fi
cat "$D"/tau64/* "$D"/chrome16/* "$D/c.json.gz" > /dev/null
sec() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }'; }
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
rm -f "$D"/t.*
for r in $(seq "$ROUNDS"); do
	for n in $NJ; do
		s=$(date +%s%N); ./tracefold -q profile -j "$n" "$D/tau64" -o "$D/tau-j$n.pb.gz" || exit 1
		sec "$s" >> "$D/t.tau.$n"
		s=$(date +%s%N); ./tracefold -q profile -j "$n" "$D"/chrome16/r*.json -o "$D/chr-j$n.pb.gz" || exit 1
		sec "$s" >> "$D/t.chr.$n"
		s=$(date +%s%N)
		for i in $(seq "$n"); do gzip -dc "$D/c.json.gz" > /dev/null & done
		wait
		sec "$s" >> "$D/t.gz.$n"
	done
done
echo "$nc cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(lscpu 2>/dev/null | grep '^Thread(s) per core' | tr -s ' ')); load $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds, medians"
echo "64 TAU rank files: $(du -sb "$D/tau64" | cut -f1) bytes; 16 Chrome files: $(du -cb "$D"/chrome16/* | tail -1 | cut -f1) bytes"
printf '%4s %10s %8s %10s %8s %14s\n' "-j" "tau64 s" "speedup" "chrome16 s" "speedup" "ceiling (gzip)"
t1=$(med < "$D/t.tau.1") c1=$(med < "$D/t.chr.1") g1=$(med < "$D/t.gz.1")
for n in $NJ; do
	t=$(med < "$D/t.tau.$n") c=$(med < "$D/t.chr.$n") g=$(med < "$D/t.gz.$n")
	printf '%4s %10.3f %8.2f %10.3f %8.2f %14.2f\n' "$n" "$t" "$(echo "$t1 $t" | awk '{ print $1 / $2 }')" \
		"$c" "$(echo "$c1 $c" | awk '{ print $1 / $2 }')" "$(echo "$g1 $g $n" | awk '{ print $3 * $1 / $2 }')"
done
for n in $NJ; do
	[ "$(gzip -dc "$D/tau-j1.pb.gz" | md5sum)" = "$(gzip -dc "$D/tau-j$n.pb.gz" | md5sum)" ] &&
	[ "$(gzip -dc "$D/chr-j1.pb.gz" | md5sum)" = "$(gzip -dc "$D/chr-j$n.pb.gz" | md5sum)" ] ||
		{ echo "-j $n: a profile DIFFERS from -j 1's"; exit 1; }
done
echo "every profile byte-identical to -j 1's"
n=${NJ##* }
./tracefold -v -q profile -j "$n" "$D/tau64" -o "$D/v.pb.gz" 2>&1 | grep '\[thread'
./tracefold -v -q profile -j "$n" "$D"/chrome16/r*.json -o "$D/v.pb.gz" 2>&1 | grep '\[thread'
