# The progress line (docs/cli.md "Progress"): on a terminal (script(1)
# gives one) a line of bytes, share, rate, events and time left, redrawn in
# place and erased before anything else is printed; nothing with -q, with
# stderr not a terminal, or with TERM=dumb; nothing for a run shorter than
# the delay (1 s; TRACEFOLD_PROGRESS_DELAY_MS=0 draws at once, for tests).
. tests/lib.sh
K=$DATA/chrome/kineto-resnet50-gpu/worker0.1623143089861.pt.trace.json.gz
O=$DATA/otf2/scorep-ping-pong-mpi
# tty FILE CMD...: runs CMD with a terminal as its stdout and stderr, the bytes to FILE
tty() { out=$1; shift; script -qec "$*" /dev/null > "$out" 2>&1 < /dev/null; }
esc=$(printf '\033')

tty "$TMP/a" TRACEFOLD_PROGRESS_DELAY_MS=0 $TF -v profile -j 1 $K -o $TMP/a.pb.gz
if tr '\r' '\n' < "$TMP/a" | grep -qE "^tracefold: [0-9.]+ [kMG]?B of [0-9.]+ [kMG]?B \([0-9]+%\), [0-9.]+ [kMG]?B/s, [0-9.]+ [kM]? ?events, [0-9.]+ s left${esc}\[K"; then
	ok "on a terminal: bytes of the total, share, rate, events, time left"
else
	fail "on a terminal: the progress line"; cat -v "$TMP/a" | head -5 | sed 's/^/#   /'
fi
# erased before the command's own report, which is left whole on its line
if tr '\r' '\n' < "$TMP/a" | grep -q "^${esc}\[Ktracefold: .*a.pb.gz (pprof): [0-9]* samples"; then ok "erased before the report"; else
	fail "erased before the report"; cat -v "$TMP/a" | tail -3 | sed 's/^/#   /'; fi
[ -s "$TMP/a.pb.gz" ] && ok "... and the profile is written" || fail "no profile with the progress line"
tty "$TMP/b" TRACEFOLD_PROGRESS_DELAY_MS=0 $TF profile -j 2 $O -o $TMP/b.pb.gz
tr '\r' '\n' < "$TMP/b" | grep -qE "^tracefold: [0-9.]+ [kM]? ?events, [0-9.]+ [kM]? ?events/s${esc}\[K" &&
	ok "OTF2 (libotf2 reads the files): events and their rate" || { fail "OTF2 progress line"; cat -v "$TMP/b" | head -3 | sed 's/^/#   /'; }
# silent
tty "$TMP/c" TRACEFOLD_PROGRESS_DELAY_MS=0 $TF -q profile -j 1 $K -o $TMP/c.pb.gz
[ ! -s "$TMP/c" ] && ok "-q: nothing at all" || { fail "-q printed"; cat -v "$TMP/c" | head -3 | sed 's/^/#   /'; }
TRACEFOLD_PROGRESS_DELAY_MS=0 $TF -v profile -j 1 $K -o $TMP/d.pb.gz 2> "$TMP/d"
! grep -q "${esc}" "$TMP/d" && grep -q "(pprof): [0-9]* samples" "$TMP/d" && ok "stderr not a terminal: no progress line" ||
	{ fail "stderr not a terminal"; cat -v "$TMP/d" | head -3 | sed 's/^/#   /'; }
tty "$TMP/e" TERM=dumb TRACEFOLD_PROGRESS_DELAY_MS=0 $TF profile -j 1 $K -o $TMP/e.pb.gz
! grep -q "${esc}" "$TMP/e" && ok "TERM=dumb: no progress line" || fail "TERM=dumb drew a line"
tty "$TMP/f" $TF profile -j 1 $DATA/chrome/pytorch-legacy-small/trace.json -o $TMP/f.pb.gz
! grep -q "${esc}" "$TMP/f" && ok "a run shorter than a second: no progress line" || fail "a short run drew a line"
finish
