# Nsight Systems SQLite exports (docs/format-nsys.md): the fixture
# tests/data/nsys/h100-2gpu (two H100s, Nsight Systems 2026.2, schema 3.25.0)
# against tests/tools/nsys_check.py, which computes from SQL over the file
# itself: GPU time per process, device and stream, per call path (NVTX stack
# + runtime call of the same correlationId + activity, or [unattributed
# gpu]), the CPU calls' wall self time per call path and calls per frame,
# all exactly.  Then info, the timelines (the gpu profile survives chrome,
# perfetto and otf2), events, a SQLite file that is no Nsight export, a missing table
# named in a note, and two files as two inputs.
. tests/lib.sh
F=$DATA/nsys/h100-2gpu/h100_2gpu_1s.sqlite
python3 tests/tools/nsys_check.py "$F" > "$TMP/o.json" || fail "nsys_check.py"
# folded INPUT TYPE: the fold of one sample type as JSON {path: value}
folded() {
	$TF -q fold --sample-type "$2" "$1" -o - | python3 -c '
import json, sys
d = {}
for l in sys.stdin:
    k, v = l.rstrip("\n").rsplit(" ", 1)
    d[k] = d.get(k, 0) + int(v)
json.dump(d, sys.stdout)'
}
folded "$F" gpu > "$TMP/gpu.json"
folded "$F" wall > "$TMP/wall.json"
cmp_paths() { # KEY GOT: the checker's KEY equals GOT, path by path
	python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))[sys.argv[2]]; g = json.load(open(sys.argv[3]))
bad = [(k, o.get(k), g.get(k)) for k in sorted(set(o) | set(g)) if o.get(k) != g.get(k)]
assert not bad, (len(bad), bad[:5])
print(len(o), "paths")' "$TMP/o.json" "$1" "$2"
}
check "gpu time per call path (NVTX stack; runtime call; activity) = the checker's, exactly" cmp_paths gpu_fold "$TMP/gpu.json"
check "wall self time per call path of the CPU calls (NVTX, runtime, [sync]) = the checker's, exactly" \
	cmp_paths wall_fold "$TMP/wall.json"
$TF -q top --format json -n 0 --sample-type gpu "$F" > "$TMP/top.json"
check "top --format json: gpu total and calls per function = the checker's" python3 -c '
import json, sys
o = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
assert t["total"] == o["gpu_ns"], (t["total"], o["gpu_ns"])
got = {f["name"]: f["calls"] for f in t["functions"] if f["calls"]}
assert got == o["calls"], [(k, o["calls"].get(k), got.get(k)) for k in set(got) | set(o["calls"]) if got.get(k) != o["calls"].get(k)][:5]' \
	"$TMP/o.json" "$TMP/top.json"
$TF -q info --format json "$F" > "$TMP/info.json"
check "info: GPU time per process, device and stream, attributed and unattributed time = the checker's" python3 -c '
import json, sys
o = json.load(open(sys.argv[1])); i = json.load(open(sys.argv[2]))
got = {t["process"] + "/" + t["thread"]: t["gpu_ns"] for t in i["threads"] if t.get("gpu")}
assert got == o["streams"], (got, o["streams"])
d = i["diagnostics"]
assert d["gpu_attributed_ns"] == o["attributed_ns"] and d["gpu_unattributed_ns"] == o["unattributed_ns"], d
names = {t["thread_name"] for t in i["threads"] if not t.get("gpu")}
assert names == {"python3"}, names
assert not i["notes"], i["notes"]' "$TMP/o.json" "$TMP/info.json"
check "info names the format" sh -c "$TF -q info '$F' | grep -q 'format nsys'"
# timelines: the gpu profile comes back from chrome and perfetto
for f in chrome perfetto otf2; do
	o=$TMP/rt_otf2
	[ $f = perfetto ] && o=$TMP/rt.pftrace
	[ $f = chrome ] && o=$TMP/rt.json
	if $TF -q $f "$F" -o "$o"; then
		folded "$o" gpu > "$TMP/rt.gpu.json"
		check "$f timeline read back: the same gpu time per call path" cmp_paths gpu_fold "$TMP/rt.gpu.json"
	else
		fail "$f: cannot write"
	fi
done
check "events: a Parquet folder of the export" $TF -q events "$F" -o "$TMP/ev"
check "events: slices and call paths written" sh -c "ls '$TMP/ev' | grep -q slices"
# a SQLite database that is no Nsight export: a clear error
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("create table t(x)"); c.commit()' "$TMP/other.sqlite"
expect_exit 3 "a SQLite database without Nsight tables is refused" $TF -q top "$TMP/other.sqlite"
cp "$TMP/err" "$TMP/other.err"
check "... saying it is no Nsight Systems export" grep -q 'not an Nsight Systems export' "$TMP/other.err"
# a table missing (another Nsight version): the rest is read, the note names it
cp "$F" "$TMP/nonvtx.sqlite" && chmod u+w "$TMP/nonvtx.sqlite"
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("drop table NVTX_EVENTS"); c.commit()' "$TMP/nonvtx.sqlite"
check "without NVTX_EVENTS: read, and a note names the table" sh -c "
	$TF info '$TMP/nonvtx.sqlite' 2>&1 | grep -q 'without NVTX_EVENTS'"
check "without NVTX_EVENTS: the same gpu total" sh -c "
	$TF -q top --format json --sample-type gpu '$TMP/nonvtx.sqlite' | grep -q '\"total\": $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["gpu_ns"])' "$TMP/o.json"),'"
# two exports are two inputs: their correlation ids never mix
cp "$F" "$TMP/b.sqlite"
$TF -q top --format json -n 0 --sample-type gpu "$F" "$TMP/b.sqlite" > "$TMP/two.json"
check "two exports: twice the gpu time, attributed as each alone" python3 -c '
import json, sys
o = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
assert t["total"] == 2 * o["gpu_ns"], t["total"]
u = [f for f in t["functions"] if f["name"] == "[unattributed gpu]"]
assert u and u[0]["total"] == 2 * o["unattributed_ns"], u' "$TMP/o.json" "$TMP/two.json"
finish
