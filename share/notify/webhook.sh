#!/bin/sh
# webhook.sh: POST a sluice event's JSON (read from stdin) to a URL with
# curl(1).
#
# In the site's config.json, /etc/sluice/config.json (see
# config.json.example beside this file):
#   {"notify": [{"on": "*",
#                "run": ["/usr/local/share/sluice/notify/webhook.sh"],
#                "env": {"NOTIFY_WEBHOOK_URL": "https://hooks.example.com/x"},
#                "timeout": "20s"}]}
#
# The URL is the first argument, else $NOTIFY_WEBHOOK_URL; only http and
# https are allowed.  curl gives up after $NOTIFY_WEBHOOK_MAX_TIME seconds
# (default 15, below sluice's own timeout) and exits non-zero on an HTTP
# error, so sluice logs the failure and tries once more.

set -u

url=${1:-${NOTIFY_WEBHOOK_URL:-}}
if [ -z "$url" ]; then
	echo "webhook.sh: no URL: give one as the argument or in" \
	    "NOTIFY_WEBHOOK_URL" >&2
	exit 2
fi
if ! command -v curl >/dev/null 2>&1; then
	echo "webhook.sh: curl(1) is not installed" >&2
	exit 127
fi

exec curl --silent --show-error --fail \
    --max-time "${NOTIFY_WEBHOOK_MAX_TIME:-15}" \
    --proto '=http,https' \
    --header 'Content-Type: application/json' \
    --header "X-Sluice-Event: ${SLUICE_EVENT:-}" \
    --data-binary @- \
    --output /dev/null \
    --url "$url"
