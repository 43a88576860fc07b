#!/bin/sh
# tracefold-ci.sh: the CI step of tracefold (docs/ci.md), run by the GitHub
# Action (action.yml) and the GitLab CI template
# (ci/gitlab/tracefold.gitlab-ci.yml).  POSIX sh.
#
# On a pull (merge) request: `tracefold diff --gate` of the BASE runs against
# the NEW runs, the Markdown and JSON reports, the differential flame graph,
# `tracefold overview` of NEW's first run when the runs are traces, the
# report in the job summary and in one pull-request comment (updated on each
# run).  On a push: NEW's runs are added to the baseline history.  The exit
# status follows the verdict and TRACEFOLD_FAIL_ON.
#
# Every input is an environment variable (docs/ci.md lists them):
#   TRACEFOLD_BASE, TRACEFOLD_NEW  runs: paths or globs, whitespace-separated
#   TRACEFOLD                 the binary (default: tracefold on PATH)
#   TRACEFOLD_OUT             output folder (default tracefold-ci)
#   TRACEFOLD_HISTORY         history folder (default .tracefold-history)
#   TRACEFOLD_HISTORY_MAX     runs kept and used (default 30)
#   TRACEFOLD_ARGS            more `diff --gate` options (--alpha 0.01 ...)
#   TRACEFOLD_INPUT_ARGS      trace input options for diff, overview and
#                             history add (--step-region NAME ...)
#   TRACEFOLD_FAIL_ON         regression (default) | unresolved | never
#   TRACEFOLD_COMMENT         on (default) | off
#   TRACEFOLD_COMMENT_KEY     tells comments of several jobs apart (default none)
#   TRACEFOLD_OVERVIEW        auto (default) | on | off
#   TRACEFOLD_FLAME           svg (default) | html | off
#   TRACEFOLD_FLAME_URL       where the report's flame graph link points
#   TRACEFOLD_MODE            auto (default) | pr | push
#   TRACEFOLD_PR              the pull/merge request number (default: found)
#   TRACEFOLD_GITLAB_TOKEN    GitLab token with api scope, for the MR note
#   GH_TOKEN / GITHUB_TOKEN   GitHub token, for the PR comment
# Exit status: 0 pass, 1 regression, 4 unresolved (TRACEFOLD_FAIL_ON=
# unresolved), 2 usage error, 3 unreadable input or unwritable output.
set -u

me=tracefold-ci
err() { echo "$me: error: $*" >&2; }
warn() {
	echo "$me: warning: $*" >&2
	# a GitHub annotation, shown on the run's page
	[ -n "${GITHUB_ACTIONS:-}" ] && echo "::warning title=$me::$*"
	return 0
}
note() { echo "$me: $*" >&2; }

TF=${TRACEFOLD:-tracefold}
OUT=${TRACEFOLD_OUT:-tracefold-ci}
HIST=${TRACEFOLD_HISTORY:-.tracefold-history}
HMAX=${TRACEFOLD_HISTORY_MAX:-30}
ARGS=${TRACEFOLD_ARGS:-}
IARGS=${TRACEFOLD_INPUT_ARGS:-}
FAIL_ON=${TRACEFOLD_FAIL_ON:-regression}
COMMENT=${TRACEFOLD_COMMENT:-on}
OVERVIEW=${TRACEFOLD_OVERVIEW:-auto}
FLAME=${TRACEFOLD_FLAME:-svg}
MODE=${TRACEFOLD_MODE:-auto}
MARKER="<!-- tracefold-ci${TRACEFOLD_COMMENT_KEY:+:$TRACEFOLD_COMMENT_KEY} -->"

case "$FAIL_ON" in regression | unresolved | never) ;; *)
	err "TRACEFOLD_FAIL_ON is '$FAIL_ON': give regression, unresolved or never"; exit 2 ;; esac
case "$COMMENT" in on | off | true | false) ;; *)
	err "TRACEFOLD_COMMENT is '$COMMENT': give on or off"; exit 2 ;; esac
case "$OVERVIEW" in auto | on | off) ;; *)
	err "TRACEFOLD_OVERVIEW is '$OVERVIEW': give auto, on or off"; exit 2 ;; esac
case "$FLAME" in svg | html | off) ;; *)
	err "TRACEFOLD_FLAME is '$FLAME': give svg, html or off"; exit 2 ;; esac
case "$MODE" in auto | pr | push) ;; *)
	err "TRACEFOLD_MODE is '$MODE': give auto, pr or push"; exit 2 ;; esac
case "$HMAX" in '' | *[!0-9]*)
	err "TRACEFOLD_HISTORY_MAX is '$HMAX': give a number of runs"; exit 2 ;; esac
[ "$COMMENT" = true ] && COMMENT=on
[ "$COMMENT" = false ] && COMMENT=off
case "$TF" in */*) [ -x "$TF" ] || { err "TRACEFOLD: '$TF' is not an executable file"; exit 2; } ;;
*) command -v "$TF" >/dev/null 2>&1 || { err "'$TF' is not on PATH: install tracefold or set TRACEFOLD"; exit 2; } ;; esac

# expand NAME LIST: LIST's words as globs, one matching file a line; every
# word must match something
expand() {
	name=$1
	n=0
	for pat in $2; do # word splitting and pathname expansion, on purpose
		if [ ! -e "$pat" ]; then
			err "$name: '$pat' matches no file"
			return 1
		fi
		printf '%s\n' "$pat"
		n=$((n + 1))
	done
	if [ "$n" = 0 ]; then
		err "$name is empty: give the runs' files (paths or globs)"
		return 1
	fi
}
# join FILE-LIST: the lines joined with ','
join() { printf '%s\n' "$1" | paste -sd, -; }

# The pull/merge request: GitHub's event file, GitLab's variables, or
# TRACEFOLD_PR
PR=${TRACEFOLD_PR:-}
PLATFORM=none
if [ -n "${GITHUB_ACTIONS:-}" ] || [ -n "${GITHUB_REPOSITORY:-}" ]; then PLATFORM=github; fi
if [ -n "${GITLAB_CI:-}" ] || [ -n "${CI_PROJECT_ID:-}" ]; then PLATFORM=gitlab; fi
if [ -z "$PR" ] && [ "$PLATFORM" = github ] && [ -f "${GITHUB_EVENT_PATH:-}" ]; then
	# pull_request.number of the event (pull_request, pull_request_target)
	if command -v python3 >/dev/null 2>&1; then
		PR=$(python3 -c 'import json,sys; print((json.load(open(sys.argv[1])).get("pull_request") or {}).get("number") or "")' "$GITHUB_EVENT_PATH" 2>/dev/null)
	elif command -v jq >/dev/null 2>&1; then
		PR=$(jq -r '.pull_request.number // empty' "$GITHUB_EVENT_PATH" 2>/dev/null)
	fi
fi
[ -z "$PR" ] && [ "$PLATFORM" = gitlab ] && PR=${CI_MERGE_REQUEST_IID:-}
if [ "$MODE" = auto ]; then
	if [ -n "$PR" ]; then MODE="pr"; else MODE="push"; fi
fi

if ! mkdir -p "$OUT" 2>/dev/null || [ ! -w "$OUT" ]; then
	err "cannot write the output folder '$OUT'"; exit 3
fi
emit() { # emit KEY VALUE: an output of the GitHub Action
	if [ -n "${GITHUB_OUTPUT:-}" ]; then printf '%s=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"; fi
}
# publish FILE: write FILE atomically from FILE.tmp
publish() { mv -f "$1.tmp" "$1"; }

NEW_RUNS=$(expand TRACEFOLD_NEW "${TRACEFOLD_NEW:-}") || exit 2
BASE_RUNS=""
if [ "$MODE" = pr ]; then
	BASE_RUNS=$(expand TRACEFOLD_BASE "${TRACEFOLD_BASE:-}") || exit 2
elif [ -n "${TRACEFOLD_BASE:-}" ]; then
	# a push gates too when BASE has runs; a workflow that records BASE on
	# pull requests only has none on a push
	BASE_RUNS=$(expand TRACEFOLD_BASE "$TRACEFOLD_BASE" 2> /dev/null) ||
		{ BASE_RUNS=""; note "TRACEFOLD_BASE matches no file: a push, so NEW's runs only join the history"; }
fi
note "mode $MODE; BASE: $(printf '%s\n' "$BASE_RUNS" | grep -c .) runs; NEW: $(printf '%s\n' "$NEW_RUNS" | grep -c .) runs"

# runs in the history folder (written by `tracefold history add`)
hist_runs() { [ -d "$HIST" ] && find "$HIST" -maxdepth 1 -name 'run-*.pb.gz' | sort; }

REPORT=$OUT/report.md
JSON=$OUT/report.json
GATE_RC=0
VERDICT=none
EXIT=0
if [ -n "$BASE_RUNS" ]; then
	set -- --gate
	nh=$(hist_runs | grep -c .)
	if [ "$nh" -gt 0 ]; then
		set -- "$@" --history "$HIST" --history-max "$HMAX"
		note "history: $nh earlier runs of the baseline in $HIST"
	fi
	[ "$FAIL_ON" = unresolved ] && set -- "$@" --fail-unresolved
	FLAMEFILE=""
	if [ "$FLAME" != off ]; then
		FLAMEFILE=$OUT/flame.$FLAME
		url=${TRACEFOLD_FLAME_URL:-}
		if [ -z "$url" ] && [ "$PLATFORM" = github ] && [ -n "${GITHUB_RUN_ID:-}" ]; then
			url=${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}/actions/runs/$GITHUB_RUN_ID
		elif [ -z "$url" ] && [ "$PLATFORM" = gitlab ] && [ -n "${CI_JOB_URL:-}" ]; then
			url=$CI_JOB_URL/artifacts/file/$FLAMEFILE
		fi
		[ -z "$url" ] && url=$FLAMEFILE
	fi
	b=$(join "$BASE_RUNS")
	n=$(join "$NEW_RUNS")
	# shellcheck disable=SC2086 # ARGS and IARGS are lists of options
	"$TF" -q diff "$@" --format json -n 0 $IARGS $ARGS "$b" "$n" > "$JSON.tmp" 2> "$OUT/diff.err"
	GATE_RC=$?
	cat "$OUT/diff.err" >&2
	case $GATE_RC in
	0 | 1 | 4)
		publish "$JSON"
		VERDICT=$(sed -n 's/^  "verdict": "\([a-z]*\)",*$/\1/p' "$JSON" | head -n 1)
		[ -n "$VERDICT" ] || VERDICT=unknown
		if [ -n "$FLAMEFILE" ]; then set -- "$@" --flame "$FLAMEFILE" --flame-url "$url"; fi
		# shellcheck disable=SC2086
		"$TF" -q diff "$@" --format markdown $IARGS $ARGS "$b" "$n" > "$REPORT.gate.tmp" 2> /dev/null
		rc=$?
		if [ "$rc" != "$GATE_RC" ]; then
			err "the Markdown report exited $rc, the JSON report $GATE_RC"
			GATE_RC=3
		fi
		;;
	*)
		rm -f "$JSON.tmp"
		err "tracefold diff --gate failed (exit $GATE_RC): $(head -n 3 "$OUT/diff.err" | tr '\n' ' ')"
		VERDICT=error
		{
			echo "### tracefold diff --gate: ⚠️ error (exit $GATE_RC)"
			echo
			echo '```'
			head -n 20 "$OUT/diff.err"
			echo '```'
		} > "$REPORT.gate.tmp"
		;;
	esac
	rm -f "$OUT/diff.err"
	case $GATE_RC in
	1) EXIT=1 ;;
	4) EXIT=4 ;;
	2 | 3) EXIT=$GATE_RC ;;
	esac
	if [ "$FAIL_ON" = never ]; then case $EXIT in 1 | 4) EXIT=0 ;; esac; fi
	note "verdict: $VERDICT (tracefold exit $GATE_RC; fail-on $FAIL_ON: exit $EXIT)"

	# the overview of NEW's first run, when the runs are traces
	OVMD=""
	if [ "$OVERVIEW" != off ]; then
		first=$(printf '%s\n' "$NEW_RUNS" | head -n 1)
		# shellcheck disable=SC2086
		if "$TF" -q overview $IARGS -o "$OUT/overview.md" "$first" 2> "$OUT/ov.err" &&
			"$TF" -q overview $IARGS -o "$OUT/overview.html" "$first" 2>> "$OUT/ov.err"; then
			OVMD=$OUT/overview.md
		elif [ "$OVERVIEW" = on ]; then
			err "tracefold overview '$first' failed: $(head -n 2 "$OUT/ov.err" | tr '\n' ' ')"
			case $EXIT in 0 | 1 | 4) EXIT=3 ;; esac
		else
			note "no overview: $(head -n 1 "$OUT/ov.err")"
		fi
		rm -f "$OUT/ov.err"
	fi
	{
		echo "$MARKER"
		cat "$REPORT.gate.tmp"
		if [ -n "$OVMD" ]; then
			# the overview's verdict lines, then the whole of it folded
			echo
			echo "#### Overview of NEW's first run (\`$first\`)"
			echo
			sed '/^###/,$d' "$OVMD"
			echo
			echo "<details><summary>tracefold overview: per step, stragglers, where the time goes</summary>"
			echo
			sed -n '/^###/,$p' "$OVMD"
			echo
			echo "</details>"
		fi
		if [ "$PLATFORM" = github ] && [ -n "${GITHUB_RUN_ID:-}" ]; then
			echo
			echo "<sub>[tracefold CI run](${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}/actions/runs/$GITHUB_RUN_ID): the report, its JSON, the flame graph and the overview are the run's artifacts.</sub>"
		elif [ "$PLATFORM" = gitlab ] && [ -n "${CI_JOB_URL:-}" ]; then
			echo
			echo "<sub>[tracefold CI job]($CI_JOB_URL/artifacts/browse): the report, its JSON, the flame graph and the overview are the job's artifacts.</sub>"
		fi
	} > "$REPORT.tmp"
	rm -f "$REPORT.gate.tmp"
	publish "$REPORT"
	if [ "$EXIT" = 2 ] || [ "$EXIT" = 3 ]; then err "the gate could not decide (exit $EXIT): see $REPORT"; fi

	emit verdict "$VERDICT"
	emit gate-status "$GATE_RC"
	emit exit-code "$EXIT"
	emit report "$REPORT"
	[ -f "$JSON" ] && emit json "$JSON"
	[ -n "$FLAMEFILE" ] && [ -f "$FLAMEFILE" ] && emit flame "$FLAMEFILE"
	[ -n "$OVMD" ] && emit overview "$OVMD"
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
		cat "$REPORT" >> "$GITHUB_STEP_SUMMARY" || warn "cannot write the job summary $GITHUB_STEP_SUMMARY"
	fi
	if [ "$MODE" = pr ] && [ "$COMMENT" = on ]; then
		# shellcheck source=ci/comment.sh
		. "$(dirname "$0")/comment.sh"
		post_comment "$REPORT" || warn "the report was not posted on the pull request (the gate's verdict stands)"
	fi
else
	emit verdict none
	emit gate-status 0
	emit exit-code 0
fi

# a push: NEW's runs join the baseline history, the newest HMAX are kept
if [ "$MODE" = push ]; then
	# the runs, one a line, as the arguments
	oldifs=$IFS
	IFS='
'
	set -f
	# shellcheck disable=SC2086
	set -- $NEW_RUNS
	set +f
	IFS=$oldifs
	# shellcheck disable=SC2086
	if ! "$TF" -q history add $IARGS "$HIST" "$@"; then
		err "tracefold history add '$HIST' failed"
		exit 3
	fi
	hist_runs > "$OUT/.hist"
	total=$(grep -c . "$OUT/.hist")
	if [ "$total" -gt "$HMAX" ]; then
		head -n $((total - HMAX)) "$OUT/.hist" | while IFS= read -r f; do rm -f "$f"; done
	fi
	rm -f "$OUT/.hist"
	note "history: $(hist_runs | grep -c .) runs in $HIST (newest $HMAX kept)"
	emit history-updated true
fi
exit "$EXIT"
