# The PyTorch profiler hook (python/tracefold, docs/python.md): a tiny CPU
# training loop (tests/tools/torch_hook_train.py, Debian's python3-torch)
# with on_trace_ready=tracefold.torch.trace_handler(DIR) and TRACEFOLD=$TF.
# The files written (names as torch's tensorboard_trace_handler makes them);
# each profile's functions, calls and steps against its trace, read
# independently (tests/tools/torch_hook_check.py: the trace JSON with
# Python's json, the profile with go tool pprof -raw); the merged profile
# against both traces; use_gzip and the default worker name; a failing
# tracefold (a warning, the traces kept; strict=True raises); a missing
# binary; `python -m tracefold gate` (exit status passed through); a GPU
# trace (Kineto, H100) through the handler with a stand-in profiler object.
# shellcheck disable=SC2016 # the sh -c scripts below take their arguments as $1, $2
. tests/lib.sh
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
ROOT=$(pwd)
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
TFABS=$(cd "$(dirname "$TF")" && pwd)/$(basename "$TF")

# --- a GPU trace passes through (no torch needed): a stand-in profiler
# object exports the real PyTorch 2.x H100 Kineto trace; its profile holds
# the trace's GPU time (tests/tools/gpu_oracle.py) and its step
GT=$(ls "$DATA"/chrome/tracelens-bert-small-h100/*.json.gz)
check "GPU trace through the handler: one profile and a merged one, no failure" env TRACEFOLD="$TFABS" "$PY" -c '
import shutil, sys, tracefold.torch
class Prof:
    def export_chrome_trace(self, path):
        shutil.copyfile(sys.argv[1], path)
h = tracefold.torch.trace_handler(sys.argv[2], worker_name="g", use_gzip=True, outputs=("pprof",))
h(Prof())
assert not h.failures and len(h.profiles) == 1 and h.merged, (h.failures, h.profiles, h.merged)
print(h.profiles[0])' "$GT" "$TMP/gpu"
GP=$(ls "$TMP"/gpu/g.*.pb.gz 2>/dev/null)
python3 tests/tools/gpu_oracle.py "$GT" >"$TMP/gpu-oracle.json" 2>&1
check "GPU trace through the handler: gpu total and wall total = the trace's, step label 6" python3 -c '
import json, sys
sys.path.insert(0, "tests/tools")
import pprof_raw
o = json.load(open(sys.argv[1])); r = pprof_raw.summarize(sys.argv[2])
got = (r["total"].get("gpu/nanoseconds"), r["total"]["wall/nanoseconds"], r["labels"].get("step"))
assert got == (o["gpu_ns"], o["cpu_union_ns"], ["6"]), (got, o["gpu_ns"], o["cpu_union_ns"])' "$TMP/gpu-oracle.json" "$GP"

if ! "$PY" -c 'import torch' 2>/dev/null; then
	ok "# SKIP torch is not importable by $PY (tests/deps.sh installs python3-torch): the training-loop checks"
	finish
fi
TRAIN="tests/tools/torch_hook_train.py"
CHECK="tests/tools/torch_hook_check.py"
# field JSONFILE EXPR: a value of the training script's JSON (Python expression over d)
field() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# --- importing the package imports no torch
check "import tracefold, tracefold.torch imports no torch" "$PY" -c '
import sys, tracefold, tracefold.torch
assert "torch" not in sys.modules, "torch was imported"
assert callable(tracefold.torch.trace_handler)'

# --- run 1: worker "w", plain JSON traces, HTML overviews; a warning is an error
D=$TMP/run1
if TRACEFOLD=$TFABS "$PY" "$TRAIN" "$D" --worker w --warnings-are-errors >"$TMP/run1.json" 2>"$TMP/run1.err"; then
	ok "run 1: the training loop with the handler ends, no warning"
else
	fail "run 1: the training loop with the handler ends, no warning"; sed 's/^/#   /' "$TMP/run1.err" | tail -20
fi
check "run 1: on_trace_ready called twice, at steps 5 and 10; no failure" \
	test "$(field "$TMP/run1.json" 'd["step_nums"], d["failures"]')" = "([5, 10], [])"
(cd "$D" && ls -A) >"$TMP/run1.ls" 2>/dev/null
pat='^w\.[0-9]{13}\.(pt\.trace\.json|pb\.gz|overview\.html)$'
check "run 1: 7 files: 2 traces, 2 profiles, 2 overviews named w.<ms>.*, the merged w.pb.gz, nothing else" sh -c '
	n=$(grep -cE "$2" "$1"); m=$(grep -cx "w\.pb\.gz" "$1"); all=$(wc -l < "$1")
	[ "$n" -eq 6 ] && [ "$m" -eq 1 ] && [ "$all" -eq 7 ] || { cat "$1"; exit 1; }
	for s in $(sed -n "s/\.pt\.trace\.json\$//p" "$1"); do
		grep -qx "$s.pb.gz" "$1" && grep -qx "$s.overview.html" "$1" || { echo "missing outputs of $s"; exit 1; }
	done' sh "$TMP/run1.ls" "$pat"
i=0
for t in "$D"/w.*.pt.trace.json; do
	i=$((i + 1))
	s=${t%.pt.trace.json}
	check "run 1 trace $i: the profile's functions, calls and steps = the trace's" "$PY" "$CHECK" "$s.pb.gz" "$t"
	check "run 1 trace $i: the overview is an HTML page that names ProfilerStep" \
		sh -c 'head -c 200 "$1" | grep -qi "<!doctype html" && grep -q ProfilerStep "$1"' sh "$s.overview.html"
done
check "run 1: the merged profile's functions and calls = the sum of both traces, steps = their union" \
	"$PY" "$CHECK" "$D/w.pb.gz" "$D"/w.*.pt.trace.json
check "run 1: the handler's lists name the files" "$PY" -c '
import json, os, sys
d = json.load(open(sys.argv[1])); D = sys.argv[2]
assert d["merged"] == os.path.join(D, "w.pb.gz"), d["merged"]
assert [t[:-len(".pt.trace.json")] + ".pb.gz" for t in d["traces"]] == d["profiles"], d
assert [t[:-len(".pt.trace.json")] + ".overview.html" for t in d["traces"]] == d["overviews"], d
assert all(os.path.isfile(p) for p in d["traces"] + d["profiles"] + d["overviews"]), d' "$TMP/run1.json" "$D"

# --- run 2: the default worker name <hostname>_<pid>, use_gzip, Markdown overviews
D2=$TMP/run2
if TRACEFOLD=$TFABS "$PY" "$TRAIN" "$D2" --gzip --overview-format md --warnings-are-errors >"$TMP/run2.json" 2>"$TMP/run2.err"; then
	ok "run 2 (use_gzip, overview md): the training loop ends, no warning"
else
	fail "run 2 (use_gzip, overview md): the training loop ends, no warning"; sed 's/^/#   /' "$TMP/run2.err" | tail -20
fi
W2=$(field "$TMP/run2.json" 'd["hostname"] + "_" + str(d["pid"])')
(cd "$D2" && ls -A) >"$TMP/run2.ls" 2>/dev/null
check "run 2: files named $W2.<ms>.pt.trace.json.gz, .pb.gz, .overview.md (2 each) and $W2.pb.gz" sh -c '
	w=$(printf "%s" "$2" | sed "s/[.]/\\\\./g")
	[ "$(grep -cE "^$w\.[0-9]{13}\.(pt\.trace\.json\.gz|pb\.gz|overview\.md)\$" "$1")" -eq 6 ] &&
	grep -qx "$w\.pb\.gz" "$1" && [ "$(wc -l < "$1")" -eq 7 ] || { cat "$1"; exit 1; }' sh "$TMP/run2.ls" "$W2"
check "run 2: the traces are gzip" sh -c 'for t in "$1"/*.pt.trace.json.gz; do gzip -t "$t" || exit 1; done' sh "$D2"
check "run 2: the merged profile = the sum of both gzipped traces" "$PY" "$CHECK" "$D2/$W2.pb.gz" "$D2"/*.pt.trace.json.gz
check "run 2: a Markdown overview with its step table" sh -c 'for f in "$1"/*.overview.md; do grep -q "^|" "$f" || exit 1; done' sh "$D2"

# --- python -m tracefold gate: tracefold diff --gate, exit status passed through
expect_exit 0 "python -m tracefold gate: two A/A runs exit 0" \
	env TRACEFOLD="$TFABS" "$PY" -m tracefold gate "$D/w.pb.gz" "$D2/$W2.pb.gz"
cp "$TMP/out" "$TMP/gate.out"
check "python -m tracefold gate: tracefold's gate report on stdout" grep -q "ProfilerStep\|steps" "$TMP/gate.out"
printf 'not a profile\n' >"$TMP/bad.pb.gz"
expect_exit 3 "python -m tracefold gate: an unreadable NEW exits 3" \
	env TRACEFOLD="$TFABS" "$PY" -m tracefold gate "$D/w.pb.gz" "$TMP/bad.pb.gz"
cp "$TMP/err" "$TMP/gate3.err"
check "python -m tracefold gate: tracefold's message names the bad file" grep -q "^tracefold.*bad.pb.gz" "$TMP/gate3.err"
expect_exit 2 "python -m tracefold gate without NEW exits 2" env TRACEFOLD="$TFABS" "$PY" -m tracefold gate "$D/w.pb.gz"
expect_exit 0 "python -m tracefold --help exits 0" "$PY" -m tracefold --help
cp "$TMP/out" "$TMP/help.out"
check "python -m tracefold --help shows the gate usage" grep -q "python -m tracefold gate BASE NEW" "$TMP/help.out"

# --- a missing binary: a clear error
expect_exit 127 "python -m tracefold gate, TRACEFOLD naming no program: exit 127" \
	env TRACEFOLD="$TMP/no-such-tracefold" "$PY" -m tracefold gate "$D/w.pb.gz" "$D/w.pb.gz"
cp "$TMP/err" "$TMP/missing.err"
check "... the message names TRACEFOLD and how to install" \
	grep -q "TRACEFOLD=$TMP/no-such-tracefold: no such program; install it .*make install" "$TMP/missing.err"
mkdir "$TMP/emptybin"
check "find_binary with no TRACEFOLD and none on PATH: TracefoldNotFound saying how to install" \
	env -u TRACEFOLD PATH="$TMP/emptybin" "$PY" -c '
import tracefold
try:
    tracefold.find_binary()
except tracefold.TracefoldNotFound as e:
    assert "not on PATH" in str(e) and "make" in str(e) and "TRACEFOLD" in str(e), str(e)
else:
    raise SystemExit("no error")'
check "tracefold.run: a failure raises TracefoldError with the exit status and stderr" \
	env TRACEFOLD="$TFABS" "$PY" -c '
import sys, tracefold
try:
    tracefold.run(["profile", sys.argv[1], "-o", sys.argv[1] + ".out.pb.gz"])
except tracefold.TracefoldError as e:
    assert e.returncode == 3 and sys.argv[1] in e.stderr and sys.argv[1] in str(e), (e.returncode, e.stderr)
else:
    raise SystemExit("no error")' "$TMP/bad.pb.gz"

# --- a failing conversion: warnings, the traces kept, training goes on
D3=$TMP/run3
if TRACEFOLD=false "$PY" "$TRAIN" "$D3" --worker w >"$TMP/run3.json" 2>"$TMP/run3.err"; then
	ok "TRACEFOLD=false: the training loop still ends (exit 0)"
else
	fail "TRACEFOLD=false: the training loop still ends (exit 0)"; sed 's/^/#   /' "$TMP/run3.err" | tail -20
fi
check "TRACEFOLD=false: a TracefoldWarning per failed conversion naming the trace (4)" sh -c '
	[ "$(grep -c "TracefoldWarning: tracefold could not .*w\.[0-9]*\.pt\.trace\.json.*(the trace is kept).*failed (exit status 1)" "$1")" -eq 4 ]' sh "$TMP/run3.err"
check "TRACEFOLD=false: the 2 traces kept, nothing else written" sh -c '
	[ "$(ls -A "$1" | wc -l)" -eq 2 ] && [ "$(ls "$1"/w.*.pt.trace.json | wc -l)" -eq 2 ]' sh "$D3"
check "TRACEFOLD=false: the handler lists 4 failures, no profile, no merged profile" \
	test "$(field "$TMP/run3.json" 'len(d["failures"]), d["profiles"], d["merged"]')" = "(4, [], None)"
expect_exit 1 "TRACEFOLD=false, strict=True: the error is raised out of the training loop" \
	env TRACEFOLD=false "$PY" "$TRAIN" "$TMP/run4" --worker w --strict
cp "$TMP/err" "$TMP/strict.err"
check "... as TracefoldError with tracefold's command line" \
	grep -q "tracefold.TracefoldError: tracefold profile .*w\.[0-9]*\.pt\.trace\.json --label-steps .* failed (exit status 1)" "$TMP/strict.err"
finish
