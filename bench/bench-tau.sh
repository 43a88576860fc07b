#!/bin/sh
# TAU reader benchmark: a ~1 GB trace made of the tiny fixture's records
# repeated with shifted timestamps (bench/gen_tau.py), then `tracefold info`
# and `tracefold profile` under /usr/bin/time -v.  Figures: docs/performance.md.
# BENCH_TAU_BYTES overrides the size.
cd "$(dirname "$0")/.." || exit 2
out=bench/out/tau
bytes=${BENCH_TAU_BYTES:-1000000000}
[ -x ./tracefold ] || { echo "bench-tau: build ./tracefold first (make)"; exit 2; }
if [ ! -f "$out/tautrace.0.0.0.trc" ] || [ "$(stat -c %s "$out/tautrace.0.0.0.trc")" -lt $((bytes - 20000)) ] ||
   [ "$(stat -c %s "$out/tautrace.0.0.0.trc")" -gt $((bytes + 20000)) ]; then
	rm -rf "$out"
	python3 bench/gen_tau.py tests/data/tau/tiny/tautrace.0.0.0.trc tests/data/tau/tiny/events.0.edf "$out" "$bytes" || exit 1
fi
size=$(stat -c %s "$out/tautrace.0.0.0.trc")
records=$((size / 24))
run() { # LABEL CMD...
	label=$1; shift
	/usr/bin/time -v "$@" >/dev/null 2>bench/out/tau-time.txt || { echo "bench-tau: $label failed"; cat bench/out/tau-time.txt; return 1; }
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' bench/out/tau-time.txt)
	user=$(sed -n 's/.*User time (seconds): //p' bench/out/tau-time.txt)
	sys=$(sed -n 's/.*System time (seconds): //p' bench/out/tau-time.txt)
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' bench/out/tau-time.txt)
	python3 - "$label" "$wall" "$user" "$sys" "$rss" "$records" "$size" "$*" <<'PY'
import sys
label, wall, user, sys_, rss, records, size, cmd = sys.argv[1:]
parts = [float(p) for p in wall.split(":")]
secs = parts[-1] + 60 * (parts[-2] if len(parts) > 1 else 0) + 3600 * (parts[-3] if len(parts) > 2 else 0)
print("%-8s %s" % (label, cmd))
print("         %.2f s wall (%.2f user, %.2f sys), %.1f M records/s, %.0f MB/s, peak RSS %.1f MB"
      % (secs, float(user), float(sys_), int(records) / secs / 1e6, int(size) / secs / 1e6, int(rss) / 1024))
PY
}
echo "input: $out ($records records, $size bytes)"
run info ./tracefold info "$out" || exit 1
run profile ./tracefold -q profile "$out" -o bench/out/tau.pb.gz || exit 1
