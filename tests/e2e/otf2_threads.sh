# The OTF2 reader's two event paths (src/read/otf2_*.c): serial
# (TRACEFOLD_THREADS=1) and pipelined (a decode thread feeding the main
# thread, TRACEFOLD_THREADS=2) must give byte-identical profiles and the same
# counters and notes, on every fixture, on generated archives (many batches,
# many locations) and on damaged archives.
. tests/lib.sh

# same NAME ARGS...: profile with both paths, compare output and -v report
same() {
	name=$1; shift
	TRACEFOLD_THREADS=1 $TF -v "$@" -o "$TMP/s.pb.gz" 2>"$TMP/s.err"; rs=$?
	mv "$TMP/s.pb.gz" "$TMP/serial.pb.gz" 2>/dev/null
	TRACEFOLD_THREADS=2 $TF -v "$@" -o "$TMP/s.pb.gz" 2>"$TMP/p.err"; rp=$?
	if [ "$rs" -ne 0 ] || [ "$rp" -ne 0 ]; then
		fail "$name: exit $rs (serial) / $rp (pipelined)"; sed 's/^/#   /' "$TMP/s.err" "$TMP/p.err" | head; return
	fi
	check "$name: byte-identical profiles" cmp "$TMP/serial.pb.gz" "$TMP/s.pb.gz"
	check "$name: same counters and notes" cmp "$TMP/s.err" "$TMP/p.err"
	check "$name: events were read" grep -q "events_read=[1-9]" "$TMP/s.err"
}
# same_info NAME DIR: tracefold info (counters, notes) with both paths
same_info() {
	TRACEFOLD_THREADS=1 $TF info "$2" > "$TMP/s.info" 2>&1
	TRACEFOLD_THREADS=2 $TF info "$2" > "$TMP/p.info" 2>&1
	check "$1: same info" cmp "$TMP/s.info" "$TMP/p.info"
}

for d in $DATA/otf2/*/; do
	d=${d%/}
	same "$(basename "$d")" profile "$d"
	same "$(basename "$d") with counters" profile -c all "$d"
	same_info "$(basename "$d")" "$d"
done

# generated archives: bench/gen-otf2.c (a 2.5 GHz clock with an offset, a
# metric every 64 events), big enough for many batches of the pipeline
if gcc -O1 $(pkg-config --cflags otf2) bench/gen-otf2.c $(pkg-config --libs otf2) -o "$TMP/gen-otf2" 2>"$TMP/cc"; then
	"$TMP/gen-otf2" "$TMP/g3" 3 150000 && same "generated 3 x 150000" profile "$TMP/g3"
	"$TMP/gen-otf2" "$TMP/g64" 64 3000 && same "generated 64 x 3000" profile "$TMP/g64"
	# damaged: one location's event file gone, another cut in the middle
	rm "$TMP/g3/traces/1.evt"
	f=$TMP/g3/traces/2.evt; head -c $(($(wc -c < "$f") / 2)) "$f" > "$TMP/cut" && mv "$TMP/cut" "$f"
	same "generated, damaged" profile "$TMP/g3"
	same_info "generated, damaged" "$TMP/g3"
	check "generated, damaged: info names the damaged locations" sh -c \
		"grep -q 'location 1 .*missing' '$TMP/s.info' && grep -q 'location 2 .*damaged' '$TMP/s.info'"
	check "generated, damaged: both damages reported" \
		grep -q "missing_location=1.*truncated_record=1\|truncated_record=1.*missing_location=1" "$TMP/s.err"
else
	fail "cannot compile bench/gen-otf2.c"; sed 's/^/#   /' "$TMP/cc"
fi
finish
