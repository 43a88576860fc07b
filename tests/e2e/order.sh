# Canonical output (docs/pprof.md "Order"): a profile's bytes depend only on
# what it holds, not on the order its inputs were given or read in.  Each
# check writes the same content twice, the inputs in two orders, and
# compares the decompressed bytes: profile of Chrome traces with GPU and
# memory events, -c all over traces with several counters (Chrome, OTF2,
# TAU), merge of pprof profiles, and the folded stacks, flame graph and top
# table of the same inputs.  The sample types' order is checked against the
# rule (calls, wall, gpu, alloc_space, alloc_objects, then counters in -c
# order, else by name) with go tool pprof -raw.
. tests/lib.sh

K=$DATA/chrome/kineto-resnet50-gpu/worker0.1623143089861.pt.trace.json.gz
H=$DATA/chrome/hta-simple-add-gpu/benchmark_result_493459_1694039959_trace.json.gz
M=$DATA/chrome/hta-amd-mi250-rocm/mi250_minitoy_train_ROCm6_2_kineto.json.gz
B=$DATA/chrome/rules/bazel-string-counters.json
X=$DATA/chrome/rules/x-without-dur.json
O1=$DATA/otf2/scorep-mi300-hip/traces.otf2
O2=$DATA/otf2/tiny_otf2/traces.otf2

# same DESC FILE1 FILE2: the decompressed bytes are equal
same() {
	if [ -s "$2" ] && [ -s "$3" ] && gzip -dcf "$2" > "$TMP/s1" && gzip -dcf "$3" > "$TMP/s2" && cmp -s "$TMP/s1" "$TMP/s2"; then
		ok "$1"
	else
		fail "$1"; cmp "$TMP/s1" "$TMP/s2" 2>&1 | sed 's/^/#   /' | head -3
	fi
}
# both DESC ARGS -- IN1 IN2: `profile ARGS IN1 IN2` and `profile ARGS IN2 IN1` give the same bytes
both() {
	desc=$1; shift
	args=
	while [ "$1" != -- ]; do args="$args $1"; shift; done
	shift
	# shellcheck disable=SC2086
	$TF -q profile $args "$1" "$2" -o "$TMP/p1.pb.gz" 2>"$TMP/err1"
	# shellcheck disable=SC2086
	$TF -q profile $args "$2" "$1" -o "$TMP/p2.pb.gz" 2>"$TMP/err2"
	same "$desc" "$TMP/p1.pb.gz" "$TMP/p2.pb.gz"
}
# types FILE: the sample types of a profile, as go tool pprof -raw lists them
types() { pprof -raw "$1" 2>/dev/null | sed -n '/^Samples:/{n;p;q}' | sed 's/\[dflt\]//'; }

both "profile: two Chrome traces with GPU and memory events, either order" -- "$K" "$H"
both "profile: two Chrome GPU traces (ROCm, CUDA), either order" -- "$M" "$K"
both "profile -c all: Chrome traces with different counters, either order" -c all -- "$B" "$X"
both "profile -c all: Chrome GPU traces, either order" -c all --keep-trace-span -- "$K" "$M"
both "profile -c all: OTF2 archives with 30 and 2 metrics, either order" -c all -- "$O1" "$O2"
both "profile -c all: TAU traces, either order" -c all -- "$DATA/tau/mpi_small" "$DATA/tau/tiny"
both "profile --label-steps: Kineto steps, either order" --label-steps -- "$K" "$H"

# the type order: the fixed types, then the counters by name (-c all) ...
$TF -q profile "$H" "$K" -o "$TMP/t.pb.gz"
t=$(types "$TMP/t.pb.gz")
[ "$t" = "calls/count wall/nanoseconds gpu/nanoseconds alloc_space/bytes alloc_objects/count free_space/bytes free_objects/count" ] &&
	ok "types: calls, wall, gpu, alloc_space, alloc_objects, free_space, free_objects" || fail "types: got '$t'"
$TF -q profile -c all "$X" "$B" -o "$TMP/t.pb.gz"
t=$(types "$TMP/t.pb.gz")
[ "$t" = "calls/count wall/nanoseconds counter:CPU usage (Bazel)/count counter:Memory usage (Bazel)/count counter:action count/count counter:memory/count" ] &&
	ok "types: -c all orders the counters by name" || fail "types -c all: got '$t'"
# ... or in the order -c names them, whatever order they appear in
$TF -q profile -c "memory,action count,CPU usage (Bazel)" "$B" "$X" -o "$TMP/t.pb.gz"
t=$(types "$TMP/t.pb.gz")
[ "$t" = "calls/count wall/nanoseconds counter:memory/count counter:action count/count counter:CPU usage (Bazel)/count" ] &&
	ok "types: -c LIST orders the counters as listed" || fail "types -c LIST: got '$t'"

# merge: pprof profiles (different comments and mapping names) in any order
$TF -q profile "$K" -o "$TMP/k.pb.gz"
$TF -q profile "$H" "$K" -o "$TMP/hk.pb.gz"
$TF -q profile "$K" "$H" "$K" -o "$TMP/khk.pb.gz"
$TF -q merge "$TMP/k.pb.gz" "$TMP/hk.pb.gz" "$TMP/khk.pb.gz" -o "$TMP/m1.pb.gz"
$TF -q merge "$TMP/khk.pb.gz" "$TMP/k.pb.gz" "$TMP/hk.pb.gz" -o "$TMP/m2.pb.gz"
$TF -q merge "$TMP/hk.pb.gz" "$TMP/khk.pb.gz" "$TMP/k.pb.gz" -o "$TMP/m3.pb.gz"
same "merge A B C = merge C A B" "$TMP/m1.pb.gz" "$TMP/m2.pb.gz"
same "merge A B C = merge B C A" "$TMP/m1.pb.gz" "$TMP/m3.pb.gz"
$TF -q profile -c all "$B" -o "$TMP/b.pb.gz"
$TF -q profile -c all "$B" "$B" -o "$TMP/bb.pb.gz"
$TF -q merge "$TMP/b.pb.gz" "$TMP/bb.pb.gz" -o "$TMP/m1.pb.gz"
$TF -q merge "$TMP/bb.pb.gz" "$TMP/b.pb.gz" -o "$TMP/m2.pb.gz"
same "merge A B = merge B A (counters)" "$TMP/m1.pb.gz" "$TMP/m2.pb.gz"
# the merge of profiles holds what profiling all the traces at once holds
table "$TMP/m1.pb.gz" > "$TMP/t1"
$TF -q profile -c all "$B" "$B" "$B" -o "$TMP/bbb.pb.gz"
table "$TMP/bbb.pb.gz" > "$TMP/t2"
cmp -s "$TMP/t1" "$TMP/t2" && ok "merge of profiles = profile of the traces (values)" || fail "merge values differ"

# other outputs of the aggregate
$TF -q fold "$K" "$H" -o "$TMP/f1.folded"
$TF -q fold "$H" "$K" -o "$TMP/f2.folded"
same "fold: either order" "$TMP/f1.folded" "$TMP/f2.folded"
$TF -q flame "$K" "$H" -o "$TMP/f1.svg"
$TF -q flame "$H" "$K" -o "$TMP/f2.svg"
same "flame: either order" "$TMP/f1.svg" "$TMP/f2.svg"
$TF -q top -n 0 "$K" "$H" > "$TMP/t1"
$TF -q top -n 0 "$H" "$K" > "$TMP/t2"
same "top: either order" "$TMP/t1" "$TMP/t2"
finish
