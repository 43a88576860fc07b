# The CI step (docs/ci.md): ci/tracefold-ci.sh run on the gate's fixture
# runs (tests/data/gate) as GitHub Actions and GitLab CI would run it, with a
# fake `gh` and a fake `curl` first on PATH that log every call and answer
# with canned comments; action.yml and the GitLab template as YAML.
. tests/lib.sh
G=$DATA/gate
PY=/usr/bin/python3
CI=ci/tracefold-ci.sh
case "$TF" in /*) ;; *) TF=$(pwd)/$TF ;; esac
FAKE=$TMP/fake
mkdir -p "$FAKE/bin" "$FAKE/gl" "$FAKE/ghc" "$FAKE/curl-only"
# a fake gh: `gh api [--paginate] [--method M] PATH [-F body=@FILE]`; logs
# "METHOD PATH" in gh.log, keeps each body as body.N; lists comments.json;
# a POST makes comments.json hold a comment 4242 with its body
cat > "$FAKE/bin/gh" <<'EOF'
#!/bin/sh
[ -n "${FAKE_GH_FAIL:-}" ] && { echo "gh: HTTP 403: Resource not accessible by integration" >&2; exit 1; }
[ "$1" = api ] || { echo "fake gh: $*" >&2; exit 2; }
shift
m=GET body=""
while [ $# -gt 0 ]; do
	case $1 in
	--method) m=$2; shift ;;
	-F) case $2 in body=@*) body=${2#body=@} ;; esac; shift ;;
	--paginate) ;;
	*) path=$1 ;;
	esac
	shift
done
echo "$m $path token=$GH_TOKEN" >> "$FAKE/gh.log"
case $m in
GET) cat "$FAKE/comments.json" ;;
*)
	n=$(grep -c . "$FAKE/gh.log")
	cp "$body" "$FAKE/body.$n"
	/usr/bin/python3 -c 'import json,sys; print(json.dumps([{"id": 17, "body": "LGTM"}, {"id": 4242, "body": open(sys.argv[1]).read()}]))' "$body" > "$FAKE/comments.json"
	echo '{"id": 4242}' ;;
esac
EOF
# a fake curl for GitLab's notes API (and GitHub's issue comments):
# logs "METHOD URL" in gl/curl.log (ghc/ for GitHub), each body as
# gl/body.N; lists gl/notes.json on page 1, [] after
cat > "$FAKE/bin/curl" <<'EOF'
#!/bin/sh
m=GET body="" url="" tok=""
while [ $# -gt 0 ]; do
	case $1 in
	-X) m=$2; shift ;;
	-H) case $2 in PRIVATE-TOKEN:*) tok=${2#PRIVATE-TOKEN: } ;; "Authorization: Bearer "*) tok=${2#Authorization: Bearer } ;; esac; shift ;;
	--data-urlencode) body=${2#body@}; shift ;;
	--data-binary) body=${2#@}; shift ;;
	http*) url=$1 ;;
	esac
	shift
done
d=$FAKE/gl
case $url in https://api.github.test/*) d=$FAKE/ghc ;; esac
echo "$m $url token=$tok" >> "$d/curl.log"
case $m in
GET) case $url in *page=1) cat "$d/notes.json" ;; *) echo '[]' ;; esac ;;
*)
	n=$(grep -c . "$d/curl.log")
	cp "$body" "$d/body.$n"
	/usr/bin/python3 -c 'import json,sys; print(json.dumps([{"id": 9, "body": "note"}, {"id": 555, "body": open(sys.argv[1]).read()}]))' "$body" > "$d/notes.json"
	echo '{"id": 555}' ;;
esac
EOF
chmod +x "$FAKE/bin/gh" "$FAKE/bin/curl"
ln -s "$FAKE/bin/curl" "$FAKE/curl-only/curl"
echo '[{"id": 3, "body": "first"}]' > "$FAKE/ghc/notes.json"
echo '[{"id": 17, "body": "LGTM"}]' > "$FAKE/comments.json"
echo '[]' > "$FAKE/gl/notes.json"
echo '{"pull_request": {"number": 7}}' > "$TMP/pr-event.json"
echo '{"ref": "refs/heads/main"}' > "$TMP/push-event.json"
export FAKE

# gh_run OUTDIR EVENT [VAR=VALUE...]: the script as a GitHub Action step
# runs it, in $TMP/OUTDIR; exit status in $TMP/OUTDIR.rc
gh_run() {
	d=$TMP/$1 ev=$2
	shift 2
	mkdir -p "$d"
	: > "$d/summary.md"
	: > "$d/output"
	env -u GITLAB_CI -u CI_PROJECT_ID PATH="$FAKE/bin:$PATH" TRACEFOLD="$TF" TRACEFOLD_OUT="$d/out" \
		TRACEFOLD_HISTORY="$TMP/hist" GITHUB_ACTIONS=true GITHUB_REPOSITORY=o/r GITHUB_RUN_ID=99 \
		GITHUB_SERVER_URL=https://github.com GITHUB_EVENT_PATH="$TMP/$ev-event.json" GH_TOKEN=tok1 \
		GITHUB_STEP_SUMMARY="$d/summary.md" GITHUB_OUTPUT="$d/output" "$@" \
		sh "$CI" > "$d/stdout" 2> "$d/stderr"
	echo $? > "$d.rc"
}
rc_of() { cat "$TMP/$1.rc"; }
verdict_json() { $PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$1"; }
BASE3="$G/a[0-2].json.gz"

# a pull request, aten::bmm 25% slower: exit 1, the reports, one comment
gh_run reg pr TRACEFOLD_BASE="$BASE3" TRACEFOLD_NEW="$G/bmm25.json.gz"
R=$TMP/reg/out
check "regressed pair on a pull request: exit 1" test "$(rc_of reg)" = 1
check "... the report holds the gate's verdict table and the regressed row" sh -c "grep -q '^### tracefold diff --gate: .*regression' '$R/report.md' && grep -q '^| verdict | change/step |' '$R/report.md' && grep -q '^| \*\*regressed\*\* .*| \`aten::bmm\` |\$' '$R/report.md'"
check "... the JSON report parses, its verdict regressed as the exit status says" test "$(verdict_json "$R/report.json")" = regressed
check "... the flame graph: a well-formed SVG" xmllint --noout "$R/flame.svg"
check "... the report links the flame graph to the run's page" grep -q '](https://github.com/o/r/actions/runs/99)' "$R/report.md"
check "... the overview of NEW's first run (a trace)" sh -c "grep -q '^#### Overview of NEW.s first run (\`$G/bmm25.json.gz\`)' '$R/report.md' && grep -q '^\*\*tracefold overview\*\*: 1 rank' '$R/overview.md' && test -s '$R/overview.html'"
check "... the job summary holds the report" cmp "$TMP/reg/summary.md" "$R/report.md"
check "... GITHUB_OUTPUT: verdict, exit-code and the files" sh -c "grep -qx 'verdict=regressed' '$TMP/reg/output' && grep -qx 'exit-code=1' '$TMP/reg/output' && grep -qx 'flame=$R/flame.svg' '$TMP/reg/output' && grep -qx 'json=$R/report.json' '$TMP/reg/output'"
check "... gh: the PR's comments listed, then one POST (with the job's token)" test "$(cat "$FAKE/gh.log")" = "GET repos/o/r/issues/7/comments?per_page=100 token=tok1
POST repos/o/r/issues/7/comments token=tok1"
check "... the comment is the report, with the marker first" sh -c "cmp '$FAKE/body.2' '$R/report.md' && head -n 1 '$FAKE/body.2' | grep -qx '<!-- tracefold-ci -->'"
check "... samples/ci-comment.py renders it as GitHub would: the tables, the overview folded" $PY -c '
import subprocess, sys
subprocess.run([sys.executable, "samples/ci-comment.py", sys.argv[1], sys.argv[2]], check=True)
page = open(sys.argv[2]).read()
assert "<td style=\"text-align: left;\"><strong>regressed</strong></td>" in page and "<code>aten::bmm</code>" in page, "no verdict table"
d = page.index("<details>")
assert page.index("<table>", d) < page.index("</details>"), "the overview table is not Markdown inside <details>"' "$FAKE/body.2" "$TMP/page.html"
check "... no output left under a temporary name" test -z "$(find "$R" -name '*.tmp')"

# the same pull request again: the comment with the marker is updated
gh_run reg2 pr TRACEFOLD_BASE="$BASE3" TRACEFOLD_NEW="$G/bmm25.json.gz"
check "a second run: exit 1 again" test "$(rc_of reg2)" = 1
check "... gh: PATCH of comment 4242 (the one with the marker), no new POST" test "$(sed -n '3,$p' "$FAKE/gh.log")" = "GET repos/o/r/issues/7/comments?per_page=100 token=tok1
PATCH repos/o/r/issues/comments/4242 token=tok1"
check "... with the new report" cmp "$FAKE/body.4" "$TMP/reg2/out/report.md"

# fail-on policies
gh_run never pr TRACEFOLD_BASE="$BASE3" TRACEFOLD_NEW="$G/bmm25.json.gz" TRACEFOLD_FAIL_ON=never TRACEFOLD_COMMENT=off
check "fail-on never, regressed: exit 0, verdict still regressed" sh -c "test \"\$(cat '$TMP/never.rc')\" = 0 && grep -qx 'verdict=regressed' '$TMP/never/output' && grep -qx 'exit-code=0' '$TMP/never/output' && grep -qx 'gate-status=1' '$TMP/never/output'"
gh_run aa pr TRACEFOLD_BASE="$BASE3" TRACEFOLD_NEW="$G/a3.json.gz" TRACEFOLD_COMMENT=off
check "identical code (A/A): exit 0, nothing regressed" sh -c "test \"\$(cat '$TMP/aa.rc')\" = 0 && ! grep -q 'regressed\*\*' '$TMP/aa/out/report.md'"
check "... the JSON verdict is not regressed" test "$(verdict_json "$TMP/aa/out/report.json")" != regressed
check "... comment off: gh never called" test "$(grep -c . "$FAKE/gh.log")" = 4
gh_run unres pr TRACEFOLD_BASE="$G/a0.json.gz" TRACEFOLD_NEW="$G/bmm25.json.gz" TRACEFOLD_FAIL_ON=unresolved TRACEFOLD_COMMENT=off
check "fail-on unresolved, one run a side: exit 4" test "$(rc_of unres)" = 4
gh_run unres0 pr TRACEFOLD_BASE="$G/a0.json.gz" TRACEFOLD_NEW="$G/bmm25.json.gz" TRACEFOLD_COMMENT=off
check "... the same with fail-on regression: exit 0" test "$(rc_of unres0)" = 0

# comment posting fails: a warning, the gate's status stands
gh_run ghfail pr TRACEFOLD_BASE="$BASE3" TRACEFOLD_NEW="$G/bmm25.json.gz" FAKE_GH_FAIL=1
check "gh fails: the exit status stays the gate's (1)" test "$(rc_of ghfail)" = 1
check "... a warning says the report was not posted" grep -q '^tracefold-ci: warning: the report was not posted' "$TMP/ghfail/stderr"
check "... and a GitHub annotation" grep -q '^::warning ' "$TMP/ghfail/stdout"
gh_run ghfail0 pr TRACEFOLD_BASE="$BASE3" TRACEFOLD_NEW="$G/a3.json.gz" FAKE_GH_FAIL=1
check "gh fails on a passing gate: exit 0" test "$(rc_of ghfail0)" = 0

# errors: an empty glob, an unreadable run
gh_run empty pr TRACEFOLD_BASE="$BASE3" TRACEFOLD_NEW="$TMP/nothing/*.json"
check "an empty glob: exit 2, naming the variable and the pattern" sh -c "test \"\$(cat '$TMP/empty.rc')\" = 2 && grep -q \"TRACEFOLD_NEW: '$TMP/nothing/\*.json' matches no file\" '$TMP/empty/stderr'"
gh_run nobase pr TRACEFOLD_NEW="$G/a3.json.gz"
check "no BASE on a pull request: exit 2" sh -c "test \"\$(cat '$TMP/nobase.rc')\" = 2 && grep -q 'TRACEFOLD_BASE is empty' '$TMP/nobase/stderr'"
echo 'not a trace' > "$TMP/bad.json"
gh_run bad pr TRACEFOLD_BASE="$BASE3" TRACEFOLD_NEW="$TMP/bad.json" TRACEFOLD_COMMENT=off
check "an unreadable run: exit 3 whatever fail-on says, the report says why" sh -c "test \"\$(cat '$TMP/bad.rc')\" = 3 && grep -q 'error (exit 3)' '$TMP/bad/out/report.md' && grep -qx 'verdict=error' '$TMP/bad/output'"
gh_run badpol pr TRACEFOLD_BASE="$BASE3" TRACEFOLD_NEW="$G/a3.json.gz" TRACEFOLD_FAIL_ON=sometimes
check "an unknown fail-on: exit 2" test "$(rc_of badpol)" = 2

# profiles (not traces): overview auto skips, on fails
$TF -q profile --label-steps "$G/a0.json.gz" -o "$TMP/a0.pb.gz" && $TF -q profile --label-steps "$G/bmm25.json.gz" -o "$TMP/b.pb.gz"
gh_run prof pr TRACEFOLD_BASE="$TMP/a0.pb.gz" TRACEFOLD_NEW="$TMP/b.pb.gz" TRACEFOLD_COMMENT=off
check "profiles, overview auto: no overview, the gate's exit 0" sh -c "test \"\$(cat '$TMP/prof.rc')\" = 0 && ! grep -q Overview '$TMP/prof/out/report.md' && test ! -e '$TMP/prof/out/overview.md'"
gh_run profon pr TRACEFOLD_BASE="$TMP/a0.pb.gz" TRACEFOLD_NEW="$TMP/b.pb.gz" TRACEFOLD_COMMENT=off TRACEFOLD_OVERVIEW=on
check "... overview on: exit 3" test "$(rc_of profon)" = 3

# a push keeps NEW's runs in the history, the newest TRACEFOLD_HISTORY_MAX
# of them; the next pull request uses them (as tests/e2e/gate.sh: a0-a2 as
# history, a3 against bmm25 is regressed)
gh_run push1 push TRACEFOLD_BASE="$TMP/runs/base*.json" TRACEFOLD_NEW="$G/a4.json.gz $G/a0.json.gz" TRACEFOLD_HISTORY_MAX=3
check "a push (BASE matches nothing): exit 0, two runs in the history" sh -c "test \"\$(cat '$TMP/push1.rc')\" = 0 && test \"\$(ls '$TMP/hist' | grep -c '^run-.*\.pb\.gz\$')\" = 2 && grep -qx 'history-updated=true' '$TMP/push1/output' && grep -qx 'verdict=none' '$TMP/push1/output'"
oldest=$(cd "$TMP/hist" && printf '%s\n' run-*.pb.gz | head -n 1)
sleep 1 # the history's runs are named by the second
gh_run push2 push TRACEFOLD_NEW="$G/a[12].json.gz" TRACEFOLD_HISTORY_MAX=3
check "... a second push: the newest 3 kept, the oldest (a4) gone" sh -c "test \"\$(ls '$TMP/hist' | grep -c '^run-.*\.pb\.gz\$')\" = 3 && test ! -e '$TMP/hist/$oldest'"
check "... pushes do not comment" test "$(grep -c . "$FAKE/gh.log")" = 4
gh_run hpr pr TRACEFOLD_BASE="$G/a3.json.gz" TRACEFOLD_NEW="$G/bmm25.json.gz" TRACEFOLD_COMMENT=off
check "a pull request after them: the gate used the 3 history runs" $PY -c 'import json,sys; assert json.load(open(sys.argv[1]))["runs"]["history"] == 3' "$TMP/hpr/out/report.json"
check "... and the history decides one run against one: regressed, exit 1" sh -c "test \"\$(cat '$TMP/hpr.rc')\" = 1 && grep -qx 'verdict=regressed' '$TMP/hpr/output'"

# GitLab: a merge-request note through the REST API (the fake curl)
gl_run() {
	d=$TMP/$1
	mkdir -p "$d"
	env -u GITHUB_ACTIONS -u GITHUB_REPOSITORY -u GITHUB_OUTPUT -u GITHUB_STEP_SUMMARY PATH="$FAKE/bin:$PATH" \
		TRACEFOLD="$TF" TRACEFOLD_OUT="$d/out" TRACEFOLD_HISTORY="$TMP/gl-hist" GITLAB_CI=true \
		CI_API_V4_URL=https://gitlab.example/api/v4 CI_PROJECT_ID=5 CI_MERGE_REQUEST_IID=3 \
		CI_JOB_URL=https://gitlab.example/g/p/-/jobs/8 TRACEFOLD_GITLAB_TOKEN=gltok \
		TRACEFOLD_BASE="$BASE3" TRACEFOLD_NEW="$G/bmm25.json.gz" sh "$CI" > "$d/stdout" 2> "$d/stderr"
	echo $? > "$d.rc"
}
gl_run gl1
gl_run gl2
N=https://gitlab.example/api/v4/projects/5/merge_requests/3/notes
check "GitLab merge request: exit 1 twice" test "$(rc_of gl1)$(rc_of gl2)" = 11
check "... notes listed (none), POSTed; listed (2 pages), the marked note PUT; with the token" test "$(cat "$FAKE/gl/curl.log")" = "GET $N?per_page=100&sort=asc&page=1 token=gltok
POST $N token=gltok
GET $N?per_page=100&sort=asc&page=1 token=gltok
GET $N?per_page=100&sort=asc&page=2 token=gltok
PUT $N/555 token=gltok"
check "... the note is the report" sh -c "cmp '$FAKE/gl/body.2' '$TMP/gl1/out/report.md' && cmp '$FAKE/gl/body.5' '$TMP/gl2/out/report.md'"
check "... the flame link points at the job's artifact" grep -q "](https://gitlab.example/g/p/-/jobs/8/artifacts/file/$TMP/gl1/out/flame.svg)" "$TMP/gl1/out/report.md"

# GitHub without gh: the REST API with curl and the token
if command -v gh >/dev/null 2>&1; then
	ok "GitHub through curl: skipped (a real gh is on PATH)"
else
	for r in ghc1 ghc2; do
		gh_run $r pr TRACEFOLD_BASE="$BASE3" TRACEFOLD_NEW="$G/bmm25.json.gz" PATH="$FAKE/curl-only:$PATH" GITHUB_API_URL=https://api.github.test
	done
	I=https://api.github.test/repos/o/r/issues
	check "GitHub without gh: curl lists the comments, POSTs; then PATCHes the marked one" test "$(cat "$FAKE/ghc/curl.log")" = "GET $I/7/comments?per_page=100&page=1 token=tok1
GET $I/7/comments?per_page=100&page=2 token=tok1
POST $I/7/comments token=tok1
GET $I/7/comments?per_page=100&page=1 token=tok1
GET $I/7/comments?per_page=100&page=2 token=tok1
PATCH $I/comments/555 token=tok1"
	check "... the JSON body holds the report" $PY -c 'import json,sys; assert json.load(open(sys.argv[1]))["body"] == open(sys.argv[2]).read()' "$FAKE/ghc/body.3" "$TMP/ghc1/out/report.md"
	check "... exit 1 both times" test "$(rc_of ghc1)$(rc_of ghc2)" = 11
fi

# action.yml and the GitLab template: YAML; every input declared is used
check "action.yml and the GitLab template parse as YAML" $PY -c '
import sys, yaml
for f in sys.argv[1:]:
    assert isinstance(yaml.safe_load(open(f)), dict), f' action.yml ci/gitlab/tracefold.gitlab-ci.yml
check "action.yml: every inputs.X used is declared, every declared input is used" $PY -c '
import re, yaml
text = open("action.yml").read()
a = yaml.safe_load(text)
declared = set(a["inputs"])
used = set(re.findall(r"inputs\.([A-Za-z0-9_-]+)", text))
assert used == declared, ("undeclared", sorted(used - declared), "unused", sorted(declared - used))
assert a["runs"]["using"] == "composite"
for k, o in a["outputs"].items():
    assert "steps." in o["value"], k'
check "the GitLab template: a hidden job .tracefold-gate running the script" $PY -c '
import yaml
t = yaml.safe_load(open("ci/gitlab/tracefold.gitlab-ci.yml"))
j = t[".tracefold-gate"]
assert any("tracefold-ci.sh" in l for l in j["script"]), j["script"]
assert j["artifacts"]["when"] == "always" and j["cache"]'
check "the scripts are POSIX sh: sh -n" sh -c "sh -n ci/tracefold-ci.sh && sh -n ci/comment.sh"
if command -v shellcheck >/dev/null 2>&1; then
	check "... shellcheck-clean" shellcheck -x -s sh ci/tracefold-ci.sh ci/comment.sh
fi
finish
