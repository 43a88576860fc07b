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

# --- --name-width: a CUDA kernel name of 1665 characters, a second one that
# differs only in its middle, Python frames (a Chrome trace: names with spaces)
python3 - "$TMP/names.json" "$TMP/names.txt" <<'PY'
import json, sys
lam = ("at::native::mul_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::"
       "{lambda()#4}::operator()() const::{lambda(c10::complex<double>, c10::complex<double>)#1}")
rest = ("at::detail::Array<char*, 3>, TrivialOffsetCalculator<2, unsigned int>, "
        "TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithoutCast, "
        "at::native::memory::StoreWithoutCast")
f = "at::native::AUnaryFunctor<c10::complex<double>, c10::complex<double>, c10::complex<double>, %s>" % lam
l = "at::native::gpu_kernel_impl<%s>(at::TensorIteratorBase&, %s const&)::{lambda(int)#1}" % (f, f)
k1 = "void at::native::unrolled_elementwise_kernel<%s, %s>(int, %s, %s)" % (l, rest, l, rest)
k2 = k1.replace("Array<char*, 3>", "Array<char*, 4>")
py = "torch/nn/modules/module.py(1501): _call_impl"
longpy = "/opt/conda/envs/training/lib/python3.10/site-packages/torch/nn/modules/module.py(1501): _call_impl"
ev = [("ProfilerStep#1", 0, 1000), (k1, 10, 300), (k2, 310, 200), (py, 600, 100), (longpy, 800, 50)]
json.dump([{"name": n, "ph": "X", "ts": t, "dur": d, "pid": 1, "tid": 1} for n, t, d in ev], open(sys.argv[1], "w"))
open(sys.argv[2], "w").write("\n".join([k1, k2, py, longpy]) + "\n")
PY
names_ok() { # TABLE.txt WIDTH: aligned, no name above WIDTH, both kernels, Python frames kept
	python3 - "$1" "$2" "$TMP/names.txt" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
width = int(sys.argv[2])
k1, k2, py, longpy = open(sys.argv[3]).read().splitlines()
hdr = lines[1]
col = hdr.index("function")
rows = [l for l in lines[2:] if l.strip() and not l.startswith("(")]
for l in rows:
    assert len(l[:col]) == len(hdr[:col]) and l[col - 2:col] == "  " and l[col] != " ", ("not aligned", l)
names = [l[col:] for l in rows]
assert all(len(n) <= width for n in names), [n for n in names if len(n) > width]
# two kernels that differ in one template argument: two rows, told apart
kn = [n for n in names if n.startswith("void at::native")]
assert len(kn) == 2 and len(set(kn)) == 2, names
assert any("char*, 3>" in n for n in kn) and any("char*, 4>" in n for n in kn), kn
assert py in names, names                     # fits: untouched
lp = [n for n in names if n.startswith("/opt/conda/") and n.endswith("module.py(1501): _call_impl")]
assert len(lp) == 1 and "..." in lp[0] and len(lp[0]) == width, names
print("aligned, %d names of at most %d characters" % (len(names), width))
PY
}
$TF -q top "$TMP/names.json" > "$TMP/n-top.txt"
check "top text: long names shortened to 80 characters, columns aligned" names_ok "$TMP/n-top.txt" 80
$TF -q top --name-width 60 "$TMP/names.json" > "$TMP/n-top60.txt"
check "top text --name-width 60" names_ok "$TMP/n-top60.txt" 60
$TF -q top --name-width 0 "$TMP/names.json" > "$TMP/n-top0.txt"
check "top --name-width 0 never shortens" python3 -c '
import sys
want = open(sys.argv[2]).read().splitlines()
text = open(sys.argv[1]).read()
assert all(("  " + n + "\n") in text for n in want) and "..." not in text
' "$TMP/n-top0.txt" "$TMP/names.txt"
$TF -q top --format json "$TMP/names.json" > "$TMP/n-top.json"
$TF -q diff --format json "$TMP/names.json" "$TMP/names.json" > "$TMP/n-diff.json"
check "JSON keeps the full names (top and diff)" python3 -c '
import json, sys
want = set(open(sys.argv[3]).read().splitlines())
t = {f["name"] for f in json.load(open(sys.argv[1]))["functions"]}
d = {r["name"] for r in json.load(open(sys.argv[2]))["rows"]}
assert want <= t and want <= d, (len(t), len(d))
' "$TMP/n-top.json" "$TMP/n-diff.json" "$TMP/names.txt"
$TF -q top --format markdown "$TMP/names.json" > "$TMP/n-top.md"
check "top Markdown with shortened names is a well-formed table" python3 tests/tools/check_md.py "$TMP/n-top.md" 6 5
check "top Markdown: both kernels as different short code spans" python3 -c '
import re, sys
t = open(sys.argv[1]).read()
k = [x for x in re.findall(r"\| `([^`]*)` \|", t) if x.startswith("void at::native")]
assert len(k) == 2 and len(set(k)) == 2 and all(len(x) <= 80 for x in k), k
' "$TMP/n-top.md"
$TF -q diff -n 0 "$TMP/names.json" "$TMP/names.json" > "$TMP/n-diff.txt"
check "diff text: long names shortened, columns aligned" names_ok "$TMP/n-diff.txt" 80
$TF -q diff --format markdown "$TMP/names.json" "$TMP/names.json" > "$TMP/n-diff.md"
check "diff Markdown with shortened names is a well-formed table" python3 tests/tools/check_md.py "$TMP/n-diff.md" 9 5
check "diff Markdown: no code span longer than 80" python3 -c '
import re, sys
assert max(len(x) for x in re.findall(r"`([^`]*)`", open(sys.argv[1]).read())) <= 80
' "$TMP/n-diff.md"
$TF -q diff --paths --name-width 50 "$TMP/names.json" "$TMP/names.json" > "$TMP/n-paths.txt"
check "diff --paths: call paths shortened too" python3 -c '
import sys
l = open(sys.argv[1]).read().splitlines(); col = l[1].index("call path")
p = [x[col:] for x in l[2:]]
assert all(len(x) <= 50 for x in p) and sum(x.startswith("ProfilerStep") for x in p) == 5 and len(set(p)) == 5, l
' "$TMP/n-paths.txt"
for c in top diff; do
	expect_exit 2 "$c --name-width 5 (below 10) is a usage error" $TF $c --name-width 5 "$TMP/names.json" "$TMP/names.json"
	expect_exit 2 "$c --name-width x is a usage error" $TF $c --name-width x "$TMP/names.json" "$TMP/names.json"
done
finish
