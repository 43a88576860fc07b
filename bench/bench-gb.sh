#!/bin/sh
# Multi-GB Kineto traces in bounded memory (issue 33, target 4;
# docs/performance.md "Multi-GB traces").  Makes an 8-rank set from the
# real PyTorch 2.11 H200 trace (bench/gen-real.py kineto ... --rank R: each
# file is COPIES copies of its 3 steps, 8.9 MB a copy, distributedInfo.rank
# R), then runs tracefold profile, overview and events (Parquet folder) on
# the 8 files under /usr/bin/time -v, with -j 1 and with the default -j,
# and prints a table: command, set size, wall, CPU (user + sys), peak RSS.
# Each set size in SETS (copies per file) is one set, made, measured and
# removed before the next: the default "35 140" is a 1/4-size set (8 x
# 312 MB) and the full one (8 x 1.25 GB = 10 GB), so that the CPU time
# ratio shows time linear in size and the RSS column memory flat.
#
#   sh bench/bench-gb.sh                      # both sets (tens of minutes)
#   SETS=35 sh bench/bench-gb.sh              # the 1/4-size set alone
#   DIR=/big/tmp KEEP=1 TF=./tracefold sh bench/bench-gb.sh
#
# DIR (default /tmp/tracefold-gb) holds the inputs and outputs; removed at
# the end unless KEEP=1 (then the inputs stay, and a later KEEP=1 run uses
# them again; table.md keeps the table).  Refuses (exit 2) when DIR's file system has not
# room for the largest set and its outputs.
TF=${TF:-./tracefold}
DIR=${DIR:-/tmp/tracefold-gb}
SETS=${SETS:-35 140}
RANKS=${RANKS:-8}
FIX=${FIX:-/work/shared/fixtures/chrome/pytorch211-h200-gpt/trace.json.gz}
GEN=$(dirname "$0")/gen-real.py
COPY_KB=8704 # one copy of the fixture's events, 8.9 MB

[ -x "$TF" ] || { echo "bench-gb: no $TF (make tracefold)" >&2; exit 2; }
[ -r "$FIX" ] || { echo "bench-gb: no fixture $FIX (FIX=...)" >&2; exit 2; }
mkdir -p "$DIR" || exit 2
max=0
for n in $SETS; do [ "$n" -gt "$max" ] && max=$n; done
# the inputs, plus a quarter of them for the outputs (Parquet tables,
# sorted runs in $TMPDIR), plus 1 GB
need=$((max * COPY_KB * RANKS * 5 / 4 + 1048576))
have=$(df -Pk "$DIR" | awk 'NR == 2 { print $4 }')
if [ "$have" -lt "$need" ]; then
	echo "bench-gb: $DIR has $((have / 1024)) MiB free, the set of $max copies x $RANKS ranks needs about $((need / 1024)) MiB: DIR=... on a larger disk, or SETS=... smaller" >&2
	exit 2
fi
jdef=$(nproc 2>/dev/null || echo 1)
table=$DIR/table.md
: > "$table"
echo "| command | set | wall s | CPU s | peak RSS MiB |" | tee -a "$table"
echo "|---|---|---:|---:|---:|" | tee -a "$table"

# run NAME SET CMD...: one measured run, one table row
run() {
	name=$1 set=$2
	shift 2
	if ! /usr/bin/time -v -o "$DIR/time.txt" "$@" > "$DIR/run.out" 2>&1; then
		echo "bench-gb: $name failed:" >&2
		tail -5 "$DIR/run.out" >&2
		cat "$DIR/time.txt" >&2
		exit 1
	fi
	awk -v name="$name" -v set="$set" -F': ' '
		/User time/ { u = $2 } /System time/ { s = $2 }
		/Maximum resident/ { m = $2 }
		/Elapsed/ { n = split($NF, a, ":"); w = 0
			for (i = 1; i <= n; i++) w = w * 60 + a[i] }
		END { printf "| %s | %s | %.1f | %.1f | %.1f |\n", name, set, w, u + s, m / 1024 }' \
		"$DIR/time.txt" | tee -a "$table"
}

for n in $SETS; do
	files=
	r=0
	while [ "$r" -lt "$RANKS" ]; do
		f=$DIR/rank$r-x$n.json
		# KEEP=1 keeps the inputs, and a later run uses them again
		[ -s "$f" ] && [ "${KEEP:-0}" = 1 ] ||
			nice python3 "$GEN" kineto "$FIX" "$f" "$n" --rank "$r" --world "$RANKS" || exit 1
		files="$files $f"
		r=$((r + 1))
	done
	# shellcheck disable=SC2086
	mb=$(du -cm $files | awk 'END { print $1 }')
	set="$RANKS x $n copies, $mb MB"
	for j in 1 "$jdef"; do
		# shellcheck disable=SC2086
		run "profile -j $j" "$set" nice "$TF" -q profile -j "$j" $files -o "$DIR/profile-j$j.pb.gz"
		# shellcheck disable=SC2086
		run "overview -j $j" "$set" nice "$TF" -q overview -j "$j" $files -o "$DIR/overview-j$j.json"
		# shellcheck disable=SC2086
		run "events -j $j" "$set" nice "$TF" -q events -j "$j" $files -o "$DIR/events-j$j" --force
	done
	for o in profile-j1.pb.gz overview-j1.json; do
		cmp -s "$DIR/$o" "$DIR/$(echo "$o" | sed "s/-j1/-j$jdef/")" ||
			{ echo "bench-gb: $o differs between -j 1 and -j $jdef" >&2; exit 1; }
	done
	diff -r "$DIR/events-j1" "$DIR/events-j$jdef" > /dev/null ||
		{ echo "bench-gb: events differ between -j 1 and -j $jdef" >&2; exit 1; }
	rm -rf "$DIR"/profile-j* "$DIR"/overview-j* "$DIR"/events-j*
	# shellcheck disable=SC2086
	[ "${KEEP:-0}" = 1 ] || rm -f $files
done
[ "${KEEP:-0}" = 1 ] || rm -rf "$DIR"
