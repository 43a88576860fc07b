# GPU streams through every timeline format and back (issue 26 item 5,
# docs/gpu.md "Timelines"): each GPU-bearing input (an OTF2 archive with
# Score-P's HIP streams, the Kineto, HTA, TraceLens and rocprofiler traces)
# written as chrome, perfetto and otf2, read back, must give the input's
# profile: per function its wall and gpu self and total time and calls, and
# the gpu call paths (a kernel read back as CPU work, or put under
# [unattributed gpu] where the input nested it in place, changes them); the
# same through a chain of all three; the GPU streams stay GPU streams
# (info's "(gpu)" tracks).  Oracle: the input's own profile, which otf2.sh
# (otf2-print) and gpu.sh (tests/tools/gpu_oracle.py) check independently.
# Before the fix the OTF2 archive through chrome read 13.55 s of wall
# (kernels as CPU time) instead of 7.19 s, and through perfetto its kernels
# went under [unattributed gpu].
. tests/lib.sh
# gpu_paths INPUT: the gpu self time per call path (folded stacks)
gpu_paths() { $TF -q fold --sample-type gpu "$1" -o - | LC_ALL=C sort; }
gpu_tracks() { $TF -q info "$1" | grep -c '(gpu)'; }
out_of() {
	case $1 in
	chrome) echo "$TMP/rt.json" ;;
	perfetto) echo "$TMP/rt.pftrace" ;;
	otf2) echo "$TMP/rt_otf2" ;;
	esac
}
for in in $DATA/otf2/scorep-mi300-hip $DATA/chrome/kineto-resnet50-gpu/*.json.gz \
	$DATA/chrome/hta-simple-add-gpu/*.json.gz $DATA/chrome/hta-amd-mi250-rocm/*.json.gz \
	$DATA/chrome/tracelens-bert-small-h100/*.json.gz $DATA/chrome/rocprofiler-memcpy/*.json.gz \
	$DATA/chrome/pytorch211-h200-gpt/*.json.gz; do
	[ -e "$in" ] || { fail "missing fixture $in"; continue; }
	b=$(basename "$(dirname "$in")")
	[ "$b" = otf2 ] && b=$(basename "$in")
	table "$in" > "$TMP/want.wall"
	table --sample-type gpu "$in" > "$TMP/want.gpu"
	gpu_paths "$in" > "$TMP/want.paths"
	ng=$(gpu_tracks "$in")
	[ "$ng" -gt 0 ] || fail "$b: the input has no GPU stream"
	for f in chrome perfetto otf2; do
		o=$(out_of $f)
		rm -rf "$o"
		$TF -q $f "$in" -o "$o" 2>/dev/null || { fail "$b -> $f: cannot write"; continue; }
		table "$o" > "$TMP/got.wall"
		table --sample-type gpu "$o" > "$TMP/got.gpu"
		gpu_paths "$o" > "$TMP/got.paths"
		check "$b -> $f -> read back: wall per function (self, total, calls) as the input's" \
			cmp -s "$TMP/want.wall" "$TMP/got.wall"
		check "$b -> $f -> read back: gpu per function as the input's" cmp -s "$TMP/want.gpu" "$TMP/got.gpu"
		check "$b -> $f -> read back: gpu per call path as the input's" cmp -s "$TMP/want.paths" "$TMP/got.paths"
		check "$b -> $f -> read back: its $ng GPU streams are GPU streams" test "$(gpu_tracks "$o")" -ge "$ng"
	done
done
# a chain through every format: OTF2 -> chrome -> perfetto -> otf2 -> chrome
in=$DATA/otf2/scorep-mi300-hip
rm -rf "$TMP/c1.json" "$TMP/p1.pftrace" "$TMP/o1" "$TMP/c2.json"
$TF -q chrome "$in" -o "$TMP/c1.json" && $TF -q perfetto "$TMP/c1.json" -o "$TMP/p1.pftrace" &&
	$TF -q otf2 "$TMP/p1.pftrace" -o "$TMP/o1" && $TF -q chrome "$TMP/o1" -o "$TMP/c2.json" ||
	fail "chain: cannot write"
table "$in" > "$TMP/want.wall"
table --sample-type gpu "$in" > "$TMP/want.gpu"
table "$TMP/c2.json" > "$TMP/got.wall"
table --sample-type gpu "$TMP/c2.json" > "$TMP/got.gpu"
check "chain otf2 -> chrome -> perfetto -> otf2 -> chrome: wall per function as the input's" \
	cmp -s "$TMP/want.wall" "$TMP/got.wall"
check "chain otf2 -> chrome -> perfetto -> otf2 -> chrome: gpu per function as the input's" \
	cmp -s "$TMP/want.gpu" "$TMP/got.gpu"
# the numbers of the issue, written down: 7.19 s of wall, 6.36 s of gpu
check "scorep-mi300-hip -> chrome: wall total 7.190 s (not 13.554 s), gpu 6.364 s" sh -c "
	$TF -q top '$TMP/c1.json' | head -1 | grep -q 'total 7.190 s' &&
	$TF -q top --sample-type gpu '$TMP/c1.json' | head -1 | grep -q 'total 6.364 s'"
finish
