# A real viewer opens tracefold's Chrome traces: speedscope (npm, pinned in
# tests/package.json) in headless Chromium (Debian chromium), loaded from a
# local HTTP server with #profileURL=.  The page it renders (--dump-dom) must
# name the file in its title and list every thread that has slices, with
# the process and thread names tracefold wrote.
. tests/lib.sh
SS=tests/node_modules/speedscope/dist/release
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -f "$SS/index.html" ] || { fail "speedscope is not installed (sh tests/deps.sh test)"; finish; }
[ -n "$CHROMIUM" ] || { fail "chromium is not installed (sh tests/deps.sh test)"; finish; }
mkdir -p "$TMP/www"
cp -r "$SS"/. "$TMP/www/"
python3 tests/tools/serve.py "$TMP/www" > "$TMP/port" 2>/dev/null &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$TMP/port" ] && break; sleep 0.5; done
port=$(head -1 "$TMP/port")
render() { # FILE: the DOM speedscope rendered for it
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--user-data-dir="$TMP/profile" --virtual-time-budget=20000 --dump-dom \
		"http://127.0.0.1:$port/index.html#profileURL=/$1" 2>/dev/null
}
# threads with slices, as speedscope names them: "PNAME (pid P), TNAME (tid T)"
threads() { python3 -c '
import json,sys
ev=json.load(open(sys.argv[1]))["traceEvents"]
pn={e["pid"]: e["args"]["name"] for e in ev if e["ph"]=="M" and e["name"]=="process_name"}
tn={(e["pid"],e["tid"]): e["args"]["name"] for e in ev if e["ph"]=="M" and e["name"]=="thread_name"}
for p,t in sorted({(e["pid"],e["tid"]) for e in ev if e["ph"]=="X"}):
    if (p,t) in tn:
        print("%s (pid %d), %s (tid %d)" % (pn.get(p, "pid"), p, tn[(p,t)], t))
    else:
        print("%s (pid %d, tid %d)" % (pn.get(p, "pid"), p, t))' "$1"; }
i=0
for t in $DATA/tau/mpi_small $DATA/otf2/scorep-ping-pong-mpi $DATA/chrome/pytorch-legacy-small/trace.json $DATA/otf2/scorep-mi300-hip $DATA/chrome/hta-simple-add-gpu/*.json.gz; do
	i=$((i + 1)); b=$(basename "$t")
	$TF -q chrome "$t" -o "$TMP/www/t$i.json" || { fail "$b: chrome"; continue; }
	render "t$i.json" > "$TMP/dom$i"
	check "$b: speedscope opened it (title 't$i.json - speedscope')" grep -q "<title>t$i.json - speedscope</title>" "$TMP/dom$i"
	n=$(threads "$TMP/www/t$i.json" | wc -l)
	if [ "$n" -gt 1 ]; then
		check "$b: ... and lists its $n threads with slices" grep -q "(1/$n)" "$TMP/dom$i"
	else
		check "$b: ... one thread: no thread list" sh -c "! grep -q '(1/[0-9]*)' '$TMP/dom$i'"
	fi
	threads "$TMP/www/t$i.json" > "$TMP/names$i"
	while read -r name; do
		grep -qF "$name" "$TMP/dom$i" || { fail "$b: speedscope does not show '$name'"; continue 2; }
	done < "$TMP/names$i"
	ok "$b: ... each named as tracefold wrote it"
done
# the check can fail: with string pids (as PyTorch's legacy exporter writes
# them) speedscope shows its error page
sed 's/"pid":\([0-9]*\)/"pid":"p\1"/g' "$TMP/www/t3.json" > "$TMP/www/bad.json"
render bad.json > "$TMP/badom"
check "string pids: speedscope's error page, and the check sees it" sh -c "grep -q 'Something went wrong' '$TMP/badom' && ! grep -q 'bad.json - speedscope' '$TMP/badom'"
finish
