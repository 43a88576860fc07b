# Collectives named (docs/collectives.md): NCCL/gloo regions and kernels
# carry labels collective, comm_bytes, dtype, pg, pg_ranks; top --by-label
# sums by them.  Data: real gloo DDP ranks from Debian's PyTorch 1.13
# (legacy profiler: names only) and hand-made Kineto ranks with the args of
# PyTorch 2.x (record_param_comms, ncclDevKernel_*).  Oracle:
# tests/tools/comms_check.py, which reads the JSON itself.  Without the
# change the profiles have no collective label: every comms_check line
# with a collective fails, and so do the label, --by-label and Parquet
# checks.
. tests/lib.sh
g=$DATA/chrome/torch113-gloo-ddp
k=$DATA/chrome/kineto-collectives-handmade
for d in $g $k; do
	n=$(basename $d)
	if $TF -q profile $d/*.json.gz -o "$TMP/$n.pb.gz" 2>"$TMP/err"; then
		$TF -q top --by-label collective,comm_bytes --format json -n 0 $d/*.json.gz > "$TMP/$n.top.json" 2>>"$TMP/err" ||
			fail "top --by-label $n"
		if python3 tests/tools/comms_check.py --top "$TMP/$n.top.json" "$TMP/$n.pb.gz" $d/*.json.gz > "$TMP/$n.tap"; then
			ok "$n: per collective and size, gpu and wall time, calls (pprof -raw) and top --by-label rows = comms_check.py's"
		else
			fail "$n: comms_check.py"; grep -v '^ok' "$TMP/$n.tap" | sed 's/^/#   /'
		fi
		[ $d = $k ] || continue # gloo on CPUs: no GPU time
		$TF -q top --by-label collective,comm_bytes --sample-type gpu --format json -n 0 $d/*.json.gz > "$TMP/$n.gtop.json" 2>>"$TMP/err"
		python3 tests/tools/comms_check.py --top "$TMP/$n.gtop.json" "$TMP/$n.pb.gz" $d/*.json.gz > "$TMP/$n.gtap" ||
			{ fail "$n: top --by-label --sample-type gpu"; grep -v '^ok' "$TMP/$n.gtap" | sed 's/^/#   /'; }
	else
		fail "profile $n"; sed 's/^/#   /' "$TMP/err"
	fi
done
# the Parquet collectives table (one row per call, docs/schema.md): wall time
# of the calls and GPU time of their kernels per collective and size, summed
# by DuckDB = comms_check.py's (the hand-made ranks: one kernel per call and
# no gloo worker regions, which are no calls; tests/e2e/collectives_table.sh
# checks every row of both fixtures)
q="SELECT kind, bytes, sum(end_ns - begin_ns) FILTER (WHERE slice_id IS NOT NULL), sum(gpu_end_ns - gpu_begin_ns)
FROM read_parquet('\$DIR/collectives/**/*.parquet') GROUP BY ALL"
n=$(basename $k)
if $TF -q events --partition rank $k/*.json.gz -o "$TMP/$n.ev" 2>"$TMP/err" &&
	node tests/tools/duckdb_query.mjs "$TMP/$n.ev" "$q" > "$TMP/$n.rows" 2>"$TMP/err" &&
	python3 tests/tools/comms_check.py --duckdb "$TMP/$n.rows" "$TMP/$n.pb.gz" $k/*.json.gz > "$TMP/$n.dtap"; then
	ok "$n: Parquet collectives (DuckDB): wall of the calls and gpu of their kernels per collective and size = comms_check.py's"
else
	fail "$n: Parquet collectives"; sed 's/^/#   /' "$TMP/err"; grep -v '^ok' "$TMP/$n.dtap" | sed 's/^/#   /'
fi
$TF -q events $DATA/chrome/hta-simple-add-gpu/*.json* -o "$TMP/plain.ev"
check "a trace without collectives: no collectives table, the other seven as before" test ! -e "$TMP/plain.ev/collectives" -a -d "$TMP/plain.ev/slices"
# the hand-made ranks: every label, as pprof shows them
pprof -tags "$TMP/kineto-collectives-handmade.pb.gz" > "$TMP/tags" 2>/dev/null
check "pprof -tags: dtype, pg, pg_ranks and comm_bytes (a number in bytes) of the collectives" python3 -c '
import re,sys
t=open(sys.argv[1]).read()
for want in ("dtype: Total", "Float", "BFloat16", "Long", "pg: Total", "pg_ranks: Total", "[0,1]", "comm_bytes: Total", "4MB", "8kB", "2kB"):
    assert want in t, (want, t)' "$TMP/tags"
# GPU time of all_reduce by pprof -tagfocus: the 4 kernels of 4 MiB
v=$(pprof -raw -tagfocus=collective=all_reduce -tagfocus=comm_bytes=4MB "$TMP/kineto-collectives-handmade.pb.gz" 2>/dev/null |
	python3 -c 'import sys; sys.path.insert(0, "tests/tools"); import pprof_raw
ty, s, l = pprof_raw.parse(sys.stdin.read()); print(sum(dict(zip(ty, x["values"])).get("gpu/nanoseconds", 0) for x in s))')
check "pprof -tagfocus collective=all_reduce,comm_bytes=4MB: gpu 1222000 ns (the fixture README's)" test "$v" = 1222000
# a trace without collectives gets no new label
$TF -q profile $DATA/chrome/pytorch211-h200-gpt/trace.json.gz -o "$TMP/plain.pb.gz"
check "no collective, no new label (pytorch211-h200-gpt: rank or pid, thread, and device on its memory samples only)" python3 -c '
import sys; sys.path.insert(0, "tests/tools"); import pprof_raw
keys = set(pprof_raw.summarize(sys.argv[1])["labels"])
assert keys <= {"rank", "pid", "thread", "device"}, keys  # device: docs/memory.md' "$TMP/plain.pb.gz"
# the same labels read back from the profile (top of a pprof input), with -j 2
$TF -q top --by-label collective,comm_bytes --format json -n 0 "$TMP/kineto-collectives-handmade.pb.gz" > "$TMP/p.json"
$TF -q top -j 2 --by-label collective,comm_bytes --format json -n 0 $k/*.json.gz > "$TMP/j.json"
check "top --by-label: the same rows from the profile and from the traces with -j 2" python3 -c '
import json,sys
a,b,c=(json.load(open(p))["rows"] for p in sys.argv[1:])
assert a == b == c, (a, b, c)' "$TMP/kineto-collectives-handmade.top.json" "$TMP/p.json" "$TMP/j.json"
# diff --by-label: rank 0 against rank 1 per collective and size, each side = comms_check.py's for its file
$TF -q diff --by-label collective,comm_bytes --sample-type gpu --format json -n 0 $k/rank0.json.gz $k/rank1.json.gz > "$TMP/diff.json"
check "diff --by-label collective,comm_bytes --sample-type gpu: base and new per row = comms_check.py's for each rank" python3 -c '
import json,sys; sys.path.insert(0, "tests/tools"); import comms_check as c
d = json.load(open(sys.argv[1]))
got = {r["name"]: (r["self"]["base"], r["self"]["new"]) for r in d["rows"]}
b, n = c.expected([sys.argv[2]])[0], c.expected([sys.argv[3]])[0]
name = lambda k: "collective=%s comm_bytes=%s" % (k[0], "-" if k[1] is None else k[1])
want = {name(k): (b.get(k, 0), n.get(k, 0)) for k in set(b) | set(n)}
want["[without the labels]"] = (200000, 200000)
assert got == want, (got, want)' "$TMP/diff.json" $k/rank0.json.gz $k/rank1.json.gz
expect_exit 2 "top --by-label with no key" $TF -q top --by-label , $k/rank0.json.gz
finish
