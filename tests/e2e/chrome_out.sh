# tracefold chrome: every input format as a Chrome trace-event JSON timeline
# (docs/chrome-out.md), read by Python's strict JSON parser and checked
# against counts that tracefold computes on other paths (the aggregate's
# calls, info's counter samples and instants), then read back by tracefold:
# a Chrome input's profile survives the round trip exactly.
. tests/lib.sh
# the aggregate's calls, every thread (those that only wait too: a timeline has them all)
calls() { $TF -q top -n 0 --format json --keep-waiting "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["calls_total"])'; }
# the GPU annotations of a Kineto input (gpu_user_annotation: written on a
# track of their own, not calls: docs/gpu.md), from the input itself
annotations() {
	case $1 in
	*.json|*.json.gz) python3 -c '
import gzip,json,sys
d=json.load((gzip.open if sys.argv[1].endswith(".gz") else open)(sys.argv[1], "rt"))
print(sum(1 for e in (d["traceEvents"] if isinstance(d, dict) else d)
          if isinstance(e, dict) and e.get("cat") == "gpu_user_annotation" and e.get("ph") in ("X", "B")))' "$1" ;;
	*) echo 0 ;;
	esac
}
i=0
for t in $DATA/chrome/pytorch-legacy-small/trace.json $DATA/chrome/kineto-resnet50-gpu/*.json* \
	$DATA/chrome/catapult-unclosed-slices/*.json $DATA/chrome/viztracer-asyncio/*.json \
	$DATA/chrome/rocprofiler-memcpy/*.json.gz $DATA/tau/mpi_small $DATA/tau/threads \
	$DATA/otf2/tiny_otf2/traces.otf2 $DATA/otf2/scorep-ping-pong-mpi $DATA/otf2/scorep-mi300-hip \
	$DATA/chrome/hta-amd-mi250-rocm/*.json.gz \
	$DATA/chrome/chrome-devtools-116/*.json $DATA/chrome/dftracer-cm1-pfw/*.pfw.gz \
	$DATA/chrome/hta-simple-add-gpu/*.json.gz $DATA/chrome/lighthouse-cpu-profiler-m86/*.json \
	$DATA/chrome/tracelens-bert-small-h100/*.json.gz $DATA/chrome/rules/*.json $DATA/chrome/rules/*.jsonl \
	$DATA/chrome/rules/*.pfw; do
	[ -e "$t" ] || { fail "missing fixture $t"; continue; }
	i=$((i + 1)); b="$(basename "$(dirname "$t")")/$(basename "$t")"
	out=$TMP/o$i.trace.json
	$TF -q chrome "$t" -o "$out" || { fail "$b: chrome"; continue; }
	n=$(($(calls "$t") + $(annotations "$t"))); c=$(kind "$t" counter); s=$(kind "$t" instant)
	case $t in
	*.json|*.json.gz|*.jsonl|*.pfw|*.pfw.gz) f=$(python3 tests/tools/chrome_flow_pairs.py "$t") ;; # from the input itself
	*) f=$(kind "$t" send); [ "$f" = "$(kind "$t" recv)" ] || fail "$b: fixture with unmatched messages" ;;
	esac
	check "$b: strict JSON, $n X (the aggregate's calls and the GPU annotations), $c C, $s i events, $f arrows" \
		python3 tests/tools/chrome_out_check.py "$out" "$n" "$c" "$s" "$f"
	case $t in *.json|*.json.gz|*.jsonl|*.pfw|*.pfw.gz)
		table "$t" > "$TMP/a"; table "$out" > "$TMP/b"
		check "$b: read back, every function's self, total and calls are the input's" cmp "$TMP/a" "$TMP/b" ;;
	esac
done
# --phases be: B at the start, E at the end, nested in file order; same profile
for t in $DATA/chrome/pytorch-legacy-small/trace.json $DATA/chrome/catapult-unclosed-slices/*.json $DATA/tau/mpi_small; do
	b=$(basename "$t")
	$TF -q chrome --phases be "$t" -o "$TMP/be.json" || { fail "$b: --phases be"; continue; }
	check "$b: --phases be: strict JSON, B/E nested, as many pairs as calls" \
		python3 tests/tools/chrome_out_check.py "$TMP/be.json" "$(calls "$t")" "$(kind "$t" counter)" \
		"$(kind "$t" instant)" "$($TF -q chrome "$t" -o "$TMP/x.json" && grep -c '"ph":"s"' "$TMP/x.json")"
	table "$t" > "$TMP/a"; table "$TMP/be.json" > "$TMP/b"
	check "$b: --phases be: read back, every function's self, total and calls are the input's" cmp "$TMP/a" "$TMP/b"
done
expect_exit 2 "--phases takes x or be" $TF chrome --phases y "$DATA/tau/mpi_small" -o "$TMP/y.json"
# gzip by name; the same trace
t=$DATA/chrome/pytorch-legacy-small/trace.json
$TF -q chrome "$t" -o "$TMP/z.trace.json.gz" && $TF -q chrome "$t" -o "$TMP/z.json"
check "-o NAME.gz is gzip" sh -c "gzip -t '$TMP/z.trace.json.gz'"
check "... of the same trace" sh -c "gzip -dc '$TMP/z.trace.json.gz' | cmp - '$TMP/z.json'"
# convert picks it by name, with other outputs from the same read
$TF -q convert "$t" -o "$TMP/c.trace.json" -o "$TMP/c.pb.gz"
check "convert -o x.trace.json: the chrome writer" cmp "$TMP/c.trace.json" "$TMP/z.json"
# ranks: process names and sort indices in rank order
$TF -q chrome $DATA/tau/mpi_small -o "$TMP/r.json"
check "TAU ranks: pid N, a process_name, process_sort_index N" python3 -c '
import json,sys
ev=json.load(open(sys.argv[1]))["traceEvents"]
names={e["pid"]: e["args"]["name"] for e in ev if e["ph"]=="M" and e["name"]=="process_name"}
sorts={e["pid"]: e["args"]["sort_index"] for e in ev if e["ph"]=="M" and e["name"]=="process_sort_index"}
pids={e["pid"] for e in ev if e["ph"]=="X"}
assert pids == {0, 1} and set(names) == pids and all(sorts[p] == p for p in pids), (names, sorts)' "$TMP/r.json"
# MPI messages as arrows between the ranks, each send to its receive
check "TAU 2 ranks: every message an arrow from one rank to the other" python3 -c '
import json,sys
ev=json.load(open(sys.argv[1]))["traceEvents"]
fl={}
for e in ev:
    if e["ph"] in "sf": fl.setdefault(e["id"], {})[e["ph"]] = e
assert len(fl) == 6, len(fl)
for i, p in fl.items():
    assert p["s"]["pid"] != p["f"]["pid"] and p["s"]["args"]["tag"] == p["f"]["args"]["tag"], p
    assert p["s"]["args"]["bytes"] > 0' "$TMP/r.json"
# repairs are in args
$TF -q chrome $DATA/chrome/catapult-unclosed-slices/*.json -o "$TMP/u.json"
check "repaired spans carry args.repaired" python3 -c '
import json,sys
ev=json.load(open(sys.argv[1]))["traceEvents"]
assert any("unclosed" in e.get("args",{}).get("repaired",[]) for e in ev)' "$TMP/u.json"
# epoch-sized times are shifted, exactly
printf '[{"name":"a","ph":"X","ts":1700000000123456.789,"dur":1.5,"pid":1,"tid":1}]' > "$TMP/epoch.json"
$TF -q chrome "$TMP/epoch.json" -o "$TMP/e.json"
check "epoch times: shifted by whole 1000 s, ns kept" python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
assert d["otherData"]["time_shift_ns"] == 1699999000000000000, d["otherData"]
assert open(sys.argv[1]).read().count("\"ts\":1000123456.789,\"dur\":1.5,") == 1' "$TMP/e.json"
# a failed run leaves nothing and keeps what was there
echo keep > "$TMP/k.json"
expect_exit 3 "unreadable input" $TF chrome "$TMP/nope.json" -o "$TMP/k.json"
check "... the existing output is untouched" grep -qx keep "$TMP/k.json"
expect_exit 2 "standard output is refused" $TF chrome "$t" -o -
expect_exit 2 "--partition is not a chrome option" $TF chrome "$t" --partition rank -o "$TMP/p.json"
finish
