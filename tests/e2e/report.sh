# top and diff count functions one way (tf_fnstats in src/cmd/report.c):
# for the same profile, top's rows and the NEW side of diff's rows hold the
# same functions with the same self, total and calls, under recursion too.
. tests/lib.sh
P="python3 tests/tools/pprof.py"
jq_py() { c=$1; shift; python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $c" "$@"; }

# recursion (a;b;a;b), an all-zero sample, a function with calls but no time
cat > "$TMP/rec.spec" <<'EOF'
type wall nanoseconds
type calls count
default wall
sample main 100 0 rank=0
sample main;a;b;a 30 2 rank=0
sample main;a;b;a;b 20 1 rank=1
sample main;a;a;a 7 3 rank=1
sample main;zero 0 0 rank=0
sample main;callsonly 0 5 rank=1
EOF
cat > "$TMP/other.spec" <<'EOF'
type wall nanoseconds
type calls count
default wall
sample other 1 1
EOF
$P make "$TMP/rec.spec" "$TMP/rec.pb.gz"
$P make "$TMP/other.spec" "$TMP/other.pb.gz"
# the same kind of input as a Chrome trace: f recursing into itself, g inside
cat > "$TMP/rec.json" <<'EOF'
[{"name":"f","ph":"X","ts":0,"dur":100,"pid":1,"tid":1},
 {"name":"f","ph":"X","ts":10,"dur":60,"pid":1,"tid":1},
 {"name":"g","ph":"X","ts":20,"dur":20,"pid":1,"tid":1},
 {"name":"f","ph":"X","ts":25,"dur":10,"pid":1,"tid":1},
 {"name":"z","ph":"X","ts":80,"dur":0,"pid":1,"tid":1}]
EOF

same_as_top() { # TOP.json DIFF.json: diff's NEW side == top, row for row
	python3 - "$1" "$2" <<'EOF'
import json, sys
t, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
top = {f["name"]: (f["self"], f["total"], f["calls"]) for f in t["functions"]}
new = {r["name"]: (r["self"]["new"], r["total"]["new"], r["calls"]["new"] if r["calls"] else None)
       for r in d["rows"] if r["name"] != "other"}
assert len(top) == t["functions_count"], "top -n 0 lists every function"
assert top == new, "top %s\ndiff NEW %s" % (top, new)
assert t["total"] == d["total"]["new"], (t["total"], d["total"])
print(len(top), "functions equal")
EOF
}
for input in rec.pb.gz rec.json; do
	$TF -q top --format json -n 0 "$TMP/$input" > "$TMP/top.json"
	for base in other.pb.gz "$input"; do
		$TF -q diff --format json -n 0 "$TMP/$base" "$TMP/$input" > "$TMP/diff.json"
		check "top and diff count the functions of $input the same way (BASE $base)" same_as_top "$TMP/top.json" "$TMP/diff.json"
	done
done
t=$DATA/chrome/pytorch-legacy-small/trace.json
$TF -q top --format json -n 0 "$t" > "$TMP/top.json"
$TF -q diff --format json -n 0 "$TMP/other.pb.gz" "$t" > "$TMP/diff.json"
check "top and diff agree on every function of pytorch-legacy-small" same_as_top "$TMP/top.json" "$TMP/diff.json"

$TF top --format json -n 0 "$TMP/rec.pb.gz" > "$TMP/top.json"
check "recursion counted once per sample; zero-only frames are no function; calls-only ones are" jq_py '
f = {x["name"]: x for x in d["functions"]}
assert set(f) == {"main", "a", "b", "callsonly"}, sorted(f)
assert (f["a"]["self"], f["a"]["total"], f["a"]["calls"]) == (37, 57, 5), f["a"]
assert (f["b"]["self"], f["b"]["total"]) == (20, 50), f["b"]
assert (f["callsonly"]["self"], f["callsonly"]["total"], f["callsonly"]["calls"]) == (0, 0, 5)
assert d["functions_count"] == 4 and d["total"] == 157
' "$TMP/top.json"
$TF top "$TMP/rec.pb.gz" > "$TMP/top.txt"
check "top text counts the same functions" grep -q "in 4 functions, 2 ranks" "$TMP/top.txt"
$TF diff "$TMP/rec.pb.gz" "$TMP/rec.pb.gz" > "$TMP/diff.txt"
check "diff text counts the same functions" grep -q "; 4 functions, 0 new, 0 gone;" "$TMP/diff.txt"
finish
