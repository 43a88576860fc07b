# Every output kind, file or folder, written onto (a) nothing, (b) an earlier
# output of the same kind, (c) its own input, (d) a symbolic link into
# another folder, (e) a full disk (a small tmpfs, mounted as root; skipped
# otherwise); and, for folders, (f) an earlier output holding a link out of
# it and (g) a folder of other things, with and without --force.  After
# each: the old output is intact or replaced in full (the same bytes as a
# fresh run), nothing else in the sandbox or the link's folder changed, and
# no temporary entry is left (docs/robustness.md, issue 26).
. tests/lib.sh
case $TF in /*) ;; *) TF=$PWD/$TF ;; esac # the runs below cd
DATA=$PWD/$DATA
SUPP=$PWD/tests/lsan-otf2-full.supp # libotf2's leak when a flush fails
IN=$DATA/chrome/hta-simple-add-gpu/benchmark_result_493459_1694039959_trace.json.gz
OTHER=$DATA/chrome/pytorch-legacy-small/trace.json
# snap DIR: every entry under DIR (type, link target) and every file's bytes
snap() { (cd "$1" && find . -mindepth 1 -printf '%p %y %l\n' | LC_ALL=C sort &&
	find . -type f -exec md5sum {} + | LC_ALL=C sort -k2) 2>/dev/null; }
# hidden DIR: its hidden entries at the top (a temporary left behind)
hidden() { ls -A "$1" | grep '^\.' || true; }
# the kinds: name, -o suffix, extra options
KINDS="pprof:p.pb.gz folded:p.folded chrome:t.trace.json.gz perfetto:t.pftrace otf2:arch parquet:tables
speedscope:s.speedscope.json flame:f.svg"
for kd in $KINDS; do
	k=${kd%%:*}; o=${kd#*:}
	S=$TMP/$k; mkdir -p "$S/ref" "$S/w" "$S/far"
	cp "$IN" "$S/w/in.json.gz"; cp "$OTHER" "$S/w/other.json"
	run() { $TF -q convert --to "$k" "$@"; }
	# (a) nothing there: the reference output
	if ! (cd "$S/ref" && cp "$S/w/in.json.gz" . && run in.json.gz -o "$o") 2> "$TMP/err"; then
		fail "$k: (a) a new output"; sed 's/^/#   /' "$TMP/err" | head -5; continue
	fi
	ok "$k: (a) a new output"
	# (an OTF2 anchor file holds a random trace id: its bytes differ run to run)
	got() { (cd "$1" && if [ -d "$o" ]; then snap "$o" | grep -v '  \./traces\.otf2$'; else md5sum < "$o"; fi); }
	ref=$(got "$S/ref")
	[ -z "$(hidden "$S/ref")" ] && ok "$k: (a) no temporary left" || fail "$k: (a) left $(hidden "$S/ref")"
	# (b) an earlier output of the same kind (of another trace) is replaced in full
	# (for the tables: partitioned by rank, a layout the new run does not write)
	part=; [ "$k" = parquet ] && part="--partition rank"
	(cd "$S/w" && run other.json $part -o "$o")
	(cd "$S/w" && run in.json.gz -o "$o") 2> "$TMP/err"; rc=$?
	[ "$rc" = 0 ] && [ "$(got "$S/w")" = "$ref" ] && ok "$k: (b) an earlier output replaced in full" ||
		{ fail "$k: (b) exit $rc, or not the reference bytes"; sed 's/^/#   /' "$TMP/err" | head -5; }
	[ -z "$(hidden "$S/w")" ] && ok "$k: (b) no temporary left" || fail "$k: (b) left $(hidden "$S/w")"
	# (c) the output is the input (or, for a folder, holds it): refused, nothing touched
	before=$(snap "$S/w")
	if [ -d "$S/w/$o" ]; then target=$S/w; else target=$S/w/in.json.gz; fi
	(cd "$S/w" && run in.json.gz -o "$target") > /dev/null 2> "$TMP/err"; rc=$?
	[ "$rc" = 2 ] && [ "$(snap "$S/w")" = "$before" ] && ok "$k: (c) the input as the output: exit 2, nothing touched" ||
		{ fail "$k: (c) the input as the output: exit $rc"; sed 's/^/#   /' "$TMP/err" | head -5; }
	# (d) a link into another folder: its target is the output, replaced in full;
	# the link stays and nothing else there changes
	(cd "$S/far" && run "$S/w/other.json" -o "$o") && echo keep > "$S/far/keep.txt"
	ln -s "$S/far/$o" "$S/w/link.$o"
	(cd "$S/w" && run in.json.gz -o "link.$o") 2> "$TMP/err"; rc=$?
	[ "$rc" = 0 ] && [ "$(got "$S/far")" = "$ref" ] && [ -L "$S/w/link.$o" ] && [ "$(cat "$S/far/keep.txt")" = keep ] &&
		[ -z "$(hidden "$S/far")$(hidden "$S/w")" ] && ok "$k: (d) through a link: its target replaced, nothing else" ||
		{ fail "$k: (d) through a link: exit $rc"; sed 's/^/#   /' "$TMP/err" | head -5; ls -la "$S/far" | sed 's/^/#   /'; }
	# (e) a full disk: exit 3, the old output intact, no temporary left
	if [ "$(id -u)" = 0 ] && mkdir -p "$S/mnt" && mount -t tmpfs -o size=96k tmpfs "$S/mnt" 2>/dev/null; then
		(cd "$S/mnt" && run "$S/w/other.json" -o "$o") 2>/dev/null
		head -c 400000 /dev/urandom > "$S/mnt/filler" 2>/dev/null
		before=$(snap "$S/mnt")
		(cd "$S/mnt" && LSAN_OPTIONS=suppressions=$SUPP:print_suppressions=0 run "$S/w/in.json.gz" -o "$o") > /dev/null 2> "$TMP/err"; rc=$?
		[ "$rc" = 3 ] && [ "$(snap "$S/mnt")" = "$before" ] && ok "$k: (e) a full disk: exit 3, the old output intact" ||
			{ fail "$k: (e) a full disk: exit $rc"; sed 's/^/#   /' "$TMP/err" | head -5; ls -la "$S/mnt" | sed 's/^/#   /'; }
		grep -q "cannot write '$o[/']" "$TMP/err" && ok "$k: (e) the error names the output" ||
			{ fail "$k: (e) the error names the output"; sed 's/^/#   /' "$TMP/err" | head -5; }
		umount "$S/mnt"
	else
		ok "# SKIP $k: (e) mounting a tmpfs needs root"
	fi
	[ -d "$S/ref/$o" ] || continue
	# (f) an earlier folder output holding a link out of it: refused, the
	# link's target untouched (nothing outside the output is removed)
	mkdir -p "$S/f/out" "$S/f/outside"
	(cd "$S/f" && run "$S/w/other.json" -o out)
	inner=$(cd "$S/f/out" && find . -type f | sort | tail -1)
	mv "$S/f/out/$inner" "$S/f/outside/victim" && ln -s "$S/f/outside/victim" "$S/f/out/$inner"
	before=$(snap "$S/f")
	for force in "" --force; do
		(cd "$S/f" && run "$S/w/in.json.gz" -o out $force) > /dev/null 2> "$TMP/err"; rc=$?
		[ "$rc" = 3 ] && [ "$(snap "$S/f")" = "$before" ] && grep -q "symbolic link" "$TMP/err" &&
			ok "$k: (f) a link inside the old output ${force:-(no --force)}: refused, nothing touched" ||
			{ fail "$k: (f) a link inside ${force}: exit $rc"; sed 's/^/#   /' "$TMP/err" | head -5; }
	done
	# (g) a folder of other things: refused; with --force written beside them
	mkdir -p "$S/g/out" && echo mine > "$S/g/out/notes.txt" && cp "$IN" "$S/g/in.json.gz"
	(cd "$S/g" && run in.json.gz -o out) > /dev/null 2> "$TMP/err"; rc=$?
	[ "$rc" = 3 ] && [ "$(ls -A "$S/g/out")" = notes.txt ] && grep -q "notes.txt" "$TMP/err" &&
		ok "$k: (g) a folder of other things: refused, kept" ||
		{ fail "$k: (g) a folder of other things: exit $rc"; sed 's/^/#   /' "$TMP/err" | head -5; }
	(cd "$S/g" && run "$S/w/other.json" -o out --force && run in.json.gz -o out --force) 2> "$TMP/err"; rc=$?
	mine=$(cat "$S/g/out/notes.txt"); rm "$S/g/out/notes.txt"; mv "$S/g/out" "$S/g/$o"
	[ "$rc" = 0 ] && [ "$mine" = mine ] && [ "$(got "$S/g")" = "$ref" ] &&
		ok "$k: (g) --force: written beside the other things (twice), which are kept" ||
		{ fail "$k: (g) --force: exit $rc"; sed 's/^/#   /' "$TMP/err" | head -5; ls -la "$S/g/out" | sed 's/^/#   /'; }
done
# item 1 of issue 26: an OTF2 archive as its own output, by its folder, its
# anchor file or a link to it
mkdir -p "$TMP/A" && cp -r $DATA/otf2/tiny_otf2/traces $DATA/otf2/tiny_otf2/traces.otf2 $DATA/otf2/tiny_otf2/traces.def "$TMP/A/"
ln -s A "$TMP/L"
before=$(snap "$TMP/A")
for pair in "A A" "A/traces.otf2 A" "L/traces.otf2 L" "A L" "L/traces.otf2 A/"; do
	set -- $pair
	(cd "$TMP" && $TF -q otf2 "$1" -o "$2") 2> "$TMP/err"; rc=$?
	[ "$rc" = 2 ] && [ "$(snap "$TMP/A")" = "$before" ] && ok "otf2 $1 -o $2: refused (exit 2), the archive intact" ||
		{ fail "otf2 $1 -o $2: exit $rc"; sed 's/^/#   /' "$TMP/err" | head -3; }
done
finish
