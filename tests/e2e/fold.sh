# tracefold fold: folded stacks out (src/write/folded.c) and in
# (src/read/folded.c; docs/folded.md).  The oracle for every value is
# pprof's own decoding (go tool pprof -raw, through tests/tools/pprof_raw.py)
# of the profile tracefold writes of the same input, speedscope's table of
# the folded file, and, for folded input, PyTorch's own export_stacks file
# summed by Python.
. tests/lib.sh

cat > "$TMP/fcheck.py" <<'EOF'
import html, json, re, sys
sys.path.insert(0, "tests/tools")
import pprof_raw

LINE = re.compile(r"^(.*) (\d+)$")  # speedscope's pattern; flamegraph.pl's is a superset

def rewrite(name):
    """docs/folded.md: how a frame name is written"""
    if name == "":
        return "[unnamed]"
    return name.replace(";", ":").replace("\n", " ").replace("\r", " ")

def folded(path):
    """the file's lines: well-formed, sorted bytewise, unique, no zeros"""
    data = open(path, "rb").read()
    assert data.endswith(b"\n"), "no final newline"
    lines = data[:-1].split(b"\n")
    texts = []
    out = {}
    for ln in lines:
        m = LINE.match(ln.decode("utf-8", "surrogateescape"))
        assert m, "malformed line %r" % ln
        stack, v = m.group(1), int(m.group(2))
        assert v > 0, "a line of value 0: %r" % ln
        assert all(stack.split(";")), "an empty frame: %r" % ln
        texts.append(ln.rsplit(b" ", 1)[0])
        out[stack] = v
    assert texts == sorted(texts), "lines not sorted bytewise"
    assert len(set(texts)) == len(texts), "a path on two lines"
    return out

def from_pprof(path, typ):
    """self value of typ per call path, summed over label sets, as pprof -raw says"""
    text, _ = pprof_raw.raw(path)
    types, samples, locs = pprof_raw.parse(text)
    t = [x.split("/")[0] for x in types].index(typ)
    out = {}
    for s in samples:
        p = ";".join(rewrite(locs[l][0]) for l in reversed(s["locs"]))
        out[p] = out.get(p, 0) + s["values"][t]
    return {p: v for p, v in out.items() if v}

def diff(a, b):
    bad = sorted(set(a) | set(b), key=lambda p: -abs(a.get(p, 0) - b.get(p, 0)))
    bad = [p for p in bad if a.get(p) != b.get(p)]
    return "%d paths differ, e.g. %s" % (len(bad), [(p[-80:], a.get(p), b.get(p)) for p in bad[:3]])

cmd = sys.argv[1]
if cmd == "vs-pprof":   # FOLDED PROFILE TYPE
    f, p = folded(sys.argv[2]), from_pprof(sys.argv[3], sys.argv[4])
    assert f == p, diff(f, p)
    print(len(f), "call paths,", sum(f.values()), sys.argv[4], "equal")
elif cmd == "wellformed":  # FOLDED
    print(len(folded(sys.argv[2])), "lines")
elif cmd == "vs-top":   # SPEEDSCOPE_DOM TOP.json: the sandwich table's rows = top's functions
    dom = open(sys.argv[2]).read()
    cells = [html.unescape(c.strip()) for c in re.split(r"<[^>]+>", dom) if c.strip()]
    top = {f["name"]: (f["total"], f["self"]) for f in json.load(open(sys.argv[3]))["functions"]}
    num = re.compile(r"^([\d,]+) \((?:[<>]?[\d.]+)%\)$")
    rows = [(cells[i + 2], int(cells[i].split()[0].replace(",", "")), int(cells[i + 1].split()[0].replace(",", "")))
            for i in range(len(cells) - 2) if num.match(cells[i]) and num.match(cells[i + 1])]
    assert len(rows) >= 5, "speedscope shows %d rows" % len(rows)
    for name, total, self in rows:
        assert top.get(name) == (total, self), (name, (total, self), top.get(name))
    print(len(rows), "rows of speedscope's table equal top's self and total")
elif cmd == "export-stacks":  # FILE TOP.json: PyTorch's file summed by Python = top of it
    selfs, total = {}, 0
    for ln in open(sys.argv[2]):
        stack, v = ln.rstrip("\n").rsplit(" ", 1)
        selfs[stack.split(";")[-1]] = selfs.get(stack.split(";")[-1], 0) + int(v)
        total += int(v)
    t = json.load(open(sys.argv[3]))
    got = {f["name"]: f["self"] for f in t["functions"] if f["self"]}
    selfs = {k: v * 1000 for k, v in selfs.items()}   # microseconds -> top's JSON ns
    assert got == selfs, diff(got, selfs)
    assert t["total"] == total * 1000, (t["total"], total)   # microseconds -> top's JSON ns
    print(len(selfs), "leaf functions,", total, "us")
EOF
fc() { python3 "$TMP/fcheck.py" "$@"; }
# xexit: expect_exit keeping stderr in $TMP/said; said DESC GREP-ARGS...: it says that
xexit() { expect_exit "$@"; cp "$TMP/err" "$TMP/said"; cp "$TMP/out" "$TMP/said.out"; }
said() { d=$1; shift; check "$d" grep -q "$@" "$TMP/said"; }

# --- every trace fixture: the folded values are pprof's self values per call path
grep -v '^#' tests/golden/cases.txt | awk -F'\t' '$2 ~ /^profile tests/ && $1 !~ /-counters$/ { sub(/^profile /, "", $2); print $1 "\t" $2 }' > "$TMP/fixtures"
tab=$(printf '\t')
while IFS="$tab" read -r name args; do
	# shellcheck disable=SC2086
	if ! $TF -q profile $args -o "$TMP/p.pb.gz" 2>"$TMP/err" || ! $TF -q fold $args -o "$TMP/f.folded" 2>>"$TMP/err"; then
		fail "$name: profile or fold failed"; sed 's/^/#   /' "$TMP/err" | head -5; continue
	fi
	check "$name: fold = pprof -raw's wall self value per call path" fc vs-pprof "$TMP/f.folded" "$TMP/p.pb.gz" wall
done < "$TMP/fixtures"
n=$(wc -l < "$TMP/fixtures")
check "every fixture of tests/golden/cases.txt was folded ($n, TAU, OTF2 and Chrome)" test "$n" -ge 25

# --- --sample-type: calls, the GPU time; --sample-index is the same option
for t in $DATA/tau/mpi_small $DATA/chrome/pytorch-legacy-small/trace.json; do
	b=$(basename "$t")
	$TF -q profile "$t" -o "$TMP/p.pb.gz"
	$TF -q fold --sample-type calls "$t" -o "$TMP/c.folded"
	check "$b: --sample-type calls folds calls" fc vs-pprof "$TMP/c.folded" "$TMP/p.pb.gz" calls
	$TF -q fold --sample-index calls "$t" -o "$TMP/c2.folded"
	check "$b: --sample-index calls is the same" cmp "$TMP/c.folded" "$TMP/c2.folded"
done
g=$DATA/chrome/hta-simple-add-gpu/benchmark_result_493459_1694039959_trace.json.gz
$TF -q profile "$g" -o "$TMP/g.pb.gz"
$TF -q fold --sample-type gpu "$g" -o "$TMP/g.folded"
check "hta-simple-add-gpu: --sample-type gpu folds the GPU time under its launches" fc vs-pprof "$TMP/g.folded" "$TMP/g.pb.gz" gpu
check "... kernels under cudaLaunchKernel" grep -q ';cudaLaunchKernel;[^;]* [0-9]*$' "$TMP/g.folded"
xexit 3 "--sample-type of a type the input lacks: exit 3" $TF fold --sample-type nope "$DATA/tau/tiny" -o "$TMP/n.folded"
said "... with top's message" "no sample type 'nope' in the input"

# --- round trips: fold -> profile --folded-type -> pprof -raw and fold again
for t in $DATA/tau/mpi_small $DATA/otf2/scorep-ping-pong-mpi/traces.otf2 $DATA/chrome/pytorch-legacy-small/trace.json "$g"; do
	b=$(basename "$t")
	$TF -q fold "$t" -o "$TMP/a.folded"
	$TF -q profile --folded-type wall/nanoseconds "$TMP/a.folded" -o "$TMP/a.pb.gz"
	check "$b: folded -> profile --folded-type wall/nanoseconds: pprof -raw has the same stacks and values" \
		fc vs-pprof "$TMP/a.folded" "$TMP/a.pb.gz" wall
	$TF -q fold "$TMP/a.pb.gz" -o "$TMP/b.folded"
	check "$b: fold of that profile is byte-identical to the first fold" cmp "$TMP/a.folded" "$TMP/b.folded"
	$TF -q fold "$TMP/a.folded" -o "$TMP/c.folded"
	check "$b: fold of the folded file is byte-identical" cmp "$TMP/a.folded" "$TMP/c.folded"
	$TF -q fold "$t" -o "$TMP/a2.folded"
	check "$b: the same input twice gives the same bytes" cmp "$TMP/a.folded" "$TMP/a2.folded"
done
$TF -q fold "$DATA/tau/mpi_small" -o "$TMP/z.folded.gz"
$TF -q fold "$DATA/tau/mpi_small" -o "$TMP/mpi.folded"
check "-o NAME.gz: gzip of the plain output" sh -c "gzip -t '$TMP/z.folded.gz' && gzip -dc '$TMP/z.folded.gz' | cmp - '$TMP/mpi.folded'"
$TF -q fold "$DATA/tau/mpi_small" -o - > "$TMP/stdout.folded"
check "-o - writes to standard output" cmp "$TMP/stdout.folded" "$TMP/mpi.folded"
$TF -q top --format json -n 0 --folded-type wall/nanoseconds "$TMP/z.folded.gz" > "$TMP/t1.json"
$TF -q top --format json -n 0 "$DATA/tau/mpi_small" > "$TMP/t2.json"
check "top of gzipped folded stacks = top of the trace (self and total per function)" python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
f = lambda d: {x["name"]: (x["self"], x["total"]) for x in d["functions"] if x["self"] or x["total"]}
assert f(a) == f(b) and a["total"] == b["total"], (f(a), f(b))
' "$TMP/t1.json" "$TMP/t2.json"

# --- the writer table: profile and convert pick folded stacks by the name
$TF -q profile "$DATA/tau/mpi_small" -o "$TMP/p.folded"
check "profile -o X.folded writes folded stacks (the writer table)" cmp "$TMP/p.folded" "$TMP/mpi.folded"
$TF -q convert "$DATA/tau/mpi_small" -o "$TMP/cv.folded.gz" -o "$TMP/cv.pb.gz"
check "convert -o X.folded.gz -o Y.pb.gz: both from one read" sh -c "gzip -dc '$TMP/cv.folded.gz' | cmp - '$TMP/mpi.folded' && go tool pprof -raw '$TMP/cv.pb.gz' >/dev/null 2>&1"
$TF -q convert --to folded "$DATA/tau/mpi_small" -o "$TMP/cv.txt"
check "convert --to folded" cmp "$TMP/cv.txt" "$TMP/mpi.folded"
$TF -q profile "$DATA/tau/mpi_small" -o "$TMP/p.json"
check "profile -o X.json still writes a pprof profile (only aggregate writers are picked by name)" sh -c "go tool pprof -raw '$TMP/p.json' >/dev/null 2>&1"
$TF convert --help > "$TMP/h"
check "convert --help lists the folded writer and its names" grep -q "folded .*(\.folded \.folded\.gz)" "$TMP/h"
$TF --help > "$TMP/h"
check "tracefold --help lists fold and the folded writer" sh -c "grep -q '^  fold ' '$TMP/h' && grep -q '^  folded ' '$TMP/h'"

# --- names the format cannot hold are rewritten (';' ':', line ends ' ', empty '[unnamed]')
cat > "$TMP/names.json" <<'EOF'
[{"name":"main;loop","ph":"X","ts":0,"dur":100,"pid":1,"tid":1},
 {"name":"two\nlines","ph":"X","ts":10,"dur":20,"pid":1,"tid":1},
 {"name":"cr\rend","ph":"X","ts":40,"dur":10,"pid":1,"tid":1},
 {"name":"","ph":"X","ts":60,"dur":5,"pid":1,"tid":1},
 {"name":"a;b","ph":"X","ts":70,"dur":3,"pid":1,"tid":2},
 {"name":"a:b","ph":"X","ts":80,"dur":4,"pid":1,"tid":2}]
EOF
$TF -q fold "$TMP/names.json" -o "$TMP/names.folded"
printf 'a:b 7000\nmain:loop 65000\nmain:loop;[unnamed] 5000\nmain:loop;cr end 10000\nmain:loop;two lines 20000\n' > "$TMP/names.want"
check "names with ';', line ends and empty names rewritten; 'a;b' and 'a:b' one line" cmp "$TMP/names.folded" "$TMP/names.want"
check "... and the result is well-formed folded stacks" fc wellformed "$TMP/names.folded"

# --- folded input: PyTorch's own export_stacks file (a real one, not ours)
x=$DATA/chrome/pytorch-legacy-small/oracle/stacks_self_cpu.folded
$TF -q top --format json -n 0 --folded-type self_cpu/microseconds "$x" > "$TMP/x.json"
check "PyTorch's export_stacks file: top's self per function = the file's values summed by Python" fc export-stacks "$x" "$TMP/x.json"
check "... its one sample type is --folded-type's" grep -q '"sample_type": "self_cpu", *$' "$TMP/x.json"
$TF -q top --format json "$x" > "$TMP/x2.json"
check "... without --folded-type: samples/count" grep -q '"unit": "count"' "$TMP/x2.json"
$TF -q profile "$x" -o "$TMP/x.pb.gz"
check "... profile of it: pprof -raw says 'input: ... (folded)' in a comment" sh -c "go tool pprof -raw '$TMP/x.pb.gz' 2>/dev/null | grep -q '^Comment: input: .*stacks_self_cpu.folded (folded)'"
check "... and names the file as pprof's main binary" sh -c "go tool pprof -raw '$TMP/x.pb.gz' 2>/dev/null | grep -q 'stacks_self_cpu.folded'"
$TF -q merge "$TMP/mpi.folded" "$TMP/mpi.folded" --folded-type wall/nanoseconds -o "$TMP/m.pb.gz"
$TF -q fold "$TMP/m.pb.gz" -o "$TMP/m.folded"
check "merge of folded stacks with themselves doubles every line" python3 -c '
import sys
a = [l.rsplit(" ", 1) for l in open(sys.argv[1])]; b = [l.rsplit(" ", 1) for l in open(sys.argv[2])]
assert [(p, 2 * int(v)) for p, v in a] == [(p, int(v)) for p, v in b]
' "$TMP/mpi.folded" "$TMP/m.folded"
xexit 0 "diff of two folded files" $TF diff --folded-type wall/nanoseconds "$TMP/mpi.folded" "$TMP/stdout.folded"
check "... finds no change" grep -qF "(0, +0.0%); 15 functions, 0 new, 0 gone" "$TMP/said.out"
xexit 0 "folded stacks and a trace together: the union of their sample types" $TF top --sample-type samples "$TMP/mpi.folded" "$DATA/tau/tiny"
xexit 3 "folded stacks in wall/microseconds and a trace in wall/nanoseconds: exit 3" $TF top --folded-type wall/microseconds "$TMP/mpi.folded" "$DATA/tau/tiny"
said "... the clash message names both and their types" "cannot combine '$TMP/mpi.folded' with '$DATA/tau/tiny': sample type 'wall' has another unit: '$TMP/mpi.folded' has \[wall/microseconds\]"
xexit 0 "folded stacks and their own profile together (same type)" $TF merge --folded-type wall/nanoseconds "$TMP/mpi.folded" "$TMP/a.pb.gz" -o "$TMP/mix.pb.gz"
xexit 2 "a timeline of folded stacks: exit 2" $TF chrome "$TMP/mpi.folded" -o "$TMP/t.json"
said "... 'is a profile (folded stacks): ... need traces'" "is a profile (folded stacks): event tables and timelines need traces"
xexit 2 "--ranks with folded stacks: exit 2" $TF top --ranks 0 "$TMP/mpi.folded"
said "... says why" "is a profile (folded stacks): --ranks and --window need traces"
xexit 3 "info of folded stacks: exit 3, not a trace" $TF info "$TMP/mpi.folded"
said "... says it is folded stacks" "is a profile (folded stacks), not a trace"

# --- sniffing: no file of tests/data is folded stacks but PyTorch's (JSON
# traces, TAU, OTF2, Perfetto, pprof, READMEs, licenses, oracles)
find "$DATA" -type f | sort > "$TMP/all"
: > "$TMP/sniffed"
while read -r f; do
	$TF info "$f" >/dev/null 2>"$TMP/err"
	grep -q "(folded stacks)" "$TMP/err" && echo "$f" >> "$TMP/sniffed"
done < "$TMP/all"
if [ "$(cat "$TMP/sniffed")" = "$x" ]; then
	ok "of $(wc -l < "$TMP/all") files in tests/data only PyTorch's export_stacks file is sniffed as folded stacks"
else
	fail "files in tests/data sniffed as folded stacks:"; sed 's/^/#   /' "$TMP/sniffed"
fi
bad=""
for t in $DATA/tau/mpi_small $DATA/tau/threads/tautrace.0.0.0.trc $DATA/otf2/scorep-ping-pong-mpi/traces.otf2 \
	$DATA/chrome/pytorch-legacy-small/trace.json "$g" $DATA/chrome/dftracer-cm1-pfw/cm1-DEFAULT-3537780-preload.pfw.gz \
	$DATA/chrome/rules/json-lines.jsonl; do
	$TF -q info "$t" >/dev/null 2>&1 || bad="$bad $t"
done
$TF -q perfetto "$DATA/tau/mpi_small" -o "$TMP/t.pftrace"
$TF -q info "$TMP/t.pftrace" >/dev/null 2>&1 || bad="$bad perfetto"
check "info still reads the traces (TAU, OTF2, Chrome, JSON lines, Perfetto)" test -z "$bad"
xexit 0 "a pprof profile is still read as pprof" $TF top "$TMP/a.pb.gz"

# --- errors: a bad line names the file, the line and its byte offset
printf 'main;a 5\nmain;b 1.5\n' > "$TMP/dec.folded"
printf 'main;a 5\nmain;b\n' > "$TMP/noval.folded"
printf 'main;a 5\nmain;;b 3\n' > "$TMP/empty.folded"
printf 'main;a 5\nmain;b 99999999999999999999\n' > "$TMP/big.folded"
for c in "dec:the value is not a non-negative integer: '1.5'" "noval:no value" "empty:an empty frame" "big:the value is larger than 2^63-1"; do
	k=${c%%:*}; msg=${c#*:}
	xexit 3 "$k: a bad line is exit 3" $TF fold "$TMP/$k.folded" -o "$TMP/o.folded"
	said "... 'cannot read FILE at byte N: line 2: $msg'" -F "cannot read '$TMP/$k.folded' at byte "
	said "... the line and what is wrong" -F "line 2: $msg"
done
said "... the byte offset is where the value starts" -F "cannot read '$TMP/big.folded' at byte 16: line 2:"
gzip -c "$TMP/dec.folded" > "$TMP/dec.folded.gz"
xexit 3 "a bad line in gzipped folded stacks" $TF top "$TMP/dec.folded.gz"
said "... named at its decompressed offset" -F "cannot read '$TMP/dec.folded.gz' at byte 16: line 2:"
printf 'main;a 0\nmain 0\n' > "$TMP/zero.folded"
xexit 3 "folded stacks whose values are all 0: no samples, exit 3" $TF top "$TMP/zero.folded"
said "... says so" "no samples"
printf 'main;a 5\r\n\r\n   \nmain;a\t2\nmain;b  4\nlast 1' > "$TMP/crlf.folded"
$TF -q fold "$TMP/crlf.folded" -o "$TMP/crlf.out"
printf 'last 1\nmain;a 7\nmain;b  4\n' > "$TMP/crlf.want"
check "CRLF, blank lines, a tab separator, a leaf ending in a blank, no final newline" cmp "$TMP/crlf.out" "$TMP/crlf.want"

# an empty result writes nothing: a trace whose wall time is all 0, a type all 0
printf '[{"name":"z","ph":"X","ts":1,"dur":0,"pid":1,"tid":1}]' > "$TMP/zero.json"
xexit 3 "fold of a trace whose every call path has 0 wall time: exit 3" $TF fold "$TMP/zero.json" -o "$TMP/e.folded"
said "... 'nothing to write ... no call path has a value of type wall'" "nothing to write to '$TMP/e.folded': no call path has a value of type wall"
check "... and no file" test ! -e "$TMP/e.folded"
xexit 0 "... while its calls are there" $TF fold --sample-type calls "$TMP/zero.json" -o "$TMP/e.folded"
check "... z 1" sh -c "[ \"\$(cat '$TMP/e.folded')\" = 'z 1' ]"
cat > "$TMP/zc.spec" <<'EOF'
type wall nanoseconds
type calls count
default wall
sample main 100 0
sample main;a 0 0
EOF
python3 tests/tools/pprof.py make "$TMP/zc.spec" "$TMP/zc.pb.gz"
xexit 3 "--sample-type calls of a profile whose calls are all 0: exit 3" $TF fold --sample-type calls "$TMP/zc.pb.gz" -o "$TMP/e2.folded"
check "... no file" test ! -e "$TMP/e2.folded"
ls -a "$TMP" | grep '^\.e' > "$TMP/tmps" || true
check "... and no temporary file left" test ! -s "$TMP/tmps"
printf 'keep me\n' > "$TMP/old.folded"
xexit 3 "a failed run (bad input)..." $TF fold "$TMP/dec.folded" -o "$TMP/old.folded"
check "... leaves the existing output untouched" sh -c "[ \"\$(cat '$TMP/old.folded')\" = 'keep me' ]"
xexit 3 "a failed run (nothing to write)..." $TF fold "$TMP/zero.json" -o "$TMP/old.folded"
check "... leaves the existing output untouched" sh -c "[ \"\$(cat '$TMP/old.folded')\" = 'keep me' ]"
xexit 2 "-o missing: exit 2" $TF fold "$DATA/tau/tiny"
xexit 2 "no input: exit 2" $TF fold -o "$TMP/x.folded"
xexit 2 "two outputs: exit 2" $TF fold "$DATA/tau/tiny" -o "$TMP/x.folded" -o "$TMP/y.folded"
xexit 2 "an unknown option: exit 2" $TF fold --bogus "$DATA/tau/tiny" -o "$TMP/x.folded"
xexit 2 "the output is an input: exit 2" $TF fold "$TMP/mpi.folded" -o "$TMP/mpi.folded"
xexit 2 "--folded-type without a unit: exit 2" $TF fold --folded-type wall "$TMP/mpi.folded" -o "$TMP/x.folded"
xexit 2 "merge --folded-type without a unit: exit 2" $TF merge --folded-type wall "$TMP/mpi.folded" -o "$TMP/x.pb.gz"
for c in profile convert top diff merge fold; do
	$TF $c --help | grep -q -- "--folded-type" && ok "$c --help has --folded-type" || fail "$c --help has --folded-type"
done

# --- speedscope (tests/viewer.sh) opens a .folded file: its sandwich table
# names every function with tracefold's self and total
SS=tests/node_modules/speedscope/dist/release
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ ! -f "$SS/index.html" ] || [ -z "$CHROMIUM" ]; then
	fail "speedscope or chromium is not installed (sh tests/deps.sh test)"
	finish
fi
mkdir -p "$TMP/www"
cp -r "$SS"/. "$TMP/www/"
python3 tests/tools/serve.py "$TMP/www" > "$TMP/port" 2>/dev/null &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$TMP/port" ] && break; sleep 0.5; done
port=$(head -1 "$TMP/port")
render() { # FILE: the DOM of speedscope's sandwich view of it
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--user-data-dir="$TMP/profile" --virtual-time-budget=20000 --dump-dom \
		"http://127.0.0.1:$port/index.html#profileURL=/$1&view=sandwich" 2>/dev/null
}
# speedscope fills its table after loading; on a loaded machine one
# headless run can end before it did: up to 3 runs, until the rows match
render_rows() { # FILE OUT TOP-JSON
	for _ in 1 2 3; do
		render "$1" > "$2"
		python3 "$TMP/fcheck.py" vs-top "$2" "$3" > /dev/null 2>&1 && return 0
	done
	return 0
}
cp "$TMP/mpi.folded" "$TMP/www/mpi.folded"
render_rows mpi.folded "$TMP/dom" "$TMP/t2.json"
check "speedscope opened mpi.folded (title 'mpi.folded - speedscope')" grep -q "<title>mpi.folded - speedscope</title>" "$TMP/dom"
check "... its table names MPI_Init()" grep -qF "MPI_Init()" "$TMP/dom"
check "... and every row's self and total equal top's (ns)" fc vs-top "$TMP/dom" "$TMP/t2.json"
# the checks can fail: a name that is not in the file, a table against another input's numbers
check "... a name not in the file is not found" sh -c "! grep -qF 'tracefold-no-such-frame' '$TMP/dom'"
$TF -q top --format json -n 0 "$DATA/tau/threads" > "$TMP/t3.json"
check "... and the table does not match another input's top" sh -c "! python3 '$TMP/fcheck.py' vs-top '$TMP/dom' '$TMP/t3.json' 2>/dev/null"
cp "$TMP/g.folded" "$TMP/www/gpu.folded"
$TF -q top --format json -n 0 --sample-type gpu "$g" > "$TMP/tg.json"
render_rows gpu.folded "$TMP/gdom" "$TMP/tg.json"
check "speedscope opened the GPU time of hta-simple-add-gpu: its rows equal top --sample-type gpu" fc vs-top "$TMP/gdom" "$TMP/tg.json"
finish
