#!/bin/sh
# Installs what is missing, on Debian/Ubuntu (as root, or through sudo).
#   sh tests/deps.sh build   compiler and libraries for `make`
#   sh tests/deps.sh test    the above plus the independent readers the tests use
#                            (Debian packages, chromium for the viewer test,
#                            and the npm packages of
#                            tests/package.json: npm ci, pinned by
#                            tests/package-lock.json)
#   sh tests/deps.sh bench   the build packages plus what bench/*.sh use
#   sh tests/deps.sh fuzz    the build packages plus clang (libFuzzer) for make fuzz
set -e
what=${1:-build}
build_pkgs="gcc make pkg-config libprotobuf-c-dev protobuf-c-compiler zlib1g-dev libisal-dev libotf2-trace-dev libzstd-dev libsqlite3-dev"
test_pkgs="libcmocka-dev g++ golang-go otf2-tools python3 python3-otf2 python3-numpy python3-scipy python3-yaml python3-markdown curl time chromium protobuf-compiler python3-protobuf python3-torch libxml2-utils libopenmpi-dev openmpi-bin strace universal-ctags man-db groff-base zsh"
pkgs=$build_pkgs
[ "$what" = test ] && pkgs="$pkgs $test_pkgs"
[ "$what" = bench ] && pkgs="$pkgs time python3 gzip libopenmpi-dev openmpi-bin strace universal-ctags"
[ "$what" = fuzz ] && pkgs="$pkgs clang python3"
# apt_install PKG...: the Debian packages, as root or through sudo
apt_install() {
	echo "tests/deps.sh: installing:$*"
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO=sudo
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then apt_install $missing; fi

# The Node.js packages of the tests (DuckDB, hyparquet; speedscope, the viewer):
# node and npm from Debian when missing, then the packages pinned by
# tests/package-lock.json, installed again when the lock file changed.
if [ "$what" = test ]; then
	missing=""
	command -v node >/dev/null 2>&1 || missing="$missing nodejs"
	command -v npm >/dev/null 2>&1 || missing="$missing npm"
	if [ -n "$missing" ]; then apt_install $missing; fi
	dir=$(dirname "$0")
	stamp=$dir/node_modules/.package-lock.json
	if [ ! -f "$stamp" ] || [ "$dir/package-lock.json" -nt "$stamp" ] || [ "$dir/package.json" -nt "$stamp" ]; then
		echo "tests/deps.sh: npm ci in $dir"
		(cd "$dir" && npm ci --no-audit --no-fund)
	fi
fi
