# Every profile (and top/diff/info output) of tests/golden/cases.txt is
# byte-for-byte what the golden hashes say (tests/golden/outputs.sha256,
# made by `make golden-update` for an intended change only): a refactoring
# of the pipeline must not change a single output.
. tests/lib.sh
if TF=$TF sh tests/golden/run.sh > "$TMP/golden.out" 2>&1; then
	ok "$(grep -vc '^#' tests/golden/cases.txt) outputs equal their golden hashes"
else
	fail "outputs differ from their golden hashes"; sed 's/^/#   /' "$TMP/golden.out" | head -20
fi
finish
