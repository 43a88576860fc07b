# The Parquet reader (src/parquet/pq_read.c, docs/parquet.md "Reading")
# against DuckDB: DuckDB writes one table (BIGINT, INTEGER, DOUBLE, FLOAT,
# BOOLEAN, VARCHAR; nulls, long and empty strings, extreme integers,
# -0.0, inf, subnormals; several row groups) under every CODEC and both
# PARQUET_VERSIONs (tests/tools/pq_duck_write.mjs), and tracefold's own
# writer its event tables under every --compression; each file is dumped
# as text by our reader (test_pq_read dump) and by DuckDB's SQL
# (tests/tools/pq_dump.mjs) and the two must be equal, every value
# (doubles as %.17g, strings as hex).  Then what is refused (nested
# columns, FIXED_LEN_BYTE_ARRAY, LZ4) and damaged files (cut at many
# lengths, garbage, bytes flipped): an error naming the file and a byte
# offset, never a crash (the ASan build runs it too).
. tests/lib.sh
case $TF in
*san*) T=build/san/tests/test_pq_read ;;
*) T=build/rel/tests/test_pq_read ;;
esac
command -v node >/dev/null || { fail "node is missing (tests/deps.sh installs it)"; finish; }
[ -d tests/node_modules/@duckdb/node-api ] || { fail "tests/node_modules is missing (tests/deps.sh runs npm ci)"; finish; }
[ -x "$T" ] || { fail "$T is built"; finish; }
D=$TMP/dk
mkdir -p "$D" "$TMP/ev"
check "DuckDB writes the tables" node tests/tools/pq_duck_write.mjs "$D" 5000
for c in none zstd gzip; do
	$TF -q events "$DATA/otf2/tiny_otf2/traces.otf2" -o "$TMP/ev/$c" --compression $c 2>"$TMP/err" ||
		{ fail "tracefold events --compression $c"; sed 's/^/#   /' "$TMP/err"; }
done
# compare FILE: our dump = DuckDB's
compare() {
	f=$1; b=${f#$TMP/}
	if ! "$T" dump "$f" > "$TMP/ours" 2> "$TMP/err"; then
		fail "$b: read"; sed 's/^/#   /' "$TMP/err" | head -5; return
	fi
	[ -f "$f.duck" ] || { fail "$b: DuckDB dumped it"; return; }
	tail -n +2 "$TMP/ours" > "$TMP/ours.rows"
	if cmp -s "$TMP/ours.rows" "$f.duck"; then
		ok "$b: $(wc -l < "$f.duck") rows x $(head -1 "$TMP/ours" | awk -F'\t' '{print NF}') columns = DuckDB's"
	else
		fail "$b: values differ from DuckDB's"; diff "$TMP/ours.rows" "$f.duck" | head -6 | sed 's/^/#   /'
	fi
}
files="$(ls "$D"/*.parquet) $(find "$TMP/ev" -name '*.parquet' | sort)"
check "DuckDB dumps the files" node tests/tools/pq_dump.mjs $files
n=0
for f in $files; do
	compare "$f"; n=$((n + 1))
done
check "$n files compared (8 DuckDB tables, 2 empty, 4 tiny; 3 x 8 of tracefold's tables)" test $n -eq 38
# the DuckDB files use the encodings the reader claims (a DuckDB that
# changed its writer would leave them untested)
node tests/tools/duckdb_query.mjs "$D" "SELECT string_agg(DISTINCT encodings, ',' ORDER BY encodings) FROM parquet_metadata('\$DIR/t_*.parquet')" > "$TMP/enc"
for e in PLAIN PLAIN_DICTIONARY RLE_DICTIONARY DELTA_BINARY_PACKED DELTA_LENGTH_BYTE_ARRAY BYTE_STREAM_SPLIT; do
	check "DuckDB's files hold $e pages" grep -q "[\",]$e[\",]" "$TMP/enc"
done
node tests/tools/duckdb_query.mjs "$D" "SELECT max(row_group_id) + 1 FROM parquet_metadata('\$DIR/t_zstd_V2.parquet')" > "$TMP/rg"
check "several row groups ($(cat "$TMP/rg"))" python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))[0][0] < 3)' "$TMP/rg"

# the hand-made pages of test_pq_read (encodings neither writer uses here:
# DELTA_BYTE_ARRAY, DELTA_BINARY_PACKED at width 64, snappy copies) read
# alike by DuckDB; DuckDB reads BYTE_STREAM_SPLIT of FLOAT and DOUBLE only,
# so crafted1 (INT64) is left out
mkdir -p "$TMP/cr"
if TF_PQ_READ_SEEDS="$TMP/cr" "$T" > "$TMP/out" 2>&1; then
	rm -f "$TMP/cr/crafted1.parquet"
	cr=$(ls "$TMP/cr"/*.parquet)
	check "DuckDB dumps the hand-made files" node tests/tools/pq_dump.mjs $cr
	for f in $cr; do compare "$f"; done
else
	fail "test_pq_read writes its hand-made files"; sed 's/^/#   /' "$TMP/out" | tail -5
fi

# refused: exit 1, the file, an offset, the column and why
node tests/tools/duckdb_query.mjs "$D" "COPY (SELECT 1 AS a, [1, 2] AS l) TO '\$DIR/list.parquet' (FORMAT parquet);
COPY (SELECT 1 AS a, {'x': 1} AS s) TO '\$DIR/struct.parquet' (FORMAT parquet);
COPY (SELECT 1 AS a, 12.5::DECIMAL(38, 2) AS d) TO '\$DIR/flba.parquet' (FORMAT parquet);
COPY (SELECT 1 AS a) TO '\$DIR/lz4.parquet' (FORMAT parquet, CODEC 'lz4_raw')" > /dev/null
refused() { # FILE PATTERN DESC
	"$T" dump "$1" > /dev/null 2> "$TMP/err"; rc=$?
	if [ $rc = 1 ] && grep -q "^cannot read '$1' at byte [0-9]*: $2" "$TMP/err"; then ok "$3: $(cat "$TMP/err")"; else
		fail "$3 (exit $rc)"; sed 's/^/#   /' "$TMP/err" | head -5
	fi
}
refused "$D/list.parquet" "column 'l': a nested" "a LIST column is refused"
refused "$D/struct.parquet" "column 's': a nested" "a STRUCT column is refused"
refused "$D/flba.parquet" "column 'd': physical type FIXED_LEN_BYTE_ARRAY" "a FIXED_LEN_BYTE_ARRAY column is refused"
refused "$D/lz4.parquet" "column 'a': compression codec LZ4_RAW" "an LZ4_RAW column is refused"
printf 'PARE' > "$TMP/enc.parquet"; head -c 100 "$D/tiny_zstd.parquet" | tail -c 96 >> "$TMP/enc.parquet"; printf 'PARE' >> "$TMP/enc.parquet"
refused "$TMP/enc.parquet" "an encrypted file" "an encrypted file (PARE magic) is refused"

# damaged: cut at many lengths, garbage, bytes flipped
damaged() { # FILE DESC: exit 1 and the message names FILE and a byte offset
	"$T" dump "$1" > /dev/null 2> "$TMP/err"; rc=$?
	[ $rc = 1 ] && grep -q "^cannot read '$1' at byte [0-9]" "$TMP/err" && return 0
	fail "$2 (exit $rc)"; sed 's/^/#   /' "$TMP/err" | head -5; return 1
}
src=$D/t_snappy_V2.parquet
size=$(wc -c < "$src"); bad=0; k=0
for cut in 0 1 3 4 5 11 12 100 1000 5000 $((size / 3)) $((size / 2)) $((size - 1000)) $((size - 9)) $((size - 8)) $((size - 5)) $((size - 1)); do
	head -c $cut "$src" > "$TMP/cut.parquet"; k=$((k + 1))
	damaged "$TMP/cut.parquet" "cut at $cut of $size bytes" || bad=$((bad + 1))
done
[ $bad = 0 ] && ok "$k cuts of a $size-byte file: each an error naming the file and a byte offset"
head -c 3000 /dev/urandom > "$TMP/garbage.parquet"
damaged "$TMP/garbage.parquet" "garbage" && ok "3000 random bytes: an error naming the file and a byte offset"
{ printf PAR1; head -c 3000 /dev/urandom; printf '\020\000\000\000PAR1'; } > "$TMP/garbage2.parquet"
damaged "$TMP/garbage2.parquet" "garbage between magics" && ok "random bytes between PAR1 magics: an error naming the file and a byte offset"
# a footer that says the data is elsewhere: the file's tail kept, its data cut out
python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
flen = int.from_bytes(b[-8:-4], "little")
open(sys.argv[2], "wb").write(b[:4] + b[len(b) - 8 - flen:])' "$src" "$TMP/nodata.parquet"
damaged "$TMP/nodata.parquet" "the data cut out, the footer kept" && ok "a footer whose column chunks lie outside the file: an error naming the file and a byte offset"
# bytes flipped across the data pages: an error or (a value changed) a
# read, never a crash
python3 -c '
import sys, random
b = bytearray(open(sys.argv[1], "rb").read())
random.seed(31)
for i in range(40):
    c = bytearray(b)
    for k in range(3):
        at = random.randrange(4, len(c) - 8)
        c[at] ^= random.randrange(1, 256)
    open("%s/flip%02d.parquet" % (sys.argv[2], i), "wb").write(c)' "$D/tiny_snappy.parquet" "$TMP"
bad=0; errs=0
for f in "$TMP"/flip*.parquet; do
	"$T" dump "$f" > /dev/null 2> "$TMP/err"; rc=$?
	if [ $rc = 0 ]; then continue; fi
	if [ $rc = 1 ] && grep -q "^cannot read '$f' at byte [0-9]" "$TMP/err"; then errs=$((errs + 1)); continue; fi
	bad=$((bad + 1)); fail "$f: exit $rc"; sed 's/^/#   /' "$TMP/err" | head -5
done
[ $bad = 0 ] && ok "40 files with bytes flipped: $errs refused naming file and offset, the rest read, no crash"
finish
