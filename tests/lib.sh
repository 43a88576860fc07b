# tests/lib.sh - sourced by tests/e2e/*.sh.  Each check prints a TAP-style
# "ok - ..." or "not ok - ..." line; tests/run.sh counts them.
# $TF is the tracefold binary under test (release or ASan/UBSan build).
: "${TF:=./tracefold}"
DATA=tests/data
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tf-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export GOCACHE="${GOCACHE:-$TMP/gocache}" GOPATH="${GOPATH:-$TMP/gopath}" GOFLAGS=-mod=mod GOTOOLCHAIN=local
nfail=0

ok() { echo "ok - $*"; }
fail() { echo "not ok - $*"; nfail=$((nfail + 1)); }
# check DESC CMD... : runs CMD, passes if it exits 0
check() {
	desc=$1; shift
	if "$@" >"$TMP/out" 2>"$TMP/err"; then ok "$desc"; else
		fail "$desc"; sed 's/^/#   /' "$TMP/err" | head -20; sed 's/^/#   /' "$TMP/out" | head -20
	fi
}
# expect_exit CODE DESC CMD...
expect_exit() {
	code=$1; desc=$2; shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"; rc=$?
	if [ "$rc" = "$code" ]; then ok "$desc"; else
		fail "$desc (exit $rc, want $code)"; sed 's/^/#   /' "$TMP/err" | head -10
	fi
}
pprof() { go tool pprof "$@"; }
# table [OPTIONS] INPUT: every function's self, total and calls (tab-separated,
# sorted by name): what a profile says, for comparing two of them; every
# thread, those that only wait included (docs/stack-rules.md: a timeline
# written as OTF2 has no Kineto categories, so none waits when read back)
table() { $TF -q top -n 0 --format json --keep-waiting "$@" | python3 -c '
import json,sys
for f in sorted(json.load(sys.stdin)["functions"], key=lambda f: f["name"]):
    print(f["name"], f["self"], f["total"], f["calls"], sep="\t")'; }
# kind INPUT KIND: how many events of KIND tracefold info counts in INPUT
kind() { $TF -q info --format json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["events_by_kind"][sys.argv[1]])' "$2"; }
finish() { exit $nfail; }
