# make install / make uninstall (docs/install.md): into a temporary DESTDIR
# with PREFIX; the installed binary runs on a fixture; every man page
# renders with `man -l` and no warning, and says every option its command's
# --help says; the bash and zsh completions complete the commands, options
# and format names --help lists (bash: the completion function called as
# bash calls it; zsh: a real interactive zsh in a pty); uninstall removes
# exactly what install put there.
. tests/lib.sh
unset MAKEFLAGS MFLAGS MAKELEVEL # not the jobserver of a make check around us
export LC_ALL=C.UTF-8
ROOT=$TMP/root P=/opt/tracefold-test
D=$ROOT$P

# make install in the release run (it installs ./tracefold, as the
# Makefile does); the sanitizer run makes the same files with $TF itself,
# so its man pages and completions are the ones checked below
case $TF in
*san*)
	mkdir -p "$D/bin" "$D/share/man/man1" "$D/share/bash-completion/completions" "$D/share/zsh/site-functions"
	cp "$TF" "$D/bin/tracefold"
	check "manpage -o (sanitizers)" $TF manpage -o "$D/share/man/man1" --docdir "$P/share/doc/tracefold/docs"
	$TF completion bash > "$D/share/bash-completion/completions/tracefold" && ok "completion bash (sanitizers)" || fail "completion bash"
	$TF completion zsh > "$D/share/zsh/site-functions/_tracefold" && ok "completion zsh (sanitizers)" || fail "completion zsh"
	mkdir -p "$D/share/doc/tracefold/docs/img" && cp README.md "$D/share/doc/tracefold/" && cp docs/*.md "$D/share/doc/tracefold/docs/" &&
		cp docs/img/* "$D/share/doc/tracefold/docs/img/"
	;;
*)
	if (umask 077 && make -s install DESTDIR="$ROOT" PREFIX="$P") > "$TMP/inst.out" 2>&1; then ok "make install DESTDIR PREFIX"; else
		fail "make install DESTDIR PREFIX"; sed 's/^/#   /' "$TMP/inst.out" | head; finish; fi
	[ ! -e "$P" ] && ok "nothing written outside DESTDIR" || fail "make install wrote $P outside DESTDIR"
	[ -x "$D/bin/tracefold" ] && ok "the binary in PREFIX/bin" || fail "no $D/bin/tracefold"
	if [ -x tracefold-mpi ]; then
		[ -x "$D/bin/tracefold-mpi" ] && ok "tracefold-mpi installed too" || fail "tracefold-mpi built but not installed"
	fi
	# under umask 077 too, every file is readable by all
	find "$D" -type f ! -perm -444 > "$TMP/unreadable"
	[ ! -s "$TMP/unreadable" ] && ok "installed files are readable by all (umask 077)" || fail "not readable by all: $(head -3 "$TMP/unreadable")"
	# what make install generated is what the binary makes (deterministic)
	$TF manpage -o "$TMP/m" --docdir "$P/share/doc/tracefold/docs" && diff -r "$TMP/m" "$D/share/man/man1" > /dev/null &&
		ok "installed man pages = tracefold manpage -o" || fail "installed man pages differ from tracefold manpage -o"
	$TF completion bash | cmp -s - "$D/share/bash-completion/completions/tracefold" && $TF completion zsh | cmp -s - "$D/share/zsh/site-functions/_tracefold" &&
		ok "installed completions = tracefold completion bash|zsh" || fail "installed completions differ"
	# libtracefold-record: a program built with nothing but pkg-config's
	# flags for the installed tracefold-record.pc, linked to the shared
	# library, records a trace that the installed tracefold reads
	[ -f "$D/lib/libtracefold-record.a" ] && [ -f "$D/lib/libtracefold-record.so.1" ] && [ -L "$D/lib/libtracefold-record.so" ] &&
		[ -f "$D/include/tracefold/record.h" ] && ok "libtracefold-record, record.h installed" || fail "libtracefold-record not installed"
	cat > "$TMP/rec.c" <<'EOF'
#include <tracefold/record.h>
int main(int argc, char **argv)
{
	tfr *r = tfr_open(argv[argc - 1], NULL);
	if (!r)
		return 1;
	for (int i = 0; i < 3; i++) {
		TFR_SCOPE(r, "installed_region");
		tfr_instant(r, 0, "tick");
	}
	return tfr_close(r) ? 1 : 0;
}
EOF
	flags=$(PKG_CONFIG_PATH="$D/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$ROOT" pkg-config --cflags --libs tracefold-record 2> "$TMP/pc.err")
	if [ -n "$flags" ] && cc -Wall -Werror -o "$TMP/rec" "$TMP/rec.c" $flags 2> "$TMP/cc.err"; then ok "a program built with pkg-config tracefold-record"; else
		fail "building with pkg-config tracefold-record: $flags"; sed 's/^/#   /' "$TMP/pc.err" "$TMP/cc.err" | head; fi
	LD_LIBRARY_PATH="$D/lib" ldd "$TMP/rec" 2> /dev/null | grep -q "$D/lib/libtracefold-record.so.1" && LD_LIBRARY_PATH="$D/lib" "$TMP/rec" "$TMP/rec.pftrace" &&
		ok "it runs on the installed shared library" || fail "the recording program did not run on the installed shared library"
	"$D/bin/tracefold" -q top -n 0 --format json "$TMP/rec.pftrace" 2> "$TMP/err" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); r=[f for f in d["functions"] if f["name"]=="installed_region"]; sys.exit(0 if r and r[0]["calls"]==3 else 1)' &&
		ok "its trace: 3 calls of installed_region in the installed tracefold" || fail "the installed tracefold on the recorded trace"
	;;
esac

# the installed binary on a fixture: the same profile as the built one
IN=samples/pytorch-cnn-train.trace.json.gz
"$D/bin/tracefold" -q top -n 0 --format json "$IN" > "$TMP/top.inst" 2> "$TMP/err"
$TF -q top -n 0 --format json "$IN" > "$TMP/top.built"
if [ -s "$TMP/top.inst" ] && cmp -s "$TMP/top.inst" "$TMP/top.built"; then ok "installed tracefold: top of a fixture as built"; else
	fail "installed tracefold: top of a fixture"; sed 's/^/#   /' "$TMP/err" | head -5; fi
"$D/bin/tracefold" --version > "$TMP/ver"
for k in "^tracefold [0-9]" "^gzip input: " "^mpi: " "^input formats: .*chrome" "^output formats: .*pprof" \
	"^libraries: zlib [0-9].*zstd [0-9].*protobuf-c [0-9].*OTF2 [0-9].*SQLite [0-9]" "^compiler: "; do
	grep -q "$k" "$TMP/ver" && ok "--version: $k" || { fail "--version lacks $k"; sed 's/^/#   /' "$TMP/ver"; }
done

# the commands, as tracefold --help lists them (text, read here)
$TF --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' > "$TMP/cmds"
[ "$(wc -l < "$TMP/cmds")" -ge 15 ] && ok "--help lists $(wc -l < "$TMP/cmds") commands" || fail "--help commands: $(cat "$TMP/cmds")"
# OPTS CMD: every option a command's --help lists (the -x and --xx words at
# the start of its option lines)
opts_of() { $TF "$1" --help | sed -n 's/^  \(-[a-zA-Z0-9]\), \(--[a-z0-9-]*\).*/\1\n\2/p; s/^      \(--[a-z0-9-]*\).*/\1/p' | sort -u; }

# man pages: one per command and tracefold(1), rendered without warnings,
# naming every option of the command's --help
M=$D/share/man/man1
n=0 bad=""
for c in "" $(cat "$TMP/cmds"); do
	page=$M/tracefold${c:+-$c}.1
	[ -f "$page" ] || { bad="$bad missing:$page"; continue; }
	MANWIDTH=80 man --warnings -l "$page" > "$TMP/man.txt" 2> "$TMP/man.err"
	[ -s "$TMP/man.err" ] && bad="$bad warnings:$(basename "$page"):$(head -c 200 "$TMP/man.err")"
	grep -q "^SYNOPSIS" "$TMP/man.txt" || bad="$bad nosynopsis:$c"
	if [ -n "$c" ]; then
		for o in $(opts_of "$c"); do
			grep -qe "$o\b" "$TMP/man.txt" || bad="$bad $c:$o"
		done
		grep -q "^OPTIONS" "$TMP/man.txt" || bad="$bad nooptions:$c"
	fi
	n=$((n + 1))
done
[ -z "$bad" ] && ok "$n man pages render with man -l, no warning, every --help option in them" || fail "man pages:$bad"
MANWIDTH=80 MANPATH=$D/share/man man tracefold-diff 2>/dev/null | grep -q -- "--fail-unresolved" &&
	ok "man tracefold-diff finds the installed page (MANPATH)" || fail "man tracefold-diff with MANPATH"
ls "$M" | grep -v '^tracefold\(-[a-z0-9]*\)\?\.1$' > "$TMP/extra" && fail "unexpected files in man1: $(cat "$TMP/extra")" ||
	ok "man1 holds tracefold pages only"
grep -q "share/doc/tracefold" "$M/tracefold.1" && ok "the pages name the installed docs" || fail "pages do not name $P/share/doc/tracefold"
[ -f "$D/share/doc/tracefold/docs/cli.md" ] && [ -f "$D/share/doc/tracefold/README.md" ] && [ -f "$D/share/doc/tracefold/docs/img/flame.svg" ] &&
	ok "docs installed" || fail "docs not installed in $D/share/doc/tracefold"

# bash: the installed completion, called as bash's complete -F calls it
B=$D/share/bash-completion/completions/tracefold
cat > "$TMP/bc.bash" <<EOF
source "$B"
comp() { COMP_WORDS=("\$@"); COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _tracefold; [ \${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "\${COMPREPLY[@]}" | sort; }
EOF
bcomp() { bash -c ". '$TMP/bc.bash'; comp \"\$@\"" bash "$@"; }
complete_is() { # DESC WANTFILE WORDS...
	desc=$1 want=$2; shift 2
	bcomp "$@" > "$TMP/got"
	if cmp -s "$want" "$TMP/got"; then ok "bash: $desc"; else fail "bash: $desc"; diff "$want" "$TMP/got" | head -10 | sed 's/^/#   /'; fi
}
sort "$TMP/cmds" > "$TMP/cmds.s"
complete_is "the commands of --help" "$TMP/cmds.s" tracefold ""
printf 'diff\n' > "$TMP/w"; complete_is "di -> diff" "$TMP/w" tracefold -q di
for c in diff profile overview events history; do
	opts_of "$c" > "$TMP/o.$c"
	bcomp tracefold "$c" "-" > "$TMP/got"
	if cmp -s "$TMP/o.$c" "$TMP/got"; then ok "bash: every option of $c --help"; else
		fail "bash: options of $c"; diff "$TMP/o.$c" "$TMP/got" | head -10 | sed 's/^/#   /'; fi
done
$TF --help | awk '/^input formats/ { on = 1; next } on && /^$/ { exit } on { print $1 }' | sort > "$TMP/fmts"
complete_is "-F: the input formats of --help" "$TMP/fmts" tracefold profile -F ""
$TF --help | awk '/^output formats:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' | sort > "$TMP/wfmts"
complete_is "--to: the output formats of --help" "$TMP/wfmts" tracefold convert --to ""
printf 'json\nmarkdown\ntext\n' > "$TMP/w"; complete_is "diff --format" "$TMP/w" tracefold diff --format ""
mkdir -p "$TMP/cw/dir1" && : > "$TMP/cw/file1"
(cd "$TMP/cw" && bcomp tracefold diff --history "") > "$TMP/got"
printf 'dir1\n' | cmp -s - "$TMP/got" && ok "bash: --history DIR completes folders only" || fail "bash: --history: $(cat "$TMP/got")"
(cd "$TMP/cw" && bcomp tracefold top "") > "$TMP/got"
printf 'dir1\nfile1\n' | cmp -s - "$TMP/got" && ok "bash: inputs complete file names" || fail "bash: inputs: $(cat "$TMP/got")"
: > "$TMP/w"; complete_is "--count N completes nothing" "$TMP/w" tracefold top -n ""
(cd "$TMP/cw" && bcomp tracefold top -- "-") > "$TMP/got"
[ ! -s "$TMP/got" ] && ok "bash: after -- no options" || fail "bash: after --: $(cat "$TMP/got")"
printf 'bash\nzsh\n' > "$TMP/w"; complete_is "completion: bash zsh" "$TMP/w" tracefold completion ""
complete_is "manpage: the commands" "$TMP/cmds.s" tracefold manpage ""
$TF --help | sed -n 's/^  \(-[a-zA-Z]\), \(--[a-z-]*\).*/\1\n\2/p' | sort > "$TMP/w"
complete_is "tracefold -: the global options of --help" "$TMP/w" tracefold "-"

# zsh: the installed _tracefold in a real interactive zsh (zsh/zpty), with
# compadd wrapped to record what it is given
if command -v zsh > /dev/null 2>&1; then
	cat > "$TMP/zt.zsh" <<'EOF'
zmodload zsh/zpty
dir=$1 out=$2 line=$3
rm -f $out $out.ready $out.done
: > $out
zpty z zsh -f -i
zpty -w z "PS1='%% '; fpath=($dir \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z "compadd () { local -a __h; builtin compadd -O __h \"\$@\"; print -rl -- \$__h >> $out; builtin compadd \"\$@\" }"
zpty -w z "zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no; : > $out.ready"
for i in {1..200}; do [[ -e $out.ready ]] && break; sleep 0.05; done
# the TAB, then (once the completion is done) the line killed and a marker
zpty -w -n z "$line"$'\t'
zpty -w z $'\x15'": > $out.done"
for i in {1..200}; do [[ -e $out.done ]] && break; sleep 0.05; done
zpty -d z
[[ -e $out.done ]]
EOF
	zcomp() { # LINE: the words zsh offers, sorted
		timeout 30 zsh -f "$TMP/zt.zsh" "$D/share/zsh/site-functions" "$TMP/zo" "$1" > /dev/null 2>&1
		sed 's/^ *//' "$TMP/zo" | grep -v '^$' | sort -u
	}
	zis() { # DESC LINE WANT...
		desc=$1 line=$2; shift 2
		printf '%s\n' "$@" | sort > "$TMP/zw"
		zcomp "$line" > "$TMP/zg"
		if cmp -s "$TMP/zw" "$TMP/zg"; then ok "zsh: $desc"; else fail "zsh: $desc"; diff "$TMP/zw" "$TMP/zg" | head -8 | sed 's/^/#   /'; fi
	}
	zis "di -> diff" "tracefold di" diff
	zis "diff --ga -> --gate" "tracefold diff --ga" --gate
	zis "diff --format" "tracefold diff --format " json markdown text
	zis "profile -F ch -> chrome" "tracefold profile -F ch" chrome
	zis "top --by" "tracefold -q top --by " calls self total
	zis "history: add" "tracefold history " add
	zis "completion: bash zsh" "tracefold completion " bash zsh
	zcomp "tracefold top -- --fo" > "$TMP/zg"
	[ ! -s "$TMP/zg" ] && ok "zsh: after -- no options" || fail "zsh: after --: $(cat "$TMP/zg")"
	zcomp "tracefold " > "$TMP/zg"
	cmp -s "$TMP/cmds.s" "$TMP/zg" && ok "zsh: the commands of --help" || { fail "zsh: commands"; diff "$TMP/cmds.s" "$TMP/zg" | head -5 | sed 's/^/#   /'; }
else
	fail "zsh is not installed (tests/deps.sh installs it)"
fi

# the generators' own errors
expect_exit 2 "completion fish: a usage error" $TF completion fish
expect_exit 2 "manpage of no command: a usage error" $TF manpage nosuch
$TF manpage diff | head -3 | grep -q '^\.TH "TRACEFOLD\\-DIFF" 1' && ok "manpage diff: roff on stdout" || fail "manpage diff"

# uninstall: what install put there goes, anything else stays (also in a
# docdir shared with other packages)
case $TF in *san*) ;; *)
	: > "$M/other-tool.1"
	if make -s uninstall DESTDIR="$ROOT" PREFIX="$P" > "$TMP/un.out" 2>&1; then ok "make uninstall"; else fail "make uninstall"; sed 's/^/#   /' "$TMP/un.out" | head; fi
	find "$ROOT" ! -type d | sed "s|^$ROOT||" > "$TMP/left"
	printf '%s\n' "$P/share/man/man1/other-tool.1" | cmp -s - "$TMP/left" && ok "uninstall removes all it installed, nothing else" ||
		{ fail "uninstall left or removed"; sed 's/^/#   /' "$TMP/left" | head; }
	R2=$TMP/root2
	mkdir -p "$R2/usr/share/doc/otherpkg" && echo keep > "$R2/usr/share/doc/otherpkg/README"
	make -s install DESTDIR="$R2" PREFIX=/usr docdir=/usr/share/doc > /dev/null 2>&1 &&
		make -s uninstall DESTDIR="$R2" PREFIX=/usr docdir=/usr/share/doc > /dev/null 2>&1
	find "$R2" -type f | sed "s|^$R2||" > "$TMP/left"
	printf '/usr/share/doc/otherpkg/README\n' | cmp -s - "$TMP/left" && ok "uninstall with docdir=/usr/share/doc leaves other packages' docs" ||
		{ fail "uninstall with a shared docdir"; sed 's/^/#   /' "$TMP/left" | head; }
	;;
esac
finish
