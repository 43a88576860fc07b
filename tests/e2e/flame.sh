# Flame graph pictures (tracefold flame, docs/flame.md): well-formed XML
# (xmllint), frame widths equal to what go tool pprof -raw says of the same
# input's profile (tests/tools/flame_check.py, within a pixel), byte-identical
# output, diff colors, and a real browser (headless Chromium) that renders
# the SVG and the HTML to pictures that are not blank and runs the HTML's
# search and zoom.
. tests/lib.sh
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
S=samples/pytorch-cnn-train.trace.json.gz
K=$(ls $DATA/chrome/kineto-resnet50-gpu/*.json.gz)
flame_check() { python3 tests/tools/flame_check.py "$@"; }

# 1. every kind of input: valid XML, widths = pprof's values
i=0
for t in $DATA/tau/mpi_small $DATA/tau/threads $DATA/otf2/scorep-ping-pong-mpi $S "$K" \
	$DATA/chrome/tracelens-bert-small-h100/*.json.gz $DATA/chrome/hta-simple-add-gpu/*.json.gz; do
	i=$((i + 1)); b=$(basename "$t")
	$TF -q profile "$t" -o "$TMP/p$i.pb.gz" || { fail "$b: profile"; continue; }
	$TF -q flame "$t" -o "$TMP/f$i.svg" || { fail "$b: flame"; continue; }
	check "$b: the SVG is well-formed XML (xmllint)" xmllint --noout "$TMP/f$i.svg"
	check "$b: frame widths are pprof's inclusive values (within 1 px), narrow ones in [...]" \
		flame_check "$TMP/f$i.svg" "$TMP/p$i.pb.gz"
done
# the profile as input draws the same picture as the trace
$TF -q flame "$TMP/p4.pb.gz" -o "$TMP/fromprof.svg"
check "a pprof input gives the same picture as its trace (byte-identical)" cmp "$TMP/f4.svg" "$TMP/fromprof.svg"
# folded stacks in: the same picture as of the trace they were folded from
$TF -q fold "$S" -o "$TMP/s.folded"
$TF -q flame --title T --folded-type wall/nanoseconds "$TMP/s.folded" -o "$TMP/fromfold.svg"
$TF -q flame --title T "$S" -o "$TMP/fromtrace.svg"
check "folded stacks in (--folded-type wall/nanoseconds): the trace's picture, but for calls" python3 -c '
import re, sys
a, b = (re.sub(r"\ncalls: \d+", "", open(f).read()) for f in sys.argv[1:3])
sys.exit(a != b or "calls: " in open(sys.argv[2]).read())' "$TMP/fromtrace.svg" "$TMP/fromfold.svg"
$TF -q flame "$S" -o "$TMP/again.svg"
check "the same input gives byte-identical output" cmp "$TMP/f4.svg" "$TMP/again.svg"
$TF -q convert "$S" -o "$TMP/conv.svg" -o "$TMP/conv.pb.gz"
check "convert -o x.svg (the writer table) draws the same picture" cmp "$TMP/f4.svg" "$TMP/conv.svg"

# 2. options: sample types, --by, --icicle, --min-width, --width
$TF -q flame --sample-type gpu "$K" -o "$TMP/gpu.svg"
check "--sample-type gpu: widths are pprof's gpu values" flame_check "$TMP/gpu.svg" "$TMP/p5.pb.gz" --type gpu
$TF -q flame --sample-type calls $DATA/tau/threads -o "$TMP/calls.svg"
check "--sample-type calls: widths are pprof's calls" flame_check "$TMP/calls.svg" "$TMP/p2.pb.gz" --type calls
$TF -q flame --by rank --icicle $DATA/tau/mpi_small -o "$TMP/rank.svg"
check "--by rank --icicle: a frame per rank under the root, widths = pprof" \
	flame_check "$TMP/rank.svg" "$TMP/p1.pb.gz" --by rank
check "--by rank: both ranks are drawn" sh -c "grep -q '<title>rank 0' '$TMP/rank.svg' && grep -q '<title>rank 1' '$TMP/rank.svg'"
check "--icicle: the root is the top row" python3 -c '
import sys, xml.etree.ElementTree as E
ns="{http://www.w3.org/2000/svg}"
ys=[(float(g.find(ns+"rect").get("y")), g.find(ns+"title").text.split("\n")[0]) for g in E.parse(sys.argv[1]).getroot().iter(ns+"g")]
sys.exit(min(ys)[1] != "all")' "$TMP/rank.svg"
$TF -q flame --by thread --min-width 3 --width 800 $DATA/otf2/scorep-ping-pong-mpi -o "$TMP/thr.svg"
check "--by thread --min-width 3 --width 800: widths = pprof" \
	flame_check "$TMP/thr.svg" "$TMP/p3.pb.gz" --by thread --min-width 3 --width 800
# the check can fail: one width moved by 2 px
python3 - "$TMP/f4.svg" "$TMP/bad.svg" <<'EOF'
import re, sys
s = open(sys.argv[1]).read()
m = list(re.finditer(r'width="(\d+\.\d+)" height="15"', s))[3]
w = float(m.group(1)) + 2
open(sys.argv[2], "w").write(s[:m.start(1)] + "%.2f" % w + s[m.end(1):])
EOF
expect_exit 1 "the width check fails on a frame 2 px too wide" flame_check "$TMP/bad.svg" "$TMP/p4.pb.gz"

# 3. many call paths: narrow frames merge, the file stays small
python3 - "$TMP/wide.json" <<'EOF'
import json, sys
ev = [{"ph": "X", "name": "main", "pid": 1, "tid": 1, "ts": 0, "dur": 3000000},
      {"ph": "X", "name": "big", "pid": 1, "tid": 1, "ts": 0, "dur": 1000000}]
t = 1000000
for i in range(20000):  # 20,000 distinct leaves of 50 us: 0.02 px each
    ev.append({"ph": "X", "name": "leaf%05d" % i, "pid": 1, "tid": 1, "ts": t, "dur": 50}); t += 50
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
EOF
$TF -q profile "$TMP/wide.json" -o "$TMP/wide.pb.gz"
$TF -q flame "$TMP/wide.json" -o "$TMP/wide.svg"
check "20,000 narrow leaves: widths = pprof, one [...] box for them" flame_check "$TMP/wide.svg" "$TMP/wide.pb.gz"
check "... which names how many it holds" grep -q '<title>\[...\] 20000 frames narrower than 0.5 px' "$TMP/wide.svg"
sz=$(wc -c < "$TMP/wide.svg")
check "... and the file is small ($sz bytes < 8000)" test "$sz" -lt 8000

# 4. differential flame graph: red grew, blue shrank, new outlined, gone named
python3 - "$TMP" <<'EOF'
import json, sys
def tr(parts):
    ev = [{"ph": "X", "name": "main", "pid": 1, "tid": 1, "ts": 0, "dur": sum(parts.values()) + 10}]
    t = 5
    for n, d in parts.items():
        ev.append({"ph": "X", "name": n, "pid": 1, "tid": 1, "ts": t, "dur": d}); t += d
    return {"traceEvents": ev}
json.dump(tr({"grow": 10000, "shrink": 20000, "same": 5000, "gone": 3000}), open(sys.argv[1] + "/base.json", "w"))
json.dump(tr({"grow": 30000, "shrink": 5000, "same": 5000, "fresh": 4000}), open(sys.argv[1] + "/new.json", "w"))
EOF
$TF -q flame --diff "$TMP/base.json" "$TMP/new.json" -o "$TMP/diff.svg"
check "diff: well-formed XML" xmllint --noout "$TMP/diff.svg"
$TF -q profile "$TMP/new.json" -o "$TMP/new.pb.gz"
check "diff: widths come from NEW" flame_check "$TMP/diff.svg" "$TMP/new.pb.gz"
color() { # NAME: the fill of its frame as "r g b"
	python3 -c '
import sys, xml.etree.ElementTree as E
ns="{http://www.w3.org/2000/svg}"
for g in E.parse(sys.argv[1]).getroot().iter(ns+"g"):
    if g.find(ns+"title").text.split("\n")[0] == sys.argv[2]:
        f = g.find(ns+"rect").get("fill"); print(int(f[1:3],16), int(f[3:5],16), int(f[5:7],16), g.get("class").replace(" ", "+"))' "$TMP/diff.svg" "$1"; }
set -- $(color grow)
check "diff: the function that grew (+20 ms) is full red ($1 $2 $3)" test "$1" -eq 255 -a "$2" -lt 40 -a "$3" -lt 40
set -- $(color shrink)
check "diff: the one that shrank (-15 ms) is blue ($1 $2 $3)" test "$3" -eq 255 -a "$1" -lt 120 -a "$2" -lt 120
set -- $(color same)
check "diff: the unchanged one is neutral gray ($1 $2 $3)" test "$1" -eq "$2" -a "$2" -eq "$3"
set -- $(color fresh)
check "diff: the new one is outlined (class '$4') and reddish" test "$4" = "f+n" -a "$1" -eq 255
check "diff: the vanished one is named in its parent's tooltip" grep -q 'gone since .*base.json (1):' "$TMP/diff.svg"
check "diff: ... with its BASE value" grep -q '^  gone 3.00 ms' "$TMP/diff.svg"
check "diff: the change is in the tooltip" grep -q 'self vs .*base.json: +20.00 ms (+200.0%)' "$TMP/diff.svg"
# more vanished children than a tooltip names: the 5 largest, then a count
python3 - "$TMP" <<'EOF2'
import json, sys
ev = [{"ph": "X", "name": "main", "pid": 1, "tid": 1, "ts": 0, "dur": 100000}]
for i in range(8):
    ev.append({"ph": "X", "name": "old%d" % i, "pid": 1, "tid": 1, "ts": 10 + 1000 * i, "dur": 100 * (i + 1)})
json.dump({"traceEvents": ev}, open(sys.argv[1] + "/base8.json", "w"))
EOF2
$TF -q flame --diff "$TMP/base8.json" "$TMP/new.json" -o "$TMP/diff8.svg"
check "diff: 8 vanished children: the 5 largest named, largest first, and 3 more" python3 -c '
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r"gone since [^\n]* \(8\):\n((?:  old\d [^\n]*\n){5})  and 3 more<", s)
sys.exit(not m or re.findall(r"old(\d)", m.group(1)) != ["7", "6", "5", "4", "3"])' "$TMP/diff8.svg"
$TF -q flame --diff "$TMP/base.json" --normalize "$TMP/new.json" -o "$TMP/diffn.svg"
check "diff --normalize: BASE scaled to NEW's total (38 -> 44 ms: shrink is -18.16 ms)" \
	grep -q 'self vs .*base.json: -18.16 ms' "$TMP/diffn.svg"
$TF -q profile "$TMP/base.json" -o "$TMP/base.pb.gz"
$TF -q flame --diff "$TMP/base.pb.gz" "$TMP/new.pb.gz" -o "$TMP/diffp.svg"
check "diff of two profiles: the same picture as of their traces (but the BASE name)" \
	sh -c "sed 's/[^ ]*base[.][a-z.]*//g' '$TMP/diff.svg' > '$TMP/d1'; sed 's/[^ ]*base[.][a-z.]*//g' '$TMP/diffp.svg' > '$TMP/d2'; cmp '$TMP/d1' '$TMP/d2'"

# diff --flame: the report draws the same picture and links to it
$TF -q diff "$TMP/base.json" "$TMP/new.json" --format markdown --flame "$TMP/rep.svg" --flame-url "https://ci.example/a b.svg" > "$TMP/rep.md"
check "diff --flame draws the picture of 'flame --diff' (byte-identical)" cmp "$TMP/rep.svg" "$TMP/diff.svg"
check "diff --flame --format markdown: the report links to it (URL encoded)" \
	grep -q '^Differential flame graph (widths: NEW; red grew, blue shrank since BASE): \[`.*rep.svg`\](https://ci.example/a%20b.svg)$' "$TMP/rep.md"
$TF -q diff "$TMP/base.json" "$TMP/new.json" --format json --flame "$TMP/rep.svg" > "$TMP/rep.json"
check "diff --flame --format json: \"flame\" names it" python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["flame"] != sys.argv[2])' "$TMP/rep.json" "$TMP/rep.svg"
expect_exit 2 "diff --flame-url without --flame: usage error" $TF -q diff "$TMP/base.json" "$TMP/new.json" --flame-url x
expect_exit 3 "diff --flame into a missing folder: exit 3, no report" $TF -q diff "$TMP/base.json" "$TMP/new.json" --flame "$TMP/no/such/dir/x.svg"
cp "$TMP/out" "$TMP/out1"
check "... nothing on stdout" test ! -s "$TMP/out1"
expect_exit 2 "diff --flame -: usage error (stdout holds the report)" $TF -q diff "$TMP/base.json" "$TMP/new.json" --flame -

# 5. category colors
$TF -q flame --colors category --sample-type gpu "$K" -o "$TMP/cat.svg"
check "--colors category: a legend" grep -q '>GPU activity</text>' "$TMP/cat.svg"
kcolor() { python3 -c '
import sys, xml.etree.ElementTree as E
ns="{http://www.w3.org/2000/svg}"
for g in E.parse(sys.argv[1]).getroot().iter(ns+"g"):
    if g.find(ns+"title").text.split("\n")[0].startswith(sys.argv[2]):
        f = g.find(ns+"rect").get("fill"); print(int(f[1:3],16), int(f[3:5],16), int(f[5:7],16)); break' "$TMP/cat.svg" "$1"; }
set -- $(kcolor "void cudnn::")
check "--colors category: a GPU kernel is magenta ($1 $2 $3)" test "$1" -gt "$2" -a "$3" -gt "$2"
set -- $(kcolor "cudaLaunchKernel")
check "--colors category: cudaLaunchKernel is runtime yellow ($1 $2 $3)" test "$1" -gt "$3" -a "$2" -gt "$3"

# make docs: the README's pictures and report are what this tracefold draws
TF=$TF sh samples/docs.sh "$TMP/docimg" > /dev/null
for f in flame.svg flame-diff.svg flame-diff.md record-flame.svg; do
	check "make docs: docs/img/$f is up to date (run 'make docs')" cmp "$TMP/docimg/$f" "docs/img/$f"
done
check "make docs: README.md holds docs/img/flame-diff.md between its markers" sh -c "
	sed -n '/^<!-- make docs: flame-diff.md -->\$/,/^<!-- end -->\$/p' README.md | sed '1d;\$d' | cmp - docs/img/flame-diff.md"
check "README.md shows both pictures" sh -c "grep -q '](docs/img/flame.svg)' README.md && grep -q '](docs/img/flame-diff.svg)' README.md"
check "docs/img pictures are well-formed XML" xmllint --noout docs/img/flame.svg docs/img/flame-diff.svg

# hostile names and values
python3 - "$TMP" <<'EOF'
import json, sys
d = sys.argv[1]
ev = [{"ph": "X", "name": "main", "pid": 1, "tid": 1, "ts": 0, "dur": 1000}]
names = ["a<b&c\"d'e", "]]></svg><script>alert(1)</script>", "nul\u0000ctl\u0001\u001f", "nonchar\ufffe\uffff",
         "\u2028line", "x" * 5000]
for i, n in enumerate(names):
    ev.append({"ph": "X", "name": n, "pid": 1, "tid": 1, "ts": 10 + 100 * i, "dur": 90})
json.dump({"traceEvents": ev}, open(d + "/names.json", "w"))
# four threads near the int64 range: their sum saturates
json.dump({"traceEvents": [{"ph": "X", "name": "t%d" % i, "pid": 1, "tid": i, "ts": 0, "dur": 9e15} for i in range(4)]},
          open(d + "/huge.json", "w"))
EOF
$TF -q flame "$TMP/names.json" -o "$TMP/names.svg"
check "names with markup, control characters, U+FFFE/U+FFFF: well-formed XML" xmllint --noout "$TMP/names.svg"
$TF -q flame "$TMP/names.json" -o "$TMP/names.html"
check "... and in the HTML page's SVG" sh -c "sed -n '/^<svg /,/^<\/svg>/p' '$TMP/names.html' | xmllint --noout -"
check "... no markup of a name reaches the page" sh -c "! grep -q '<script>alert' '$TMP/names.html'"
$TF -q flame "$TMP/huge.json" -o "$TMP/huge.svg"
check "totals past the int64 range: every frame inside the picture and inside its parent" python3 -c '
import sys, xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
r = [(float(x.get("x")), float(x.get("width"))) for g in E.parse(sys.argv[1]).getroot().iter(ns + "g") for x in [g.find(ns + "rect")]]
sys.exit(not all(x >= 10 and x + w <= 1190.01 for x, w in r) or len(r) != 5)' "$TMP/huge.svg"

# 6. errors
expect_exit 2 "no -o: usage error" $TF -q flame "$S"
expect_exit 2 "no input: usage error" $TF -q flame -o "$TMP/x.svg"
expect_exit 2 "--min-width 0: usage error" $TF -q flame --min-width 0 "$S" -o "$TMP/x.svg"
expect_exit 2 "--colors pink: usage error" $TF -q flame --colors pink "$S" -o "$TMP/x.svg"
expect_exit 2 "--normalize without --diff: usage error" $TF -q flame --normalize "$S" -o "$TMP/x.svg"
expect_exit 2 "the output is the input: usage error" $TF -q flame "$TMP/wide.json" -o "$TMP/wide.json"
expect_exit 3 "an unknown sample type: exit 3" $TF -q flame --sample-type nope "$S" -o "$TMP/x.svg"
cp "$TMP/err" "$TMP/err1"
check "... naming it" grep -q "no sample type 'nope'" "$TMP/err1"
printf '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":0},{"ph":"X","name":"b","pid":1,"tid":1,"ts":2,"dur":0}]}' > "$TMP/zero.json"
echo keep > "$TMP/keep.svg"
expect_exit 3 "nothing to draw (every region 0 long): exit 3" $TF -q flame "$TMP/zero.json" -o "$TMP/keep.svg"
cp "$TMP/err" "$TMP/err1"
check "... saying so" grep -q "nothing to draw: no call path has a positive wall value" "$TMP/err1"
check "... and the existing output is untouched" grep -qx keep "$TMP/keep.svg"
check "... and no temporary file is left" sh -c "! ls -a '$TMP' | grep -q '^\.keep'"
expect_exit 3 "a missing BASE: exit 3" $TF -q flame --diff "$TMP/missing.json" "$S" -o "$TMP/x.svg"
expect_exit 3 "--by a label no sample has: exit 3" $TF -q flame --by nope "$S" -o "$TMP/x.svg"
cp "$TMP/err" "$TMP/err1"
check "... saying so" grep -q "no sample has a 'nope' label" "$TMP/err1"

# 7. a real browser: SVG and HTML rendered, the HTML's search and zoom
if [ -z "$CHROMIUM" ]; then
	fail "chromium is not installed (sh tests/deps.sh test)"
	finish
fi
chrome() { timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
	--user-data-dir="$TMP/chromium" "$@" 2>/dev/null; }
shot() { # FILE URL-SUFFIX: a screenshot of it
	rm -f "$TMP/shot.png"
	(cd "$TMP" && chrome --screenshot="$TMP/shot.png" --window-size=1200,700 "file://$1$2")
	python3 tests/tools/png_stats.py "$TMP/shot.png" 2 16
}
$TF -q flame "$K" -o "$TMP/k.html"
$TF -q flame "$K" --html -o "$TMP/k-html.svgpage"
check "--html: the same page as a .html name" cmp "$TMP/k.html" "$TMP/k-html.svgpage"
check "HTML: its SVG is well-formed XML (xmllint)" sh -c "sed -n '/^<svg /,/^<\/svg>/p' '$TMP/k.html' | xmllint --noout -"
check "HTML: one page: doctype, head, the SVG, the script" python3 -c '
import sys; s = open(sys.argv[1]).read()
sys.exit(not (s.startswith("<!DOCTYPE html>") and s.count("<svg ") == 1 and s.count("<script>") == 1 and s.rstrip().endswith("</html>")))' "$TMP/k.html"
check "HTML: self-contained (no src= or href=)" sh -c "! grep -Eq '(src|href)=' '$TMP/k.html'"
check "SVG: self-contained (no links, scripts or external fonts)" \
	sh -c "! grep -Eq '(href=|<script|@import|url\\()' '$TMP/f5.svg'"
check "Chromium renders the SVG: not blank" shot "$TMP/f5.svg" ""
check "Chromium renders the HTML: not blank" shot "$TMP/k.html" ""
check "Chromium renders the diff SVG: not blank" shot "$TMP/diff.svg" ""
echo '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"></svg>' > "$TMP/blank.svg"
expect_exit 1 "the blank check can fail: an empty SVG is blank" shot "$TMP/blank.svg" ""
dom() { chrome --virtual-time-budget=5000 --dump-dom "file://$1"; }
# the share of samples with aten::conv2d on their stack, from pprof
want=$(python3 -c '
import sys; sys.path.insert(0, "tests/tools"); import pprof_raw
types, samples, locs = pprof_raw.parse(pprof_raw.raw(sys.argv[1])[0])
t = [x.split("/")[0] for x in types].index("wall")
tot = sum(s["values"][t] for s in samples)
hit = sum(s["values"][t] for s in samples if any(locs[l][0] == "aten::conv2d" for l in s["locs"]))
print("%.2f" % (100.0 * hit / tot))' "$TMP/p5.pb.gz")
dom "$TMP/k.html#s=aten::conv2d" > "$TMP/dom"
got=$(sed -n 's/.*<span id="matched">Matched: \([0-9.]*\)% (\([0-9]*\) frames)<\/span>.*/\1 \2/p' "$TMP/dom")
set -- $got
check "HTML search 'aten::conv2d': $2 frames marked, $1% (pprof: $want%)" \
	python3 -c 'import sys; sys.exit(not (int(sys.argv[2]) > 0 and abs(float(sys.argv[1]) - float(sys.argv[3])) < 0.1))' "${1:-0}" "${2:-0}" "$want"
check "... the marked frames are the matches" sh -c "test \$(grep -o '<g class=\"f m\" data-p=\"[0-9]*\"><title>aten::conv2d' '$TMP/dom' | wc -l) -eq '${2:-x}'"
dom "$TMP/k.html#s=no_such_frame_anywhere" > "$TMP/dom0"
check "HTML search for a missing name: 0 frames" grep -q '<span id="matched">Matched: 0.00% (0 frames)</span>' "$TMP/dom0"
$TF -q flame --diff "$TMP/base.json" "$TMP/new.json" -o "$TMP/diff.html"
# zoom: #z=N zooms to the N-th frame (document order); in the diff, frame 3 is 'grow'
dom "$TMP/diff.html#z=3" > "$TMP/domz"
check "HTML zoom to 'grow': it fills the width, its ancestors are faded, the others hidden" python3 -c '
import re, sys
s = open(sys.argv[1]).read()
fr = {m.group(2): (m.group(1), float(m.group(3))) for m in re.finditer(r"<g class=\"([^\"]*)\" data-p=\"-?\d+\"><title>(\w+)\n.*?<rect x=\"[^\"]*\" y=\"[^\"]*\" width=\"([^\"]*)\"", s, re.S)}
ok = fr["grow"] == ("f", 1180.0) and fr["all"][0] == "f a" and fr["main"][0] == "f a" \
     and all("h" in fr[n][0].split() for n in ("fresh", "same", "shrink"))
print(fr); sys.exit(not ok)' "$TMP/domz"
# zoom follows the tree, not pixels: a last child whose rounded right edge
# passes its parent's by 0.01 px stays inside it
printf '{"traceEvents":[{"ph":"X","name":"A","pid":1,"tid":1,"ts":0,"dur":393333},{"ph":"X","name":"P","pid":1,"tid":1,"ts":393333,"dur":393333},{"ph":"X","name":"a","pid":1,"tid":1,"ts":393333,"dur":100003},{"ph":"X","name":"b","pid":1,"tid":1,"ts":493336,"dur":293330},{"ph":"X","name":"Z","pid":1,"tid":1,"ts":786666,"dur":393334}]}' > "$TMP/round.json"
$TF -q flame "$TMP/round.json" -o "$TMP/round.html"
zi() { python3 -c '
import re, sys
s = open(sys.argv[1]).read()
print([m.group(1) for m in re.finditer(r"<g class=\"f[^\"]*\" data-p=\"-?\d+\"><title>([^\n<]*)", s)].index(sys.argv[2]))' "$1" "$2"; }
dom "$TMP/round.html#z=$(zi "$TMP/round.html" P)" > "$TMP/domr"
check "HTML zoom to P keeps its child b (right edge rounded past P's)" sh -c "grep -q '<title>b' '$TMP/domr' && ! grep -q '<g class=\"f h\" data-p=\"[0-9]*\"><title>b' '$TMP/domr'"
dom "$TMP/round.html#z=$(zi "$TMP/round.html" b)" > "$TMP/domr"
check "HTML zoom to b keeps its parent P as a faded bar" grep -q '<g class="f a" data-p="0"><title>P' "$TMP/domr"
# a frame too narrow for a label gets one when zoomed into
printf '{"traceEvents":[{"ph":"X","name":"main","pid":1,"tid":1,"ts":0,"dur":100000},{"ph":"X","name":"big","pid":1,"tid":1,"ts":0,"dur":98000},{"ph":"X","name":"small","pid":1,"tid":1,"ts":98000,"dur":2000},{"ph":"X","name":"kid","pid":1,"tid":1,"ts":98000,"dur":1000}]}' > "$TMP/z.json"
$TF -q flame "$TMP/z.json" -o "$TMP/z.html"
check "HTML: 'small' has no label at full width" sh -c "grep -q '<title>small' '$TMP/z.html' && ! grep -q '>small</text>' '$TMP/z.html'"
dom "$TMP/z.html#z=$(zi "$TMP/z.html" small)" > "$TMP/domz2"
check "HTML zoom to 'small': it and its callee are labelled" sh -c "grep -q '>small</text>' '$TMP/domz2' && grep -q '>kid</text>' '$TMP/domz2'"
# [...] boxes keep their label and are not searched; a malformed #s= still runs
python3 -c '
import json, sys
ev = [{"ph": "X", "name": "main", "pid": 1, "tid": 1, "ts": 0, "dur": 100000},
      {"ph": "X", "name": "big", "pid": 1, "tid": 1, "ts": 0, "dur": 90000}]
ev += [{"ph": "X", "name": "s%d" % i, "pid": 1, "tid": 1, "ts": 90000 + 2000 * i, "dur": 2000} for i in range(5)]
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))' "$TMP/m.json"
$TF -q flame --min-width 30 "$TMP/m.json" -o "$TMP/m.html"
dom "$TMP/m.html#s=frames%&z=0" > "$TMP/domm"
check "HTML: a [...] box keeps its label, a search for 'frames' finds none, '%' in #s= is text" \
	sh -c "grep -q '>\[...\]</text>' '$TMP/domm' && grep -q 'Matched: 0.00% (0 frames)' '$TMP/domm'"
finish
