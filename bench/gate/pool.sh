#!/bin/sh
# bench/gate/pool.sh DIR [ROUNDS]: real repeated runs of bench/gate/train.py
# for docs/gate.md, each a separate process, as tracefold profiles with step
# labels (tracefold history add), in rounds so that whatever else the machine
# does falls on every kind alike:
#   a-*    identical code (3 per round)
#   s5-*, s10-*, s25-*   aten::bmm (about a third of the step) doing 5, 10, 25% more work
#   h200-*, h600-*       200 or 600 us more Python work per step in `data`
# Needs Debian's python3-torch (1.13, CPU).  ROUNDS: default 15 (120 runs,
# about 10 minutes on 2 cores).
set -e
dir=${1:?usage: pool.sh DIR [ROUNDS]}
rounds=${2:-15}
tf=${TF:-./tracefold}
py=/usr/bin/python3
here=$(dirname "$0")
mkdir -p "$dir/traces"
run() { # KIND ARGS...: one run, its trace and its profile
	kind=$1; shift
	n=$(ls "$dir/traces" | grep -c "^$kind-" || true)
	t="$dir/traces/$kind-$n.json"
	$py "$here/train.py" "$t" "$@"
	$tf -q profile --label-steps --sample-types calls,wall "$t" -o "$dir/$kind-$n.pb.gz"
	gzip -f "$t"
}
r=0
while [ $r -lt "$rounds" ]; do
	run a; run a; run a
	run s5 --slow-mm 5; run s10 --slow-mm 10; run s25 --slow-mm 25
	run h200 --host-us 200; run h600 --host-us 600
	r=$((r + 1))
	echo "pool: round $r of $rounds"
done
