#!/bin/sh
# docs/img/ci-comment.png: the pull-request comment that the CI step
# (ci/tracefold-ci.sh, docs/ci.md) posts, from a real run of the script on
# the gate's fixtures (tests/data/gate: 3 baseline runs against a run with
# aten::bmm 25% slower) with a fake gh that keeps the comment's body; the
# body rendered as GitHub shows a comment (samples/ci-comment.py) and taken
# by headless Chromium.
# usage: sh samples/ci-comment.sh [OUT.png]   (needs python3-markdown, chromium
# and, for the verdict's emoji, fonts-noto-color-emoji)
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
TF=${TF:-./tracefold}
case "$TF" in /*) ;; *) TF="$top/$TF" ;; esac
out=${1:-docs/img/ci-comment.png}
case "$out" in /*) ;; *) out="$top/$out" ;; esac
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "ci-comment.sh: chromium is not installed" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tf-ci-comment.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/app/runs"
# the fake gh: no comment yet; keeps the body it is given
cat > "$tmp/bin/gh" <<'GH'
#!/bin/sh
case " $* " in
*" --method POST "*) for a in "$@"; do case $a in body=@*) cp "${a#body=@}" "$FAKE_BODY" ;; esac; done; echo '{}' ;;
*) echo '[]' ;;
esac
GH
chmod +x "$tmp/bin/gh"
G=$top/tests/data/gate
cp "$G/a0.json.gz" "$tmp/app/runs/base1.json.gz"
cp "$G/a1.json.gz" "$tmp/app/runs/base2.json.gz"
cp "$G/a2.json.gz" "$tmp/app/runs/base3.json.gz"
cp "$G/bmm25.json.gz" "$tmp/app/runs/new1.json.gz"
echo '{"pull_request": {"number": 42}}' > "$tmp/event.json"
rc=0
(cd "$tmp/app" && env PATH="$tmp/bin:$PATH" FAKE_BODY="$tmp/body.md" TRACEFOLD="$TF" \
	GITHUB_ACTIONS=true GITHUB_REPOSITORY=OWNER/app GITHUB_RUN_ID=1234567890 \
	GITHUB_SERVER_URL=https://github.com GITHUB_EVENT_PATH="$tmp/event.json" GH_TOKEN=x \
	TRACEFOLD_BASE="runs/base*.json.gz" TRACEFOLD_NEW="runs/new*.json.gz" \
	sh "$top/ci/tracefold-ci.sh") || rc=$?
[ "$rc" = 1 ] || { echo "ci-comment.sh: the gate exited $rc, not 1 (regression)" >&2; exit 3; }
[ -s "$tmp/body.md" ] || { echo "ci-comment.sh: no comment was posted" >&2; exit 3; }
/usr/bin/python3 "$top/samples/ci-comment.py" "$tmp/body.md" "$tmp/page.html"
chrome() { timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
	--hide-scrollbars --force-device-scale-factor=1 --user-data-dir="$tmp/chromium" "$@" 2>/dev/null; }
# the page's height, as its script writes it into the title
h=$(chrome --window-size=1040,800 --dump-dom "file://$tmp/page.html" | sed -n 's/.*<title>height=\([0-9]*\)<\/title>.*/\1/p')
case "$h" in '' | *[!0-9]*) echo "ci-comment.sh: cannot measure the page" >&2; exit 3 ;; esac
chrome --window-size="1040,$h" --screenshot="$tmp/shot.png" "file://$tmp/page.html"
[ -s "$tmp/shot.png" ] || { echo "ci-comment.sh: chromium wrote no picture" >&2; exit 3; }
mkdir -p "$(dirname "$out")"
mv -f "$tmp/shot.png" "$out"
echo "ci-comment.sh: $out (1040x$h)"
