# gzip input, both inflaters (src/io/io.c): ISA-L's igzip where libisal was
# found at build time, zlib otherwise.  --version names the one built in;
# in the release run a zlib-only build (make ISAL=0, in a copy of the
# sources) reads every gzip fixture, a concatenated .gz, a cut one and a
# corrupt one as this build does: the same profiles, the same "ends early"
# note, an error naming the file for the corrupt one.
. tests/lib.sh

$TF --version > "$TMP/v" 2>&1
if grep -qE "^gzip input: (ISA-L igzip [0-9]|zlib [0-9])" "$TMP/v"; then ok "--version names the inflater: $(sed -n 's/^gzip input: //p' "$TMP/v")"; else
	fail "--version names the inflater"; sed 's/^/#   /' "$TMP/v"; fi
if pkg-config --exists libisal 2>/dev/null; then
	grep -q "^gzip input: ISA-L" "$TMP/v" && ok "libisal is installed: ISA-L is built in" || fail "libisal is installed but not built in"
fi

# inputs: the gzip fixtures, two members concatenated, a cut one, a corrupt one
K=$DATA/chrome/kineto-resnet50-gpu/worker0.1623143089861.pt.trace.json.gz
gzip -dc "$K" > "$TMP/k.json"
n=$(wc -c < "$TMP/k.json")
head -c $((n / 3)) "$TMP/k.json" | gzip -1 > "$TMP/two.json.gz"
tail -c +$((n / 3 + 1)) "$TMP/k.json" | gzip -9 >> "$TMP/two.json.gz"
head -c 300000 "$K" > "$TMP/cut.json.gz"
python3 - "$K" "$TMP/flip.json.gz" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[-8] ^= 0x5a  # the member's CRC-32: the data decodes, the check fails at its end
open(sys.argv[2], "wb").write(b)
PY
table "$TMP/k.json" > "$TMP/plain.t" 2>/dev/null
table "$TMP/two.json.gz" > "$TMP/two.t" 2>"$TMP/err" && [ -s "$TMP/plain.t" ] && cmp -s "$TMP/plain.t" "$TMP/two.t" &&
	ok "two gzip members = the plain JSON" || { fail "two gzip members"; sed 's/^/#   /' "$TMP/err" | head -3; }
$TF profile "$TMP/cut.json.gz" -o "$TMP/cut.pb.gz" 2>"$TMP/cut.err"
grep -q "gzip data ends early" "$TMP/cut.err" && ok "a cut .gz: the note says so" || { fail "a cut .gz"; sed 's/^/#   /' "$TMP/cut.err" | head -3; }
expect_exit 3 "a corrupt .gz: input error" $TF profile "$TMP/flip.json.gz" -o "$TMP/flip.pb.gz"
grep -q "cannot read '$TMP/flip.json.gz' at byte [0-9]*: corrupt gzip data (incorrect data check)" "$TMP/err" && ok "... naming the file, the byte and the damage" ||
	{ fail "... naming the file"; sed 's/^/#   /' "$TMP/err" | head -3; }

# a live pipe that stays open after a parse error: the compressed bytes are
# inflated as they come (not once 256 KiB are there), and the error ends
# the run at once, the inflater thread cancelled in its read (it used to
# wait for the pipe to end)
cat > "$TMP/live.py" <<'EOF'
import os, sys, time, zlib
c = zlib.compressobj(1, zlib.DEFLATED, 31)
body = b'{"traceEvents": [' + b''.join(b'{"ph":"X","name":"%s","ts":%d,"dur":1,"pid":1,"tid":1},' % (os.urandom(12).hex().encode(), i) for i in range(40000))
out = sys.stdout.buffer
out.write(c.compress(body + b' {"ph": oops}') + c.flush(zlib.Z_SYNC_FLUSH))
out.flush()
time.sleep(60)
EOF
mkfifo "$TMP/live.fifo"
python3 "$TMP/live.py" > "$TMP/live.fifo" &
livepid=$!
timeout 20 $TF profile - -o "$TMP/live.pb.gz" < "$TMP/live.fifo" > /dev/null 2> "$TMP/live.err"
rc=$?
kill $livepid 2>/dev/null
[ $rc = 3 ] && grep -q "invalid JSON literal" "$TMP/live.err" && ok "a parse error on a live gzip pipe ends the run at once (exit 3)" ||
	{ fail "a parse error on a live gzip pipe: exit $rc (124: it waited for the pipe)"; sed 's/^/#   /' "$TMP/live.err" | head -3; }

case $TF in
*san*) finish ;;
esac
# the zlib-only build, from a copy of the sources
Z=$TMP/zsrc
mkdir -p "$Z" && cp -r Makefile src include proto "$Z"/ &&
	make -s -j 2 -C "$Z" ISAL=0 tracefold > "$TMP/zbuild.log" 2>&1
if [ -x "$Z/tracefold" ] && "$Z/tracefold" --version | grep -q "^gzip input: zlib [0-9]"; then ok "make ISAL=0: zlib is the inflater"; else
	fail "make ISAL=0 builds a zlib tracefold"; tail -5 "$TMP/zbuild.log" | sed 's/^/#   /'; finish; fi
for f in $DATA/chrome/*/*.gz $DATA/chrome/rules/*.gz "$TMP/two.json.gz" "$TMP/cut.json.gz"; do
	$TF -q profile "$f" -o "$TMP/a.pb.gz" 2>/dev/null
	"$Z/tracefold" -q profile "$f" -o "$TMP/b.pb.gz" 2>/dev/null
	cmp -s "$TMP/a.pb.gz" "$TMP/b.pb.gz" && ok "zlib = $(sed -n 's/^gzip input: //p' "$TMP/v"): ${f##*/}" || fail "zlib and this build differ: $f"
done
"$Z/tracefold" profile "$TMP/cut.json.gz" -o "$TMP/c.pb.gz" 2>"$TMP/zcut.err"
# (the bytes before the cut may differ by one: ISA-L keeps back bits of an unfinished symbol)
sed "s|$TMP/c.pb.gz|$TMP/cut.pb.gz|; s/[0-9][0-9]* bytes of JSON/N bytes of JSON/" "$TMP/zcut.err" > "$TMP/zc"
sed "s/[0-9][0-9]* bytes of JSON/N bytes of JSON/" "$TMP/cut.err" | cmp -s - "$TMP/zc" && ok "a cut .gz: zlib reports it alike" ||
	{ fail "a cut .gz: the reports differ"; diff "$TMP/cut.err" "$TMP/zcut.err" | head -4 | sed 's/^/#   /'; }
"$Z/tracefold" profile "$TMP/flip.json.gz" -o "$TMP/f.pb.gz" > /dev/null 2>"$TMP/zflip.err"
[ $? = 3 ] && grep -q "cannot read '$TMP/flip.json.gz' at byte [0-9]*: corrupt gzip data (incorrect data check)" "$TMP/zflip.err" &&
	ok "a corrupt .gz: zlib reports it alike" || { fail "a corrupt .gz under zlib"; sed 's/^/#   /' "$TMP/zflip.err" | head -3; }
finish
