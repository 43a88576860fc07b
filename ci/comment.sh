# comment.sh: sourced by tracefold-ci.sh (POSIX sh).  post_comment FILE posts
# FILE as the one pull-request comment (GitHub) or merge-request note (GitLab)
# that starts with $MARKER: the one there is updated, else one is made.
# Uses $PLATFORM, $PR, $MARKER, $OUT, err, note.  Returns non-zero on failure.

# marker_id: the id of the first comment in the JSON on stdin (arrays of
# comments, one per page, one after another) whose body holds $MARKER
marker_id() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c '
import json, sys
text, marker, dec, i = sys.stdin.read(), sys.argv[1], json.JSONDecoder(), 0
while True:
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    page, i = dec.raw_decode(text, i)
    for c in page:
        if marker in (c.get("body") or ""):
            print(c["id"])
            sys.exit(0)' "$MARKER"
	elif command -v jq >/dev/null 2>&1; then
		jq -r --arg m "$MARKER" '.[] | select((.body // "") | contains($m)) | .id' | head -n 1
	else
		err "reading the comments needs python3 or jq"
		return 1
	fi
}
# json_body FILE: {"body": FILE's text}
json_body() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json, sys; print(json.dumps({"body": open(sys.argv[1], encoding="utf-8").read()}))' "$1"
	elif command -v jq >/dev/null 2>&1; then
		jq -Rs '{body: .}' < "$1"
	else
		err "writing the comment needs python3 or jq"
		return 1
	fi
}

post_comment() {
	# GitHub keeps 65536 characters of a comment: longer reports are cut at
	# a line, with a note (the whole report is the artifact)
	body=$OUT/comment.md
	if [ "$(wc -c < "$1")" -gt 60000 ]; then
		{
			head -c 60000 "$1" | sed '$d'
			echo
			echo "*(report cut: the whole of it is in the job's artifacts)*"
		} > "$body.tmp"
	else
		cp "$1" "$body.tmp"
	fi
	mv -f "$body.tmp" "$body"
	case $PLATFORM in
	github) post_github "$body" ;;
	gitlab) post_gitlab "$body" ;;
	*)
		err "no pull request to comment on: neither GitHub Actions nor GitLab CI (set TRACEFOLD_COMMENT=off)"
		return 1
		;;
	esac
}

post_github() {
	repo=${GITHUB_REPOSITORY:-}
	[ -n "$repo" ] || { err "GITHUB_REPOSITORY is not set"; return 1; }
	GH_TOKEN=${GH_TOKEN:-${GITHUB_TOKEN:-}}
	[ -n "$GH_TOKEN" ] || { err "no token: set GH_TOKEN (the action passes github-token)"; return 1; }
	export GH_TOKEN
	if command -v gh >/dev/null 2>&1; then
		list=$(gh api --paginate "repos/$repo/issues/$PR/comments?per_page=100") || { err "gh api: cannot list the comments of #$PR"; return 1; }
		id=$(printf '%s\n' "$list" | marker_id) || return 1
		if [ -n "$id" ]; then
			gh api --method PATCH "repos/$repo/issues/comments/$id" -F "body=@$1" > /dev/null || { err "gh api: cannot update comment $id"; return 1; }
			note "updated the comment $id on #$PR"
		else
			gh api --method POST "repos/$repo/issues/$PR/comments" -F "body=@$1" > /dev/null || { err "gh api: cannot comment on #$PR"; return 1; }
			note "commented on #$PR"
		fi
		return 0
	fi
	# no gh: the REST API with curl
	api=${GITHUB_API_URL:-https://api.github.com}/repos/$repo/issues
	auth="Authorization: Bearer $GH_TOKEN"
	accept="Accept: application/vnd.github+json"
	list=""
	page=1
	while [ "$page" -le 50 ]; do
		p=$(curl -sS --fail -H "$auth" -H "$accept" "$api/$PR/comments?per_page=100&page=$page") || { err "curl: cannot list the comments of #$PR"; return 1; }
		list="$list$p"
		case $(printf '%s' "$p" | tr -d ' \n\r\t') in '[]' | '') break ;; esac
		page=$((page + 1))
	done
	id=$(printf '%s\n' "$list" | marker_id) || return 1
	json_body "$1" > "$OUT/comment.json" || return 1
	if [ -n "$id" ]; then
		curl -sS --fail -X PATCH -H "$auth" -H "$accept" --data-binary "@$OUT/comment.json" "$api/comments/$id" > /dev/null || { err "curl: cannot update comment $id"; return 1; }
		note "updated the comment $id on #$PR"
	else
		curl -sS --fail -X POST -H "$auth" -H "$accept" --data-binary "@$OUT/comment.json" "$api/$PR/comments" > /dev/null || { err "curl: cannot comment on #$PR"; return 1; }
		note "commented on #$PR"
	fi
	rm -f "$OUT/comment.json"
}

post_gitlab() {
	tok=${TRACEFOLD_GITLAB_TOKEN:-}
	[ -n "$tok" ] || { err "TRACEFOLD_GITLAB_TOKEN is not set (a project access token with the api scope)"; return 1; }
	if [ -z "${CI_API_V4_URL:-}" ] || [ -z "${CI_PROJECT_ID:-}" ]; then
		err "CI_API_V4_URL and CI_PROJECT_ID are not set"
		return 1
	fi
	api=$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests/$PR/notes
	list=""
	page=1
	while [ "$page" -le 50 ]; do
		p=$(curl -sS --fail -H "PRIVATE-TOKEN: $tok" "$api?per_page=100&sort=asc&page=$page") || { err "curl: cannot list the notes of !$PR"; return 1; }
		list="$list$p"
		case $(printf '%s' "$p" | tr -d ' \n\r\t') in '[]' | '') break ;; esac
		page=$((page + 1))
	done
	id=$(printf '%s\n' "$list" | marker_id) || return 1
	if [ -n "$id" ]; then
		curl -sS --fail -X PUT -H "PRIVATE-TOKEN: $tok" --data-urlencode "body@$1" "$api/$id" > /dev/null || { err "curl: cannot update note $id"; return 1; }
		note "updated the note $id on !$PR"
	else
		curl -sS --fail -X POST -H "PRIVATE-TOKEN: $tok" --data-urlencode "body@$1" "$api" > /dev/null || { err "curl: cannot add a note to !$PR"; return 1; }
		note "added a note to !$PR"
	fi
}
