# Traces written by other tools (docs/format-chrome.md, docs/stack-rules.md):
# the command-line side of each rule.  The profiles of the fixtures are
# checked against an independent implementation in chrome_profile.sh; here:
# options, messages, time moved by repairs, and the documented filters.
. tests/lib.sh
# total of a profile's default sample type, from go tool pprof -raw
total() { python3 tests/tools/pprof_raw.py "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["total"]["wall/nanoseconds"])'; }

# ---- Bazel shape: an overlap of seconds is a cut, not a clip
cat > "$TMP/bazel.json" <<'EOF'
{"otherData":{"build_id":"x"},"traceEvents":[
{"ph":"M","name":"thread_name","pid":1,"tid":"5","args":{"name":"skyframe-evaluator 0"}},
{"ph":"X","name":"merged 3 events","cat":"merged","pid":1,"tid":"5","ts":"0","dur":"5000000"},
{"ph":"X","name":"Linking","cat":"action processing","pid":1,"tid":"5","ts":"4500000","dur":"9870000"},
{"ph":"C","name":"action count","pid":1,"tid":"5","ts":"100","args":{"action":"8.395000000000001"}}
]}
EOF
expect_exit 0 "bazel shape: profile" $TF profile "$TMP/bazel.json" -o "$TMP/bazel.pb.gz"
grep -q "overlap_cut=1 (moved 500 ms)" "$TMP/err" && ok "stderr says the overlap cut and the time it moved" ||
	{ fail "stderr says the overlap cut and the time it moved"; sed 's/^/#   /' "$TMP/err"; }
t=$(total "$TMP/bazel.pb.gz")
check "bazel shape: total $t == busy time 14.37 s (nothing lost)" test "$t" -eq 14370000000
pprof -comments "$TMP/bazel.pb.gz" 2>/dev/null > "$TMP/comments"
check "the profile's comment has overlap_cut_ns" grep -q "overlap_cut=1, overlap_cut_ns=500000000" "$TMP/comments"
$TF info --format json "$TMP/bazel.json" > "$TMP/info.json" 2>/dev/null
check "info --format json has overlap_cut_ns and the string-valued counter" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
g = d["diagnostics"]
assert g["overlap_cut"] == 1 and g["overlap_cut_ns"] == 500000000, g
assert g["child_clipped_ns"] == 0 and g["bad_event"] == 0, g
assert [c["name"] for c in d["counters"]] == ["action count"], d["counters"]' "$TMP/info.json"
$TF info "$TMP/bazel.json" > "$TMP/info.txt" 2>/dev/null
check "info text shows the time moved" grep -q "overlap_cut *(repair, moved 500 ms)" "$TMP/info.txt"
# a tolerance larger than the overhang clips it instead (the 0.1.0 behaviour)
expect_exit 0 "--clip-tolerance 10s" $TF profile --clip-tolerance 10s "$TMP/bazel.json" -o "$TMP/clip.pb.gz"
grep -q "child_clipped=1 (moved 9.37 s)" "$TMP/err" && ok "--clip-tolerance 10s: the overhang is clipped and its time said" ||
	{ fail "--clip-tolerance 10s: the overhang is clipped and its time said"; sed 's/^/#   /' "$TMP/err"; }
t=$(total "$TMP/clip.pb.gz")
check "--clip-tolerance 10s: total $t == 14.37 s - 9.37 s clipped" test "$t" -eq 5000000000
expect_exit 2 "--clip-tolerance without a unit" $TF profile --clip-tolerance 5 "$TMP/bazel.json" -o "$TMP/x.pb.gz"
grep -q "needs a duration with a unit" "$TMP/err" && ok "--clip-tolerance says what it needs" || fail "--clip-tolerance says what it needs"
for c in info top diff; do
	$TF $c --help | grep -q -- "--clip-tolerance" && ok "$c takes --clip-tolerance" || fail "$c takes --clip-tolerance"
done

# ---- -c NAME that matches nothing is said
expect_exit 0 "-c with an unknown counter name" $TF profile -c "action count,nope" "$TMP/bazel.json" -o "$TMP/c.pb.gz"
grep -q "no counter named 'nope'" "$TMP/err" && ok "-c nope: says no counter is named so" || fail "-c nope: says no counter is named so"
grep -q "action count'" "$TMP/err" && fail "-c: a counter that exists is not reported" || ok "-c: a counter that exists is not reported"
printf '[{"ph":"X","name":"a","ts":1,"dur":1}]' > "$TMP/noc.json"
expect_exit 0 "-c all on a trace without counters" $TF profile -c all "$TMP/noc.json" -o "$TMP/c.pb.gz"
grep -q "the input has no counters" "$TMP/err" && ok "-c all: says there are none" || fail "-c all: says there are none"

# ---- Kineto's whole-trace span: out by default, --keep-trace-span keeps it
cat > "$TMP/kineto.json" <<'EOF'
{"schemaVersion":1,"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":10,"tid":10,"ts":100,"dur":40},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":10,"tid":10,"ts":150,"dur":10},
{"ph":"X","cat":"Trace","name":"PyTorch Profiler (0)","pid":"Spans","tid":"PyTorch Profiler","ts":0,"dur":1000}
]}
EOF
$TF top "$TMP/kineto.json" > "$TMP/top.txt" 2>"$TMP/err"
grep -q "PyTorch Profiler" "$TMP/top.txt" && fail "the Trace span is left out of top" || ok "the Trace span is left out of top"
check "top's total is the ops' busy time (50 us)" grep -q "total 50.00 us" "$TMP/top.txt"
$TF top --keep-trace-span "$TMP/kineto.json" > "$TMP/top.txt" 2>"$TMP/err"
check "--keep-trace-span keeps it" grep -q "PyTorch Profiler (0)" "$TMP/top.txt"
$TF info --format json "$TMP/kineto.json" > "$TMP/info.json" 2>/dev/null
check "info counts it as trace_span" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["diagnostics"]["trace_span"] == 1' "$TMP/info.json"

# ---- clang -ftime-trace: the documented pprof filter removes the Total tracks
cat > "$TMP/clang.json" <<'EOF'
{"traceEvents":[
{"pid":1,"tid":0,"ph":"X","ts":0,"dur":900,"name":"ExecuteCompiler"},
{"pid":1,"tid":0,"ph":"X","ts":10,"dur":500,"name":"Frontend"},
{"pid":1,"tid":0,"ph":"X","ts":20,"dur":200,"name":"Source","args":{"detail":"a.h"}},
{"pid":1,"tid":0,"ph":"X","ts":300,"dur":100,"name":"Source","args":{"detail":"b.h"}},
{"pid":1,"tid":0,"ph":"X","ts":600,"dur":250,"name":"Backend"},
{"pid":1,"tid":1,"ph":"X","ts":0,"dur":900,"name":"Total ExecuteCompiler","args":{"count":1,"avg ms":0}},
{"pid":1,"tid":2,"ph":"X","ts":0,"dur":500,"name":"Total Frontend","args":{"count":1,"avg ms":0}},
{"pid":1,"tid":3,"ph":"X","ts":0,"dur":300,"name":"Total Source","args":{"count":2,"avg ms":0}},
{"pid":1,"tid":4,"ph":"X","ts":0,"dur":250,"name":"Total Backend","args":{"count":1,"avg ms":0}},
{"cat":"","pid":1,"tid":0,"ts":0,"ph":"M","name":"process_name","args":{"name":"clang-16"}}
],"beginningOfTime":1700000000000000}
EOF
$TF profile "$TMP/clang.json" -o "$TMP/clang.pb.gz" 2>/dev/null
t=$(total "$TMP/clang.pb.gz")
check "clang: with the Total tracks the profile is $t ns (3.2x the 900 us compile)" test "$t" -eq 2850000
pprof -ignore='^Total ' -top "$TMP/clang.pb.gz" > "$TMP/ign.txt" 2>&1
check "clang: go tool pprof -ignore='^Total ' leaves the 900 us compile" grep -q "accounting for 900us," "$TMP/ign.txt"

# ---- JSON lines: newline-separated events read, same line still an error
printf '{"id":1,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":10,"dur":5,"ph":"X"}\n{"id":2,"name":"write","cat":"POSIX","pid":1,"tid":1,"ts":20,"dur":5,"ph":"X"}\n' > "$TMP/a.pfw"
gzip -c "$TMP/a.pfw" > "$TMP/a.pfw.gz"
expect_exit 0 "JSON lines without an array" $TF profile "$TMP/a.pfw" -o "$TMP/l1.pb.gz"
expect_exit 0 "JSON lines .pfw.gz" $TF profile "$TMP/a.pfw.gz" -o "$TMP/l2.pb.gz"
check "JSON lines: 10 us in both" sh -c "test \$(python3 tests/tools/pprof_raw.py $TMP/l2.pb.gz | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"total\"][\"wall/nanoseconds\"])') -eq 10000"
printf '[{"ph":"X","name":"a","ts":1,"dur":1} {"ph":"X","name":"b","ts":3,"dur":1}]' > "$TMP/nocomma.json"
expect_exit 3 "two events on one line without a comma are still an error" $TF profile "$TMP/nocomma.json" -o "$TMP/x.pb.gz"
grep -q "at byte 38: expected ',' or ']' after an event" "$TMP/err" && ok "... at its byte offset" || { fail "... at its byte offset"; sed 's/^/#   /' "$TMP/err"; }

# ---- NaN/Infinity times are bad events; the rest is read
printf '[{"ph":"X","name":"a","ts":NaN,"dur":1},{"ph":"X","name":"b","ts":Infinity,"dur":1},{"ph":"X","name":"c","ts":-Infinity,"dur":1},{"ph":"X","name":"d","ts":1,"dur":2}]' > "$TMP/nan.json"
expect_exit 0 "NaN/Infinity timestamps: not fatal" $TF profile "$TMP/nan.json" -o "$TMP/nan.pb.gz"
grep -q "bad_event=3" "$TMP/err" && ok "NaN/Infinity timestamps: bad_event=3" || fail "NaN/Infinity timestamps: bad_event=3"

# ---- an unnamed event and a \u0000 in a name: the same in top and pprof
printf '[{"ph":"X","ts":1,"dur":2},{"ph":"X","name":"a\\u0000b","ts":5,"dur":1}]' > "$TMP/names.json"
$TF profile "$TMP/names.json" -o "$TMP/names.pb.gz" 2>/dev/null
$TF top --format json "$TMP/names.pb.gz" > "$TMP/top.json"
pprof -raw "$TMP/names.pb.gz" > "$TMP/raw.txt" 2>/dev/null
check "top and pprof both name the unnamed event [unnamed]" sh -c "grep -q '\[unnamed\]' $TMP/raw.txt && grep -q '\[unnamed\]' $TMP/top.json"
check "top and pprof agree on the name with \\u0000 (U+FFFD)" python3 -c '
import json, sys
names = {f["name"] for f in json.load(open(sys.argv[1]))["functions"]}
raw = open(sys.argv[2], encoding="utf-8").read()
assert "a\ufffdb" in names, names
assert "a\ufffdb" in raw' "$TMP/top.json" "$TMP/raw.txt"
finish
