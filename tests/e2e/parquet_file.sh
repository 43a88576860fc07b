# The Parquet writer (src/parquet/pq.c, docs/parquet.md) checked by two
# independent readers: the unit test program writes its files (every column
# type, nullable and not, PLAIN / RLE_DICTIONARY / DELTA_BINARY_PACKED, each
# codec, several row groups, zero rows, long strings, extreme integers) with
# the values it wrote as JSON (TF_PQ_DIR), and tests/tools/pq_check.mjs reads
# them with hyparquet and DuckDB (tests/package.json, installed by
# tests/deps.sh test): values, schema, encodings, statistics.  Missing node
# or packages fail: make check installs them.
. tests/lib.sh
case $TF in
*san*) T=build/san/tests/test_pq ;;
*) T=build/rel/tests/test_pq ;;
esac
if ! command -v node >/dev/null 2>&1; then
	fail "node is installed (sh tests/deps.sh test installs it)"; finish
fi
for p in @duckdb/node-api hyparquet hyparquet-compressors; do
	[ -f "tests/node_modules/$p/package.json" ] || { fail "npm package $p is in tests/node_modules (sh tests/deps.sh test installs it)"; finish; }
done
[ -x "$T" ] || { fail "$T is built"; finish; }
if TF_PQ_DIR="$TMP/pq" "$T" > "$TMP/unit.out" 2>&1; then
	ok "$T writes the Parquet files and their expected values"
else
	fail "$T writes the Parquet files and their expected values"; sed 's/^/#   /' "$TMP/unit.out" | tail -20; finish
fi
n=$(ls "$TMP/pq"/*.parquet | wc -l)
check "$n files, each with its expected values" test "$n" -ge 9 -a "$n" -eq "$(ls "$TMP/pq"/*.json | wc -l)"
# pq_check prints its own ok / not ok lines
node tests/tools/pq_check.mjs "$TMP/pq" 2>&1 || nfail=$((nfail + 1))
finish
