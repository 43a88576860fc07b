# Every profile (and top/diff/info output) of tests/golden/cases.txt is
# byte-for-byte what tests/golden/expected/NAME.txt says (made by
# `make golden-update` for an intended change only): a refactoring of the
# pipeline must not change a single output.  A profile is compared as its
# complete text form (tests/tools/pprof_text.py), so a failure prints each
# changed case with the start of its diff, not only that a hash changed.
. tests/lib.sh
if TF=$TF sh tests/golden/run.sh > "$TMP/golden.out" 2>&1; then
	ok "$(grep -vc '^#' tests/golden/cases.txt) outputs equal tests/golden/expected/"
else
	fail "outputs differ from tests/golden/expected/ (make golden-update only for an intended change)"
	sed 's/^/#   /' "$TMP/golden.out"
fi
finish
