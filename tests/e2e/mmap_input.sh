# Plain inputs read through mapped windows (src/io/io.c, issue 33): the
# same profile, timelines and errors as read(2) gives (TRACEFOLD_NO_MMAP=1)
# for files of several windows, of a size that ends a window exactly, just
# past the first chunk, and damaged in a late window (the same byte offset);
# a file cut short by another program while it is read ends the run with
# an error (never a crash, never an output); SIGBUS says why (exit 3).
. tests/lib.sh
python3 bench/gen-real.py legacy $DATA/chrome/pytorch-legacy-small/trace.json "$TMP/l.json" 12 || fail "gen-real legacy"
same() { # NAME ARGS...: the command's output, stdout and stderr with and without mapping
	name=$1; shift
	TRACEFOLD_NO_MMAP=1 "$TF" "$@" -o "$TMP/r.out" > "$TMP/r.txt" 2>&1; r1=$?
	"$TF" "$@" -o "$TMP/m.out" > "$TMP/m.txt" 2>&1; r2=$?
	sed -i "s|$TMP/[rm]\.out|OUT|g" "$TMP/r.txt" "$TMP/m.txt"
	if [ $r1 = $r2 ] && cmp -s "$TMP/r.txt" "$TMP/m.txt" && { [ $r1 != 0 ] || cmp -s "$TMP/r.out" "$TMP/m.out"; }; then
		ok "$name: mapped = read(2) (exit $r1)"
	else
		fail "$name: exit $r1 / $r2"; diff "$TMP/r.txt" "$TMP/m.txt" | head -4 | sed 's/^/#   /'
	fi
}
sz=$(wc -c < "$TMP/l.json")
[ "$sz" -gt 4500000 ] && ok "a $sz-byte input: the first chunk and two windows or more" || fail "input of $sz bytes"
same "profile, legacy 12 copies" -q profile -j 1 "$TMP/l.json"
same "chrome timeline" -q chrome "$TMP/l.json"
# 256 KiB + 2 MiB exactly: the file ends with a window
head -c $((262144 + 2097152 - 1)) "$TMP/l.json" | sed '$ s/, *{[^}]*$//' > "$TMP/cut.json"
python3 - "$TMP/cut.json" "$TMP/exact.json" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read().rstrip()
b = b[:b.rindex(b'}') + 1] + b']'
want = 262144 + 2097152
b = b[:-1] + b' ' * (want - len(b)) + b']'
open(sys.argv[2], 'wb').write(b)
PY
[ "$(wc -c < "$TMP/exact.json")" = $((262144 + 2097152)) ] && ok "a file of 256 KiB + 2 MiB exactly" || fail "exact size"
same "profile, a file ending a window" -q profile -j 1 "$TMP/exact.json"
head -c 300000 "$TMP/exact.json" > "$TMP/small.json"
same "a file just past the first chunk (cut short: read as far as it goes)" -q profile -j 1 "$TMP/small.json"
python3 - "$TMP/l.json" "$TMP/bad.json" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
i = b.index(b'"ts": ', 4000000)
b[i + 6] = ord('x')
open(sys.argv[2], 'wb').write(b)
PY
same "damaged after 4 MB" -q profile -j 1 "$TMP/bad.json"
grep -q "at byte 4[0-9]\{6\}" "$TMP/m.txt" && ok "... the error names its byte" || { fail "no byte offset"; sed 's/^/#   /' "$TMP/m.txt" | head -3; }
# TAU: records decoded in the windows
python3 bench/gen_tau.py $DATA/tau/tiny/tautrace.0.0.0.trc $DATA/tau/tiny/events.0.edf "$TMP/tau" 6000000 > /dev/null
same "TAU, 6 MB of records" -q profile -j 1 "$TMP/tau"
# a regular file that holds more than its size says (procfs, some FUSE and
# network file systems): read to the end by read(2), not cut at the size
case "$TF" in
*san*) ok "a file bigger than its size: (release build only: LD_PRELOAD beside ASan)" ;;
*)
	cat > "$TMP/shim.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/stat.h>
int fstat(int fd, struct stat *st)
{
	static int (*real)(int, struct stat *);
	if (!real)
		real = (int (*)(int, struct stat *))dlsym(RTLD_NEXT, "fstat");
	int r = real(fd, st);
	const char *z = getenv("SHIM_ZERO_INODE");
	if (r == 0 && z && S_ISREG(st->st_mode) && (unsigned long)st->st_ino == strtoul(z, NULL, 10))
		st->st_size = 0;
	return r;
}
C
	if cc -shared -fPIC -O2 -o "$TMP/shim.so" "$TMP/shim.c" -ldl 2> "$TMP/cc.err"; then
		cp "$TMP/l.json" "$TMP/z.json"
		TRACEFOLD_NO_MMAP=1 "$TF" -q profile -j 1 "$TMP/z.json" -o "$TMP/z1.pb.gz"
		LD_PRELOAD="$TMP/shim.so" SHIM_ZERO_INODE=$(stat -c %i "$TMP/z.json") "$TF" -q profile -j 1 "$TMP/z.json" \
			-o "$TMP/z2.pb.gz" 2> "$TMP/z.err"
		cmp -s "$TMP/z1.pb.gz" "$TMP/z2.pb.gz" && [ ! -s "$TMP/z.err" ] &&
			ok "a file whose size says 0: read to its end, as read(2) reads it" ||
			{ fail "a file whose size says 0 was cut"; sed 's/^/#   /' "$TMP/z.err" | head -3; }
	else
		fail "cannot build the fstat shim"; sed 's/^/#   /' "$TMP/cc.err" | head -3
	fi
	;;
esac
# cut short by another program while it is read: an error or a finished
# run, never a crash; no output replaced when it fails (the release build:
# the ASan build keeps ASan's SIGBUS handler, which reports it as a crash)
case "$TF" in
*san*) ok "input cut short while read: (release build only)" ;;
*)
python3 bench/gen-real.py legacy $DATA/chrome/pytorch-legacy-small/trace.json "$TMP/big.json" 120 || fail "gen-real legacy 120"
crash=0 failed=0
for i in 1 2 3 4 5; do
	cp "$TMP/big.json" "$TMP/victim.json"
	rm -f "$TMP/v.pb.gz"
	"$TF" -q profile -j 1 "$TMP/victim.json" -o "$TMP/v.pb.gz" > /dev/null 2> "$TMP/v.err" & pid=$!
	sleep 0.0$i
	truncate -s 3000000 "$TMP/victim.json"
	wait $pid; rc=$?
	[ $rc -ge 128 ] && { crash=$((crash + 1)); sed 's/^/#   /' "$TMP/v.err" | head -2; }
	[ $rc != 0 ] && { failed=$((failed + 1)); [ -e "$TMP/v.pb.gz" ] && crash=$((crash + 1)); }
done
[ $crash = 0 ] && ok "input cut short while read, 5 times: no crash, no output from a failed run ($failed failed)" ||
	fail "input cut short while read: $crash crashes or outputs"
;;
esac
case "$TF" in
*san*) ok "SIGBUS: AddressSanitizer's own handler in this build (skipped)" ;;
*)
	mkfifo "$TMP/fifo"
	"$TF" -q profile "$TMP/fifo" -o "$TMP/f.pb.gz" > /dev/null 2> "$TMP/f.err" & pid=$!
	exec 7> "$TMP/fifo"
	sleep 0.3
	kill -BUS $pid
	wait $pid; rc=$?
	exec 7>&-
	[ $rc = 3 ] && grep -q "cut short by another program while it was read (SIGBUS)" "$TMP/f.err" && [ ! -e "$TMP/f.pb.gz" ] &&
		ok "SIGBUS: exit 3, says why, writes nothing" || { fail "SIGBUS: exit $rc"; sed 's/^/#   /' "$TMP/f.err"; }
	;;
esac
finish
