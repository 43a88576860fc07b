# GPU coverage (docs/gpu.md "Coverage"): how much GPU time is under a CPU
# call path, and why the rest is not (no correlation id, a launch before the
# trace started, a launch not in the trace), in info (text and JSON), the
# footer of top --sample-type gpu and top's JSON "coverage".  Oracle:
# tests/tools/coverage_check.py (Python's json, exact decimals, and sqlite3
# over the Nsight export).  The fixtures as they are (all attributed, all
# without id, a 1 s Nsight cut) and a variant of the HTA trace made here
# with all three reasons.  With the previous binary 18 of the 23 checks fail
# (no gpu_coverage, no coverage, no footer, no reasons); those that pass are
# the oracle's own three, the counters unchanged by --window and no footer
# for wall (behaviour that was and stays so).
. tests/lib.sh
cmp_info() { # TRACE ORACLE INFO.json: info's gpu_coverage and diagnostics = the oracle's
	python3 -c '
import json,sys
o=json.load(open(sys.argv[1])); i=json.load(open(sys.argv[2]))
c=i["gpu_coverage"]; d=i["diagnostics"]
assert c["gpu_ns"] == o["gpu_ns"] and c["attributed_ns"] == o["attributed"]["ns"], (c, o)
assert c["unattributed_ns"] == o["gpu_ns"] - o["attributed"]["ns"], (c, o)
assert d["gpu_attributed"] == o["attributed"]["activities"], (d["gpu_attributed"], o)
for k, n in (("no_correlation_id", "no_corr"), ("launch_before_trace", "early"), ("launch_not_in_trace", "no_launch")):
    assert c["unattributed"][k] == o[k], (k, c["unattributed"][k], o[k])
    assert d["gpu_unattributed_" + n] == o[k]["activities"] and d["gpu_unattributed_" + n + "_ns"] == o[k]["ns"], (k, o[k])
assert d["gpu_unattributed_ns"] == sum(o[k]["ns"] for k in ("no_correlation_id", "launch_before_trace", "launch_not_in_trace"))' "$1" "$2"
}
cmp_top() { # ORACLE TOP.json TOP.txt: top's coverage object and footer = the oracle's
	python3 -c '
import json,re,sys
o=json.load(open(sys.argv[1])); t=json.load(open(sys.argv[2])); txt=open(sys.argv[3]).read().splitlines()
c=t["coverage"]
assert t["total"] == c["gpu_ns"] == o["gpu_ns"] and c["attributed_ns"] == o["attributed"]["ns"], (c, o)
for k in ("no_correlation_id", "launch_before_trace", "launch_not_in_trace"):
    assert c["unattributed"][k] == o[k], (k, c["unattributed"][k], o[k])
f=txt[-1]
pct=100.0 * o["attributed"]["ns"] / o["gpu_ns"]
assert f.startswith("gpu: %.1f%% of " % pct) and " under a CPU call path" in f, f
said={"with no correlation id": "no_correlation_id",
      "with no launch in the trace (launch before the trace started)": "launch_before_trace",
      "with no launch in the trace (trace cut, or launch lost)": "launch_not_in_trace"}
got={said[m.group(2)]: int(m.group(1)) for m in re.finditer(r"(\d+) activities (?:\([^)]*\) )?(with no correlation id|with no launch in the trace \([^)]*\))", f)}
want={k: o[k]["activities"] for k in said.values() if o[k]["activities"]}
assert got == want, (got, want, f)
assert ("unattributed" in f) == bool(want), f' "$1" "$2" "$3"
}
run_all() { # NAME TRACE [options]: the oracle, info, top; compared
	n=$1 t=$2
	shift 2
	python3 tests/tools/coverage_check.py "$t" > "$TMP/$n.o.json" || fail "$n: coverage_check.py"
	$TF -q info --format json "$@" "$t" > "$TMP/$n.info.json" || fail "$n: info"
	$TF -q top --sample-type gpu -n 3 --format json "$@" "$t" > "$TMP/$n.top.json" || fail "$n: top --format json"
	$TF -q top --sample-type gpu -n 3 "$@" "$t" > "$TMP/$n.top.txt" || fail "$n: top"
	check "$n: info's gpu_coverage and gpu_unattributed_* diagnostics = the oracle's" cmp_info "$TMP/$n.o.json" "$TMP/$n.info.json"
	check "$n: top --sample-type gpu: the coverage object and the footer = the oracle's" cmp_top "$TMP/$n.o.json" "$TMP/$n.top.json" "$TMP/$n.top.txt"
}
hta=$DATA/chrome/hta-simple-add-gpu/benchmark_result_493459_1694039959_trace.json.gz
run_all hta "$hta"
run_all resnet "$DATA/chrome/kineto-resnet50-gpu/worker0.1623143089861.pt.trace.json.gz"
run_all pt211 "$DATA/chrome/pytorch211-h200-gpt/trace.json.gz"
run_all tracelens "$DATA/chrome/tracelens-bert-small-h100/gaunernst_bert-small-uncased__1016001.json.gz"
run_all rocprof "$DATA/chrome/rocprofiler-memcpy/memcpy-host-device.rocprofiler.json.gz"
check "rocprofiler: both memcpys without correlation id (the fixture's README: 546 us)" python3 -c '
import json,sys
o=json.load(open(sys.argv[1]))
assert o["no_correlation_id"] == {"activities": 2, "ns": 546000} and o["gpu_ns"] == 546000, o' "$TMP/rocprof.o.json"
nsys=$DATA/nsys/h100-2gpu/h100_2gpu_1s.sqlite
run_all nsys "$nsys"
check "nsys: 2276 activities, 842,494,947 ns launched before the 1 s cut (the fixture's README)" python3 -c '
import json,sys
o=json.load(open(sys.argv[1]))
assert o["launch_before_trace"] == {"activities": 2276, "ns": 842494947}, o
assert o["launch_not_in_trace"]["activities"] == 0 and o["no_correlation_id"]["activities"] == 0, o' "$TMP/nsys.o.json"
check "nsys: info's text says the share and the reason" sh -c "
	$TF -q info '$nsys' | grep -qx '  gpu: 56.2% of 1.926 s under a CPU call path; unattributed 842.49 ms: 2276 activities with no launch in the trace (launch before the trace started)'"

# the HTA trace with all three reasons: the launches of its 12 smallest
# correlation ids dropped (a trace that started later), 5 launches of
# kernels in the middle dropped (lost), and 2 kernels without their id
python3 - "$hta" "$TMP/cut.json" <<'PY'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
ev = d["traceEvents"]
rt = sorted({e["args"]["correlation"] for e in ev if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})})
kern = sorted({e["args"]["correlation"] for e in ev if e.get("cat") == "kernel"})
drop = set(rt[:12]) | set(kern[len(kern) // 2:len(kern) // 2 + 5])
ev = [e for e in ev if not (e.get("cat") == "cuda_runtime" and e.get("args", {}).get("correlation") in drop)]
n = 0
for e in ev:
    if e.get("cat") == "kernel" and n < 2 and e["args"]["correlation"] not in drop:
        del e["args"]["correlation"]
        n += 1
d["traceEvents"] = ev
json.dump(d, open(sys.argv[2], "w"))
PY
run_all cut "$TMP/cut.json"
check "cut: the variant has all three reasons (the oracle)" python3 -c '
import json,sys
o=json.load(open(sys.argv[1]))
assert all(o[k]["activities"] > 0 for k in ("no_correlation_id", "launch_before_trace", "launch_not_in_trace")), o' "$TMP/cut.o.json"
run_all cut-spill "$TMP/cut.json" --sort-mem 0
$TF -q info --format json --window 20s: "$TMP/cut.json" > "$TMP/win.json" || fail "info --window"
check "cut: a launch filtered out by --window still gives its activities their call path (the join comes before the filters)" python3 -c '
import json,sys
a=json.load(open(sys.argv[1]))["diagnostics"]; b=json.load(open(sys.argv[2]))["diagnostics"]
k=[x for x in a if x.startswith("gpu_")]
assert {x: a[x] for x in k} == {x: b[x] for x in k}, [(x, a[x], b[x]) for x in k if a[x] != b[x]]
assert b["window_spans_out"] > 0, b' "$TMP/cut.info.json" \
	"$TMP/win.json"
# a profile keeps the counters in its comments, but top of a profile cannot
# tell the reasons: it says so
$TF -q profile "$TMP/cut.json" -o "$TMP/cut.pb.gz" || fail "profile"
check "top of a profile: the share = the trace's, reasons not known" sh -c "
	$TF -q top --sample-type gpu '$TMP/cut.pb.gz' | tail -1 | grep -q 'under a CPU call path; unattributed .* (reasons not known: read the trace)$' &&
	test \"\$($TF -q top --sample-type gpu '$TMP/cut.pb.gz' | tail -1 | cut -d';' -f1)\" = \"\$(tail -1 '$TMP/cut.top.txt' | cut -d';' -f1)\""
check "wall: no gpu footer, no coverage object" sh -c "
	$TF -q top --sample-type wall -n 3 '$hta' | tail -1 | grep -vq '^gpu:' &&
	! $TF -q top --sample-type wall -n 3 --format json '$hta' | grep -q coverage"
finish
