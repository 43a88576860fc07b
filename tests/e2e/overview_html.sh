# The HTML page of `tracefold overview` (src/cmd/overview_html.c,
# docs/overview.md) in a real browser, headless Chromium: the pages that
# test_ov_html writes from a report filled by hand (TF_OVHTML_DIR: GPU and
# CPU-only runs, one straggler, hostile names) and the command's page of
# real traces (the legacy torch 1.13 gloo DDP run, 2 ranks, CPU only, ranks
# from the file names; the hand-made Kineto collectives, 2 ranks from
# distributedInfo, with GPU kernels; the PyTorch 2.11 GPT trace, 1 rank, 3
# ProfilerSteps, GPUs; the real 4-rank DDP run with injected delays, 6
# steps, 7 stragglers).  Each page: nothing on Chromium's console (an SVG
# attribute Chromium refuses is an error there; the check fails on one put
# in on purpose), no http(s) reference, script, link or image; every SVG
# laid out with a size (a probe script added to a copy measures them):
# the heat map has one cell of positive size per rank and step, as many as
# tests/tools/overview_html_check.py counts from the traces (ranks:
# distributedInfo, file names, inputs; steps: distinct ProfilerStep#N, else
# one), the bar chart one bar per rank, the flame graph its frames; a
# screenshot that is not blank; the same bytes twice; every cell's tooltip
# and every bar segment equal to the command's JSON numbers (summed per
# rank for the bars) as tracefold formats them, the cells marked and
# outlined as stragglers the JSON's stragglers.
. tests/lib.sh
case $TF in
*san*) U=build/san/tests/test_ov_html ;;
*) U=build/rel/tests/test_ov_html ;;
esac
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { fail "chromium is not installed (sh tests/deps.sh test)"; finish; }
C=tests/tools/overview_html_check.py

# render PAGE: the DOM of a copy of PAGE with the probe script at its end
# (PAGE.dom), Chromium's console lines (PAGE.console), a screenshot (PAGE.png)
render() {
	python3 - "$1" "$TMP/probe.html" <<'EOF'
import sys
s = open(sys.argv[1], encoding="utf-8").read()
probe = """<script>
(function () {
	const out = [];
	const size = e => { const b = e.getBoundingClientRect(); return b.width > 0 && b.height > 0; };
	for (const s of document.querySelectorAll('svg'))
		out.push('svg ' + (s.getAttribute('class') || 'flame') + ' ' + (size(s) ? 'sized' : 'empty'));
	const cells = [...document.querySelectorAll('svg.ov-heat rect.ov-cell')];
	out.push('cells ' + cells.length + ' sized ' + cells.filter(size).length);
	const bars = [...document.querySelectorAll('svg.ov-bars g.ov-bar')];
	out.push('bars ' + bars.length + ' sized ' + bars.filter(b => [...b.querySelectorAll('rect')].some(size)).length);
	const fl = document.querySelector('svg:not(.ov)');
	out.push('flame frames ' + (fl ? [...fl.querySelectorAll('g.f rect')].filter(size).length : 0));
	const pre = document.createElement('pre');
	pre.id = 'ovprobe';
	pre.textContent = out.join('\\n');
	document.body.appendChild(pre);
})();
</script>
"""
i = s.rindex("</body>")
open(sys.argv[2], "w", encoding="utf-8").write(s[:i] + probe + s[i:])
EOF
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --user-data-dir="$TMP/chromium" \
		--enable-logging=stderr --v=0 --dump-dom "file://$TMP/probe.html" \
		> "$1.dom" 2> "$1.log"
	grep ':CONSOLE' "$1.log" > "$1.console"
	rm -f "$1.png"
	(cd "$TMP" && timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--user-data-dir="$TMP/chromium" --hide-scrollbars --screenshot="$1.png" --window-size=1300,1600 \
		"file://$1" > /dev/null 2>&1)
	python3 $C probe "$1.dom" > "$1.probe"
}
no_console() { [ ! -s "$1.console" ] || { cat "$1.console" >&2; false; }; }
has() { grep -qx "$2" "$1.probe" || { cat "$1.probe" >&2; false; }; }
# page NAME PAGE RANKS CELLS: the checks every page gets
page() {
	name=$1 p=$2
	render "$p"
	check "$name: nothing on the browser's console" no_console "$p"
	check "$name: no http(s) reference, script, link, image or import" \
		sh -c "! grep -Eiq 'https?:|<script|<link|<img|<iframe|src=|href=|@import|url\\(' '$p'"
	check "$name: heat map, bars and flame graph laid out with a size" \
		sh -c "grep -qx 'svg ov ov-heat sized' '$p.probe' && grep -qx 'svg ov ov-bars sized' '$p.probe' && grep -qx 'svg flame sized' '$p.probe'"
	check "$name: the heat map has $4 cells (ranks x steps), each with a size" has "$p" "cells $4 sized $4"
	check "$name: the bar chart has $3 bars (one per rank), each drawn" has "$p" "bars $3 sized $3"
	check "$name: the flame graph's frames are drawn" sh -c "grep -Eq '^flame frames [1-9]' '$p.probe'"
	check "$name: the screenshot is not blank" python3 tests/tools/png_stats.py "$p.png" 2 16
}

# 1. the pages of a report filled by hand
mkdir -p "$TMP/unit"
if [ -x "$U" ] && TF_OVHTML_DIR="$TMP/unit" "$U" > "$TMP/unit.out" 2>&1; then
	ok "$U writes its pages"
	page "hand-made GPU report" "$TMP/unit/gpu.html" 3 9
	page "hand-made CPU report" "$TMP/unit/cpu.html" 3 9
	check "hand-made: the straggler outlined, once" sh -c "test \$(grep -c 'class=\"ov-mark\"' '$TMP/unit/gpu.html') -eq 1"
	# the check can fail: an SVG attribute Chromium refuses is on its console
	sed 's|</body>|<svg width="9" height="9"><rect width="-1" height="5"/></svg></body>|' "$TMP/unit/gpu.html" > "$TMP/unit/neg.html"
	render "$TMP/unit/neg.html"
	expect_exit 1 "the console check can fail: a negative width is reported" no_console "$TMP/unit/neg.html"
else
	fail "$U writes its pages (make unit builds it)"; sed 's/^/#   /' "$TMP/unit.out" 2>/dev/null | tail -20
fi

# 2. the command's page of real traces
i=0
for ins in "$DATA/chrome/torch113-gloo-ddp/rank0.pt.trace.json.gz $DATA/chrome/torch113-gloo-ddp/rank1.pt.trace.json.gz" \
	"$DATA/chrome/kineto-collectives-handmade/rank0.json.gz $DATA/chrome/kineto-collectives-handmade/rank1.json.gz" \
	"$DATA/chrome/pytorch211-h200-gpt/trace.json.gz" \
	"$(echo $DATA/chrome/torch113-ddp-stragglers/delayed/rank*.json.gz)"; do
	i=$((i + 1))
	name=$(dirname "${ins%% *}" | sed 's|.*/chrome/||')
	# shellcheck disable=SC2086
	if ! $TF -q overview $ins -o "$TMP/ov$i.html" 2> "$TMP/err$i"; then
		fail "$name: overview -o page.html"; sed 's/^/#   /' "$TMP/err$i" | head -10; continue
	fi
	# shellcheck disable=SC2086
	set -- $(python3 $C expect $ins)
	page "$name" "$TMP/ov$i.html" "$1" "$2"
	# shellcheck disable=SC2086
	$TF -q overview $ins -o "$TMP/ov$i-again.html"
	check "$name: the same bytes twice" cmp "$TMP/ov$i.html" "$TMP/ov$i-again.html"
	# shellcheck disable=SC2086
	if $TF -q overview $ins -o "$TMP/ov$i.json" 2> "$TMP/err$i"; then
		check "$name: every cell's tooltip and every bar = the JSON's numbers" python3 $C tips "$TMP/ov$i.html" "$TMP/ov$i.json"
	else
		fail "$name: overview -o x.json"; sed 's/^/#   /' "$TMP/err$i" | head -10
	fi
done
finish
