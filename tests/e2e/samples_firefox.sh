# Firefox Profiler processed profiles (docs/format-firefox.md): every
# fixture of tests/data/samples/firefox/ against its expected.json (written
# by tests/tools/samples_expected.py from the JSON alone): the samples per
# function (self and total) summed over the threads, with the renames of the
# profiler's upgraders 4 and 17 for the old versions, also against the
# profiler's own upgrade of the same profile to version 70; the sample rows
# and the name of every thread; go tool pprof reading the profile; errors
# (truncated JSON, a version above 70, a raw Gecko profile, broken tables)
# naming the file and the byte; sniffing by content; -F firefox.
. tests/lib.sh
D=$DATA/samples/firefox
EXP=$D/expected.json
# refused DESC CMD...: CMD fails as on a bad input (exit 3); said DESC TEXT:
# its standard error has TEXT
refused() { expect_exit 3 "$@"; cp "$TMP/err" "$TMP/said"; }
said() { check "$1" grep -qF -- "$2" "$TMP/said"; }

check "expected.json is what samples_expected.py derives from the fixtures" \
	python3 tests/tools/samples_expected.py --check "$D"

# expected.json per file, its threads summed (samples_compare.py compares a
# file's totals), names renamed as the upgraders rename them for versions
# below 4 and 17 (samples_expected.py --check: then an old file and its
# upgrade agree)
python3 - "$EXP" "$TMP/exp.json" <<'EOF'
import json, re, sys
files = json.load(open(sys.argv[1]))["files"]
def rename(name, version):
    m = re.fullmatch(r"(.*) \((.*):([0-9]+)\)", name)
    if version < 4 and m and m.group(1):
        name = m.group(1)
    if version < 17 and name.startswith("AutoEntryScript "):
        name = name[len("AutoEntryScript "):]
    return name
out = {}
for key, f in files.items():
    types, funcs = {}, {}
    for t in f["thread_list"]:
        for k, v in t["sample_types"].items():
            types[k] = types.get(k, 0) + v
        for name, fn in t["functions"].items():
            g = funcs.setdefault(rename(name, f["preprocessedProfileVersion"]), {"self": {}, "total": {}})
            for part in ("self", "total"):
                for k, v in fn[part].items():
                    g[part][k] = g[part].get(k, 0) + v
    out[key] = {"sample_types": types, "functions": funcs}
json.dump({"files": out}, open(sys.argv[2], "w"))
EOF
cmp_exp() { python3 tests/tools/samples_compare.py --types samples "$TF" "$TMP/exp.json" "$@"; }

files=$(python3 -c 'import json,sys; print(" ".join(sorted(json.load(open(sys.argv[1]))["files"])))' "$EXP")
ndata=$(ls "$D" | grep -c -e '\.json$' -e '\.json\.gz$')
check "expected.json covers every profile of the folder ($ndata)" test "$(echo $files | wc -w)" = $((ndata - 1))
for k in $files; do
	check "$k: samples, self and total per function = expected.json" cmp_exp "$k" "$D/$k"
	# the rows and names of each thread, in order (tracefold info)
	$TF -q info --format json "$D/$k" > "$TMP/info.json"
	check "$k: one track per thread, its name and sample rows = expected.json" python3 -c '
import json, sys
exp = json.load(open(sys.argv[1]))["files"][sys.argv[2]]["thread_list"]
got = json.load(open(sys.argv[3]))["threads"]
assert len(got) == len(exp), (len(got), len(exp))
for g, e in zip(got, exp):
    assert g["thread_name"] == e["name"], (g["thread_name"], e["name"])
    assert g["events"] == e["sample_types"]["entries"], (g["events"], e["sample_types"])
    if e["pid"] is not None:
        assert g["process"] == str(e["pid"]), (g["process"], e["pid"])
' "$EXP" "$k" "$TMP/info.json"
done
for n in 1 2 3; do
	v70=processed-$n.v70.json; [ -f "$D/$v70" ] || v70=$v70.gz
	check "processed-$n.json (old version) = the profiler's own upgrade $v70" cmp_exp "$v70" "$D/processed-$n.json"
done
check "the renames matter: processed-2.json has AutoEntryScript names" grep -q '"AutoEntryScript ' "$D/processed-2.json"
$TF -q fold --raw-names "$D/processed-2.json" -o "$TMP/p2.folded"
check "... which tracefold renames as the upgrader does" sh -c "grep -q ';setTimeout handler;' '$TMP/p2.folded' && ! grep -q AutoEntryScript '$TMP/p2.folded'"
# the version-4 split on edge cases, against the fixtures' own rule (Python's regex)
python3 - "$TMP/ren.json" "$TMP/ren.want" <<'EOF2'
import json, re, sys
names = ["f (u:1)", "(u:1)", " (u:1)", "a (b (c:1)", "a (b:c:12)", "a (b:1) (c:2)", "a (b:)", "a(b:1)",
         "a (:1)", "AutoEntryScript f (u:2)", "x (y:1)z", "q  (r:7)", "\u00e9 (\u00fc:3)", "a (b:1))", "a (b:1a)"]
n = len(names)
json.dump({"meta": {"version": 3, "interval": 1}, "threads": [{"name": "T", "stringArray": names,
    "stackTable": {"length": n, "prefix": [None] * n, "frame": list(range(n))},
    "frameTable": {"length": n, "func": list(range(n))}, "funcTable": {"length": n, "name": list(range(n))},
    "samples": {"length": n, "stack": list(range(n)), "time": list(range(n))}}]}, open(sys.argv[1], "w"))
def rename(name):
    m = re.fullmatch(r"(.*) \((.*):([0-9]+)\)", name)
    if m and m.group(1):
        name = m.group(1)
    return name[len("AutoEntryScript "):] if name.startswith("AutoEntryScript ") else name
import collections
c = collections.Counter(rename(x) for x in names)
open(sys.argv[2], "w", encoding="utf-8").write("".join("%s %d\n" % kv for kv in c.items()))
EOF2
$TF -q fold --raw-names "$TMP/ren.json" -o - | LC_ALL=C sort > "$TMP/ren.got"
LC_ALL=C sort "$TMP/ren.want" -o "$TMP/ren.want"
check "version 3: names split as the upgrader's rule on 15 edge cases" cmp "$TMP/ren.got" "$TMP/ren.want"
check "the weight column counts: unsymbolicated.json 42 rows, 236 samples" \
	sh -c "$TF -q fold '$D/unsymbolicated.json' -o - | awk '{s += \$NF} END {exit s != 236}'"
expect_exit 1 "the comparison can fail (another file's numbers)" cmp_exp single.json "$D/unsymbolicated.json"

# --- pprof --------------------------------------------------------------------------
$TF -q convert "$D/unsymbolicated.json" -o "$TMP/u.pb.gz"
pprof -top "$TMP/u.pb.gz" > "$TMP/u.top" 2>&1
check "go tool pprof reads it: 236 samples" grep -q 'Total samples = 236' "$TMP/u.top"
check "... 0x43e8 flat 175" grep -Eq '^ +175 .* 0x43e8$' "$TMP/u.top"
check "... 0x2bac flat 60" grep -Eq '^ +60 .* 0x2bac$' "$TMP/u.top"
$TF -q convert "$D/processed-3.v70.json.gz" -o "$TMP/p3.pb.gz"
pprof -top "$TMP/p3.pb.gz" > "$TMP/p3.top" 2>&1
check "... the gzip one: 21 samples" grep -q 'Total samples = 21' "$TMP/p3.top"

# --- sniffing and -F ----------------------------------------------------------------
cp "$D/single.json" "$TMP/profile.txt"
check "sniffed by content under another name" sh -c "$TF -q info '$TMP/profile.txt' | grep -q 'format firefox'"
cp "$D/processed-1.v70.json" "$TMP/v70.dat"
check "... a version-70 file whose meta categories fill the head" sh -c "$TF -q info '$TMP/v70.dat' | grep -q 'format firefox'"
check "-F firefox" sh -c "$TF -q fold -F firefox '$TMP/profile.txt' -o - | grep -qx 'Ajs 1'"
refused "-F firefox on a Chrome trace: refused" $TF -q fold -F firefox "$DATA/chrome/pytorch-legacy-small/trace.json" -o -
said "... as no JSON object" "not a JSON object (a Firefox Profiler profile is one)"
check "tracefold --help lists the format" sh -c "$TF --help | grep -q 'Firefox Profiler processed profile'"

# --- errors -------------------------------------------------------------------------
head -c 5000 "$D/unsymbolicated.json" > "$TMP/cut.json"
refused "truncated JSON: refused" $TF -q fold "$TMP/cut.json" -o -
said "... naming the file and the byte" "cannot read '$TMP/cut.json' at byte 5000"
said "... saying it ends early" "ends early"
sed 's/"preprocessedProfileVersion": *68/"preprocessedProfileVersion": 71/' "$D/single.json" > "$TMP/v71.json"
check "(a version 71 made)" grep -q '"preprocessedProfileVersion": *71' "$TMP/v71.json"
refused "version 71: refused" $TF -q fold "$TMP/v71.json" -o -
said "... as newer than this tracefold reads, naming the range" "processed profile version 71 is newer than this tracefold reads (versions 0 to 70)"
cat > "$TMP/gecko.json" <<'EOF'
{"meta": {"version": 27, "interval": 1, "startTime": 1, "product": "Firefox"},
 "libs": [], "threads": [{"name": "GeckoMain", "tid": 1, "pid": 1,
   "samples": {"schema": {"stack": 0, "time": 1}, "data": [[1, 0.5]]},
   "stackTable": {"schema": {"prefix": 0, "frame": 1}, "data": [[null, 0]]},
   "frameTable": {"schema": {"location": 0}, "data": [[0]]},
   "stringTable": ["main"]}], "processes": []}
EOF
refused "a raw Gecko profile: refused" $TF -q fold "$TMP/gecko.json" -o -
said "... saying what it is" "a raw Gecko profile (meta.version 27"
said "... and how to get a processed one" "load it in the Firefox Profiler"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); d["shared"]["stackTable"]["frame"][0] = 99
json.dump(d, open(sys.argv[2], "w"))' "$D/single.json" "$TMP/badframe.json"
refused "a stack whose frame is not in frameTable: refused" $TF -q fold "$TMP/badframe.json" -o -
said "... naming the row" "stackTable.frame[0] = 99 is not a row of frameTable"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); d["threads"][0]["samples"]["stack"][3] = 1000
json.dump(d, open(sys.argv[2], "w"))' "$D/unsymbolicated.json" "$TMP/badstack.json"
refused "a sample whose stack is not in stackTable: refused" $TF -q fold "$TMP/badstack.json" -o -
said "... naming the stack" "stack 1000 is not a row of stackTable"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); t = d["threads"][0]["stackTable"]; t["prefix"][0] = 3
json.dump(d, open(sys.argv[2], "w"))' "$D/unsymbolicated.json" "$TMP/cycle.json"
refused "prefixes that make a cycle: refused" $TF -q fold "$TMP/cycle.json" -o -
said "... saying so" "prefixes make a cycle"
printf '{"meta": {"preprocessedProfileVersion": 70}, "threads": [], "shared": {}}' > "$TMP/empty.json"
refused "a profile without samples: an error, not an empty profile" $TF -q fold "$TMP/empty.json" -o -
finish
