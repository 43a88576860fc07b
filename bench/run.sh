#!/bin/sh
# make bench: runs every bench/bench-*.sh but bench-gb.sh (make bench-gb).  Each generates
# its input under bench/out/ (not committed), runs ./tracefold under
# /usr/bin/time -v and prints throughput and peak memory; copy the figures
# into docs/performance.md with the command that produced them.
cd "$(dirname "$0")/.." || exit 2
mkdir -p bench/out
command -v /usr/bin/time >/dev/null || { echo "bench: needs /usr/bin/time (apt-get install time)"; exit 2; }
rc=0
for b in bench/bench-*.sh; do
	[ -f "$b" ] || continue
	# the multi-GB set (10 GB of disk, half an hour on two cores): make bench-gb
	[ "$b" = bench/bench-gb.sh ] && continue
	echo "== $b"
	sh "$b" || rc=1
done
exit $rc
