#!/bin/sh
# chat.sh: post a sluice event to a Slack or Mattermost channel through an
# incoming webhook, as {"text": "..."}: the event's one-line message and
# the command that shows the run.
#
# In the site's config.json, /etc/sluice/config.json (see
# config.json.example beside this file):
#   {"notify": [{"on": ["gate_waiting", "workflow_failed", "workflow_late"],
#                "run": ["/usr/local/share/sluice/notify/chat.sh"],
#                "env": {"NOTIFY_CHAT_URL":
#                        "https://hooks.slack.com/services/T0/B0/XXXX"},
#                "timeout": "20s"}]}
#
# The URL is the first argument, else $NOTIFY_CHAT_URL; only http and https
# are allowed.  The text is built from $SLUICE_MESSAGE and $SLUICE_CONSOLE
# and escaped for JSON here (quotes, backslashes, control characters), so
# whatever a workflow name or gate message holds, the body stays one JSON
# object.  curl gives up after $NOTIFY_CHAT_MAX_TIME seconds (default 15)
# and exits non-zero on an HTTP error, so sluice logs it and tries again.

set -u

url=${1:-${NOTIFY_CHAT_URL:-}}
if [ -z "$url" ]; then
	echo "chat.sh: no URL: give one as the argument or in" \
	    "NOTIFY_CHAT_URL" >&2
	exit 2
fi
if ! command -v curl >/dev/null 2>&1; then
	echo "chat.sh: curl(1) is not installed" >&2
	exit 127
fi

# json_text: stdin as the inside of a JSON string.  Backslash and quote
# are escaped, tab and newline written as \t and \n, and any other control
# character as \u00XX; other bytes (UTF-8) pass as they are (awk in the
# C locale, where %c writes one byte).
json_text() {
	od -An -v -tu1 | tr -s ' \n' '\n\n' | LC_ALL=C awk '
	NF {
		c = $1 + 0
		if (c == 92) printf "\\\\"
		else if (c == 34) printf "\\\""
		else if (c == 10) printf "\\n"
		else if (c == 9) printf "\\t"
		else if (c < 32 || c == 127) printf "\\u%04x", c
		else printf "%c", c
	}'
}

text="sluice: ${SLUICE_MESSAGE:-${SLUICE_EVENT:-event}}"
if [ -n "${SLUICE_CONSOLE:-}" ]; then
	text=$(printf '%s\n%s' "$text" "$SLUICE_CONSOLE")
fi
body=$(printf '{"text": "%s"}' "$(printf '%s' "$text" | json_text)")

printf '%s' "$body" | exec curl --silent --show-error --fail \
    --max-time "${NOTIFY_CHAT_MAX_TIME:-15}" \
    --proto '=http,https' \
    --header 'Content-Type: application/json' \
    --data-binary @- \
    --output /dev/null \
    --url "$url"
