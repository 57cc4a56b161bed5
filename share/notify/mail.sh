#!/bin/sh
# mail.sh: mail a sluice event with mail(1).
#
# In the site's config.json, /etc/sluice/config.json (see
# config.json.example beside this file):
#   {"notify": [{"on": ["gate_waiting", "workflow_failed"],
#                "run": ["/usr/local/share/sluice/notify/mail.sh",
#                        "ops@example.com"]}]}
#
# The recipient is the first argument, else $NOTIFY_MAIL_TO.  The subject
# is $SLUICE_MESSAGE; the body names the workflow, the command that shows
# it, and ends with the event's JSON as it came on stdin.  Every value is
# passed to mail(1) as an argument or as data, never read as shell code.

set -u

to=${1:-${NOTIFY_MAIL_TO:-}}
if [ -z "$to" ]; then
	echo "mail.sh: no recipient: give one as the argument or in" \
	    "NOTIFY_MAIL_TO" >&2
	exit 2
fi
if ! command -v mail >/dev/null 2>&1; then
	echo "mail.sh: mail(1) is not installed" >&2
	exit 127
fi

subject=$(printf 'sluice: %s' "${SLUICE_MESSAGE:-${SLUICE_EVENT:-event}}" |
    cut -c1-200)
{
	printf '%s\n\n' "${SLUICE_MESSAGE:-}"
	printf 'Event:     %s\n' "${SLUICE_EVENT:-}"
	printf 'Workflow:  %s (%s), %s\n' "${SLUICE_WORKFLOW_ID:-}" \
	    "${SLUICE_WORKFLOW_NAME:-}" "${SLUICE_STATUS:-}"
	if [ -n "${SLUICE_STEP:-}" ]; then
		printf 'Step:      %s (%s), %s\n' "${SLUICE_STEP_ID:-}" \
		    "$SLUICE_STEP" "${SLUICE_STEP_STATUS:-}"
	fi
	printf 'Look:      %s\n\n' "${SLUICE_CONSOLE:-}"
	cat
} | mail -s "$subject" -- "$to"
