# The limits of docs/architecture.md ("Limits") that the code's shape keeps:
# no source file under src/ over 800 lines, no function over 150 lines (as
# universal-ctags counts them: end - line + 1).
. tests/lib.sh
big=""
for f in src/*/*.c src/*/*.h src/main.c; do
	[ -f "$f" ] || continue
	n=$(wc -l < "$f")
	[ "$n" -gt 800 ] && big="$big $f:$n"
done
nf=$(ls src/*/*.c src/*/*.h src/main.c | wc -l)
[ -z "$big" ] && [ "$nf" -gt 50 ] && ok "no source file of $nf over 800 lines" || fail "source files over 800 lines:$big"
if ! ctags --version 2>/dev/null | grep -q "Universal Ctags"; then
	fail "universal-ctags is missing (tests/deps.sh installs it)"
	finish
fi
ctags --c-kinds=f --fields=+ne -o - src/*/*.c src/main.c > "$TMP/tags" 2>/dev/null
nfn=$(wc -l < "$TMP/tags")
long=$(awk -F'\t' '{l=0;e=0;for(i=1;i<=NF;i++){if($i~/^line:/)l=substr($i,6);if($i~/^end:/)e=substr($i,5)} if(e-l+1>150)print $2":"$1" ("e-l+1" lines)"}' "$TMP/tags")
[ -z "$long" ] && [ "$nfn" -gt 500 ] && ok "no function of $nfn over 150 lines" || fail "functions over 150 lines: $long"
# the check itself: a function of 151 lines is caught
{ echo "int f(void)"; echo "{"; i=0; while [ $i -lt 147 ]; do echo "	;"; i=$((i + 1)); done; echo "	return 0;"; echo "}"; } > "$TMP/long.c"
n=$(ctags --c-kinds=f --fields=+ne -o - "$TMP/long.c" | awk -F'\t' '{l=0;e=0;for(i=1;i<=NF;i++){if($i~/^line:/)l=substr($i,6);if($i~/^end:/)e=substr($i,5)} print e-l+1}')
[ "$n" = 151 ] && ok "the count itself: a function of 151 lines counts 151" || fail "ctags counts a 151-line function as '$n'"
finish
